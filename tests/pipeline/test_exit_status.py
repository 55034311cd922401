"""`toolatlas build`'s exit status is something CI can gate on: 0 when every server was built, 1 when
one failed (the others' atlas is written all the same), 2 on a usage error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from toolatlas import __version__
from toolatlas.cli import main
from toolatlas.testing.releases import release_catalogue

pytestmark = pytest.mark.servers

BROKEN = f"""
[[servers]]
name = "broken"
transport = {{ command = "{sys.executable}", args = ["-c", "import sys; sys.exit(3)"] }}
limits = {{ max_restarts = 0, start_timeout_s = 20.0 }}
"""


def bootstrap_only(dest: Path) -> Path:
    """Release 1's catalogue built to its bootstrap with one seed task and one rollout per tool: the
    exit status does not depend on how much a build explores."""
    config = release_catalogue(dest, 1, rounds=0)
    text = config.read_text().replace("rounds = 0\n", "rounds = 0\nseed_tasks_per_tool = 1\nrollouts_per_task = 1\n", 1)
    assert "rollouts_per_task = 1" in text, "the release catalogue's [build] moved: update this helper"
    config.write_text(text)
    return config


class TestBuildExitStatus:
    def test_a_server_that_fails_is_exit_1_and_the_rest_is_built(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A build where one server fails to start exits 1, names it, and writes the others' atlas."""
        config = bootstrap_only(tmp_path)
        config.write_text(config.read_text() + BROKEN)
        assert main(["build", str(config), "--engine", "asyncio"]) == 1
        assert "broken: failed" in capsys.readouterr().err
        report = json.loads((tmp_path / "atlas" / "build.json").read_text())
        assert report["servers"]["versioned"] == "ok" and report["servers"]["broken"].startswith("failed")
        atlas = json.loads((tmp_path / "atlas" / "atlas.json").read_text())
        (built,) = [server for server in atlas["servers"] if server["name"] == "versioned"]
        assert sum(len(tool["affordances"]) for tool in built["tools"]) > 0

    def test_every_server_built_is_exit_0(self, tmp_path: Path) -> None:
        """A build where every server was built exits 0."""
        assert main(["build", str(bootstrap_only(tmp_path)), "--engine", "asyncio"]) == 0

    @pytest.mark.parametrize(
        ("flag", "value", "said"),
        [("--rounds", "-1", "must be 0 or more"), ("--jobs", "0", "must be 1 or more"),
         ("--hosts", "many", "expected a whole number")],
    )
    def test_a_count_out_of_range_is_a_usage_error(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str, said: str
    ) -> None:
        """A negative round count, zero jobs or a non-number of hosts is a usage error (exit 2)."""
        with pytest.raises(SystemExit) as stopped:
            main(["build", str(release_catalogue(tmp_path, 1)), flag, value])
        assert stopped.value.code == 2 and said in capsys.readouterr().err

    def test_version(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`--version` prints the package's version and exits 0."""
        with pytest.raises(SystemExit) as stopped:
            main(["--version"])
        assert stopped.value.code == 0 and capsys.readouterr().out.strip() == f"toolatlas {__version__}"
