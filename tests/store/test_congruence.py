"""One suite of store behaviours, run against every backend: edge, local, memory (and remote when
``TOOLATLAS_QDRANT_URL`` names a Qdrant server). Same data, same assertions, same answers."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from toolatlas.config import StoreSettings
from toolatlas.errors import StoreError
from toolatlas.store import CollectionSpec, Filter, LexicalEmbedder, Point, VectorBackend, open_backend

REMOTE_URL = os.environ.get("TOOLATLAS_QDRANT_URL")
ON_DISK = ["edge", "local"]
BACKENDS = [
    "edge",
    "local",
    "memory",
    pytest.param(
        "remote", marks=pytest.mark.skipif(not REMOTE_URL, reason="TOOLATLAS_QDRANT_URL is not set")
    ),
]
DIM = 8
LEXICAL = LexicalEmbedder()

CORPUS = [
    # (id, server, tool, kind, status, tools, text)
    (
        "fs:read:a1",
        "fs",
        "read_file",
        "affordance",
        "active",
        ["read_file"],
        "read_file returns the text of a file",
    ),
    (
        "fs:read:b1",
        "fs",
        "read_file",
        "boundary",
        "active",
        ["read_file"],
        "read_file fails on a path outside the root",
    ),
    (
        "fs:write:a1",
        "fs",
        "write_file",
        "affordance",
        "active",
        ["write_file"],
        "write_file creates or overwrites one file",
    ),
    (
        "fs:move:a1",
        "fs",
        "move_file",
        "affordance",
        "stale",
        ["move_file"],
        "move_file renames a file or a directory",
    ),
    (
        "fs:chain:c1",
        "fs",
        "write_file",
        "co_usage",
        "active",
        ["write_file", "read_file"],
        "write_file then read_file returns the written text",
    ),
    (
        "sql:query:a1",
        "sql",
        "query",
        "affordance",
        "active",
        ["query"],
        "query runs one SELECT statement on sqlite",
    ),
    (
        "sql:query:b1",
        "sql",
        "query",
        "boundary",
        "active",
        ["query"],
        "query rejects an UPDATE statement: read only",
    ),
    (
        "sql:exec:a1",
        "sql",
        "execute",
        "affordance",
        "active",
        ["execute"],
        "execute runs INSERT UPDATE DELETE statements",
    ),
    (
        "git:log:a1",
        "git",
        "git_log",
        "affordance",
        "active",
        ["git_log"],
        "git_log lists the commits of a repository",
    ),
    (
        "git:commit:a1",
        "git",
        "git_commit",
        "affordance",
        "active",
        ["git_commit", "git_add"],
        "git_commit records staged changes with a message",
    ),
    (
        "git:diff:b1",
        "git",
        "git_diff",
        "boundary",
        "stale",
        ["git_diff"],
        "git_diff fails on an unknown revision",
    ),
    (
        "mem:entity:a1",
        "memory",
        "create_entities",
        "affordance",
        "active",
        ["create_entities"],
        "create_entities adds nodes to the knowledge graph",
    ),
]


def dense_for(text: str) -> list[float]:
    """A deterministic pseudo-embedding: enough to test dense retrieval and fusion."""
    seed = int.from_bytes(text.encode()[:8].ljust(8, b"\0"), "little")
    return np.random.default_rng(seed).standard_normal(DIM).round(4).tolist()


def corpus_points() -> list[Point]:
    sparse = LEXICAL.embed_documents([row[-1] for row in CORPUS]).sparse
    return [
        Point(
            id=pid,
            payload={
                "server": server,
                "tool": tool,
                "kind": kind,
                "status": status,
                "tools": tools,
                "text": text,
                "round": i % 3,
            },
            dense=dense_for(text),
            sparse=vector,
        )
        for i, ((pid, server, tool, kind, status, tools, text), vector) in enumerate(
            zip(CORPUS, sparse, strict=True)
        )
    ]


def spec(name: str) -> CollectionSpec:
    return CollectionSpec(
        name=name, dense_dim=DIM, indexed_fields=["server", "tool", "kind", "status", "tools", "round"]
    )


Opener = Callable[[], VectorBackend]


def opener(kind: str, path: Path) -> Opener:
    settings = StoreSettings(backend=kind, path=str(path), url=REMOTE_URL if kind == "remote" else None)
    return lambda: open_backend(settings)


@pytest.fixture(params=BACKENDS)
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture()
def collection() -> str:
    return f"t_{uuid.uuid4().hex[:10]}"


@pytest.fixture()
def store(kind: str, tmp_path: Path, collection: str) -> Iterator[VectorBackend]:
    """An open backend with the corpus loaded into ``collection``."""
    backend = opener(kind, tmp_path / kind)()
    backend.ensure_collection(spec(collection))
    backend.upsert(collection, corpus_points())
    yield backend
    if kind == "remote":
        backend.client.delete_collection(collection)  # type: ignore[attr-defined]
    backend.close()


def ids(points) -> list[str]:
    return [p.id for p in points]


class TestPoints:
    def test_upsert_then_retrieve_by_string_ids(self, store: VectorBackend, collection: str) -> None:
        """Points come back by our own string ids with their payloads intact."""
        got = store.retrieve(collection, ["sql:query:a1", "fs:read:a1"])
        assert ids(got) == ["sql:query:a1", "fs:read:a1"]
        assert got[0].payload["tools"] == ["query"] and got[0].payload["round"] == 5 % 3
        assert "_id" not in got[0].payload

    def test_retrieve_skips_unknown_ids(self, store: VectorBackend, collection: str) -> None:
        """Ids that are not stored are left out, the rest keep the order asked."""
        assert ids(store.retrieve(collection, ["nope", "git:log:a1", "also-nope"])) == ["git:log:a1"]

    def test_retrieve_with_vectors(self, store: VectorBackend, collection: str) -> None:
        """Vectors come back when asked: dense at unit length (cosine), sparse as stored."""
        (point,) = store.retrieve(collection, ["fs:move:a1"], with_vectors=True)
        original = corpus_points()[3]
        expected = np.array(original.dense) / np.linalg.norm(original.dense)
        assert np.allclose(point.dense, expected, atol=1e-5)
        assert point.sparse is not None and sorted(point.sparse.indices) == sorted(original.sparse.indices)

    def test_upsert_of_same_id_replaces(self, store: VectorBackend, collection: str) -> None:
        """Re-upserting an id replaces the point: no duplicate, count unchanged, new payload."""
        before = store.count(collection)
        store.upsert(
            collection,
            [Point(id="fs:read:a1", payload={"server": "fs", "status": "stale"}, dense=[1.0] * DIM)],
        )
        assert store.count(collection) == before
        (point,) = store.retrieve(collection, ["fs:read:a1"])
        assert point.payload == {"server": "fs", "status": "stale"}

    def test_delete(self, store: VectorBackend, collection: str) -> None:
        """Deleted points are gone from retrieve, count and queries; absent ids are ignored."""
        store.delete(collection, ["git:log:a1", "never-stored"])
        assert store.retrieve(collection, ["git:log:a1"]) == []
        assert store.count(collection) == len(CORPUS) - 1
        hits = store.query(collection, sparse=LEXICAL.embed_query("git_log commits").sparse, limit=20)
        assert "git:log:a1" not in ids(hits)


class TestFilters:
    def test_equality(self, store: VectorBackend, collection: str) -> None:
        """A scalar condition keeps points whose field equals it."""
        assert store.count(collection, Filter.where(server="sql")) == 3
        assert store.count(collection, Filter.where(server="fs", kind="affordance")) == 3

    def test_match_any(self, store: VectorBackend, collection: str) -> None:
        """A list condition keeps points whose field equals any of its items."""
        assert store.count(collection, Filter.where(server=["sql", "git"])) == 6
        assert store.count(collection, Filter.where(round=[0, 1])) == 8

    def test_list_field_contains(self, store: VectorBackend, collection: str) -> None:
        """A scalar condition on a list field keeps points whose list contains it."""
        got, _ = store.scroll(collection, Filter.where(tools="read_file"))
        assert sorted(ids(got)) == ["fs:chain:c1", "fs:read:a1", "fs:read:b1"]

    def test_must_not(self, store: VectorBackend, collection: str) -> None:
        """``must_not`` excludes matching points, by value or by any of a list."""
        assert store.count(collection, Filter(must_not={"status": "stale"})) == 10
        assert (
            store.count(
                collection, Filter(must={"server": "fs"}, must_not={"kind": ["boundary", "co_usage"]})
            )
            == 3
        )

    def test_only_indexed_fields_filter(self, store: VectorBackend, collection: str) -> None:
        """A filter on a key outside the collection's indexed fields is refused, not silently empty."""
        with pytest.raises(StoreError, match="indexed fields"):
            store.count(collection, Filter.where(text="anything"))

    def test_query_filter(self, store: VectorBackend, collection: str) -> None:
        """A query only returns points that pass its filter, hybrid or not."""
        query = LEXICAL.embed_query("read a file")
        for dense in (None, dense_for("read a file")):
            hits = store.query(
                collection, dense=dense, sparse=query.sparse, filter=Filter.where(kind="boundary")
            )
            assert hits and all(h.payload["kind"] == "boundary" for h in hits)


class TestScroll:
    def test_pages_cover_every_point_once(self, store: VectorBackend, collection: str) -> None:
        """Following next offsets visits every point exactly once, then stops."""
        extra = [
            Point(id=f"bulk-{i}", payload={"server": "bulk", "n": i}, dense=dense_for(f"b{i}"))
            for i in range(40)
        ]
        store.upsert(collection, extra)
        seen: list[str] = []
        offset: str | None = None
        while True:
            page, offset = store.scroll(collection, limit=7, offset=offset)
            assert len(page) <= 7
            seen += ids(page)
            if offset is None:
                break
        assert len(seen) == len(set(seen)) == len(CORPUS) + 40

    def test_filtered_scroll(self, store: VectorBackend, collection: str) -> None:
        """Scroll with a filter pages through the matching points only."""
        page, offset = store.scroll(collection, Filter.where(server="git"), limit=2)
        rest, last = store.scroll(collection, Filter.where(server="git"), limit=2, offset=offset)
        assert sorted(ids(page + rest)) == ["git:commit:a1", "git:diff:b1", "git:log:a1"] and last is None


class TestRetrieval:
    def test_rare_terms_rank_first(self, kind: str, tmp_path: Path, collection: str) -> None:
        """IDF matters: a term in every document must not outrank a rare one the query also asks for."""
        backend = opener(kind, tmp_path / kind)()
        backend.ensure_collection(CollectionSpec(name=collection))
        texts = ["tool tool tool tool tool output"] + [f"tool entry number {n} of the list" for n in range(8)]
        texts.append("tool computes a checksum of a file")
        sparse = LEXICAL.embed_documents(texts).sparse
        backend.upsert(collection, [Point(id=f"d{i}", sparse=v) for i, v in enumerate(sparse)])
        hits = backend.query(collection, sparse=LEXICAL.embed_query("tool checksum").sparse, limit=3)
        assert hits[0].id == f"d{len(texts) - 1}"
        assert backend.query(collection, sparse=LEXICAL.embed_query("kubernetes").sparse) == []
        backend.close()

    def test_lexical_query_finds_identifiers(self, store: VectorBackend, collection: str) -> None:
        """A query naming a tool in another spelling finds that tool's entries first."""
        hits = store.query(
            collection, sparse=LEXICAL.embed_query("createEntities knowledge graph").sparse, limit=3
        )
        assert hits[0].id == "mem:entity:a1"

    def test_dense_query_ranks_by_cosine(self, store: VectorBackend, collection: str) -> None:
        """A dense query equal to a stored vector finds that point first with score ~1."""
        hits = store.query(collection, dense=dense_for(CORPUS[6][-1]), limit=3)
        assert hits[0].id == CORPUS[6][0] and hits[0].score == pytest.approx(1.0, abs=1e-4)

    def test_results_survive_optimize(self, store: VectorBackend, collection: str) -> None:
        """Building indexes does not change what a query returns."""
        query = LEXICAL.embed_query("file text")
        before = store.query(collection, dense=dense_for("file text"), sparse=query.sparse, limit=5)
        store.optimize()
        after = store.query(collection, dense=dense_for("file text"), sparse=query.sparse, limit=5)
        assert ids(after) == ids(before)


class TestCongruenceAcrossBackends:
    QUERIES: ClassVar[list[str]] = [
        "read a file",
        "sql statement update",
        "git commit message",
        "fails on unknown path",
        "graph nodes",
    ]

    def results(self, kind: str, tmp_path: Path) -> dict[str, list[tuple[str, float]]]:
        backend = opener(kind, tmp_path / kind)()
        name = f"congruence_{uuid.uuid4().hex[:8]}"
        backend.ensure_collection(spec(name))
        backend.upsert(name, corpus_points())
        out = {}
        for text in self.QUERIES:
            sparse = LEXICAL.embed_query(text).sparse
            for label, hits in [
                ("sparse", backend.query(name, sparse=sparse, limit=5)),
                ("hybrid", backend.query(name, dense=dense_for(text), sparse=sparse, limit=5)),
                (
                    "filtered",
                    backend.query(
                        name,
                        dense=dense_for(text),
                        sparse=sparse,
                        limit=5,
                        filter=Filter(must_not={"server": "git"}),
                    ),
                ),
            ]:
                out[f"{label}: {text}"] = [(h.id, h.score) for h in hits]
        if kind == "remote":
            backend.client.delete_collection(name)  # type: ignore[attr-defined]
        backend.close()
        return out

    def test_same_top_results_and_scores_on_every_backend(self, tmp_path: Path) -> None:
        """Sparse, hybrid and filtered hybrid queries give the same ranked ids and scores on each backend."""
        kinds = ["edge", "local", "memory"] + (["remote"] if REMOTE_URL else [])
        reference, *others = [self.results(k, tmp_path) for k in kinds]
        for kind, result in zip(kinds[1:], others, strict=True):
            for query, hits in reference.items():
                assert [i for i, _ in result[query]] == [i for i, _ in hits], f"{kind}: {query}"
                assert [s for _, s in result[query]] == pytest.approx([s for _, s in hits], rel=1e-4), (
                    f"{kind}: {query}"
                )


class TestCollections:
    def test_ensure_collection_is_idempotent(self, store: VectorBackend, collection: str) -> None:
        """Ensuring an existing collection again keeps its points."""
        store.ensure_collection(spec(collection))
        assert store.count(collection) == len(CORPUS)

    def test_mismatched_spec_is_refused(self, store: VectorBackend, collection: str) -> None:
        """An existing collection with another dense size is an error, not a silent reuse."""
        with pytest.raises(StoreError):
            store.ensure_collection(CollectionSpec(name=collection, dense_dim=DIM * 2))

    def test_newly_indexed_field_covers_existing_points(
        self, kind: str, tmp_path: Path, collection: str
    ) -> None:
        """Adding an indexed field to an existing collection makes it filterable for points already stored."""
        backend = opener(kind, tmp_path / kind)()
        backend.ensure_collection(CollectionSpec(name=collection, dense_dim=DIM, indexed_fields=["server"]))
        backend.upsert(collection, corpus_points())
        with pytest.raises(StoreError):
            backend.count(collection, Filter.where(tool="query"))
        backend.ensure_collection(
            CollectionSpec(name=collection, dense_dim=DIM, indexed_fields=["server", "tool"])
        )
        assert backend.count(collection, Filter.where(tool="query")) == 2
        assert backend.count(collection, Filter.where(server="sql")) == 3
        backend.close()

    def test_unknown_collection_is_a_store_error(self, store: VectorBackend) -> None:
        """Touching a collection that was never created raises StoreError."""
        with pytest.raises(StoreError):
            store.count("never_created")

    def test_wrong_vector_size_is_a_store_error(self, store: VectorBackend, collection: str) -> None:
        """Engine errors surface as StoreError."""
        with pytest.raises(StoreError):
            store.upsert(collection, [Point(id="bad", dense=[1.0, 2.0])])


@pytest.mark.parametrize("kind", ON_DISK)
class TestEmbeddedStorage:
    def test_persists_across_close_and_reopen(self, kind: str, tmp_path: Path, collection: str) -> None:
        """Points, payloads and query results survive closing and reopening the store."""
        open_store = opener(kind, tmp_path / "atlas")
        backend = open_store()
        backend.ensure_collection(spec(collection))
        backend.upsert(collection, corpus_points())
        query = LEXICAL.embed_query("git commit")
        before = backend.query(collection, dense=dense_for("git commit"), sparse=query.sparse)
        backend.close()
        backend.close()  # idempotent
        with pytest.raises(StoreError):
            backend.count(collection)
        reopened = open_store()
        with pytest.raises(StoreError, match="ensure_collection"):
            reopened.count(collection)
        reopened.ensure_collection(spec(collection))
        assert reopened.count(collection) == len(CORPUS)
        assert reopened.retrieve(collection, ["sql:exec:a1"])[0].payload["tool"] == "execute"
        assert ids(reopened.query(collection, dense=dense_for("git commit"), sparse=query.sparse)) == ids(
            before
        )
        reopened.close()

    def test_second_process_gets_a_locked_error(self, kind: str, tmp_path: Path, collection: str) -> None:
        """While one process owns the path, another one opening it gets a StoreError that says so."""
        backend = opener(kind, tmp_path / "atlas")()
        backend.ensure_collection(spec(collection))
        script = (
            "import sys\n"
            "from toolatlas.config import StoreSettings\n"
            "from toolatlas.errors import StoreError\n"
            "from toolatlas.store import CollectionSpec, open_backend\n"
            "try:\n"
            f"    b = open_backend(StoreSettings(backend={kind!r}, path=sys.argv[1]))\n"
            f"    b.ensure_collection(CollectionSpec(name={collection!r}, dense_dim={DIM}))\n"
            "except StoreError as exc:\n"
            "    print(exc); sys.exit(3)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / "atlas")],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
        )
        backend.close()
        assert done.returncode == 3, done.stderr
        assert "locked by another process" in done.stdout
