"""SVG drawing primitives: escaped elements, fixed-precision numbers, axis scales.

Everything here returns strings of well-formed XML (each drawing is also a valid standalone SVG
file). Numbers are printed with fixed precision so the same atlas gives the same bytes.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

__all__ = [
    "CHAR_WIDTH",
    "attrs",
    "element",
    "esc",
    "legend_row",
    "nice_ceiling",
    "num",
    "svg_document",
    "text",
    "truncate",
]

CHAR_WIDTH = 6.4
"""Approximate advance of one character at the 11px label size (layout of labels and legends)."""


def esc(value: object) -> str:
    """Escape for text and (double-quoted) attribute values, in HTML and in XML alike."""
    return html.escape(str(value), quote=True)


def num(value: float) -> str:
    """A coordinate with one decimal, without a negative zero."""
    out = f"{value:.1f}"
    return "0.0" if out == "-0.0" else out


def attrs(**values: object) -> str:
    """`` key="value"`` pairs in the given order; ``None`` is left out, ``_`` in a key becomes ``-``."""
    parts = []
    for key, value in values.items():
        if value is None:
            continue
        name = "class" if key == "cls" else key.rstrip("_").replace("_", "-")
        shown = num(value) if isinstance(value, float) else value
        parts.append(f' {name}="{esc(shown)}"')
    return "".join(parts)


def element(tag: str, body: str = "", **values: object) -> str:
    """One element; empty ones are self-closed (valid in inline SVG and in XML)."""
    if not body:
        return f"<{tag}{attrs(**values)}/>"
    return f"<{tag}{attrs(**values)}>{body}</{tag}>"


def text(x: float, y: float, content: str, **values: object) -> str:
    return element("text", esc(content), x=float(x), y=float(y), **values)


def truncate(label: str, limit: int) -> str:
    return label if len(label) <= limit else label[: max(1, limit - 1)] + "…"


def svg_document(
    uid: str, width: float, height: float, title: str, desc: str, body: Sequence[str], cls: str
) -> str:
    """An accessible ``<svg>``: ``role="img"`` labelled by its ``<title>`` and ``<desc>``."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg"{attrs(cls=cls, id=uid)}'
        f"{attrs(width=float(width), height=float(height), viewBox=f'0 0 {num(width)} {num(height)}')}"
        f' role="img" aria-labelledby="{uid}-title {uid}-desc"'
        ' font-family="system-ui,sans-serif" font-size="11">'
    )
    label = element("title", esc(title), id=f"{uid}-title") + element("desc", esc(desc), id=f"{uid}-desc")
    return head + label + "".join(body) + "</svg>"


def nice_ceiling(value: float) -> tuple[float, float]:
    """A round axis maximum ≥ ``value`` and its whole-number tick step (1, 2 or 5 times 10^k, ≤ 5 steps)."""
    if value <= 0:
        return 1.0, 1.0
    raw = value / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = 10 * magnitude
    for factor in (1, 2, 5):
        if factor * magnitude >= raw:
            step = factor * magnitude
            break
    step = max(1.0, float(round(step)))
    return float(math.ceil(value / step) * step), step


def legend_row(
    x: float, y: float, items: Sequence[tuple[str, str, str]], max_width: float
) -> tuple[str, float]:
    """Legend swatches laid out left to right, wrapping at ``max_width``.

    ``items`` are (label, colour, kind) with kind ``line``, ``dash``, ``bar`` or ``dot``; returns the
    markup and the height used.
    """
    out, cx, cy = [], x, y
    for label, colour, kind in items:
        width = 22 + len(label) * CHAR_WIDTH + 14
        if cx + width > x + max_width and cx > x:
            cx, cy = x, cy + 16
        if kind == "bar":
            out.append(
                element(
                    "rect", x=float(cx), y=float(cy - 5), width=14.0, height=9.0, fill=colour, opacity="0.45"
                )
            )
        elif kind == "dot":
            out.append(element("circle", cx=float(cx + 7), cy=float(cy), r=4.0, fill=colour))
        else:
            dash = "4 3" if kind == "dash" else None
            out.append(
                element(
                    "line",
                    x1=float(cx),
                    y1=float(cy),
                    x2=float(cx + 16),
                    y2=float(cy),
                    stroke=colour,
                    stroke_width="2.5",
                    stroke_dasharray=dash,
                )
            )
        out.append(text(cx + 21, cy + 4, label, fill="#334155"))
        cx += width
    return "".join(out), cy - y + 16
