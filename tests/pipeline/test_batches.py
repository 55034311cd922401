"""A round's probes in batches: their size, their release in probe order, the sandboxes' failure streak."""

from __future__ import annotations

from toolatlas.pipeline.batches import (
    BATCH,
    INFRASTRUCTURE_FAILURES_TO_GIVE_UP,
    MAX_INFLIGHT,
    MIN_BATCH,
    PREFETCH,
    FailureStreak,
    InOrder,
    batch_size,
    batches_in_flight,
    round_summary,
)
from toolatlas.probing.models import BatchSummary


class TestBatchSize:
    def test_a_round_is_cut_into_batches_per_sandbox_within_bounds(self):
        """About four batches per sandbox, never fewer than MIN_BATCH nor more than BATCH probes each."""
        assert batch_size(64, 2) == 8
        assert batch_size(3, 4) == MIN_BATCH
        assert batch_size(10_000, 1) == BATCH


class TestBatchesInFlight:
    def test_every_sandbox_has_one_running_and_one_queued_within_bounds(self):
        """Enough batches in flight for each sandbox to have PREFETCH, never fewer than four per host nor more than MAX_INFLIGHT."""
        assert batches_in_flight(2, 30) == PREFETCH * 30
        assert batches_in_flight(8, 1) == 32
        assert batches_in_flight(2, 10_000) == MAX_INFLIGHT


class TestInOrder:
    def test_runs_are_released_in_position_order_whatever_order_they_arrive_in(self):
        """A run that arrives before the runs ahead of it waits, then leaves with them, in order."""
        order: InOrder[str] = InOrder()
        assert order.add(4, 2, "c") == []
        assert order.add(2, 2, "b") == []
        assert order.add(0, 2, "a") == ["a", "b", "c"]
        assert order.add(6, 1, "d") == ["d"]
        assert order.next == 7


class TestFailureStreak:
    def test_a_server_is_given_up_after_failures_in_a_row_only(self):
        """A success resets the count; the streak gives up at INFRASTRUCTURE_FAILURES_TO_GIVE_UP in a row."""
        streak = FailureStreak(INFRASTRUCTURE_FAILURES_TO_GIVE_UP - 1)
        streak.record(False)
        assert streak.count == 0 and streak.round_status() == ("ok", "")
        for _ in range(INFRASTRUCTURE_FAILURES_TO_GIVE_UP):
            streak.record(True)
        assert streak.given_up
        assert streak.round_status() == ("failed", "the server could not be (re)started")


class TestRoundSummary:
    def test_a_rounds_calls_and_resets_are_the_sum_of_its_batches(self):
        """The round's summary adds up its batches' calls and resets."""
        batches = [BatchSummary(infrastructure_errors=[False], calls=3, resets=1),
                   BatchSummary(infrastructure_errors=[True, False], calls=5, resets=0)]
        total = round_summary(batches)
        assert (total.calls, total.resets, total.infrastructure_errors) == (8, 1, [])
