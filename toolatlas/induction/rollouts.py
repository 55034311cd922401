"""The labelled rollouts of one task, indexed call by call: what citations are checked against and
what the inducer prompts show.

A rollout is raw and agent-specific (a ReAct function call, a CodeAct snippet that made several
calls); here every MCP call it made becomes one :class:`CallRecord`, addressed by
``(rollout, step, call)`` — the agent step and the call's position in it — with its arguments and
output normalised back to placeholders (``${root}/docs``), as the offline inducer keeps them. The
rendering shows the calls and what came back, not the code that made them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from toolatlas.errors import ToolAtlasError
from toolatlas.graph.models import Evidence
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.probing.text import evidence_excerpt, looks_like_error, to_placeholders
from toolatlas.tasks.models import AgentRollout, AgentStep, TaskSpec, TaskVerdict

__all__ = ["CallRecord", "TaskRollouts", "compact", "rollout_variables"]

SHOWN_CHARS = 240
"""Characters of a call's arguments or output shown in a prompt (the checks read all of it)."""
MAX_CALLS_SHOWN = 40
"""Calls of one rollout shown in a prompt; a longer rollout is cut with a note."""


def compact(value: Any, limit: int = SHOWN_CHARS) -> str:
    """One line, at most ``limit`` characters: JSON for structures, newlines shown as `` | ``."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = " | ".join(line.strip() for line in text.splitlines() if line.strip())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rollout_variables(rollout: AgentRollout) -> dict[str, str]:
    """The instance's placeholder values (``root``, ``repo``…) the rollout ran with."""
    variables = getattr(rollout, "variables", None) or {}
    if not variables and rollout.frozen is not None:
        variables = rollout.frozen.variables
    return dict(variables)


@dataclass(frozen=True)
class CallRecord:
    """One MCP call of a labelled rollout, normalised to placeholders."""

    rollout: str
    step: int
    call: int
    position: int
    """Order of the call in its rollout (0 first)."""
    tool: str
    arguments: dict[str, Any]
    outcome: OutcomeClass
    text: str
    """The output (or error message) as text, structured content as JSON when there is no text."""
    resolved: bool
    """The verifier resolved the rollout this call belongs to."""
    round: int = 0

    @property
    def label(self) -> str:
        return f"{self.rollout}/{self.step}.{self.call}"

    @property
    def succeeded(self) -> bool:
        """Ended ok, and the output does not report a failure in its text (the offline step check)."""
        return self.outcome is OutcomeClass.OK and not looks_like_error(self.text)

    def evidence(self) -> Evidence:
        """The call as evidence: verbatim arguments (placeholders for instance paths) and an excerpt."""
        return Evidence(
            probe_id=self.rollout,
            step=self.position,
            tool=self.tool,
            arguments=self.arguments,
            outcome=self.outcome,
            excerpt=evidence_excerpt(self.text),
            round=self.round,
        )


def _text(outcome: CallOutcome) -> str:
    if outcome.excerpt or outcome.structured is None:
        return outcome.excerpt
    return json.dumps(outcome.structured, ensure_ascii=False, sort_keys=True)


class TaskRollouts:
    """The rollouts of one task with their verdicts, every call addressable for citations."""

    def __init__(self, task: TaskSpec, rollouts: Sequence[AgentRollout], verdicts: Iterable[TaskVerdict]) -> None:
        self.task = task
        by_rollout = {v.rollout_id: v for v in verdicts}
        foreign = sorted({r.id for r in rollouts if r.task.id != task.id} | {
            v.rollout_id for v in by_rollout.values() if v.task_id != task.id})
        if foreign:
            raise ToolAtlasError(f"rollouts/verdicts {', '.join(foreign)} are not of task {task.id}")
        self.skipped = [r.id for r in rollouts if r.stop == "infrastructure" or r.id not in by_rollout]
        self.rollouts = [r for r in rollouts if r.id not in self.skipped]
        self.verdicts = {r.id: by_rollout[r.id] for r in self.rollouts}
        self.calls: dict[tuple[str, int, int], CallRecord] = {}
        self.sequences: dict[str, list[CallRecord]] = {}
        for rollout in self.rollouts:
            self.sequences[rollout.id] = self._index(rollout)

    def _index(self, rollout: AgentRollout) -> list[CallRecord]:
        variables = rollout_variables(rollout)
        resolved = self.verdicts[rollout.id].resolved
        sequence: list[CallRecord] = []
        for step in rollout.steps:
            for position, outcome in enumerate(step.calls):
                record = CallRecord(
                    rollout=rollout.id,
                    step=step.index,
                    call=position,
                    position=len(sequence),
                    tool=outcome.tool,
                    arguments=to_placeholders(outcome.arguments, variables),
                    outcome=outcome.outcome,
                    text=to_placeholders(_text(outcome), variables),
                    resolved=resolved,
                    round=self.task.round,
                )
                self.calls[(rollout.id, step.index, position)] = record
                sequence.append(record)
        return sequence

    # -- reading --------------------------------------------------------------------------------

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.rollouts]

    @property
    def resolved_ids(self) -> set[str]:
        return {r for r, v in self.verdicts.items() if v.resolved}

    def find(self, rollout: str, step: int, call: int) -> CallRecord | None:
        return self.calls.get((rollout, step, call))

    def calls_of(self, tool: str) -> list[CallRecord]:
        return [c for sequence in self.sequences.values() for c in sequence if c.tool == tool]

    def tools_called(self) -> list[str]:
        return sorted({c.tool for sequence in self.sequences.values() for c in sequence})

    # -- what a prompt shows --------------------------------------------------------------------

    def render(self, rollout_ids: Iterable[str] | None = None, *, mark: str | None = None) -> str:
        """The rollouts (resolved first), call by call; calls of ``mark`` are flagged with ``*``."""
        wanted = set(rollout_ids) if rollout_ids is not None else set(self.ids)
        chosen = [r for r in self.rollouts if r.id in wanted]
        chosen.sort(key=lambda r: (not self.verdicts[r.id].resolved, r.rollout))
        return "\n\n".join(self._render_one(r, mark) for r in chosen) or "(no labelled rollouts)"

    def _render_one(self, rollout: AgentRollout, mark: str | None) -> str:
        verdict = self.verdicts[rollout.id]
        label = "RESOLVED" if verdict.resolved else "FAILED"
        lines = [
            (f"### rollout {rollout.id}: {label} ({rollout.agent.value} agent, "
             f"temperature {rollout.temperature:g}, stopped by {rollout.stop})"),
            f"verifier: {verdict.status}" + (f": {compact(verdict.detail, 200)}" if verdict.detail else ""),
        ]
        shown = 0
        for step in rollout.steps:
            if shown >= MAX_CALLS_SHOWN:
                lines.append(f"(… {len(self.sequences[rollout.id]) - shown} more calls not shown)")
                break
            lines.extend(self._render_step(rollout.id, step, mark))
            shown += len(step.calls)
        if rollout.final_answer:
            lines.append(f"final answer: {compact(rollout.final_answer, 300)}")
        return "\n".join(lines)

    def _render_step(self, rollout: str, step: AgentStep, mark: str | None) -> list[str]:
        action = step.action
        head = f"step {step.index}"
        if action.kind == "code":
            head += f": a code snippet ({step.code_status or 'ran'}) making {len(step.calls)} call(s)"
        elif action.kind == "answer":
            head += ": answered"
        if action.thought:
            head += f" — thought: {compact(action.thought, 200)}"
        lines = [head]
        for position in range(len(step.calls)):
            record = self.calls[(rollout, step.index, position)]
            star = "*" if mark is not None and record.tool == mark else " "
            lines.append(
                f" {star} [rollout={rollout} step={step.index} call={position}] {record.tool} "
                f"{compact(record.arguments)} → {record.outcome.value}"
                + ("" if record.succeeded or record.outcome is not OutcomeClass.OK else " (error reported in text)")
                + f": {compact(record.text) or '(empty)'}"
            )
        if action.kind == "call" and not step.calls and action.tool:
            lines.append(f"   (asked for `{action.tool}`, but no call was made: {compact(step.observation, 160)})")
        return lines
