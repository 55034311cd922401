"""The reporting server's catalogue and a started executor of it, and probes for its tests, planned by hand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from toolatlas.config import Catalogue, parse_catalogue
from toolatlas.home import Home
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.testing import reporting_server_command
from toolatlas.workspace import Workspace


def reporting_catalogue(folder: Path) -> Catalogue:
    """The reporting server's catalogue under ``folder``, its state a JSON file seeded with one entry."""
    seed = folder / "seed.json"
    seed.write_text('{"colour": "blue"}')
    command, args = reporting_server_command("--state", "${file}")
    server = {
        "name": "reporting",
        "transport": {"command": command, "args": args},
        "environment": {"kind": "json_file", "snapshot": str(seed)},
    }
    return parse_catalogue({"servers": [server]}, folder / "catalogue.toml")


@asynccontextmanager
async def started_executor(catalogue: Catalogue, home: Path) -> AsyncIterator[Executor]:
    """An executor of the reporting server in ``catalogue``, started; closed on leaving."""
    workspace = Workspace(catalogue, Home(home))
    running = Executor(workspace.sandbox(catalogue.server("reporting")), "test")
    await running.start()
    try:
        yield running
    finally:
        await running.close()


def probe(*steps: ProbeStep, direction: Direction = Direction.AFFORDANCE, **fields) -> Probe:
    listed = list(steps)
    return Probe(
        id=Probe.make_id("reporting", 0, direction, listed),
        server="reporting",
        round=0,
        direction=direction,
        target=listed[0].tool,
        task="test",
        steps=listed,
        **fields,
    )
