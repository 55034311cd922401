"""A read-only chain's answer values never include what changes from call to call: the call's own
clock reading, or a random id. Stable values of the same output still are asserted."""

from __future__ import annotations

from datetime import UTC, datetime

from toolatlas.environments import Snapshot
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, Verdict
from toolatlas.tasks.chains import chain_evidence

NO_STATE = Snapshot(kind="none", path="", content_hash="empty")


def rollout_with(output: str) -> tuple[Rollout, Verdict]:
    steps = [ProbeStep(tool="list_zones", arguments={}), ProbeStep(tool="get_time", arguments={"zone": "Europe/Paris"})]
    probe = Probe(id="p1", server="s", round=0, direction=Direction.SEED, target="get_time", task="t", steps=steps)
    now = datetime.now(UTC)
    results = [
        StepResult(index=i, outcome=CallOutcome(server="s", tool=s.tool, outcome=OutcomeClass.OK, excerpt=text, started_at=now))
        for i, (s, text) in enumerate(zip(steps, ["Europe/Paris", output], strict=True))
    ]
    return Rollout(probe=probe, steps=results), Verdict(probe_id="p1", server="s", resolved=True, steps=[])


class TestVolatileAnswers:
    def test_clock_readings_and_random_ids_are_not_asserted(self) -> None:
        """The time of the call and a UUID are left out; the zone's name stays."""
        now = datetime.now(UTC).replace(microsecond=0).isoformat()
        output = f"zone: Central European Time\ntime: {now}\nrequest: 0b7e4c1a-93d2-4f0e-8a55-6b1d2c3e4f50"
        rollout, verdict = rollout_with(output)
        evidence = chain_evidence(rollout, verdict, NO_STATE)
        assert evidence.answer_values == ["zone: Central European Time"]

    def test_a_fixed_date_is_asserted(self) -> None:
        """A date that is not the call's clock (a release date) is a stable answer."""
        rollout, verdict = rollout_with("released: 2019-05-04T10:00:00Z")
        assert chain_evidence(rollout, verdict, NO_STATE).answer_values == ["released: 2019-05-04T10:00:00Z"]
