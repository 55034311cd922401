"""Latency histograms that merge exactly: fixed logarithmic buckets, so counts from many client
processes (or Ray actors) add up bucket by bucket and percentiles are read from the sum — never an
average of percentiles."""

from __future__ import annotations

import math
from collections.abc import Iterable

from pydantic import Field

from toolatlas.models import Frozen

__all__ = ["BUCKET_GROWTH", "LatencyHistogram"]

FLOOR_S = 1e-5
"""The first bucket's upper bound (10 µs)."""
BUCKET_GROWTH = 1.05
"""Each bucket's upper bound is this many times the previous one: percentiles within 5 %."""
BUCKETS = 350
"""10 µs × 1.05^349 ≈ 250 s: every latency a bounded load test can see."""


def _index(seconds: float) -> int:
    if seconds <= FLOOR_S:
        return 0
    return min(BUCKETS - 1, math.ceil(math.log(seconds / FLOOR_S, BUCKET_GROWTH)))


def _upper(index: int) -> float:
    return FLOOR_S * BUCKET_GROWTH**index


class LatencyHistogram(Frozen):
    """Counts of latencies per bucket (sparse), with the exact count and sum."""

    counts: dict[int, int] = Field(default_factory=dict)
    total: int = 0
    seconds: float = 0.0

    @classmethod
    def of(cls, latencies: Iterable[float]) -> LatencyHistogram:
        counts: dict[int, int] = {}
        total, seconds = 0, 0.0
        for latency in latencies:
            bucket = _index(latency)
            counts[bucket] = counts.get(bucket, 0) + 1
            total += 1
            seconds += latency
        return cls(counts=counts, total=total, seconds=seconds)

    def merged(self, *others: LatencyHistogram) -> LatencyHistogram:
        counts = dict(self.counts)
        for other in others:
            for bucket, count in other.counts.items():
                counts[bucket] = counts.get(bucket, 0) + count
        return LatencyHistogram(counts=counts, total=self.total + sum(o.total for o in others),
                                seconds=self.seconds + sum(o.seconds for o in others))

    def percentile_ms(self, q: float) -> float:
        """The latency (ms) at quantile ``q``: the upper bound of the bucket it falls in."""
        if not self.total:
            return float("nan")
        rank = max(1, math.ceil(q * self.total))
        seen = 0
        for bucket in sorted(self.counts):
            seen += self.counts[bucket]
            if seen >= rank:
                return _upper(bucket) * 1000
        return _upper(max(self.counts)) * 1000  # pragma: no cover - the ranks add up to the total
