"""A load test's results as a table, a JSON document and a page with a plot of latency against load."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence

from toolatlas.console import render_table
from toolatlas.loadtest.generator import LevelResult
from toolatlas.report.svg import element, legend_row, num, svg_document, text

__all__ = ["page", "table"]

WIDTH, HEIGHT = 640.0, 300.0
LEFT, RIGHT, TOP, BOTTOM = 56.0, 56.0, 36.0, 40.0
COLOURS = {"p50": "#2563eb", "p95": "#d97706", "p99": "#dc2626", "req/s": "#16a34a"}


def table(levels: Sequence[LevelResult]) -> str:
    rows = [(lv.clients, f"{lv.rps:.0f}", f"{min(lv.window_rps):.0f}-{max(lv.window_rps):.0f}", f"{lv.p50_ms:.2f}",
             f"{lv.p95_ms:.2f}", f"{lv.p99_ms:.2f}",
             ", ".join(f"{k} {v}" for k, v in sorted(lv.errors.items())) or "0", f"{lv.generator_cpu_us:.0f}")
            for lv in levels]
    return render_table(["clients", "req/s", "windows", "p50 ms", "p95 ms", "p99 ms", "errors", "gen µs/req"], rows)


def _scale(lo: float, hi: float, a: float, b: float):  # type: ignore[no-untyped-def]
    span = (hi - lo) or 1.0
    return lambda v: a + (v - lo) / span * (b - a)


def plot(levels: Sequence[LevelResult], title: str) -> str:
    """Latency percentiles (left axis, log ms) and requests/s (right axis) against concurrent clients."""
    x_of = _scale(math.log2(levels[0].clients), math.log2(max(levels[-1].clients, levels[0].clients + 1)),
                  LEFT, WIDTH - RIGHT)
    finite = [v for lv in levels for v in (lv.p50_ms, lv.p99_ms) if v > 0 and math.isfinite(v)] or [1.0]
    lo, hi = math.floor(math.log10(min(finite))), math.ceil(math.log10(max(finite)) + 1e-9)
    y_ms = _scale(lo, max(hi, lo + 1), HEIGHT - BOTTOM, TOP)
    top_rps = max(lv.rps for lv in levels) * 1.1 or 1.0
    y_rps = _scale(0, top_rps, HEIGHT - BOTTOM, TOP)
    body = [element("line", x1=LEFT, y1=HEIGHT - BOTTOM, x2=WIDTH - RIGHT, y2=HEIGHT - BOTTOM, stroke="#94a3b8")]
    for decade in range(lo, max(hi, lo + 1) + 1):
        y = y_ms(decade)
        body.append(element("line", x1=LEFT, y1=y, x2=WIDTH - RIGHT, y2=y, stroke="#e2e8f0"))
        body.append(text(LEFT - 6, y + 4, f"{10 ** decade:g} ms", **{"text-anchor": "end", "fill": "#64748b"}))
    for fraction in (0.0, 0.5, 1.0):
        y = y_rps(top_rps * fraction)
        body.append(text(WIDTH - RIGHT + 6, y + 4, f"{top_rps * fraction:.0f}", fill=COLOURS["req/s"]))
    for lv in levels:
        body.append(text(x_of(math.log2(lv.clients)), HEIGHT - BOTTOM + 16, str(lv.clients),
                         **{"text-anchor": "middle", "fill": "#64748b"}))
    body.append(text((LEFT + WIDTH - RIGHT) / 2, HEIGHT - 6, "concurrent clients", **{"text-anchor": "middle"}))
    series = {"p50": [lv.p50_ms for lv in levels], "p95": [lv.p95_ms for lv in levels],
              "p99": [lv.p99_ms for lv in levels]}
    for name, values in series.items():
        points = [(x_of(math.log2(lv.clients)), y_ms(math.log10(v))) for lv, v in zip(levels, values, strict=True)
                  if v > 0 and math.isfinite(v)]
        body.append(element("polyline", points=" ".join(f"{num(x)},{num(y)}" for x, y in points),
                            fill="none", stroke=COLOURS[name], **{"stroke-width": "2"}))
    rps = [(x_of(math.log2(lv.clients)), y_rps(lv.rps)) for lv in levels]
    body.append(element("polyline", points=" ".join(f"{num(x)},{num(y)}" for x, y in rps), fill="none",
                        stroke=COLOURS["req/s"], **{"stroke-width": "2", "stroke-dasharray": "5 3"}))
    legend, _height = legend_row(LEFT, 16, [(k, c, "dash" if k == "req/s" else "line") for k, c in COLOURS.items()],
                                 WIDTH - LEFT - RIGHT)
    body.append(legend)
    return svg_document("loadtest", WIDTH, HEIGHT, title,
                        "Latency percentiles (log scale, left) and requests per second (right) by concurrent clients",
                        body, "loadtest")


def page(levels: Sequence[LevelResult], *, url: str, target: str, tasks: int, figures: dict) -> str:
    """A self-contained HTML page: the plot, the table and the JSON of the run."""
    title = f"Load test of {url} ({target})"
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in (
            lv.clients, f"{lv.rps:.0f}", f"{lv.p50_ms:.2f}", f"{lv.p95_ms:.2f}", f"{lv.p99_ms:.2f}",
            lv.error_count)) + "</tr>"
        for lv in levels)
    return (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#0f172a}"
        "table{border-collapse:collapse}td,th{padding:.25rem .75rem;border-bottom:1px solid #e2e8f0;text-align:right}"
        "pre{background:#f8fafc;padding:1rem;overflow:auto}</style>"
        f"<h1>{html.escape(title)}</h1><p>{tasks} task(s) cycled by closed-loop clients on keep-alive "
        "connections; each level: the median of its measured windows.</p>"
        f"{plot(levels, title)}"
        "<table><tr><th>clients</th><th>req/s</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>errors</th></tr>"
        f"{rows}</table><h2>Run</h2><pre>{html.escape(json.dumps(figures, indent=1))}</pre></html>"
    )
