"""Coverage per round as two small line charts per server (drawn as inline SVG).

The *shares* chart plots, per round, the share of tools with at least one affordance, the share
with at least one boundary, and argument coverage (0-100 %). The *entries* chart plots the total
number of entries after each round as a line over bars of the entries new in that round. Rounds
where the server failed get a red marker carrying the failure detail. One round is drawn as
points in the middle; many rounds thin the axis labels and the point markers. Each legend entry
ends with its line's last value, and lines are drawn widest first, so a line lying on another
(two shares at 100 %) still shows as the stripe around it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

from toolatlas.graph.state import RoundCoverage
from toolatlas.report.style import SERIES_COLOURS
from toolatlas.report.svg import element, esc, legend_row, nice_ceiling, num, svg_document, text

__all__ = ["coverage_charts", "last_per_round"]

WIDTH, HEIGHT = 400.0, 236.0
LEFT, RIGHT, BOTTOM = 46.0, 14.0, 34.0
INSET = 12.0
"""Room between the y axis and the first round (so bars and markers clear the axis)."""
LEGEND_ROWS = 3
"""Legend rows reserved above every chart, so that the plots of one server line up."""
MAX_TICKS = 10
MAX_MARKERS = 40
"""Above this many rounds lines carry no point markers; above ``BIG_MARKERS`` they are small dots."""
BIG_MARKERS = 12
MUTED, AXIS, FAILED = "#64748b", "#94a3b8", "#dc2626"


class Series(NamedTuple):
    label: str
    colour: str
    values: list[float]
    dash: str | None
    show: Callable[[float], str]


class Chart(NamedTuple):
    kind: str
    title: str
    desc: str
    lines: list[Series]
    y_top: float
    y_step: float
    y_label: str
    y_show: Callable[[float], str]
    bars: Series | None = None


def _percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def _count(value: float) -> str:
    return f"{value:.0f}"


def last_per_round(rows: Sequence[RoundCoverage]) -> list[RoundCoverage]:
    """One row per round (the last reported one wins), ordered by round."""
    by_round = {row.round: row for row in rows}
    return [by_round[r] for r in sorted(by_round)]


class _Frame:
    """The plot area of one chart and its scales."""

    def __init__(self, rounds: list[int], y_top: float, legend_height: float) -> None:
        self.rounds = rounds
        self.y_top = y_top
        self.top = 12 + max(legend_height, LEGEND_ROWS * 16) + 4
        self.bottom = HEIGHT - BOTTOM

    def x(self, round_: int) -> float:
        plot = WIDTH - LEFT - RIGHT - 2 * INSET
        low, high = self.rounds[0], self.rounds[-1]
        share = 0.5 if high == low else (round_ - low) / (high - low)
        return LEFT + INSET + share * plot

    def y(self, value: float) -> float:
        return self.bottom - (value / self.y_top) * (self.bottom - self.top)


def _axes(frame: _Frame, chart: Chart) -> list[str]:
    out = []
    for i in range(round(chart.y_top / chart.y_step) + 1):
        value, y = i * chart.y_step, frame.y(i * chart.y_step)
        out.append(element("line", x1=LEFT, y1=y, x2=WIDTH - RIGHT, y2=y, stroke="#e2e8f0" if i else AXIS))
        out.append(text(LEFT - 5, y + 3.5, chart.y_show(value), text_anchor="end", fill=MUTED))
    rounds = frame.rounds
    every = max(1, math.ceil(len(rounds) / MAX_TICKS))
    for i, r in enumerate(rounds):
        if i % every == 0 or (i == len(rounds) - 1 and i % every >= every / 2):
            out.append(
                element(
                    "line", x1=frame.x(r), y1=frame.bottom, x2=frame.x(r), y2=frame.bottom + 4, stroke=AXIS
                )
            )
            out.append(text(frame.x(r), frame.bottom + 15, str(r), text_anchor="middle", fill=MUTED))
    centre = LEFT + (WIDTH - LEFT - RIGHT) / 2
    out.append(text(centre, HEIGHT - 4, "round", text_anchor="middle", fill="#475569"))
    mid = (frame.top + frame.bottom) / 2
    out.append(
        text(
            11,
            mid,
            chart.y_label,
            text_anchor="middle",
            fill="#475569",
            transform=f"rotate(-90 11 {num(mid)})",
        )
    )
    return out


def _failures(frame: _Frame, failed: Sequence[RoundCoverage]) -> list[str]:
    out = []
    for row in failed:
        detail = f"round {row.round}: server {row.status}" + (f" — {row.detail}" if row.detail else "")
        x = frame.x(row.round)
        tip = element("title", esc(detail))
        out.append(
            element(
                "line",
                tip,
                cls="failed-round",
                x1=x,
                y1=frame.top,
                x2=x,
                y2=frame.bottom,
                stroke=FAILED,
                stroke_width="2",
                stroke_dasharray="3 3",
            )
        )
        out.append(text(x + 3, frame.top + 9, "failed", fill=FAILED, font_weight="600"))
    return out


def _bars(frame: _Frame, bars: Series) -> list[str]:
    width = min(22.0, (WIDTH - LEFT - RIGHT) / len(frame.rounds) * 0.6)
    out = []
    for r, v in zip(frame.rounds, bars.values, strict=True):
        tip = element("title", esc(f"round {r}: {bars.show(v)} {bars.label}"))
        out.append(
            element(
                "rect",
                tip,
                x=frame.x(r) - width / 2,
                y=frame.y(v),
                width=width,
                height=frame.bottom - frame.y(v),
                fill=bars.colour,
                opacity="0.35",
            )
        )
    return out


LINE_WIDTHS = (4.2, 2.6, 1.6)
"""Stroke widths of a chart's lines in drawing order (later lines on top, narrower)."""


def _line(frame: _Frame, s: Series, width: float = LINE_WIDTHS[0]) -> list[str]:
    points = list(zip(frame.rounds, s.values, strict=True))
    path = " ".join(f"{num(frame.x(r))},{num(frame.y(v))}" for r, v in points)
    out = [
        element(
            "polyline",
            cls="series",
            points=path,
            fill="none",
            stroke=s.colour,
            stroke_width=width,
            stroke_dasharray=s.dash,
            stroke_linejoin="round",
        )
    ]
    if len(points) > MAX_MARKERS:
        return out
    big = len(points) <= BIG_MARKERS
    for r, v in points:
        tip = element("title", esc(f"round {r}: {s.label} {s.show(v)}"))
        fill, rim = ("#fff", "1.8") if big else (s.colour, "0")
        out.append(
            element(
                "circle",
                tip,
                cx=frame.x(r),
                cy=frame.y(v),
                r=3.2 if big else 1.9,
                fill=fill,
                stroke=s.colour,
                stroke_width=rim,
            )
        )
    return out


def _draw(uid: str, chart: Chart, rounds: list[int], failed: Sequence[RoundCoverage]) -> str:
    items = [(_with_last(s), s.colour, "dash" if s.dash else "line") for s in chart.lines]
    if chart.bars is not None:
        items.append((_with_last(chart.bars), chart.bars.colour, "bar"))
    legend, legend_height = legend_row(LEFT, 12, items, WIDTH - LEFT - RIGHT)
    frame = _Frame(rounds, chart.y_top, legend_height)
    body = [legend, *_axes(frame, chart), *_failures(frame, failed)]
    if chart.bars is not None:
        body += _bars(frame, chart.bars)
    for i, s in enumerate(chart.lines):
        body += _line(frame, s, LINE_WIDTHS[min(i, len(LINE_WIDTHS) - 1)] if len(chart.lines) > 1 else 2.4)
    return svg_document(
        f"{uid}-{chart.kind}",
        WIDTH,
        HEIGHT,
        chart.title,
        chart.desc,
        body,
        cls=f"coverage-chart {chart.kind}",
    )


def _with_last(s: Series) -> str:
    return f"{s.label}: {s.show(s.values[-1])}" if s.values else s.label


def line_chart(
    uid: str, title: str, desc: str, rounds: list[int], lines: Sequence[Series], *, y_label: str
) -> str:
    """A standalone line chart over rounds (what the benchmarks draw), on the report's axes and styles."""
    top, step = nice_ceiling(max((v for s in lines for v in s.values), default=1.0) or 1.0)
    chart = Chart(kind="lines", title=title, desc=desc, lines=list(lines), y_top=top, y_step=step, y_label=y_label,
                  y_show=_count)
    return _draw(uid, chart, rounds, [])


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def coverage_charts(server: str, rows: Sequence[RoundCoverage], uid: str) -> str:
    """The shares chart and the entries chart of one server (two ``<svg>`` elements)."""
    rows = last_per_round(rows) or [RoundCoverage(server=server, round=0, status="no data")]
    rounds = [row.round for row in rows]
    failed = [row for row in rows if row.status != "ok"]
    last = rows[-1]
    affordance = [_share(r.tools_with_affordance, r.tools) for r in rows]
    boundary = [_share(r.tools_with_boundary, r.tools) for r in rows]
    arguments = [r.argument_coverage for r in rows]
    shares = Chart(
        "shares",
        f"{server}: coverage per round",
        f"{len(rounds)} round(s). After round {last.round}: {_percent(affordance[-1])} of {last.tools} tools "
        f"have an affordance, {_percent(boundary[-1])} a boundary; argument coverage "
        f"{_percent(last.argument_coverage)}.",
        [
            Series("tools with ≥1 affordance", SERIES_COLOURS["affordance"], affordance, None, _percent),
            Series("tools with ≥1 boundary", SERIES_COLOURS["boundary"], boundary, "6 3", _percent),
            Series("argument coverage", SERIES_COLOURS["arguments"], arguments, "2 3", _percent),
        ],
        1.0,
        0.25,
        "share",
        _percent,
    )
    colour = SERIES_COLOURS["entries"]
    totals = Series("entries (total)", colour, [float(r.entries) for r in rows], None, _count)
    new = Series("new this round", colour, [float(r.new_entries) for r in rows], None, _count)
    y_top, y_step = nice_ceiling(max(*totals.values, *new.values))
    entries = Chart(
        "entries",
        f"{server}: entries per round",
        f"Entries after each round, {last.entries} after round {last.round}; bars show new entries.",
        [totals],
        y_top,
        y_step,
        "entries",
        _count,
        bars=new,
    )
    return _draw(uid, shares, rounds, failed) + _draw(uid, entries, rounds, failed)
