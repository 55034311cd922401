"""The write-capable PostgreSQL MCP server of configs/postgres.toml against template-cloned databases."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.environments.pgcluster import PostgresCluster
from toolatlas.errors import RuntimeInstallError
from toolatlas.home import Home
from toolatlas.models import OutcomeClass
from toolatlas.workspace import Workspace

pytestmark = pytest.mark.postgres

REPO = Path(__file__).resolve().parents[1]
CATALOGUE = load_catalogue(REPO / "configs" / "postgres.toml")
INSERT = "INSERT INTO members (full_name, email, joined_on) VALUES ('Probe Member', 'probe@example.test', '2024-05-01')"
SELECT = "SELECT email FROM members WHERE email = 'probe@example.test'"


@pytest.fixture(scope="module")
def workspace() -> Iterator[Workspace]:
    home = Home(REPO / ".toolatlas")
    try:
        Workspace(CATALOGUE, home).runtime(CATALOGUE.server("postgres"))
    except RuntimeInstallError as exc:
        pytest.skip(f"postgres-mcp is not installed (needs Python 3.12): {exc}")
    yield Workspace(CATALOGUE, home)
    PostgresCluster.for_settings(CATALOGUE.postgres, home).stop()


class TestPostgresServer:
    async def test_writes_stay_in_the_instance_and_reset_restores_rows(self, workspace: Workspace) -> None:
        """An INSERT through the server is visible in its instance only; reset gives back the template's rows."""
        async with workspace.sandbox("postgres") as sandbox, workspace.sandbox("postgres") as sibling:
            snapshot_digest = await sandbox.digest(sandbox.snapshot)
            written = await sandbox.call("execute_sql", {"sql": INSERT})
            assert written.outcome is OutcomeClass.OK, written.excerpt
            assert "probe@example.test" in (await sandbox.call("execute_sql", {"sql": SELECT})).excerpt
            assert "probe@example.test" not in (await sibling.call("execute_sql", {"sql": SELECT})).excerpt
            frozen = await sandbox.freeze_and_reset()
            change = snapshot_digest.diff(await sandbox.digest(frozen))
            assert any(key.startswith("members#") for key in change.added)
            assert await sandbox.digest() == snapshot_digest
            after = await sandbox.call("execute_sql", {"sql": SELECT})
            assert after.outcome is OutcomeClass.OK and "probe@example.test" not in after.excerpt
            await sandbox.discard(frozen)

    async def test_constraint_violation_is_reported(self, workspace: Workspace) -> None:
        """A statement the schema rejects comes back as an outcome carrying PostgreSQL's message."""
        async with workspace.sandbox("postgres") as sandbox:
            outcome = await sandbox.call("execute_sql", {"sql": "INSERT INTO members (full_name) VALUES (NULL)"})
            assert "null value" in outcome.excerpt.lower() or "violates" in outcome.excerpt.lower()
