"""The coverage section: per server, the two charts, the numbers after the last round, and the
per-round table (probes, resolved, new entries, outcome mix, status)."""

from __future__ import annotations

from collections.abc import Sequence

from toolatlas.graph.state import RoundCoverage
from toolatlas.report.cards import outcome_mix
from toolatlas.report.charts import coverage_charts
from toolatlas.report.servers import ServerView, badge
from toolatlas.report.svg import esc

__all__ = ["OPEN_LIMIT", "coverage_section"]

OPEN_LIMIT = 12
"""Per-round tables (and strategy / trace lists) longer than this start collapsed."""

COLUMNS = (
    ("round", "", True),
    ("probes", "", True),
    ("resolved", "", True),
    ("new · reinf.", "new entries · reinforced entries", True),
    ("entries", "entries after the round", True),
    ("aff. · bnd.", "tools with ≥1 affordance · with ≥1 boundary, of all tools", True),
    ("args", "argument coverage", True),
    ("pairs", "co-usage pairs", True),
    ("outcome mix", "outcome classes of the calls", False),
    ("s", "seconds", True),
    ("status", "", False),
)


def _th(name: str, tip: str, numeric: bool) -> str:
    cls = ' class="num"' if numeric else ""
    title = f' title="{esc(tip)}"' if tip else ""
    return f"<th{cls}{title}>{esc(name)}</th>"


def _cell(value: object) -> str:
    return f'<td class="num">{esc(value)}</td>'


def round_table(rows: Sequence[RoundCoverage]) -> str:
    if not rows:
        return '<p class="empty">no rounds recorded</p>'
    head = "".join(_th(name, tip, numeric) for name, tip, numeric in COLUMNS)
    body = []
    for r in rows:
        share = f" ({100 * r.resolved / r.probes:.0f}%)" if r.probes else ""
        cells = [
            r.round,
            r.probes,
            f"{r.resolved}{share}",
            f"{r.new_entries} · {r.reinforced_entries}",
            r.entries,
            f"{r.tools_with_affordance} · {r.tools_with_boundary} / {r.tools}",
            f"{100 * r.argument_coverage:.0f}%",
            r.co_usage_pairs,
        ]
        body.append(
            f"<tr>{''.join(_cell(c) for c in cells)}<td>{outcome_mix(r.outcome_mix)}</td>"
            f"{_cell(f'{r.seconds:.1f}')}<td>{badge(r.status, r.detail)}</td></tr>"
        )
    return f'<table class="rounds"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def latest(server: ServerView) -> str:
    """The numbers after the last round, beside the charts."""
    if not server.rows:
        return '<div class="latest"><p class="empty">no rounds recorded</p></div>'
    r = server.rows[-1]
    resolved = sum(row.resolved for row in server.rows)

    def share(n: int) -> str:
        return f"{n} of {r.tools} ({100 * n / r.tools:.0f}%)" if r.tools else "0"

    facts = [
        ("tools with ≥1 affordance", share(r.tools_with_affordance)),
        ("tools with ≥1 boundary", share(r.tools_with_boundary)),
        ("argument coverage", f"{100 * r.argument_coverage:.0f}%"),
        ("entries", f"{r.entries} ({r.new_entries} new, {r.reinforced_entries} reinforced)"),
        ("co-usage pairs", str(r.co_usage_pairs)),
        ("traces · strategies", f"{r.traces} · {r.strategies}"),
        ("probes, all rounds", f"{server.probes}, {resolved} resolved" if server.probes else "0"),
    ]
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts)
    return f'<div class="latest"><h4>After round {r.round}</h4><dl>{rows}</dl></div>'


def coverage_section(servers: Sequence[ServerView]) -> str:
    cells = []
    for s in servers:
        charts = coverage_charts(s.name, s.rows, f"cov-{s.index}")
        opened = " open" if len(s.rows) <= OPEN_LIMIT else ""
        cells.append(
            f'<div class="coverage-cell"><h3><a href="#{s.anchor}">{esc(s.name)}</a> {badge(s.status)}</h3>'
            f'<div class="coverage-row"><div class="charts">{charts}</div>{latest(s)}</div>'
            f"<details{opened}><summary>per-round table ({len(s.rows)} round(s))</summary>"
            f"{round_table(s.rows)}</details></div>"
        )
    return f'<section id="coverage"><h2>Coverage per round</h2>{"".join(cells)}</section>'
