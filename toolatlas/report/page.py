"""The human report: one self-contained HTML page per atlas (``toolatlas report``).

Written for a server maintainer checking "is this true about my server?": a header with totals
and per-server status, coverage per round (charts and tables), then per server the co-usage
graph, one card per tool with every entry and its verbatim evidence, strategies and traces.
No external assets and no network; the only script is the optional tool-name filter, allowed by
hash in the page's Content-Security-Policy. Same atlas, same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolatlas.export import AtlasExport
from toolatlas.graph.models import EntryStatus, StrategyNode, TraceNode
from toolatlas.report.cards import inline, tool_card
from toolatlas.report.coverage import OPEN_LIMIT, coverage_section
from toolatlas.report.graph import co_usage_graph
from toolatlas.report.servers import ServerView, badge, server_views
from toolatlas.report.style import CSS, SCRIPT, SCRIPT_HASH
from toolatlas.report.svg import esc

__all__ = ["read_atlas", "render_report", "write_report"]

CSP = f"default-src 'none'; style-src 'unsafe-inline'; script-src '{SCRIPT_HASH}'; img-src data:"
STATUS_COLUMNS = (
    "tools",
    "rounds",
    "probes",
    "affordances",
    "boundaries",
    "co-usage",
    "traces",
    "strategies",
)
STALE = ' <span class="badge stale">stale</span>'


def _header(atlas: AtlasExport, servers: Sequence[ServerView]) -> str:
    kinds = ("affordances", "boundaries", "co_usage")
    totals = [
        ("servers", len(servers)),
        ("tools", sum(len(s.export.tools) for s in servers)),
        ("affordances", sum(s.count("affordances") for s in servers)),
        ("boundaries", sum(s.count("boundaries") for s in servers)),
        ("co-usage edges", sum(s.count("co_usage") for s in servers)),
        ("traces", len(atlas.traces)),
        ("strategies", len(atlas.strategies)),
        ("probes", sum(s.probes for s in servers)),
    ]
    tools = [t for s in servers for t in s.export.tools]
    stale = sum(1 for t in tools for k in kinds for e in getattr(t, k) if e.status is EntryStatus.STALE)
    tiles = "".join(f'<div class="total"><b>{n}</b><span>{esc(label)}</span></div>' for label, n in totals)
    rows = []
    for s in servers:
        counts = [len(s.export.tools), len(s.rows), s.probes, *(s.count(k) for k in kinds)]
        counts += [len(s.traces), len(s.strategies)]
        rows.append(
            f'<tr><td><a href="#{s.anchor}">{esc(s.name)}</a></td><td>{badge(s.status)}</td>'
            + "".join(f'<td class="num">{n}</td>' for n in counts)
            + f'<td class="detail">{esc("; ".join(s.failure_lines))}</td></tr>'
        )
    head = "<th>server</th><th>status</th>"
    head += "".join(f'<th class="num">{c}</th>' for c in STATUS_COLUMNS) + "<th>failure detail</th>"
    generated = atlas.generated_at.isoformat(timespec="seconds")
    greyed = f" {stale} stale entr{'y is' if stale == 1 else 'ies are'} greyed out." if stale else ""
    return (
        f"<header><h1>ToolAtlas report — {esc(atlas.catalogue)}</h1>"
        f'<p class="subtitle">Generated {esc(generated)} · schema {esc(atlas.schema_version)} · '
        "every entry below was verified by executing the tool in a sandbox; expand <i>evidence</i> to see "
        f'the verbatim calls and outputs.{greyed}</p><div class="totals">{tiles}</div>'
        f'<table class="status"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></header>'
    )


def _links(ids: Sequence[str], server: ServerView) -> str:
    """Links to the server's traces by id; an id the atlas does not hold is shown as text."""
    tasks = {t.id: t.task for t in server.traces}
    return ", ".join(
        f'<a href="#{server.trace_anchors[i]}">{inline(tasks[i])}</a>'
        if i in server.trace_anchors
        else f'<span class="mono">{esc(i)}</span>'
        for i in ids
    )


def _strategy(strategy: StrategyNode, server: ServerView) -> str:
    stale = STALE if strategy.status is EntryStatus.STALE else ""
    plan = "".join(f"<li>{inline(step)}</li>" for step in strategy.plan)
    pitfalls = "".join(f"<li>{inline(p)}</li>" for p in strategy.pitfalls)
    tools = ", ".join(f"<code>{esc(t)}</code>" for t in strategy.tools)
    traces = _links(strategy.traces, server) or '<span class="empty">none</span>'
    return (
        f'<article class="strategy"><h4>{inline(strategy.title)}{stale}</h4>'
        f'<p class="meta">support {strategy.support} · round found {strategy.round_found} · tools {tools}</p>'
        f"<p><b>When</b> {inline(strategy.when)}</p><b>Plan</b><ol>{plan}</ol>"
        + (f"<b>Pitfalls</b><ul>{pitfalls}</ul>" if pitfalls else "")
        + f"<p><b>Traces</b> {traces}</p></article>"
    )


def _trace(trace: TraceNode, server: ServerView) -> str:
    stale = STALE if trace.status is EntryStatus.STALE else ""
    steps = "".join(f"<li><code>{esc(s.tool)}</code> — {inline(s.rationale)}</li>" for s in trace.steps)
    tips = "".join(f"<li>{inline(t)}</li>" for t in trace.tips)
    similar = [i for i, _ in sorted(trace.similar.items(), key=lambda kv: (-kv[1], kv[0]))]
    return (
        f'<article class="trace" id="{server.trace_anchors[trace.id]}"><h4>{inline(trace.task)}{stale}</h4>'
        f'<p class="meta">{trace.runs} run(s) · {trace.resolved} resolved · {trace.failed} failed · '
        f"success {100 * trace.success_rate:.0f}% · round found {trace.round_found}</p><ol>{steps}</ol>"
        + (f"<b>Tips</b><ul>{tips}</ul>" if tips else "")
        + (f'<p class="meta">similar: {_links(similar, server)}</p>' if similar else "")
        + "</article>"
    )


def _listing(title: str, items: Sequence[str]) -> str:
    if not items:
        return f'<h3>{title} (0)</h3><p class="empty">none yet</p>'
    opened = " open" if len(items) <= OPEN_LIMIT else ""
    summary = f"<summary>{title} ({len(items)})</summary>"
    return f'<details class="listing"{opened}>{summary}{"".join(items)}</details>'


def _server_section(server: ServerView) -> str:
    tools = server.export.tools
    graph = co_usage_graph(server.name, tools, f"srv-{server.index}", server.tool_anchors)
    cards = "".join(tool_card(t, server.tool_anchors[t.name]) for t in tools)
    cards = cards or '<p class="empty">no tools listed</p>'
    return (
        f'<section class="server" id="{server.anchor}"><h2>{esc(server.name)} {badge(server.status)}</h2>'
        f'{server.failure_box()}<h3>Co-usage graph</h3><div class="graph">{graph}</div>'
        f"<h3>Tools ({len(tools)})</h3>{cards}"
        + _listing("Strategies", [_strategy(s, server) for s in server.strategies])
        + _listing("Traces", [_trace(t, server) for t in server.traces])
        + "</section>"
    )


def render_report(atlas: AtlasExport) -> str:
    """The whole report as one HTML document (deterministic: same atlas, same string)."""
    servers = server_views(atlas)
    toc = " ".join(f'<a href="#{s.anchor}">{esc(s.name)}</a>' for s in servers)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>ToolAtlas report — {esc(atlas.catalogue)}</title><style>{CSS}</style></head>"
        f"<body><main>{_header(atlas, servers)}"
        f'<nav class="toc"><a href="#coverage">coverage</a> servers: {toc}</nav>{coverage_section(servers)}'
        '<h2>Servers</h2><input id="tool-filter" type="search" placeholder="filter tools by name…" '
        'aria-label="filter tools by name" hidden> <span id="filter-count" class="filter-count meta"></span>'
        f"{''.join(_server_section(s) for s in servers)}"
        f"</main><script>{SCRIPT}</script></body></html>\n"
    )


def write_report(atlas: AtlasExport, path: str | Path) -> Path:
    """Render ``atlas`` and write it to ``path`` (UTF-8, parent directories created)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_report(atlas), encoding="utf-8")
    return out


def read_atlas(path: str | Path) -> AtlasExport:
    """Load an atlas written by ``toolatlas export``."""
    return AtlasExport.model_validate_json(Path(path).read_text(encoding="utf-8"))
