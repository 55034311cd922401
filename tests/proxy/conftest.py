"""Fixtures of the proxy tests: a real atlas of two demo servers, a catalogue of fault servers, proxies.

``demo_atlas`` builds filesystem and memory for real (bootstrap + one round, one rollout per seed
task) into a private store, and exports it; the proxies under test read either. ``fault_catalogue`` holds the
library's misbehaving servers (``faulty``, ``paged``) with a small hand-made atlas: what the proxy
does with a crash or a JSON-RPC error does not depend on what the atlas says.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from toolatlas.client import HttpEndpoint, ServerConnection, StdioLaunch
from toolatlas.config import Limits, load_catalogue
from toolatlas.export import assemble
from toolatlas.graph.models import Entry, EntryKind, Evidence, ToolNode
from toolatlas.guidance import Atlas
from toolatlas.home import Home
from toolatlas.models import OutcomeClass, ToolSpec
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.store.paths import open_store
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
HOME = REPO / ".toolatlas"
CLIENT_LIMITS = Limits(call_timeout_s=20.0, start_timeout_s=60.0, max_restarts=0)


@dataclass(frozen=True)
class BuiltAtlas:
    """A catalogue whose store holds a freshly built atlas, and the same atlas exported."""

    config: Path
    export: Path
    atlas: Atlas


def _write_export(path: Path, name: str, records: dict) -> Path:
    export = assemble(name, records["tools"], records["entries"], records["traces"], records["strategies"], [])
    path.write_text(export.model_dump_json(by_alias=True))
    return path


@pytest.fixture(scope="session")
def demo_atlas(tmp_path_factory: pytest.TempPathFactory) -> BuiltAtlas:
    """filesystem and memory of the demo catalogue, built for real (one exploration round, each seed task run once)."""
    folder = tmp_path_factory.mktemp("proxy-atlas")
    text = (REPO / "configs" / "demo.toml").read_text()
    config = folder / "demo.toml"
    private = text.replace('path = "../.toolatlas/atlas/demo"', f'path = "{folder / "store"}"')
    assert private != text, "configs/demo.toml's store path moved: update this fixture (it must not build into it)"
    private = private.replace("rollouts_per_task = 4", "rollouts_per_task = 1")  # the notes do not count support
    assert "rollouts_per_task = 1" in private, "configs/demo.toml's rollouts moved: update this fixture"
    config.write_text(private)
    catalogue = load_catalogue(config)
    store = open_store(catalogue)
    try:
        servers = [catalogue.server("filesystem"), catalogue.server("memory")]
        build = build_catalogue(Workspace(catalogue, Home(HOME)), store, servers=servers, rounds=1)
        with ThreadPoolExecutor(1) as thread:  # first requested from inside the tests' event loop
            thread.submit(asyncio.run, build).result()
        records = store.records()
    finally:
        store.close()
    export = _write_export(folder / "atlas.json", catalogue.name, records)
    return BuiltAtlas(config, export, Atlas.from_export(export))


FAULT_CATALOGUE = """\
version = 1
name = "faults"

[[servers]]
name = "faulty"
runtime = {{ kind = "command" }}
transport = {{ command = "{python}", args = ["-m", "toolatlas.testing.servers.faulty"] }}
limits = {{ call_timeout_s = 1.5, start_timeout_s = 30, max_restarts = 1 }}

[[servers]]
name = "paged"
runtime = {{ kind = "command" }}
transport = {{ command = "{python}", args = ["-m", "toolatlas.testing.servers.paged", "--tools", "7", "--page-size", "3"] }}

[[servers]]
name = "unmapped"
runtime = {{ kind = "command" }}
transport = {{ command = "{python}", args = ["-m", "toolatlas.testing.servers.paged", "--tools", "2", "--page-size", "5"] }}
"""

PAGED_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
PAGED_OUTPUT = {"type": "object", "properties": {"echo": {"type": "string"}, "tool": {"type": "string"}}}


def _note(server: str, tool: str, schema_hash: str, kind: EntryKind, text: str, **fields) -> Entry:
    outcome = fields.pop("outcome", OutcomeClass.OK)
    evidence = Evidence(probe_id=f"p-{tool}-{kind.value}", tool=tool, outcome=outcome, excerpt=fields.pop("excerpt", "ok"))
    return Entry(id=f"{server}.{tool}.{kind.value}", kind=kind, server=server, tool=tool, schema_hash=schema_hash,
                 signature=text, text=text, outcome=outcome, evidence=[evidence], probe_ids=[evidence.probe_id], **fields)


@pytest.fixture(scope="session")
def fault_catalogue(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(catalogue.toml, atlas.json)`` for the faulty and paged servers (and ``unmapped``, which the atlas lacks)."""
    folder = tmp_path_factory.mktemp("proxy-faults")
    config = folder / "faults.toml"
    config.write_text(FAULT_CATALOGUE.format(python=sys.executable))
    paged_hash = ToolSpec(server="paged", name="tool_01", input_schema=PAGED_SCHEMA, output_schema=PAGED_OUTPUT).schema_hash
    tools = [
        ToolNode(id="paged.tool_01", server="paged", tool="tool_01", schema_hash=paged_hash, description="Echo."),
        ToolNode(id="faulty.echo", server="faulty", tool="echo", schema_hash="old", description="Echo the text back."),
    ]
    entries = [
        _note("paged", "tool_01", paged_hash, EntryKind.AFFORDANCE, "`tool_01` (echo) works given `text`; it changes nothing.",
              example_arguments={"text": "hello"}),
        _note("paged", "tool_01", paged_hash, EntryKind.BOUNDARY, "tool_01 refuses a call without text",
              condition="`text` is missing", outcome=OutcomeClass.TOOL_ERROR, excerpt="'text' is a required property"),
        _note("faulty", "echo", "old", EntryKind.AFFORDANCE, "`echo` (echo) works given `text`; it changes nothing."),
    ]
    export = _write_export(folder / "atlas.json", "faults", {"tools": tools, "entries": entries, "traces": [], "strategies": []})
    return config, export


def proxy_command(*args: str) -> StdioLaunch:
    """``toolatlas proxy ARGS`` as a stdio server process (runtimes from the repository's home)."""
    env = {"TOOLATLAS_HOME": str(HOME), "HOME": os.environ.get("HOME", str(HOME))}
    return StdioLaunch(sys.executable, ["-m", "toolatlas", "proxy", *args], env=env, cwd=str(REPO))


@asynccontextmanager
async def sdk_client(*args: str, mode: str = "auto") -> AsyncIterator[Client]:
    """The SDK's own ``Client`` spawning ``toolatlas proxy ARGS`` over stdio."""
    launch = proxy_command(*args)
    params = StdioServerParameters(command=launch.command, args=launch.args, env=launch.env, cwd=launch.cwd)
    async with Client(stdio_client(params), mode=mode) as client:
        yield client


@asynccontextmanager
async def connected(endpoint: StdioLaunch | HttpEndpoint, name: str = "proxy") -> AsyncIterator[ServerConnection]:
    """A handshake-era MCP client session (the SDK's, through our client layer) with raw results."""
    async with ServerConnection(name, endpoint, CLIENT_LIMITS, mode="legacy") as connection:
        yield connection
