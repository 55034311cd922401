"""An in-memory lexical index (BM25-style weights with IDF) over atlas records.

Guidance is served from a read-only snapshot of the atlas held in memory: a few thousand records
per catalogue, searched in microseconds, and shareable by every serving process or replica —
none of them needs to own the embedded store. It uses the store's own tokenizer and term weights,
so what the store retrieves and what guidance retrieves agree.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from toolatlas.store.embedders import LexicalEmbedder

__all__ = ["LexicalIndex"]


class LexicalIndex:
    """Postings of sparse document vectors; scores are Σ query weight × document weight × IDF."""

    def __init__(self, texts: Sequence[str], embedder: LexicalEmbedder | None = None) -> None:
        self.embedder = embedder or LexicalEmbedder()
        self.size = len(texts)
        self.postings: dict[int, list[tuple[int, float]]] = defaultdict(list)
        for doc, text in enumerate(texts):
            vector = self.embedder.document_vector(text)
            for term, weight in zip(vector.indices, vector.values, strict=True):
                self.postings[term].append((doc, weight))
        self.idf = {
            term: math.log(1 + (self.size - len(docs) + 0.5) / (len(docs) + 0.5)) for term, docs in self.postings.items()
        }

    def scores(self, text: str) -> dict[int, float]:
        """Document → score for a query text (documents sharing no term are absent)."""
        query = self.embedder.query_vector(text)
        found: dict[int, float] = defaultdict(float)
        for term, weight in zip(query.indices, query.values, strict=True):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for doc, doc_weight in self.postings[term]:
                found[doc] += weight * doc_weight * idf
        return found

    def top(self, text: str, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        scored = self.scores(text)
        items = [(d, s) for d, s in scored.items() if allowed is None or d in allowed]
        return sorted(items, key=lambda item: (-item[1], item[0]))[:limit]
