"""Real calls for induction tests: one filesystem-server sandbox, and rollouts built from its outcomes.

The calls are made against the real ``@modelcontextprotocol/server-filesystem`` of the demo
catalogue in a private instance; the rollouts arrange those outcomes the way the agents record
them (ReAct function calls, a CodeAct snippet with two calls, final answers), with the instance's
placeholder values so induction normalises paths as the build does.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from toolatlas.config import LlmSettings, load_catalogue
from toolatlas.environments import FrozenState, render_value
from toolatlas.graph.state import ServerGraph
from toolatlas.home import Home
from toolatlas.models import CallOutcome, ToolSpec, stable_id
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, Verdict
from toolatlas.probing.verifier import Verifier
from toolatlas.tasks.models import (
    AgentAction,
    AgentKind,
    AgentRollout,
    AgentStep,
    TaskOrigin,
    TaskSpec,
    TaskVerdict,
    TaskVerifier,
)
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
DEMO = load_catalogue(REPO / "configs" / "demo.toml")
SERVER = "filesystem"

CALLS: dict[str, tuple[str, dict]] = {
    "ls_root": ("list_directory", {"path": "${root}"}),
    "ls_docs": ("list_directory", {"path": "${root}/docs"}),
    "read_api": ("read_text_file", {"path": "${root}/docs/api.md"}),
    "read_missing": ("read_text_file", {"path": "${root}/docs/reference.md"}),
    "write_note": ("write_file", {"path": "${root}/notes/summary.txt", "content": "API summary: see docs/api.md"}),
    "read_note": ("read_text_file", {"path": "${root}/notes/summary.txt"}),
}
CODE = "listing = tools.list_directory(path=root + '/docs')\nprint(tools.read_text_file(path=root + '/docs/api.md'))"


@dataclass(frozen=True)
class RealCalls:
    """Outcomes of real calls to the filesystem server, with its tools and the instance's variables."""

    tools: list[ToolSpec]
    variables: dict[str, str]
    instance: str
    outcomes: dict[str, CallOutcome]
    offline: list[tuple[Rollout, Verdict]]
    """Offline probes of the same server, executed and verified by the offline engine."""


OFFLINE_PROBES = [
    Probe(id="offline-missing-page", server=SERVER, round=0, direction=Direction.BOUNDARY, target="read_text_file",
          task="read a page that does not exist",
          steps=[ProbeStep(tool="read_text_file", arguments={"path": "${root}/docs/nothing-here.md"}, expect="error",
                           condition="`path` names a file that does not exist")]),
]


def make_real_calls() -> RealCalls:
    async def run() -> RealCalls:
        workspace = Workspace(DEMO, Home(REPO / ".toolatlas"))
        sandbox = workspace.sandbox(DEMO.server(SERVER))
        executor = Executor(sandbox, "kit")
        await executor.start()
        try:
            assert sandbox.instance is not None and executor.snapshot_digest is not None
            verifier = Verifier(sandbox.environment, executor.snapshot_digest, {t.name: t for t in sandbox.tools})
            offline = []
            for probe in OFFLINE_PROBES:
                rollout = await executor.run(probe)
                offline.append((rollout, verifier.verify(rollout)))
            variables = sandbox.variables()
            outcomes = {}
            for name, (tool, arguments) in CALLS.items():
                outcomes[name] = await sandbox.call(tool, render_value(arguments, variables))
            return RealCalls(list(sandbox.tools), variables, sandbox.instance.id, outcomes, offline)
        finally:
            await executor.close()

    return asyncio.run(run())


def settings_for(server: ScriptedOpenAIServer) -> LlmSettings:
    return LlmSettings(base_url=server.base_url, model="scripted-model", timeout_s=5.0, max_retries=1,
                       backoff_base_s=0.005, backoff_cap_s=0.02, structured_output_retries=1)


def make_task(text: str = "Find the API documentation in the docs folder and tell me its first heading.") -> TaskSpec:
    return TaskSpec(
        id=TaskSpec.make_id(SERVER, TaskOrigin.BOOTSTRAP, text),
        server=SERVER,
        origin=TaskOrigin.BOOTSTRAP,
        round=0,
        text=text,
        targets=["read_text_file"],
        verifier=TaskVerifier(kind="code", source="def verify(state, answer):\n    return 'API' in answer\n"),
    )


def call_step(index: int, outcome: CallOutcome, thought: str = "") -> AgentStep:
    action = AgentAction(kind="call", thought=thought, tool=outcome.tool, arguments=outcome.arguments)
    return AgentStep(index=index, action=action, calls=[outcome], observation=outcome.excerpt[:200])


def code_step(index: int, outcomes: list[CallOutcome], code: str = CODE) -> AgentStep:
    action = AgentAction(kind="code", thought="list the docs, then read the API page", code=code)
    return AgentStep(index=index, action=action, calls=outcomes, observation=outcomes[-1].excerpt[:200], code_status="ok")


def answer_step(index: int, text: str) -> AgentStep:
    return AgentStep(index=index, action=AgentAction(kind="answer", answer=text))


def make_rollout(task: TaskSpec, real: RealCalls, n: int, agent: AgentKind, steps: list[AgentStep]) -> AgentRollout:
    frozen = FrozenState(kind="directory", instance_id=real.instance, path=real.variables["root"], variables=real.variables)
    answer = steps[-1].action.answer or "" if steps else ""
    return AgentRollout(id=stable_id("rollout", task.id, n), task=task, agent=agent, rollout=n,
                        temperature=0.0 if n == 0 else 0.7, model="scripted-model", steps=steps,
                        final_answer=answer, frozen=frozen)


def verdict(rollout: AgentRollout, resolved: bool) -> TaskVerdict:
    return TaskVerdict(rollout_id=rollout.id, task_id=rollout.task.id, resolved=resolved,
                       status="ok" if resolved else "failed", detail="" if resolved else "answer lacks the heading")


@dataclass
class Scenario:
    """Four rollouts of one task: two resolved (ReAct; CodeAct with a two-call snippet), two failed
    (each guessed a page that does not exist)."""

    task: TaskSpec
    rollouts: list[AgentRollout]
    verdicts: list[TaskVerdict]
    real: RealCalls

    def graph(self) -> ServerGraph:
        return ServerGraph(SERVER, self.real.tools)

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.rollouts]


def scenario(real: RealCalls) -> Scenario:
    task = make_task()
    out = real.outcomes
    react_ok = make_rollout(task, real, 0, AgentKind.REACT, [
        call_step(0, out["ls_docs"], "see what the docs folder holds"),
        call_step(1, out["read_api"], "read the API page"),
        answer_step(2, "The first heading is the API page title."),
    ])
    codeact_ok = make_rollout(task, real, 1, AgentKind.CODEACT, [
        code_step(0, [out["ls_docs"], out["read_api"]]),
        answer_step(1, "The API page starts with its title heading."),
    ])
    guessed = make_rollout(task, real, 2, AgentKind.REACT, [
        call_step(0, out["read_missing"], "the API docs are probably reference.md"),
        answer_step(1, "There is no API documentation."),
    ])
    listed_then_guessed = make_rollout(task, real, 3, AgentKind.SWITCHACT, [
        call_step(0, out["ls_root"], "look around"),
        call_step(1, out["read_missing"], "guess the page name"),
        answer_step(2, "I could not find it."),
    ])
    rollouts = [react_ok, codeact_ok, guessed, listed_then_guessed]
    verdicts = [verdict(r, resolved) for r, resolved in zip(rollouts, [True, True, False, False], strict=True)]
    return Scenario(task, rollouts, verdicts, real)


def cite(rollout: AgentRollout, step: int, call: int = 0) -> dict:
    return {"rollout": rollout.id, "step": step, "call": call}
