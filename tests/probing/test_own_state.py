"""The server's own state kept fresh between probes where the environment holds no state.

A real server that keeps tasks, settings and a history in its process
(:mod:`toolatlas.testing.servers.inmemory`) over stdio: a probe that changed what its read tools show
is followed by a restart, so the next probe — and a replay of its evidence — starts from what a fresh
server holds; a probe that changed nothing costs no restart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.home import Home
from toolatlas.models import OutcomeClass, ToolAnnotations, ToolSpec
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.probing.own_state import is_state_reader
from toolatlas.testing.opaque import opaque_catalogue
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]


def probe(n: int, *calls: tuple[str, dict]) -> Probe:
    steps = [ProbeStep(tool=tool, arguments=arguments, expect="any") for tool, arguments in calls]
    return Probe(id=f"p{n}", server="inmemory", round=0, direction=Direction.AFFORDANCE, target=steps[-1].tool,
                 task="t", steps=steps)


@pytest.fixture()
async def executor(tmp_path: Path):
    catalogue = load_catalogue(opaque_catalogue(tmp_path / "opaque"))
    running = Executor(Workspace(catalogue, Home(REPO / ".toolatlas")).sandbox(catalogue.server("inmemory")), "own")
    await running.start()
    try:
        yield running
    finally:
        await running.close()


class TestReaders:
    def test_readers_are_argument_free_reads_that_change_nothing(self) -> None:
        """Argument-free tools annotated read-only, or described or named by a verb of reading, are
        readers; a tool with a required argument, one annotated as changing state, or one whose
        description starts with a verb of change is not."""

        def spec(name: str, description: str, required: list[str] | None = None, **hints) -> ToolSpec:
            schema = {"type": "object", "properties": {r: {"type": "string"} for r in required or []},
                      "required": required or []}
            return ToolSpec(server="s", name=name, description=description, input_schema=schema,
                            annotations=ToolAnnotations(**hints))

        assert is_state_reader(spec("get_test_cases", "Get all current test cases."))
        assert is_state_reader(spec("listTables", "Tables and views."))
        assert is_state_reader(spec("status", "Where things are.", read_only=True))
        assert not is_state_reader(spec("clear_test_cases", "Clear all test cases."))
        assert not is_state_reader(spec("get_row", "Get one row.", ["id"]))
        assert not is_state_reader(spec("list_and_prune", "List entries.", read_only=False))
        assert not is_state_reader(spec("info", "Discovery / health-check entrypoint."))


@pytest.mark.servers
class TestFreshBetweenProbes:
    async def test_the_readers_of_a_fresh_server(self, executor: Executor) -> None:
        """The argument-free read tools that answer quickly and alike twice are the readers (the tool
        that sleeps for seconds and every writer are not)."""
        assert executor.own_state is not None
        assert executor.own_state.readers == ["get_history", "get_settings", "list_tasks"]

    async def test_a_probe_that_changed_the_servers_state_is_followed_by_a_restart(self, executor: Executor) -> None:
        """After a probe added a task, the next probe lists no task: the server was restarted."""
        await executor.run_verified(probe(1, ("add_task", {"title": "water the plants"})))
        assert executor.own_state_restarts == 1
        rollout, _ = await executor.run_verified(probe(2, ("list_tasks", {})))
        assert rollout.steps[0].outcome.structured == {"tasks": []}

    async def test_evidence_replays_on_a_fresh_server(self, executor: Executor) -> None:
        """A chain's later call sees what its own earlier calls made, and nothing earlier probes made:
        the same chain run twice gives the same answers (task 1 both times)."""
        chain = (("add_task", {"title": "a"}), ("complete_task", {"task_id": 1}))
        first, _ = await executor.run_verified(probe(1, *chain))
        second, _ = await executor.run_verified(probe(2, *chain))
        assert [s.outcome.excerpt for s in first.steps] == [s.outcome.excerpt for s in second.steps]
        assert all(s.outcome.outcome is OutcomeClass.OK for s in second.steps)

    async def test_a_successful_change_restarts_even_where_no_reader_sees_it(self, executor: Executor) -> None:
        """A tool that says it changes state and succeeded restarts the server although no reader
        watches what it changed (the settings reader left out here)."""
        assert executor.own_state is not None
        del executor.own_state.fresh["get_settings"]
        await executor.run_verified(probe(1, ("set_unit", {"unit": "imperial"})))
        assert executor.own_state_restarts == 1
        rollout, _ = await executor.run_verified(probe(2, ("get_settings", {})))
        assert rollout.steps[0].outcome.structured == {"verbose": False, "unit": "metric"}

    async def test_a_probe_that_changed_nothing_costs_no_restart(self, executor: Executor) -> None:
        """A refused write and a read leave the readers' answers as they were: no restart."""
        await executor.run_verified(probe(1, ("add_task", {"title": " "}), ("complete_task", {"task_id": 7})))
        await executor.run_verified(probe(2, ("list_tasks", {"done_only": True})))
        assert executor.own_state_restarts == 0
