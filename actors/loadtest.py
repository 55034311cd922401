"""Load-test clients as Ray actors: when one machine cannot saturate a guidance service, its clients
are spread over actors on the cluster's nodes, all starting their measured windows at one wall-clock
moment; their window counts merge exactly (:func:`toolatlas.loadtest.summarise`)."""

from __future__ import annotations

import asyncio
import time

import ray

from toolatlas.loadtest import LevelResult, Target, WindowCounts, drive, summarise

__all__ = ["LEVEL_TIMEOUT_S", "ray_level"]

LEVEL_TIMEOUT_S = 900.0
"""Seconds a level may take on the actors beyond its own length before it is abandoned."""


class LoadClients:
    """One actor's share of a level's clients."""

    def run(self, target: Target, clients: int, start_at: float, seconds: float, windows: int,
            first_body: int) -> tuple[list[WindowCounts], float]:
        cpu = time.process_time()
        counts = asyncio.run(drive(target, clients, start_at=start_at, seconds=seconds, windows=windows,
                                   first_body=first_body))
        return counts, time.process_time() - cpu


def ray_level(target: Target, clients: int, *, generators: int, seconds: float, warmup: float,
              windows: int) -> LevelResult:
    """One level with ``clients`` spread over ``generators`` actors (spread across nodes)."""
    actor = ray.remote(num_cpus=0.5, scheduling_strategy="SPREAD")(LoadClients)
    actors = [actor.remote() for _ in range(min(generators, clients))]
    shares = [clients // len(actors) + (i < clients % len(actors)) for i in range(len(actors))]
    start_at = time.time() + warmup + 2.0  # every actor is up and connected before the windows begin
    try:
        refs = [a.run.remote(target, share, start_at, seconds, windows, sum(shares[:i]))
                for i, (a, share) in enumerate(zip(actors, shares, strict=True))]
        done = ray.get(refs, timeout=LEVEL_TIMEOUT_S + warmup + seconds * windows)
    finally:
        for a in actors:
            ray.kill(a)
    return summarise(clients, seconds, [counts for counts, _cpu in done], sum(cpu for _c, cpu in done))
