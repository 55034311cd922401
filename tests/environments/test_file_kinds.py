"""Snapshot, reset, freeze and isolation for the file-backed kinds: directory, SQLite, git, JSON file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from toolatlas.config import CommandEnv
from toolatlas.environments import (
    CommandEnvironment,
    DirectoryEnvironment,
    GitEnvironment,
    JsonFileEnvironment,
    NoEnvironment,
    SqliteEnvironment,
)
from toolatlas.errors import SandboxError, SnapshotError
from toolatlas.testing.git import run_git


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture()
def source_tree(tmp_path: Path) -> Path:
    root = tmp_path / "source"
    (root / "docs" / "deep").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n")
    (root / "docs" / "deep" / "b.txt").write_text("b" * 1000)
    (root / "bin.dat").write_bytes(bytes(range(256)))
    (root / "empty").mkdir()
    os.symlink("docs/a.md", root / "link")
    return root


class TestDirectory:
    def test_instances_are_isolated_from_snapshot_and_siblings(self, source_tree: Path, tmp_path: Path) -> None:
        """A write in one instance reaches neither the snapshot nor a sibling instance."""
        env = DirectoryEnvironment()
        snapshot = env.materialise(source_tree, None, tmp_path / "snaps")
        first, second = env.prepare(snapshot, tmp_path / "i1"), env.prepare(snapshot, tmp_path / "i2")
        (Path(first.variables["root"]) / "docs" / "a.md").write_text("changed")
        (Path(first.variables["root"]) / "new.txt").write_text("new")
        assert tree_bytes(Path(snapshot.path)) == tree_bytes(source_tree)
        assert tree_bytes(Path(second.variables["root"])) == tree_bytes(source_tree)

    def test_reset_restores_byte_identical_files(self, source_tree: Path, tmp_path: Path) -> None:
        """After arbitrary damage, reset gives back exactly the snapshot's bytes and digest."""
        env = DirectoryEnvironment()
        snapshot = env.materialise(source_tree, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i1")
        root = Path(instance.variables["root"])
        (root / "bin.dat").write_bytes(b"")
        (root / "docs" / "deep" / "b.txt").unlink()
        (root / "empty").rmdir()
        env.reset(instance)
        assert tree_bytes(root) == tree_bytes(source_tree)
        assert env.digest(instance) == env.digest(snapshot)
        assert os.readlink(root / "link") == "docs/a.md"

    def test_freeze_moves_the_post_state_out(self, source_tree: Path, tmp_path: Path) -> None:
        """Freeze keeps the mutated state for inspection; the diff names exactly what changed."""
        env = DirectoryEnvironment()
        snapshot = env.materialise(source_tree, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i1")
        root = Path(instance.variables["root"])
        (root / "docs" / "a.md").write_text("changed")
        (root / "added.txt").write_text("x")
        (root / "bin.dat").unlink()
        frozen = env.freeze(instance, tmp_path / "frozen" / "f1")
        diff = env.digest(snapshot).diff(env.digest(frozen))
        assert (diff.added, diff.removed, diff.changed) == (["added.txt"], ["bin.dat"], ["docs/a.md"])
        env.reset(instance)
        assert env.digest(instance) == env.digest(snapshot)
        assert (Path(frozen.path) / "added.txt").exists()
        env.discard(frozen)
        assert not Path(frozen.path).exists()

    @pytest.mark.parametrize("how", ["reset", "freeze"])
    def test_the_folder_a_server_works_in_stays_the_same_folder(self, source_tree: Path, tmp_path: Path, how: str) -> None:
        """A reset (alone or after a freeze) refills the same folder: a process holding it (its working
        directory, an open descriptor) lists the snapshot's content afterwards, even if it had locked
        the folder's mode."""
        env = DirectoryEnvironment()
        snapshot = env.materialise(source_tree, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i1")
        root = Path(instance.variables["root"])
        held = os.open(root, os.O_RDONLY)
        try:
            (root / "added.txt").write_text("x")
            (root / "docs" / "a.md").unlink()
            os.chmod(root, 0o500)
            if how == "freeze":
                frozen = env.freeze(instance, tmp_path / "frozen" / "f1")
                assert sorted(os.listdir(frozen.path)) == sorted(os.listdir(source_tree) + ["added.txt"])
            env.reset(instance)
            assert sorted(os.listdir(held)) == sorted(os.listdir(source_tree))
        finally:
            os.close(held)
        assert env.digest(instance) == env.digest(snapshot)

    def test_materialise_is_content_addressed(self, source_tree: Path, tmp_path: Path) -> None:
        """The same source gives the same snapshot; a changed source gives a new one."""
        env = DirectoryEnvironment()
        first = env.materialise(source_tree, None, tmp_path / "snaps")
        assert env.materialise(source_tree, None, tmp_path / "snaps") == first
        (source_tree / "docs" / "a.md").write_text("# changed\n")
        assert env.materialise(source_tree, None, tmp_path / "snaps").content_hash != first.content_hash

    def test_unreadable_or_missing_source(self, tmp_path: Path) -> None:
        """A missing source or a file where a folder is expected is a SnapshotError naming it."""
        env = DirectoryEnvironment()
        with pytest.raises(SnapshotError, match="does not exist"):
            env.materialise(tmp_path / "absent", None, tmp_path / "snaps")
        (tmp_path / "file").write_text("x")
        with pytest.raises(SnapshotError, match="not a folder"):
            env.materialise(tmp_path / "file", None, tmp_path / "snaps")

    def test_discard_removes_read_only_leftovers(self, source_tree: Path, tmp_path: Path) -> None:
        """Discard succeeds even when a server left read-only folders behind."""
        env = DirectoryEnvironment()
        instance = env.prepare(env.materialise(source_tree, None, tmp_path / "snaps"), tmp_path / "i1")
        locked = Path(instance.variables["root"]) / "locked"
        locked.mkdir()
        (locked / "f").write_text("x")
        locked.chmod(0o500)
        env.discard(instance)
        assert not Path(instance.slot).exists()


class TestSqlite:
    @pytest.fixture()
    def db(self, tmp_path: Path) -> Path:
        path = tmp_path / "shop.db"
        with sqlite3.connect(path) as conn:
            conn.executescript(
                "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
                "INSERT INTO items(name) VALUES ('a'), ('b'), ('c');"
            )
        conn.close()
        return path

    def rows(self, path: str) -> list[tuple]:
        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT * FROM items ORDER BY id").fetchall()

    def test_reset_restores_identical_rows(self, db: Path, tmp_path: Path) -> None:
        """Rows changed in an instance come back exactly after reset; the snapshot never changes."""
        env = SqliteEnvironment()
        snapshot = env.materialise(db, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i1")
        sibling = env.prepare(snapshot, tmp_path / "i2")
        with sqlite3.connect(instance.variables["db_path"]) as conn:
            conn.execute("UPDATE items SET name = 'z' WHERE id = 1")
            conn.execute("INSERT INTO items(name) VALUES ('d')")
        conn.close()
        assert self.rows(snapshot.path) == [(1, "a"), (2, "b"), (3, "c")]
        assert self.rows(sibling.variables["db_path"]) == [(1, "a"), (2, "b"), (3, "c")]
        diff = env.digest(snapshot).diff(env.digest(instance))
        assert (diff.added, diff.changed) == (["items#4"], ["items#1"])
        env.reset(instance)
        assert self.rows(instance.variables["db_path"]) == [(1, "a"), (2, "b"), (3, "c")]
        assert env.digest(instance) == env.digest(snapshot)

    @pytest.mark.parametrize("how", ["quick_reset", "reset", "freeze"])
    def test_a_connection_held_open_sees_the_reset(self, db: Path, tmp_path: Path, how: str) -> None:
        """A server's connection kept open across a reset (by the small-file route, the general one,
        or a freeze) reads the snapshot's rows afterwards and can still write: the file it holds is
        reset in place, never replaced by a new one (SQLite refuses writes to a replaced file)."""
        env = SqliteEnvironment()
        snapshot = env.materialise(db, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i1")
        server = sqlite3.connect(instance.variables["db_path"], isolation_level=None)
        try:
            server.execute("INSERT INTO items(name) VALUES ('d')")
            if how == "quick_reset":
                assert env.quick_reset(instance)
            elif how == "reset":
                env.reset(instance)
            else:
                frozen = env.freeze(instance, tmp_path / "frozen" / "f1")
                assert self.rows(frozen.path)[-1] == (4, "d")
                env.reset(instance)
            assert server.execute("SELECT * FROM items ORDER BY id").fetchall() == [(1, "a"), (2, "b"), (3, "c")]
            server.execute("INSERT INTO items(name) VALUES ('e')")
        finally:
            server.close()
        assert self.rows(instance.variables["db_path"])[-1] == (4, "e")

    def test_sql_script_source(self, tmp_path: Path) -> None:
        """A .sql source is executed into a fresh database; a broken one is a SnapshotError."""
        script = tmp_path / "s.sql"
        script.write_text("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        env = SqliteEnvironment()
        snapshot = env.materialise(script, None, tmp_path / "snaps")
        assert "schema:table:t" in env.digest(snapshot).items
        script.write_text("CREATE TABLE broken(")
        with pytest.raises(SnapshotError, match="s.sql"):
            env.materialise(script, None, tmp_path / "snaps")

    def test_non_database_source(self, tmp_path: Path) -> None:
        """A file that is not SQLite is refused with a SnapshotError."""
        junk = tmp_path / "junk.db"
        junk.write_text("not a database at all, just text" * 10)
        with pytest.raises(SnapshotError, match="not a readable SQLite database"):
            SqliteEnvironment().materialise(junk, None, tmp_path / "snaps")


class TestGit:
    @pytest.fixture()
    def repo(self, tmp_path: Path) -> Path:
        repo = tmp_path / "repo"
        repo.mkdir()
        run_git(repo, "init", "-q", "-b", "main")
        (repo / "a.txt").write_text("one\n")
        run_git(repo, "add", "a.txt")
        run_git(repo, "commit", "-q", "-m", "first")
        run_git(repo, "branch", "feature")
        return repo

    def test_reset_restores_refs_index_and_worktree(self, repo: Path, tmp_path: Path) -> None:
        """Commits, new branches, staged and unstaged changes all disappear on reset."""
        env = GitEnvironment()
        snapshot = env.materialise(repo, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i1")
        work = Path(instance.variables["repo"])
        refs_before = run_git(work, "for-each-ref")
        (work / "a.txt").write_text("two\n")
        run_git(work, "commit", "-q", "-am", "second")
        run_git(work, "branch", "extra")
        (work / "staged.txt").write_text("s")
        run_git(work, "add", "staged.txt")
        diff = env.digest(snapshot).diff(env.digest(instance))
        assert "ref:refs/heads/extra" in diff.added and "ref:refs/heads/main" in diff.changed
        assert "index:staged.txt" in diff.added
        env.reset(instance)
        assert run_git(work, "for-each-ref") == refs_before
        assert run_git(work, "status", "--porcelain") == ""
        assert env.digest(instance) == env.digest(snapshot)
        assert run_git(repo, "for-each-ref") == refs_before

    def test_files_whose_work_tree_differs_from_the_index_are_items(self, repo: Path, tmp_path: Path) -> None:
        """A tracked file changed (or deleted) in the work tree and not staged is an ``unstaged:`` item;
        staging it removes the item, a clean or untracked file never has one."""
        (repo / "b.txt").write_text("two\n")
        run_git(repo, "add", "b.txt")
        run_git(repo, "commit", "-q", "-m", "second")
        (repo / "a.txt").write_text("changed\n")
        (repo / "b.txt").unlink()
        (repo / "new.txt").write_text("untracked\n")
        env = GitEnvironment()
        instance = env.prepare(env.materialise(repo, None, tmp_path / "snaps"), tmp_path / "i1")
        items = env.digest(instance).items
        assert {k: v for k, v in items.items() if k.startswith("unstaged:")} == {"unstaged:a.txt": "M", "unstaged:b.txt": "D"}
        run_git(Path(instance.variables["repo"]), "add", "a.txt")
        assert "unstaged:a.txt" not in env.digest(instance).items

    def test_non_repository_source(self, tmp_path: Path) -> None:
        """A folder without .git is refused."""
        (tmp_path / "plain").mkdir()
        with pytest.raises(SnapshotError, match="not a git work tree"):
            GitEnvironment().materialise(tmp_path / "plain", None, tmp_path / "snaps")


class TestJsonFile:
    def test_json_lines_records(self, tmp_path: Path) -> None:
        """A JSON-lines state is described record by record; reset restores it exactly."""
        source = tmp_path / "memory.jsonl"
        source.write_text('{"type":"entity","name":"a"}\n{"type":"entity","name":"b"}\n')
        env = JsonFileEnvironment("memory.jsonl")
        snapshot = env.materialise(source, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i1")
        assert instance.variables["file"].endswith("memory.jsonl")
        Path(instance.variables["file"]).write_text('{"type":"entity","name":"a"}\n{"type":"entity","name":"c"}\n')
        diff = env.digest(snapshot).diff(env.digest(instance))
        assert len(diff.added) == 1 and len(diff.removed) == 1
        env.reset(instance)
        assert Path(instance.variables["file"]).read_bytes() == source.read_bytes()

    def test_quick_reset_restores_the_snapshots_bytes_and_mode(self, tmp_path: Path) -> None:
        """The quick reset of a small file: the snapshot's bytes and mode bits — in the same file when
        the server only rewrote it (a handle it holds sees the reset), else in a new one — whatever
        the server did to the entry: rewrote it, made it read-only, deleted it or put a folder in
        its place; no staging file left."""
        source = tmp_path / "state.json"
        source.write_text('{"users": [1, 2]}')
        os.chmod(source, 0o640)
        env = JsonFileEnvironment()
        snapshot = env.materialise(source, None, tmp_path / "snaps")
        instance = env.prepare(snapshot, tmp_path / "i1")
        entry = Path(instance.variables["file"])
        pristine = env.digest(snapshot)

        def damaged_then_reset(damage) -> None:
            damage()
            assert env.quick_reset(instance)
            assert entry.read_bytes() == source.read_bytes()
            assert os.stat(entry).st_mode & 0o7777 == os.stat(snapshot.path).st_mode & 0o7777
            assert env.digest(instance) == pristine
            assert sorted(p.name for p in entry.parent.iterdir()) == [entry.name]

        before = os.stat(entry).st_ino
        damaged_then_reset(lambda: entry.write_text('{"users": []}'))
        assert os.stat(entry).st_ino == before
        damaged_then_reset(lambda: os.chmod(entry, 0o400))
        damaged_then_reset(entry.unlink)

        def folder() -> None:
            entry.unlink()
            (entry / "inside").mkdir(parents=True)

        damaged_then_reset(folder)

    def test_quick_reset_declines_large_files(self, tmp_path: Path) -> None:
        """A state above QUICK_BYTES is not kept in memory: the caller resets it the general way."""
        from toolatlas.environments.files import QUICK_BYTES

        source = tmp_path / "state.json"
        source.write_text('{"blob": "' + "x" * QUICK_BYTES + '"}')
        env = JsonFileEnvironment()
        instance = env.prepare(env.materialise(source, None, tmp_path / "snaps"), tmp_path / "i1")
        assert not env.quick_reset(instance)

    def test_json_object_keys(self, tmp_path: Path) -> None:
        """A JSON object state is described key by key."""
        source = tmp_path / "state.json"
        source.write_text('{"users": [1, 2], "settings": {"a": 1}}')
        env = JsonFileEnvironment()
        digest = env.digest(env.materialise(source, None, tmp_path / "snaps"))
        assert set(digest.items) == {"key:users", "key:settings"}


class TestScratchKinds:
    def test_none_kind_gives_an_empty_resettable_folder(self, tmp_path: Path) -> None:
        """The stateless kind hands out an empty folder and empties it on reset."""
        env = NoEnvironment()
        instance = env.prepare(env.materialise(None, None, tmp_path), tmp_path / "i1")
        (Path(instance.variables["root"]) / "junk").write_text("x")
        env.reset(instance)
        assert list(Path(instance.variables["root"]).iterdir()) == []

    def test_command_kind_runs_user_commands(self, tmp_path: Path) -> None:
        """A command environment is prepared, described and reset by the user's shell commands."""
        (tmp_path / "seed.txt").write_text("hello")
        spec = CommandEnv(
            kind="command",
            snapshot="seed.txt",
            prepare="cp ${snapshot} ${root}/data.txt",
            digest="printf 'data\\t%s\\n' \"$(cat ${root}/data.txt)\"",
        )
        env = CommandEnvironment(spec, tmp_path)
        instance = env.prepare(env.materialise(None, None, tmp_path), tmp_path / "i1")
        assert env.digest(instance).items == {"data": "hello"}
        (Path(instance.variables["root"]) / "data.txt").write_text("changed")
        assert env.digest(instance).items == {"data": "changed"}
        env.reset(instance)
        assert env.digest(instance).items == {"data": "hello"}

    def test_command_failure_is_a_sandbox_error(self, tmp_path: Path) -> None:
        """A failing prepare command raises SandboxError with its stderr."""
        spec = CommandEnv(kind="command", prepare="echo boom >&2; exit 3")
        env = CommandEnvironment(spec, tmp_path)
        with pytest.raises(SandboxError, match="boom"):
            env.prepare(env.materialise(None, None, tmp_path), tmp_path / "i1")
