"""The store's vocabulary: points with JSON payloads, their vectors, filters and collections.

Point ids are our own strings (content-derived hashes). Qdrant wants an integer or a UUID, so
:func:`point_uuid` maps each id to a UUIDv5, deterministically, and the original id travels in
the payload under :data:`ID_KEY`; backends strip it again on the way out.
"""

from __future__ import annotations

import re
import uuid
from functools import lru_cache
from typing import Any, NamedTuple

from pydantic import Field, StrictInt, StrictStr, field_validator, model_validator

from toolatlas.errors import StoreError
from toolatlas.models import Frozen

__all__ = [
    "ID_KEY",
    "CollectionSpec",
    "DocumentEmbeddings",
    "Filter",
    "Point",
    "QueryEmbedding",
    "Scalar",
    "ScoredPoint",
    "SparseVector",
    "point_uuid",
]

ID_KEY = "_id"
"""Payload key that holds a point's own string id inside Qdrant (reserved: payloads must not use it)."""

DENSE = "dense"
SPARSE = "sparse"
"""Names of the two vectors in every collection."""

_NAMESPACE = uuid.UUID("5b0c1a52-6f8e-4d2e-9a51-3c7d2f0e8a11")
_COLLECTION_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")

Scalar = str | int
_Condition = StrictStr | StrictInt | list[StrictStr] | list[StrictInt]


@lru_cache(maxsize=1 << 16)
def point_uuid(point_id: str) -> str:
    """The Qdrant point id for one of our ids: a UUIDv5 in a fixed namespace."""
    return str(uuid.uuid5(_NAMESPACE, point_id))


class SparseVector(Frozen):
    """A sparse vector: parallel lists of unique dimension indices and their weights."""

    indices: list[int] = Field(default_factory=list)
    values: list[float] = Field(default_factory=list)

    @model_validator(mode="after")
    def _parallel(self) -> SparseVector:
        if len(self.indices) != len(self.values):
            raise ValueError(f"{len(self.indices)} indices but {len(self.values)} values")
        if len(set(self.indices)) != len(self.indices):
            raise ValueError("sparse indices must be unique")
        return self

    def __bool__(self) -> bool:
        return bool(self.indices)


class Point(Frozen):
    """One stored thing: our string id, a JSON payload, and optional dense and sparse vectors."""

    id: str = Field(min_length=1)
    payload: dict[str, Any] = Field(default_factory=dict)
    dense: list[float] | None = None
    sparse: SparseVector | None = None

    @field_validator("payload")
    @classmethod
    def _no_reserved_key(cls, payload: dict[str, Any]) -> dict[str, Any]:
        if ID_KEY in payload:
            raise ValueError(f"payload key {ID_KEY!r} is reserved for the point id")
        return payload

    def stored_payload(self) -> dict[str, Any]:
        """The payload as it is written to Qdrant: with our id under :data:`ID_KEY`."""
        return {**self.payload, ID_KEY: self.id}


class ScoredPoint(Frozen):
    """A query hit: the point's id and payload, and its score (similarity, or fused rank score)."""

    id: str
    payload: dict[str, Any]
    score: float


class Filter(Frozen):
    """A conjunction of payload conditions.

    ``must={"server": "git"}`` keeps points whose ``server`` equals ``"git"`` — or, when the field
    holds a list (``tools``), whose list contains it. A list value matches any of its items:
    ``must={"kind": ["affordance", "boundary"]}``. ``must_not`` excludes points the same way.
    Values are strings or integers (a list is all strings or all integers). Booleans are refused:
    qdrant-edge-py 0.9 reads ``True`` as the integer 1, which never matches a stored boolean, so a
    flag that filters must be stored as a keyword (``status = "active"``).
    """

    must: dict[str, _Condition] = Field(default_factory=dict)
    must_not: dict[str, _Condition] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _no_empty_lists(self) -> Filter:
        for key, value in [*self.must.items(), *self.must_not.items()]:
            if isinstance(value, list) and not value:
                raise ValueError(f"filter on {key!r}: an empty list matches nothing")
        return self

    def __bool__(self) -> bool:
        return bool(self.must or self.must_not)

    @property
    def keys(self) -> set[str]:
        """The payload keys this filter looks at."""
        return set(self.must) | set(self.must_not)

    @classmethod
    def where(cls, **must: Scalar | list[str] | list[int]) -> Filter:
        """Shorthand for a filter with ``must`` conditions only."""
        return cls(must=must)


class CollectionSpec(Frozen):
    """A collection: its name, the dense vector size (None: sparse only) and the indexed payload keys.

    Dense vectors use cosine similarity; the sparse vector uses Qdrant's IDF modifier, so the
    stored term weights are multiplied by each term's inverse document frequency at query time.
    ``indexed_fields`` are the payload keys filters may use (server, tool, kind, status…); they
    get payload indexes, and a filter on any other key is refused on every backend alike.
    """

    name: str
    dense_dim: int | None = Field(None, gt=0)
    sparse: bool = True
    indexed_fields: list[str] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, name: str) -> str:
        if not _COLLECTION_NAME.match(name):
            raise ValueError(f"collection name {name!r}: use lowercase letters, digits, '_' and '-'")
        return name

    def check_filter(self, filter: Filter | None) -> None:
        """Refuse a filter on keys that are not among this collection's indexed fields."""
        if filter and (unknown := filter.keys - set(self.indexed_fields)):
            raise StoreError(
                f"collection {self.name!r} filters on its indexed fields only "
                f"({', '.join(self.indexed_fields)}), "
                f"not on {', '.join(sorted(unknown))}: add them to indexed_fields"
            )

    @model_validator(mode="after")
    def _has_a_vector(self) -> CollectionSpec:
        if self.dense_dim is None and not self.sparse:
            raise ValueError(f"collection {self.name!r} needs a dense or a sparse vector")
        return self


def stored_point(qdrant_id: Any, payload: dict[str, Any] | None, vector: Any) -> Point:
    """A point read back from Qdrant (either engine): our id out of the payload, vectors if returned."""
    data = dict(payload or {})
    point_id = str(data.pop(ID_KEY, qdrant_id))
    dense = sparse = None
    if isinstance(vector, dict):
        dense = vector.get(DENSE)
        if (raw := vector.get(SPARSE)) is not None:
            sparse = SparseVector.model_construct(indices=list(raw.indices), values=list(raw.values))
    return Point.model_construct(id=point_id, payload=data, dense=dense, sparse=sparse)


def stored_hit(qdrant_id: Any, payload: dict[str, Any] | None, score: float) -> ScoredPoint:
    """A query hit read back from Qdrant (either engine)."""
    data = dict(payload or {})
    point_id = str(data.pop(ID_KEY, qdrant_id))
    return ScoredPoint.model_construct(id=point_id, payload=data, score=float(score))


class DocumentEmbeddings(NamedTuple):
    """Embeddings of a batch of documents: dense vectors (None without a dense model) and sparse ones."""

    dense: list[list[float]] | None
    sparse: list[SparseVector]


class QueryEmbedding(NamedTuple):
    """Embedding of one query: a dense vector (None without a dense model) and a sparse one."""

    dense: list[float] | None
    sparse: SparseVector
