"""Retrieval and traversal details: stemmed lexical matching, what a tool is retrieved by, co-usage
expansion, ranking by evidence, the tool reserve of the read budget, and the static ablation."""

from __future__ import annotations

from toolatlas.graph.models import (
    CoUsageRelation,
    Entry,
    EntryKind,
    EntryStatus,
    Evidence,
    ToolNode,
    TraceNode,
    TraceStep,
)
from toolatlas.guidance import Atlas, AtlasView, OfflineNavigator, StaticNavigator
from toolatlas.guidance.index import LexicalIndex, terms
from toolatlas.models import OutcomeClass


def tool(name: str, description: str, neighbours: dict | None = None, server: str = "ci",
         status: EntryStatus = EntryStatus.ACTIVE) -> ToolNode:
    return ToolNode(id=f"{server}.{name}", server=server, tool=name, schema_hash="h", description=description,
                    neighbours=neighbours or {}, status=status)


def entry(name: str, kind: EntryKind, *, arguments: dict, server: str = "ci", **fields) -> Entry:
    evidence = Evidence(probe_id=f"p-{name}", tool=name, arguments=arguments, outcome=fields.get("outcome", OutcomeClass.OK))
    return Entry(id=f"{name}.{kind.value}.{len(str(arguments))}", kind=kind, server=server, tool=name, schema_hash="h",
                 signature=f"{kind.value}:{arguments}", text=fields.pop("text", name), evidence=[evidence],
                 probe_ids=[evidence.probe_id], **fields)


def release_atlas() -> AtlasView:
    """A release pipeline: ``package`` feeds ``publish`` (a witnessed data edge); unrelated tools around."""
    tools = [
        tool("publish", "Publish a release to the package index."),
        tool("package", "Build the distribution artifacts.", {"publish": 0.8}),
        tool("lint", "Check the source code style."),
        tool("notify", "Send a chat message."),
        tool("archive", "Store old build logs.", {"archive": 1.0}),
        tool("query", "Run a SELECT statement on the shop database."),
    ]
    entries = [
        entry("package", EntryKind.CO_USAGE, arguments={}, peer="publish", relation=CoUsageRelation.DATA, weight=0.8,
              transitions=4),
        entry("query", EntryKind.AFFORDANCE, arguments={"query": "SELECT name FROM invoices"}, when="read rows"),
        entry("query", EntryKind.BOUNDARY, arguments={"query": "SELECT * FROM nope"}, outcome=OutcomeClass.TOOL_ERROR,
              condition="`query` refers to a table that does not exist"),
    ]
    return AtlasView(tools, entries, [], [])


class TestLexicalMatching:
    def test_words_meet_their_other_forms(self) -> None:
        """'switch … branch' finds the tool that 'switches branches'; 'differ' finds 'differences'."""
        index = LexicalIndex(["Switches branches", "Shows differences between commits", "Lists tags"])
        assert index.top("switch me to another branch", 1)[0][0] == 0
        assert index.top("how does it differ", 1)[0][0] == 1

    def test_british_and_american_spellings_meet(self) -> None:
        """"organisational units" finds ``organizationalUnit``, a colour a color, a catalogue a catalog; a word whose
        -ise is its root (promise, precise) keeps its family together."""
        index = LexicalIndex(["Filter by object type (user, group, organizationalUnit)", "Pick a color",
                              "Browse the catalog"])
        assert index.top("list the organisational units", 1)[0][0] == 0
        assert index.top("what colour is it", 1)[0][0] == 1
        assert index.top("the product catalogue", 1)[0][0] == 2
        assert terms("promise") == terms("promised") and terms("precise") == terms("precisely")
        assert terms("optimise") == terms("optimize") and terms("analyse") == terms("analyze")

    def test_identifiers_split_and_kept_whole(self) -> None:
        """An identifier gives its stemmed words and itself, as written (so an exact tool name matches strongly)."""
        assert terms("read_files") == ["read", "file", "read_files"]

    def test_rare_terms_weigh_more(self) -> None:
        """A term found in one document outweighs one found in every document."""
        index = LexicalIndex(["file tree", "file size", "file owner"])
        assert index.top("file owner", 3)[0][0] == 2
        assert index.scores("nothing matches") == {}


class TestToolText:
    def test_verified_argument_values_and_limits_retrieve_a_tool(self) -> None:
        """A table named in a verified call, or a verified failure condition, leads to the tool."""
        view = release_atlas()
        assert next(iter(view.tool_relevance("how many invoices were there", None))) == ("ci", "query")
        best = max(view.tool_relevance("the table does not exist", None).items(), key=lambda kv: kv[1])
        assert best[0] == ("ci", "query")

    def test_co_usage_links_both_ways_without_self_loops(self) -> None:
        """A witnessed edge links both tools; a retry edge (a tool with itself) is no composition."""
        view = release_atlas()
        assert view.co_usage(("ci", "package")) == {("ci", "publish"): 0.8}
        assert view.co_usage(("ci", "publish")) == {("ci", "package"): 0.8}
        assert view.co_usage(("ci", "archive")) == {}

    def test_stale_peer_is_not_linked(self) -> None:
        """An edge to a stale tool is dropped with the tool."""
        view = AtlasView([tool("a", "first", {"b": 1.0}), tool("b", "second", status=EntryStatus.STALE)], [], [], [])
        assert view.co_usage(("ci", "a")) == {}


class TestTraversal:
    def test_co_usage_pulls_in_the_companion(self) -> None:
        """A publish task also gets ``package``, which feeds ``publish``, at the edge's share of its evidence."""
        guidance = Atlas(release_atlas()).guide("publish the new release")
        ranked = [(t.tool, t.relevance) for t in guidance.tools]
        assert ranked[0] == ("publish", 1.0)
        assert ("package", 0.8) in ranked

    def test_tools_are_ranked_by_evidence(self) -> None:
        """The guidance lists tools by their evidence, whatever order they were read in."""
        guidance = Atlas(release_atlas()).guide("publish the new release")
        relevance = [t.relevance for t in guidance.tools]
        assert relevance == sorted(relevance, reverse=True)

    def test_an_example_uses_only_served_tools(self) -> None:
        """An exemplar trace is served only when the guidance serves every tool it uses: with six tools
        and five served, the trace through the one left out is not shown."""
        tools = [tool(f"t{i}", f"deploy step {i}") for i in range(6)]
        traces = [TraceNode(id=f"q{i}", server="ci", task="deploy",
                            steps=[TraceStep(tool=f"t{i}", rationale="deploy"), TraceStep(tool=f"t{i + 1}",
                                                                                         rationale="check")],
                            tools=[f"t{i}", f"t{i + 1}"], runs=1, resolved=1) for i in range(5)]
        guidance = Atlas(AtlasView(tools, [], traces, [])).guide("deploy", budget=8)
        served = {t.tool for t in guidance.tools}
        assert len(served) == 5
        assert all(set(tool for tool, _ in e.steps) <= served for e in guidance.exemplars)

    def test_budget_is_kept_for_tools(self) -> None:
        """However relevant the traces, a small budget is spent on tools first."""
        tools = [tool(f"t{i}", f"deploy step {i}") for i in range(5)]
        traces = [TraceNode(id=f"q{i}", server="ci", task="deploy",
                            steps=[TraceStep(tool="t0", rationale="deploy"), TraceStep(tool="t1", rationale="check")],
                            tools=["t0", "t1"], runs=1, resolved=1) for i in range(3)]
        atlas = Atlas(AtlasView(tools, [], traces, []))
        small = atlas.guide("deploy", budget=5)
        assert [s.operation for s in small.trail] == ["read_tool"] * 5
        full = atlas.guide("deploy", budget=8)
        assert sum(s.operation == "read_tool" for s in full.trail) == 5
        assert full.trail[0].operation == "read_trace" and full.exemplars

    def test_a_trace_of_a_server_the_task_is_not_about_lends_little(self) -> None:
        """Traces are weighed by the task's route as tools are: a shop's trace that shares "today" with a
        beekeeping request does not pull the shop's tools ahead of the beekeeping server's own."""
        tools = [tool("track_event", "Track one dated record of the apiary log: varroa mite counts on a hive's board, "
                                             "inspections, treatments.", server="bees"),
                 tool("query_events", "Query the apiary log by kind, hive and date range.", server="bees"),
                 tool("approvals_get", "Read an approval request.", server="shop"),
                 tool("approvals_request", "Request approval of an invoice staged today.", server="shop")]
        traces = [TraceNode(id=f"q{i}", server="shop", task="request approval of the invoice staged today",
                            steps=[TraceStep(tool="approvals_request", rationale="ask"),
                                   TraceStep(tool="approvals_get", rationale="check")],
                            tools=["approvals_request", "approvals_get"], runs=1, resolved=1) for i in range(3)]
        view = AtlasView(tools, [], traces, [])
        task = "Log Heather's varroa board from today: 0.4 mites a day, natural drop, for the hive's treatments."
        assert set(view.route_weights(task)) == {"bees"}
        unrouted, routed = view.trace_relevance(task, None, routed=False), view.trace_relevance(task, None)
        assert unrouted["q0"] > 0 and routed["q0"] < 0.5 * unrouted["q0"]
        ranked = [t.server for t in Atlas(view).guide(task).tools]
        assert ranked[:2] == ["bees", "bees"]

    def test_navigator_is_deterministic(self) -> None:
        """The same task gives the same walk on two fresh atlases."""
        first = Atlas(release_atlas(), navigator=OfflineNavigator()).guide("publish the release")
        second = Atlas(release_atlas(), navigator=OfflineNavigator()).guide("publish the release")
        assert first == second


class TestStaticAblation:
    def test_reads_only_tools_by_relevance(self) -> None:
        """No trace, strategy or edge is followed: the companion without matching words is not served."""
        guidance = Atlas(release_atlas(), navigator=StaticNavigator()).guide("publish the new release")
        assert {s.operation for s in guidance.trail} == {"read_tool"}
        assert [t.tool for t in guidance.tools][0] == "publish"
        assert "package" not in [t.tool for t in guidance.tools]
