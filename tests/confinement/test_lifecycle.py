"""Nothing outlives what started it: killed drivers take their servers, stale folders and cgroups go,
a build's helper processes are reaped, and a flood of warnings does not drown the console."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hostile_kit import HostileWorld, processes_started_by, processes_tagged, toml_catalogue

from toolatlas.confinement.cgroups import pids_cgroups, sweep_dead_owners
from toolatlas.confinement.reaper import tagged_processes
from toolatlas.leases import owned_instances, sweep_stale_instances

REPO = Path(__file__).resolve().parents[2]


def wait_until(condition, seconds: float = 15.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def start_driver(script: str, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """A Python process running ``script``; returns it and the line it prints once ready."""
    driver = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
    )
    assert driver.stdout is not None
    for line in driver.stdout:  # an unconfigured structlog also prints to stdout: skip its lines
        if line.startswith("ready"):
            return driver, line
    driver.kill()
    raise AssertionError(f"the driver did not get ready (exit {driver.wait()})")


SANDBOX_DRIVER = """
    import asyncio, sys, time
    from pathlib import Path
    from toolatlas.config import load_catalogue
    from toolatlas.home import Home
    from toolatlas.workspace import Workspace

    async def main():
        workspace = Workspace(load_catalogue(sys.argv[1]), Home(Path(sys.argv[2])))
        sandbox = workspace.sandbox("hostile")
        await sandbox.start()
        for tool in ("linger", "daemonize"):
            assert (await sandbox.call(tool, {})).ok
        print("ready", sandbox.instance.slot, flush=True)
        time.sleep(3600)  # blocks the loop: a driver that hangs, then is killed

    asyncio.run(main())
"""


class TestAKilledDriver:
    def test_takes_its_servers_and_their_daemons_along(self, world: HostileWorld, tmp_path: Path) -> None:
        """SIGKILL a driver whose server ignores EOF and SIGTERM and left a setsid daemon: both go, and
        its instance folder is removed at the next start in the same home."""
        config = toml_catalogue(tmp_path / "hostile.toml", world.server())
        home = tmp_path / "home"
        driver, ready = start_driver(SANDBOX_DRIVER, str(config), str(home))
        slot = Path(ready.split()[1])
        def server_processes() -> list[int]:
            return processes_started_by(world.marker) + processes_tagged(world.marker)

        assert processes_tagged(world.marker), "the daemon runs while the driver lives"
        assert slot.is_dir()
        driver.kill()
        driver.wait(10)
        assert wait_until(lambda: not server_processes()), f"left behind: {server_processes()}"
        owned_instances(home / "instances")  # what the next process in this home does first
        assert not slot.exists() and not Path(str(slot.parent) + ".lock").exists()


HOLDER = """
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("ready", flush=True)
    time.sleep(3600)
"""


class TestStaleInstances:
    def test_only_folders_whose_owner_is_dead_are_removed(self, tmp_path: Path) -> None:
        """A folder whose lock is held by a live process stays; one whose lock nobody holds goes."""
        instances = tmp_path / "instances"
        instances.mkdir()
        for name in ("live-owner", "dead-owner"):
            (instances / name / "server-1" / "state").mkdir(parents=True)
        (instances / "dead-owner.lock").touch()
        holder, _ = start_driver(HOLDER, str(instances / "live-owner.lock"))
        try:
            assert sweep_stale_instances(instances) == 1
            assert (instances / "live-owner" / "server-1" / "state").is_dir()
            assert not (instances / "dead-owner").exists() and not (instances / "dead-owner.lock").exists()
        finally:
            holder.kill()
            holder.wait()
        assert sweep_stale_instances(instances) == 1  # its owner gone, the folder goes too
        assert not (instances / "live-owner").exists()

    def test_unowned_folders_go_only_once_untouched_for_the_grace_period(self, tmp_path: Path) -> None:
        """Folders of the layout without owners cannot name one: removed only when long untouched."""
        instances = tmp_path / "instances"
        old, recent = instances / "git-0123456789", instances / "git-abcdefabcd"
        for folder in (old, recent):
            (folder / "state").mkdir(parents=True)
        long_ago = time.time() - 3 * 86400
        for path in (old / "state", old):
            os.utime(path, (long_ago, long_ago))
        assert sweep_stale_instances(instances) == 1
        assert not old.exists() and recent.is_dir()

    def test_a_process_owns_a_locked_folder_of_its_own(self, tmp_path: Path) -> None:
        """The folder this process works in is locked: another process sees its owner alive."""
        owned = owned_instances(tmp_path / "instances")
        assert owned.parent == (tmp_path / "instances").resolve() and owned.name.startswith(f"{os.getpid()}-")
        fd = os.open(str(owned) + ".lock", os.O_RDWR)
        try:
            probe = subprocess.run(
                [sys.executable, "-c", "import fcntl, os, sys; fcntl.flock(int(sys.argv[1]), fcntl.LOCK_EX | fcntl.LOCK_NB)", str(fd)],
                pass_fds=(fd,), capture_output=True, text=True, check=False,
            )  # fmt: skip
        finally:
            os.close(fd)
        assert probe.returncode != 0 and "BlockingIOError" in probe.stderr


class TestPidsCgroups:
    @pytest.fixture()
    def cgroups(self):  # type: ignore[no-untyped-def]
        found = pids_cgroups()
        if found is None:
            pytest.skip("no writable pids cgroup here (not root): RLIMIT_NPROC bounds each sandbox instead")
        return found

    def test_a_dead_owners_cgroups_are_emptied_and_removed(self, cgroups) -> None:  # type: ignore[no-untyped-def]
        """A leftover process in the cgroup of an owner that is gone is killed, and the folders go."""
        dead = cgroups.root / "999999999-0"
        group = dead / "4242"
        group.mkdir(parents=True)
        leftover = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        try:
            (group / "cgroup.procs").write_text(str(leftover.pid))
            sweep_dead_owners(cgroups.root)
            assert not dead.exists()
            assert leftover.wait(10) == -signal.SIGKILL
        finally:
            leftover.kill()

    def test_an_owner_swept_by_another_meanwhile_is_skipped(self, cgroups) -> None:  # type: ignore[no-untyped-def]
        """The workers of one machine start together: a dead owner another worker removed between
        this sweep's listing and its visit is skipped, not an error that fails a server's start."""
        dead = cgroups.root / "999999998-0"
        (dead / "7").mkdir(parents=True)

        class SweptMeanwhile(type(cgroups.root)):  # type: ignore[misc]
            def is_dir(self) -> bool:
                seen = super().is_dir()
                if self.parent == cgroups.root and self.name == dead.name:
                    sweep_dead_owners(cgroups.root)  # the other worker, between seeing and visiting
                return seen

        sweep_dead_owners(SweptMeanwhile(cgroups.root))
        assert not dead.exists()

    async def test_each_sandbox_has_one_while_it_runs(self, cgroups, world: HostileWorld, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
        """A sandbox's processes are counted in a cgroup of its own, removed once it has exited."""
        from toolatlas.home import Home
        from toolatlas.workspace import Workspace

        workspace = Workspace(world.catalogue(world.server(limits={"processes": 40})), Home(tmp_path / "home"))
        async with workspace.sandbox("hostile") as sandbox:
            assert sandbox.connection is not None
            group = cgroups.owner / str(sandbox.connection.pid)
            assert (group / "pids.max").read_text().strip() == "40"
            assert int((group / "pids.current").read_text()) >= 3  # bubblewrap twice, the server
        assert wait_until(lambda: not group.exists(), 5)


REAPER_DRIVER = """
    import os, subprocess, sys, time
    from toolatlas.confinement.reaper import ProcessReaper

    reaper = ProcessReaper()
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"
    subprocess.Popen([sys.executable, "-c", stubborn])  # ignores SIGTERM, like a Ray agent
    subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(3600)"])  # its own session
    time.sleep(0.5)
    print("ready", reaper.tag, flush=True)
    if sys.argv[1] == "stop":
        reaper.stop()
        print("stopped", flush=True)
    time.sleep(3600)
"""


class TestProcessReaper:
    def test_a_killed_driver_leaves_none_of_its_processes(self) -> None:
        """The driver dies by SIGKILL: its tagged processes — one ignores SIGTERM, one left the session
        — are stopped by the watcher all the same."""
        driver, ready = start_driver(REAPER_DRIVER, "kill")
        tag = ready.split()[1]
        assert len(tagged_processes(tag)) == 2
        driver.kill()
        driver.wait(10)
        assert wait_until(lambda: not tagged_processes(tag)), tagged_processes(tag)

    def test_stopping_it_ends_them_before_the_driver_goes_on(self) -> None:
        """``stop()`` (the end of a build) returns once the tagged processes are gone, and untags the driver."""
        driver, ready = start_driver(REAPER_DRIVER, "stop")
        tag = ready.split()[1]
        try:
            assert driver.stdout is not None
            assert any(line.strip() == "stopped" for line in driver.stdout)
            assert tagged_processes(tag) == []
        finally:
            driver.kill()
            driver.wait(10)


    def test_the_postgres_cluster_is_not_the_builds_to_stop(self) -> None:
        """The private PostgreSQL cluster outlives builds: it is started without the build's tag."""
        from toolatlas.confinement.reaper import TAG_VARIABLE
        from toolatlas.environments.pgcluster import BUILD_TAG_VARIABLE

        assert BUILD_TAG_VARIABLE == TAG_VARIABLE


BABBLE_DRIVER = """
    import asyncio, sys
    from pathlib import Path
    from toolatlas.config import load_catalogue
    from toolatlas.home import Home
    from toolatlas.logs import configure_logging
    from toolatlas.workspace import Workspace

    configure_logging("warning")

    async def main():
        async with Workspace(load_catalogue(sys.argv[1]), Home(Path(sys.argv[2]))).sandbox("hostile") as sandbox:
            print("ready", (await sandbox.call("babble", {})).excerpt, flush=True)
            await asyncio.sleep(3)

    asyncio.run(main())
"""


class TestLogsUnderLoad:
    def test_a_flood_of_one_warning_is_shown_a_few_times_then_counted(
        self, world: HostileWorld, tmp_path: Path
    ) -> None:
        """5000 lines of garbage on a server's stdout: a handful of warnings, then one line with the count."""
        config = toml_catalogue(tmp_path / "babble.toml", world.server(env={"HOSTILE_BABBLE": "5000"}))
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(BABBLE_DRIVER), str(config), str(tmp_path / "home")],
            capture_output=True, text=True, timeout=120, cwd=REPO, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        lines = done.stderr.splitlines()
        noise = [line for line in lines if "] server_protocol_noise" in line]
        summary = [line for line in lines if "repeated_warnings_dropped" in line]
        assert 1 <= len(noise) <= 10, len(noise)
        assert len(summary) == 1 and "of=server_protocol_noise" in summary[0] and "server=hostile" in summary[0]
        dropped = int(summary[0].split("dropped=")[1].split()[0])
        counted = sum(int(line.split("repeated=")[1].split()[0]) for line in noise if "repeated=" in line)
        assert len(noise) + counted + dropped == 5000
