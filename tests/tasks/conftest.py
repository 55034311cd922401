"""Real material for the task tests: offline probes run on the demo servers, a scripted LLM, briefs.

:func:`offline_run` runs the offline engine's seed probes (and any extra probes) against a real
demo server in a real sandbox, verifies them (keeping the frozen post-states) and induces the
server's graph from them, as a build's bootstrap does. Chains for chain tasks, and the graph
context for the proposers, come from these runs.
"""

from __future__ import annotations

import ast
import asyncio
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolatlas.config import LlmSettings, ServerSpec, load_catalogue
from toolatlas.environments import Snapshot
from toolatlas.graph.state import ServerGraph
from toolatlas.home import Home
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.pipeline.shard import ServerShard
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, Rollout, Verdict
from toolatlas.probing.verifier import Verifier
from toolatlas.tasks.context import ServerBrief
from toolatlas.tasks.docs import UsageDocs
from toolatlas.testing.openai_script import Script
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.testing.openai_wire import ChatRequest
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
DEMO = load_catalogue(REPO / "configs" / "demo.toml")
FILESYSTEM_README = (
    "../.toolatlas/runtimes/npm/modelcontextprotocol+server-filesystem@*/node_modules/"
    "@modelcontextprotocol/server-filesystem/README.md"
)

ExtraProbes = Callable[[ServerShard], list[Probe]]


@dataclass
class OfflineRun:
    """One server's offline bootstrap, run for real: its graph, facts, and every probe with its outcome."""

    workspace: Workspace
    spec: ServerSpec
    graph: ServerGraph
    facts: EnvironmentFacts
    snapshot: Snapshot
    records: list[tuple[Probe, Rollout, Verdict]]

    def chain(self, *tools: str) -> tuple[Probe, Rollout, Verdict]:
        """The first resolved probe whose steps call exactly ``tools``, in order."""
        for probe, rollout, verdict in self.records:
            if [s.tool for s in probe.steps] == list(tools) and verdict.resolved:
                return probe, rollout, verdict
        raise AssertionError(
            f"no resolved chain {tools}: {[[s.tool for s in p.steps] for p, _, _ in self.records]}"
        )

    def brief(self, *, docs: list[str] | None = None) -> ServerBrief:
        spec = self.spec.model_copy(update={"docs": docs}) if docs is not None else self.spec
        loaded = UsageDocs.load(spec, DEMO.base_dir) if docs else UsageDocs.empty()
        return ServerBrief(
            spec=spec, graph=self.graph, facts=self.facts, initial_state=self.snapshot, docs=loaded
        )


async def _run(workspace: Workspace, spec: ServerSpec, extra: ExtraProbes | None) -> OfflineRun:
    settings = DEMO.build.model_copy(update={"seed_tasks_per_tool": 1, "rollouts_per_task": 1})
    executor = Executor(workspace.sandbox(spec), f"{spec.name}/tests")
    await executor.start()
    try:
        tools = executor.sandbox.tools
        shard = ServerShard(workspace, spec, settings)
        shard.prepare(tools)
        environment, snapshot = workspace.environment(spec), workspace.snapshot(spec)
        verifier = Verifier(environment, environment.digest(snapshot), {t.name: t for t in tools})
        records = []
        probes = shard.plan(0)
        while probes:
            for probe in probes:
                rollout = await executor.run(probe)
                verdict = verifier.verify(rollout, discard=False)
                shard.absorb(rollout, verdict)
                records.append((probe, rollout, verdict))
            shard.finish_round(probes[0].round, 0.0)
            probes, extra = (extra(shard) if extra else []), None
    finally:
        await executor.close()
    assert shard.graph is not None and shard.proposer is not None
    return OfflineRun(workspace, spec, shard.graph, shard.proposer.facts, snapshot, records)


def offline_run(workspace: Workspace, name: str, extra: ExtraProbes | None = None) -> Iterator[OfflineRun]:
    """Run the offline bootstrap of ``name`` (plus ``extra`` probes); discard the frozen states after."""
    spec = DEMO.server(name)
    run = asyncio.run(_run(workspace, spec, extra))
    try:
        yield run
    finally:
        environment = workspace.environment(spec)
        for _, rollout, _ in run.records:
            if rollout.frozen is not None:
                environment.discard(rollout.frozen)


@pytest.fixture(scope="session")
def workspace() -> Workspace:
    return Workspace(DEMO, Home(REPO / ".toolatlas"))


def _read_text_file_round(shard: ServerShard) -> list[Probe]:
    """Round 1 on ``read_text_file``: its compositions with other tools and a few boundary mutations."""
    assert shard.proposer is not None
    candidates = shard.proposer.candidates(1, ["read_text_file"])["read_text_file"]
    boundaries = [p for p in candidates if p.direction is Direction.BOUNDARY][:4]
    return [p for p in candidates if len(p.steps) >= 2] + boundaries


@pytest.fixture(scope="module")
def filesystem_run(workspace: Workspace) -> Iterator[OfflineRun]:
    """The filesystem server's seeds, then a round on ``read_text_file`` (co-usage, boundaries, traces)."""
    yield from offline_run(workspace, "filesystem", _read_text_file_round)


GIT_CHAINS = (
    ("git_commit", ["git_add", "git_commit"]),
    ("git_checkout", ["git_branch", "git_checkout"]),
)
"""Round-1 chains of the git server: (target tool, steps). Stage then commit (``git_commit`` fails
on the clean snapshot); list the branches, then check one out."""


def _git_chains(shard: ServerShard) -> list[Probe]:
    """Round 1: each chain of :data:`GIT_CHAINS` the proposer offers for its target."""
    assert shard.proposer is not None
    chosen = []
    for target, steps in GIT_CHAINS:
        candidates = shard.proposer.candidates(1, [target])[target]
        chosen += [p for p in candidates if [s.tool for s in p.steps] == steps]
    return chosen


@pytest.fixture(scope="module")
def sqlite_run(workspace: Workspace) -> Iterator[OfflineRun]:
    yield from offline_run(workspace, "sqlite")


@pytest.fixture(scope="module")
def memory_run(workspace: Workspace) -> Iterator[OfflineRun]:
    yield from offline_run(workspace, "memory")


@pytest.fixture(scope="module")
def git_run(workspace: Workspace) -> Iterator[OfflineRun]:
    yield from offline_run(workspace, "git", _git_chains)


@pytest.fixture()
def script() -> Script:
    return Script()


@pytest.fixture()
def endpoint(script: Script) -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(script) as running:
        yield running


@pytest.fixture()
def llm_settings(endpoint: ScriptedOpenAIServer) -> LlmSettings:
    return LlmSettings(
        base_url=endpoint.base_url,
        model="scripted-model",
        timeout_s=5.0,
        max_retries=1,
        backoff_base_s=0.005,
        backoff_cap_s=0.02,
        structured_output_retries=1,
    )


# -- reading the prompts a scripted policy receives -------------------------------------------------


def section(request: ChatRequest, title: str) -> str:
    """The body of one ``## title`` section of the user message."""
    text = request.last_user_text
    match = re.search(rf"^## {re.escape(title)}[^\n]*\n(.*?)(?=^## |\Z)", text, re.DOTALL | re.MULTILINE)
    assert match, f"no section {title!r} in:\n{text}"
    return match.group(1).strip()


def listed_values(request: ChatRequest, title: str) -> list[str]:
    """The ``- 'value'`` items of a section (Python reprs of strings)."""
    body = section(request, title)
    items = [line[2:] for line in body.splitlines() if line.startswith("- ")]
    return [] if body == "(none)" else [ast.literal_eval(item) for item in items]


def asked_counts(request: ChatRequest) -> dict[str, int]:
    """How many tasks of each kind the proposer prompt asks for."""
    match = re.search(
        r"Write exactly (\d+) seed task\(s\), (\d+) boundary task\(s\) and (\d+) affordance task\(s\)",
        request.last_user_text,
    )
    assert match, request.last_user_text
    return dict(zip(("seed", "boundary", "affordance"), map(int, match.groups()), strict=True))


def target_tool(request: ChatRequest) -> str:
    match = re.search(r"^Target tool: (\S+)", request.last_user_text, re.MULTILINE)
    assert match
    return match.group(1)


def tasks_answer(*tasks: dict) -> dict:
    return {"tasks": list(tasks)}


def task(
    kind: str, text: str, verifier: str, *, requires_change: bool = True, rationale: str = "tests it"
) -> dict:
    return {
        "kind": kind,
        "text": text,
        "rationale": rationale,
        "requires_change": requires_change,
        "verifier": verifier,
    }
