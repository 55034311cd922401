"""The storage layer under the atlas graph: collections of points with JSON payloads, dense +
sparse vectors and hybrid retrieval, over interchangeable Qdrant backends.

:func:`open_backend` picks a backend from the store settings (imported lazily):

- ``edge`` — Qdrant Edge in this process, persistent at ``path`` (the default),
- ``local`` — qdrant-client's embedded mode at ``path``,
- ``remote`` — a Qdrant server at ``url`` (the distributed deployment),
- ``memory`` — qdrant-client in memory (tests; nothing on disk).

Embedded backends belong to exactly one process. :func:`embedder_for` picks the embedder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from toolatlas.errors import StoreError
from toolatlas.store.embedders import (
    HybridEmbedder,
    LexicalEmbedder,
    OpenAIEmbedder,
    SentenceEmbedder,
    embedder_for,
    tokenize,
)
from toolatlas.store.fusion import RRF_K, reciprocal_rank_fusion
from toolatlas.store.protocols import DenseEmbedder, Embedder, VectorBackend
from toolatlas.store.types import (
    ID_KEY,
    CollectionSpec,
    DocumentEmbeddings,
    Filter,
    Point,
    QueryEmbedding,
    ScoredPoint,
    SparseVector,
    point_uuid,
)

if TYPE_CHECKING:
    from toolatlas.config.catalogue import StoreSettings

__all__ = [
    "ID_KEY",
    "RRF_K",
    "CollectionSpec",
    "DenseEmbedder",
    "DocumentEmbeddings",
    "Embedder",
    "Filter",
    "HybridEmbedder",
    "LexicalEmbedder",
    "OpenAIEmbedder",
    "Point",
    "QueryEmbedding",
    "ScoredPoint",
    "SentenceEmbedder",
    "SparseVector",
    "VectorBackend",
    "embedder_for",
    "open_backend",
    "point_uuid",
    "reciprocal_rank_fusion",
    "tokenize",
]


def open_backend(settings: StoreSettings, base_dir: Path | None = None) -> VectorBackend:
    """The backend the store settings name; a relative ``path`` is resolved against ``base_dir``."""
    path = Path(settings.path).expanduser()
    if not path.is_absolute():
        path = (base_dir or Path.cwd()) / path
    match settings.backend:
        case "edge":
            from toolatlas.store.edge import EdgeBackend

            return EdgeBackend(path)
        case "local":
            from toolatlas.store.qdrant import QdrantBackend

            return QdrantBackend.local(path)
        case "memory":
            from toolatlas.store.qdrant import QdrantBackend

            return QdrantBackend.memory()
        case "remote":
            from toolatlas.store.qdrant import QdrantBackend

            if not settings.url:
                raise StoreError("the remote store backend needs a url")
            api_key = os.environ.get(settings.api_key_env) if settings.api_key_env else None
            return QdrantBackend.remote(settings.url, api_key)
    raise StoreError(f"unknown store backend {settings.backend!r}")  # pragma: no cover - Literal is closed
