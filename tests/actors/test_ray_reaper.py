"""A Ray build's local instance goes with the build: when it ends, and when its driver is SIGKILLed.

Without the reaper, a killed driver leaves the dashboard and runtime-env agents behind, listening on
every interface; ``ray.shutdown()`` at a normal end does not wait for all of them either.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")

from toolatlas.confinement.reaper import TAG_VARIABLE  # noqa: E402
from toolatlas.testing import hostile_server_command  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def catalogue(tmp_path: Path) -> Path:
    command, args = hostile_server_command()
    path = tmp_path / "tiny.toml"
    path.write_text(
        f'[store]\npath = "{tmp_path / "atlas"}"\n\n[build]\nseed_tasks_per_tool = 1\nrollouts_per_task = 1\n\n'
        f'[[servers]]\nname = "tiny"\ntransport = {{ command = "{command}", args = {[*args, "--only", "echo"]!r} }}\n'
        .replace("'", '"')
    )
    return path


def processes_of_build(driver: int) -> list[int]:
    """Live processes tagged by the reaper of the build whose driver is ``driver``."""
    prefix = f"{TAG_VARIABLE}={driver}-".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as handle:
                zombie = handle.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if not zombie and any(item.startswith(prefix) for item in environ):
            found.append(int(entry))
    return found


def start_build(config: Path, home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "TOOLATLAS_HOME": str(home), "RAY_AUTH_MODE": "disabled", "TOOLATLAS_RAY_NODE_IP": "127.0.0.2"}
    return subprocess.Popen(
        [sys.executable, "-m", "toolatlas", "build", str(config), "--engine", "ray", "--rounds", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO, env=env,
    )  # fmt: skip


def wait_until(condition, seconds: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


class TestLocalRayInstance:
    def test_a_killed_driver_leaves_no_ray_process(self, tmp_path: Path) -> None:
        """SIGKILL the driver once Ray runs the build: every process of its instance is gone soon after."""
        build = start_build(catalogue(tmp_path), tmp_path / "home")
        try:
            assert build.stdout is not None
            for line in build.stdout:
                if line.startswith("ray:"):
                    break
            else:
                pytest.fail(f"the Ray build did not start (exit {build.wait()})")
            running = processes_of_build(build.pid)
            assert len(running) >= 3, "GCS, raylet and workers carry the build's tag"
            build.kill()
            build.wait(30)
            assert wait_until(lambda: not processes_of_build(build.pid), 30), processes_of_build(build.pid)
        finally:
            build.kill()

    @pytest.mark.slow  # 12-22 s; by default Ray's processes carrying the build's tag are the killed driver's test
    # above, and the reaper's stop ending every tagged process before the driver goes on is
    # tests/confinement/test_lifecycle.py's TestProcessReaper
    def test_a_finished_build_leaves_no_ray_process(self, tmp_path: Path) -> None:
        """A build that ends normally has stopped its instance by the time the command returns."""
        build = start_build(catalogue(tmp_path), tmp_path / "home")
        output, _ = build.communicate(timeout=600)
        assert build.returncode == 0, output[-2000:]
        assert processes_of_build(build.pid) == []
