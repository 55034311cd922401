"""The co-usage graph of one server drawn as inline SVG.

Tools sit on a circle in a deterministic order that keeps composed tools next to each other
(breadth-first from the best-connected tool, strongest edges first; isolated tools last, by
name). Every co-usage entry is one directed, curved edge coloured by relation and as wide as its
weight; edges between the same two tools bend apart; a tool composed with itself (a retry with
corrected arguments) gets an outward loop and its label moves past it. Labels are horizontal in
small graphs and run along the radius from ``RADIAL_FROM`` tools on, where they cannot collide.
Node size grows with the tool's number of entries; each node links to the tool's card.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from toolatlas.export import ToolExport
from toolatlas.graph.models import EntryStatus
from toolatlas.report.style import RELATION_COLOURS
from toolatlas.report.svg import CHAR_WIDTH, element, esc, legend_row, num, svg_document, text, truncate

__all__ = ["co_usage_graph"]

LABEL_CHARS = 26
LABEL_SIZE = 12.5
RADIAL_FROM = 13
NODE_SPACING = 50.0
MIN_RADIUS = 120.0
ARROW_REACH = 8.0
"""How far the arrowhead reaches beyond the end of its path (marker ``refX`` is 2 of 10)."""
LABEL_STYLE = {
    "fill": "#0f172a",
    "stroke": "#ffffff",
    "stroke_width": "3",
    "paint_order": "stroke",
    "font_family": "ui-monospace,Menlo,monospace",
    "font_size": str(LABEL_SIZE),
}

Point = tuple[float, float]


class Edge(NamedTuple):
    source: str
    target: str
    relation: str
    weight: float
    transitions: int
    stale: bool


def _edges(tools: Sequence[ToolExport]) -> list[Edge]:
    return [
        Edge(
            tool.name,
            entry.peer or tool.name,
            entry.relation.value if entry.relation else "data",
            entry.weight or 0.0,
            entry.transitions,
            entry.status is EntryStatus.STALE,
        )
        for tool in tools
        for entry in tool.co_usage
    ]


def _order(names: list[str], edges: list[Edge]) -> list[str]:
    """Breadth-first from the best-connected tool so that composed tools are neighbours on the circle."""
    strength: dict[str, dict[str, float]] = {n: defaultdict(float) for n in names}
    for e in edges:
        if e.source != e.target:
            strength[e.source][e.target] += max(e.weight, 0.01)
            strength[e.target][e.source] += max(e.weight, 0.01)
    degree = {n: sum(strength[n].values()) for n in names}
    order: list[str] = []
    seen: set[str] = set()
    for start in sorted((n for n in names if degree[n] > 0), key=lambda n: (-degree[n], n)):
        if start in seen:
            continue
        queue = [start]
        seen.add(start)
        while queue:
            node = queue.pop(0)
            order.append(node)
            for peer in sorted(strength[node], key=lambda p: (-strength[node][p], p)):
                if peer not in seen:
                    seen.add(peer)
                    queue.append(peer)
    return order + sorted(n for n in names if n not in seen)


def _unit(dx: float, dy: float) -> Point:
    length = math.hypot(dx, dy) or 1.0
    return dx / length, dy / length


def _rotate(u: Point, degrees: float) -> Point:
    a = math.radians(degrees)
    return u[0] * math.cos(a) - u[1] * math.sin(a), u[0] * math.sin(a) + u[1] * math.cos(a)


def _at(p: Point, u: Point, distance: float) -> str:
    return f"{num(p[0] + u[0] * distance)},{num(p[1] + u[1] * distance)}"


def _edge_path(s: Point, t: Point, rs: float, rt: float, bend: float) -> str:
    """A quadratic curve from the rim of ``s`` to just before the rim of ``t`` (room for the arrowhead)."""
    ux, uy = _unit(t[0] - s[0], t[1] - s[1])
    c = ((s[0] + t[0]) / 2 - uy * bend * 2, (s[1] + t[1]) / 2 + ux * bend * 2)
    leave = _unit(c[0] - s[0], c[1] - s[1])
    arrive = _unit(c[0] - t[0], c[1] - t[1])
    return f"M{_at(s, leave, rs)} Q{num(c[0])},{num(c[1])} {_at(t, arrive, rt + ARROW_REACH + 1)}"


def _loop_reach(r: float, k: int) -> float:
    return r + 34 + 12 * k


def _loop_path(p: Point, out: Point, r: float, k: int) -> str:
    reach = _loop_reach(r, k)
    c1, c2 = _at(p, _rotate(out, -42), reach), _at(p, _rotate(out, 42), reach)
    return f"M{_at(p, _rotate(out, -28), r)} C{c1} {c2} {_at(p, _rotate(out, 28), r + ARROW_REACH)}"


def _loop_extent(r: float, loops: int) -> float:
    """How far the outermost of ``loops`` self-loops reaches beyond the node's rim (labels go past it)."""
    if not loops:
        return 0.0
    outer = 0.75 * _loop_reach(r, loops - 1) * math.cos(math.radians(42))
    return 0.25 * r * math.cos(math.radians(28)) + outer - r


class _Layout:
    """Where every node sits, how big it is, and the size of the drawing."""

    def __init__(self, names: list[str], counts: Mapping[str, int], loops: Mapping[str, int]) -> None:
        n = self.n = len(names)
        self.radius = 0.0 if n == 1 else max(MIN_RADIUS, n * NODE_SPACING / (2 * math.pi))
        label_px = max(len(truncate(name, LABEL_CHARS)) for name in names) * CHAR_WIDTH * LABEL_SIZE / 11
        pad_x = 54 + label_px
        self.pad_y = pad_x if n >= RADIAL_FROM else 60.0 if n > 1 else 80.0
        self.width = max(2 * (self.radius + pad_x), 520.0)
        centre = (self.width / 2, self.radius + self.pad_y)
        self.r = {name: min(22.0, 7 + 3 * math.sqrt(counts.get(name, 0))) for name in names}
        self.angle = {name: -math.pi / 2 + 2 * math.pi * i / n for i, name in enumerate(names)}
        self.pos = {
            name: (centre[0] + self.radius * math.cos(a), centre[1] + self.radius * math.sin(a))
            for name, a in self.angle.items()
        }
        self.label_offset = {n: self.r[n] + 6 + _loop_extent(self.r[n], loops[n]) for n in names}
        self.bottom = centre[1] + self.radius + self.pad_y - 8

    def outward(self, name: str) -> Point:
        return (math.cos(self.angle[name]), math.sin(self.angle[name])) if self.n > 1 else (0.0, -1.0)

    def label(self, name: str) -> str:
        dx, dy = math.cos(self.angle[name]), math.sin(self.angle[name])
        x0, y0 = self.pos[name]
        offset = self.label_offset[name]
        x, y = x0 + dx * offset, y0 + dy * offset
        shown = truncate(name, LABEL_CHARS)
        if self.n == 1:
            return text(x0, y0 + offset + LABEL_SIZE - 2, shown, text_anchor="middle", **LABEL_STYLE)
        if self.n >= RADIAL_FROM:
            turn = f"rotate({num(math.degrees(self.angle[name]) + (180 if dx < 0 else 0))} {num(x)} {num(y)})"
            anchor = "end" if dx < 0 else "start"
            return text(
                x, y, shown, text_anchor=anchor, dominant_baseline="central", transform=turn, **LABEL_STYLE
            )
        if abs(dx) < 0.08:
            y = y + LABEL_SIZE - 2 if dy > 0 else y - 4
            return text(x, y, shown, text_anchor="middle", **LABEL_STYLE)
        return text(x, y + 4, shown, text_anchor="start" if dx > 0 else "end", **LABEL_STYLE)


def _markers(uid: str) -> str:
    arrows = "".join(
        element(
            "marker",
            element("path", d="M0,0 L10,5 L0,10 z", fill=colour),
            id=f"{uid}-arrow-{relation}",
            viewBox="0 0 10 10",
            refX="2",
            refY="5",
            markerWidth="10",
            markerHeight="10",
            markerUnits="userSpaceOnUse",
            orient="auto",
        )
        for relation, colour in RELATION_COLOURS.items()
    )
    return element("defs", arrows)


def _edge(e: Edge, d: str, uid: str) -> str:
    tip = f"{e.source} → {e.target}: {e.relation}, weight {e.weight:.2f}, {e.transitions} transition(s)"
    return element(
        "path",
        element("title", esc(tip + (" (stale)" if e.stale else ""))),
        cls=f"edge rel-{e.relation}" + (" stale" if e.stale else ""),
        data_relation=e.relation,
        d=d,
        fill="none",
        stroke=RELATION_COLOURS.get(e.relation, "#64748b"),
        stroke_width=1.2 + 4 * min(max(e.weight, 0.0), 1.0),
        stroke_opacity="0.45" if e.stale else "0.85",
        stroke_dasharray="5 4" if e.stale else None,
        marker_end=f"url(#{uid}-arrow-{e.relation})",
    )


def _node(name: str, layout: _Layout, entries: int | None, anchor: str | None) -> str:
    """A node with its label; ``entries`` is None for a peer that is not in the tool list."""
    x, y = layout.pos[name]
    explored = bool(entries)
    tip = f"{name}: {entries} entries" if entries is not None else f"{name}: not in this server's tool list"
    circle = element(
        "circle",
        element("title", esc(tip)),
        cx=x,
        cy=y,
        r=layout.r[name],
        fill="#e0e7ff" if explored else "#ffffff",
        stroke="#4338ca" if entries is not None else "#94a3b8",
        stroke_width="1.6",
        stroke_dasharray=None if explored else "3 2",
    )
    group = circle + layout.label(name)
    if anchor is not None:
        group = element("a", group, href=f"#{anchor}")
    return element("g", group, cls="node")


def co_usage_graph(server: str, tools: Sequence[ToolExport], uid: str, anchors: Mapping[str, str]) -> str:
    """The drawing of one server's co-usage edges; ``anchors`` maps a tool name to its card's id."""
    edges = _edges(tools)
    counts = {t.name: len(t.affordances) + len(t.boundaries) + len(t.co_usage) for t in tools}
    names = _order(sorted(counts) + sorted({e.target for e in edges} - set(counts)), edges)
    title = f"{server}: co-usage graph"
    desc = f"{len(names)} tool(s), {len(edges)} co-usage edge(s) (data, state, retry); width = N_ij/N_i."
    if not names:
        body = [text(160, 40, "no tools listed", text_anchor="middle", fill="#64748b")]
        return svg_document(f"{uid}-graph", 320, 70, title, desc, body, cls="co-usage-graph")
    layout = _Layout(names, counts, Counter(e.source for e in edges if e.source == e.target))
    body = [_markers(uid)]
    parallel: Counter[tuple[str, str]] = Counter()
    for e in sorted(edges, key=lambda e: (e.source, e.target, e.relation)):
        k = parallel[(e.source, e.target)]
        parallel[(e.source, e.target)] += 1
        s, t = layout.pos[e.source], layout.pos[e.target]
        if e.source == e.target:
            d = _loop_path(s, layout.outward(e.source), layout.r[e.source], k)
        else:
            d = _edge_path(s, t, layout.r[e.source], layout.r[e.target], 14 + 14 * k)
        body.append(_edge(e, d, uid))
    body += [_node(name, layout, counts.get(name), anchors.get(name)) for name in names]
    items = [(relation, colour, "line") for relation, colour in RELATION_COLOURS.items()]
    legend, used = legend_row(16, layout.bottom, [*items, ("stale", "#94a3b8", "dash")], layout.width - 32)
    note = "width ∝ weight N_ij/N_i · node size ∝ entries · dashed node: no entries yet"
    note = ("" if edges else "no co-usage witnessed yet · ") + note
    body += [legend, text(16, layout.bottom + used + 6, note, fill="#64748b")]
    return svg_document(
        f"{uid}-graph", layout.width, layout.bottom + used + 16, title, desc, body, cls="co-usage-graph"
    )
