"""The ``postgres`` kind: a database cloned from a template database in the private cluster.

A snapshot is a template database ``tpl_<hash16>`` built from a ``.sql`` script (``hash16``:
the script's content hash). It is built under a temporary name and renamed only once the
script has loaded and the database is marked complete (``COMMENT ON DATABASE``, which never
shows in a digest), so a crash never leaves a half-built template behind. Templates are
``IS_TEMPLATE true, ALLOW_CONNECTIONS false``: nobody can change or drop them by accident, and
``CREATE DATABASE ... TEMPLATE`` never finds a session in the way.

An instance is the database ``inst_<slot name>_<slot hash>`` plus the usual ``<slot>/home`` and
``<slot>/state`` folders; reset drops it (terminating the server's sessions, hence
``restart_on_reset``) and clones it again under the same name; freezing renames it to
``frozen_<unique>`` so verifiers can read it while the instance is reset at once.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

import psycopg
import structlog
from psycopg import sql

from toolatlas.environments import seeds
from toolatlas.environments.base import FrozenState, Instance, Snapshot, StateDigest, remove_tree
from toolatlas.environments.pgcluster import PostgresCluster
from toolatlas.errors import BackendError, SandboxError, SnapshotError
from toolatlas.models import canonical_json

__all__ = ["PostgresEnvironment", "instance_database", "state_items"]

log = structlog.get_logger(__name__)

LOAD_TIMEOUT_S = 600
"""Bound on loading one snapshot script (psql) into a template."""
_MAX_IDENT = 63  # NAMEDATALEN - 1
_COMPLETE = "toolatlas template {hash} complete"


def _sha16(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def instance_database(slot: Path) -> str:
    """``inst_<sanitised slot name>_<hash of the slot path>``: readable, unique per slot, ≤ 63 bytes."""
    name = re.sub(r"[^a-z0-9_]+", "_", slot.name.lower()).strip("_")[:40]
    return f"inst_{name}_{_sha16(str(slot.absolute()).encode())[:8]}"


class PostgresEnvironment:
    """PostgreSQL databases cloned from template databases in the private cluster."""

    kind: ClassVar[str] = "postgres"
    restart_on_reset: ClassVar[bool] = True

    def __init__(self, cluster: PostgresCluster) -> None:
        self.cluster = cluster
        self._conn: psycopg.Connection | None = None
        self._lock = threading.Lock()
        self._snapshot_digests: dict[str, StateDigest] = {}

    # -- snapshot -------------------------------------------------------------------------------

    def materialise(self, source: Path | None, seed: str | None, target_dir: Path) -> Snapshot:
        script = self._script(source, seed, target_dir)
        try:
            content_hash = _sha16(script.read_bytes())
        except OSError as exc:
            raise SnapshotError(f"postgres snapshot source {script} is not readable: {exc}") from exc
        template = f"tpl_{content_hash}"
        with self._admin() as conn:
            # One builder per script across processes; a crashed builder's session (and lock) dies with it.
            # The lock is session-level: it outlives the transaction that bounds the wait for it.
            with conn.transaction():
                wait_ms = (LOAD_TIMEOUT_S + 60) * 1000
                conn.execute(f"SET LOCAL lock_timeout = {wait_ms}; SET LOCAL statement_timeout = {wait_ms}")
                conn.execute("SELECT pg_advisory_lock(hashtext(%s))", [template])
            try:
                if self._comment(conn, template) != _COMPLETE.format(hash=content_hash):
                    self._build(conn, script, template, content_hash)
            finally:
                if not conn.broken:
                    conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", [template])
        return Snapshot(kind=self.kind, path=template, content_hash=content_hash)

    def _script(self, source: Path | None, seed: str | None, target_dir: Path) -> Path:
        """The SQL script to load: ``source``, or the seed's script written to ``target_dir/seed.sql``."""
        if seed is not None:
            target_dir.mkdir(parents=True, exist_ok=True)
            staging = target_dir / f".seed-{uuid.uuid4().hex}.sql"
            try:
                seeds.generate(seed, self.kind, staging)
                os.replace(staging, target_dir / "seed.sql")
            finally:
                staging.unlink(missing_ok=True)
            return target_dir / "seed.sql"
        assert source is not None
        if not source.is_file():
            raise SnapshotError(f"postgres snapshot source {source} does not exist or is not a file")
        if source.suffix.lower() != ".sql":
            raise SnapshotError(
                f"postgres snapshot source {source} must be a .sql script (plain pg_dump output works)"
            )
        return source

    def _build(self, conn: psycopg.Connection, script: Path, template: str, content_hash: str) -> None:
        """Load ``script`` into a fresh database under a temporary name, mark it complete, rename it."""
        for (stale,) in conn.execute(
            "SELECT datname FROM pg_database WHERE datname = %s OR datname LIKE %s",
            [template, f"build\\_{content_hash}\\_%"],
        ).fetchall():
            self._drop(conn, stale)  # an unmarked template or a crashed build of this script
        building = f"build_{content_hash}_{uuid.uuid4().hex[:8]}"
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(building)))
        try:
            self._load(script, building)
            ident = sql.Identifier(building)
            conn.execute(
                sql.SQL("COMMENT ON DATABASE {} IS {}").format(
                    ident, sql.Literal(_COMPLETE.format(hash=content_hash))
                )
            )
            conn.execute(
                sql.SQL("ALTER DATABASE {} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false").format(ident)
            )
            conn.execute(sql.SQL("ALTER DATABASE {} RENAME TO {}").format(ident, sql.Identifier(template)))
        except BaseException:
            try:
                self._drop(conn, building)
            except psycopg.Error as exc:  # keep the build's own error; the next build drops the leftover
                log.warning("postgres_build_cleanup_failed", database=building, error=str(exc))
            raise
        log.info("postgres_template_built", template=template, script=str(script))

    def _load(self, script: Path, database: str) -> None:
        """Run the script with psql (so ``COPY ... FROM stdin`` and meta-commands of pg_dump output work)."""
        argv = [
            str(self.cluster.bindir / "psql"),
            "-X",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-d",
            self.cluster.uri(database),
            "-f",
            str(script),
        ]
        try:
            result = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=LOAD_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PGCONNECT_TIMEOUT": "10", "PGOPTIONS": "-c client_min_messages=warning"},
            )
        except subprocess.TimeoutExpired as exc:
            raise SnapshotError(
                f"loading postgres snapshot script {script} took more than {LOAD_TIMEOUT_S}s"
            ) from exc
        except OSError as exc:
            raise SnapshotError(f"cannot run psql to load postgres snapshot script {script}: {exc}") from exc
        if result.returncode != 0:
            raise SnapshotError(
                f"postgres snapshot script {script} failed to load: {result.stderr.strip()[-2000:]}"
            )

    # -- instances ------------------------------------------------------------------------------

    def prepare(self, snapshot: Snapshot, slot: Path) -> Instance:
        home, state = slot / "home", slot / "state"
        try:
            home.mkdir(parents=True, exist_ok=True)
            state.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SandboxError(f"cannot prepare a postgres instance in {slot}: {exc}") from exc
        database = instance_database(slot)
        with self._admin() as conn:
            self._drop(conn, database)  # leftover of a crashed run in the same slot
            self._clone(conn, snapshot.path, database)
        variables = {
            "database": database,
            "database_uri": self.cluster.uri(database),
            "root": str(state),
            "home": str(home),
        }
        return Instance(
            kind=self.kind,
            id=slot.name,
            slot=str(slot),
            snapshot=snapshot,
            variables=variables | snapshot.variables,
        )

    def held_open(self, instance: Instance, held: Sequence[str] = ()) -> bool:
        return False  # the server is restarted after every reset already

    def reset(self, instance: Instance) -> None:
        """Drop the instance database (``FORCE`` terminates the server's sessions) and clone it again."""
        database = instance.variables["database"]
        with self._admin() as conn:
            self._drop(conn, database)
            self._clone(conn, instance.snapshot.path, database)

    def freeze(self, instance: Instance, target: Path) -> FrozenState:
        """Rename the instance database to ``frozen_<unique>``; ``target`` is unused (state is a database).

        The database is locked against new sessions first, then the server's sessions are
        terminated, so that nothing can reconnect between the terminate and the rename.
        """
        database = instance.variables["database"]
        frozen = f"frozen_{uuid.uuid4().hex[:12]}_{database.removeprefix('inst_')}"[:_MAX_IDENT]
        with self._admin() as conn:
            if not self._exists(conn, database):
                conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(frozen)))
            else:
                ident = sql.Identifier(database)
                try:
                    # Lock the server out first so it cannot reconnect between terminate and rename.
                    conn.execute(sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS false").format(ident))
                    conn.execute(
                        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = %s",
                        [database],
                    )
                    conn.execute(
                        sql.SQL("ALTER DATABASE {} RENAME TO {}").format(ident, sql.Identifier(frozen))
                    )
                    conn.execute(
                        sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS true").format(
                            sql.Identifier(frozen)
                        )
                    )
                except psycopg.Error as exc:
                    raise SandboxError(
                        f"cannot freeze postgres instance {instance.id} ({database}): {exc}"
                    ) from exc
        return FrozenState(
            kind=self.kind,
            instance_id=instance.id,
            path=frozen,
            variables={"database": frozen, "database_uri": self.cluster.uri(frozen)},
        )

    def discard(self, state: Instance | FrozenState) -> None:
        database = state.variables["database"] if isinstance(state, Instance) else state.path
        with self._admin() as conn:
            self._drop(conn, database)
        if isinstance(state, Instance):
            remove_tree(Path(state.slot))

    # -- digests --------------------------------------------------------------------------------

    def digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest:
        """Schema, rows by primary key and sequence values (see :func:`state_items`)."""
        if isinstance(state, Snapshot):
            return self._snapshot_digest(state)
        database = state.variables["database"] if isinstance(state, Instance) else state.path
        with self._admin() as conn:
            if not self._exists(conn, database):
                return StateDigest(kind=self.kind, items={})
        return StateDigest(kind=self.kind, items=self._items(database))

    def quick_digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest | None:
        return None  # every digest is a round of queries

    def quick_reset(self, instance: Instance) -> bool:
        return False

    def _snapshot_digest(self, snapshot: Snapshot) -> StateDigest:
        """Digest a template through a clone (templates take no connections), cached by content hash."""
        cached = self._snapshot_digests.get(snapshot.content_hash)
        if cached is not None:
            return cached
        clone = f"digest_{snapshot.content_hash}_{uuid.uuid4().hex[:8]}"
        with self._admin() as conn:
            self._clone(conn, snapshot.path, clone)
        try:
            digest = StateDigest(kind=self.kind, items=self._items(clone))
        finally:
            with self._admin() as conn:
                self._drop(conn, clone)
        self._snapshot_digests[snapshot.content_hash] = digest
        return digest

    def _items(self, database: str) -> dict[str, str]:
        try:
            with self.cluster.connect(database) as conn:
                return state_items(conn)
        except psycopg.Error as exc:
            raise SandboxError(f"cannot digest postgres database {database}: {exc}") from exc

    # -- admin connection -------------------------------------------------------------------------

    @contextmanager
    def _admin(self) -> Iterator[psycopg.Connection]:
        """The environment's one connection to the ``postgres`` database (starts the cluster on first use)."""
        with self._lock:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self.cluster.ensure_running()
                self._conn = self.cluster.connect("postgres")
            try:
                yield self._conn
            except psycopg.OperationalError as exc:
                if self._conn.broken:
                    self._conn = None
                    raise BackendError(
                        f"lost the connection to PostgreSQL at {self.cluster.uri('postgres')}: {exc}"
                    ) from exc
                raise SandboxError(f"postgres environment operation failed: {exc}") from exc
            except psycopg.Error as exc:
                raise SandboxError(f"postgres environment operation failed: {exc}") from exc

    def __getstate__(self) -> dict[str, object]:
        """Pickle the cluster description only (a connection and a lock do not travel)."""
        return {"cluster": self.cluster}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["cluster"])  # type: ignore[misc, arg-type]

    def close(self) -> None:
        """Close the admin connection (the cluster keeps running)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @staticmethod
    def _clone(conn: psycopg.Connection, template: str, database: str) -> None:
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(database), sql.Identifier(template)
            )
        )

    @staticmethod
    def _drop(conn: psycopg.Connection, database: str) -> None:
        """Drop a database with its sessions; a database marked as template is unmarked first."""
        ident = sql.Identifier(database)
        if conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s AND datistemplate", [database]
        ).fetchone():
            conn.execute(sql.SQL("ALTER DATABASE {} WITH IS_TEMPLATE false").format(ident))
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(ident))

    @staticmethod
    def _exists(conn: psycopg.Connection, database: str) -> bool:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone() is not None

    @staticmethod
    def _comment(conn: psycopg.Connection, database: str) -> str | None:
        row = conn.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s", [database]
        ).fetchone()
        return row[0] if row else None


# -- what a database state is, item by item ---------------------------------------------------------


def _user_schema(column: str) -> str:
    """SQL condition: ``column`` names a schema the database's users made (not a system one)."""
    return (
        f"{column} NOT IN ('pg_catalog', 'information_schema') "
        rf"AND {column} NOT LIKE 'pg\_toast%' AND {column} NOT LIKE 'pg\_temp\_%'"
    )


_RELATIONS = f"""
SELECT n.nspname, c.relname, c.relkind,
  (SELECT json_agg(json_build_array(a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                                    pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated)
                   ORDER BY a.attnum)
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
  (SELECT json_agg(json_build_array(k.conname, pg_get_constraintdef(k.oid)) ORDER BY k.conname)
     FROM pg_constraint k WHERE k.conrelid = c.oid) AS constraints,
  (SELECT json_agg(pg_get_indexdef(i.indexrelid) ORDER BY pg_get_indexdef(i.indexrelid))
     FROM pg_index i WHERE i.indrelid = c.oid) AS indexes,
  (SELECT json_agg(pg_get_triggerdef(t.oid) ORDER BY t.tgname)
     FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal) AS triggers,
  CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END AS definition,
  (SELECT array_agg(a.attname ORDER BY array_position(i.indkey::int2[], a.attnum))
     FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
    WHERE i.indrelid = c.oid AND i.indisprimary) AS primary_key
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND {_user_schema("n.nspname")}
ORDER BY n.nspname, c.relname
"""

_FUNCTIONS = f"""
SELECT p.oid::regprocedure::text, md5(pg_get_functiondef(p.oid))
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE p.prokind IN ('f', 'p') AND {_user_schema("n.nspname")}
  AND NOT EXISTS (SELECT 1 FROM pg_depend e
                  WHERE e.classid = 'pg_proc'::regclass AND e.objid = p.oid AND e.deptype = 'e')
"""


def _label(schema: str, name: str) -> str:
    return name if schema == "public" else f"{schema}.{name}"


def state_items(conn: psycopg.Connection) -> dict[str, str]:
    """Describe the database behind ``conn`` in one consistent read-only snapshot.

    Items: ``schema:<table>`` (columns, types, defaults, constraints, indexes, triggers; views:
    their definition), ``<table>#<primary key>`` → hash of the row (``<table>#<row hash>`` for
    tables without a primary key, with ``*n`` for n identical rows), ``seq:<sequence>`` → last
    value, ``function:<signature>``, ``extension:<name>`` → version and ``namespace:<schema>``.
    Tables outside ``public`` are named ``<schema>.<table>``.
    """
    items: dict[str, str] = {}
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        for schema, name, relkind, *shape, pk in conn.execute(_RELATIONS).fetchall():
            # shape: columns, constraints, indexes, triggers, view definition
            label = _label(schema, name)
            items[f"schema:{label}"] = hashlib.sha256(canonical_json([relkind, *shape]).encode()).hexdigest()[
                :32
            ]
            if relkind == "r":
                items.update(_row_items(conn, schema, name, label, pk, only=True))
            elif relkind == "m":
                items.update(_row_items(conn, schema, name, label, None, only=False))
        sequences = "SELECT schemaname, sequencename, last_value FROM pg_sequences WHERE " + _user_schema(
            "schemaname"
        )
        for schema, name, last_value in conn.execute(sequences).fetchall():
            items[f"seq:{_label(schema, name)}"] = "unused" if last_value is None else str(last_value)
        for signature, definition_hash in conn.execute(_FUNCTIONS).fetchall():
            items[f"function:{signature}"] = definition_hash
        for name, version in conn.execute("SELECT extname, extversion FROM pg_extension").fetchall():
            items[f"extension:{name}"] = version
        for (schema,) in conn.execute(f"SELECT nspname FROM pg_namespace WHERE {_user_schema('nspname')}"):
            items[f"namespace:{schema}"] = "1"
    return items


def _row_items(
    conn: psycopg.Connection, schema: str, name: str, label: str, pk: list[str] | None, *, only: bool
) -> dict[str, str]:
    table = sql.SQL("ONLY {}.{}" if only else "{}.{}").format(sql.Identifier(schema), sql.Identifier(name))
    if pk:
        keys = sql.SQL(", ").join(sql.SQL("r.{}::text").format(sql.Identifier(col)) for col in pk)
        query = sql.SQL("SELECT {}, md5(ROW(r.*)::text) FROM {} AS r").format(keys, table)
        items = {}
        for row in conn.execute(query):
            key = row[0] if len(pk) == 1 else canonical_json(list(row[:-1]))
            items[f"{label}#{key}"] = row[-1]
        return items
    query = sql.SQL("SELECT md5(ROW(r.*)::text), count(*) FROM {} AS r GROUP BY 1").format(table)
    return {f"{label}#{h}": h if n == 1 else f"{h}*{n}" for h, n in conn.execute(query)}
