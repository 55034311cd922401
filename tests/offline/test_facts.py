"""Facts read from the real demo seeds: what exists, written with placeholders, changing nothing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolatlas.environments import seeds
from toolatlas.errors import BackendError
from toolatlas.offline.dbfacts import check_clauses
from toolatlas.offline.facts import EnvironmentFacts, extract_facts


def _tree_hash(path: Path) -> str:
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()


class TestDirectoryFacts:
    def test_files_are_placeholder_paths_with_kind_and_size(
        self, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Every file is named under ``${root}`` with its size, extension and text/binary nature."""
        tree = seed_facts["filesystem"].tree
        assert tree is not None and len(tree.files) == 35
        assert all(f.path.startswith("${root}/") for f in tree.files)
        logo = next(f for f in tree.files if f.path == "${root}/assets/logo.png")
        assert (logo.text, logo.extension, logo.size) == (False, ".png", 77)
        assert next(f for f in tree.files if f.path.endswith("notes/meeting notes.md")).text

    def test_read_only_empty_and_nested_folders_are_known(
        self, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """The read-only LICENSE, the empty folder and deep folders are all reported."""
        tree = seed_facts["filesystem"].tree
        assert tree is not None
        assert [f.path for f in tree.read_only_files] == ["${root}/LICENSE"]
        assert tree.empty_folders == ["${root}/empty"]
        assert "${root}/docs/guides/advanced/tuning" in tree.folders
        assert tree.folders.index("${root}/docs") < tree.folders.index("${root}/docs/guides")

    def test_text_files_keep_a_few_exact_lines(
        self, seed_facts: dict[str, EnvironmentFacts], seed_paths: dict[str, Path]
    ) -> None:
        """Sample lines are verbatim lines of the file, usable as search-and-replace anchors."""
        tree = seed_facts["filesystem"].tree
        assert tree is not None
        readme = next(f for f in tree.files if f.path == "${root}/README.md")
        content = (seed_paths["filesystem"] / "README.md").read_text().splitlines()
        assert readme.lines and all(line in content for line in readme.lines)

    def test_reading_changes_nothing(self, seed_paths: dict[str, Path]) -> None:
        """Extracting facts is a pure read of the snapshot."""
        before = {server: _tree_hash(path) for server, path in seed_paths.items()}
        for server, path in seed_paths.items():
            kind = {"filesystem": "directory", "memory": "json_file"}.get(server, server)
            extract_facts(kind, path)
        assert {server: _tree_hash(path) for server, path in seed_paths.items()} == before


class TestSqliteFacts:
    def test_tables_views_and_row_counts(self, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """Tables come in creation order with their row counts; the view is listed apart."""
        db = seed_facts["sqlite"].database
        assert db is not None and db.dialect == "sqlite"
        assert [(t.name, t.row_count) for t in db.tables] == [
            ("customers", 20),
            ("products", 15),
            ("orders", 40),
            ("order_items", 100),
        ]
        assert db.views == ["order_totals"]

    def test_column_constraints(self, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """Primary key, NOT NULL, UNIQUE, DEFAULT, CHECK and rowid-alias facts are read per column."""
        db = seed_facts["sqlite"].database
        assert db is not None
        products = db.table("products")
        assert products is not None
        sku, price, stock, ident = (products.column(n) for n in ("sku", "price_cents", "stock", "id"))
        assert sku and sku.unique and sku.not_null
        assert price and price.checks == ["price_cents > 0"]
        assert stock and stock.default == "0"
        assert ident and ident.auto and ident.primary_key

    def test_composite_keys_and_foreign_keys(self, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """A composite primary key keeps its existing tuples; foreign keys name the parent key."""
        db = seed_facts["sqlite"].database
        assert db is not None
        items = db.table("order_items")
        assert items is not None
        assert items.primary_key == ["order_id", "product_id"]
        assert len(items.unique[0].existing) == 100
        assert [(fk.columns, fk.table, fk.ref_columns) for fk in items.foreign_keys] == [
            (["product_id"], "products", ["id"]),
            (["order_id"], "orders", ["id"]),
        ]
        assert set(db.referenced_tables) == {"products", "orders", "customers"}

    def test_samples_are_json_safe(self, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """Sample rows survive a JSON round trip unchanged."""
        db = seed_facts["sqlite"].database
        assert db is not None
        rows = [row for t in db.tables for row in t.sample_rows]
        assert rows and json.loads(json.dumps(rows)) == rows

    def test_check_clauses_balance_parentheses(self) -> None:
        """CHECK expressions with nested parentheses are cut at their own closing parenthesis."""
        sql = "CREATE TABLE t (a INT CHECK (length(a) = 2), b TEXT CHECK (b IN ('x', 'y')))"
        assert check_clauses(sql) == ["length(a) = 2", "b IN ('x', 'y')"]


class TestGitFacts:
    def test_refs_and_history(self, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """The current branch comes first, the tag is known, HEAD's newest commit leads the history."""
        repo = seed_facts["git"].repository
        assert repo is not None
        assert repo.current_branch == "main" and repo.branches[0] == "main"
        assert set(repo.branches) == {"main", "feature/search", "bugfix/typo"}
        assert repo.tags == ["v0.1.0"] and not repo.clean
        assert repo.changed_files == ["${repo}/src/greeter/core.py", "${repo}/NOTES.md"]
        assert repo.commits[0].message == "Start 0.2.0 development"
        assert len(repo.commits) == 10 and all(len(c.sha) == 40 and c.date for c in repo.commits)

    def test_paths_use_the_repo_placeholder_and_skip_git_internals(
        self, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Tracked files and the work tree are under ``${repo}``; nothing of ``.git`` is listed."""
        facts = seed_facts["git"]
        assert facts.root == "${repo}" and facts.tree is not None and facts.repository is not None
        assert "${repo}/src/greeter/core.py" in facts.repository.tracked_files
        assert not any("/.git/" in f.path for f in facts.tree.files)


class TestJsonFileFacts:
    def test_knowledge_graph(self, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """Entities with types and observations, and typed relations, are read from JSON lines."""
        graph = seed_facts["memory"].graph
        assert graph is not None
        assert len(graph.entities) == 12 and len(graph.relations) == 16
        assert "Zoë Müller" in [e.name for e in graph.entities]
        assert graph.entity_types == ["person", "organization", "project", "location"]
        assert "works_at" in graph.relation_types

    def test_json_object_document_gives_its_keys(self, tmp_path: Path) -> None:
        """A JSON object that is not a graph is described by its top-level keys."""
        path = tmp_path / "state.json"
        path.write_text(json.dumps({"zeta": 1, "alpha": {"b": 2}}))
        facts = extract_facts("json_file", path)
        assert facts.graph is None and facts.document_keys == ["alpha", "zeta"]

    def test_a_document_of_records_gives_their_scalar_fields(self, tmp_path: Path) -> None:
        """Records keyed by id at any depth are kept with their scalar fields (a list, a nested object, a long
        note and a flag are not fields); an object of one field is no record."""
        path = tmp_path / "state.json"
        path.write_text(json.dumps({
            "vendors": {"V-1": {"vendor_id": "V-1", "name": "Hallam Timber", "active": True, "tags": ["oak"]}},
            "orders": {"PO-7": {"po_number": "PO-7", "vendor_id": "V-1", "total": 2310.0, "note": "x" * 200,
                                "lines": [{"sku": "OAK-2", "qty": 3}]}},
            "settings": {"limit": 5000}}))
        facts = extract_facts("json_file", path)
        assert facts.records == [{"vendor_id": "V-1", "name": "Hallam Timber"},
                                 {"po_number": "PO-7", "vendor_id": "V-1", "total": 2310.0}, {"sku": "OAK-2", "qty": 3}]

    def test_no_environment_has_no_facts(self) -> None:
        """Kind ``none`` yields empty facts."""
        facts = extract_facts("none", None)
        assert (facts.tree, facts.database, facts.repository, facts.graph) == (None, None, None, None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def library_dsn() -> Iterator[str]:
    """The demo library loaded into a private throwaway cluster on a free port."""
    import psycopg

    from toolatlas.config.catalogue import PostgresSettings
    from toolatlas.environments.pgcluster import PostgresCluster, find_bindir
    from toolatlas.home import Home

    try:
        find_bindir(None)
    except BackendError as exc:
        pytest.skip(f"PostgreSQL server binaries not found: {exc}")
    root = Path(tempfile.mkdtemp(prefix="toolatlas-offline-pg-"))
    os.chmod(root, 0o755)
    cluster = PostgresCluster.for_settings(PostgresSettings(port=_free_port()), Home(root))
    cluster.ensure_running()
    try:
        script = root / "library.sql"
        seeds.generate("demo.postgres", "postgres", script)
        with psycopg.connect(cluster.uri("postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE library")
        with psycopg.connect(cluster.uri("library"), autocommit=True) as conn:
            conn.execute(script.read_text())
        yield cluster.uri("library")
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.postgres
class TestPostgresFacts:
    def test_tables_constraints_and_views(self, library_dsn: str) -> None:
        """Identity keys are automatic, foreign keys and CHECKs are read, the view is listed."""
        facts = extract_facts("postgres", library_dsn)
        db = facts.database
        assert db is not None and db.dialect == "postgres" and facts.root == "${database_uri}"
        assert [t.name for t in db.tables] == ["authors", "books", "members", "loans"]
        assert db.views == ["book_availability"]
        books = db.table("books")
        assert books is not None
        author_id, isbn, ident = books.column("author_id"), books.column("isbn"), books.column("id")
        assert author_id and author_id.references and author_id.references.table == "authors"
        assert isbn and isbn.unique and isbn.checks and "97[89]" in isbn.checks[0]
        assert ident and ident.auto
        assert sum(t.row_count for t in db.tables) == 50

    def test_an_open_connection_is_left_open_and_dates_are_text(self, library_dsn: str) -> None:
        """Given a connection, facts are read through it; dates in samples are ISO strings."""
        import psycopg

        with psycopg.connect(library_dsn) as conn:
            facts = extract_facts("postgres", conn)
            assert not conn.closed
        members = facts.database.table("members") if facts.database else None
        assert members is not None
        assert isinstance(members.sample_rows[0]["joined_on"], str)
