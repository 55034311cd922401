"""An in-memory lexical index (BM25) over atlas records, matching words by their stems.

Guidance is served from a read-only snapshot of the atlas held in memory: a few thousand records
per catalogue, searched in well under a millisecond, and shareable by every serving process or
replica — none of them needs to own the embedded store. Texts are split by the store's tokenizer
(identifiers into their words) and each term is reduced to its Snowball English stem, so a user's
"switch to the branch" meets a tool that "switches branches", and "differ" meets "differences".
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from functools import lru_cache

import snowballstemmer

from toolatlas.store.embedders import tokenize

__all__ = ["LexicalIndex", "terms"]

K1, B = 1.2, 0.75
"""BM25 term-frequency saturation and length normalisation."""

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=1 << 16)
def _stem(term: str) -> str:
    return term if not term.isalpha() else _STEMMER.stemWord(term)


@lru_cache(maxsize=1 << 16)
def _terms(text: str) -> tuple[str, ...]:
    return tuple(_stem(term) for term in tokenize(text))


def terms(text: str) -> list[str]:
    """The stemmed terms of ``text``; ``read_files`` gives ``read``, ``file`` and ``read_files`` as written.
    (Memoised: guidance asks for the same words, and the same tasks, many times.)"""
    return list(_terms(text))


class LexicalIndex:
    """Postings of BM25 document weights; a score is Σ over the query's distinct terms of weight × IDF."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.size = len(texts)
        documents = [Counter(terms(text)) for text in texts]
        average = sum(sum(d.values()) for d in documents) / self.size if self.size else 1.0
        self.postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for doc, counts in enumerate(documents):
            norm = K1 * (1.0 - B + B * sum(counts.values()) / max(average, 1.0))
            for term, tf in counts.items():
                self.postings[term].append((doc, tf * (K1 + 1.0) / (tf + norm)))
        self.idf = {
            term: math.log(1 + (self.size - len(docs) + 0.5) / (len(docs) + 0.5)) for term, docs in self.postings.items()
        }
        self.weighted: dict[str, tuple[tuple[int, float], ...]] = {
            term: tuple((doc, weight * self.idf[term]) for doc, weight in docs) for term, docs in self.postings.items()
        }
        """Each term's postings with its IDF folded in: a query only adds them up."""

    def scores(self, text: str) -> dict[int, float]:
        """Document → score for a query text (documents sharing no term are absent)."""
        found: dict[int, float] = {}
        weighted = self.weighted
        for term in dict.fromkeys(terms(text)):
            for doc, weight in weighted.get(term, ()):
                found[doc] = found.get(doc, 0.0) + weight
        return found

    def top(self, text: str, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        scored = self.scores(text)
        items = [(d, s) for d, s in scored.items() if allowed is None or d in allowed]
        return sorted(items, key=lambda item: (-item[1], item[0]))[:limit]
