"""A build against a server that crashes, hangs and floods on some tools: recorded, restarted, build goes on."""

from __future__ import annotations

from pathlib import Path

from toolatlas.config import parse_catalogue
from toolatlas.graph.models import EntryKind
from toolatlas.home import Home
from toolatlas.models import OutcomeClass
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.store.paths import open_store
from toolatlas.testing import faulty_server_command
from toolatlas.workspace import Workspace


async def test_crashes_and_hangs_become_boundaries(tmp_path: Path) -> None:
    """crash → `crash`, hang → `timeout`, flood → `protocol_error`: each recorded, the server restarted, every tool still probed."""
    command, args = faulty_server_command()
    catalogue = parse_catalogue({
        "store": {"path": str(tmp_path / "atlas")},
        "build": {"seed_tasks_per_tool": 1, "rollouts_per_task": 1},
        "servers": [{
            "name": "faulty",
            "transport": {"command": command, "args": args},
            "limits": {"call_timeout_s": 1.5, "max_message_bytes": 1_000_000},
        }],
    }, tmp_path / "catalogue.toml")
    store = open_store(catalogue)
    try:
        report = await build_catalogue(Workspace(catalogue, Home(tmp_path / "home")), store, rounds=0)
        entries = store.all("entries")
        tools = store.all("tools")
    finally:
        store.close()
    assert report.servers == {"faulty": "ok"}
    boundaries = {(e.tool, e.outcome) for e in entries if e.kind is EntryKind.BOUNDARY}
    assert ("crash", OutcomeClass.CRASH) in boundaries
    assert ("hang", OutcomeClass.TIMEOUT) in boundaries
    assert ("flood", OutcomeClass.PROTOCOL_ERROR) in boundaries
    affordances = {e.tool for e in entries if e.kind is EntryKind.AFFORDANCE}
    assert {"echo", "add"} <= affordances, "calls after the crashes and hangs still worked"
    assert all(node.probes > 0 for node in tools)
