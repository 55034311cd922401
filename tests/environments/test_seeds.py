"""The deterministic seed generators: registry, reproducibility, content, and use through the environments."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sqlite3
import stat
import struct
import subprocess
import zipfile
import zlib
from pathlib import Path
from xml.etree import ElementTree

import pytest

from toolatlas.environments import (
    DirectoryEnvironment,
    GitEnvironment,
    JsonFileEnvironment,
    SqliteEnvironment,
    seeds,
)
from toolatlas.environments.seeds import library
from toolatlas.errors import SandboxError, SnapshotError

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SEED_ENTRIES = {
    "demo.filesystem": ("directory", "tree"),
    "demo.sqlite": ("sqlite", "shop.db"),
    "demo.git": ("git", "repo"),
    "demo.memory": ("json_file", "memory.jsonl"),
    "demo.postgres": ("postgres", "library.sql"),
    "wild.spreadsheets": ("directory", "sheets"),
    "wild.documents": ("directory", "documents"),
    "wild.todo": ("directory", "todo"),
    "wild.tasks": ("json_file", "tasks.json"),
    "wild.jsproject": ("directory", "project"),
}


def build(name: str, parent: Path) -> Path:
    kind, entry = SEED_ENTRIES[name]
    parent.mkdir(parents=True, exist_ok=True)
    seeds.generate(name, kind, parent / entry)
    return parent / entry


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null"}
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env, timeout=30
    ).stdout


def fingerprint(path: Path, *, exclude: frozenset[str] = frozenset()) -> dict[str, tuple[int, int, bytes]]:
    """``relative path → (mode, mtime, bytes)`` of a file or of everything under a folder."""
    if path.is_file():
        info = path.stat()
        return {".": (info.st_mode, int(info.st_mtime), path.read_bytes())}
    entries = {}
    for folder, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d not in exclude]
        for name in dirs + files:
            full = Path(folder) / name
            info = full.lstat()
            data = full.read_bytes() if full.is_file() else b""
            entries[str(full.relative_to(path))] = (info.st_mode, int(info.st_mtime), data)
    return entries


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every seed built once, for the content tests."""
    root = tmp_path_factory.mktemp("seeds")
    names = [n for n in SEED_ENTRIES if n != "demo.git" or shutil.which("git")]
    return {name: build(name, root / name.replace(".", "_")) for name in names}


class TestRegistry:
    def test_available_maps_every_seed_to_its_kind(self):
        """available() lists each built-in seed with the environment kind it produces."""
        assert seeds.available() == {name: kind for name, (kind, _) in SEED_ENTRIES.items()}

    def test_unknown_seed_lists_known_seeds(self, tmp_path):
        """An unknown seed name is a SnapshotError that names it and lists the known seeds."""
        with pytest.raises(SnapshotError, match=r"unknown seed 'demo\.nope'.*demo\.filesystem.*demo\.sqlite"):
            seeds.generate("demo.nope", "directory", tmp_path / "x")
        assert issubclass(SnapshotError, SandboxError)

    def test_kind_mismatch_names_both_kinds(self, tmp_path):
        """Asking a seed for another kind is a SnapshotError naming both kinds and the asked kind's seeds."""
        with pytest.raises(
            SnapshotError, match=r"'demo\.git' builds a 'git' environment, not 'sqlite'.*demo\.sqlite"
        ):
            seeds.generate("demo.git", "sqlite", tmp_path / "x.db")
        assert not (tmp_path / "x.db").exists()

    def test_existing_destination_is_not_overwritten(self, tmp_path):
        """A seed refuses to write over an existing entry."""
        (tmp_path / "memory.jsonl").write_text("keep")
        with pytest.raises(SnapshotError, match="will not overwrite"):
            seeds.generate("demo.memory", "json_file", tmp_path / "memory.jsonl")
        assert (tmp_path / "memory.jsonl").read_text() == "keep"


class TestDeterminism:
    @pytest.mark.parametrize("name", ["demo.filesystem", "demo.sqlite", "demo.memory", "demo.postgres"])
    def test_two_builds_are_byte_identical(self, tmp_path, name):
        """Building a seed twice gives the same bytes, modes and mtimes for every entry."""
        first, second = build(name, tmp_path / "a"), build(name, tmp_path / "b")
        assert fingerprint(first) == fingerprint(second)

    @needs_git
    def test_git_builds_have_identical_refs_and_work_trees(self, tmp_path):
        """Two builds of demo.git have the same commit hash for every ref, and the same work tree."""
        first, second = build("demo.git", tmp_path / "a"), build("demo.git", tmp_path / "b")
        refs = "--format=%(refname) %(objectname) %(*objectname)"
        assert git(first, "for-each-ref", refs) == git(second, "for-each-ref", refs)
        assert git(first, "rev-parse", "HEAD") == git(second, "rev-parse", "HEAD")
        assert fingerprint(first, exclude=frozenset({".git"})) == fingerprint(
            second, exclude=frozenset({".git"})
        )

    @needs_git
    def test_git_hashes_are_pinned(self, built):
        """The commit hash of main is the same on every machine (a seed change must update this test)."""
        assert (
            git(built["demo.git"], "rev-parse", "main").strip() == "d632ebe996b21ff2edc619cde31efe2d6e515938"
        )


class TestFilesystemSeed:
    def test_tree_holds_the_awkward_entries(self, built):
        """The tree has a hidden file, spaced and non-ASCII names, empty and 4-deep folders, 30-50 files."""
        root = built["demo.filesystem"]
        files = [p for p in root.rglob("*") if p.is_file()]
        assert 30 <= len(files) <= 50
        for rel in (
            ".gitignore",
            ".env.example",
            "README.md",
            "config/settings.yaml",
            "notes/meeting notes.md",
            "notes/réunion 2024.md",
            "docs/guides/advanced/tuning/caching.md",
            "src/inventory/__init__.py",
            "src/inventory/reports/monthly.py",
            "data/archive/2023/q4/summary.json",
        ):
            assert (root / rel).is_file(), rel
        assert (root / "empty").is_dir() and not any((root / "empty").iterdir())

    def test_modes_are_explicit(self, built):
        """LICENSE is read-only, the deploy script executable, the rest 0644/0755 whatever the umask."""
        root = built["demo.filesystem"]
        assert stat.S_IMODE((root / "LICENSE").stat().st_mode) == 0o444
        assert stat.S_IMODE((root / "scripts/deploy.sh").stat().st_mode) == 0o755
        assert stat.S_IMODE((root / "README.md").stat().st_mode) == 0o644
        assert stat.S_IMODE((root / "empty").stat().st_mode) == 0o755

    def test_data_files_parse(self, built):
        """products.csv has 200 rows (some quoted names), the JSON files parse."""
        root = built["demo.filesystem"]
        with open(root / "data/products.csv", newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == 200 and len({r["sku"] for r in rows}) == 200
        assert any("," in r["name"] and '"' in r["name"] for r in rows)
        for rel in (
            "data/categories.json",
            "data/orders/sample_order.json",
            "data/archive/2023/q4/summary.json",
        ):
            json.loads((root / rel).read_text(encoding="utf-8"))

    def test_log_is_about_150_kb_and_errors_are_extracted(self, built):
        """logs/app.log is ~150 KB of time-ordered lines; error.log holds exactly its ERROR lines."""
        logs = built["demo.filesystem"] / "logs"
        app = (logs / "app.log").read_text()
        assert 140_000 <= len(app) <= 160_000
        stamps = [line.split(" ", 1)[0] for line in app.splitlines()]
        assert stamps == sorted(stamps)
        errors = [line for line in app.splitlines() if line.split()[1] == "ERROR"]
        assert errors and (logs / "error.log").read_text().splitlines() == errors

    def test_logo_is_a_valid_png(self, built):
        """assets/logo.png is a well-formed 4x4 RGB PNG (checksums and pixel data)."""
        data = (built["demo.filesystem"] / "assets/logo.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        chunks, offset = {}, 8
        while offset < len(data):
            (length,) = struct.unpack(">I", data[offset : offset + 4])
            kind, body = data[offset + 4 : offset + 8], data[offset + 8 : offset + 8 + length]
            assert struct.unpack(">I", data[offset + 8 + length : offset + 12 + length])[0] == zlib.crc32(
                kind + body
            )
            chunks[kind], offset = body, offset + 12 + length
        assert struct.unpack(">II", chunks[b"IHDR"][:8]) == (4, 4)
        assert len(zlib.decompress(chunks[b"IDAT"])) == 4 * (1 + 4 * 3)


class TestSqliteSeed:
    @pytest.fixture
    def conn(self, built):
        conn = sqlite3.connect(built["demo.sqlite"])
        conn.execute("PRAGMA foreign_keys = ON")
        yield conn
        conn.close()

    def test_tables_hold_the_promised_rows(self, conn):
        """20 customers, 15 products, 40 orders and 100 order items."""
        counts = {
            t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("customers", "products", "orders", "order_items")
        }
        assert counts == {"customers": 20, "products": 15, "orders": 40, "order_items": 100}

    def test_foreign_keys_are_declared_and_satisfied(self, conn):
        """orders → customers and order_items → orders/products are declared, unviolated foreign keys."""

        def targets(table: str) -> set[str]:
            return {row[2] for row in conn.execute(f"PRAGMA foreign_key_list({table})")}

        assert targets("orders") == {"customers"}
        assert targets("order_items") == {"orders", "products"}
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []

    def test_constraints_are_enforced(self, conn):
        """UNIQUE, CHECK, NOT NULL and FOREIGN KEY constraints reject bad rows."""
        bad = [
            "INSERT INTO customers VALUES (99, 'grace.2@example.com', 'X', 'US', '2024-05-01')",
            "INSERT INTO products (sku, name, category, price_cents) VALUES ('NEW-1', 'X', 'Office', 0)",
            "INSERT INTO orders (customer_id, ordered_at, status) VALUES (1, '2024-05-01', 'lost')",
            "INSERT INTO orders (customer_id, ordered_at) VALUES (1, NULL)",
            "INSERT INTO orders (customer_id, ordered_at) VALUES (999, '2024-05-01')",
        ]
        for statement in bad:
            with pytest.raises(sqlite3.IntegrityError):
                conn.execute(statement)

    def test_view_and_indexes_exist(self, conn):
        """order_totals sums every order item; indexes cover the foreign-key columns."""
        view_total = conn.execute("SELECT sum(total_cents), count(*) FROM order_totals").fetchone()
        item_total = conn.execute("SELECT sum(quantity * unit_price_cents) FROM order_items").fetchone()[0]
        assert view_total == (item_total, 40)
        indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"idx_orders_customer_id", "idx_order_items_product_id"} <= indexes


@needs_git
class TestGitSeed:
    def test_history_branches_and_tag(self, built):
        """main has 7 commits, feature/search is 2 ahead, bugfix/typo 1 ahead, v0.1.0 is an annotated tag."""
        repo = built["demo.git"]
        assert git(repo, "rev-list", "--count", "main").strip() == "7"
        assert git(repo, "rev-list", "--count", "main..feature/search").strip() == "2"
        assert git(repo, "rev-list", "--count", "main..bugfix/typo").strip() == "1"
        assert git(repo, "cat-file", "-t", "v0.1.0").strip() == "tag"
        assert git(repo, "merge-base", "--is-ancestor", "v0.1.0", "main") == ""

    def test_work_in_progress_on_main(self, built):
        """HEAD is main with one unstaged modification and one untracked file, and files live in subfolders."""
        repo = built["demo.git"]
        assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
        assert git(repo, "status", "--porcelain").splitlines() == [" M src/greeter/core.py", "?? NOTES.md"]
        tracked = git(repo, "ls-files").splitlines()
        assert ".gitignore" in tracked and "src/greeter/core.py" in tracked
        assert "recieve" in (repo / "README.md").read_text()


class TestMemorySeed:
    def test_file_is_the_memory_servers_json_lines(self, built):
        """Entities then relations, one compact object a line in saveGraph's key order, no final newline."""
        text = built["demo.memory"].read_text(encoding="utf-8")
        assert not text.endswith("\n")
        records = [json.loads(line) for line in text.split("\n")]
        kinds = [r["type"] for r in records]
        assert kinds == sorted(kinds)  # "entity" < "relation": all entities come first
        entities = [r for r in records if r["type"] == "entity"]
        relations = [r for r in records if r["type"] == "relation"]
        assert len(entities) == 12 and len(relations) >= 15
        assert all(list(r) == ["type", "name", "entityType", "observations"] for r in entities)
        assert all(list(r) == ["type", "from", "to", "relationType"] for r in relations)
        assert all(json.dumps(r, ensure_ascii=False, separators=(",", ":")) in text for r in records)

    def test_relations_join_known_entities(self, built):
        """Every relation's endpoints are entities, names are unique, and each entity has observations."""
        records = [json.loads(line) for line in built["demo.memory"].read_text(encoding="utf-8").split("\n")]
        names = [r["name"] for r in records if r["type"] == "entity"]
        assert len(names) == len(set(names))
        assert {e for r in records if r["type"] == "relation" for e in (r["from"], r["to"])} <= set(names)
        assert all(r["observations"] for r in records if r["type"] == "entity")


class TestWildSeeds:
    def test_office_files_are_zips_of_well_formed_xml(self, built):
        """Every part of the workbook and the documents parses as XML; the workbook names both sheets."""
        for path in [built["wild.spreadsheets"] / "sales.xlsx", *built["wild.documents"].glob("*.docx")]:
            with zipfile.ZipFile(path) as archive:
                assert archive.testzip() is None
                for name in archive.namelist():
                    ElementTree.fromstring(archive.read(name))
                if path.suffix == ".xlsx":
                    assert b'name="Sales"' in archive.read("xl/workbook.xml")
                    assert b'name="Targets"' in archive.read("xl/workbook.xml")
                    assert b"<v>2400.0</v>" in archive.read("xl/worksheets/sheet1.xml")

    def test_task_file_holds_every_workflow_step(self, built):
        """One request has a task done and approved, one done only, one open; another is completed."""
        requests = json.loads(built["wild.tasks"].read_text(encoding="utf-8"))["requests"]
        tasks = [t for r in requests for t in r["tasks"]]
        assert {(t["done"], t["approved"]) for t in tasks} == {(True, True), (True, False), (False, False)}
        assert [r["completed"] for r in requests] == [False, False, True]
        assert len({t["id"] for t in tasks}) == len(tasks)

    def test_todo_txt_has_priorities_projects_and_a_done_task(self, built):
        """todo.txt lines carry priorities, +projects and @contexts; one is completed (``x`` first)."""
        lines = (built["wild.todo"] / "todo.txt").read_text(encoding="utf-8").splitlines()
        assert any(line.startswith("(A) ") for line in lines) and any(line.startswith("x ") for line in lines)
        assert all("+" in line and "@" in line for line in lines)

    def test_js_project_has_a_flat_config_and_files_to_lint(self, built):
        """The ESLint flat config sits at the root beside sources that are clean, broken and ignored."""
        root = built["wild.jsproject"]
        assert "module.exports = [" in (root / "eslint.config.js").read_text()
        assert {p.name for p in (root / "src").iterdir()} == {"math.js", "cart.js", "broken.js"}
        assert (root / "build" / "bundle.js").is_file()


class TestPostgresSeed:
    def test_script_creates_every_table_view_and_row(self, built):
        """The script creates the four tables, an identity and a serial key, the view, and inserts 50 rows."""
        script = built["demo.postgres"].read_text(encoding="utf-8")
        for table in library.TABLES:
            assert f"CREATE TABLE {table} (" in script
        assert "GENERATED ALWAYS AS IDENTITY" in script and " serial " in script
        assert "CREATE VIEW book_availability AS" in script
        assert script.count("INSERT INTO ") == 50
        assert script.index("BEGIN;") < script.index("CREATE TABLE") < script.rindex("COMMIT;")


class TestThroughEnvironments:
    @pytest.mark.parametrize(
        ("environment", "seed"),
        [
            (DirectoryEnvironment, "demo.filesystem"),
            (SqliteEnvironment, "demo.sqlite"),
            pytest.param(GitEnvironment, "demo.git", marks=needs_git),
            (lambda: JsonFileEnvironment("memory.jsonl"), "demo.memory"),
        ],
        ids=["directory", "sqlite", "git", "json_file"],
    )
    def test_materialising_twice_gives_the_same_content_hash(self, tmp_path, environment, seed):
        """An environment materialised from the same seed in two places gets the same content hash."""
        first = environment().materialise(None, seed, tmp_path / "a")
        second = environment().materialise(None, seed, tmp_path / "b")
        assert first.content_hash == second.content_hash
        assert Path(first.path).exists() and Path(second.path).exists()
        again = environment().materialise(None, seed, tmp_path / "a")
        assert again == first

    def test_a_seed_of_another_kind_is_rejected_by_the_environment(self, tmp_path):
        """An environment given another kind's seed raises SnapshotError and leaves no staging behind."""
        with pytest.raises(SnapshotError, match="not 'sqlite'"):
            SqliteEnvironment().materialise(None, "demo.memory", tmp_path)
        assert list(tmp_path.iterdir()) == []
