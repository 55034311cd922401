"""Every demo server in a real sandbox: it starts, answers, and its mutations stay in its instance.

These tests run the real MCP servers of ``configs/demo.toml`` (installed by ``make test``)
against private instances of their seed environments.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolatlas.client import ServerConnection, StdioLaunch
from toolatlas.config import load_catalogue, parse_catalogue
from toolatlas.confinement.bubblewrap import sandboxed_process
from toolatlas.environments import render_value
from toolatlas.errors import ConfigError
from toolatlas.home import Home
from toolatlas.models import OutcomeClass
from toolatlas.offline.mutators import OVERSIZED_TEXT, OVERSIZED_TEXT_CHARS
from toolatlas.sandbox import Sandbox, launch_for
from toolatlas.smoke import smoke_check_all
from toolatlas.testing import faulty_server_command
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
DEMO = load_catalogue(REPO / "configs" / "demo.toml")

# One real mutating call per stateful demo server, and a read that observes it.
MUTATIONS: dict[str, tuple[str, dict, str, dict, str]] = {
    "filesystem": (
        "write_file", {"path": "${root}/notes/new.txt", "content": "hello from a probe"},
        "read_text_file", {"path": "${root}/notes/new.txt"}, "hello from a probe",
    ),
    "memory": (
        "create_entities", {"entities": [{"name": "Probe Entity", "entityType": "test", "observations": ["made by a test"]}]},
        "search_nodes", {"query": "Probe Entity"}, "made by a test",
    ),
    "git": (
        "git_create_branch", {"repo_path": "${repo}", "branch_name": "probe/branch"},
        "git_branch", {"repo_path": "${repo}", "branch_type": "local"}, "probe/branch",
    ),
    "sqlite": (
        "write_query", {"query": "INSERT INTO customers (email, name, country, created_at) VALUES ('probe@example.test', 'Probe', 'NL', '2024-01-01')"},
        "read_query", {"query": "SELECT email FROM customers WHERE email = 'probe@example.test'"}, "probe@example.test",
    ),
}


@pytest.fixture(scope="module")
def workspace() -> Workspace:
    return Workspace(DEMO, Home(REPO / ".toolatlas"))


def fill(sandbox: Sandbox, value: dict) -> dict:
    return render_value(value, sandbox.variables())


@pytest.mark.parametrize("server", [s.name for s in DEMO.servers])
class TestDemoServers:
    async def test_starts_lists_tools_and_answers(self, workspace: Workspace, server: str) -> None:
        """The server starts against a private instance, lists its tools, and its smoke call is ok."""
        spec = DEMO.server(server)
        async with workspace.sandbox(spec) as sandbox:
            assert sandbox.tools, "no tools listed"
            assert all(len(t.schema_hash) == 16 for t in sandbox.tools)
            assert spec.smoke is not None
            outcome = await sandbox.call(spec.smoke.tool, fill(sandbox, spec.smoke.arguments))
            assert outcome.outcome is OutcomeClass.OK, outcome.excerpt
            assert outcome.excerpt or outcome.structured


    async def test_runs_confined(self, workspace: Workspace, server: str) -> None:
        """The server process is in a PID namespace of its own, without capabilities, and sees
        neither /etc/shadow nor the repository beyond its runtime."""
        async with workspace.sandbox(server) as sandbox:
            assert sandbox.connection is not None and sandbox.connection.pid is not None
            pid = sandboxed_process(sandbox.connection.pid)
            assert pid is not None
            status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
            assert status["CapEff"].strip() == "0000000000000000"
            assert status["NSpid"].split()[-1] == "2"
            root = Path(f"/proc/{pid}/root")
            assert not (root / "etc" / "shadow").exists()
            assert not (root / REPO.relative_to("/") / "configs").exists()
            assert (root / sandbox.instance.slot.lstrip("/")).is_dir()


@pytest.mark.parametrize("server", sorted(MUTATIONS))
class TestStatefulDemoServers:
    async def test_mutation_stays_in_its_instance_and_reset_is_exact(self, workspace: Workspace, server: str) -> None:
        """A real mutating call changes its own instance only; freeze keeps it, reset restores the snapshot."""
        write, write_args, read, read_args, expected = MUTATIONS[server]
        spec = DEMO.server(server)
        async with workspace.sandbox(spec) as sandbox, workspace.sandbox(spec) as sibling:
            snapshot_digest = await sandbox.digest(sandbox.snapshot)
            written = await sandbox.call(write, fill(sandbox, write_args))
            assert written.outcome is OutcomeClass.OK, written.excerpt
            observed = await sandbox.call(read, fill(sandbox, read_args))
            assert expected in observed.excerpt
            unseen = await sibling.call(read, fill(sibling, read_args))
            assert expected not in unseen.excerpt
            assert await sibling.digest() == snapshot_digest
            frozen = await sandbox.freeze_and_reset()
            change = snapshot_digest.diff(await sandbox.digest(frozen))
            assert not change.empty
            assert await sandbox.digest() == snapshot_digest
            assert await sandbox.digest(sandbox.snapshot) == snapshot_digest
            after = await sandbox.call(read, fill(sandbox, read_args))
            assert expected not in after.excerpt
            await sandbox.discard(frozen)

    async def test_restore_undoes_a_mutation_and_leaves_nothing_behind(self, workspace: Workspace, server: str) -> None:
        """restore() (what verify-in-place executors do): the snapshot's state at once, twice in a row,
        and whatever was moved aside is deleted by the time the sandbox is closed."""
        write, write_args, read, read_args, expected = MUTATIONS[server]
        sandbox = workspace.sandbox(DEMO.server(server))
        await sandbox.start()
        assert sandbox.instance is not None
        instance_id = sandbox.instance.id
        try:
            snapshot_digest = await sandbox.digest(sandbox.snapshot)
            for _ in range(2):
                written = await sandbox.call(write, fill(sandbox, write_args))
                assert written.outcome is OutcomeClass.OK, written.excerpt
                assert await sandbox.digest() != snapshot_digest
                await sandbox.restore()
                assert await sandbox.digest() == snapshot_digest
                assert expected not in (await sandbox.call(read, fill(sandbox, read_args))).excerpt
        finally:
            await sandbox.close()
        assert not list((sandbox.instances_dir / "frozen").glob(f"{instance_id}-*"))


class TestInstanceFolders:
    async def test_no_hidden_folder_on_the_way_to_a_server_state(self, workspace: Workspace) -> None:
        """A working area under a hidden folder (./.toolatlas) gives its servers state whose paths hold no hidden folder."""
        assert any(part.startswith(".") for part in workspace.home.root.parts)
        async with workspace.sandbox(DEMO.server("filesystem")) as sandbox:
            answer = await sandbox.call("list_allowed_directories", {})
            allowed = [line.strip() for line in answer.excerpt.splitlines() if line.strip().startswith("/")]
        assert allowed and all(not part.startswith(".") for path in allowed for part in Path(path).parts)

    def test_where_instances_live(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Instances live in the working area when no folder on its way is hidden, else in a private temporary folder of its own; $TOOLATLAS_INSTANCES wins."""
        monkeypatch.delenv("TOOLATLAS_INSTANCES", raising=False)
        assert Home(tmp_path / "area").instances_root == tmp_path / "area" / "instances"
        hidden, other = Home(tmp_path / ".area").instances_root, Home(tmp_path / "x" / ".area").instances_root
        assert hidden == Home(tmp_path / ".area").instances_root != other
        assert not any(part.startswith(".") for part in hidden.parts)
        assert (hidden.parents[1].stat().st_mode & 0o777) == 0o700
        monkeypatch.setenv("TOOLATLAS_INSTANCES", str(tmp_path / "chosen"))
        assert Home(tmp_path / ".area").instances_root == tmp_path / "chosen"


class TestSandboxConfinement:
    async def test_server_process_lives_in_the_instance(self, workspace: Workspace) -> None:
        """HOME, TMPDIR and the working directory of a server are inside its instance."""
        async with workspace.sandbox("filesystem") as sandbox:
            assert sandbox.connection is not None and sandbox.connection.pid
            environ = Path(f"/proc/{sandbox.connection.pid}/environ").read_bytes().split(b"\0")
            env = dict(item.decode().split("=", 1) for item in environ if b"=" in item)
            slot = sandbox.instance.slot if sandbox.instance else ""
            assert env["HOME"].startswith(slot) and env["TMPDIR"].startswith(slot)
            assert str(Path(f"/proc/{sandbox.connection.pid}/cwd").resolve()).startswith(slot)

    @pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="SCHED_BATCH is Linux's")
    async def test_servers_run_as_batch_work_but_not_for_agents(self, workspace: Workspace) -> None:
        """A sandbox's server is scheduled as batch work (a request does not preempt the client
        feeding the other servers); a server started for an agent (the proxy's upstream) is not."""
        async with workspace.sandbox("memory") as sandbox:
            assert sandbox.connection is not None and sandbox.connection.pid
            assert os.sched_getscheduler(sandbox.connection.pid) == os.SCHED_BATCH
            live = launch_for(sandbox.spec, sandbox.runtime, sandbox.instance.variables)
            assert isinstance(live, StdioLaunch) and not live.batch
            connection = ServerConnection("live-memory", live, sandbox.spec.limits)
            await connection.start()
            try:
                assert os.sched_getscheduler(connection.pid) == os.SCHED_OTHER
            finally:
                await connection.close()

    async def test_escaping_paths_are_refused(self, workspace: Workspace) -> None:
        """The filesystem server bound to an instance refuses paths outside it."""
        async with workspace.sandbox("filesystem") as sandbox:
            outcome = await sandbox.call("read_text_file", {"path": "/etc/hostname"})
            assert outcome.outcome is OutcomeClass.TOOL_ERROR
            assert "outside allowed directories" in outcome.excerpt


class TestSmokeCheck:
    def test_readme_demo_command(self) -> None:
        """`toolatlas servers check configs/demo.toml` passes and shows an exact reset for every server."""
        result = subprocess.run(
            [sys.executable, "-m", "toolatlas", "servers", "check", "configs/demo.toml"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        table = result.stdout.split("\n\n", 1)[1]
        for spec in DEMO.servers:
            row = next(line for line in table.splitlines() if line.startswith(spec.name + " "))
            assert " exact " in row and row.rstrip().endswith("ok"), row

    async def test_one_broken_server_does_not_stop_the_others(self, tmp_path: Path) -> None:
        """A server that cannot start is reported as failed while the others are checked."""
        command, args = faulty_server_command()
        catalogue = parse_catalogue(
            {
                "servers": [
                    {"name": "good", "transport": {"command": command, "args": args}, "smoke": {"tool": "echo", "arguments": {"text": "hi"}}},
                    {"name": "broken", "transport": {"command": command, "args": [*args, "--crash-on-start"]}, "limits": {"max_restarts": 0}},
                ]
            }
        )
        reports = await smoke_check_all(Workspace(catalogue, Home(tmp_path / "home")), catalogue.servers)
        by_name = {r.server: r for r in reports}
        assert by_name["good"].ok and by_name["good"].outcome == "ok"
        assert not by_name["broken"].ok and "refusing to start" in by_name["broken"].detail

    def test_uninstalled_runtime_is_a_clear_error(self, tmp_path: Path) -> None:
        """A server whose runtime was never installed says how to install it."""
        from toolatlas.errors import RuntimeInstallError

        workspace = Workspace(DEMO, Home(tmp_path / "empty-home"))
        with pytest.raises(RuntimeInstallError, match="toolatlas servers install"):
            workspace.sandbox("git")

    async def test_sandboxes_run_concurrently(self, workspace: Workspace) -> None:
        """Several sandboxes of one server run side by side, each against its own instance."""
        async def one(i: int) -> str:
            async with workspace.sandbox("filesystem") as sandbox:
                path = f"{sandbox.variables()['root']}/mine.txt"
                await sandbox.call("write_file", {"path": path, "content": f"sandbox {i}"})
                return (await sandbox.call("read_text_file", {"path": path})).excerpt

        assert await asyncio.gather(*(one(i) for i in range(4))) == [f"sandbox {i}" for i in range(4)]
        assert json.dumps(True)


class TestGeneratedValues:
    async def test_oversized_text_is_made_when_the_call_is_rendered(self, workspace: Workspace) -> None:
        """A probe carries ``${oversized_text}`` (17 characters, in its id, entries and checkpoints);
        the server receives the 100 KB string it stands for."""
        async with workspace.sandbox(DEMO.server("filesystem")) as sandbox:
            path = {"path": "${root}/big.txt"}
            written = await sandbox.call("write_file", fill(sandbox, {**path, "content": OVERSIZED_TEXT}))
            assert written.outcome is OutcomeClass.OK, written.excerpt
            info = await sandbox.call("get_file_info", fill(sandbox, path))
            assert f"size: {OVERSIZED_TEXT_CHARS}" in info.excerpt.lower(), info.excerpt

    def test_an_unknown_placeholder_names_the_known_ones(self) -> None:
        with pytest.raises(ConfigError, match=r"unknown placeholder \$\{nope\}; known here: \$\{oversized_text\}, \$\{root\}"):
            render_value({"a": ["${nope}"]}, {"root": "/r"}, field="probe")

    def test_generated_values_alone_are_filled_when_the_instance_is_not_known(self) -> None:
        """A record's arguments, checked as the server saw them without an instance: ``${oversized_text}`` becomes its
        100 KB, an instance's ``${root}`` stays as it is."""
        filled = render_value({"a": ["${root}/x", "${oversized_text}"]}, {}, keep_unknown=True)
        assert filled == {"a": ["${root}/x", "x" * OVERSIZED_TEXT_CHARS]}


class TestAServerHoldingItsDatabase:
    @staticmethod
    def catalogue(tmp_path: Path, journal_mode: str = "wal", **server: Any) -> Any:
        snapshot = tmp_path / "books"
        snapshot.mkdir()
        with sqlite3.connect(snapshot / "ledger.db") as setup:
            setup.execute("CREATE TABLE entries(memo TEXT, amount REAL)")
            setup.execute("INSERT INTO entries VALUES ('opening balance', 100)")
        setup.close()
        spec = {"name": "ledger", "environment": {"kind": "directory", "snapshot": str(snapshot)},
                "transport": {"command": sys.executable,
                              "args": ["-m", "toolatlas.testing.servers.ledger", "${root}", journal_mode]},
                **server}
        return parse_catalogue({"servers": [spec]}, tmp_path / "catalogue.toml")

    @pytest.mark.parametrize("how", ["restore", "freeze_and_reset"])
    async def test_is_restarted_after_a_reset_it_cannot_see(self, tmp_path: Path, how: str) -> None:
        """A server that keeps its SQLite database open in WAL mode would go on reading what it wrote before a reset;
        the sandbox tells it holds the database so and restarts it after that reset and every later one."""
        catalogue = self.catalogue(tmp_path)
        async with Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("ledger")) as sandbox:
            assert not sandbox.restart_on_reset
            for _ in range(2):
                assert (await sandbox.call("add_entry", {"memo": "printer paper", "amount": -12.5})).outcome \
                    is OutcomeClass.OK
                assert (await sandbox.call("count_entries", {})).excerpt == "2 entries"
                await getattr(sandbox, how)()
                assert sandbox.restart_on_reset
                assert (await sandbox.call("count_entries", {})).excerpt == "1 entries"

    @pytest.mark.parametrize("how", ["restore", "freeze_and_reset"])
    async def test_a_file_it_holds_is_reset_in_place(self, tmp_path: Path, how: str) -> None:
        """A server that keeps its database open with SQLite's default journal, in a folder whose reset moves the files
        out: the file it holds is written back in place instead (no restart), so it reads the snapshot's rows and
        its writes go on — before, it read what it wrote and was refused every write (the database it opened was
        moved); a freeze copies that file and leaves it where the server has it."""
        catalogue = self.catalogue(tmp_path, "delete")
        async with Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("ledger")) as sandbox:
            for _ in range(3):
                added = await sandbox.call("add_entry", {"memo": "printer paper", "amount": -12.5})
                assert added.outcome is OutcomeClass.OK, added.excerpt
                assert (await sandbox.call("count_entries", {})).excerpt == "2 entries"
                frozen = await getattr(sandbox, how)()
                assert not sandbox.restart_on_reset
                assert sandbox.instance is not None and [Path(f).name for f in sandbox.instance.held] == ["ledger.db"]
                assert (await sandbox.call("count_entries", {})).excerpt == "1 entries"
                if frozen is not None:
                    with sqlite3.connect(Path(frozen.path) / "ledger.db") as kept:
                        assert kept.execute("SELECT COUNT(*) FROM entries").fetchone() == (2,)
                    kept.close()

    async def test_a_catalogue_that_decided_is_followed(self, tmp_path: Path) -> None:
        """``restart_on_reset = false`` in the catalogue is kept: the server is not restarted, and reads on what it
        holds (why the sandbox restarts such a server when the catalogue leaves it open)."""
        catalogue = self.catalogue(tmp_path, restart_on_reset=False)
        async with Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("ledger")) as sandbox:
            await sandbox.call("add_entry", {"memo": "printer paper", "amount": -12.5})
            await sandbox.restore()
            assert not sandbox.restart_on_reset
            assert (await sandbox.call("count_entries", {})).excerpt == "2 entries"
