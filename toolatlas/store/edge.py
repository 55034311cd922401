"""The ``edge`` backend: Qdrant Edge (``qdrant-edge-py``), Qdrant's engine inside this process.

Each collection is one Edge shard, a directory under the store's root. The engine has no
background workers: writes land in appendable segments (searchable at once) and
:meth:`EdgeBackend.optimize` builds the HNSW and sparse indexes when the caller asks for them.

Payloads are stored as one JSON string plus a top-level copy of the collection's indexed fields
(what filters and payload indexes use): the binding converts a Python dict value by value,
trying bool, int and float before str, which costs ~2 µs per string — most of an upsert.

One process owns a root at a time: an exclusive lock on ``<root>/.lock`` is taken at open (the
shards' write-ahead logs are locked too), and a second opener gets a :class:`StoreError`.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

import qdrant_edge as qe
import structlog

from toolatlas.errors import StoreError, ToolAtlasError
from toolatlas.store.fusion import TIE_SLACK, candidates, reciprocal_rank_fusion, top_hits
from toolatlas.store.types import (
    DENSE,
    ID_KEY,
    SPARSE,
    CollectionSpec,
    Filter,
    Point,
    ScoredPoint,
    SparseVector,
    point_uuid,
)

__all__ = ["EdgeBackend"]

log = structlog.get_logger(__name__)

UPSERT_BATCH = 1024
"""Points per update operation: large enough to amortise the call, small enough to bound memory."""

_BLOB = "_json"
_LOCK_FILE = ".lock"
_SHARD_MARKER = "edge_config.json"


class EdgeBackend:
    """Collections as Qdrant Edge shards under one directory, owned by this process."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._shards: dict[str, qe.EdgeShard] = {}
        self._specs: dict[str, CollectionSpec] = {}
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self._lock_fd: int | None = os.open(self.root / _LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"edge store at {self.root} cannot be opened: {exc}") from exc
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(self._lock_fd)
            self._lock_fd = None
            raise StoreError(
                f"edge store at {self.root} is locked by another process (or another open store in this "
                "one); embedded storage has exactly one owner — route reads and writes through it"
            ) from exc

    # -- collections ------------------------------------------------------------------------

    def ensure_collection(self, spec: CollectionSpec) -> None:
        """Create the collection's shard if absent; reopen and check an existing one."""
        if self._lock_fd is None:
            raise StoreError(f"edge store at {self.root} is closed")
        path = self.root / spec.name
        with self._errors("open collection", spec.name):
            shard = self._shards.get(spec.name)
            if shard is None or self._specs[spec.name] != spec:
                if shard is not None:  # reopen with the new config: the engine checks compatibility
                    self._shards.pop(spec.name).close()
                config = qe.EdgeConfig(
                    vectors={DENSE: qe.EdgeVectorParams(size=spec.dense_dim, distance=qe.Distance.Cosine)}
                    if spec.dense_dim
                    else None,
                    sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}
                    if spec.sparse
                    else None,
                )
                if (path / _SHARD_MARKER).exists():
                    shard = qe.EdgeShard.load(str(path), config)
                else:
                    path.mkdir(parents=True, exist_ok=True)
                    shard = qe.EdgeShard.create(str(path), config)
                self._shards[spec.name] = shard
                self._specs[spec.name] = spec
            indexed = set(shard.info().payload_schema)
            for field in spec.indexed_fields:
                if field not in indexed:
                    self._backfill(shard, field)
                    shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))

    def _backfill(self, shard: qe.EdgeShard, field: str) -> None:
        """Copy a newly indexed field out of the stored JSON of existing points."""
        by_value: dict[str, tuple[Any, list[Any]]] = {}
        offset = None
        while True:
            records, offset = shard.scroll(qe.ScrollRequest(offset=offset, limit=1024, with_payload=True))
            for record in records:
                payload = json.loads((record.payload or {}).get(_BLOB, "{}"))
                if field in payload:
                    key = json.dumps(payload[field], sort_keys=True)
                    by_value.setdefault(key, (payload[field], []))[1].append(record.id)
            if offset is None:
                break
        for value, ids in by_value.values():
            shard.update(qe.UpdateOperation.set_payload(ids, {field: value}))

    def _open(self, collection: str) -> tuple[qe.EdgeShard, CollectionSpec]:
        if self._lock_fd is None:
            raise StoreError(f"edge store at {self.root} is closed")
        if collection not in self._shards:
            raise StoreError(
                f"collection {collection!r} is not open in {self.root}: call ensure_collection first"
            )
        return self._shards[collection], self._specs[collection]

    # -- writes -----------------------------------------------------------------------------

    def upsert(self, collection: str, points: Sequence[Point]) -> None:
        """Insert or replace points, :data:`UPSERT_BATCH` per update operation."""
        shard, spec = self._open(collection)
        with self._errors("upsert", collection):
            for start in range(0, len(points), UPSERT_BATCH):
                batch = [_to_edge(p, spec.indexed_fields) for p in points[start : start + UPSERT_BATCH]]
                shard.update(qe.UpdateOperation.upsert_points(batch))

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Remove points by id."""
        shard, _ = self._open(collection)
        if ids:
            with self._errors("delete", collection):
                shard.update(qe.UpdateOperation.delete_points([point_uuid(i) for i in ids]))

    # -- reads ------------------------------------------------------------------------------

    def retrieve(self, collection: str, ids: Sequence[str], *, with_vectors: bool = False) -> list[Point]:
        """Points by id, in the order asked."""
        shard, _ = self._open(collection)
        if not ids:
            return []
        with self._errors("retrieve", collection):
            records = shard.retrieve(
                [point_uuid(i) for i in ids], with_payload=True, with_vector=with_vectors
            )
        found = {p.id: p for p in (_from_edge(r.id, r.payload, r.vector) for r in records)}
        return [found[i] for i in ids if i in found]

    def scroll(
        self, collection: str, filter: Filter | None = None, *, limit: int = 256, offset: str | None = None
    ) -> tuple[list[Point], str | None]:
        """One page of points in id order and the next page's offset."""
        shard, spec = self._open(collection)
        spec.check_filter(filter)
        request = qe.ScrollRequest(offset=offset, limit=limit, filter=_filter(filter), with_payload=True)
        with self._errors("scroll", collection):
            records, next_offset = shard.scroll(request)
        points = [_from_edge(r.id, r.payload, None) for r in records]
        return points, (str(next_offset) if next_offset is not None else None)

    def count(self, collection: str, filter: Filter | None = None) -> int:
        """Exact count of matching points."""
        shard, spec = self._open(collection)
        spec.check_filter(filter)
        with self._errors("count", collection):
            return shard.count(qe.CountRequest(exact=True, filter=_filter(filter)))

    def query(
        self,
        collection: str,
        *,
        dense: Sequence[float] | None = None,
        sparse: SparseVector | None = None,
        filter: Filter | None = None,
        limit: int = 10,
    ) -> list[ScoredPoint]:
        """Nearest points by dense, sparse, or both (fused by :mod:`fusion`).

        One batched engine call ranks candidates without payloads (reading ~1 KB payloads of
        every candidate would triple the cost); payloads are read for the final hits alone.
        """
        shard, spec = self._open(collection)
        spec.check_filter(filter)
        queries = []
        if dense is not None:
            queries.append(qe.Query.Nearest(list(dense), using=DENSE))
        if sparse:
            queries.append(qe.Query.Nearest(qe.SparseVector(sparse.indices, sparse.values), using=SPARSE))
        if not queries:
            return []
        condition = _filter(filter)
        fetch = limit + TIE_SLACK if len(queries) == 1 else candidates(limit)
        batch = qe.QueryBatchRequest(
            [qe.QueryRequest(limit=fetch, query=q, filter=condition, with_payload=False) for q in queries]
        )
        with self._errors("query", collection):
            results = shard.query_batch(batch)
            rankings = [[(h.id, h.score) for h in hits] for hits in results]
            best = (
                top_hits(rankings[0], limit)
                if len(rankings) == 1
                else reciprocal_rank_fusion(rankings, limit)
            )
            records = shard.retrieve([key for key, _ in best], with_payload=True, with_vector=False)
        points = {r.id: _from_edge(r.id, r.payload, None) for r in records}
        return [
            ScoredPoint.model_construct(id=points[key].id, payload=points[key].payload, score=float(score))
            for key, score in best
            if key in points
        ]

    # -- lifecycle --------------------------------------------------------------------------

    def flush(self) -> None:
        """Flush every open shard's segments to disk."""
        for name, shard in self._shards.items():
            with self._errors("flush", name):
                shard.flush()

    def optimize(self) -> None:
        """Run the segment optimizers of every open shard (builds HNSW and sparse indexes)."""
        for name, shard in self._shards.items():
            with self._errors("optimize", name):
                changed = shard.optimize()
            log.debug("edge_shard_optimized", collection=name, changed=changed)

    def close(self) -> None:
        """Flush and close every shard, then release the directory lock."""
        shards, self._shards = self._shards, {}
        self._specs.clear()
        try:
            for name, shard in shards.items():
                with self._errors("close", name):
                    shard.flush()
                    shard.close()
        finally:
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # closing the descriptor releases the flock
                self._lock_fd = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _errors(self, action: str, collection: str) -> Iterator[None]:
        """Translate the engine's exceptions (plain ``Exception`` with a message) into StoreError."""
        try:
            yield
        except ToolAtlasError:
            raise
        except Exception as exc:
            message = str(exc)
            if "WouldBlock" in message:
                raise StoreError(
                    f"edge collection {collection!r} at {self.root} is locked by another process"
                ) from exc
            raise StoreError(
                f"edge store at {self.root}: {action} on {collection!r} failed: {message}"
            ) from exc


def _to_edge(point: Point, indexed: list[str]) -> qe.Point:
    vectors: dict[str, Any] = {}
    if point.dense is not None:
        vectors[DENSE] = point.dense
    if point.sparse:  # an empty sparse vector is left out: it would count in the IDF corpus
        vectors[SPARSE] = qe.SparseVector(point.sparse.indices, point.sparse.values)
    payload = {ID_KEY: point.id, _BLOB: json.dumps(point.payload, separators=(",", ":"), ensure_ascii=False)}
    for field in indexed:
        if field in point.payload:
            payload[field] = point.payload[field]
    return qe.Point(point_uuid(point.id), vectors, payload)


def _from_edge(qdrant_id: Any, stored: dict[str, Any] | None, vector: Any) -> Point:
    stored = stored or {}
    if _BLOB in stored:
        payload = json.loads(stored[_BLOB])
    else:  # written by something else: take the payload as it is
        payload = {k: v for k, v in stored.items() if k != ID_KEY}
    dense = sparse = None
    if isinstance(vector, dict):
        dense = vector.get(DENSE)
        if (raw := vector.get(SPARSE)) is not None:
            sparse = SparseVector.model_construct(indices=list(raw.indices), values=list(raw.values))
    return Point.model_construct(
        id=str(stored.get(ID_KEY, qdrant_id)), payload=payload, dense=dense, sparse=sparse
    )


def _filter(filter: Filter | None) -> qe.Filter | None:
    if not filter:
        return None
    return qe.Filter(must=_conditions(filter.must) or None, must_not=_conditions(filter.must_not) or None)


def _conditions(conditions: dict[str, Any]) -> list[Any]:
    """Field conditions (typed ``list[Any]``: the engine's filters take a list of any condition kind)."""
    return [
        qe.FieldCondition(
            key=key, match=qe.MatchAny(any=value) if isinstance(value, list) else qe.MatchValue(value=value)
        )
        for key, value in conditions.items()
    ]
