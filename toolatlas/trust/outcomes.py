"""Agents' reports of calls they made, held as candidates until a sandbox replay agrees.

What agent-side memories do — learn from what an agent saw — done safely: the guidance service
accepts a report (``POST /v1/outcomes``, the ``report_outcome`` MCP tool) only with a write token of
its own, rate-limited per token, and appends it to a queue file. Nothing in the queue is served. A
worker (``toolatlas outcomes admit``, :mod:`.admission`) replays each report in a sandbox and admits
what the replay verified — the replay's own observation, never the agent's word.

The queue is one JSON-lines file appended under an exclusive ``flock``: every worker process of one
machine may write to it; a drain moves it aside atomically first, so reports that arrive meanwhile
wait for the next drain.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import os
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from toolatlas.models import Frozen, utcnow

__all__ = ["OutcomeQueue", "OutcomeReport", "QueuedOutcome", "RateLimiter", "WriteBack", "WriteRefused", "read_tokens",
           "token_id"]

MAX_EXCERPT = 2000
"""Characters of an agent's quoted answer kept with its report."""


class OutcomeReport(Frozen):
    """One call an agent made and how it ended, as the agent tells it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    server: str = Field(min_length=1, max_length=63)
    tool: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)
    outcome: Literal["ok", "error"]
    """``ok``: the call did what was asked; ``error``: it failed (an error answer or ``isError``)."""
    message: str = Field("", max_length=MAX_EXCERPT)
    """What the tool answered (an error's text), as the agent saw it."""
    before: list[dict[str, Any]] = Field(default_factory=list, max_length=8)
    """Calls made just before it that it depends on (``{"tool", "arguments"}``), replayed first."""


class QueuedOutcome(Frozen):
    """A report as the queue keeps it: who sent it (a token's id, not the token) and when."""

    id: str
    report: OutcomeReport
    token: str
    received_at: datetime


def token_id(token: str) -> str:
    """A short, non-reversible name for a write token (what logs and the queue record)."""
    return hashlib.sha256(token.encode()).hexdigest()[:12]


class OutcomeQueue:
    """The candidates file: appended by serving processes, drained by a worker."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def append(self, report: OutcomeReport, token: str) -> QueuedOutcome:
        queued = QueuedOutcome(id=uuid.uuid4().hex[:16], report=report, token=token_id(token), received_at=utcnow())
        line = queued.model_dump_json() + "\n"
        with self._locked(), open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        return queued

    def take(self) -> list[QueuedOutcome]:
        """Every queued report, removed from the queue (moved aside first: none is lost or taken twice)."""
        with self._locked():
            if not self.path.exists():
                return []
            taken = self.path.with_name(f"{self.path.name}.taken-{os.getpid()}-{uuid.uuid4().hex[:6]}")
            os.replace(self.path, taken)
        reports = [QueuedOutcome.model_validate_json(line) for line in taken.read_text().splitlines() if line.strip()]
        taken.unlink()
        return reports

    def pending(self) -> int:
        if not self.path.exists():
            return 0
        return sum(1 for line in self.path.read_text().splitlines() if line.strip())


class RateLimiter:
    """A token bucket per key (a write token): ``per_minute`` reports a minute, bursts up to that many."""

    def __init__(self, per_minute: int) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        with self._lock:
            level, last = self._buckets.get(key, (self.capacity, now))
            level = min(self.capacity, level + (now - last) * self.rate)
            if level < 1.0:
                self._buckets[key] = (level, now)
                return False
            self._buckets[key] = (level - 1.0, now)
            return True


def read_tokens(path: Path) -> list[str]:
    """Write tokens, one per line (blank lines and ``#`` comments ignored)."""
    tokens = [line.strip() for line in Path(path).read_text().splitlines()]
    return [token for token in tokens if token and not token.startswith("#")]


class WriteRefused(Exception):
    """A report the service does not take: ``status`` is the HTTP status that says why (401, 429)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class WriteBack:
    """What a serving process needs to take reports: the write tokens, the queue, a rate limit per token."""

    def __init__(self, queue: OutcomeQueue, tokens: list[str], per_minute: int = 60) -> None:
        if not tokens:
            raise ValueError("write-back needs at least one write token")
        self.queue = queue
        self.tokens = [token.encode() for token in tokens]
        self.limiter = RateLimiter(per_minute)

    def submit(self, report: OutcomeReport, token: str) -> QueuedOutcome:
        """Queue ``report`` sent with ``token`` (compared in constant time), within the token's rate."""
        given = token.encode()
        if not any(hmac.compare_digest(given, known) for known in self.tokens):
            raise WriteRefused(401, "missing or wrong write token")
        if not self.limiter.allow(token_id(token)):
            raise WriteRefused(429, f"more than {self.limiter.capacity:g} reports a minute with this write token")
        return self.queue.append(report, token)
