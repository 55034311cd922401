"""A catalogue's blended words: the word a tool or server is named by, made of the starts of two words a
request spells out ("regular expression" → ``regex``, "time zone" → ``timezone``, "work book" →
``workbook``).

Tools name things tersely and a request says them in full: ``test_regex`` is no match for "a regular
expression" word by word, yet the name is the phrase's two starts joined. A pair of adjacent words of a
request whose starts (at least two letters of each, three of the first word) join into a word of the
catalogue's tool names, server names or descriptions adds that word to what the request is matched by.
Nothing is listed by hand: the catalogue's own words are the only candidates, so a request meets only
the blends its catalogue uses. Two adjacent words that make a word of the catalogue whole, however short or
common each is ("to do" → ``todo``, "log in" → ``login``, "set up" → ``setup``), are a blend too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from toolatlas.guidance.index import FILLER

__all__ = ["Blends"]

MIN_FIRST, MIN_SECOND = 3, 2
"""Letters a blend keeps at least of its first word and of its second (``reg`` + ``ex``)."""
MIN_BLEND, MAX_BLEND = 4, 12
"""Lengths of a catalogue word that may be a blend."""

_WORD = re.compile(r"[a-z]+")


class Blends:
    """The blended words of a catalogue, and the ones a request spells out."""

    def __init__(self, words: Iterable[str]) -> None:
        grouped: dict[str, set[str]] = {}
        whole: set[str] = set()
        for word in words:
            if word.isalpha() and MIN_BLEND <= len(word) <= MAX_BLEND:
                grouped.setdefault(word[:MIN_FIRST], set()).add(word)
                whole.add(word)
        self.words: frozenset[str] = frozenset(whole)
        """The catalogue's words that may be blends."""
        self.by_start: dict[str, frozenset[str]] = {start: frozenset(found) for start, found in grouped.items()}
        """The catalogue's words that may be blends, by their first letters."""
        self.of = lru_cache(maxsize=4096)(self._of)

    def _of(self, text: str) -> tuple[str, ...]:
        """The catalogue words that blend two adjacent words of ``text`` (none that ``text`` says as it is)."""
        words = _WORD.findall(text.lower())
        said = set(words)
        found: dict[str, None] = {}
        for first, second in zip(words, words[1:], strict=False):
            if (joined := first + second) in self.words and joined not in said:  # "to do" → todo
                found[joined] = None
            if len(first) < MIN_FIRST or len(second) < MIN_SECOND or first in FILLER or second in FILLER:
                continue
            for word in sorted(self.by_start.get(first[:MIN_FIRST], ())):
                if word not in said and _blends(word, first, second):
                    found[word] = None
        return tuple(found)


def _blends(word: str, first: str, second: str) -> bool:
    """Whether ``word`` is a start of ``first`` (three letters or more) joined to a start of ``second`` (two
    letters or more)."""
    for cut in range(MIN_FIRST, min(len(first), len(word) - MIN_SECOND) + 1):
        if word[:cut] == first[:cut] and second.startswith(word[cut:]):
            return True
    return False
