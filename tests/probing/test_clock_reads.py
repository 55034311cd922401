"""A read that tells the time of day is no witness of a state change: its answer changes because time
passed. The real ``wallclock`` server over stdio (no state; ``current_time`` answers ``It is
20:41:07.``), driven by the executor and verifier the build uses."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from toolatlas.config import parse_catalogue
from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.home import Home
from toolatlas.models import Effect
from toolatlas.probing.clock import without_clock
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.probing.own_state import OwnState
from toolatlas.workspace import Workspace

READ = ProbeStep(tool="current_time", arguments={}, expect="ok")
PAUSE = ProbeStep(tool="pause", arguments={"seconds": 1.1}, expect="ok")


def probe(n: int, *steps: ProbeStep) -> Probe:
    return Probe(id=f"p{n}", server="wallclock", round=1, direction=Direction.AFFORDANCE, target=steps[-1].tool,
                 task="t", steps=list(steps))


async def start_of_a_second() -> None:
    """Wait until a second of the clock has just begun: two reads right after fall in the same second."""
    await asyncio.sleep(1.02 - time.time() % 1)


@contextlib.asynccontextmanager
async def wallclock(tmp_path: Path) -> AsyncIterator[Executor]:
    server = {"name": "wallclock", "environment": {"kind": "none"},
              "transport": {"command": sys.executable, "args": ["-m", "toolatlas.testing.servers.wallclock"]}}
    catalogue = parse_catalogue({"servers": [server]}, tmp_path / "catalogue.toml")
    executor = Executor(Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("wallclock")), "clock")
    await executor.start()
    try:
        yield executor
    finally:
        await executor.close()


class TestTheClockMasked:
    def test_readings_of_the_present_are_masked_and_others_kept(self) -> None:
        """A time of day, a date-time, today's date and a Unix time of now are masked; a date years away,
        a version and a ten-digit number that is no time of now are kept."""
        now = datetime.now(UTC)
        text = (f"It is {now:%H:%M:%S} ({now:%I:%M %p}), {now:%Y-%m-%d %H:%M:%S}, {now:%m/%d/%Y}, "
                f"{int(now.timestamp() * 1000)} ms")
        assert without_clock(text, now) == "It is <clock> (<clock>), <clock>, <clock>, <clock> ms"
        kept = "born 1990-04-01, version 1.2.3, order 9999999999"
        assert without_clock(kept, now) == kept
        assert without_clock(f"due {now + timedelta(days=40):%Y-%m-%d}", now) != "due <clock>"


@pytest.mark.servers
class TestAReadOfTheClock:
    async def test_a_read_that_tells_the_time_witnesses_no_change(self, tmp_path: Path) -> None:
        """`current_time` read twice within one second, a call that takes over a second, then read
        again: the answer differs in its time of day only, so the call is not recorded as changing the
        server's state, and no state edge links it to the read."""
        async with wallclock(tmp_path) as executor:
            await start_of_a_second()
            observed = probe(1, READ, READ.model_copy(update={"compares": 0}), PAUSE,
                             READ.model_copy(update={"compares": 1}))
            rollout, verdict = await executor.run_verified(observed)
            answers = [step.outcome.excerpt for step in rollout.steps]
            assert answers[0] == answers[1] and answers[3] != answers[0]  # the clock moved on, nothing else
            assert verdict.steps[2].effect is not Effect.MUTATING
            assert verdict.steps[3].output_changed is False
            graph = ServerGraph("wallclock", executor.sandbox.tools)
            Inducer(graph).induce(rollout, verdict)
            assert not graph.entries_of("pause", EntryKind.CO_USAGE)
            assert all("own state" not in e.text for e in graph.entries_of("pause", EntryKind.AFFORDANCE))

    async def test_a_reader_that_tells_the_time_costs_no_restart(self, tmp_path: Path) -> None:
        """A reader of the server's own state whose answer is the time of day (read twice alike within
        one second) still answers as fresh a second later: a probe that changed nothing restarts nothing."""
        async with wallclock(tmp_path) as executor:
            await start_of_a_second()
            executor.own_state = await OwnState.read_fresh(executor.sandbox)
            assert executor.own_state.readers == ["current_time"]
            await executor.run(probe(2, PAUSE))
            assert executor.own_state.restarts == 0
            assert executor.sandbox.connection is not None and executor.sandbox.connection.restarts == 0
