"""The release pipeline on the Ray engine, as a user runs it (the CLI, a local Ray instance of its own):
a Ray build records its server's fingerprint, and ``verify --engine ray`` replays the evidence as
one task per server and marks what the next release changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

from toolatlas.build.catalogue import open_store  # noqa: E402
from toolatlas.config import load_catalogue  # noqa: E402
from toolatlas.graph.models import EntryKind, EntryStatus  # noqa: E402
from toolatlas.testing.releases import release_catalogue  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.servers


def toolatlas(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolatlas", *argv], capture_output=True, text=True, timeout=600,
                          cwd=REPO, env={**os.environ, "TOOLATLAS_HOME": str(REPO / ".toolatlas")}, check=False)


class TestOnRay:
    def test_a_ray_build_is_fingerprinted_and_verified_on_ray(self, tmp_path: Path) -> None:
        config = release_catalogue(tmp_path, 1)
        built = toolatlas("build", str(config), "--engine", "ray")
        assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
        release_catalogue(tmp_path, 2)
        verified = toolatlas("verify", str(config), "--engine", "ray")
        assert verified.returncode == 1, verified.stdout[-2000:] + verified.stderr[-3000:]
        assert "versioned" in verified.stdout and "replays agreed" in verified.stdout

        store = open_store(load_catalogue(config))
        try:
            (server,) = store.all("servers")
            entries = [e for e in store.all("entries") if e.kind is not EntryKind.CO_USAGE]
        finally:
            store.close()
        assert set(server.fingerprint.tools) == {"add_note", "count_notes", "export_all", "get_note", "shout"}
        assert server.verified_at is not None
        status = {(e.tool, e.status) for e in entries}
        assert {("export_all", EntryStatus.RETIRED), ("add_note", EntryStatus.STALE),
                ("shout", EntryStatus.CONTRADICTED), ("count_notes", EntryStatus.ACTIVE)} <= status
