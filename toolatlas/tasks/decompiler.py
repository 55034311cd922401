"""Chain-decompiled tasks: a verified offline chain, written up by the LLM, kept only if it replays.

For one verified chain (:func:`~toolatlas.tasks.chains.chain_problem` says which qualify), code
derives the assertions from the recorded post-state (:func:`~toolatlas.tasks.chains.chain_evidence`);
they must not already hold on the untouched state. The LLM (role ``decompiler``) then writes the
request a user would have made, naming no tool and no call order; the text must state every
value the assertions need and must not give away the answer of a question. Finally
:func:`accept_chain_task` replays the chain's calls from the snapshot in a sandbox and keeps the
task only if every assertion passes on the replayed post-state::

    decompiler = ChainDecompiler(llm, brief)
    batch = await decompiler.decompile(probe, rollout, verdict, sandbox)   # accepted or rejected, with why
"""

from __future__ import annotations

import asyncio
import json
import re

import structlog
from pydantic import BaseModel, Field

from toolatlas.environments import render_value
from toolatlas.errors import LlmError, VerificationError
from toolatlas.llm import LlmClient
from toolatlas.models import CallOutcome, Frozen, OutcomeClass
from toolatlas.probing.models import Probe, Rollout, Verdict
from toolatlas.probing.text import to_placeholders
from toolatlas.prompts import Prompt, load_prompt
from toolatlas.sandbox import Sandbox
from toolatlas.tasks.assertions import AssertionResult, check_assertions, describe_assertion
from toolatlas.tasks.chains import ChainEvidence, chain_evidence, chain_problem
from toolatlas.tasks.context import ServerBrief, render_environment
from toolatlas.tasks.models import TaskOrigin, TaskSpec, TaskVerifier
from toolatlas.tasks.vetting import EMPTY_ANSWER, ProposalBatch, RejectionReason, TaskRejection, named_tools

__all__ = [
    "DECOMPILER_PROMPT",
    "ChainDecompiler",
    "ChainWriteUp",
    "ReplayCheck",
    "accept_chain_task",
    "settle_by_replay",
]

log = structlog.get_logger(__name__)

DECOMPILER_PROMPT = "decompiler"
"""The prompt file (``toolatlas/prompts/decompiler.md``); it runs as the ``decompiler`` role."""
OUTPUT_CHARS = 240
_PLACEHOLDER_PREFIX = re.compile(r"\$\{[a-z_]+\}/")
_PLACEHOLDER = re.compile(r"\$\{[a-z_]+\}")


class ChainWriteUp(BaseModel):
    """The decompiler's structured answer."""

    text: str = Field(description="the request a user would make; names no tool and no call order")
    rationale: str = Field(description="what the chain exercises, for the tool's maintainers")


class ReplayCheck(Frozen):
    """A chain replayed from the snapshot, and its task's assertions on the replayed post-state."""

    passed: bool
    results: list[AssertionResult]
    outcomes: list[OutcomeClass]
    detail: str = ""


async def accept_chain_task(task: TaskSpec, probe: Probe, sandbox: Sandbox) -> ReplayCheck:
    """Replay ``probe``'s calls from the snapshot in the started ``sandbox``; pass if every assertion holds.

    The instance is reset first unless it already equals the snapshot, and is reset again after
    (the replayed post-state is frozen, checked and discarded). For a read-only chain, the text
    of the outputs stands in for the agent's answer.
    """
    if task.verifier.kind != "assertions" or not task.verifier.assertions:
        raise VerificationError(f"task {task.id} has no assertions to replay against")
    if await sandbox.digest() != await sandbox.digest(sandbox.snapshot):
        await sandbox.reset()
    variables = sandbox.variables()
    outcomes: list[CallOutcome] = []
    for step in probe.steps:
        outcomes.append(await sandbox.call(step.tool, render_value(step.arguments, variables)))
    frozen = await sandbox.freeze_and_reset()
    try:
        seen = "\n".join(outcome.excerpt for outcome in outcomes)
        results = await asyncio.to_thread(check_assertions, task.verifier.assertions, frozen, seen)
    finally:
        await sandbox.discard(frozen)
    failed = [result for result in results if not result.passed]
    log.info("chain_replayed", server=task.server, task=task.id, probe=probe.id, passed=not failed)
    return ReplayCheck(
        passed=not failed,
        results=results,
        outcomes=[outcome.outcome for outcome in outcomes],
        detail="; ".join(result.detail for result in failed)[:1000],
    )


async def settle_by_replay(batch: ProposalBatch, probe: Probe, sandbox: Sandbox) -> ProposalBatch:
    """``batch`` with each accepted task of ``probe`` that fails :func:`accept_chain_task` moved to the rejected."""
    accepted, rejected = [], list(batch.rejected)
    for task in batch.accepted:
        replay = await accept_chain_task(task, probe, sandbox)
        if replay.passed:
            accepted.append(task)
        else:
            rejected.append(TaskRejection.of(task, RejectionReason.REPLAY_FAILED, replay.detail))
    return batch.model_copy(update={"accepted": accepted, "rejected": rejected})


class ChainDecompiler:
    """Writes tasks from the verified chains of one server."""

    def __init__(self, llm: LlmClient, brief: ServerBrief, *, temperature: float | None = None) -> None:
        self.llm = llm
        self.brief = brief
        self.temperature = temperature

    async def decompile(
        self, probe: Probe, rollout: Rollout, verdict: Verdict, sandbox: Sandbox
    ) -> ProposalBatch:
        """:meth:`write` the task, then keep it only if replaying the chain passes (:func:`settle_by_replay`)."""
        return await settle_by_replay(await self.write(probe, rollout, verdict), probe, sandbox)

    async def write(self, probe: Probe, rollout: Rollout, verdict: Verdict) -> ProposalBatch:
        """The chain's task, checked statically (not replayed yet), or the reason there is none."""
        evidence = await self._evidence(probe, rollout, verdict)
        if isinstance(evidence, TaskRejection):
            return self._batch(probe, evidence)
        return self._batch(probe, await self._write_up(probe, rollout, verdict, evidence))

    # -- pieces ---------------------------------------------------------------------------------

    async def _evidence(
        self, probe: Probe, rollout: Rollout, verdict: Verdict
    ) -> ChainEvidence | TaskRejection:
        """The chain's assertions, if it is a chain and they say something the snapshot does not."""
        problem = chain_problem(probe, rollout, verdict)
        if problem is not None:
            return TaskRejection.of(self._draft(probe, ""), RejectionReason.NOT_A_CHAIN, problem)
        evidence = await asyncio.to_thread(chain_evidence, rollout, verdict, self.brief.initial_state)
        draft = self._draft(probe, "", _verifier(evidence))
        if not evidence.assertions:
            detail = f"nothing to assert about: {verdict.change.summary()}"
            return TaskRejection.of(draft, RejectionReason.NO_ASSERTIONS, detail)
        initial = self.brief.initial_state
        on_initial = await asyncio.to_thread(check_assertions, evidence.assertions, initial, EMPTY_ANSWER)
        if all(result.passed for result in on_initial):
            detail = "every assertion already holds on the untouched state"
            return TaskRejection.of(draft, RejectionReason.VERIFIER_VACUOUS, detail)
        return evidence

    async def _write_up(
        self, probe: Probe, rollout: Rollout, verdict: Verdict, evidence: ChainEvidence
    ) -> TaskSpec | TaskRejection:
        """The LLM's request for the chain, screened: names no tool, states what it must, reveals no answer."""
        draft = self._draft(probe, "", _verifier(evidence))
        prompt = load_prompt(DECOMPILER_PROMPT)
        try:
            reply = await self.llm.complete(
                prompt.role,
                self._messages(prompt, probe, rollout, verdict, evidence),
                response_model=ChainWriteUp,
                temperature=self.temperature,
                server=self.brief.name,
                round=probe.round,
            )
        except LlmError as exc:
            return TaskRejection.of(draft, RejectionReason.LLM_FAILURE, f"endpoint failed: {exc}")
        if reply.parsed is None:
            detail = reply.failure.error if reply.failure else "no structured answer"
            return TaskRejection.of(draft, RejectionReason.LLM_FAILURE, detail)
        text = " ".join(reply.parsed.text.split())
        task = self._draft(probe, text, _verifier(evidence), reply.parsed.rationale)
        reason, detail = self._screen(task, evidence)
        return task if reason is None else TaskRejection.of(task, reason, detail)

    def _screen(self, task: TaskSpec, evidence: ChainEvidence) -> tuple[RejectionReason | None, str]:
        if not task.text:
            return RejectionReason.EMPTY, "no task text"
        if named := named_tools(task.text, self.brief.tool_names):
            return RejectionReason.NAMES_TOOL, f"names {', '.join(named)}"
        if omitted := evidence.omitted(task.text):
            return RejectionReason.OMITS_VALUE, "does not state " + ", ".join(map(repr, omitted))[:500]
        if given := evidence.given_away(task.text):
            return RejectionReason.GIVES_AWAY_ANSWER, "reveals " + ", ".join(map(repr, given))[:500]
        return None, ""

    def _draft(
        self, probe: Probe, text: str, verifier: TaskVerifier | None = None, rationale: str = ""
    ) -> TaskSpec:
        return TaskSpec(
            id=TaskSpec.make_id(self.brief.name, TaskOrigin.CHAIN, text or probe.id),
            server=self.brief.name,
            origin=TaskOrigin.CHAIN,
            round=probe.round,
            text=text,
            targets=list(dict.fromkeys(step.tool for step in probe.steps)),
            verifier=verifier or TaskVerifier(kind="assertions"),
            source_probe=probe.id,
            rationale=rationale.strip(),
        )

    def _batch(self, probe: Probe, result: TaskSpec | TaskRejection) -> ProposalBatch:
        if isinstance(result, TaskRejection):
            log.info(
                "chain_task_rejected", server=self.brief.name, probe=probe.id, reason=result.reason.value
            )
        return ProposalBatch(
            server=self.brief.name,
            tool=probe.target,
            round=probe.round,
            accepted=[result] if isinstance(result, TaskSpec) else [],
            rejected=[result] if isinstance(result, TaskRejection) else [],
        )

    def _messages(
        self, prompt: Prompt, probe: Probe, rollout: Rollout, verdict: Verdict, evidence: ChainEvidence
    ) -> list[dict[str, str]]:
        steps = []
        for number, (step, result) in enumerate(zip(probe.steps, rollout.steps, strict=False), start=1):
            output = _relative(to_placeholders(result.outcome.excerpt, rollout.variables))
            steps.append(
                f"{number}. {step.tool} — {step.intent}\n"
                f"   arguments: {_relative(json.dumps(step.arguments, ensure_ascii=False))}\n"
                f"   output: {_cut(output, OUTPUT_CHARS)!r}"
            )
        return prompt.messages(
            server=self.brief.name,
            server_description=self.brief.spec.description or "(no description)",
            environment=render_environment(self.brief.facts),
            steps="\n".join(steps),
            change=verdict.change.summary(limit=8) if evidence.changed else "nothing: the calls only read",
            checks="\n".join(f"- {describe_assertion(a)}" for a in evidence.assertions),
            must_state="\n".join(f"- {value!r}" for value in evidence.must_state) or "(none)",
            answer_values="\n".join(f"- {value!r}" for value in evidence.answer_values) or "(none)",
        )


def _verifier(evidence: ChainEvidence) -> TaskVerifier:
    return TaskVerifier(kind="assertions", assertions=evidence.assertions, requires_change=evidence.changed)


def _relative(text: str) -> str:
    """Placeholder paths as the task will say them: relative to the environment's root."""
    return _PLACEHOLDER.sub(".", _PLACEHOLDER_PREFIX.sub("", text))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
