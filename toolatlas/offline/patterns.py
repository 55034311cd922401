"""The shortest text a stated regular expression matches.

A server that refuses a value often quotes the pattern it checked it against (``YAML frontmatter
doesn't match '---\\n(.*)\\n---'``): that pattern is the argument's grammar, and its shortest match
is a value the check accepts. :func:`shortest_match` builds it from the pattern's parse tree —
literals as they are, a class or any character as its first plain member, each repeat at its least
count, an alternation by its first branch, anchors as nothing — and checks the result against the
pattern (a look-around or a back-reference it cannot honour gives None). The value is deterministic,
and empty groups stay empty: ``---\\n\\n---`` for the pattern above, whose inside then parses as YAML.
"""

from __future__ import annotations

import re
import re._parser as sre_parse  # the standard library's regex parser (what ``re.compile`` itself uses)
from typing import Any

__all__ = ["shortest_match"]

MAX_CHARS = 200
"""A pattern whose shortest match is longer than this states no value worth sending."""
_CATEGORY_CHAR = {"CATEGORY_DIGIT": "0", "CATEGORY_WORD": "a", "CATEGORY_SPACE": " ",
                  "CATEGORY_NOT_DIGIT": "a", "CATEGORY_NOT_WORD": "-", "CATEGORY_NOT_SPACE": "a"}
_ANY_CHAR = "x"


class _Unbuildable(Exception):
    """A part of the pattern the builder does not honour (a look-around, a back-reference)."""


def shortest_match(pattern: str) -> str | None:
    """The shortest text ``pattern`` matches whole (see the module docstring), or None."""
    try:
        compiled = re.compile(pattern)
        text = _build(sre_parse.parse(pattern))
    except (re.error, _Unbuildable, RecursionError, OverflowError):
        return None
    if len(text) > MAX_CHARS or not compiled.fullmatch(text):
        return None
    return text


def _build(parsed: Any) -> str:
    return "".join(_one(op, arg) for op, arg in parsed)


def _one(op: Any, arg: Any) -> str:
    name = str(op)
    if name == "LITERAL":
        return chr(arg)
    if name == "ANY":
        return _ANY_CHAR
    if name == "IN":
        return _member(arg)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        least, _most, item = arg
        return _build(item) * least
    if name == "SUBPATTERN":
        return _build(arg[-1])
    if name == "ATOMIC_GROUP":
        return _build(arg)
    if name == "BRANCH":
        return _build(arg[1][0])
    if name == "AT":
        return ""
    raise _Unbuildable(name)


def _member(items: list[tuple[Any, Any]]) -> str:
    """The first character a class admits (a negated class: the first plain letter it does not exclude)."""
    if items and str(items[0][0]) == "NEGATE":
        excluded = re.compile("[" + "".join(re.escape(c) for c in _excluded(items[1:])) + "]") if items[1:] else None
        return next(c for c in "xyzab0-_" if excluded is None or not excluded.match(c))
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            return chr(arg)
        if name == "RANGE":
            return chr(arg[0])
        if name == "CATEGORY":
            return _CATEGORY_CHAR.get(str(arg), _ANY_CHAR)
    raise _Unbuildable("IN")


def _excluded(items: list[tuple[Any, Any]]) -> list[str]:
    chars: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            chars.append(chr(arg))
        elif name == "RANGE":
            chars.extend(chr(c) for c in range(arg[0], min(arg[1], arg[0] + 128) + 1))
        else:
            raise _Unbuildable(name)
    return chars
