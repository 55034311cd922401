"""A closed-loop HTTP load generator that runs in its own process.

``LoadGenerator`` owns one spawned child process; each :meth:`LoadGenerator.level` runs N clients
there (asyncio + aiohttp, keep-alive, one connection per client), each sending its next POST as
soon as its last one is answered, cycling through a list of bodies. After a warm-up (connections
opened, caches filled) the clients run through ``windows`` consecutive measured windows; a request
counts in the window it completes in, and the level reports the window with the median
requests/s — on a machine shared with other work, one burst of someone else's load then moves
one window, not the figure. Keeping the generator out of the process that measures (or serves)
means it never steals their event loop; on a small machine it still shares the cores, which
:class:`LevelResult` reports as the generator's CPU time per request.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field

__all__ = ["LevelResult", "LoadGenerator", "Target"]

REQUEST_TIMEOUT_S = 30.0
"""A request slower than this counts as an error (and frees its client)."""


@dataclass(frozen=True)
class Target:
    """Where to POST, what (cycled, one body per request), and how to tell a good answer."""

    url: str
    bodies: list[bytes]
    headers: dict[str, str] = field(default_factory=dict)
    good_prefix: bytes = b""
    """A good answer's body starts with this (after a 200)."""
    bad_marker: bytes | None = None
    """A good answer's body does not contain this (e.g. an MCP tool error flag)."""

    def is_good(self, status: int, body: bytes) -> bool:
        return (status == 200 and body.startswith(self.good_prefix)
                and (self.bad_marker is None or self.bad_marker not in body))


@dataclass(frozen=True)
class LevelResult:
    clients: int
    requests: int
    """Requests completed in the reported (median) window."""
    seconds: float
    errors: int
    """Failed requests over all windows."""
    rps: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    window_rps: list[float]
    """Requests/s of every measured window, in order (the spread shows how steady the machine was)."""
    generator_cpu_us: float
    """CPU time the generator spent per request (the share of the cores it took from the service)."""
    load_average: float
    """The machine's 1-minute load average when the level ended (other work on the machine shows here)."""

    def as_dict(self) -> dict:
        return asdict(self)


def _percentile_ms(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")


@dataclass
class _Window:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0


async def _drive(target: Target, clients: int, seconds: float, warmup: float, windows: int) -> list[_Window]:
    import aiohttp

    measured = [_Window() for _ in range(windows)]
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector, headers=target.headers, timeout=timeout) as session:
        start = time.perf_counter() + warmup
        end = start + windows * seconds

        async def client(first: int) -> None:
            index = first
            while (started := time.perf_counter()) < end:
                try:
                    async with session.post(target.url, data=target.bodies[index % len(target.bodies)]) as answer:
                        good = target.is_good(answer.status, await answer.read())
                except (aiohttp.ClientError, TimeoutError):
                    good = False
                done = time.perf_counter()
                window = int((done - start) // seconds)
                if started >= start and window < windows:
                    measured[window].latencies.append(done - started)
                    measured[window].errors += not good
                index += clients

        await asyncio.gather(*(client(i) for i in range(clients)))
    return measured


def _level(target: Target, clients: int, seconds: float, warmup: float, windows: int) -> LevelResult:
    cpu = time.process_time()
    measured = asyncio.run(_drive(target, clients, seconds, warmup, windows))
    cpu = time.process_time() - cpu
    rates = [len(w.latencies) / seconds for w in measured]
    median = measured[sorted(range(windows), key=rates.__getitem__)[windows // 2]]
    ordered = sorted(median.latencies)
    total = sum(len(w.latencies) for w in measured)
    return LevelResult(
        clients=clients, requests=len(ordered), seconds=seconds, errors=sum(w.errors for w in measured),
        rps=statistics.median(rates),
        p50_ms=_percentile_ms(ordered, 0.50), p95_ms=_percentile_ms(ordered, 0.95),
        p99_ms=_percentile_ms(ordered, 0.99),
        window_rps=[round(r, 1) for r in rates], generator_cpu_us=cpu / max(total, 1) * 1e6,
        load_average=os.getloadavg()[0],
    )


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
