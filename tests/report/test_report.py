"""The HTML report: a self-contained, well-formed, deterministic page that shows every entry with
its evidence, draws coverage and co-usage per server, and renders server-supplied text inert."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from toolatlas.export import AtlasExport, ServerExport, ToolExport
from toolatlas.graph.models import (
    CoUsageRelation,
    Entry,
    EntryKind,
    EntryStatus,
    Evidence,
    StrategyNode,
    TraceNode,
    TraceStep,
)
from toolatlas.graph.state import RoundCoverage
from toolatlas.models import Effect, OutcomeClass
from toolatlas.report import read_atlas, render_report, write_report

SVG = "{http://www.w3.org/2000/svg}"
WHEN = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)
SCRIPT = "<script>alert(1)</script>"
ESCAPED_SCRIPT = "&lt;script&gt;alert(1)&lt;/script&gt;"
EVIL_NAME = 'evil"><img src=x onerror=alert(2)>'
FAILURE = "server exited during initialize: ModuleNotFoundError: No module named 'mcp_server_git'"


def _evidence(
    tool: str, probe: str, outcome: OutcomeClass, excerpt: str, round_: int = 1, **arguments
) -> Evidence:
    return Evidence(
        probe_id=probe, tool=tool, arguments=arguments, outcome=outcome, excerpt=excerpt, round=round_
    )


def _entry(server: str, tool: str, kind: EntryKind, text: str, **fields) -> Entry:
    fields.setdefault("first_verified", WHEN)
    fields.setdefault("last_verified", WHEN)
    return Entry(
        id=Entry.make_id(server, tool, "h" + tool, kind, text),
        kind=kind,
        server=server,
        tool=tool,
        schema_hash="h" + tool,
        signature=text,
        text=text,
        **fields,
    )


def _tool(
    server: str, name: str, entries: list[Entry], args: list[str], exercised: list[str], **fields
) -> ToolExport:
    mine = [e for e in entries if e.tool == name]
    return ToolExport(
        name=name,
        schema_hash="h" + name,
        arguments_total=args,
        arguments_exercised=exercised,
        argument_coverage=len(exercised) / len(args) if args else 1.0,
        input_schema={"type": "object", "properties": {a: {"type": "string"} for a in args if "=" not in a}},
        affordances=[e for e in mine if e.kind is EntryKind.AFFORDANCE],
        boundaries=[e for e in mine if e.kind is EntryKind.BOUNDARY],
        co_usage=[e for e in mine if e.kind is EntryKind.CO_USAGE],
        **fields,
    )


def _co(server: str, tool: str, peer: str, relation: CoUsageRelation, weight: float, **fields) -> Entry:
    text = f"`{tool}` composes with `{peer}` ({relation.value})."
    ev = _evidence(
        peer, f"p-{tool}-{peer}", OutcomeClass.OK, f"value from `{tool}` output", path="/tree/a.txt"
    )
    return _entry(
        server,
        tool,
        EntryKind.CO_USAGE,
        text,
        peer=peer,
        relation=relation,
        weight=weight,
        transitions=3,
        when=f"you need inputs for `{peer}`",
        evidence=[ev],
        **fields,
    )


def filesystem() -> tuple[ServerExport, list[RoundCoverage]]:
    s = "filesystem"
    ok = OutcomeClass.OK
    entries = [
        _entry(
            s,
            "read_text_file",
            EntryKind.AFFORDANCE,
            "`read_text_file` succeeds with `path` without changing anything.",
            when="read a file inside the sandbox",
            effect=Effect.READ_ONLY,
            deterministic=True,
            idempotent=True,
            support=4,
            confidence=0.86,
            round_found=0,
            arguments_exercised=["path"],
            evidence=[_evidence("read_text_file", "p1", ok, f"hello {SCRIPT} world", 0, path="/tree/a.txt")],
        ),
        _entry(
            s,
            "read_text_file",
            EntryKind.BOUNDARY,
            "`read_text_file` fails (tool_error) when the path escapes the root.",
            condition="the path escapes the allowed directory",
            when_not="the path escapes the allowed directory",
            error_signature="Access denied - path outside allowed directories",
            outcome=OutcomeClass.TOOL_ERROR,
            support=3,
            confidence=0.8,
            round_found=1,
            evidence=[
                _evidence(
                    "read_text_file",
                    "p2",
                    OutcomeClass.TOOL_ERROR,
                    "Error: Access denied - path outside allowed directories: /etc/passwd",
                    path="../../etc/passwd",
                )
            ],
        ),
        _entry(
            s,
            "write_file",
            EntryKind.BOUNDARY,
            "`write_file` reports an error in an otherwise successful result.",
            reported_as_success=True,
            error_signature="EACCES",
            outcome=ok,
            round_found=2,
            evidence=[
                _evidence("write_file", "p3", ok, "EACCES: permission denied", 2, path="/ro/x", content="")
            ],
        ),
        _entry(
            s,
            "write_file",
            EntryKind.AFFORDANCE,
            "`write_file` overwrote files in an old interface.",
            status=EntryStatus.STALE,
            effect=Effect.MUTATING,
            round_found=0,
            evidence=[_evidence("write_file", "p4", ok, "ok", 0, path="/tree/b.txt", content="x")],
        ),
        _entry(
            s,
            "list_directory",
            EntryKind.AFFORDANCE,
            "`list_directory` lists the entries of a directory.",
            effect=Effect.READ_ONLY,
            evidence=[_evidence("list_directory", "p5", ok, "[FILE] a.txt", path="/tree")],
        ),
        _co(s, "list_directory", "read_text_file", CoUsageRelation.DATA, 0.5),
        _co(s, "write_file", "read_text_file", CoUsageRelation.STATE, 0.8),
        _co(s, "read_text_file", "read_text_file", CoUsageRelation.RETRY, 0.2),
        _co(s, "read_text_file", "list_directory", CoUsageRelation.DATA, 0.1, status=EntryStatus.STALE),
        _co(s, "move_file", "list_directory", CoUsageRelation.STATE, 1.0),
    ]
    tools = [
        _tool(s, "get_file_info", entries, ["path"], []),
        _tool(s, "list_directory", entries, ["path"], ["path"], probes=6, outcomes={"ok": 6}),
        _tool(
            s,
            "move_file",
            entries,
            ["source", "destination"],
            ["source"],
            probes=2,
            outcomes={"ok": 1, "tool_error": 1},
        ),
        _tool(
            s,
            "read_text_file",
            entries,
            ["path", "head", "tail"],
            ["path", "head"],
            probes=11,
            outcomes={"ok": 7, "tool_error": 4},
            description=f"Read a file. {SCRIPT}",
            annotations={"read_only": True, "title": "Read file"},
        ),
        _tool(
            s,
            "write_file",
            entries,
            ["path", "content"],
            ["path", "content"],
            probes=5,
            outcomes={"ok": 5},
            annotations={"destructive": True},
        ),
        _tool(s, EVIL_NAME, entries, [], []),
    ]
    rows = [
        RoundCoverage(
            server=s,
            round=r,
            probes=p,
            resolved=p - 2,
            tools=6,
            tools_with_affordance=a,
            tools_with_boundary=b,
            argument_coverage=c,
            entries=e,
            new_entries=n,
            outcome_mix={"ok": p - 2, "tool_error": 2},
            seconds=1.5,
        )
        for r, p, a, b, c, e, n in [
            (0, 12, 2, 0, 0.4, 4, 4),
            (1, 9, 3, 1, 0.6, 8, 4),
            (2, 7, 3, 2, 0.7, 10, 2),
        ]
    ]
    return ServerExport(name=s, tools=tools), rows


def sqlite() -> tuple[ServerExport, list[RoundCoverage]]:
    s = "sqlite"
    entries = [
        _entry(
            s,
            "read_query",
            EntryKind.AFFORDANCE,
            "`read_query` runs a SELECT.",
            effect=Effect.READ_ONLY,
            evidence=[
                _evidence(
                    "read_query", "q1", OutcomeClass.OK, "[{'n': 3}]", query="SELECT count(*) AS n FROM t"
                )
            ],
        ),
        _entry(
            s,
            "read_query",
            EntryKind.BOUNDARY,
            "`read_query` fails when the statement is not a SELECT.",
            condition="an INSERT statement",
            error_signature="Only SELECT queries are allowed",
            evidence=[
                _evidence(
                    "read_query",
                    "q2",
                    OutcomeClass.TOOL_ERROR,
                    "Error: Only SELECT queries are allowed",
                    query="INSERT INTO t VALUES (1)",
                )
            ],
        ),
        _co(s, "list_tables", "describe_table", CoUsageRelation.DATA, 0.9),
        _co(s, "write_query", "read_query", CoUsageRelation.STATE, 0.6),
    ]
    tools = [
        _tool(
            s,
            name,
            entries,
            ["query"] if "query" in name else ["table_name"],
            [],
            probes=3,
            outcomes={"ok": 3},
        )
        for name in ("describe_table", "list_tables", "read_query", "write_query")
    ]
    rows = [
        RoundCoverage(
            server=s,
            round=r,
            probes=5,
            resolved=4,
            tools=4,
            tools_with_affordance=r + 1,
            tools_with_boundary=r,
            argument_coverage=0.25 * (r + 1),
            entries=2 * r + 1,
            new_entries=2,
        )
        for r in range(3)
    ]
    return ServerExport(name=s, tools=tools), rows


@pytest.fixture()
def atlas() -> AtlasExport:
    fs, fs_rows = filesystem()
    db, db_rows = sqlite()
    trace = TraceNode(
        id="t1",
        server="filesystem",
        task="Find a file and read it",
        runs=4,
        resolved=3,
        failed=1,
        steps=[
            TraceStep(tool="list_directory", rationale="see what exists"),
            TraceStep(tool="read_text_file", rationale="read the `a.txt` it listed"),
        ],
        tips=["Paths are relative to the allowed root."],
        last_verified=WHEN,
    )
    strategy = StrategyNode(
        id="st1",
        server="filesystem",
        title="List before you read",
        when="the file name is unknown",
        plan=["Call `list_directory`.", "Read a listed file."],
        pitfalls=["Paths outside the root fail."],
        tools=["list_directory", "read_text_file"],
        traces=["t1", "gone"],
        support=3,
        last_verified=WHEN,
    )
    failed = RoundCoverage(server="git", round=0, status="failed", detail=FAILURE)
    return AtlasExport(
        catalogue="demo",
        generated_at=WHEN,
        servers=[fs, ServerExport(name="git", status="failed"), db],
        traces=[trace],
        strategies=[strategy],
        coverage=[*fs_rows, failed, *db_rows],
    )


class _Balance(HTMLParser):
    VOID = frozenset({"meta", "input", "br", "img", "hr", "link", "wbr"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()

    def handle_data(self, data) -> None:
        self.text.append(data)


def _parse(page: str) -> _Balance:
    parser = _Balance()
    parser.feed(page)
    parser.close()
    return parser


def _svgs(page: str, cls: str) -> list[ET.Element]:
    return [
        ET.fromstring(m)
        for m in re.findall(r"<svg .*?</svg>", page, flags=re.S)
        if f'class="{cls}' in m[:200]
    ]


def _entries(atlas: AtlasExport) -> list[Entry]:
    return [e for s in atlas.servers for t in s.tools for e in (*t.affordances, *t.boundaries, *t.co_usage)]


class TestDocument:
    def test_tags_balance(self, atlas: AtlasExport) -> None:
        """Every opened element is closed in order, and nothing is left open."""
        parser = _parse(render_report(atlas))
        assert parser.errors == []
        assert parser.stack == []

    def test_every_svg_is_well_formed_xml(self, atlas: AtlasExport) -> None:
        """Each inline drawing parses as standalone XML and carries an accessible title."""
        fragments = re.findall(r"<svg .*?</svg>", render_report(atlas), flags=re.S)
        assert len(fragments) == 3 * 3  # two coverage charts and one graph per server
        for fragment in fragments:
            root = ET.fromstring(fragment)
            assert root.find(f"{SVG}title") is not None

    def test_self_contained(self, atlas: AtlasExport) -> None:
        """No external asset is referenced; the only script is the inline filter, allowed by hash."""
        page = render_report(atlas)
        assert re.findall(r"https?://", page) == ["http://"] * page.count(
            'xmlns="http://www.w3.org/2000/svg"'
        )
        assert "<link" not in page and " src=" not in page.replace("src=x", "")
        assert page.count("<script>") == 1 and "script-src &#x27;sha256-" in page

    def test_ids_are_unique_and_links_resolve(self, atlas: AtlasExport) -> None:
        """Element ids are unique and every in-page link (TOC, graph nodes, strategy traces) has a target."""
        page = render_report(atlas)
        ids = re.findall(r' id="([^"]+)"', page)
        assert len(ids) == len(set(ids))
        assert set(re.findall(r'href="#([^"]+)"', page)) <= set(ids)

    def test_deterministic(self, atlas: AtlasExport) -> None:
        """The same atlas, also after a JSON round trip, renders to the same bytes."""
        again = AtlasExport.model_validate_json(atlas.model_dump_json(by_alias=True))
        assert render_report(atlas).encode() == render_report(atlas).encode() == render_report(again).encode()


class TestHeader:
    def test_totals_and_failed_server_detail(self, atlas: AtlasExport) -> None:
        """Totals count servers and entries; a failed server shows the detail of its coverage rows."""
        page = render_report(atlas)
        assert '<div class="total"><b>3</b><span>servers</span></div>' in page
        edges = sum(len(t.co_usage) for s in atlas.servers for t in s.tools)
        assert f'<div class="total"><b>{edges}</b><span>co-usage edges</span></div>' in page
        assert f'<div class="total"><b>{12 + 9 + 7 + 15}</b><span>probes</span></div>' in page
        assert page.count('<span class="badge failed">failed</span>') >= 3  # header, coverage cell, section
        assert "ModuleNotFoundError: No module named &#x27;mcp_server_git&#x27;" in page

    def test_server_that_gave_up_mid_build_is_failed(self) -> None:
        """A server exported as ok whose last round failed is shown failed, with that round's detail."""
        rows = [
            RoundCoverage(server="s", round=0, tools=1),
            RoundCoverage(server="s", round=1, status="failed", detail="could not be (re)started"),
        ]
        atlas = AtlasExport(catalogue="c", generated_at=WHEN, servers=[ServerExport(name="s")], coverage=rows)
        page = render_report(atlas)
        assert '<td class="detail">round 1: failed — could not be (re)started</td>' in page
        assert '<h2>s <span class="badge failed">failed</span></h2>' in page


class TestCoverage:
    def test_one_shares_and_one_entries_chart_per_server(self, atlas: AtlasExport) -> None:
        """Each server gets a shares chart with three series over its rounds, and an entries chart."""
        page = render_report(atlas)
        shares, entries = _svgs(page, "coverage-chart shares"), _svgs(page, "coverage-chart entries")
        assert len(shares) == len(entries) == 3
        lines = shares[0].findall(f".//{SVG}polyline")
        assert len(lines) == 3 and all(len(p.get("points").split()) == 3 for p in lines)
        assert "filesystem" in shares[0].find(f"{SVG}title").text

    def test_failed_round_is_marked_on_the_chart(self, atlas: AtlasExport) -> None:
        """The failed server's chart carries a failed-round marker whose tooltip is the detail."""
        git = _svgs(render_report(atlas), "coverage-chart shares")[1]
        marker = git.find(f".//{SVG}line[@class='failed-round']")
        assert marker is not None and FAILURE in marker.find(f"{SVG}title").text

    def test_round_table(self, atlas: AtlasExport) -> None:
        """The per-round table has one row per round with probes, resolved share and outcome mix."""
        page = render_report(atlas)
        table = page.split('<table class="rounds">')[1].split("</table>")[0]
        assert table.count("<tr>") == 1 + 3
        assert '<td class="num">10 (83%)</td>' in table and "tool_error 2" in table

    def test_legend_carries_each_lines_last_value_and_lines_nest(self) -> None:
        """Two shares on the same value stay readable: the legend says each last value, the lines nest by width."""
        rows = [RoundCoverage(server="s", round=r, tools=4, tools_with_affordance=4, tools_with_boundary=r,
                              argument_coverage=1.0, entries=3 * r) for r in range(3)]
        atlas = AtlasExport(catalogue="c", generated_at=WHEN, servers=[ServerExport(name="s")], coverage=rows)
        chart = _svgs(render_report(atlas), "coverage-chart shares")[0]
        texts = {t.text for t in chart.iter(f"{SVG}text")}
        assert {"tools with ≥1 affordance: 100%", "tools with ≥1 boundary: 50%", "argument coverage: 100%"} <= texts
        widths = [float(line.get("stroke-width")) for line in chart.findall(f".//{SVG}polyline")]
        assert widths == sorted(widths, reverse=True) and len(set(widths)) == 3

    @pytest.mark.parametrize("rounds", [1, 60])
    def test_one_round_and_many_rounds(self, rounds: int) -> None:
        """A single round draws a point; sixty rounds keep the x axis to at most eleven labels."""
        rows = [
            RoundCoverage(server="s", round=r, tools=2, tools_with_affordance=1, entries=r)
            for r in range(rounds)
        ]
        atlas = AtlasExport(catalogue="c", generated_at=WHEN, servers=[ServerExport(name="s")], coverage=rows)
        chart = _svgs(render_report(atlas), "coverage-chart shares")[0]
        labels = [t.text for t in chart.iter(f"{SVG}text") if t.text and t.text.isdigit()]
        assert labels[0] == "0" and len(labels) <= 11
        assert len(chart.findall(f".//{SVG}circle")) == (3 * rounds if rounds <= 40 else 0)


class TestGraph:
    def test_one_edge_per_co_usage_entry(self, atlas: AtlasExport) -> None:
        """Each server's graph draws one directed edge per co-usage entry, typed by its relation."""
        graphs = _svgs(render_report(atlas), "co-usage-graph")
        assert len(graphs) == 3
        for server, graph in zip(atlas.servers, graphs, strict=True):
            expected = sorted(e.relation.value for t in server.tools for e in t.co_usage)
            edges = [p for p in graph.iter(f"{SVG}path") if "edge" in p.get("class", "").split()]
            assert sorted(p.get("data-relation") for p in edges) == expected
            assert all(p.get("marker-end", "").startswith("url(#") for p in edges)

    def test_isolated_tools_are_nodes_and_link_to_cards(self, atlas: AtlasExport) -> None:
        """Every tool is a node (with or without edges), linked to its card."""
        page = render_report(atlas)
        graph = _svgs(page, "co-usage-graph")[0]
        nodes = graph.findall(f".//{SVG}g[@class='node']")
        assert len(nodes) == len(atlas.servers[0].tools)
        for node in nodes:
            href = node.find(f"{SVG}a").get("href")
            assert f'id="{href[1:]}"' in page

    def test_stale_edges_are_dashed(self, atlas: AtlasExport) -> None:
        """A stale co-usage entry is drawn dashed."""
        graph = _svgs(render_report(atlas), "co-usage-graph")[0]
        stale = [p for p in graph.iter(f"{SVG}path") if "stale" in p.get("class", "").split()]
        assert len(stale) == 1 and stale[0].get("stroke-dasharray")

    def test_compositions_read_downwards(self) -> None:
        """A chain of compositions puts each tool a row below the one composing into it; a cycle's closing
        edge runs back up; tools composed with nothing share the last row."""
        chain = ["create", "write", "read"]
        tools = [ToolExport(name=n, schema_hash="h", co_usage=[_co("s", n, chain[i + 1], CoUsageRelation.DATA, 0.5)]
                            if i < 2 else [_co("s", n, "create", CoUsageRelation.STATE, 0.2)])
                 for i, n in enumerate(chain)]
        tools.append(ToolExport(name="alone", schema_hash="h"))
        atlas = AtlasExport(catalogue="c", generated_at=WHEN, servers=[ServerExport(name="s", tools=tools)])
        graph = _svgs(render_report(atlas), "co-usage-graph")[0]
        y = {node.find(f".//{SVG}text").text: float(node.find(f".//{SVG}circle").get("cy"))
             for node in graph.findall(f".//{SVG}g[@class='node']")}
        assert y["create"] < y["write"] < y["read"] < y["alone"]
        edges = [p for p in graph.iter(f"{SVG}path") if "edge" in p.get("class", "").split()]
        assert len(edges) == 3

    def test_thirty_tools_stay_well_formed(self) -> None:
        """A thirty-tool ring renders every node and edge in rows that wrap at the page's width."""
        names = [f"tool_{i:02d}_with_a_longish_name" for i in range(30)]
        tools = [
            ToolExport(
                name=n,
                schema_hash="h",
                co_usage=[_co("s", n, names[(i + 1) % 30], CoUsageRelation.DATA, 0.3)],
            )
            for i, n in enumerate(names)
        ]
        atlas = AtlasExport(catalogue="c", generated_at=WHEN, servers=[ServerExport(name="s", tools=tools)])
        graph = _svgs(render_report(atlas), "co-usage-graph")[0]
        nodes = graph.findall(f".//{SVG}g[@class='node']")
        assert len(nodes) == 30
        assert len([p for p in graph.iter(f"{SVG}path") if "edge" in p.get("class", "")]) == 30
        assert float(graph.get("width")) <= 1100 + 200
        rows = {float(node.find(f".//{SVG}circle").get("cy")) for node in nodes}
        assert len(rows) > 30 / 4


class TestCards:
    def test_every_entry_text_appears(self, atlas: AtlasExport) -> None:
        """Each entry's sentence is on the page (backtick spans rendered as code)."""
        text = "".join(_parse(render_report(atlas)).text)
        for entry in _entries(atlas):
            assert entry.text.replace("`", "") in text

    def test_typed_fields_and_evidence(self, atlas: AtlasExport) -> None:
        """Set fields are listed and evidence shows the verbatim arguments as JSON and the excerpt."""
        page = render_report(atlas)
        assert (
            "<dt>error signature</dt><dd><code>Access denied - path outside allowed directories</code></dd>"
            in page
        )
        assert (
            "<dt>reported as success</dt>" in page
            and "<dt>weight</dt><dd>0.80 (3 transition(s))</dd>" in page
        )
        assert "<dt>idempotent</dt><dd>yes</dd>" in page
        # the condition once: its `when not` twin is not repeated
        assert "<dt>condition</dt><dd>the path escapes the allowed directory</dd>" in page
        assert "<dt>when not</dt>" not in page
        arguments = json.dumps({"path": "../../etc/passwd"}, indent=2).replace('"', "&quot;")
        assert f"<pre>{arguments}</pre>" in page
        assert "<pre>Error: Access denied - path outside allowed directories: /etc/passwd</pre>" in page
        assert '<details class="evidence"><summary>evidence (1)</summary>' in page

    def test_a_cards_entries_are_folded_and_the_tools_can_be_filtered(self, atlas: AtlasExport) -> None:
        """Each card shows its tool's header open and its entries folded under one closed summary; a tool with
        no entry says so in the open; the page has the filter box over the cards' names."""
        page = render_report(atlas)
        cards = page.split('<article class="tool-card"')[1:]
        tools = [t for s in atlas.servers for t in s.tools]
        assert len(cards) == len(tools) > 1
        for card, tool in zip(cards, tools, strict=True):
            total = len(tool.affordances) + len(tool.boundaries) + len(tool.co_usage)
            card = card.split("</article>")[0]
            if total:
                folded = f'<details class="card-entries"><summary>entries ({total})</summary>'
                assert card.count(folded) == 1 and card.index(folded) < card.index('<ul class="entries')
            else:
                assert "card-entries" not in card and "found yet" in card
        assert '<input id="tool-filter" type="search"' in page and page.count('data-name="') == len(tools)

    def test_a_condition_the_sentence_states_is_not_repeated(self) -> None:
        """A boundary whose sentence already says its condition lists no condition field."""
        said = _entry("s", "t", EntryKind.BOUNDARY, "`t` fails (tool_error) when `path` is a directory: “EISDIR”.",
                      condition="`path` is a directory", when_not="`path` is a directory", outcome=OutcomeClass.TOOL_ERROR)
        atlas = AtlasExport(catalogue="c", generated_at=WHEN, servers=[ServerExport(
            name="s", tools=[ToolExport(name="t", schema_hash="ht", boundaries=[said])])])
        page = render_report(atlas)
        assert "<dt>condition</dt>" not in page and "<dt>when not</dt>" not in page

    def test_argument_coverage_lists_exercised_and_missing(self, atlas: AtlasExport) -> None:
        """Argument coverage names exercised and unexercised arguments."""
        page = render_report(atlas)
        assert "67% — 2 of 3 exercised" in page
        assert '<li class="miss" title="not exercised">tail</li>' in page

    def test_stale_entries_are_marked(self, atlas: AtlasExport) -> None:
        """Stale entries carry the stale class and label, as many as the atlas holds."""
        page = render_report(atlas)
        stale = [e for e in _entries(atlas) if e.status is EntryStatus.STALE]
        assert len(stale) == 2
        assert page.count('<li class="entry stale" data-status="stale"') == len(stale)
        assert page.count('<span class="badge stale"') == len(stale)

    def test_server_text_is_inert(self, atlas: AtlasExport) -> None:
        """A script tag in a description or an excerpt, or markup in a tool name, is escaped, never live."""
        page = render_report(atlas)
        assert SCRIPT not in page and "<script>alert" not in page
        assert f'<p class="description">Read a file. {ESCAPED_SCRIPT}</p>' in page
        assert f"<pre>hello {ESCAPED_SCRIPT} world</pre>" in page
        assert "<img" not in page
        assert "evil&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in page


class TestStrategiesAndTraces:
    def test_strategy_links_its_traces(self, atlas: AtlasExport) -> None:
        """A strategy shows when, plan and pitfalls, and links the traces it names (unknown ids as text)."""
        page = render_report(atlas)
        assert "<li>Call <code>list_directory</code>.</li>" in page and "Paths outside the root fail." in page
        assert (
            '<a href="#trace-0-0">Find a file and read it</a>' in page
            and '<span class="mono">gone</span>' in page
        )

    def test_trace_steps_and_outcomes(self, atlas: AtlasExport) -> None:
        """A trace lists its steps with rationale, its tips and its run statistics."""
        page = render_report(atlas)
        assert '<article class="trace" id="trace-0-0">' in page
        assert "<li><code>list_directory</code> — see what exists</li>" in page
        assert "4 run(s) · 3 resolved · 1 failed · success 75%" in page


class TestWrite:
    def test_write_and_read_back(self, atlas: AtlasExport, tmp_path: Path) -> None:
        """write_report writes the page; read_atlas loads an exported atlas that renders the same."""
        out = write_report(atlas, tmp_path / "out" / "report.html")
        exported = tmp_path / "atlas.json"
        exported.write_text(atlas.model_dump_json(by_alias=True))
        assert out.read_text(encoding="utf-8") == render_report(read_atlas(exported))
