"""A hostile MCP server in its OS sandbox: every attack is stopped, each stop is visible in the result.

The server (:mod:`toolatlas.testing.servers.hostile`) is real and runs in the bubblewrap sandbox a
build gives every stdio server; each test aims one attack at a real target (a file outside, a
listener on 127.0.0.1, a secret, the kernel's process table) and checks both what the server
answered and what happened to the target.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_kit import SECRET_TEXT, HostileWorld, processes_started_by, processes_tagged

from toolatlas.client import stdio
from toolatlas.confinement import Unconfined
from toolatlas.confinement.bubblewrap import (
    BubblewrapConfiner,
    bubblewrap_available,
    cpu_seconds,
    sandboxed_process,
)
from toolatlas.errors import ConfigError, ConfinementError
from toolatlas.home import Home
from toolatlas.models import OutcomeClass
from toolatlas.sandbox import Sandbox
from toolatlas.testing import hostile_server_command
from toolatlas.workspace import Workspace

SHADOW = Path("/etc/shadow")


def sandbox_of(world: HostileWorld, tmp_path: Path, **fields: object) -> Sandbox:
    catalogue = world.catalogue(world.server(**fields))
    return Workspace(catalogue, Home(tmp_path / "home")).sandbox("hostile")


async def answer(sandbox: Sandbox, tool: str) -> str:
    outcome = await sandbox.call(tool, {})
    assert outcome.outcome is OutcomeClass.OK, outcome
    return outcome.excerpt


async def gone(probe, seconds: float = 6.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while probe():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


class TestFilesystem:
    async def test_writes_outside_the_instance_are_refused(self, world: HostileWorld, tmp_path: Path) -> None:
        """A file outside the instance and one in a folder it may read are both refused; neither appears."""
        async with sandbox_of(world, tmp_path) as sandbox:
            text = await answer(sandbox, "write_outside")
        assert f"refused {world.outside}" in text and f"refused {world.granted / 'planted.txt'}" in text
        assert not world.outside.exists() and not (world.granted / "planted.txt").exists()

    async def test_secrets_outside_do_not_exist_for_it(self, world: HostileWorld, tmp_path: Path) -> None:
        """Neither a secret next to the build nor /etc/shadow can be read: they are not there at all."""
        async with sandbox_of(world, tmp_path) as sandbox:
            text = await answer(sandbox, "read_secrets")
        assert f"refused {world.secret}: No such file or directory" in text
        assert "refused /etc/shadow: No such file or directory" in text
        assert SECRET_TEXT not in text and "root:" not in text

    async def test_it_reads_what_the_catalogue_grants(self, world: HostileWorld, tmp_path: Path) -> None:
        """A folder in ``sandbox.read_only`` is readable (and only readable)."""
        readme = world.granted / "readme.txt"
        async with sandbox_of(world, tmp_path, env={"HOSTILE_SECRETS": str(readme)}) as sandbox:
            assert "granted to the server, read-only" in await answer(sandbox, "read_secrets")

    async def test_it_holds_no_capability_and_sees_only_its_view(self, world: HostileWorld, tmp_path: Path) -> None:
        """No capability is left (a read-only bind cannot be remounted writable); the root holds only the
        system folders and the first components of the paths it was given."""
        async with sandbox_of(world, tmp_path) as sandbox:
            text = await answer(sandbox, "capabilities")
            granted = [*sandbox_grant_paths(sandbox)]
        assert "CapEff=0000000000000000" in text
        shown = set(eval(text.split("root=", 1)[1]))
        system = {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "proc", "dev", "tmp"}
        assert shown <= system | {Path(p).parts[1] for p in granted}
        assert not shown & {"home", "boot", "var", "srv", "mnt", "media", "opt"} - {Path(p).parts[1] for p in granted}


def sandbox_grant_paths(sandbox: Sandbox) -> list[str]:
    """The paths bubblewrap binds for a running sandbox, read from its command line."""
    assert sandbox.connection is not None
    args = sandbox.connection.endpoint.args  # type: ignore[union-attr]
    return [args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind-try", "--bind")]


class TestNetwork:
    async def test_without_network_no_listener_is_reached(self, world: HostileWorld, tmp_path: Path) -> None:
        """By default a server has no internet socket at all: the connection is refused at socket()."""
        async with sandbox_of(world, tmp_path) as sandbox:
            text = await answer(sandbox, "connect_out")
        assert text == f"refused 127.0.0.1:{world.listener.port}: Permission denied"
        assert world.listener.connections == []

    async def test_loopback_is_its_own(self, world: HostileWorld, tmp_path: Path) -> None:
        """``network = "loopback"``: sockets work, but 127.0.0.1 is the sandbox's, not this machine's."""
        async with sandbox_of(world, tmp_path, network="loopback") as sandbox:
            text = await answer(sandbox, "connect_out")
        assert text == f"refused 127.0.0.1:{world.listener.port}: Connection refused"
        assert world.listener.connections == []

    async def test_host_network_is_granted_explicitly(self, world: HostileWorld, tmp_path: Path) -> None:
        """``network = "host"`` is what a catalogue must say for a server to reach this machine."""
        async with sandbox_of(world, tmp_path, network="host") as sandbox:
            text = await answer(sandbox, "connect_out")
        assert text == f"connected to 127.0.0.1:{world.listener.port}"
        deadline = time.monotonic() + 3
        while not world.listener.connections and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert world.listener.connections == [b"hello from the hostile server\n"]


class TestProcessesAndMemory:
    async def test_a_fork_bomb_stops_at_its_bound_and_nothing_is_left(self, world: HostileWorld, tmp_path: Path) -> None:
        """Forking is bounded by ``limits.processes`` (threads included); after close no fork remains."""
        fields = {"limits": {"processes": 48}, "env": {"HOSTILE_FORKS": "400"}}
        async with sandbox_of(world, tmp_path, **fields) as sandbox:
            text = await answer(sandbox, "fork_bomb")
            assert len(processes_started_by(world.marker)) > 1
        forked = int(text.split()[1])
        assert "refused: Resource temporarily unavailable" in text and forked < 48
        assert await gone(lambda: processes_started_by(world.marker))

    async def test_memory_beyond_the_address_space_limit_is_refused(
        self, world: HostileWorld, tmp_path: Path
    ) -> None:
        """``limits.memory_mb`` bounds each process: the allocation fails, the server answers on."""
        fields = {"limits": {"memory_mb": 512}, "env": {"HOSTILE_ALLOCATE_MB": "1024"}}
        async with sandbox_of(world, tmp_path, **fields) as sandbox:
            assert await answer(sandbox, "allocate") == "refused 1024 MiB: MemoryError"
            assert (await sandbox.call("echo", {"text": "still here"})).excerpt == "still here"

    async def test_a_daemon_does_not_outlive_its_sandbox(self, world: HostileWorld, tmp_path: Path) -> None:
        """Double fork + setsid escapes a process group, not a PID namespace: closing the sandbox ends it."""
        async with sandbox_of(world, tmp_path) as sandbox:
            assert "started" in await answer(sandbox, "daemonize")
            assert processes_tagged(world.marker), "the daemon should be running inside the sandbox"
        assert await gone(lambda: processes_tagged(world.marker))

    async def test_a_spinning_server_is_cut_off_once_no_call_renews_its_cpu_window(
        self, world: HostileWorld, tmp_path: Path
    ) -> None:
        """Start-up has an allowance of its own (this server burns two windows before it serves); while
        calls arrive, ``limits.cpu_s`` renews (a busy server is never cut off); a server that burns CPU
        with nothing asked of it is killed when the window runs out."""
        fields = {"limits": {"cpu_s": 1}, "env": {"HOSTILE_START_CPU_S": "2"}}
        async with sandbox_of(world, tmp_path, **fields) as sandbox:
            assert sandbox.connection is not None
            launcher = sandbox.connection.pid
            assert launcher is not None
            server = sandboxed_process(launcher)
            assert server is not None
            assert (cpu_seconds(server) or 0) >= 2, "the server should have burnt its start-up CPU"
            assert await answer(sandbox, "spin") == "spinning"
            deadline = time.monotonic() + 120
            while (cpu_seconds(server) or 0) < 3:  # three windows' worth, however busy this machine is
                assert (await sandbox.call("echo", {"text": "x"})).ok, "a called server must be kept alive"
                assert time.monotonic() < deadline, "the spinning thread got no CPU"
                await asyncio.sleep(0.2)
            assert sandboxed_process(launcher) == server
            assert await gone(lambda: sandboxed_process(launcher) == server, seconds=120)


class TestLogs:
    async def test_a_stderr_flood_is_capped_per_file_across_restarts(
        self, world: HostileWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Two processes of one sandbox (a restart between) share one log file, and its cap."""
        monkeypatch.setattr(stdio, "STDERR_LOG_MAX_BYTES", 1 << 20)
        async with sandbox_of(world, tmp_path, env={"HOSTILE_FLOOD_MB": "1.5"}) as sandbox:
            await answer(sandbox, "flood_stderr")
            assert sandbox.connection is not None
            await sandbox.connection.restart()
            await answer(sandbox, "flood_stderr")
            await sandbox.connection.restart()
            assert sandbox.logs_dir is not None
            logs = list(sandbox.logs_dir.glob("hostile.*.stderr.log"))
        assert len(logs) == 1
        assert (1 << 20) <= logs[0].stat().st_size <= (1 << 20) + (256 << 10) + 64


    async def test_the_logs_folder_keeps_the_newest_few_per_server(
        self, world: HostileWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Each sandbox writes a log of its own: an empty one goes when the server exits, and of a
        server's logs with content only the newest STDERR_LOGS_KEPT stay (a crash's is among them)."""
        from toolatlas import logs as logs_module

        monkeypatch.setattr(logs_module, "STDERR_LOGS_KEPT", 3)
        quiet = sandbox_of(world, tmp_path)
        async with quiet:
            assert quiet.logs_dir is not None and quiet.connection is not None
            log_path = quiet.connection.stderr_log
            assert log_path is not None
        assert not log_path.exists()
        written = []
        for _ in range(5):
            async with sandbox_of(world, tmp_path, env={"HOSTILE_FLOOD_MB": "0.01"}) as sandbox:
                await answer(sandbox, "flood_stderr")
                assert sandbox.connection is not None and sandbox.connection.stderr_log is not None
                written.append(sandbox.connection.stderr_log)
        kept = sorted(quiet.logs_dir.glob("hostile.*.stderr.log"))
        assert kept == sorted(written[-3:])
        assert all(path.stat().st_size > 0 for path in kept)

class TestChoosingTheMechanism:
    def test_every_stdio_server_is_sandboxed_by_default(self, world: HostileWorld, tmp_path: Path) -> None:
        """The workspace gives bubblewrap unless the catalogue says otherwise."""
        assert sandbox_of(world, tmp_path).confiner.mechanism == "bubblewrap"

    async def test_the_server_runs_in_its_own_pid_namespace(self, world: HostileWorld, tmp_path: Path) -> None:
        """The server's pid inside its sandbox is small: it has a namespace of its own."""
        async with sandbox_of(world, tmp_path) as sandbox:
            assert sandbox.connection is not None and sandbox.connection.pid is not None
            server = sandboxed_process(sandbox.connection.pid)
            assert server is not None
            nspid = next(line for line in Path(f"/proc/{server}/status").read_text().splitlines() if line.startswith("NSpid"))
            assert nspid.split()[1:] == [str(server), "2"]

    async def test_a_catalogue_can_opt_a_server_out(self, world: HostileWorld, tmp_path: Path) -> None:
        """``sandbox = { enabled = false }`` runs the server as a plain process: its attacks then land."""
        sandbox = sandbox_of(world, tmp_path, sandbox={"enabled": False})
        assert isinstance(sandbox.confiner, Unconfined)
        async with sandbox:
            assert sandbox.connection is not None and sandbox.connection.endpoint.confinement == "none"
            text = await answer(sandbox, "write_outside")
        assert f"wrote {world.outside}" in text

    def test_an_opted_out_server_is_warned_about_in_the_output(self, world: HostileWorld, tmp_path: Path) -> None:
        """`toolatlas servers check` (like `build`) names every server that runs outside the sandbox."""
        command, args = hostile_server_command()
        config = tmp_path / "optout.toml"
        config.write_text(
            "[[servers]]\n"
            'name = "unboxed"\n'
            f"transport = {{ command = {json.dumps(command)}, args = {json.dumps([*args, '--only', 'echo'])} }}\n"
            'smoke = { tool = "echo", arguments = { text = "hi" } }\n'
            "sandbox = { enabled = false }\n"
        )
        env = {**os.environ, "TOOLATLAS_HOME": str(tmp_path / "home")}
        done = subprocess.run([sys.executable, "-m", "toolatlas", "servers", "check", str(config)],
                              capture_output=True, text=True, timeout=300, env=env, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "warning: server 'unboxed' runs outside the OS sandbox" in done.stderr

    def test_a_machine_without_bubblewrap_gets_a_clear_error(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """No bwrap on PATH: the error says how to install it (nothing runs unconfined instead)."""
        monkeypatch.setenv("PATH", str(tmp_path))
        bubblewrap_available.cache_clear()
        try:
            with pytest.raises(ConfinementError, match="apt-get install bubblewrap"):
                BubblewrapConfiner()
        finally:
            monkeypatch.undo()
            bubblewrap_available.cache_clear()

    async def test_a_granted_path_that_does_not_exist_is_an_error_naming_the_field(
        self, world: HostileWorld, tmp_path: Path
    ) -> None:
        """A typo in ``sandbox.read_only`` stops the server's start with the file and the field."""
        sandbox = sandbox_of(world, tmp_path, sandbox={"read_only": ["no-such-folder"]})
        with pytest.raises(ConfigError, match=r"catalogue\.toml: servers\[hostile\]\.sandbox\.read_only\[0\]: .*no-such-folder"):
            await sandbox.start()
        assert sandbox.instance is None and sandbox.connection is None

    def test_network_values_are_checked_and_named(self, world: HostileWorld) -> None:
        """A network other than none/loopback/host is an error naming the server's field."""
        with pytest.raises(ConfigError, match=r"servers\[hostile\]\.network"):
            world.catalogue(world.server(network="internet"))

    def test_a_postgres_environment_needs_the_host_network(self, world: HostileWorld) -> None:
        """The database a postgres environment clones lives on this machine: the catalogue must say so."""
        entry = {"name": "pg", "transport": {"command": "/bin/true"},
                 "environment": {"kind": "postgres", "seed": "demo.postgres"}}
        with pytest.raises(ConfigError, match=r"servers\[pg\]\.network: a postgres environment"):
            world.catalogue(entry)
        assert world.catalogue({**entry, "network": "host"}).server("pg").network == "host"
