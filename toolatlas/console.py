"""Plain-text rendering for the CLI: aligned tables that read well in a terminal and in CI logs."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["render_table"]


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, max_width: int = 48) -> str:
    """Render rows under headers with aligned columns; cells longer than ``max_width`` are shortened."""

    def cell(value: object) -> str:
        text = "" if value is None else str(value).replace("\n", " ")
        return text if len(text) <= max_width else text[: max_width - 1] + "…"

    table = [[cell(h) for h in headers], *[[cell(v) for v in row] for row in rows]]
    widths = [max(len(r[i]) for r in table) for i in range(len(headers))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
