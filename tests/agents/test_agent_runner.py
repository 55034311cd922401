"""Rollouts in a live sandbox (fresh state in, frozen post-state out), the rollout plan, and the probe view
that lets the rule-based Verifier and Inducer absorb what agent calls revealed."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.agents import AgentLimits, AgentRunner, as_probe_rollout, rollout_plan, run_rollout
from toolatlas.config import MethodSettings, parse_catalogue
from toolatlas.environments import StateDigest
from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import CoUsageRelation, EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.home import Home
from toolatlas.llm import LlmClient
from toolatlas.models import CallOutcome, Effect, OutcomeClass
from toolatlas.probing.models import Direction
from toolatlas.probing.verifier import Verifier
from toolatlas.sandbox import Sandbox
from toolatlas.tasks.models import AgentAction, AgentKind, AgentRollout, AgentStep, TaskOrigin
from toolatlas.testing import faulty_server_command
from toolatlas.testing.openai_script import Reply, Script
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.testing.openai_wire import ChatRequest
from toolatlas.workspace import Workspace

from .conftest import make_task, root_of, tool_outputs, turns

REACT = "prompt=agent_react"
NOTE = "notes/agent.txt"


def write_note(request: ChatRequest) -> Reply:
    return Reply.call("write_file", {"path": f"{root_of(request)}/{NOTE}", "content": "written by an agent"})


def read(relative: str):
    return lambda request: Reply.call("read_text_file", {"path": f"{root_of(request)}/{relative}"})


@pytest.mark.servers
class TestRolloutInASandbox:
    async def test_the_post_state_is_frozen_with_the_write_and_the_instance_is_reset(
        self, filesystem: Sandbox, llm: LlmClient, script: Script
    ) -> None:
        """The frozen state holds the agent's file; the live instance is back to the snapshot; each call's state is kept."""
        script.add(turns(write_note, read(NOTE), Reply.say("done")), system=REACT)
        result = await run_rollout(
            make_task("Leave a note in ${root}/notes."), AgentKind.REACT, filesystem, llm=llm
        )

        assert result.stop == "answer", result.detail
        assert result.frozen is not None
        assert (Path(result.frozen.path) / NOTE).read_text() == "written by an agent"
        assert not (Path(filesystem.variables()["root"]) / NOTE).exists()
        snapshot = await filesystem.digest(filesystem.snapshot)
        assert await filesystem.digest() == snapshot
        after_write, after_read = (step.digests_after for step in result.steps[:2])
        assert snapshot.diff(after_write[0]).added == [NOTE]
        assert after_read == after_write and result.final_digest == after_write[0]
        assert result.variables["root"] == filesystem.variables()["root"]
        await filesystem.discard(result.frozen)

    async def test_a_used_instance_is_reset_before_the_rollout_starts(
        self, filesystem: Sandbox, llm: LlmClient, script: Script
    ) -> None:
        """A file someone wrote before the rollout is gone when the agent looks: rollouts start from the snapshot."""
        await filesystem.call(
            "write_file", {"path": f"{filesystem.variables()['root']}/{NOTE}", "content": "stale"}
        )
        script.add(turns(read(NOTE), lambda request: Reply.say(tool_outputs(request)[-1])), system=REACT)
        runner = AgentRunner(filesystem, llm)
        result = await runner.run(make_task("Read the note in ${root}/notes."), AgentKind.REACT)

        assert result.calls[0].outcome is OutcomeClass.TOOL_ERROR and "ENOENT" in result.final_answer
        assert runner.resets == 2  # before (dirty) and after (frozen)

    async def test_skip_untouched_freezes_only_rollouts_that_changed_the_state(
        self, filesystem: Sandbox, llm: LlmClient, script: Script
    ) -> None:
        """With skip_untouched a read-only rollout needs no freeze and no reset; a writing one still gets both."""
        script.add(turns(read("README.md"), Reply.say("read")), times=2, system=REACT, user="Read")
        script.add(turns(write_note, Reply.say("wrote")), system=REACT)
        runner = AgentRunner(filesystem, llm, skip_untouched=True)
        reading = await runner.run(make_task("Read ${root}/README.md."), AgentKind.REACT)
        writing = await runner.run(make_task("Write a note in ${root}."), AgentKind.REACT)

        assert (reading.frozen, reading.final_digest) == (None, await filesystem.digest(filesystem.snapshot))
        assert writing.frozen is not None and (Path(writing.frozen.path) / NOTE).exists()
        assert runner.resets == 1
        await filesystem.discard(writing.frozen)

    async def test_planned_rollouts_run_at_their_temperatures(
        self, memory: Sandbox, llm: LlmClient, script: Script, endpoint: ScriptedOpenAIServer
    ) -> None:
        script.add(Reply.say("nothing to do"), system="prompt=agent_switchact")
        runner = AgentRunner(memory, llm)
        task = make_task("Say hello.", server="memory")
        results = [await runner.run_planned(planned) for planned in rollout_plan(task, 3)]

        assert [request.body["temperature"] for request in endpoint.chat_requests] == [0.0, 0.2, 0.5]
        assert [(r.rollout, r.temperature, r.agent) for r in results] == [
            (0, 0.0, AgentKind.SWITCHACT),
            (1, 0.2, AgentKind.SWITCHACT),
            (2, 0.5, AgentKind.SWITCHACT),
        ]
        assert len({r.id for r in results}) == 3


class TestRolloutPlan:
    def test_rollout_zero_is_deterministic_and_the_rest_explore(self) -> None:
        """Rollout 0 at temperature 0, then 0.2, 0.5, 0.8 in turn (papers/004), N per agent kind."""
        task = make_task("x")
        plan = rollout_plan(task, 5, [AgentKind.REACT, AgentKind.CODEACT])
        assert [(p.kind, p.rollout, p.temperature) for p in plan] == [
            (kind, index, temperature)
            for kind in (AgentKind.REACT, AgentKind.CODEACT)
            for index, temperature in enumerate([0.0, 0.2, 0.5, 0.8, 0.2])
        ]

    def test_a_build_sets_the_temperatures_and_the_limits(self) -> None:
        """``[build.method]`` decides the exploratory temperatures, the turns and the rollout wall time."""
        method = MethodSettings(max_turns=7, rollout_timeout_s=42.0, exploratory_temperatures=[0.7, 1.0])
        plan = rollout_plan(make_task("x"), 4, temperatures=method.exploratory_temperatures)
        assert [p.temperature for p in plan] == [0.0, 0.7, 1.0, 0.7]
        assert [p.temperature for p in rollout_plan(make_task("x"), 2, temperatures=[])] == [0.0, 0.0]
        limits = AgentLimits.from_method(method, snippet_timeout_s=5.0)
        assert (limits.max_turns, limits.timeout_s, limits.snippet_timeout_s) == (7, 42.0, 5.0)


@pytest.mark.servers
class TestProbeView:
    async def test_agent_calls_feed_the_rule_based_verifier_and_inducer(
        self, filesystem: Sandbox, llm: LlmClient, script: Script
    ) -> None:
        """A failed read, its correction and a write: a boundary, two affordances with effects, a retry edge."""
        script.add(turns(read("NOTES.md"), read("README.md"), write_note, Reply.say("done")), system=REACT)
        task = make_task("Note the project name in ${root}/notes.", targets=["read_text_file"])
        result = await run_rollout(task, AgentKind.REACT, filesystem, llm=llm)
        rollout = as_probe_rollout(result)

        assert (rollout.probe.id, rollout.probe.direction, rollout.probe.target) == (
            result.id,
            Direction.SEED,
            "read_text_file",
        )
        assert [step.arguments["path"] for step in rollout.probe.steps] == [
            "${root}/NOTES.md",
            "${root}/README.md",
            "${root}/" + NOTE,
        ]
        assert [step.retry_of for step in rollout.probe.steps] == [None, 0, None]

        tools = {tool.name: tool for tool in filesystem.tools}
        verifier = Verifier(filesystem.environment, await filesystem.digest(filesystem.snapshot), tools)
        verdict = verifier.verify(rollout)
        assert [(s.tool, s.failed, s.effect) for s in verdict.steps] == [
            ("read_text_file", True, Effect.READ_ONLY),
            ("read_text_file", False, Effect.READ_ONLY),
            ("write_file", False, Effect.MUTATING),
        ]
        assert verdict.steps[2].change.added == [NOTE]

        graph = ServerGraph("filesystem", filesystem.tools)
        delta = Inducer(graph).induce(rollout, verdict)
        assert len(delta.new_entries) == 4
        (boundary,) = graph.entries_of("read_text_file", EntryKind.BOUNDARY)
        assert boundary.evidence[0].probe_id == result.id and "ENOENT" in boundary.evidence[0].excerpt
        assert boundary.evidence[0].arguments == {"path": "${root}/NOTES.md"}
        (write,) = graph.entries_of("write_file", EntryKind.AFFORDANCE)
        assert write.effect is Effect.MUTATING
        (retry,) = graph.entries_of("read_text_file", EntryKind.CO_USAGE)
        assert (retry.relation, retry.peer) == (CoUsageRelation.RETRY, "read_text_file")
        assert (
            result.frozen is not None and Path(result.frozen.path).exists()
        )  # the judge's state is left alone
        await filesystem.discard(result.frozen)

    @pytest.mark.parametrize(
        ("origin", "direction"),
        [
            (TaskOrigin.BOOTSTRAP, Direction.SEED),
            (TaskOrigin.CHAIN, Direction.SEED),
            (TaskOrigin.BOUNDARY, Direction.BOUNDARY),
            (TaskOrigin.AFFORDANCE, Direction.AFFORDANCE),
        ],
    )
    def test_the_direction_follows_the_task_origin(self, origin: TaskOrigin, direction: Direction) -> None:
        rollout = AgentRollout(
            id="r1", task=make_task("x", origin=origin), agent=AgentKind.REACT, rollout=0, temperature=0.0
        )
        assert as_probe_rollout(rollout).probe.direction is direction

    def test_effects_stay_unknown_when_a_call_has_no_recorded_state(self) -> None:
        """Without a digest for every call no change is attributed to any call (rather than to the wrong one)."""
        call = CallOutcome(
            server="filesystem", tool="write_file", arguments={"path": "/x"}, outcome=OutcomeClass.OK
        )
        state = StateDigest(kind="directory", items={"x": "1"})
        step = AgentStep(
            index=0, action=AgentAction(kind="code", code="..."), calls=[call, call], digests_after=[state]
        )
        rollout = AgentRollout(
            id="r2",
            task=make_task("x"),
            agent=AgentKind.CODEACT,
            rollout=0,
            temperature=0.0,
            steps=[step],
            final_digest=state,
        )
        probe_rollout = as_probe_rollout(rollout)
        assert [s.digest_after for s in probe_rollout.steps] == [None, None]
        assert probe_rollout.final_digest is None
        assert probe_rollout.probe.steps[0].intent == "codeact agent calls `write_file` in a snippet"


@pytest.mark.servers
class TestServerFaults:
    async def test_a_crash_is_observed_the_server_restarts_and_the_rollout_is_frozen(
        self, tmp_path: Path, llm: LlmClient, script: Script
    ) -> None:
        """The crash is the call's outcome; the next call reaches a restarted server; the state is frozen anyway."""
        command, args = faulty_server_command()
        catalogue = parse_catalogue(
            {"servers": [{"name": "faulty", "transport": {"command": command, "args": args}}]}
        )
        script.add(
            turns(Reply.call("crash", {}), Reply.call("echo", {"text": "back"}), Reply.say("recovered")),
            system=REACT,
        )
        async with Workspace(catalogue, Home(tmp_path / "home")).sandbox("faulty") as sandbox:
            runner = AgentRunner(sandbox, llm, skip_untouched=True)
            result = await runner.run(make_task("Crash and recover.", server="faulty"), AgentKind.REACT)

        assert result.stop == "answer", result.detail
        assert [(call.tool, call.outcome) for call in result.calls] == [
            ("crash", OutcomeClass.CRASH),
            ("echo", OutcomeClass.OK),
        ]
        assert result.steps[0].observation.startswith("[crash]")
        assert result.steps[1].observation == "back"
        assert result.frozen is not None and runner.resets == 1
