"""The release pipeline on the Ray engine, as a user runs it (the CLI, a local Ray instance of its own):
build on Ray; ``verify --engine ray`` (one task per server) marks what the next release changed;
``refresh --engine ray`` probes only that, on Ray; a second verify agrees and the diff reports the
release."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

from toolatlas.config import load_catalogue  # noqa: E402
from toolatlas.graph.models import EntryKind, EntryStatus  # noqa: E402
from toolatlas.lifecycle import diff_atlases, load_export  # noqa: E402
from toolatlas.store.paths import open_store  # noqa: E402
from toolatlas.testing.releases import RELEASE_2_CHANGES, release_catalogue  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.servers


def toolatlas(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolatlas", *argv], capture_output=True, text=True, timeout=600,
                          cwd=REPO, env={**os.environ, "TOOLATLAS_HOME": str(REPO / ".toolatlas")}, check=False)


def ok(done: subprocess.CompletedProcess[str], status: int = 0) -> str:
    assert done.returncode == status, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow  # 75 s; the same cycle runs in process in tests/lifecycle/ (default suite)
class TestOnRay:
    def test_build_verify_refresh_verify_diff(self, tmp_path: Path) -> None:
        config = release_catalogue(tmp_path, 1)
        ok(toolatlas("build", str(config), "--engine", "ray"))
        ok(toolatlas("export", str(config), "-o", str(tmp_path / "v1.json")))
        release_catalogue(tmp_path, 2)

        assert "replays agreed" in ok(toolatlas("verify", str(config), "--engine", "ray"), status=1)
        store = open_store(load_catalogue(config))
        try:
            (server,) = store.all("servers")
            status = {(e.tool, e.status) for e in store.all("entries") if e.kind is not EntryKind.CO_USAGE}
        finally:
            store.close()
        assert set(server.fingerprint.tools) == {"add_note", "count_notes", "export_all", "get_note", "shout"}
        assert server.verified_at is not None
        assert {("export_all", EntryStatus.RETIRED), ("add_note", EntryStatus.STALE),
                ("shout", EntryStatus.CONTRADICTED), ("count_notes", EntryStatus.ACTIVE)} <= status

        refreshed = ok(toolatlas("refresh", str(config), "--engine", "ray"))
        fates = {tuple(line.split()) for line in refreshed.splitlines() if line.startswith("  ")}
        assert {("add_note", "reprobed"), ("search_notes", "onboarded"), ("export_all", "retired"),
                ("shout", "revised")} <= fates
        ok(toolatlas("verify", str(config), "--engine", "ray"))
        ok(toolatlas("export", str(config), "-o", str(tmp_path / "v2.json")))
        diff = diff_atlases(load_export(tmp_path / "v1.json"), load_export(tmp_path / "v2.json"))
        assert RELEASE_2_CHANGES <= {(c.kind.value, c.tool) for c in diff.changes}
