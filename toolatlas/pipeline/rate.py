"""The probe rate a build reaches over any window: when each batch (or round) went out and came back.

A placement that runs probes in other processes records every batch it gets back (:meth:`ProbeLog.record`);
a benchmark asks how many probes were done after a moment (:meth:`ProbeLog.after`) — the build's steady
rate once every server is ready, without its start-up. The hosts report when each probe ended on their
own wall clock; the log turns those into this process's ``perf_counter`` clock, on which ``sent`` and
``back`` are read.
"""

from __future__ import annotations

import time
from typing import NamedTuple

from toolatlas.probing.models import BatchSummary

__all__ = ["Batch", "ProbeLog"]


class Batch(NamedTuple):
    """A batch (or round) of probes, as the driver saw it come back."""

    sent: float
    back: float
    probes: int
    ended: tuple[float, ...]
    """When each of its probes ended, on the driver's ``perf_counter`` clock (from the hosts' wall
    clocks: a clock on another node may be skewed); empty if the host did not say."""


class ProbeLog:
    """Every batch of a build, in the order they came back."""

    def __init__(self) -> None:
        self.batches: list[Batch] = []

    def record(self, sent: float, probes: int, summary: BatchSummary) -> None:
        """A batch sent at ``sent`` (``perf_counter``) with ``probes`` probes came back now."""
        offset = time.time() - time.perf_counter()  # the hosts' wall clock → this process's perf_counter
        ended = tuple(t - offset for t in summary.ended_at)
        self.batches.append(Batch(sent, time.perf_counter(), probes, ended))

    @property
    def probes(self) -> int:
        return sum(batch.probes for batch in self.batches)

    def after(self, start: float, *, exact: bool = True) -> float:
        """Probes done after ``start``: those that ended after it, by the end times the hosts report.
        A batch without them (or every batch, unless ``exact``) that spans ``start`` counts pro rata:
        its probes spread evenly over the time from sending it to its return."""
        done = 0.0
        for sent, back, probes, ended in self.batches:
            if back <= start:
                continue
            if exact and len(ended) == probes:
                done += sum(1 for t in ended if t > start)
            else:
                done += probes * (1.0 if sent >= start else (back - start) / max(back - sent, 1e-9))
        return done
