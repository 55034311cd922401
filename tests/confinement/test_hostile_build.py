"""A whole build with a hostile server in its catalogue: every attack is stopped and recorded, the build
completes, the healthy server's atlas is what it is without the hostile one, nothing secret is
exported, and nothing the hostile server started is left running afterwards.

The build is the CLI's (``toolatlas build --engine asyncio``), in a process of its own, as a user runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import SECRET_TEXT, HostileWorld, processes_started_by, processes_tagged, toml_catalogue

from toolatlas.testing.catalogues import generate_catalogue

REPO = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S = 600
ATTACKS = (
    "echo,write_outside,connect_out,read_secrets,capabilities,fork_bomb,allocate,daemonize,linger,flood_stderr,"
    "fifo_state,zero_state"
)
HOSTILE_LIMITS = {"processes": 64, "memory_mb": 512, "call_timeout_s": 10.0}
HOSTILE_ENV = {"HOSTILE_FORKS": "200", "HOSTILE_ALLOCATE_MB": "1024", "HOSTILE_FLOOD_MB": "1"}


def catalogue_with(folder: Path, name: str, *extra: dict[str, Any]) -> Path:
    """The generated healthy server's catalogue (store ``atlas-<name>``), plus ``extra`` servers."""
    base = (folder / "catalogue.toml").read_text().replace('path = "atlas"', f'path = "atlas-{name}"')
    base = base.replace("[build]\n", "[build]\nseed_tasks_per_tool = 1\nrollouts_per_task = 1\n")
    path = folder / f"{name}.toml"
    path.write_text(base + ("\n" + toml_catalogue(folder / f"{name}.extra", *extra).read_text() if extra else ""))
    return path


def build(config: Path, home: Path, *, timeout: float = BUILD_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolatlas", "build", str(config), "--engine", "asyncio", "--rounds", "1"],
        capture_output=True, text=True, timeout=timeout, cwd=REPO, check=False,
        env={**os.environ, "TOOLATLAS_HOME": str(home)},
    )  # fmt: skip


def entries_of(atlas: dict[str, Any], server: str) -> dict[str, str]:
    """``entry id → text`` of one server's tools in an exported atlas."""
    found = {}
    for node in next(s for s in atlas["servers"] if s["name"] == server)["tools"]:
        for kind in ("affordances", "boundaries", "co_usage"):
            found.update({entry["id"]: entry["text"] for entry in node[kind]})
    return found


def excerpts_of(atlas: dict[str, Any], server: str) -> dict[str, list[str]]:
    """``tool → every evidence excerpt`` of one server in an exported atlas."""
    found: dict[str, list[str]] = {}
    for node in next(s for s in atlas["servers"] if s["name"] == server)["tools"]:
        for kind in ("affordances", "boundaries", "co_usage"):
            for entry in node[kind]:
                found.setdefault(node["name"], []).extend(e["excerpt"] for e in entry["evidence"])
    return found


@pytest.fixture()
def healthy(tmp_path: Path) -> Path:
    folder = tmp_path / "catalogue"
    generate_catalogue(1, folder)
    return folder


class TestAHostileServerInABuild:
    def test_it_is_contained_and_changes_nothing_for_the_others(
        self, world: HostileWorld, healthy: Path, tmp_path: Path
    ) -> None:
        """Same healthy atlas with and without the hostile server; its attacks recorded as refusals, its
        special-file states as changes of that kind."""
        hostile = world.server(only=ATTACKS, env=HOSTILE_ENV, limits=HOSTILE_LIMITS)
        alone = build(catalogue_with(healthy, "alone"), tmp_path / "home-alone")
        assert alone.returncode == 0, alone.stdout + alone.stderr[-3000:]
        both = build(catalogue_with(healthy, "both", hostile), tmp_path / "home-both")
        assert both.returncode == 0, both.stdout + both.stderr[-3000:]
        assert not both.stderr.count("Traceback")

        atlas_alone = json.loads((healthy / "atlas-alone" / "atlas.json").read_text())
        exported = (healthy / "atlas-both" / "atlas.json").read_text()
        atlas_both = json.loads(exported)
        statuses = {s["name"]: s["status"] for s in atlas_both["servers"]}
        assert statuses == {"notes-000": "ok", "hostile": "ok"}, "the build completed, the hostile server too"
        assert len(entries_of(atlas_alone, "notes-000")) >= 10
        assert entries_of(atlas_both, "notes-000") == entries_of(atlas_alone, "notes-000")

        assert SECRET_TEXT not in exported and "root:*:" not in exported and "root:x:0" not in exported
        excerpts = excerpts_of(atlas_both, "hostile")
        refusals = {
            "write_outside": f"refused {world.outside}",
            "connect_out": f"refused 127.0.0.1:{world.listener.port}: Permission denied",
            "read_secrets": "refused /etc/shadow: No such file or directory",
            "capabilities": "CapEff=0000000000000000",
            "allocate": "refused 1024 MiB: MemoryError",
            "fork_bomb": "refused: Resource temporarily unavailable",
        }
        for tool, refusal in refusals.items():
            assert any(refusal in text for text in excerpts.get(tool, [])), (tool, excerpts.get(tool))
        hostile_entries = entries_of(atlas_both, "hostile").values()
        for tool in ("fifo_state", "zero_state"):  # its state became a FIFO / a link to /dev/zero
            assert any(f"`{tool}`" in text and "<special file>" in text for text in hostile_entries), tool
        assert not world.outside.exists() and world.listener.connections == []
        assert processes_started_by(world.marker) == [] and processes_tagged(world.marker) == []


SPECIAL_STATE_DRIVER = """
import asyncio, json, sys
from pathlib import Path
from toolatlas.config import load_catalogue
from toolatlas.home import Home
from toolatlas.workspace import Workspace

async def main():
    workspace = Workspace(load_catalogue(sys.argv[1]), Home(Path(sys.argv[2])))
    async with workspace.sandbox("hostile") as sandbox:
        before = await sandbox.digest(sandbox.snapshot)
        assert (await sandbox.call(sys.argv[3], {})).ok
        after = await sandbox.digest()            # what a verifier compares
        frozen = await sandbox.freeze_and_reset()  # what an executor does after each probe
        kept = await sandbox.digest(frozen)
        await sandbox.discard(frozen)
        print(json.dumps({"diff": before.diff(after).summary(), "after": after.items, "kept": kept.items}))

asyncio.run(main())
"""


class TestSpecialFilesAsState:
    """A server that turns its state into a FIFO or a symlink to /dev/zero: what a build does next
    (digest, freeze, reset) must neither freeze (a digest that opens a FIFO waits for a writer
    forever, on the event loop) nor read without bound.

    The sandbox cannot stop these — the state folder is the server's to change; the state digest
    (``toolatlas.environments.reading``) never opens a special file nor follows a symlink, and records
    either as a change of kind "special file".
    """

    @pytest.mark.parametrize("tool", ["fifo_state", "zero_state"])
    def test_digest_freeze_and_reset_finish_and_record_a_special_file(
        self, world: HostileWorld, tmp_path: Path, tool: str
    ) -> None:
        config = toml_catalogue(tmp_path / "special.toml", world.server(only=f"echo,{tool}"))
        try:
            done = subprocess.run(
                ["prlimit", f"--as={4 << 30}", "--", sys.executable, "-c", SPECIAL_STATE_DRIVER,
                 str(config), str(tmp_path / "home"), tool],
                capture_output=True, text=True, timeout=30, cwd=REPO, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            pytest.fail("digesting the state froze")
        assert done.returncode == 0, done.stderr[-2000:]
        report = json.loads(next(line for line in reversed(done.stdout.splitlines()) if line.startswith("{")))
        assert report["diff"] != "no change"
        assert "special file" in json.dumps(report["after"]) and "special file" in json.dumps(report["kept"])
