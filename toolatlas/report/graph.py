"""The co-usage graph of one server drawn as inline SVG, in layers from top to bottom.

A composition reads downwards: a tool sits one row below the lowest tool that composes into it
(cycles are broken where a depth-first walk meets a tool on its own path; those edges, and edges
within a row, run back up on the left). Rows are ordered to keep composed tools above each other
(barycentre sweeps from a breadth-first order, strongest edges first), a row wider than
``MAX_ROW_WIDTH`` wraps, and tools composed with nothing share the last row. Every co-usage entry is
one directed edge coloured by relation and as wide as its weight; edges between the same two tools
bend apart; a tool composed with itself (a retry with corrected arguments) gets a loop at its upper
left. Labels are horizontal, right of their node. Node size grows with the tool's number of entries;
each node links to the tool's card.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import NamedTuple

from toolatlas.export import ToolExport
from toolatlas.graph.models import EntryStatus
from toolatlas.report.style import RELATION_COLOURS
from toolatlas.report.svg import CHAR_WIDTH, element, esc, legend_row, num, svg_document, text, truncate

__all__ = ["co_usage_graph"]

LABEL_CHARS = 30
LABEL_SIZE = 12.5
ROW_GAP = 92.0
"""Vertical distance between two rows of tools."""
NODE_GAP = 30.0
"""Room between the end of a label and the next node of its row."""
MAX_ROW_WIDTH = 1100.0
"""A row wider than this wraps (the page's column is ~1260 px)."""
MARGIN = 24.0
BACK_REACH = 46.0
"""How far left of the tools an edge that runs back up bends."""
SWEEPS = 4
ARROW_REACH = 8.0
"""How far the arrowhead reaches beyond the end of its path (marker ``refX`` is 2 of 10)."""
LOOP_OUT = (-0.6, -0.8)
"""Where a tool's self-loops point: up and left, clear of its label and of edges arriving from above."""
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


def _loop_path(p: Point, out: Point, r: float, k: int) -> str:
    reach = r + 34 + 12 * k
    c1, c2 = _at(p, _rotate(out, -42), reach), _at(p, _rotate(out, 42), reach)
    return f"M{_at(p, _rotate(out, -28), r)} C{c1} {c2} {_at(p, _rotate(out, 28), r + ARROW_REACH)}"


def _depths(names: list[str], edges: list[Edge]) -> dict[str, int]:
    """Each tool's layer: one below the deepest tool composing into it, over the edges left once the
    cycles are broken. A depth-first walk drops each edge into its own path; it starts from the tools
    that compose into others more than others into them (by weight), so a cycle breaks at its
    weakest way in, and follows the strongest edges first."""
    succ: dict[str, dict[str, float]] = {n: defaultdict(float) for n in names}
    balance: dict[str, float] = defaultdict(float)
    for e in edges:
        if e.source != e.target:
            succ[e.source][e.target] += max(e.weight, 0.01)
            balance[e.source] -= max(e.weight, 0.01)
            balance[e.target] += max(e.weight, 0.01)
    order = {n: i for i, n in enumerate(names)}
    children = {n: sorted(succ[n], key=lambda t: (-succ[n][t], order[t])) for n in names}
    forward: set[tuple[str, str]] = set()
    state: dict[str, int] = {}  # 1: on the walk's path, 2: done
    for root in sorted(names, key=lambda n: (balance[n], order[n])):
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(children[root]))]
        while stack:
            node, pending = stack[-1]
            child = next(pending, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) != 1:
                forward.add((node, child))
                if child not in state:
                    state[child] = 1
                    stack.append((child, iter(children[child])))
    depth = dict.fromkeys(names, 0)
    for _ in names:  # longest path over the acyclic edges (at most len(names) relaxations)
        changed = False
        for u, v in forward:
            if depth[v] < depth[u] + 1:
                depth[v], changed = depth[u] + 1, True
        if not changed:
            break
    return depth


class _Layout:
    """Where every node sits, how big it is, and the size of the drawing."""

    def __init__(self, names: list[str], counts: Mapping[str, int], edges: list[Edge]) -> None:
        self.r = {name: min(22.0, 7 + 3 * math.sqrt(counts.get(name, 0))) for name in names}
        self.slot = {n: 2 * self.r[n] + 6 + len(truncate(n, LABEL_CHARS)) * CHAR_WIDTH * LABEL_SIZE / 11 + NODE_GAP
                     for n in names}
        linked = {e.source for e in edges if e.source != e.target} | {e.target for e in edges if e.source != e.target}
        depth = _depths([n for n in names if n in linked], edges)
        layers: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
        for name in names:  # ``names`` is the breadth-first order: the sweeps' starting point
            if name in depth:
                layers[depth[name]].append(name)
        self.rows = [row for layer in _ordered(layers, edges) for row in self._wrap(layer)]
        self.rows += self._wrap([n for n in names if n not in linked])
        self.width = max([sum(self.slot[n] for n in row) for row in self.rows] + [480.0]) + 2 * MARGIN
        self.pos: dict[str, Point] = {}
        self.row_of: dict[str, int] = {}
        top = MARGIN + 44.0  # room for the loops and the back edges' arcs above the first row
        for i, row in enumerate(self.rows):
            x = MARGIN + BACK_REACH + (self.width - 2 * MARGIN - BACK_REACH - sum(self.slot[n] for n in row)) / 2
            for name in row:
                self.pos[name] = (x + self.r[name], top + i * ROW_GAP)
                self.row_of[name] = i
                x += self.slot[name]
        self.bottom = top + (len(self.rows) - 1) * ROW_GAP + 56.0

    def _wrap(self, names: list[str]) -> list[list[str]]:
        rows: list[list[str]] = [[]]
        for name in names:
            if rows[-1] and sum(self.slot[n] for n in rows[-1]) + self.slot[name] > MAX_ROW_WIDTH:
                rows.append([])
            rows[-1].append(name)
        return [row for row in rows if row]

    def edge_path(self, e: Edge, k: int) -> str:
        """Downwards from the bottom of the source to the top of the target; back up (or along a row)
        on the left; ``k`` parallel edges of the same pair bend apart."""
        (sx, sy), (tx, ty) = self.pos[e.source], self.pos[e.target]
        rs, rt = self.r[e.source], self.r[e.target]
        if self.row_of[e.target] > self.row_of[e.source]:
            bend = (ty - sy) / 2
            shift = 14.0 * k * (1 if k % 2 else -1)
            return (f"M{num(sx)},{num(sy + rs)} C{num(sx + shift)},{num(sy + rs + bend)} "
                    f"{num(tx + shift)},{num(ty - rt - bend)} {num(tx)},{num(ty - rt - ARROW_REACH - 1)}")
        reach = BACK_REACH + 14.0 * k
        left = min(sx - rs, tx - rt) - reach
        return (f"M{num(sx - rs)},{num(sy)} C{num(left)},{num(sy)} {num(left)},{num(ty)} "
                f"{num(tx - rt - ARROW_REACH - 1)},{num(ty)}")

    def label(self, name: str) -> str:
        x, y = self.pos[name]
        return text(x + self.r[name] + 6, y + 4, truncate(name, LABEL_CHARS), text_anchor="start", **LABEL_STYLE)


def _sort_key(centre: Callable[[str], float], current: Mapping[str, float], name: str) -> tuple[float, float]:
    return centre(name), current[name]


def _ordered(layers: list[list[str]], edges: list[Edge]) -> list[list[str]]:
    """Rows reordered by barycentre sweeps (down, then up) so composed tools sit above each other."""
    peers: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e.source != e.target:
            peers[e.source].add(e.target)
            peers[e.target].add(e.source)
    layers = [list(layer) for layer in layers]
    for sweep in range(SWEEPS):
        indices = range(1, len(layers)) if sweep % 2 == 0 else range(len(layers) - 2, -1, -1)
        for i in indices:
            fixed = layers[i - 1] if sweep % 2 == 0 else layers[i + 1]
            where = {n: j / max(len(fixed) - 1, 1) for j, n in enumerate(fixed)}
            current = {n: j / max(len(layers[i]) - 1, 1) for j, n in enumerate(layers[i])}

            def centre(name: str, where: dict[str, float] = where, current: dict[str, float] = current) -> float:
                known = [where[p] for p in peers[name] if p in where]
                return sum(known) / len(known) if known else current[name]

            layers[i].sort(key=partial(_sort_key, centre, current))
    return layers


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
    layout = _Layout(names, counts, edges)
    body = [_markers(uid)]
    parallel: Counter[tuple[str, str]] = Counter()
    for e in sorted(edges, key=lambda e: (e.source, e.target, e.relation)):
        k = parallel[(e.source, e.target)]
        parallel[(e.source, e.target)] += 1
        if e.source == e.target:
            d = _loop_path(layout.pos[e.source], LOOP_OUT, layout.r[e.source], k)
        else:
            d = layout.edge_path(e, k)
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
