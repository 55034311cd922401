"""What the determinism repeats in a later second cost a build, and what stamping replays saves.

A replay whose output matches its original call is repeated once more in a later second of the
clock (a time to the second would otherwise pass for deterministic); a replay that itself began in
a later second than it was planned in needs no repeat (:attr:`toolatlas.probing.models.Probe.planned_at`).
The demo catalogue is built in this process (the asyncio engine) into a fresh store, alternating three
variants run after run so that load on the machine hits them alike:

- ``none``: no repeat in a later second (the baseline: determinism would then be wrong for a clock);
- ``repeat``: every deterministic-looking replay repeated (replays not stamped);
- ``stamped``: replays stamped with their planning time; only those that ran within that second repeat.

It prints per build the replays repeated later and the executor seconds they took (counts that do
not depend on the machine's load), and the median build seconds of each variant with their ratios to
``none``. Ratios of speed are noisy on a shared machine: run it with ``nice`` and several ``--runs``.

    nice -n 10 .venv/bin/python benchmarks/replay_cost.py [--config configs/demo.toml] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402

from toolatlas.config import StoreSettings, load_catalogue  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.pipeline.catalogue import build_catalogue  # noqa: E402
from toolatlas.pipeline.shard import ServerShard  # noqa: E402
from toolatlas.probing.executor import Executor  # noqa: E402
from toolatlas.store.paths import open_store  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
VARIANTS = {"none": (False, False), "repeat": (True, False), "stamped": (True, True)}
"""Variant → (repeat in a later second, stamp replays)."""


class Repeats:
    """Counts what the executors' repeats in a later second did: replays repeated, seconds spent
    (waiting for the second and calling again)."""

    replays = 0
    seconds = 0.0
    _settle = Executor._settle

    @classmethod
    def install(cls) -> None:
        async def counted(executor: Executor, unsettled):
            t0 = time.perf_counter()
            try:
                return await cls._settle(executor, unsettled)
            finally:
                cls.replays += len(unsettled)
                cls.seconds += time.perf_counter() - t0 if unsettled else 0.0

        Executor._settle = counted


async def build_once(config: Path, variant: str) -> tuple[float, int]:
    """Seconds one build of ``config`` takes in ``variant``, and its served entries."""
    Executor.repeat_in_later_second, ServerShard.stamp_replays = VARIANTS[variant]
    Repeats.replays, Repeats.seconds = 0, 0.0
    base = load_catalogue(config)
    with tempfile.TemporaryDirectory(prefix="replay-cost-") as tmp:
        catalogue = base.model_copy(update={"store": StoreSettings(backend="edge", path=tmp)})
        store = open_store(catalogue)
        try:
            t0 = time.perf_counter()
            await build_catalogue(Workspace(catalogue), store)
            seconds = time.perf_counter() - t0
            served = sum(1 for e in store.all("entries") if e.status.value == "active")
        finally:
            store.close()
    return seconds, served


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=REPO / "configs" / "demo.toml")
    parser.add_argument("--runs", type=int, default=3, help="builds per variant, alternated")
    args = parser.parse_args()
    configure_logging("warning")
    Repeats.install()
    seconds: dict[str, list[float]] = {v: [] for v in VARIANTS}
    served: dict[str, list[int]] = {v: [] for v in VARIANTS}
    repeats: dict[str, list[tuple[int, float]]] = {v: [] for v in VARIANTS}
    order = list(VARIANTS)
    for run in range(args.runs):
        for variant in order if run % 2 == 0 else order[::-1]:
            took, entries = asyncio.run(build_once(args.config, variant))
            seconds[variant].append(took)
            served[variant].append(entries)
            repeats[variant].append((Repeats.replays, round(Repeats.seconds, 2)))
            print(f"run {run + 1} {variant:<8} {took:6.1f} s  {entries} served entries  "
                  f"{Repeats.replays} replays repeated later ({Repeats.seconds:.1f} s in executors)", flush=True)
    medians = {v: statistics.median(s) for v, s in seconds.items()}
    print()
    for variant, median in medians.items():
        print(f"{variant:<8} median {median:6.1f} s  ratio to none {median / medians['none']:.3f}")
    path = save("replay_cost", {"config": str(args.config), "runs": args.runs, "seconds": seconds,
                                "served": served, "repeats": repeats, "median_s": medians,
                                "ratio_to_none": {v: round(m / medians["none"], 4) for v, m in medians.items()}})
    print(f"results: {path}")


if __name__ == "__main__":
    main()
