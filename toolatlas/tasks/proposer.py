"""The LLM task proposer: seed tasks (bootstrap, paper §3.1) and probe tasks (exploration, §3.2).

One prompt (role ``proposer``) serves both stages; what changes is how many tasks of each kind
are asked for. The prompt carries the target tool's spec, documentation snippets, everything
the offline engine verified about it (entries with exact arguments and errors), its neighbours
and traces, and what exists in the environment. The LLM answers with tasks, each with a Python
verifier; every task is vetted (:mod:`toolatlas.tasks.vetting`) and either kept as a
:class:`~toolatlas.tasks.models.TaskSpec` or recorded as a
:class:`~toolatlas.tasks.vetting.TaskRejection` — nothing is dropped silently::

    proposer = TaskProposer(llm, brief)
    seeds = await proposer.seed_tasks("write_file", k=3)                       # origin bootstrap
    probes = await proposer.probe_tasks("write_file", round_=1, boundary=3, affordance=3)
"""

from __future__ import annotations

import asyncio
from typing import Literal

import structlog
from pydantic import BaseModel, Field

from toolatlas.codebox import RunPolicy
from toolatlas.errors import ConfigError, LlmError
from toolatlas.llm import LlmClient
from toolatlas.prompts import Prompt, load_prompt
from toolatlas.tasks.context import (
    ServerBrief,
    render_docs,
    render_environment,
    render_neighbours,
    render_tool_spec,
    render_traces,
    render_verified,
)
from toolatlas.tasks.models import TaskOrigin, TaskSpec, TaskVerifier
from toolatlas.tasks.vetting import (
    ProposalBatch,
    RejectionReason,
    TaskRejection,
    named_tools,
    vet_code_verifier,
)

__all__ = ["PROPOSER_PROMPT", "ProposedTask", "ProposedTasks", "TaskProposer"]

log = structlog.get_logger(__name__)

PROPOSER_PROMPT = "proposer"
"""The prompt file (``toolatlas/prompts/proposer.md``); it runs as the ``proposer`` role."""
VETTING_CONCURRENCY = 4
"""Verifiers vetted at once (each is one code-box process)."""

ProposedKind = Literal["seed", "boundary", "affordance"]
_ORIGINS: dict[str, TaskOrigin] = {
    "seed": TaskOrigin.BOOTSTRAP,
    "boundary": TaskOrigin.BOUNDARY,
    "affordance": TaskOrigin.AFFORDANCE,
}


class ProposedTask(BaseModel):
    """One task as the LLM writes it."""

    kind: ProposedKind
    text: str = Field(description="the request, as a user would write it; names no tool")
    rationale: str = Field(description="what the task tests, for the tool's maintainers")
    requires_change: bool = Field(description="the task asks to change the environment")
    verifier: str = Field(description="Python source defining verify(state, answer) -> bool")


class ProposedTasks(BaseModel):
    """The proposer's structured answer."""

    tasks: list[ProposedTask]


class TaskProposer:
    """Writes and vets tasks for the tools of one server."""

    def __init__(
        self,
        llm: LlmClient,
        brief: ServerBrief,
        *,
        policy: RunPolicy | None = None,
        temperature: float | None = None,
    ) -> None:
        self.llm = llm
        self.brief = brief
        self.policy = policy
        self.temperature = temperature
        self._vetting = asyncio.Semaphore(VETTING_CONCURRENCY)

    async def seed_tasks(self, tool: str, k: int, *, round_: int = 0) -> ProposalBatch:
        """``k`` seed tasks for ``tool`` (origin bootstrap; ``round_``: the build round that runs them)."""
        return await self._propose(tool, round_, {"seed": k})

    async def probe_tasks(
        self, tool: str, round_: int, *, boundary: int = 3, affordance: int = 3
    ) -> ProposalBatch:
        """Exploration round ``round_``: ``boundary`` + ``affordance`` probe tasks for the target ``tool``."""
        return await self._propose(tool, round_, {"boundary": boundary, "affordance": affordance})

    # -- one call ---------------------------------------------------------------------------------

    async def _propose(self, tool: str, round_: int, wanted: dict[str, int]) -> ProposalBatch:
        if tool not in self.brief.graph.specs:
            known = ", ".join(self.brief.tool_names)
            raise ConfigError(
                None, [(f"servers[{self.brief.name}]", f"no tool {tool!r}; its tools: {known}")]
            )
        counts = {kind: wanted.get(kind, 0) for kind in _ORIGINS}
        origins = [_ORIGINS[kind] for kind, n in counts.items() if n]
        origin = origins[0] if len(origins) == 1 else None  # a failed exploration call asked for both
        if not origins:  # e.g. both probe directions switched off
            return ProposalBatch(server=self.brief.name, tool=tool, round=round_)
        prompt = load_prompt(PROPOSER_PROMPT)
        try:
            reply = await self.llm.complete(
                prompt.role,
                self._messages(prompt, tool, counts),
                response_model=ProposedTasks,
                temperature=self.temperature,
                server=self.brief.name,
                round=round_,
            )
        except LlmError as exc:
            return self._failed(tool, round_, origin, f"endpoint failed: {exc}")
        if reply.parsed is None:
            failure = reply.failure
            detail = (
                f"{failure.error} (after {failure.attempts} attempts)" if failure else "no structured answer"
            )
            return self._failed(tool, round_, origin, detail)
        return await self._vet_all(tool, round_, counts, reply.parsed.tasks)

    def _messages(self, prompt: Prompt, tool: str, counts: dict[str, int]) -> list[dict[str, str]]:
        brief, graph = self.brief, self.brief.graph
        return prompt.messages(
            server=brief.name,
            server_description=brief.spec.description or "(no description)",
            tool=tool,
            tool_spec=render_tool_spec(graph.specs[tool]),
            docs=render_docs(brief.docs, tool),
            verified=render_verified(graph, tool),
            neighbours=render_neighbours(graph, tool),
            traces=render_traces(graph, tool),
            environment=render_environment(brief.facts),
            tool_names=", ".join(brief.tool_names),
            seed_count=counts["seed"],
            boundary_count=counts["boundary"],
            affordance_count=counts["affordance"],
        )

    def _failed(self, tool: str, round_: int, origin: TaskOrigin | None, detail: str) -> ProposalBatch:
        log.warning(
            "task_proposal_failed", server=self.brief.name, tool=tool, round=round_, detail=detail[:300]
        )
        rejection = TaskRejection(
            server=self.brief.name,
            origin=origin,
            round=round_,
            targets=[tool],
            reason=RejectionReason.LLM_FAILURE,
            detail=detail[:1000],
        )
        return ProposalBatch(server=self.brief.name, tool=tool, round=round_, rejected=[rejection])

    # -- vetting ----------------------------------------------------------------------------------

    async def _vet_all(
        self, tool: str, round_: int, counts: dict[str, int], proposed: list[ProposedTask]
    ) -> ProposalBatch:
        taken = dict.fromkeys(counts, 0)
        seen: set[str] = set()
        screened: list[tuple[TaskSpec, RejectionReason | None, str]] = []
        for item in proposed:
            task = self._task(tool, round_, item)
            reason, detail = self._screen(item, task, taken, counts, seen)
            screened.append((task, reason, detail))
        to_run = [task for task, reason, _ in screened if reason is None]
        vetted = dict(
            zip((t.id for t in to_run), await asyncio.gather(*map(self._vet_verifier, to_run)), strict=True)
        )
        accepted, rejected = [], []
        for task, reason, detail in screened:
            verdict = (reason, detail) if reason is not None else vetted[task.id]
            if verdict is None:
                accepted.append(task)
            else:
                rejected.append(TaskRejection.of(task, *verdict))
        log.info(
            "tasks_proposed",
            server=self.brief.name,
            tool=tool,
            round=round_,
            accepted=len(accepted),
            rejected=len(rejected),
        )
        return ProposalBatch(
            server=self.brief.name, tool=tool, round=round_, accepted=accepted, rejected=rejected
        )

    def _task(self, tool: str, round_: int, item: ProposedTask) -> TaskSpec:
        origin = _ORIGINS[item.kind]
        text = " ".join(item.text.split())
        return TaskSpec(
            id=TaskSpec.make_id(self.brief.name, origin, text),
            server=self.brief.name,
            origin=origin,
            round=round_,
            text=text,
            targets=[tool],
            verifier=TaskVerifier(kind="code", source=item.verifier, requires_change=item.requires_change),
            rationale=item.rationale.strip(),
        )

    def _screen(
        self,
        item: ProposedTask,
        task: TaskSpec,
        taken: dict[str, int],
        counts: dict[str, int],
        seen: set[str],
    ) -> tuple[RejectionReason | None, str]:
        """The checks that need no code run: asked for, non-empty, new, names no tool."""
        if taken[item.kind] >= counts[item.kind]:
            return RejectionReason.NOT_ASKED, f"{counts[item.kind]} {item.kind} task(s) were asked for"
        taken[item.kind] += 1
        if not task.text or not item.verifier.strip():
            return RejectionReason.EMPTY, "no task text" if not task.text else "no verifier"
        if task.id in seen:
            return RejectionReason.DUPLICATE, "the same task was proposed twice"
        seen.add(task.id)
        named = named_tools(task.text, self.brief.tool_names)
        if named:
            return RejectionReason.NAMES_TOOL, f"names {', '.join(named)}"
        return None, ""

    async def _vet_verifier(self, task: TaskSpec) -> tuple[RejectionReason, str] | None:
        async with self._vetting:
            return await vet_code_verifier(task.verifier.source, self.brief.initial_state, policy=self.policy)
