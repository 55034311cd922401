"""A boundary's condition says what is known of its cause: the argument values its error names, and
"the unchanged snapshot" only once the same call succeeded after a precondition chain. Real calls to
the in-library reporting server over stdio, induced into a server graph."""

from __future__ import annotations

from reporting_kit import probe

from toolatlas.graph.inducer import STATE_CAUSE, Inducer
from toolatlas.graph.models import EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import ProbeStep


async def induce(executor: Executor, graph: ServerGraph, *steps: ProbeStep) -> None:
    rollout, verdict = await executor.run_verified(probe(*steps))
    Inducer(graph).induce(rollout, verdict)


class TestProvenCauses:
    async def test_an_invented_value_is_the_condition_not_the_state(self, executor: Executor) -> None:
        """A failure whose error names the value it was called with is conditioned on that value."""
        graph = ServerGraph("reporting", executor.sandbox.tools)
        await induce(executor, graph, ProbeStep(tool="lookup", arguments={"key": "probe-a17e"}))
        [boundary] = graph.entries_of("lookup", EntryKind.BOUNDARY)
        assert boundary.condition == 'called with `key` = "probe-a17e" (the error names it)'
        assert "snapshot" not in boundary.text and "state" not in boundary.condition

    async def test_the_state_is_blamed_once_a_precondition_made_the_same_call_succeed(self, executor: Executor) -> None:
        """Fails alone; succeeds after ``store`` changed the state: then, and only then, the state."""
        graph = ServerGraph("reporting", executor.sandbox.tools)
        call = ProbeStep(tool="lookup", arguments={"key": "shape"})
        await induce(executor, graph, call)
        [boundary] = graph.entries_of("lookup", EntryKind.BOUNDARY)
        assert STATE_CAUSE not in boundary.condition
        store = ProbeStep(tool="store", arguments={"key": "shape", "value": "round"}, expect="ok")
        await induce(executor, graph, store, call.model_copy(update={"enabled_by": 0, "expect": "ok"}))
        [boundary] = graph.entries_of("lookup", EntryKind.BOUNDARY)
        assert boundary.condition.startswith(STATE_CAUSE) and "`store`" in boundary.condition
        assert boundary.text.startswith("`lookup` reports an error") and f"when {boundary.condition}: “Error" in boundary.text

    async def test_an_unrelated_success_proves_nothing(self, executor: Executor) -> None:
        """After ``store`` of another key the call still fails, and a success with other arguments
        after a state change does not rewrite the boundary's cause."""
        graph = ServerGraph("reporting", executor.sandbox.tools)
        await induce(executor, graph, ProbeStep(tool="lookup", arguments={"key": "shape"}))
        store = ProbeStep(tool="store", arguments={"key": "size", "value": "9"}, expect="ok")
        other = ProbeStep(tool="lookup", arguments={"key": "size"}, enabled_by=0, expect="ok")
        await induce(executor, graph, store, other)
        [boundary] = graph.entries_of("lookup", EntryKind.BOUNDARY)
        assert STATE_CAUSE not in boundary.condition
