"""A closed-loop HTTP load generator that runs outside the process it measures.

Each level runs N clients (asyncio + aiohttp, keep-alive, one connection per client), each sending
its next POST as soon as its last one is answered, cycling through the target's bodies. After a
warm-up (connections opened, caches filled) the clients run through ``windows`` consecutive measured
windows; a request counts in the window it completes in. Every window keeps a latency histogram
(:mod:`.histogram`) and its error count, so the windows of several generators — processes here, Ray
actors on a cluster (``actors/loadtest.py``) — add up exactly. The level reports the window with the
median requests/s: on a shared machine one burst of other work moves one window, not the figure.

:class:`LoadGenerator` keeps the clients in a spawned child process, so they never steal the event
loop of the process that measures (or serves); they still share the cores, which
:class:`LevelResult` reports as the generator's CPU time per request.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from pydantic import Field

from toolatlas.loadtest.histogram import LatencyHistogram
from toolatlas.models import Frozen

__all__ = ["REQUEST_TIMEOUT_S", "LevelResult", "LoadGenerator", "Target", "WindowCounts", "drive", "summarise"]

REQUEST_TIMEOUT_S = 30.0
"""A request slower than this counts as an error (and frees its client)."""


class Target(Frozen):
    """Where to POST, what (cycled, one body per request), and how to tell a good answer."""

    url: str
    bodies: list[bytes]
    headers: dict[str, str] = Field(default_factory=dict)
    good_prefix: bytes = b""
    """A good answer's body starts with this (after a 200)."""
    bad_marker: bytes | None = None
    """A good answer's body does not contain this (e.g. an MCP tool error flag)."""

    def is_good(self, status: int, body: bytes) -> bool:
        return (status == 200 and body.startswith(self.good_prefix)
                and (self.bad_marker is None or self.bad_marker not in body))


class WindowCounts(Frozen):
    """One measured window of one generator: its latencies and its failed requests, by kind."""

    latencies: LatencyHistogram = LatencyHistogram()
    errors: dict[str, int] = Field(default_factory=dict)
    """``status 503``, ``timeout``, ``connection``, ``bad answer`` → count."""

    def merged(self, other: WindowCounts) -> WindowCounts:
        errors = dict(self.errors)
        for kind, count in other.errors.items():
            errors[kind] = errors.get(kind, 0) + count
        return WindowCounts(latencies=self.latencies.merged(other.latencies), errors=errors)


class LevelResult(Frozen):
    """One concurrency level: the median window's rate and latencies, and every window's rate."""

    clients: int
    requests: int
    """Requests completed in the reported (median) window."""
    seconds: float
    errors: dict[str, int] = Field(default_factory=dict)
    """Failed requests over all windows, by kind."""
    rps: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    window_rps: list[float]
    """Requests/s of every measured window, in order (the spread shows how steady the machine was)."""
    generator_cpu_us: float = 0.0
    """CPU time the generators spent per request (the share of the cores they took from the service)."""
    load_average: float = 0.0
    """The machine's 1-minute load average when the level ended (other work on the machine shows here)."""
    generators: int = 1

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


async def drive(target: Target, clients: int, *, start_at: float, seconds: float, windows: int,
                first_body: int = 0) -> list[WindowCounts]:
    """Run ``clients`` closed-loop clients until ``windows`` windows of ``seconds`` after ``start_at``
    (a ``time.time()``; before it they warm up) have passed; the counts of each window."""
    import aiohttp

    latencies: list[list[float]] = [[] for _ in range(windows)]
    errors: list[dict[str, int]] = [{} for _ in range(windows)]
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
    connector = aiohttp.TCPConnector(limit=clients)
    offset = time.time() - time.perf_counter()  # the wall clock's start in this process's perf clock
    start = start_at - offset
    end = start + windows * seconds
    async with aiohttp.ClientSession(connector=connector, headers=target.headers, timeout=timeout) as session:

        async def client(index: int) -> None:
            while (started := time.perf_counter()) < end:
                failure = None
                try:
                    async with session.post(target.url, data=target.bodies[index % len(target.bodies)]) as answer:
                        body = await answer.read()
                        if not target.is_good(answer.status, body):
                            failure = f"status {answer.status}" if answer.status != 200 else "bad answer"
                except TimeoutError:
                    failure = "timeout"
                except aiohttp.ClientError:
                    failure = "connection"
                done = time.perf_counter()
                window = int((done - start) // seconds)
                if started >= start and window < windows:
                    latencies[window].append(done - started)
                    if failure is not None:
                        errors[window][failure] = errors[window].get(failure, 0) + 1
                index += clients

        await asyncio.gather(*(client(first_body + i) for i in range(clients)))
    return [WindowCounts(latencies=LatencyHistogram.of(lat), errors=err) for lat, err in zip(latencies, errors, strict=True)]


def summarise(clients: int, seconds: float, per_generator: list[list[WindowCounts]], cpu_s: float = 0.0) -> LevelResult:
    """One level from the windows of every generator that ran it (merged window by window)."""
    windows = [per_generator[0][i] for i in range(len(per_generator[0]))]
    for counts in per_generator[1:]:
        windows = [mine.merged(theirs) for mine, theirs in zip(windows, counts, strict=True)]
    rates = [w.latencies.total / seconds for w in windows]
    median = windows[sorted(range(len(windows)), key=rates.__getitem__)[len(windows) // 2]]
    total = sum(w.latencies.total for w in windows)
    errors: dict[str, int] = {}
    for window in windows:
        for kind, count in window.errors.items():
            errors[kind] = errors.get(kind, 0) + count
    return LevelResult(
        clients=clients, requests=median.latencies.total, seconds=seconds, errors=errors,
        rps=statistics.median(rates), p50_ms=median.latencies.percentile_ms(0.50),
        p95_ms=median.latencies.percentile_ms(0.95), p99_ms=median.latencies.percentile_ms(0.99),
        window_rps=[round(r, 1) for r in rates], generator_cpu_us=cpu_s / max(total, 1) * 1e6,
        load_average=os.getloadavg()[0], generators=len(per_generator),
    )


def _level(target: Target, clients: int, seconds: float, warmup: float, windows: int) -> LevelResult:
    cpu = time.process_time()
    counts = asyncio.run(drive(target, clients, start_at=time.time() + warmup, seconds=seconds, windows=windows))
    return summarise(clients, seconds, [counts], time.process_time() - cpu)


class LoadGenerator:
    """The generator's child process; ``level`` runs one concurrency level there and waits for it."""

    def __init__(self) -> None:
        self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))

    def level(self, target: Target, clients: int, *, seconds: float, warmup: float, windows: int = 3) -> LevelResult:
        return self._pool.submit(_level, target, clients, seconds, warmup, windows).result()

    def close(self) -> None:
        self._pool.shutdown()

    def __enter__(self) -> LoadGenerator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
