"""When to retry an LLM request, and how long to wait first.

Retried: 429 (rate limited), 408 / 409, every 5xx, connection errors and timeouts. Not
retried: other 4xx (a bad request, bad credentials or an unknown model will not fix itself).
The wait is exponential backoff with equal jitter (half fixed, half random, so concurrent
callers spread out), or the server's ``Retry-After`` / ``retry-after-ms`` when it sends one.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["RETRY_AFTER_CAP_S", "RetryPolicy", "is_retryable_status", "retry_after_s"]

RETRY_AFTER_CAP_S = 120.0
"""A server's Retry-After is honoured up to this many seconds."""

_RETRYABLE_STATUSES = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    """429, 408, 409 and every 5xx are worth another try."""
    return status in _RETRYABLE_STATUSES or status >= 500


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """The wait a response asks for (``retry-after-ms``, ``retry-after`` seconds or HTTP date), or None."""
    if not headers:
        return None
    lowered = {name.lower(): value for name, value in headers.items()}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = lowered.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / divisor)
        except ValueError:
            pass
    when = lowered.get("retry-after")
    if when:
        try:
            return max(0.0, email.utils.parsedate_to_datetime(when).timestamp() - time.time())
        except (TypeError, ValueError):
            return None
    return None


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to retry and how long to back off."""

    max_retries: int
    base_s: float
    cap_s: float

    def delay_s(
        self, retry: int, retry_after: float | None = None, rng: random.Random | None = None
    ) -> float:
        """Seconds to wait before retry number ``retry`` (0-based): Retry-After if given, else backoff."""
        if retry_after is not None:
            return min(retry_after, RETRY_AFTER_CAP_S)
        ceiling = min(self.cap_s, self.base_s * 2**retry)
        return ceiling / 2 + (rng or random).uniform(0, ceiling / 2)
