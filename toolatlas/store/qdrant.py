"""The ``local``, ``remote`` and ``memory`` backends: one adapter over ``qdrant-client``.

``local`` is qdrant-client's embedded mode on disk (``QdrantClient(path=...)``): pure Python,
exact search, one process per path. ``memory`` is the same engine without files (tests).
``remote`` is a Qdrant server or cluster by URL — the distributed deployment. All three share
this code path, so testing ``memory`` and ``local`` tests the requests ``remote`` sends.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

import structlog
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from toolatlas.errors import StoreError, ToolAtlasError
from toolatlas.store.fusion import TIE_SLACK, candidates, reciprocal_rank_fusion, top_hits
from toolatlas.store.types import (
    DENSE,
    SPARSE,
    CollectionSpec,
    Filter,
    Point,
    ScoredPoint,
    SparseVector,
    point_uuid,
    stored_hit,
    stored_point,
)

__all__ = ["QdrantBackend"]

log = structlog.get_logger(__name__)

UPSERT_BATCH = 512
"""Points per upsert request (bounds a remote request's size)."""

REMOTE_TIMEOUT_S = 30
"""Seconds a request to a Qdrant server may take before it fails."""


class QdrantBackend:
    """Collections in Qdrant through qdrant-client: embedded on disk, in memory, or on a server."""

    def __init__(self, client: QdrantClient, where: str, *, server: bool) -> None:
        self._client: QdrantClient | None = client
        self._specs: dict[str, CollectionSpec] = {}
        self.where = where
        self._server = server  # payload indexes only exist on a server; local mode scans

    @classmethod
    def local(cls, path: Path) -> QdrantBackend:
        """Embedded qdrant-client storage in ``path`` (exclusive to this process)."""
        try:
            Path(path).mkdir(parents=True, exist_ok=True)
            client = QdrantClient(path=str(path))
        except RuntimeError as exc:
            if "already accessed" in str(exc):
                raise StoreError(
                    f"local store at {path} is locked by another process (qdrant-client's embedded mode "
                    "allows one process per path); use a Qdrant server (backend 'remote') to share it"
                ) from exc
            raise StoreError(f"local store at {path} cannot be opened: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"local store at {path} cannot be opened: {exc}") from exc
        return cls(client, f"local store at {path}", server=False)

    @classmethod
    def memory(cls) -> QdrantBackend:
        """qdrant-client's in-memory engine: nothing on disk, gone at close."""
        return cls(QdrantClient(location=":memory:"), "in-memory store", server=False)

    @classmethod
    def remote(cls, url: str, api_key: str | None = None) -> QdrantBackend:
        """A Qdrant server or cluster at ``url``."""
        try:
            client = QdrantClient(url=url, api_key=api_key, timeout=REMOTE_TIMEOUT_S)
        except Exception as exc:
            raise StoreError(f"Qdrant server at {url} cannot be reached: {exc}") from exc
        return cls(client, f"Qdrant server at {url}", server=True)

    @property
    def client(self) -> QdrantClient:
        if self._client is None:
            raise StoreError(f"{self.where} is closed")
        return self._client

    # -- collections ------------------------------------------------------------------------

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """Create the collection if absent; check an existing one has the same vectors."""
        client = self.client
        with self._errors("open collection", spec.name):
            if client.collection_exists(spec.name):
                self._check(spec, client.get_collection(spec.name).config.params)
            else:
                client.create_collection(
                    spec.name,
                    vectors_config={DENSE: qm.VectorParams(size=spec.dense_dim, distance=qm.Distance.COSINE)}
                    if spec.dense_dim
                    else {},
                    sparse_vectors_config={SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)}
                    if spec.sparse
                    else None,
                )
            if self._server:
                indexed = set(client.get_collection(spec.name).payload_schema)
                for field in spec.indexed_fields:
                    if field not in indexed:
                        client.create_payload_index(spec.name, field, qm.PayloadSchemaType.KEYWORD, wait=True)
        self._specs[spec.name] = spec

    def _spec(self, collection: str, filter: Filter | None = None) -> CollectionSpec:
        """The spec of a collection ensured in this session; the filter checked against it."""
        if self._client is None:
            raise StoreError(f"{self.where} is closed")
        spec = self._specs.get(collection)
        if spec is None:
            raise StoreError(
                f"collection {collection!r} is not open in {self.where}: call ensure_collection first"
            )
        spec.check_filter(filter)
        return spec

    def _check(self, spec: CollectionSpec, params: qm.CollectionParams) -> None:
        vectors = params.vectors if isinstance(params.vectors, dict) else {}
        dense = vectors.get(DENSE)
        has_sparse = SPARSE in (params.sparse_vectors or {})
        if (dense.size if dense else None) != spec.dense_dim or has_sparse != spec.sparse:
            raise StoreError(
                f"{self.where}: collection {spec.name!r} exists with dense size "
                f"{dense.size if dense else None} and sparse={has_sparse}, "
                f"but dense size {spec.dense_dim} and sparse={spec.sparse} were asked for"
            )

    # -- writes -----------------------------------------------------------------------------

    def upsert(self, collection: str, points: Sequence[Point]) -> None:
        """Insert or replace points, :data:`UPSERT_BATCH` per request."""
        client = self.client
        self._spec(collection)
        with self._errors("upsert", collection):
            for start in range(0, len(points), UPSERT_BATCH):
                batch = [_to_qdrant(p) for p in points[start : start + UPSERT_BATCH]]
                client.upsert(collection, points=batch, wait=True)

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Remove points by id."""
        self._spec(collection)
        if not ids:
            return
        with self._errors("delete", collection):
            self.client.delete(
                collection, points_selector=qm.PointIdsList(points=[point_uuid(i) for i in ids]), wait=True
            )

    # -- reads ------------------------------------------------------------------------------

    def retrieve(self, collection: str, ids: Sequence[str], *, with_vectors: bool = False) -> list[Point]:
        """Points by id, in the order asked."""
        self._spec(collection)
        if not ids:
            return []
        with self._errors("retrieve", collection):
            records = self.client.retrieve(
                collection, ids=[point_uuid(i) for i in ids], with_payload=True, with_vectors=with_vectors
            )
        found = {p.id: p for p in (stored_point(r.id, r.payload, r.vector) for r in records)}
        return [found[i] for i in ids if i in found]

    def scroll(
        self, collection: str, filter: Filter | None = None, *, limit: int = 256, offset: str | None = None
    ) -> tuple[list[Point], str | None]:
        """One page of points in id order and the next page's offset."""
        self._spec(collection, filter)
        with self._errors("scroll", collection):
            records, next_offset = self.client.scroll(
                collection, scroll_filter=_filter(filter), limit=limit, offset=offset, with_payload=True
            )
        points = [stored_point(r.id, r.payload, None) for r in records]
        return points, (str(next_offset) if next_offset is not None else None)

    def count(self, collection: str, filter: Filter | None = None) -> int:
        """Exact count of matching points."""
        self._spec(collection, filter)
        with self._errors("count", collection):
            return self.client.count(collection, count_filter=_filter(filter), exact=True).count

    def query(
        self,
        collection: str,
        *,
        dense: Sequence[float] | None = None,
        sparse: SparseVector | None = None,
        filter: Filter | None = None,
        limit: int = 10,
    ) -> list[ScoredPoint]:
        """Nearest points by dense, sparse, or both: one batched request, ranked by :mod:`fusion`."""
        self._spec(collection, filter)
        queries: list[tuple[Any, str]] = []
        if dense is not None:
            queries.append((list(dense), DENSE))
        if sparse:
            queries.append((qm.SparseVector(indices=sparse.indices, values=sparse.values), SPARSE))
        if not queries:
            return []
        condition = _filter(filter)
        fetch = limit + TIE_SLACK if len(queries) == 1 else candidates(limit)
        requests = [
            qm.QueryRequest(query=vector, using=using, filter=condition, limit=fetch, with_payload=True)
            for vector, using in queries
        ]
        with self._errors("query", collection):
            responses = self.client.query_batch_points(collection, requests=requests)
        payloads = {str(h.id): h.payload for r in responses for h in r.points}
        rankings = [[(str(h.id), h.score) for h in r.points] for r in responses]
        best = top_hits(rankings[0], limit) if len(rankings) == 1 else reciprocal_rank_fusion(rankings, limit)
        return [stored_hit(key, payloads[key], score) for key, score in best]

    # -- lifecycle --------------------------------------------------------------------------

    def flush(self) -> None:
        """No-op: qdrant-client's local mode persists each write; a server does its own."""

    def optimize(self) -> None:
        """No-op: local mode searches exhaustively; a server optimizes in the background."""

    def close(self) -> None:
        """Close the client (releases the local mode's directory lock)."""
        client, self._client = self._client, None
        self._specs.clear()
        if client is not None:
            with warnings.catch_warnings(), self._errors("close", "*"):
                warnings.simplefilter("ignore")
                client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _errors(self, action: str, collection: str) -> Iterator[None]:
        """Translate qdrant-client's exceptions (HTTP, gRPC, ValueError from local mode) into StoreError."""
        try:
            yield
        except ToolAtlasError:
            raise
        except Exception as exc:
            raise StoreError(f"{self.where}: {action} on {collection!r} failed: {exc}") from exc


def _to_qdrant(point: Point) -> qm.PointStruct:
    vector: dict[str, Any] = {}
    if point.dense is not None:
        vector[DENSE] = point.dense
    if point.sparse:  # an empty sparse vector is left out: it would count in the IDF corpus
        vector[SPARSE] = qm.SparseVector(indices=point.sparse.indices, values=point.sparse.values)
    return qm.PointStruct(id=point_uuid(point.id), vector=vector, payload=point.stored_payload())


def _filter(filter: Filter | None) -> qm.Filter | None:
    if not filter:
        return None
    return qm.Filter(must=_conditions(filter.must) or None, must_not=_conditions(filter.must_not) or None)


def _conditions(conditions: dict[str, Any]) -> list[qm.Condition]:
    return [
        qm.FieldCondition(
            key=key, match=qm.MatchAny(any=value) if isinstance(value, list) else qm.MatchValue(value=value)
        )
        for key, value in conditions.items()
    ]
