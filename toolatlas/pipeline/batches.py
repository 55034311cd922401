"""A round's probes on executors away from its shard: cut into batches, absorbed back in probe order.

A placement that runs a server's probes on other processes (the split placement of
:mod:`toolatlas.actors.split`) sends them in batches of :func:`batch_size` — about
:data:`BATCHES_PER_SANDBOX` per sandbox, :data:`PREFETCH` queued per sandbox so the next one waits
while one runs — and hands the verified batches to the shard in probe order through an
:class:`InOrder` buffer, whatever order they finish in. Its sandboxes' failures in a row are a
:class:`FailureStreak`, as in this process (:class:`toolatlas.pipeline.server.ServerBuild`).
"""

from __future__ import annotations

import math
from typing import Generic, TypeVar

from toolatlas.probing.models import BatchSummary

__all__ = [
    "BATCH",
    "BATCHES_PER_SANDBOX",
    "INFRASTRUCTURE_FAILURES_TO_GIVE_UP",
    "MAX_INFLIGHT",
    "MIN_BATCH",
    "PREFETCH",
    "FailureStreak",
    "InOrder",
    "batch_size",
    "batches_in_flight",
    "round_summary",
]

PREFETCH = 2
"""Batches queued per sandbox: the next is waiting while one runs (hides the round trip to the host)."""
BATCH = 16
"""Most probes per round trip to an executor host: amortises the per-call cost of a remote call."""
MIN_BATCH = 4
BATCHES_PER_SANDBOX = 4
"""A round is cut into about this many batches per sandbox (BATCH at most, MIN_BATCH at least), so a
small round still overlaps absorbing one batch with running the next."""

INFRASTRUCTURE_FAILURES_TO_GIVE_UP = 5
"""Consecutive rollouts the sandbox failed (server would not start) before the server is abandoned."""

T = TypeVar("T")


MAX_INFLIGHT = 256
"""Most batches in flight across a build, whatever its size (a bound on the results held at once)."""


def batches_in_flight(hosts: int, sandboxes: int) -> int:
    """Batches (or rounds) in flight across a distributed build (backpressure): enough for every
    sandbox to have one running and one queued, up to :data:`MAX_INFLIGHT` — with fewer, the hosts
    wait on their round trips — and at least four per executor host."""
    return max(4 * hosts, min(MAX_INFLIGHT, PREFETCH * sandboxes))


def batch_size(probes: int, sandboxes: int) -> int:
    """Probes per batch for a round of ``probes`` over ``sandboxes`` sandboxes."""
    return min(BATCH, max(MIN_BATCH, math.ceil(probes / (BATCHES_PER_SANDBOX * sandboxes))))


class InOrder(Generic[T]):
    """A reorder buffer: runs of items keyed by their first position, released in position order."""

    def __init__(self) -> None:
        self.next = 0
        """The first position not released yet."""
        self.waiting: dict[int, tuple[int, T]] = {}

    def add(self, first: int, size: int, item: T) -> list[T]:
        """Hold ``item`` (positions ``first`` .. ``first + size - 1``); every item now due, in order."""
        self.waiting[first] = (size, item)
        due = []
        while self.next in self.waiting:
            size, item = self.waiting.pop(self.next)
            due.append(item)
            self.next += size
        return due


class FailureStreak:
    """Rollouts a server's sandboxes failed in a row (the server could not be (re)started)."""

    def __init__(self, count: int = 0) -> None:
        self.count = count

    def record(self, failed: bool) -> None:
        self.count = self.count + 1 if failed else 0

    @property
    def given_up(self) -> bool:
        """True once the sandboxes failed :data:`INFRASTRUCTURE_FAILURES_TO_GIVE_UP` rollouts in a row."""
        return self.count >= INFRASTRUCTURE_FAILURES_TO_GIVE_UP

    def round_status(self) -> tuple[str, str]:
        """The status and detail of the round's coverage row: ``failed`` once the server is given up."""
        return ("failed", "the server could not be (re)started") if self.given_up else ("ok", "")


def round_summary(batches: list[BatchSummary]) -> BatchSummary:
    """The calls and resets of a round's batches (what the driver counts; their probes were absorbed)."""
    return BatchSummary(infrastructure_errors=[], calls=sum(b.calls for b in batches),
                        resets=sum(b.resets for b in batches), ended_at=[])
