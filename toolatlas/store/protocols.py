"""The store's pluggable parts, as Protocols: vector backends and embedders.

A :class:`VectorBackend` holds collections of :class:`~toolatlas.store.types.Point`s; the graph
facade above it maps typed nodes to points. Backends are chosen by a config string
(:func:`toolatlas.store.open_backend`); embedders likewise (:func:`toolatlas.store.embedder_for`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from toolatlas.store.types import (
    CollectionSpec,
    DocumentEmbeddings,
    Filter,
    Point,
    QueryEmbedding,
    ScoredPoint,
    SparseVector,
)

__all__ = ["DenseEmbedder", "Embedder", "VectorBackend"]


@runtime_checkable
class VectorBackend(Protocol):
    """Collections of points with JSON payloads, dense + sparse vectors and hybrid retrieval."""

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """Create the collection if absent (with its payload indexes); check an existing one matches."""
        ...

    def upsert(self, collection: str, points: Sequence[Point]) -> None:
        """Insert or replace points by id, in batches."""
        ...

    def retrieve(self, collection: str, ids: Sequence[str], *, with_vectors: bool = False) -> list[Point]:
        """The points with these ids, in the order asked, skipping ids that are not stored."""
        ...

    def scroll(
        self, collection: str, filter: Filter | None = None, *, limit: int = 256, offset: str | None = None
    ) -> tuple[list[Point], str | None]:
        """One page of points matching ``filter`` and the opaque offset of the next page (None: done)."""
        ...

    def count(self, collection: str, filter: Filter | None = None) -> int:
        """The exact number of points matching ``filter``."""
        ...

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Remove points by id (absent ids are ignored)."""
        ...

    def query(
        self,
        collection: str,
        *,
        dense: Sequence[float] | None = None,
        sparse: SparseVector | None = None,
        filter: Filter | None = None,
        limit: int = 10,
    ) -> list[ScoredPoint]:
        """Nearest points by one vector, or by both fused with Reciprocal Rank Fusion (hybrid).

        Ranking is the same on every backend: ties are broken by id, and fusion is
        :func:`toolatlas.store.fusion.reciprocal_rank_fusion`.
        """
        ...

    def flush(self) -> None:
        """Make every accepted write durable on disk (no-op where the engine already has)."""
        ...

    def optimize(self) -> None:
        """Build the search indexes now (no-op where the engine does it by itself)."""
        ...

    def close(self) -> None:
        """Flush and release the storage (files, locks, connections); idempotent."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into the vectors a collection stores: a sparse lexical vector, and a dense one if any."""

    @property
    def dense_dim(self) -> int | None:
        """Size of the dense vectors, or None when this embedder makes sparse vectors only."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> DocumentEmbeddings:
        """Vectors for texts to be stored."""
        ...

    def embed_query(self, text: str) -> QueryEmbedding:
        """Vectors for a search text."""
        ...


@runtime_checkable
class DenseEmbedder(Protocol):
    """A dense sentence-embedding model (local or behind an HTTP endpoint)."""

    @property
    def dim(self) -> int:
        """Size of the vectors it returns."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...
