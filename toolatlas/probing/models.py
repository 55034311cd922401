"""The messages of one probe's path: :class:`Probe` → :class:`Rollout` → :class:`Verdict`.

A probe is planned against placeholders (``${root}/docs/a.md``), executed by a sandbox that
fills them, and verified against the frozen post-state. Expected failures are data here.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from toolatlas.environments import FrozenState, StateDiff, StateDigest
from toolatlas.models import CallOutcome, Effect, Frozen, OutcomeClass, stable_id
from toolatlas.probing.values import HarvestRef

__all__ = [
    "BatchSummary",
    "Check",
    "Direction",
    "Probe",
    "ProbeStep",
    "Rollout",
    "StepResult",
    "StepVerdict",
    "Verdict",
]


class Direction(StrEnum):
    SEED = "seed"
    """Bootstrap: a representative use of a tool, as a short chain."""
    AFFORDANCE = "affordance"
    """Inward: a valid use (argument, enum member, composition) the graph does not record yet."""
    BOUNDARY = "boundary"
    """Outward: a mutated call that tests where the tool stops working."""
    REPLAY = "replay"
    """The same call again, from the snapshot and in a row: determinism and idempotence."""


class ProbeStep(Frozen):
    """One call of a probe, with why it is made and what the planner expects."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    intent: str = ""
    expect: Literal["ok", "error", "any"] = "any"
    mutation: str | None = None
    """Boundary mutation kind (``path_escape``, ``missing_required``...)."""
    condition: str | None = None
    """The triggering condition a boundary would be recorded under."""
    marker: str | None = None
    """A distinctive value this step writes; a later step that shows it witnesses a state edge."""
    observes: int | None = None
    """Index of the earlier step whose ``marker`` this step should show."""
    loses: int | None = None
    """Index of an earlier step whose ``marker`` this step shows no more if a later write replaced what it wrote."""
    retry_of: int | None = None
    """Index of the earlier (failing) step this call corrects."""
    enabled_by: int | None = None
    """Index of the earlier step that prepares the state this call needs (it fails without it)."""
    compares: int | None = None
    """Index of an earlier call of the same tool with the same arguments: a different output now shows
    that the step just before changed the server's own state (seen by its tools, not the environment)."""
    mirrors: int | None = None
    """Index of an earlier call of the same tool that differs from this one only in the value it breaks: an answer
    the same as that call's, but for the values they differ in, shows the value was ignored
    (:func:`~toolatlas.probing.hidden.ignored_value`)."""
    timeout_s: float | None = None
    """A tighter wait than the server's call timeout (a tool found slow gets one); ``None``: the server's."""
    harvested: list[HarvestRef] = Field(default_factory=list)
    exercised: list[str] = Field(default_factory=list)
    """Coverage keys this call exercises (``prop``, ``prop=member``)."""


class Probe(Frozen):
    """A call, a chain of calls, or a replay, planned for one server."""

    id: str
    server: str
    round: int
    direction: Direction
    target: str
    task: str
    steps: list[ProbeStep]
    coverage_keys: list[str] = Field(default_factory=list)
    """What this probe would newly cover; the frontier scores probes by these."""
    replay_of: str | None = None
    reference_excerpt: str | None = None
    """Replays: the normalised output the original call gave, for the determinism check."""
    planned_at: float | None = None
    """Replays: when the probe was planned (Unix time). The original call ran before that, so a replay
    that starts in a later second of the clock has already crossed a second since it."""
    rollout: int = 0
    """Which of the N rollouts of a task this is."""

    @staticmethod
    def make_id(server: str, round_: int, direction: Direction, steps: list[ProbeStep], rollout: int = 0) -> str:
        calls = [(s.tool, s.arguments) for s in steps]
        return "p" + stable_id(server, round_, direction.value, calls, rollout)[:15]


class StepResult(Frozen):
    """One executed call and, for chains, the instance's state right after it."""

    index: int
    outcome: CallOutcome
    digest_after: StateDigest | None = None
    """Set for every step but the last of a chain (the last step's state is the frozen state)."""


class Rollout(Frozen):
    """A probe as it ran in one sandbox."""

    probe: Probe
    steps: list[StepResult]
    frozen: FrozenState | None = None
    """The post-state moved out for inspection; None when the probe left the snapshot's state untouched
    (or it was not kept: see ``reset``)."""
    reset: bool = False
    """The instance was restored to the snapshot after this probe (it changed state, or the server broke)."""
    final_digest: StateDigest | None = None
    """The instance's state right after the last step (the executor's view, so verifiers need no disk)."""
    aborted_at: int | None = None
    """Index of the step after which the chain was stopped (an expected-ok step failed)."""
    executor: str = ""
    variables: dict[str, str] = Field(default_factory=dict)
    """The instance's placeholder values, to normalise outputs back to placeholders."""
    duration_ms: float = 0.0
    infrastructure_error: str | None = None
    """The sandbox failed (server could not start): nothing was learned about the tool."""
    later: CallOutcome | None = None
    """A deterministic-looking replay: its call once more, from the snapshot, in a later second of the
    clock (:mod:`toolatlas.probing.determinism`); None when it was not (or could not be) repeated."""

    def for_induction(self) -> Rollout:
        """This rollout without its state digests and later repeat: verification has read them,
        induction does not (digests are most of a rollout's bytes when it crosses a process boundary)."""
        if self.final_digest is None and self.later is None and all(s.digest_after is None for s in self.steps):
            return self
        steps = [s.model_copy(update={"digest_after": None}) for s in self.steps]
        return self.model_copy(update={"steps": steps, "final_digest": None, "later": None})


class BatchSummary(Frozen):
    """What a coordinator needs of a batch of executed probes without reading their rollouts."""

    infrastructure_errors: list[bool]
    """Per probe, in order: whether the sandbox failed (the server could not be (re)started)."""
    calls: int
    resets: int
    ended_at: list[float] = Field(default_factory=list)
    """When each probe ended (``time.time()`` where it ran), in the order they ended: a build's
    probe rate over any window counts the probes exactly (a clock on another node may be skewed)."""

    @classmethod
    def of(cls, rollouts: list[Rollout], ended_at: list[float] | None = None) -> BatchSummary:
        return cls(
            infrastructure_errors=[r.infrastructure_error is not None for r in rollouts],
            calls=sum(len(r.steps) for r in rollouts),
            resets=sum(r.reset for r in rollouts),
            ended_at=ended_at or [],
        )


class Check(Frozen):
    name: str
    passed: bool
    detail: str = ""


class StepVerdict(Frozen):
    index: int
    tool: str
    outcome: OutcomeClass
    failed: bool
    """Non-ok, or ok with an error reported only in the text."""
    reported_as_success: bool = False
    hidden_failure: str = ""
    """Why an ok answer that reads as a success failed, given what the call broke (:mod:`toolatlas.probing.hidden`)."""
    error_text: str = ""
    schema_valid: bool | None = None
    schema_error: str = ""
    effect: Effect = Effect.UNKNOWN
    change: StateDiff = StateDiff()
    precondition: str = ""
    """What the call's arguments named in the state it was made in (:mod:`toolatlas.probing.conditions`)."""
    precondition_parts: list[tuple[str, str]] = Field(default_factory=list)
    """The same, part by part: ``(argument, phrase)``, ``""`` for a part about no argument."""
    observed_marker: bool | None = None
    lost_marker: bool | None = None
    """For a step that ``loses``: whether the earlier step's marker is gone from its output."""
    output_changed: bool | None = None
    """For a step that ``compares``: whether its output differs from the earlier call's."""
    expectation_met: bool | None = None


class Verdict(Frozen):
    """What verification established about one rollout."""

    probe_id: str
    server: str
    resolved: bool
    steps: list[StepVerdict]
    change: StateDiff = StateDiff()
    checks: list[Check] = Field(default_factory=list)
    deterministic: bool | None = None
    idempotent: bool | None = None
