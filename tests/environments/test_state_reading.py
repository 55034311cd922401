"""State digests see only what a tool did: special files are described, never opened; symlinks are
never followed; reads are capped and walks have a deadline; content-equal rewrites are no change; a
``command`` snapshot digests as the state it prepares."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolatlas.config.servers import CommandEnv
from toolatlas.environments import (
    CommandEnvironment,
    DirectoryEnvironment,
    JsonFileEnvironment,
    SqliteEnvironment,
)
from toolatlas.environments.base import remove_tree
from toolatlas.environments.reading import (
    INCOMPLETE_ITEM,
    SPECIAL_ITEM,
    open_in_wal_mode,
    read_regular,
    tree_items,
)

WAIT_S = 10.0


def finishes(work: Callable[[], Any]) -> Any:
    """Run ``work`` in a daemon thread; fail (instead of hanging the suite) if it does not return."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed back to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(WAIT_S)
    if thread.is_alive():
        pytest.fail("the digest blocked")
    if "error" in box:
        raise box["error"]
    return box["value"]


@pytest.fixture()
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text("not the server's to show\n")
    return path


class TestSpecialFilesInATree:
    def test_a_fifo_is_described_not_opened(self, tmp_path: Path) -> None:
        """A FIFO among the files digests as a special file instead of blocking on open."""
        root = tmp_path / "root"
        root.mkdir()
        (root / "a.txt").write_text("a")
        os.mkfifo(root / "pipe")
        items = finishes(lambda: tree_items(root))
        assert items["pipe"] == "special file: fifo"
        assert items["a.txt"].endswith("-") and len(items["a.txt"]) == 33

    def test_a_symlink_out_of_the_tree_is_never_followed(self, tmp_path: Path, secret: Path) -> None:
        """Symlinks to /dev/zero or to a file outside digest as their target text only."""
        root = tmp_path / "root"
        root.mkdir()
        os.symlink("/dev/zero", root / "zero")
        os.symlink(secret, root / "peek")
        items = finishes(lambda: tree_items(root))
        assert items == {"zero": "link:/dev/zero", "peek": f"link:{secret}"}

    def test_a_device_node_is_described_not_read(self, tmp_path: Path) -> None:
        """A character device made in the tree is a special file (where this process may make one)."""
        root = tmp_path / "root"
        root.mkdir()
        try:
            os.mknod(root / "zero", stat.S_IFCHR | 0o600, os.makedev(1, 5))
        except PermissionError:
            pytest.skip("this process may not make device nodes")
        assert finishes(lambda: tree_items(root)) == {"zero": "special file: character device"}

    def test_removing_a_fifo_state_does_not_open_it(self, tmp_path: Path) -> None:
        """Discarding a frozen state that is a FIFO unlinks it instead of waiting on it."""
        os.mkfifo(tmp_path / "state.json")
        finishes(lambda: remove_tree(tmp_path / "state.json"))
        assert not os.path.lexists(tmp_path / "state.json")

    def test_a_walk_past_its_deadline_or_size_says_it_is_incomplete(self, tmp_path: Path) -> None:
        """A walk that stops early records it, so it can never read as "unchanged"."""
        root = tmp_path / "root"
        for folder in ("a", "b", "c"):
            (root / folder).mkdir(parents=True)
            (root / folder / "f").write_text(folder)
        assert tree_items(root, deadline_s=0)[INCOMPLETE_ITEM].startswith("over")
        assert tree_items(root, max_entries=2)[INCOMPLETE_ITEM] == "more than 2 entries"
        assert INCOMPLETE_ITEM not in tree_items(root)

    def test_a_read_is_capped(self, tmp_path: Path) -> None:
        """A file past the read limit is described by its size and hash, not returned."""
        path = tmp_path / "big"
        path.write_bytes(b"x" * 5000)
        assert read_regular(str(path), limit=5000) == b"x" * 5000
        described = read_regular(str(path), limit=4999)
        assert isinstance(described, str) and described.startswith("large file: 5000 bytes")


class TestSpecialSingleFileStates:
    @pytest.mark.parametrize("make", ["fifo", "zero", "outside"])
    def test_json_state_replaced_by_a_special_file(self, tmp_path: Path, secret: Path, make: str) -> None:
        """A JSON state turned into a FIFO or a symlink digests (quick or not) as a special file."""
        seed = tmp_path / "seed.json"
        seed.write_text('{"items": [1]}')
        env = JsonFileEnvironment()
        snapshot = env.materialise(seed, None, tmp_path / "snapshots")
        instance = env.prepare(snapshot, tmp_path / "slot")
        state = Path(instance.variables["file"])
        state.unlink()
        if make == "fifo":
            os.mkfifo(state)
        else:
            os.symlink("/dev/zero" if make == "zero" else secret, state)
        digest = finishes(lambda: env.digest(instance))
        assert list(digest.items) == [SPECIAL_ITEM]
        assert digest.items[SPECIAL_ITEM].startswith("special file: ")
        assert finishes(lambda: env.quick_digest(instance)) == digest
        assert not env.digest(snapshot).diff(digest).empty
        frozen = env.freeze(instance, tmp_path / "frozen")
        assert finishes(lambda: env.digest(frozen)) == digest
        env.reset(instance)
        assert env.digest(instance) == env.digest(snapshot)

    def test_sqlite_with_a_fifo_journal(self, tmp_path: Path) -> None:
        """A FIFO in place of the database's WAL is described; SQLite never opens it."""
        env = SqliteEnvironment()
        source = tmp_path / "seed.sql"
        source.write_text("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        instance = env.prepare(env.materialise(source, None, tmp_path / "snapshots"), tmp_path / "slot")
        os.mkfifo(instance.variables["db_path"] + "-wal")
        digest = finishes(lambda: env.digest(instance))
        assert digest.items == {f"{SPECIAL_ITEM}-wal": "special file: fifo"}

    def test_a_state_folder_replaced_by_a_symlink(self, tmp_path: Path, secret: Path) -> None:
        """A directory state swapped for a symlink to another folder is not walked through it."""
        seed = tmp_path / "seed"
        seed.mkdir()
        (seed / "a.txt").write_text("a")
        env = DirectoryEnvironment()
        instance = env.prepare(env.materialise(seed, None, tmp_path / "snapshots"), tmp_path / "slot")
        root = Path(instance.variables["root"])
        for child in root.iterdir():
            child.unlink()
        root.rmdir()
        os.symlink(secret.parent, root)
        assert env.digest(instance).items == {SPECIAL_ITEM: f"special file: symlink -> {secret.parent}"}


class TestContentEqualRewrites:
    def test_directory_rewrite_with_the_same_bytes(self, tmp_path: Path) -> None:
        """A file replaced (new inode, new mtime) by the same bytes is no change."""
        seed = tmp_path / "seed"
        seed.mkdir()
        (seed / "notes.md").write_text("# notes\n")
        env = DirectoryEnvironment()
        snapshot = env.materialise(seed, None, tmp_path / "snapshots")
        instance = env.prepare(snapshot, tmp_path / "slot")
        target = Path(instance.variables["root"]) / "notes.md"
        staging = target.with_name("notes.md.tmp")
        staging.write_text("# notes\n")
        os.replace(staging, target)
        os.utime(target, (1, 1))
        assert env.digest(snapshot).diff(env.digest(instance)).empty
        target.write_text("# notes!\n")
        assert env.digest(snapshot).diff(env.digest(instance)).changed == ["notes.md"]

    def test_json_rewrite_with_the_same_records(self, tmp_path: Path) -> None:
        """A JSON document written back with other whitespace and key order is no change."""
        seed = tmp_path / "seed.json"
        seed.write_text('{"a": 1, "b": {"x": [1, 2]}}')
        env = JsonFileEnvironment()
        snapshot = env.materialise(seed, None, tmp_path / "snapshots")
        instance = env.prepare(snapshot, tmp_path / "slot")
        Path(instance.variables["file"]).write_text(json.dumps({"b": {"x": [1, 2]}, "a": 1}, indent=2))
        assert env.digest(snapshot).diff(env.digest(instance)).empty

    def test_sqlite_update_to_the_same_values(self, tmp_path: Path) -> None:
        """An UPDATE that sets every row to what it held is no change."""
        source = tmp_path / "seed.sql"
        source.write_text("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('a'), ('b');")
        env = SqliteEnvironment()
        snapshot = env.materialise(source, None, tmp_path / "snapshots")
        instance = env.prepare(snapshot, tmp_path / "slot")
        with sqlite3.connect(instance.variables["db_path"]) as conn:
            conn.execute("UPDATE t SET x = x")
        conn.close()
        assert env.digest(snapshot).diff(env.digest(instance)).empty


class TestSqliteInAFolder:
    def test_a_database_held_open_is_one_item_with_its_log(self, tmp_path: Path) -> None:
        """A server opening a WAL-mode database in its folder adds a log and an index beside it: the folder still
        holds what it held; a committed row kept in the log changes the database's item, and no side file is an
        item of its own."""
        root = tmp_path / "root"
        root.mkdir()
        with sqlite3.connect(root / "memory.db") as setup:
            setup.execute("PRAGMA journal_mode=WAL")
            setup.execute("CREATE TABLE entries(body TEXT)")
        setup.close()
        before = tree_items(root)
        assert set(before) == {"memory.db"}
        conn = sqlite3.connect(root / "memory.db")
        try:
            conn.execute("PRAGMA wal_autocheckpoint=0")
            conn.execute("SELECT count(*) FROM entries").fetchone()
            assert {p.name for p in root.iterdir()} >= {"memory.db-wal", "memory.db-shm"}
            assert tree_items(root) == before
            conn.execute("INSERT INTO entries VALUES ('kept in the log')")
            conn.commit()
            after = tree_items(root)
            assert set(after) == {"memory.db"} and after["memory.db"] != before["memory.db"]
            assert after["memory.db"].startswith(before["memory.db"].split()[0])  # the file itself is untouched
        finally:
            conn.close()

    def test_a_database_held_open_in_wal_mode_is_told(self, tmp_path: Path) -> None:
        """A connection holding a WAL-mode database open, deep in the folder, is told by the log and index beside the
        file (of the folder and of the file), one in exclusive locking mode by its log alone; a database in rollback
        mode, one closed, and an ``-shm`` beside a file that is no database are not."""
        deep = tmp_path / "root" / ".local" / "share" / "App" / "User 1"
        deep.mkdir(parents=True)
        with sqlite3.connect(deep / "collection.db") as setup:
            setup.execute("CREATE TABLE cards(front TEXT)")
        setup.close()
        (tmp_path / "root" / "x").write_text("no database")
        (tmp_path / "root" / "x-shm").write_text("")
        assert not open_in_wal_mode(tmp_path / "root")
        plain = sqlite3.connect(deep / "collection.db")
        plain.execute("SELECT count(*) FROM cards").fetchone()
        assert not open_in_wal_mode(tmp_path / "root")
        plain.close()
        held = sqlite3.connect(deep / "collection.db")
        try:
            held.execute("PRAGMA journal_mode=WAL")
            held.execute("SELECT count(*) FROM cards").fetchone()
            assert open_in_wal_mode(tmp_path / "root") and open_in_wal_mode(deep / "collection.db")
        finally:
            held.close()
        exclusive = sqlite3.connect(deep / "collection.db")  # no index beside it: its log tells
        try:
            exclusive.execute("PRAGMA locking_mode=EXCLUSIVE")
            exclusive.execute("PRAGMA journal_mode=WAL")
            exclusive.execute("SELECT count(*) FROM cards").fetchone()
            assert not (deep / "collection.db-shm").exists() and (deep / "collection.db-wal").exists()
            assert open_in_wal_mode(tmp_path / "root")
        finally:
            exclusive.close()
        assert not open_in_wal_mode(tmp_path / "root")  # the last connection's close removes the index

    def test_a_side_file_of_no_database_is_a_file(self, tmp_path: Path) -> None:
        """``x-journal`` beside a file ``x`` that is not a SQLite database is a file like any other, and a FIFO
        in a database's log's place is told, never opened."""
        root = tmp_path / "root"
        root.mkdir()
        (root / "trip").write_text("day one\n")
        (root / "trip-journal").write_text("day two\n")
        assert set(tree_items(root)) == {"trip", "trip-journal"}
        sqlite3.connect(root / "app.db").execute("CREATE TABLE t(x)").connection.close()
        os.mkfifo(root / "app.db-wal")
        items = finishes(lambda: tree_items(root))
        assert "app.db-wal" not in items and "wal:special file: fifo" in items["app.db"]


class TestCommandSnapshotDigest:
    def spec(self, **fields: str) -> CommandEnv:
        return CommandEnv(kind="command", snapshot="seed.txt", prepare="cp ${snapshot} ${root}/data.txt", **fields)

    @pytest.mark.parametrize("with_digest", [False, True])
    def test_an_untouched_instance_is_the_snapshot(self, tmp_path: Path, with_digest: bool) -> None:
        """The snapshot digests as a prepared state, so a fresh instance (and a reset) shows no change."""
        (tmp_path / "seed.txt").write_text("hello")
        fields = {"digest": "printf '%s\\t%s\\n' ${root}/data.txt \"$(cat ${root}/data.txt)\""} if with_digest else {}
        env = CommandEnvironment(self.spec(**fields), tmp_path)
        scratch_before = set(Path(tempfile.gettempdir()).glob("toolatlas-snapshot-*"))
        snapshot = env.materialise(None, None, tmp_path)
        instance = env.prepare(snapshot, tmp_path / "i1")
        before = env.digest(snapshot)
        assert before.items, "a prepared state is not empty"
        assert before.diff(env.digest(instance)).empty
        if with_digest:
            assert before.items == {"${root}/data.txt": "hello"}
        (Path(instance.variables["root"]) / "data.txt").write_text("hello")  # the same content again
        assert before.diff(env.digest(instance)).empty
        (Path(instance.variables["root"]) / "data.txt").write_text("changed")
        assert not before.diff(env.digest(instance)).empty
        env.reset(instance)
        assert before.diff(env.digest(instance)).empty
        assert set(Path(tempfile.gettempdir()).glob("toolatlas-snapshot-*")) <= scratch_before, "scratch removed"
