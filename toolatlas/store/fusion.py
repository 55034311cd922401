"""Rank fusion and tie-breaking, done in Python so that every backend ranks identically.

Qdrant's native fusion (prefetch + RRF) ranks each candidate list by position, and engines
order equal scores differently (Edge by internal offset, qdrant-client's local mode by sort
order), so two tied lexical hits swap ranks and the fused top-k differs between backends.
Here tied scores share a rank (competition ranking: 1, 2, 2, 4), which makes the fused scores
independent of how an engine orders ties, and final ties are broken by the point's Qdrant id
(the UUID derived from its id: as ``uuid.UUID`` or as its canonical string, the order is the same).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["CANDIDATES_MIN", "RRF_K", "TIE_SLACK", "candidates", "reciprocal_rank_fusion", "top_hits"]

RRF_K = 2
"""Reciprocal Rank Fusion constant: a hit ranked r (0-based) in one list adds 1 / (r + RRF_K).
Qdrant's default, so fused scores equal what Qdrant's own RRF gives when there are no ties."""

CANDIDATES_MIN = 64
"""Candidates each vector contributes to a hybrid fusion (at least; 4 × limit when larger)."""

TIE_SLACK = 8
"""Extra hits a single-vector query fetches so that ties at the cut-off are broken by id."""

_TIE_DIGITS = 6
"""Scores equal to this many significant digits are ties (engines differ in float width)."""

Key = TypeVar("Key", bound=Hashable)


def candidates(limit: int) -> int:
    """How many hits each vector fetches before fusion, for a query that wants ``limit``."""
    return max(CANDIDATES_MIN, 4 * limit)


def _tie_key(score: float) -> float:
    return float(f"{score:.{_TIE_DIGITS}g}")


def top_hits(hits: Sequence[tuple[Key, float]], limit: int) -> list[tuple[Key, float]]:
    """The best ``limit`` (point key, score) hits by score, equal scores ordered by key."""
    return sorted(hits, key=lambda h: (-_tie_key(h[1]), h[0]))[:limit]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[tuple[Key, float]]], limit: int
) -> list[tuple[Key, float]]:
    """Fuse lists of (point key, score): each hit scores Σ 1 / (rank + RRF_K), tied scores sharing a rank."""
    fused: dict[Key, float] = {}
    for ranking in rankings:
        ordered = sorted(ranking, key=lambda h: -h[1])
        rank, previous = 0, None
        for position, (key, score) in enumerate(ordered):
            tie = _tie_key(score)
            if tie != previous:
                rank, previous = position, tie
            fused[key] = fused.get(key, 0.0) + 1.0 / (rank + RRF_K)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:limit]
