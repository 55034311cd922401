"""The typed graph store: atlas records (tool nodes, entries, traces, strategies) over a vector backend.

One collection per layer (``<prefix>_servers``, ``_tools``, ``_entries``, ``_traces``, ``_strategies``); a
record's payload is the model itself, so adjacency lists (a tool's entry ids, a trace's similar
traces and strategies) live in payloads; each record is embedded from its text for hybrid
retrieval; filters by server, tool, kind, status. Upserts by content-derived id: writing the
same record twice replaces it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from toolatlas.config.catalogue import StoreSettings
from toolatlas.errors import StoreError
from toolatlas.graph.models import Entry, EntryStatus, ServerNode, StrategyNode, ToolNode, TraceNode
from toolatlas.store.protocols import Embedder, VectorBackend
from toolatlas.store.types import CollectionSpec, Filter, Point

__all__ = ["LAYERS", "AtlasStore", "record_text"]

LAYERS: dict[str, type[BaseModel]] = {
    "servers": ServerNode,
    "tools": ToolNode,
    "entries": Entry,
    "traces": TraceNode,
    "strategies": StrategyNode,
}
_INDEXED = {
    "servers": ["server"],
    "tools": ["server", "tool", "status"],
    "entries": ["server", "tool", "kind", "status", "relation", "peer"],
    "traces": ["server", "tools", "status", "strategies"],
    "strategies": ["server", "tools", "status"],
}
_UPSERT_BATCH = 512


def record_text(record: BaseModel) -> str:
    """The text a record is retrieved by."""
    match record:
        case Entry():
            parts = [record.tool, record.kind.value, record.text, record.when, record.when_not, record.error_signature]
        case ToolNode():
            parts = [record.tool, record.tool.replace("_", " "), record.description]
        case TraceNode():
            parts = [record.task, *(f"{s.tool} {s.rationale}" for s in record.steps), *record.tips]
        case StrategyNode():
            parts = [record.title, record.when, *record.plan, *record.pitfalls, *record.tools]
        case ServerNode():
            parts = [record.server, record.fingerprint.runtime, *record.fingerprint.tools]
        case _:
            raise TypeError(f"not an atlas record: {type(record).__name__}")
    return " ".join(p for p in parts if p)


class AtlasStore:
    """Atlas records in a :class:`VectorBackend`, embedded by an :class:`Embedder`."""

    def __init__(self, backend: VectorBackend, embedder: Embedder, *, prefix: str = "atlas") -> None:
        self.backend = backend
        self.embedder = embedder
        self.prefix = prefix
        for layer in LAYERS:
            backend.ensure_collection(
                CollectionSpec(name=self.collection(layer), dense_dim=embedder.dense_dim, indexed_fields=_INDEXED[layer])
            )

    @classmethod
    def open(cls, settings: StoreSettings, base_dir: Path | None = None, *, prefix: str = "atlas") -> AtlasStore:
        from toolatlas.store import embedder_for, open_backend

        return cls(open_backend(settings, base_dir), embedder_for(settings), prefix=prefix)

    def collection(self, layer: str) -> str:
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}")
        return f"{self.prefix}_{layer}"

    # -- writing -------------------------------------------------------------------------------

    def save(self, layers: Mapping[str, Sequence[BaseModel]]) -> int:
        """Upsert records by layer; returns how many were written."""
        written = 0
        for layer, records in layers.items():
            for start in range(0, len(records), _UPSERT_BATCH):
                batch = list(records[start : start + _UPSERT_BATCH])
                embeddings = self.embedder.embed_documents([record_text(r) for r in batch])
                # a record is a validated model and its dump has no reserved key: built unchecked
                points = [
                    Point.model_construct(
                        id=record.id,  # type: ignore[attr-defined]
                        payload=record.model_dump(mode="json"),
                        dense=embeddings.dense[i] if embeddings.dense is not None else None,
                        sparse=embeddings.sparse[i],
                    )
                    for i, record in enumerate(batch)
                ]
                self.backend.upsert(self.collection(layer), points)
                written += len(points)
        return written

    def flush(self) -> None:
        self.backend.flush()

    def optimize(self) -> None:
        """Build the search indexes now (Qdrant Edge builds them only when asked)."""
        self.backend.optimize()

    def close(self) -> None:
        self.backend.close()

    # -- reading -------------------------------------------------------------------------------

    def _model(self, layer: str, payload: dict[str, Any]) -> BaseModel:
        try:
            return LAYERS[layer].model_validate(payload)
        except ValidationError as exc:
            raise StoreError(f"a stored {layer} record does not match this version's model: {exc}") from exc

    def get(self, layer: str, ids: Sequence[str]) -> list[Any]:
        return [self._model(layer, p.payload) for p in self.backend.retrieve(self.collection(layer), list(ids))]

    def all(self, layer: str, filter: Filter | None = None) -> list[Any]:
        """Every record of a layer that matches ``filter`` (paged through the backend)."""
        found: list[Any] = []
        offset: str | None = None
        while True:
            points, offset = self.backend.scroll(self.collection(layer), filter, limit=1024, offset=offset)
            found.extend(self._model(layer, p.payload) for p in points)
            if offset is None:
                return found

    def count(self, layer: str, filter: Filter | None = None) -> int:
        return self.backend.count(self.collection(layer), filter)

    def search(
        self, layer: str, text: str, *, filter: Filter | None = None, limit: int = 10, active_only: bool = True
    ) -> list[tuple[Any, float]]:
        """Hybrid retrieval of records by a text; stale records are left out unless asked for."""
        if active_only:
            must = dict(filter.must) if filter else {}
            must.setdefault("status", EntryStatus.ACTIVE.value)
            filter = Filter(must=must, must_not=dict(filter.must_not) if filter else {})
        query = self.embedder.embed_query(text)
        hits = self.backend.query(
            self.collection(layer), dense=query.dense, sparse=query.sparse or None, filter=filter, limit=limit
        )
        return [(self._model(layer, hit.payload), hit.score) for hit in hits]

    def server_records(self, server: str) -> dict[str, list[Any]]:
        """Everything stored for one server, by layer (what a resumed or repeated build starts from)."""
        return {layer: self.all(layer, Filter.where(server=server)) for layer in LAYERS}

    def servers(self) -> list[str]:
        return sorted({node.server for node in self.all("tools")})

    def records(self, layers: Iterable[str] = LAYERS) -> dict[str, list[Any]]:
        return {layer: self.all(layer) for layer in layers}
