"""Plain-text rendering for the CLI (aligned tables that read well in a terminal and in CI logs), and the
argument types its commands share."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

__all__ = ["render_table", "whole_number"]


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


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, not {value}")
        return value

    return parse
