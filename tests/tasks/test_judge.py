"""The task judge on real frozen states: code verifiers in the real code box, assertions read-only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from toolatlas.codebox import RunPolicy
from toolatlas.environments import FrozenState, render_value
from toolatlas.probing.models import Probe
from toolatlas.sandbox import Sandbox
from toolatlas.tasks.chains import chain_evidence
from toolatlas.tasks.judge import judge
from toolatlas.tasks.models import AgentKind, AgentRollout, TaskOrigin, TaskSpec, TaskVerifier
from toolatlas.tasks.states import initial_state
from toolatlas.workspace import Workspace

from .conftest import DEMO, OfflineRun

pytestmark = pytest.mark.servers

GROCERIES = "Put a shopping list in notes/groceries.txt whose only line is 'buy oat milk'."
GROCERIES_CHECK = (
    "def verify(state, answer):\n"
    "    if not state.exists('notes/groceries.txt'):\n"
    "        return False\n"
    "    return state.read_text('notes/groceries.txt').strip() == 'buy oat milk'\n"
)


def code_task(source: str, text: str = GROCERIES) -> TaskSpec:
    return TaskSpec(
        id=TaskSpec.make_id("filesystem", TaskOrigin.BOOTSTRAP, text),
        server="filesystem",
        origin=TaskOrigin.BOOTSTRAP,
        text=text,
        targets=["write_file"],
        verifier=TaskVerifier(kind="code", source=source, requires_change=True),
    )


def rollout_of(task: TaskSpec, frozen: FrozenState | None, answer: str = "Done.") -> AgentRollout:
    return AgentRollout(
        id=f"r-{task.id[:8]}",
        task=task,
        agent=AgentKind.REACT,
        rollout=0,
        temperature=0.0,
        final_answer=answer,
        frozen=frozen,
    )


@asynccontextmanager
async def frozen_after(sandbox: Sandbox, *calls: tuple[str, dict]) -> AsyncIterator[FrozenState]:
    """Make real calls on the sandbox's server, freeze what they left, discard it after the block."""
    for tool, arguments in calls:
        outcome = await sandbox.call(tool, render_value(arguments, sandbox.variables()))
        assert outcome.ok, outcome.excerpt
    frozen = await sandbox.freeze_and_reset()
    try:
        yield frozen
    finally:
        await sandbox.discard(frozen)


def write(path: str, content: str) -> tuple[str, dict]:
    return "write_file", {"path": "${root}/" + path, "content": content}


class TestCodeVerifiers:
    async def test_resolved_on_the_state_that_has_the_work_and_failed_on_others(
        self, filesystem_run: OfflineRun
    ) -> None:
        """The same verifier: ok on the right file, failed on the wrong content, failed on the untouched snapshot."""
        task = code_task(GROCERIES_CHECK)
        async with (
            filesystem_run.workspace.sandbox(filesystem_run.spec) as sandbox,
            frozen_after(sandbox, write("notes/groceries.txt", "buy oat milk\n")) as right,
            frozen_after(sandbox, write("notes/groceries.txt", "buy cow milk\n")) as wrong,
        ):
            done, mistaken, untouched = await asyncio.gather(
                judge(task, rollout_of(task, right)),
                judge(task, rollout_of(task, wrong)),
                judge(task, rollout_of(task, None), initial_state=filesystem_run.snapshot),
            )
        assert (done.resolved, done.status, done.task_id, done.rollout_id) == (
            True,
            "ok",
            task.id,
            f"r-{task.id[:8]}",
        )
        assert (mistaken.resolved, mistaken.status) == (False, "failed")
        assert (untouched.resolved, untouched.status) == (False, "failed")

    async def test_a_hanging_or_raising_verifier_is_not_resolved_and_says_why(
        self, filesystem_run: OfflineRun
    ) -> None:
        """A verifier that loops is stopped (timeout); one that raises is an error; neither resolves the task."""
        looping = code_task("def verify(state, answer):\n    while True:\n        pass\n", "loop")
        raising = code_task("def verify(state, answer):\n    return 1 / 0\n", "raise")
        policy = RunPolicy(timeout_s=1.0)
        hung, broken = await asyncio.gather(
            judge(looping, rollout_of(looping, None), initial_state=filesystem_run.snapshot, policy=policy),
            judge(raising, rollout_of(raising, None), initial_state=filesystem_run.snapshot, policy=policy),
        )
        assert (hung.resolved, hung.status) == (False, "timeout")
        assert (broken.resolved, broken.status) == (False, "error")
        assert "ZeroDivisionError" in broken.detail

    async def test_without_any_state_the_verdict_is_an_error(self, filesystem_run: OfflineRun) -> None:
        task = code_task(GROCERIES_CHECK)
        verdict = await judge(task, rollout_of(task, None))
        assert (verdict.resolved, verdict.status) == (False, "error")
        assert "no state to judge" in verdict.detail


def chain_task(run: OfflineRun, *tools: str) -> tuple[TaskSpec, Probe]:
    """The assertion verifier of a real chain, as the decompiler derives it."""
    probe, rollout, verdict = run.chain(*tools)
    evidence = chain_evidence(rollout, verdict, run.snapshot)
    task = TaskSpec(
        id=TaskSpec.make_id(run.spec.name, TaskOrigin.CHAIN, probe.id),
        server=run.spec.name,
        origin=TaskOrigin.CHAIN,
        text="the chain as a request",
        targets=list(tools),
        verifier=TaskVerifier(
            kind="assertions", assertions=evidence.assertions, requires_change=evidence.changed
        ),
        source_probe=probe.id,
    )
    return task, probe


class TestAssertionVerifiers:
    async def test_resolved_when_an_agent_left_the_recorded_state_failed_on_the_snapshot(
        self, sqlite_run: OfflineRun
    ) -> None:
        """create_table's assertions hold after the same table is created, and fail (with the query) before."""
        task, probe = chain_task(sqlite_run, "create_table", "list_tables")
        create = probe.steps[0]
        async with (
            sqlite_run.workspace.sandbox(sqlite_run.spec) as sandbox,
            frozen_after(sandbox, (create.tool, create.arguments)) as done,
        ):
            resolved = await judge(task, rollout_of(task, done))
        untouched = await judge(task, rollout_of(task, None), initial_state=sqlite_run.snapshot)
        assert (resolved.resolved, resolved.status, resolved.detail) == (True, "ok", "")
        assert (untouched.resolved, untouched.status) == (False, "failed")
        assert "pragma_table_info" in untouched.detail

    async def test_a_question_is_judged_on_the_final_answer(self, filesystem_run: OfflineRun) -> None:
        """A read-only chain's values: all of them in the answer resolve it, one missing does not."""
        task, _ = chain_task(filesystem_run, "list_directory", "read_text_file")
        values = [a.expected for a in task.verifier.assertions]
        full = f"The file says: {values[0]} and also {values[1].upper()}."
        partial = f"The file says: {values[0]}."
        right, half = await asyncio.gather(
            judge(task, rollout_of(task, None, full), initial_state=filesystem_run.snapshot),
            judge(task, rollout_of(task, None, partial), initial_state=filesystem_run.snapshot),
        )
        assert (right.resolved, right.status) == (True, "ok")
        assert (half.resolved, half.status) == (False, "failed")
        assert values[1] in half.detail


class TestInitialStates:
    async def test_a_file_kind_starts_from_its_snapshot_a_stateless_one_from_an_empty_frozen_folder(
        self, workspace: Workspace
    ) -> None:
        """The filesystem snapshot is read in place; the time server's untouched state is made, judged, removed."""
        async with initial_state(workspace, DEMO.server("filesystem")) as files:
            assert files == workspace.snapshot(DEMO.server("filesystem"))
        question = code_task(
            "def verify(state, answer):\n    return 'Europe/London' in answer\n", "time zone"
        )
        async with initial_state(workspace, DEMO.server("time")) as empty:
            assert isinstance(empty, FrozenState) and empty.kind == "none"
            assert list(Path(empty.path).iterdir()) == []
            right, wrong = await asyncio.gather(
                judge(
                    question, rollout_of(question, None, "It is 10:00 in Europe/London."), initial_state=empty
                ),
                judge(question, rollout_of(question, None, "It is 10:00."), initial_state=empty),
            )
        assert not Path(empty.path).exists()
        assert (right.resolved, wrong.resolved, wrong.status) == (True, False, "failed")
