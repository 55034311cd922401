"""A server's lexicon: the words its answers said during a build, read in full.

Evidence keeps the beginning and the end of a long answer (``evidence_excerpt``); what a server holds
is often in between — the people of a knowledge graph after its first entity, a table's columns after
the fifth, a document's text after its title. Routing a task among many servers needs those words: "the products
with fewer than five items in stock" is about the server whose answers said ``stock``. The lexicon
keeps, per server, the distinct words of its answers (successful ones and its own error messages),
each with how many answers said it, the most said kept.

Only the server's own words count: a word of any argument the probe sent (a note it wrote and read
back, a name it invented) is left out, and so are ids, hashes and numbers (anything with a digit),
words of one or two letters and words of random letters; ``${root}``-style placeholders stand for the sandbox's paths. camelCase and
snake_case names are split into their words (``unitPrice`` → unit, price).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

__all__ = ["ANSWER_CHARS", "LEXICON_WORDS", "Lexicon", "answer_words", "argument_words"]

LEXICON_WORDS = 3000
"""Words a server's lexicon keeps (the most said first)."""
ANSWER_CHARS = 50_000
"""Characters of one answer that are read (the rest of a huge answer adds little but time)."""

_TOKEN = re.compile(r"[A-Za-z0-9]+")
_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_PLACEHOLDER = re.compile(r"\$\{\w+\}")
_RANDOM = re.compile(r"^[a-f]{8,}$|^[bcdfghjklmnpqrstvwxz]{5,}$")
"""Letters no language writes: a long run of hex digits, or of consonants only."""


def _split(text: str) -> set[str]:
    """The lower-case words of ``text``: camelCase and snake_case names split, tokens with a digit (ids,
    hashes, versions) none."""
    return {w.lower() for token in _TOKEN.findall(text) if not _DIGIT.search(token) for w in _WORD.findall(token)}


def answer_words(text: str, said: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """The distinct lower-case words of ``text`` worth keeping (see the module docstring), without ``said``."""
    words = _split(_PLACEHOLDER.sub(" ", text[:ANSWER_CHARS]))
    return {w for w in words if len(w) > 2 and w not in said and not _RANDOM.match(w)}


def argument_words(arguments: Iterable[Mapping[str, object]]) -> frozenset[str]:
    """Every word of every string value in ``arguments`` (what a probe said: never the server's word)."""
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.update(w.lower() for w in _WORD.findall(value))  # every word, those of ids too
        elif isinstance(value, Mapping):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    for item in arguments:
        walk(item)
    return frozenset(found)


class Lexicon:
    """The words a server's answers said, with how many answers said each."""

    def __init__(self, words: Iterable[str] = ()) -> None:
        self.counts: Counter[str] = Counter(words)

    def hear(self, text: str, said: frozenset[str] | set[str] = frozenset()) -> None:
        """Count the words of one answer (``said``: the probe's own words, left out)."""
        self.counts.update(answer_words(text, said))

    def update(self, counts: Mapping[str, int]) -> None:
        self.counts.update(counts)

    def words(self, limit: int = LEXICON_WORDS) -> list[str]:
        """The ``limit`` most said words, sorted (ties broken alphabetically, so a build is reproducible)."""
        best = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return sorted(word for word, _ in best)
