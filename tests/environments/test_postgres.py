"""The ``postgres`` environment kind against a real private cluster started for this module."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest

from toolatlas.config.catalogue import PostgresSettings
from toolatlas.environments import Environment, Snapshot
from toolatlas.environments.pgcluster import PostgresCluster, find_bindir
from toolatlas.environments.postgres import PostgresEnvironment
from toolatlas.errors import BackendError, SnapshotError
from toolatlas.home import Home

pytestmark = pytest.mark.postgres

SCRIPT = """
CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, qty integer CHECK (qty >= 0));
CREATE TABLE tags (label text);
CREATE TABLE stock (shop text, sku text, amount integer, PRIMARY KEY (shop, sku));
INSERT INTO items (name, qty) VALUES ('apple', 3), ('pear', 5), ('plum', 0);
INSERT INTO tags VALUES ('fruit'), ('fruit'), ('fresh');
INSERT INTO stock VALUES ('north', 'a-1', 10), ('south', 'a-1', 4);
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _scratch_root() -> Path:
    """A temp folder the cluster's OS user can enter (pytest's own tmp root is private to root)."""
    root = Path(tempfile.mkdtemp(prefix="toolatlas-pgtest-"))
    os.chmod(root, 0o755)
    return root


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresCluster]:
    try:
        find_bindir(None)
    except BackendError as exc:
        pytest.skip(f"PostgreSQL server binaries not found: {exc}")
    root = _scratch_root()
    cluster = PostgresCluster.for_settings(PostgresSettings(port=_free_port()), Home(root))
    cluster.ensure_running()
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def env(cluster: PostgresCluster) -> Iterator[PostgresEnvironment]:
    environment = PostgresEnvironment(cluster)
    yield environment
    environment.close()


@pytest.fixture(scope="module")
def snapshot(env: PostgresEnvironment, tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    folder = tmp_path_factory.mktemp("pg-source")
    (folder / "shop.sql").write_text(SCRIPT)
    return env.materialise(folder / "shop.sql", None, folder / "snapshot")


def _sql(uri: str, statement: str) -> list[tuple]:
    with psycopg.connect(uri, autocommit=True, connect_timeout=10) as conn:
        cur = conn.execute(statement)
        return cur.fetchall() if cur.description else []


def _databases(cluster: PostgresCluster) -> set[str]:
    with cluster.connect() as conn:
        return {name for (name,) in conn.execute("SELECT datname FROM pg_database")}


MUTATION = """
UPDATE items SET qty = 9 WHERE name = 'pear';
DELETE FROM items WHERE name = 'plum';
INSERT INTO items (name, qty) VALUES ('kiwi', 1);
INSERT INTO tags VALUES ('fruit');
"""


class TestIsolation:
    def test_environment_satisfies_the_protocol(self, env: PostgresEnvironment) -> None:
        """PostgresEnvironment is an Environment of kind "postgres" that restarts servers on reset."""
        assert isinstance(env, Environment)
        assert env.kind == "postgres" and env.restart_on_reset is True

    def test_mutation_stays_in_its_instance(
        self, env: PostgresEnvironment, snapshot: Snapshot, tmp_path: Path
    ) -> None:
        """A mutation in one instance never reaches the template or a sibling instance."""
        before = env.digest(snapshot)
        first, second = env.prepare(snapshot, tmp_path / "slot-a"), env.prepare(snapshot, tmp_path / "slot-b")
        try:
            assert first.variables["database"] != second.variables["database"]
            _sql(first.variables["database_uri"], MUTATION)
            assert env.digest(first) != before
            assert env.digest(second) == before
            env._snapshot_digests.clear()  # digest the template afresh, not from the cache
            assert env.digest(snapshot) == before
        finally:
            env.discard(first)
            env.discard(second)

    def test_instance_variables_and_folders(
        self, env: PostgresEnvironment, snapshot: Snapshot, tmp_path: Path
    ) -> None:
        """An instance names its database and URI and has its own home and state folders."""
        instance = env.prepare(snapshot, tmp_path / "slot")
        try:
            variables = instance.variables
            assert variables["database"].startswith("inst_slot_")
            assert variables["database_uri"].endswith(f":{env.cluster.port}/{variables['database']}")
            assert variables["database_uri"].startswith("postgresql://postgres@127.0.0.1:")
            assert Path(variables["home"]).is_dir() and Path(variables["root"]).is_dir()
            assert _sql(variables["database_uri"], "SELECT count(*) FROM items") == [(3,)]
        finally:
            env.discard(instance)


class TestResetAndFreeze:
    def test_reset_restores_identical_rows(
        self, env: PostgresEnvironment, snapshot: Snapshot, tmp_path: Path
    ) -> None:
        """After a reset the instance's digest equals the snapshot's, under the same database name."""
        instance = env.prepare(snapshot, tmp_path / "slot")
        try:
            _sql(instance.variables["database_uri"], MUTATION)
            env.reset(instance)
            assert env.digest(instance) == env.digest(snapshot)
            assert _sql(instance.variables["database_uri"], "SELECT current_database()") == [
                (instance.variables["database"],)
            ]
        finally:
            env.discard(instance)

    def test_reset_terminates_open_sessions(
        self, env: PostgresEnvironment, snapshot: Snapshot, tmp_path: Path
    ) -> None:
        """A session a server holds open on the instance is cut by a reset (hence restart_on_reset)."""
        instance = env.prepare(snapshot, tmp_path / "slot")
        server = psycopg.connect(instance.variables["database_uri"], autocommit=True, connect_timeout=10)
        try:
            env.reset(instance)
            with pytest.raises(psycopg.OperationalError):
                server.execute("SELECT 1")
        finally:
            server.close()
            env.discard(instance)

    def test_freeze_moves_exactly_the_changed_rows_out(
        self, env: PostgresEnvironment, snapshot: Snapshot, tmp_path: Path
    ) -> None:
        """Freezing moves the mutated database out, and its digest differs in exactly the changed rows."""
        instance = env.prepare(snapshot, tmp_path / "slot")
        server = psycopg.connect(instance.variables["database_uri"], autocommit=True, connect_timeout=10)
        try:
            server.execute(MUTATION)
            frozen = env.freeze(instance, tmp_path / "frozen")
            assert frozen.path == frozen.variables["database"] != instance.variables["database"]
            assert env.digest(instance).items == {}  # empty until reset
            diff = env.digest(snapshot).diff(env.digest(frozen))
            fruit = hashlib.md5(b"(fruit)").hexdigest()  # the tags row 'fruit', now present three times
            assert diff.added == ["items#4"]
            assert diff.removed == ["items#3"]
            assert diff.changed == sorted(["items#2", "seq:items_id_seq", f"tags#{fruit}"])
            assert _sql(frozen.variables["database_uri"], "SELECT qty FROM items WHERE name = 'pear'") == [
                (9,)
            ]
            env.reset(instance)
            assert env.digest(instance) == env.digest(snapshot)
            env.discard(frozen)
        finally:
            server.close()
            env.discard(instance)

    def test_digest_names_rows_by_primary_key(self, env: PostgresEnvironment, snapshot: Snapshot) -> None:
        """The digest has schema items, rows keyed by (composite) primary key or row hash, and sequences."""
        items = env.digest(snapshot).items
        assert {
            "schema:items",
            "schema:tags",
            "schema:stock",
            "items#1",
            "items#2",
            "items#3",
        } <= items.keys()
        assert items["seq:items_id_seq"] == "3"
        assert '["north","a-1"]' in {key.split("#", 1)[1] for key in items if key.startswith("stock#")}
        tags = {key: value for key, value in items.items() if key.startswith("tags#")}
        assert len(tags) == 2 and sum(value.endswith("*2") for value in tags.values()) == 1

    def test_schema_change_shows_as_schema_item(
        self, env: PostgresEnvironment, snapshot: Snapshot, tmp_path: Path
    ) -> None:
        """Adding a column changes the table's schema item (and every row hash), adding a table adds one."""
        instance = env.prepare(snapshot, tmp_path / "slot")
        try:
            _sql(
                instance.variables["database_uri"],
                "ALTER TABLE tags ADD COLUMN note text; CREATE TABLE extra (x int)",
            )
            diff = env.digest(snapshot).diff(env.digest(instance))
            assert "schema:tags" in diff.changed and "schema:extra" in diff.added
            assert "schema:items" not in diff.changed
        finally:
            env.discard(instance)


class TestMaterialise:
    def test_materialise_is_idempotent(
        self, env: PostgresEnvironment, snapshot: Snapshot, tmp_path: Path
    ) -> None:
        """Materialising the same script again reuses the same complete template with the same hash."""
        (tmp_path / "again.sql").write_text(SCRIPT)
        again = env.materialise(tmp_path / "again.sql", None, tmp_path / "snapshot")
        assert again == snapshot
        assert again.path == f"tpl_{again.content_hash}"
        with env.cluster.connect() as conn:
            row = conn.execute(
                "SELECT datistemplate, datallowconn FROM pg_database WHERE datname = %s", [again.path]
            ).fetchone()
            builds = conn.execute("SELECT count(*) FROM pg_database WHERE datname LIKE 'build%%'").fetchone()
        assert row == (True, False) and builds == (0,)

    def test_broken_script_leaves_no_template(self, env: PostgresEnvironment, tmp_path: Path) -> None:
        """A script failing half-way raises SnapshotError naming the script and leaves no database behind."""
        script = tmp_path / "broken.sql"
        script.write_text("CREATE TABLE half (id int);\nINSERT INTO half VALUES (1);\nSELEC oops;\n")
        before = _databases(env.cluster)
        with pytest.raises(SnapshotError, match="broken.sql") as caught:
            env.materialise(script, None, tmp_path / "snapshot")
        assert "syntax error" in str(caught.value)
        assert _databases(env.cluster) == before

    def test_missing_or_wrong_source_is_a_snapshot_error(
        self, env: PostgresEnvironment, tmp_path: Path
    ) -> None:
        """A missing source or one that is not a .sql script is refused with SnapshotError."""
        with pytest.raises(SnapshotError, match="does not exist"):
            env.materialise(tmp_path / "nope.sql", None, tmp_path / "snapshot")
        (tmp_path / "dump.bin").write_bytes(b"PGDMP")
        with pytest.raises(SnapshotError, match=r"\.sql script"):
            env.materialise(tmp_path / "dump.bin", None, tmp_path / "snapshot")


class TestDiscard:
    def test_discard_drops_frozen_and_instance_databases(
        self, env: PostgresEnvironment, snapshot: Snapshot, tmp_path: Path
    ) -> None:
        """Discard drops a frozen state's database, and an instance's database and slot folder."""
        slot = tmp_path / "slot"
        instance = env.prepare(snapshot, slot)
        frozen = env.freeze(instance, tmp_path / "frozen")
        env.reset(instance)
        assert {frozen.path, instance.variables["database"]} <= _databases(env.cluster)
        env.discard(frozen)
        env.discard(instance)
        names = _databases(env.cluster)
        assert frozen.path not in names and instance.variables["database"] not in names
        assert not slot.exists()
        assert snapshot.path in names


class TestCluster:
    def test_ensure_running_twice_is_idempotent(self, cluster: PostgresCluster) -> None:
        """Calling ensure_running on a running cluster keeps the same server process."""
        pid = (cluster.data_dir / "postmaster.pid").read_text().split()[0]
        cluster.ensure_running()
        cluster.ensure_running()
        assert (cluster.data_dir / "postmaster.pid").read_text().split()[0] == pid
        assert cluster.is_running()

    def test_concurrent_first_start_runs_one_server(self) -> None:
        """Two callers starting the same fresh cluster at once both succeed against one initialised server."""
        root = _scratch_root()
        fresh = PostgresCluster.for_settings(PostgresSettings(port=_free_port()), Home(root))
        try:
            with ThreadPoolExecutor(2) as pool:
                list(pool.map(lambda _: fresh.ensure_running(), range(2)))
            with fresh.connect() as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
        finally:
            fresh.stop()
            shutil.rmtree(root, ignore_errors=True)

    def test_port_taken_by_someone_else(self, cluster: PostgresCluster) -> None:
        """A cluster whose port is held by another process fails with an error naming the port."""
        root = _scratch_root()
        other = PostgresCluster.for_settings(PostgresSettings(port=cluster.port), Home(root))
        try:
            with pytest.raises(BackendError, match=f"port {cluster.port}.*already in use"):
                other.ensure_running()
        finally:
            shutil.rmtree(root, ignore_errors=True)

    @pytest.mark.skipif(os.geteuid() != 0, reason="only root hands the cluster to another OS user")
    def test_home_the_os_user_cannot_enter(self, cluster: PostgresCluster) -> None:
        """As root, a home the cluster's OS user cannot traverse is refused with the folder named."""
        root = _scratch_root()
        private = root / "private"
        private.mkdir(mode=0o700)
        elsewhere = PostgresCluster.for_settings(PostgresSettings(port=_free_port()), Home(private / "home"))
        try:
            with pytest.raises(BackendError, match=f"cannot enter {private}"):
                elsewhere.ensure_running()
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def test_missing_binaries_are_explained(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        """Without binaries the error says where we looked and how to set [postgres] bindir."""
        with pytest.raises(BackendError, match=r"\[postgres\] bindir") as caught:
            find_bindir(str(tmp_path))
        assert str(tmp_path) in str(caught.value)
        monkeypatch.setenv("PATH", str(tmp_path))
        with pytest.raises(
            BackendError, match=r"pg_config \(not on PATH\).*/nowhere/\*/bin.*\[postgres\]"
        ) as caught:
            find_bindir(None, search=("/nowhere/*/bin",))
        cluster = PostgresCluster.for_settings(PostgresSettings(bindir=str(tmp_path)), Home(tmp_path))
        with pytest.raises(BackendError, match="initdb"):
            cluster.ensure_running()
