"""Arguments that are alternatives, learned from what the server answered.

A schema often declares two optional arguments that only work one at a time, and says so nowhere
but in its errors: ``Must provide either search_text or paragraph_index`` (one of them is needed),
``Cannot provide both search_text and paragraph_index`` (never together). :func:`stated_alternatives`
reads such an error: the tool's optional arguments it names, whether it says they exclude each other
and whether it says one of them is needed. :func:`with_alternatives` writes that into the tool's
argument specs — each excludes the others, and when one is needed each is marked
``alternative_needed`` — so every later call gives exactly one of them
(:func:`toolatlas.offline.values.selected_optional`), and the boundary probes give them together.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from toolatlas.models import ToolSpec
from toolatlas.offline.kinds import ArgSpec
from toolatlas.offline.mutations import EXCLUSIVE_WORDS

__all__ = ["Alternatives", "stated_alternatives", "with_alternatives"]

_BOTH = re.compile(
    r"\b(?:cannot|can't|can not|must not|may not|should not|do not|don't)\b[^.\n]{0,40}\bboth\b|\bonly one\b",
    re.IGNORECASE,
)
_NEEDED = re.compile(
    r"\b(?:must|need(?:s)? to|have to|has to|required to|please)\b[^.\n]{0,30}\b(?:either|one of|at least one)\b"
    r"|\b(?:either|one of|at least one of)\b[^.\n]{0,80}\b(?:is|are|must be)\s+(?:required|needed|mandatory)\b"
    r"|\b(?:requires?|needs?)\s+(?:either|one of|at least one of)\b"
    r"|\bexactly one of\b",  # "pass exactly one of port= (live VM) or path= (…)"
    re.IGNORECASE,
)
_SOME = re.compile(
    r"\bnothing to (?:update|change|set|modify|edit)\b"
    r"|\b(?:pass|provide|supply|specify|give)\s+(?:(?:at least )?one of\s+)?[`'\"]?\w+[`'\"]?(?:\s*,\s*[`'\"]?\w+[`'\"]?)+,?"
    r"\s+or\b",
    re.IGNORECASE,
)
"""A sentence asking for any of several arguments (``nothing to update: pass a, b, or c``): one is needed, and
nothing says they exclude each other."""


class Alternatives(NamedTuple):
    """Optional arguments of one tool that are given one at a time."""

    names: tuple[str, ...]
    needed: bool
    """The error says one of them must be given."""
    exclusive: bool = True
    """The error says they are never given together (``nothing to update: pass a, b or c`` says only that one is
    needed)."""


def stated_alternatives(tool: ToolSpec, error: str) -> Alternatives | None:
    """The alternatives an error of ``tool`` states, or None when it names fewer than two of its
    optional arguments in a sentence that says they are exclusive or that one is needed."""
    required = set(tool.required)
    optional = [n for n in tool.properties if n not in required]
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", error):
        stated = bool(_BOTH.search(sentence) or EXCLUSIVE_WORDS.search(sentence))
        one = bool(_NEEDED.search(sentence))  # "must provide either a or b": one of them, and one at a time
        some = bool(_SOME.search(sentence))
        if not (stated or one or some):
            continue
        needed, exclusive = one or some, stated or one
        named = sorted(
            (m.start(), n)
            for n in optional
            if (m := re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", sentence)) is not None
        )
        if len(named) >= 2:
            return Alternatives(tuple(n for _at, n in named), needed, exclusive)
    return None


def with_alternatives(specs: list[ArgSpec], alternatives: Alternatives) -> list[ArgSpec]:
    """``specs`` with the alternatives excluding each other when they do (and marked needed when one is)."""
    names = set(alternatives.names)
    out = []
    for spec in specs:
        if spec.name not in names:
            out.append(spec)
            continue
        others = [n for n in alternatives.names if n != spec.name] if alternatives.exclusive else []
        excludes = list(dict.fromkeys([*spec.excludes, *others]))
        needed = spec.alternative_needed or alternatives.needed
        out.append(spec.model_copy(update={"excludes": excludes, "alternative_needed": needed}))
    return out
