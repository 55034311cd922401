"""Normalising what servers say: back to placeholders, and down to a signature.

Two boundary observations are the same boundary when their error messages agree once the
incidental parts (paths, numbers, ids, quoted names) are masked.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["ERROR_TEXT", "EXCERPT_CHARS", "error_signature", "looks_like_error", "to_placeholders"]

EXCERPT_CHARS = 400
"""Characters of an output kept verbatim as evidence (and compared by replays)."""

ERROR_TEXT = re.compile(
    r"^\s*(?:\W{0,3})(?:errors?\b|[\w ]{0,30}error:|\w*Error:|exception\b|traceback\b|failed\b|failure\b|fatal\b|"
    r"invalid\b|cannot\b|can't\b|could not\b|unable to\b|permission denied|access denied|not found\b|no such\b|"
    r"unknown (?:tool|argument|parameter)|input validation error|mcp error|(?-i:E[A-Z]{3,})\b:)",
    re.IGNORECASE,
)
"""Text that starts like this reads as an error (``ENOENT:``-style codes in capitals only: ``Echo:`` is
not one). On an ok result it is a failure only with evidence besides: :mod:`toolatlas.probing.evidence`."""

_MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bprobe[\w.-]*", re.IGNORECASE), "<new>"),
    (re.compile(r"\$\{[a-z_]+\}(?:/[^\s'\"`,;:)\]}]*)?"), "<path>"),
    (re.compile(r"(?<![\w.])/(?:[\w.@+-]+/)*[\w.@+-]+"), "<path>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"\b[0-9a-f]{7,64}\b"), "<hex>"),
    (re.compile(r"'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|`[^`\n]{0,200}`"), "<s>"),
    (re.compile(r"\b\d+(?:\.\d+)?\b"), "<n>"),
    (re.compile(r"\s+"), " "),
]


@functools.lru_cache(maxsize=256)
def _replacements(variables: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``(concrete value, placeholder name)`` pairs in the order they are replaced."""
    # Longest value first; on a tie the kind's own name (``repo``) wins over ``root`` and ``home``.
    return tuple(
        sorted(
            ((v, k) for k, v in variables if v and len(v) >= 4),
            key=lambda p: (-len(p[0]), p[1] in ("root", "home"), p[1]),
        )
    )


def to_placeholders(value: Any, variables: dict[str, str]) -> Any:
    """Replace an instance's concrete paths by their placeholders (longest first), recursively."""
    pairs = _replacements(tuple(variables.items()))
    if not pairs:
        return value

    def swap(text: str) -> str:
        for concrete, name in pairs:
            if concrete in text:
                text = text.replace(concrete, "${" + name + "}")
        return text

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return swap(item)
        if isinstance(item, list):
            return [walk(v) for v in item]
        if isinstance(item, dict):
            return {k: walk(v) for k, v in item.items()}
        return item

    return walk(value)


def error_signature(text: str, *, limit: int = 160) -> str:
    """The error message with paths, times, ids, quoted values and numbers masked."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    for pattern, mask in _MASKS:
        first = pattern.sub(mask, first)
    return first.strip()[:limit]


def looks_like_error(text: str) -> bool:
    return bool(ERROR_TEXT.match(text or ""))
