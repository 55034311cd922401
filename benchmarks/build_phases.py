"""Where a server's build time goes: planning, calling (per tool and probe direction), digests, resets,
own-state reads, restarts, verification, the later-second repeats of replays, absorption.

Builds each chosen server of a catalogue (default ``configs/wild.toml``) in this process, one at a
time, with a fresh store in a temporary folder, and times every phase by wrapping the library's own
methods for the length of the run (the build code itself is untouched). The phases nest: a probe's
rollout (``Executor.run``) holds its calls, digests, resets and own-state upkeep; ``run_verified``
adds verification and restarts; the repeats hold their wait for the next second. Printed per server:
the rounds' seconds, each phase's seconds and share, then per tool its calls, mean and total call
seconds and share of the rounds (split by probe direction), slowest first.

    .venv/bin/python benchmarks/build_phases.py [--config configs/wild.toml] [--server NAME ...] [--rounds R] [--tools 6]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402

from toolatlas.client.connection import ServerConnection  # noqa: E402
from toolatlas.config import StoreSettings, load_catalogue  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.pipeline.persistence import StoreSink  # noqa: E402
from toolatlas.pipeline.server import ServerBuild  # noqa: E402
from toolatlas.pipeline.shard import ServerShard  # noqa: E402
from toolatlas.probing.executor import Executor  # noqa: E402
from toolatlas.probing.own_state import OwnState  # noqa: E402
from toolatlas.probing.verifier import Verifier  # noqa: E402
from toolatlas.sandbox import Sandbox  # noqa: E402
from toolatlas.store.paths import AtlasPaths, open_store  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

PHASES: list[tuple[type, str, str]] = [
    (ServerShard, "plan", "plan"),
    (ServerShard, "absorb", "absorb"),
    (ServerShard, "finish_round", "finish round"),
    (Executor, "run_verified", "probe (run + verify)"),
    (Executor, "run", "  rollout"),
    (Sandbox, "call", "    call"),
    (Sandbox, "digest", "    digest"),
    (Sandbox, "restore", "    restore"),
    (Sandbox, "freeze_and_reset", "    freeze+reset"),
    (OwnState, "keep_fresh", "    own-state upkeep"),
    (ServerConnection, "restart", "    server restart"),
    (Verifier, "verify", "  verify"),
    (Executor, "_settle", "later-second repeats"),
]


class PhaseClock:
    """Seconds and counts per phase, while :meth:`installed` wraps the methods of :data:`PHASES`."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)
        self.in_round = False
        """Only what happens inside a round is counted (not discovery's pilots, nor the servers' start)."""

    def _wrap(self, label: str, method: Callable) -> Callable:
        if asyncio.iscoroutinefunction(method):

            @functools.wraps(method)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                t0, counted = time.perf_counter(), self.in_round
                try:
                    return await method(*args, **kwargs)
                finally:
                    if counted:
                        self.seconds[label] += time.perf_counter() - t0
                        self.counts[label] += 1

            return timed_async

        @functools.wraps(method)
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0, counted = time.perf_counter(), self.in_round
            try:
                return method(*args, **kwargs)
            finally:
                if counted:
                    self.seconds[label] += time.perf_counter() - t0
                    self.counts[label] += 1

        return timed

    def _round(self, method: Callable) -> Callable:
        @functools.wraps(method)
        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.in_round = True
            try:
                return await method(*args, **kwargs)
            finally:
                self.in_round = False

        return counted

    @contextmanager
    def installed(self):
        originals = [(owner, name, owner.__dict__[name]) for owner, name, _ in PHASES]
        originals.append((ServerBuild, "run_round", ServerBuild.__dict__["run_round"]))
        try:
            for (owner, name, label), (_o, _n, method) in zip(PHASES, originals, strict=False):
                setattr(owner, name, self._wrap(label, method))
            ServerBuild.run_round = self._round(ServerBuild.__dict__["run_round"])
            yield self
        finally:
            for owner, name, method in originals:
                setattr(owner, name, method)


class ToolClock:
    """Per tool and probe direction: calls and seconds (fed by the build's on_probe)."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = defaultdict(int)
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)
        self.probes = 0

    def __call__(self, rollout, verdict, delta) -> None:
        self.probes += 1
        for step in rollout.steps:
            key = (step.outcome.tool, rollout.probe.direction.value)
            self.calls[key] += 1
            self.seconds[key] += step.outcome.latency_ms / 1000


async def profile(workspace: Workspace, store, spec, rounds: int | None) -> dict:
    sink = StoreSink(store, AtlasPaths(workspace.catalogue))
    phases, tools = PhaseClock(), ToolClock()
    build = ServerBuild(workspace, spec, workspace.catalogue.build, sink=sink, on_probe=tools, rounds=rounds)
    t0 = time.perf_counter()
    with phases.installed():
        coverage = await build.run()
    wall = time.perf_counter() - t0
    rounds_s = sum(c.seconds for c in coverage)
    per_tool: dict[str, dict] = {}
    for (tool, direction), calls in tools.calls.items():
        row = per_tool.setdefault(tool, {"calls": 0, "seconds": 0.0, "by_direction": {}})
        row["calls"] += calls
        row["seconds"] += tools.seconds[(tool, direction)]
        row["by_direction"][direction] = {"calls": calls, "seconds": tools.seconds[(tool, direction)]}
    pilots = build.shard.proposer.discovery.costs if build.shard.proposer is not None else {}
    return {
        "server": spec.name,
        "wall_s": wall,
        "rounds_s": rounds_s,
        "probes": tools.probes,
        "phases": {label: {"seconds": phases.seconds[label], "count": phases.counts[label]} for _, _, label in PHASES},
        "tools": dict(sorted(per_tool.items(), key=lambda kv: -kv[1]["seconds"])),
        "pilots": {name: cost.model_dump() for name, cost in pilots.items()},
    }


def show(result: dict, tools: int) -> None:
    rounds_s = result["rounds_s"] or 1e-9
    print(f"\n{result['server']}: rounds {result['rounds_s']:.2f}s (wall with open/discovery {result['wall_s']:.2f}s), "
          f"{result['probes']} probes")
    for label, row in result["phases"].items():
        if row["count"]:
            print(f"  {label:<24} {row['seconds']:7.2f}s {row['seconds'] / rounds_s:5.2f}  ×{row['count']}")
    for name, row in list(result["tools"].items())[:tools]:
        mean = row["seconds"] / row["calls"] if row["calls"] else 0.0
        split = ", ".join(f"{d} {v['calls']}×{v['seconds'] / v['calls'] * 1000:.0f}ms"
                          for d, v in sorted(row["by_direction"].items(), key=lambda kv: -kv[1]["seconds"]))
        pilot = result["pilots"].get(name, {})
        print(f"  tool {name[:28]:<28} {row['calls']:5} calls {mean * 1000:7.1f}ms mean {row['seconds']:6.2f}s "
              f"{row['seconds'] / rounds_s:5.2f}  pilot {pilot.get('seconds', 0) * 1000:.0f}ms  [{split}]")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=REPO / "configs" / "wild.toml")
    parser.add_argument("--server", action="append", help="only these servers (repeatable)")
    parser.add_argument("--rounds", type=int, help="exploration rounds R (default: the catalogue's)")
    parser.add_argument("--tools", type=int, default=6, help="tools shown per server, slowest first")
    args = parser.parse_args()
    configure_logging()
    base = load_catalogue(args.config)
    chosen = [s for s in base.enabled_servers if not args.server or s.name in args.server]
    results = []
    with tempfile.TemporaryDirectory(prefix="build-phases-") as tmp:
        catalogue = base.model_copy(update={"store": StoreSettings(backend="edge", path=tmp)})
        workspace = Workspace(catalogue)
        store = open_store(catalogue)
        try:
            for spec in chosen:
                result = await profile(workspace, store, spec, args.rounds)
                show(result, args.tools)
                results.append(result)
        finally:
            store.close()
    print(f"\nsaved {save(f'build_phases_{args.config.stem}', {'config': str(args.config), 'servers': results})}")


if __name__ == "__main__":
    asyncio.run(main())
