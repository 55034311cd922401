"""A verifier reads a frozen PostgreSQL state through the table dump the parent takes before the run."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from toolatlas.codebox import RunStatus, check_not_vacuous, run_verifier
from toolatlas.config.catalogue import PostgresSettings
from toolatlas.environments.pgcluster import PostgresCluster, find_bindir
from toolatlas.environments.postgres import PostgresEnvironment
from toolatlas.errors import BackendError
from toolatlas.home import Home

pytestmark = pytest.mark.postgres

SCRIPT = """
CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, qty integer, added date);
CREATE SCHEMA shop;
CREATE TABLE shop.orders (id integer PRIMARY KEY, item integer REFERENCES items (id));
INSERT INTO items (name, qty, added) VALUES ('apple', 3, '2024-01-02'), ('pear', 5, '2024-02-03');
"""

VERIFIER = """
def verify(state, answer):
    assert set(state.tables()) == {"items", "shop.orders"}, state.tables()
    plums = [row for row in state.rows("items") if row["name"] == "plum"]
    assert plums, "no plum"
    return plums[0]["qty"] == 7 and plums[0]["added"] == "2024-03-04"
"""


@pytest.fixture(scope="module")
def environment() -> Iterator[PostgresEnvironment]:
    try:
        find_bindir(None)
    except BackendError as exc:
        pytest.skip(f"PostgreSQL server binaries not found: {exc}")
    root = Path(tempfile.mkdtemp(prefix="toolatlas-codebox-pg-"))
    os.chmod(root, 0o755)  # the cluster's OS user must enter it
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cluster = PostgresCluster.for_settings(PostgresSettings(port=port), Home(root))
    cluster.ensure_running()
    environment = PostgresEnvironment(cluster)
    try:
        yield environment
    finally:
        environment.close()
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


async def test_rows_of_the_frozen_database_and_vacuity(
    environment: PostgresEnvironment, tmp_path: Path
) -> None:
    """The inserted row is visible in the post-state's dump; the untouched instance fails the same verifier."""
    script = tmp_path / "items.sql"
    script.write_text(SCRIPT)
    snapshot = environment.materialise(script, None, tmp_path / "snapshots")
    changed = environment.prepare(snapshot, tmp_path / "changed")
    untouched = environment.prepare(snapshot, tmp_path / "untouched")
    with psycopg.connect(changed.variables["database_uri"], autocommit=True) as conn:
        conn.execute("INSERT INTO items (name, qty, added) VALUES ('plum', 7, '2024-03-04')")
    post = environment.freeze(changed, tmp_path / "frozen-post")
    initial = environment.freeze(untouched, tmp_path / "frozen-initial")
    try:
        result = await run_verifier(VERIFIER, post)
        assert result.passed, result.detail + result.traceback
        report = await check_not_vacuous(VERIFIER, initial, post, requires_change=True)
        assert report.accepted, report.reason
        assert report.on_initial_state is not None
        assert (report.on_initial_state.status, report.on_initial_state.detail) == (
            RunStatus.FAILED,
            "no plum",
        )
    finally:
        for state in (post, initial):
            environment.discard(state)
