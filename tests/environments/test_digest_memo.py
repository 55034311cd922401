"""Memoised digests and the quick paths: exact for every byte a digest reads, and never a stale answer.

A digest memoised by fingerprint must equal a fresh environment's digest of the same state, see
rows that only a SQLite write-ahead log holds, and change with any byte; the quick paths answer
only for small single-file states (and empty scratch folders) and leave everything else to a thread.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from toolatlas.environments import (
    DirectoryEnvironment,
    GitEnvironment,
    JsonFileEnvironment,
    NoEnvironment,
    SqliteEnvironment,
)
from toolatlas.environments.files import QUICK_BYTES
from toolatlas.testing.git import run_git


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items(name) VALUES ('a');")
    conn.close()
    return path


@pytest.fixture()
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"notes": {"n1": "first"}, "next": 2}))
    return path


class TestMemoisedDigests:
    def test_equal_to_a_fresh_digest_and_changed_by_any_write(self, db: Path, tmp_path: Path) -> None:
        """An unchanged instance gets the snapshot's digest from the memo; after a write the digest is
        exactly what an environment that never saw the state computes."""
        env = SqliteEnvironment()
        snapshot = env.materialise(db, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i")
        before = env.digest(snapshot)
        assert env.digest(instance) == before == SqliteEnvironment().digest(instance)
        with sqlite3.connect(instance.variables["db_path"]) as conn:
            conn.execute("UPDATE items SET name = 'b' WHERE id = 1")
        conn.close()
        after = env.digest(instance)
        assert after == SqliteEnvironment().digest(instance)
        assert before.diff(after).changed == ["items#1"]

    def test_rows_only_in_the_write_ahead_log_are_seen(self, db: Path, tmp_path: Path) -> None:
        """A committed row still in the WAL (the database file untouched) changes the digest."""
        env = SqliteEnvironment()
        snapshot = env.materialise(db, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i")
        assert env.digest(instance) == env.digest(snapshot)
        conn = sqlite3.connect(instance.variables["db_path"])
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA wal_autocheckpoint=0")
            file_bytes = Path(instance.variables["db_path"]).read_bytes()
            assert env.digest(instance) == env.digest(snapshot)  # this database file's bytes are now memoised
            conn.execute("INSERT INTO items(name) VALUES ('wal')")
            conn.commit()
            assert Path(instance.variables["db_path"]).read_bytes() == file_bytes  # the row is in the WAL only
            assert env.digest(instance).diff(env.digest(snapshot)).removed == ["items#2"]
        finally:
            conn.close()

    def test_git_work_tree_change(self, tmp_path: Path) -> None:
        """A git repository's memoised digest follows a work-tree edit."""
        source = tmp_path / "repo"
        source.mkdir()
        (source / "a.txt").write_text("a\n")
        for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "one"]):
            run_git(source, *args)
        env = GitEnvironment()
        snapshot = env.materialise(source, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i")
        assert env.digest(instance) == env.digest(snapshot)
        (Path(instance.variables["repo"]) / "a.txt").write_text("b\n")
        assert env.digest(instance).diff(env.digest(snapshot)).changed == ["worktree:a.txt"]
        assert env.digest(instance) == GitEnvironment().digest(instance)


class TestQuickPaths:
    def test_quick_digest_answers_only_from_the_memo(self, notes: Path, tmp_path: Path) -> None:
        """A small JSON state's quick digest is None until its content has been digested once."""
        env = JsonFileEnvironment()
        snapshot = env.materialise(notes, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i")
        assert env.quick_digest(instance) is None
        expected = env.digest(snapshot)
        assert env.quick_digest(instance) == expected
        Path(instance.variables["file"]).write_text(json.dumps({"notes": {}, "next": 2}))
        assert env.quick_digest(instance) is None
        assert env.digest(instance) != expected

    def test_large_files_and_trees_go_to_a_thread(self, tmp_path: Path) -> None:
        """A state over QUICK_BYTES, and a directory tree, have no quick digest or quick reset."""
        big = tmp_path / "big.json"
        big.write_text(json.dumps({"blob": "x" * (QUICK_BYTES + 1)}))
        env = JsonFileEnvironment()
        snapshot = env.materialise(big, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i")
        env.digest(instance)
        assert env.quick_digest(instance) is None and env.quick_reset(instance) is False
        tree = tmp_path / "tree"
        tree.mkdir()
        (tree / "f").write_text("f")
        directory = DirectoryEnvironment()
        tree_instance = directory.prepare(directory.materialise(tree, None, tmp_path / "tsnaps"), tmp_path / "t")
        directory.digest(tree_instance)
        assert directory.quick_digest(tree_instance) is None and directory.quick_reset(tree_instance) is False

    def test_quick_reset_restores_a_small_file(self, notes: Path, tmp_path: Path) -> None:
        """A quick reset puts the snapshot's bytes back."""
        env = JsonFileEnvironment()
        snapshot = env.materialise(notes, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i")
        Path(instance.variables["file"]).write_text("{}")
        assert env.quick_reset(instance) is True
        assert Path(instance.variables["file"]).read_bytes() == Path(snapshot.path).read_bytes()

    def test_scratch_folder(self, tmp_path: Path) -> None:
        """The none kind: an empty folder is digested and reset on the spot, a written one is not."""
        env = NoEnvironment()
        instance = env.prepare(env.materialise(None, None, tmp_path / "snaps"), tmp_path / "i")
        assert env.quick_digest(instance) == env.digest(instance) and env.quick_reset(instance) is True
        (Path(instance.variables["root"]) / "tmp.txt").write_text("x")
        assert env.quick_digest(instance) is None and env.quick_reset(instance) is False
