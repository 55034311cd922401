"""What the LLM writes during Memory Induction, and what induction reports back.

The answer models are the structured outputs the inducer prompts ask for (``response_model=``):
a reflected trace, capability entries, strategies. Every claim in them cites what it rests on —
rollout ids, a call by (rollout, step, call), trace ids — and is checked in code against the
rollouts before anything reaches the graph (:mod:`toolatlas.induction.citations`). What was
dropped, and why, is data in :class:`InductionReport`; so is every LLM answer that never
validated.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from toolatlas.llm import LlmReply
from toolatlas.models import Frozen

__all__ = [
    "CallRef",
    "CapabilityAnswer",
    "Drop",
    "InductionReport",
    "LlmFailureNote",
    "ProposedEntry",
    "ProposedStrategy",
    "ReflectedStep",
    "ReflectedTip",
    "ReflectionAnswer",
    "ReportBuilder",
    "StrategyAnswer",
]


class _Answer(BaseModel):
    """Base of LLM answers: immutable; unknown keys are ignored rather than failing the answer."""

    model_config = ConfigDict(frozen=True, extra="ignore")


# -- trace reflection ------------------------------------------------------------------------------


class ReflectedStep(_Answer):
    tool: str = Field(description="an MCP tool of the server that the cited rollouts called")
    rationale: str = Field(description="why this step, in words any agent can follow (no code, no syntax)")


class ReflectedTip(_Answer):
    text: str = Field(description="one actionable lesson for a later agent")
    rollouts: list[str] = Field(description="ids of the rollouts the lesson rests on (contrast a resolved and a failed one)")


class ReflectionAnswer(_Answer):
    """Trace reflection: the N rollouts of one task → one agent-neutral (tool, rationale) trace + tips."""

    rollouts: list[str] = Field(description="ids of the rollouts the steps abstract (resolved ones when any resolved)")
    steps: list[ReflectedStep]
    tips: list[ReflectedTip]


# -- capability aggregation ------------------------------------------------------------------------


class CallRef(_Answer):
    """One MCP call of a rollout: the agent step it happened in and its position in that step."""

    rollout: str
    step: int
    call: int = 0

    def label(self) -> str:
        return f"{self.rollout}/{self.step}.{self.call}"


class ProposedEntry(_Answer):
    """An affordance, boundary or co-usage entry for one tool, with the calls it rests on."""

    kind: Literal["affordance", "boundary", "co_usage"]
    text: str = Field(description="one sentence a maintainer would write in the tool's docs")
    when: str | None = Field(None, description="affordance: the situation this use serves")
    when_not: str | None = Field(None, description="when not to rely on it")
    condition: str | None = Field(None, description="boundary: what triggers the failure")
    error_signature: str | None = Field(None, description="boundary: words of the error text, copied from the cited calls")
    peer: str | None = Field(None, description="co_usage: the other tool")
    relation: Literal["data", "state", "retry"] | None = Field(None, description="co_usage: how the two compose")
    cites: list[CallRef] = Field(description="the calls that show it (co_usage: the tool's call and the peer's later call)")


class CapabilityAnswer(_Answer):
    entries: list[ProposedEntry]


# -- strategy aggregation --------------------------------------------------------------------------


class ProposedStrategy(_Answer):
    title: str
    when: str = Field(description="when the strategy applies")
    plan: list[str] = Field(description="ordered steps, naming tools by name")
    pitfalls: list[str]
    tools: list[str] = Field(description="tools the plan uses; each must appear in a cited trace")
    traces: list[str] = Field(description="ids of the traces that show it (at least two)")


class StrategyAnswer(_Answer):
    strategies: list[ProposedStrategy]


# -- the report ------------------------------------------------------------------------------------

DropLayer = Literal["trace", "step", "tip", "entry", "strategy"]


class Drop(Frozen):
    """Something an LLM wrote that did not reach the graph: what it was and why."""

    layer: DropLayer
    reason: str
    """``unknown_rollout``, ``tool_not_called``, ``missing_call``, ``not_ok``, ``not_failed``,
    ``signature_mismatch``, ``order``, ``relation_unsupported``, ``too_few_traces``... (snake_case)."""
    subject: str = ""
    detail: str = ""


class LlmFailureNote(Frozen):
    """An LLM answer that never validated (or an endpoint that failed): recorded, then skipped."""

    prompt: str
    error: str
    text: str | None = None


class InductionReport(Frozen):
    """What one LLM induction step did to a server's graph."""

    server: str
    task_id: str | None = None
    round: int = 0
    trace_id: str | None = None
    new_entries: list[str] = Field(default_factory=list)
    reinforced: list[str] = Field(default_factory=list)
    """Existing entries (offline or LLM-written) that gained support from new rollouts."""
    new_strategies: list[str] = Field(default_factory=list)
    updated_strategies: list[str] = Field(default_factory=list)
    dropped: list[Drop] = Field(default_factory=list)
    failures: list[LlmFailureNote] = Field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    skipped_rollouts: list[str] = Field(default_factory=list)
    """Rollouts left out: stopped by an infrastructure failure, or without a verdict."""

    @property
    def drop_counts(self) -> dict[str, int]:
        """``layer:reason`` → how many were dropped for it."""
        return dict(Counter(f"{d.layer}:{d.reason}" for d in self.dropped))

    @property
    def reward(self) -> float:
        """New verified knowledge, on the offline inducer's scale (``InductionDelta.reward``)."""
        return len(self.new_entries) + 0.25 * len(self.reinforced) + len(self.new_strategies)


@dataclass
class ReportBuilder:
    """Collects one induction step's outcome; :meth:`finish` freezes it."""

    server: str
    task_id: str | None = None
    round: int = 0
    trace_id: str | None = None
    new_entries: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    new_strategies: list[str] = field(default_factory=list)
    updated_strategies: list[str] = field(default_factory=list)
    dropped: list[Drop] = field(default_factory=list)
    failures: list[LlmFailureNote] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    skipped_rollouts: list[str] = field(default_factory=list)

    def drop(self, layer: DropLayer, reason: str, subject: str = "", detail: str = "") -> None:
        self.dropped.append(Drop(layer=layer, reason=reason, subject=subject, detail=detail[:300]))

    def count_reply(self, prompt: str, reply: LlmReply) -> None:
        self.llm_calls += 1
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        if reply.failure is not None:
            text = reply.failure.last_text[:500] if reply.failure.last_text else None
            self.failures.append(LlmFailureNote(prompt=prompt, error=reply.failure.error, text=text))

    def merged(self, outcome: str, entry_id: str) -> None:
        """Book a :func:`~toolatlas.graph.inducer.merge_entry` outcome."""
        if outcome == "new" and entry_id not in self.new_entries:
            self.new_entries.append(entry_id)
        elif outcome != "new" and entry_id not in self.reinforced and entry_id not in self.new_entries:
            self.reinforced.append(entry_id)

    def finish(self) -> InductionReport:
        return InductionReport(**{name: getattr(self, name) for name in InductionReport.model_fields})
