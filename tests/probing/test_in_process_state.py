"""Probes on a server that keeps its state in its process: each meets the state the server starts with.

The server is the real ``versioned`` notes server over stdio (no environment: its notes live in its
process), driven by the executor the build uses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.home import Home
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.testing.releases import release_catalogue
from toolatlas.workspace import Workspace

pytestmark = pytest.mark.servers


def probe(n: int, *steps: ProbeStep) -> Probe:
    return Probe(id=f"p{n}", server="versioned", round=1, direction=Direction.AFFORDANCE, target=steps[-1].tool,
                 task="t", steps=list(steps))


@pytest.fixture()
async def executor(tmp_path: Path):
    catalogue = load_catalogue(release_catalogue(tmp_path, 1))
    running = Executor(Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("versioned")), "test")
    await running.start()
    try:
        yield running
    finally:
        await running.close()


class TestInProcessState:
    async def test_a_probe_after_a_change_meets_the_starting_state(self, executor: Executor) -> None:
        """A note added by one probe is not there for the next: it runs on a fresh server process."""
        add = ProbeStep(tool="add_note", arguments={"title": "Buy milk"}, expect="ok")
        count = ProbeStep(tool="count_notes", arguments={}, expect="ok")
        first = await executor.run(probe(1, add, count))
        assert first.steps[-1].outcome.excerpt.strip() == "1"
        second = await executor.run(probe(2, count))
        assert second.steps[-1].outcome.excerpt.strip() == "0"

    async def test_reads_keep_the_process(self, executor: Executor) -> None:
        """Probes that only read do not restart the server."""
        count = ProbeStep(tool="count_notes", arguments={}, expect="ok")
        await executor.run(probe(1, count))
        await executor.run(probe(2, count))
        assert executor.sandbox.connection is not None and executor.sandbox.connection.restarts == 0
