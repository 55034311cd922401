"""The store's value types and the rank fusion every backend shares."""

from __future__ import annotations

import uuid

import pytest
from pydantic import ValidationError

from toolatlas.store import (
    CollectionSpec,
    Filter,
    Point,
    SparseVector,
    point_uuid,
    reciprocal_rank_fusion,
)
from toolatlas.store.fusion import top_hits


def hit(point_id: str, score: float) -> tuple[str, float]:
    return point_id, score


class TestTypes:
    def test_point_ids_map_to_stable_uuids(self) -> None:
        """Our string ids become UUIDv5s, the same on every call and every machine."""
        assert point_uuid("entry:abc") == point_uuid("entry:abc") != point_uuid("entry:abd")
        assert uuid.UUID(point_uuid("entry:abc")).version == 5

    def test_reserved_payload_key(self) -> None:
        """The payload key that carries the id inside Qdrant cannot be used by callers."""
        with pytest.raises(ValidationError):
            Point(id="x", payload={"_id": "y"})

    def test_sparse_vectors_are_checked(self) -> None:
        """Sparse vectors need parallel lists and unique indices."""
        with pytest.raises(ValidationError):
            SparseVector(indices=[1, 2], values=[1.0])
        with pytest.raises(ValidationError):
            SparseVector(indices=[1, 1], values=[1.0, 2.0])

    def test_filter_values(self) -> None:
        """Filters take strings, integers and homogeneous lists; not bools, floats, mixed or empty lists."""
        Filter(must={"server": "fs", "round": 2, "kind": ["a", "b"], "n": [1, 2]})
        for bad in ({"flag": True}, {"x": 1.5}, {"x": ["a", 1]}, {"x": []}):
            with pytest.raises(ValidationError):
                Filter(must=bad)

    def test_collection_specs(self) -> None:
        """Collection names are safe directory names and a collection has at least one vector."""
        with pytest.raises(ValidationError):
            CollectionSpec(name="../etc")
        with pytest.raises(ValidationError):
            CollectionSpec(name="empty", dense_dim=None, sparse=False)


class TestFusion:
    def test_reciprocal_rank_fusion_scores(self) -> None:
        """Each list adds 1 / (rank + 2); hits in both lists add up."""
        fused = reciprocal_rank_fusion([[hit("a", 0.9), hit("b", 0.8)], [hit("b", 5.0), hit("c", 4.0)]], 10)
        assert fused == [("b", 1 / 3 + 1 / 2), ("a", 1 / 2), ("c", 1 / 3)]

    def test_ties_share_a_rank(self) -> None:
        """Equal scores share a rank, so the order an engine lists ties in does not matter."""
        one = reciprocal_rank_fusion([[hit("a", 2.0), hit("b", 2.0), hit("c", 1.0)]], 10)
        two = reciprocal_rank_fusion([[hit("b", 2.0), hit("a", 2.0), hit("c", 1.0)]], 10)
        assert one == two == [("a", 0.5), ("b", 0.5), ("c", 0.25)]

    def test_top_hits_break_ties_by_key(self) -> None:
        """Single-vector results are ordered by score, then point key."""
        assert top_hits([hit("z", 1.0), hit("m", 2.0), hit("a", 1.0)], 2) == [("m", 2.0), ("a", 1.0)]

    def test_uuid_objects_and_strings_order_alike(self) -> None:
        """Edge hands back UUID objects, qdrant-client strings: tie-breaking orders them the same."""
        keys = [uuid.UUID(point_uuid(f"p{i}")) for i in range(50)]
        assert [str(k) for k in sorted(keys)] == sorted(str(k) for k in keys)

    def test_agrees_with_qdrant_native_rrf_without_ties(self) -> None:
        """With no tied scores in either list, our fused scores equal Qdrant's own prefetch + RRF query."""
        from qdrant_client import models as qm

        from toolatlas.config import StoreSettings
        from toolatlas.store import open_backend

        backend = open_backend(StoreSettings(backend="memory"))
        backend.ensure_collection(CollectionSpec(name="c", dense_dim=3, sparse=True))
        points = [
            Point(
                id=f"p{i}",
                dense=[1.0, i * 0.37, (i % 4) * 0.21],
                sparse=SparseVector(indices=[1, 2 + i % 3], values=[1.0 + i * 0.01, 0.5 + i * 0.03]),
            )
            for i in range(12)
        ]
        backend.upsert("c", points)
        query_dense, query_sparse = [0.3, 1.0, 0.2], SparseVector(indices=[1, 3], values=[1.0, 1.0])
        ours = backend.query("c", dense=query_dense, sparse=query_sparse, limit=12)
        native = backend.client.query_points(  # type: ignore[attr-defined]
            "c",
            limit=12,
            query=qm.RrfQuery(rrf=qm.Rrf(k=2)),
            with_payload=True,
            prefetch=[
                qm.Prefetch(limit=64, query=query_dense, using="dense"),
                qm.Prefetch(
                    limit=64, query=qm.SparseVector(indices=[1, 3], values=[1.0, 1.0]), using="sparse"
                ),
            ],
        ).points
        assert {h.id: round(h.score, 6) for h in ours} == {
            p.payload["_id"]: round(p.score, 6) for p in native
        }
        assert [round(h.score, 6) for h in ours] == [
            round(p.score, 6) for p in native
        ]  # same ranking up to ties
        backend.close()
