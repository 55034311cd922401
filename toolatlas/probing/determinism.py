"""A replay's determinism, judged from its rollout alone — wherever the rollout is verified.

A replay is deterministic-looking when its output matches the original call's and shows neither the time
of the call nor a temporary folder the server's process made (:func:`looks_deterministic`). Such a replay is repeated once more by its executor, from
the snapshot, in a later second of the clock (:mod:`toolatlas.probing.clock`), unless it began in a
later second than it was planned in already (:func:`wants_later_second`); the repeat's outcome
travels on the rollout (:attr:`~toolatlas.probing.models.Rollout.later`), so a verifier in another
process judges it (:func:`with_later_second`) as the executor would. :func:`verified` is the whole
judgement of a rollout: the verifier's checks, then the later second.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.probing.clock import carries_clock, second_after
from toolatlas.probing.models import Check, Direction, Rollout, Verdict
from toolatlas.probing.text import evidence_excerpt, excerpts_agree, names_temporary_folder, to_placeholders

if TYPE_CHECKING:
    from toolatlas.probing.verifier import Verifier

__all__ = ["looks_deterministic", "verified", "wants_later_second", "with_later_second"]


def looks_deterministic(rollout: Rollout) -> tuple[bool | None, str]:
    """Whether a replay answered what the original call did, and why: ``(None, "")`` for a rollout
    that is not a replay with the original's output to compare with."""
    probe = rollout.probe
    if probe.direction is not Direction.REPLAY or not rollout.steps or probe.reference_excerpt is None:
        return None, ""
    first = to_placeholders(rollout.steps[0].outcome.excerpt, rollout.variables)
    if not excerpts_agree(first, probe.reference_excerpt):
        return False, "output differs"
    if any(carries_clock(step.outcome) for step in rollout.steps):
        return False, "output carries the time of the call"
    if names_temporary_folder(first):  # one per server process: another after a restart
        return False, "output names a temporary folder of the server's process"
    return True, "same output"


def wants_later_second(rollout: Rollout) -> bool:
    """Whether the executor repeats the replay in a later second of the clock: it looks deterministic
    and began in the same second it was planned in (so as the original call it is compared with)."""
    if rollout.infrastructure_error is not None or looks_deterministic(rollout)[0] is not True:
        return False
    planned_at = rollout.probe.planned_at
    return planned_at is None or rollout.steps[0].outcome.started_at.timestamp() < second_after(planned_at)


def with_later_second(verdict: Verdict, rollout: Rollout) -> Verdict:
    """``verdict`` once the replay's repeat in a later second is judged: a different output, or one
    showing the clock, makes it non-deterministic; a repeat that crashed or hung teaches nothing."""
    later = rollout.later
    if later is None or verdict.deterministic is not True or later.outcome in (OutcomeClass.CRASH, OutcomeClass.TIMEOUT):
        return verdict
    if _normalised(later, rollout) == _normalised(rollout.steps[0].outcome, rollout) and not carries_clock(later):
        return verdict
    checks = [c for c in verdict.checks if c.name != "deterministic"]
    checks.append(Check(name="deterministic", passed=True, detail="output differs in a later second"))
    return verdict.model_copy(update={"deterministic": False, "checks": checks})


def verified(verifier: Verifier, rollout: Rollout, verdict: Verdict | None = None) -> tuple[Rollout, Verdict]:
    """A rollout's judgement: the rollout as the inducer reads it (without digests) and its verdict
    (``verdict``: the one ``verifier`` reached on this very rollout already)."""
    return rollout.for_induction(), with_later_second(verdict or verifier.verify(rollout), rollout)


def _normalised(outcome: CallOutcome, rollout: Rollout) -> str:
    return evidence_excerpt(to_placeholders(outcome.excerpt, rollout.variables))
