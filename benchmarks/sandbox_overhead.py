"""What the OS sandbox costs: each demo server's start time and call rate, and the demo build's wall time,
sandboxed (bubblewrap) against unsandboxed, measured alternately in the same run.

Per server, one prepared instance; the same launch is started confined and unconfined in
alternating order (start = process start, MCP handshake and ``tools/list``), then one session of
each answers the smoke call with 1 and 8 calls in flight in alternating blocks. The demo build
(``build_catalogue``, in this process) runs both ways into fresh stores, alternately; its atlases
must hold the same entries (ids and counts). Goals: start ≤ 1.2×, call rate ≥ 0.95×.

    .venv/bin/python benchmarks/sandbox_overhead.py [--starts 8] [--seconds 2] [--builds 2] [--server NAME]
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
from mcp_calls import drive  # noqa: E402

from toolatlas.client import ServerConnection, StdioLaunch  # noqa: E402
from toolatlas.config import load_catalogue  # noqa: E402
from toolatlas.confinement import Unconfined, default_confiner, grant_for  # noqa: E402
from toolatlas.environments import render_value  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.pipeline.catalogue import build_catalogue  # noqa: E402
from toolatlas.sandbox import launch_for  # noqa: E402
from toolatlas.store.paths import open_store  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MODES = ("sandboxed", "unsandboxed")


async def bench_server(workspace: Workspace, name: str, starts: int, seconds: float) -> dict:
    spec = workspace.catalogue.server(name)
    assert spec.smoke is not None, f"{name} needs a smoke call"
    sandbox = workspace.sandbox(spec)
    slot = workspace.home.instances / f"bench-sandbox-{name}"
    instance = await asyncio.to_thread(sandbox.environment.prepare, sandbox.snapshot, slot)
    try:
        plain = launch_for(spec, sandbox.runtime, instance.variables, batch=True)
        assert isinstance(plain, StdioLaunch)
        grant = grant_for(spec, sandbox.runtime, plain, writable=[instance.slot], scratch=str(instance.home))
        launches = {"sandboxed": default_confiner().wrap(plain, grant), "unsandboxed": Unconfined().wrap(plain, grant)}
        limits = spec.limits.model_copy(update={"concurrency": 8})
        start_s: dict[str, list[float]] = {mode: [] for mode in MODES}
        for i in range(starts):
            for mode in MODES if i % 2 == 0 else MODES[::-1]:
                connection = ServerConnection(name, launches[mode], limits)
                t0 = time.perf_counter()
                await connection.start()
                start_s[mode].append(time.perf_counter() - t0)
                await connection.close(graceful=False)
        arguments = render_value(spec.smoke.arguments, instance.variables)
        sessions = {mode: ServerConnection(name, launches[mode], limits) for mode in MODES}
        for connection in sessions.values():
            await connection.start()
        rates: dict[int, dict[str, list[float]]] = {}
        try:
            for in_flight in (1, 8):
                rates[in_flight] = {mode: [] for mode in MODES}
                for i in range(4):
                    for mode in MODES if i % 2 == 0 else MODES[::-1]:

                        async def call(connection: ServerConnection = sessions[mode]) -> bool:
                            return (await connection.call(spec.smoke.tool, arguments)).ok

                        rate, _p50, errors = await drive(call, in_flight, seconds / 4)
                        assert errors == 0, f"{name}: {errors} failed smoke calls ({mode})"
                        rates[in_flight][mode].append(rate)
        finally:
            for connection in sessions.values():
                await connection.close(graceful=False)
    finally:
        await asyncio.to_thread(sandbox.environment.discard, instance)
    start = {mode: statistics.median(v) * 1000 for mode, v in start_s.items()}
    row = {
        "server": name,
        "start_ms": start,
        "start_ratio": start["sandboxed"] / start["unsandboxed"],
    }
    for in_flight, by_mode in rates.items():
        rate = {mode: statistics.median(v) for mode, v in by_mode.items()}
        row[f"calls_per_s_{in_flight}"] = rate
        row[f"call_rate_ratio_{in_flight}"] = rate["sandboxed"] / rate["unsandboxed"]
    return row


async def bench_build(config: Path, runs: int) -> dict:
    """The demo build both ways, alternately, each into a fresh store: wall seconds and what it found."""
    catalogue = load_catalogue(config)
    walls: dict[str, list[float]] = {mode: [] for mode in MODES}
    found: dict[str, list[tuple[int, int, int, frozenset[str]]]] = {mode: [] for mode in MODES}
    for i in range(runs):
        for mode in MODES if i % 2 == 0 else MODES[::-1]:
            with tempfile.TemporaryDirectory(prefix=f"sandbox-bench-{mode}-") as scratch:
                fresh = catalogue.model_copy(update={"store": catalogue.store.model_copy(update={"path": scratch})})
                fresh._source = catalogue.source
                store = open_store(fresh)
                try:
                    t0 = time.perf_counter()
                    report = await build_catalogue(Workspace(fresh, confine=mode == "sandboxed"), store)
                    walls[mode].append(time.perf_counter() - t0)
                    assert all(status == "ok" for status in report.servers.values()), report.servers
                    entries = {e.id for e in store.all("entries")}
                    found[mode].append(
                        (len(entries), len(store.all("traces")), len(store.all("strategies")), frozenset(entries))
                    )
                finally:
                    store.close()
            print(f"  build {i + 1}/{runs} {mode}: {walls[mode][-1]:.1f}s, {found[mode][-1][0]} entries", flush=True)
    wall = {mode: statistics.median(v) for mode, v in walls.items()}
    atlases = {entry for mode in MODES for entry in found[mode]}
    return {
        "wall_s": wall,
        "wall_ratio": wall["sandboxed"] / wall["unsandboxed"],
        "entries": {mode: [f[0] for f in found[mode]] for mode in MODES},
        "traces": {mode: [f[1] for f in found[mode]] for mode in MODES},
        "strategies": {mode: [f[2] for f in found[mode]] for mode in MODES},
        "same_atlas": len(atlases) == 1,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(REPO / "configs" / "demo.toml"))
    parser.add_argument("--starts", type=int, default=8, help="starts per server and mode")
    parser.add_argument("--seconds", type=float, default=2.0, help="call-rate measuring time per server, mode and load")
    parser.add_argument("--builds", type=int, default=2, help="demo builds per mode (0: skip)")
    parser.add_argument("--server", action="append")
    args = parser.parse_args()
    configure_logging()
    catalogue = load_catalogue(args.config)
    workspace = Workspace(catalogue)
    names = args.server or [s.name for s in catalogue.enabled_servers if s.smoke is not None]
    rows = []
    for name in names:
        rows.append(await bench_server(workspace, name, args.starts, args.seconds))
        print(f"  measured {name}", flush=True)
    build = await bench_build(Path(args.config), args.builds) if args.builds else None
    print("\nthe OS sandbox (bubblewrap) against no sandbox, same run, alternating (goal: start <= 1.2x, rate >= 0.95x)")
    print(f"{'server':<11} {'start ms':>9} {'plain ms':>9} {'ratio':>6}   {'calls/s@1':>10} {'plain':>8} {'ratio':>6}"
          f"   {'calls/s@8':>10} {'plain':>8} {'ratio':>6}")
    for r in rows:
        print(
            f"{r['server']:<11} {r['start_ms']['sandboxed']:9.0f} {r['start_ms']['unsandboxed']:9.0f} {r['start_ratio']:6.2f}"
            f"   {r['calls_per_s_1']['sandboxed']:10.0f} {r['calls_per_s_1']['unsandboxed']:8.0f} {r['call_rate_ratio_1']:6.2f}"
            f"   {r['calls_per_s_8']['sandboxed']:10.0f} {r['calls_per_s_8']['unsandboxed']:8.0f} {r['call_rate_ratio_8']:6.2f}"
        )
    if build is not None:
        print(
            f"\ndemo build (in process): sandboxed {build['wall_s']['sandboxed']:.1f}s, unsandboxed "
            f"{build['wall_s']['unsandboxed']:.1f}s, ratio {build['wall_ratio']:.2f}; entries {build['entries']}, "
            f"same atlas both ways: {build['same_atlas']}"
        )
    print(f"\nsaved {save('sandbox_overhead', {'starts': args.starts, 'seconds': args.seconds, 'rows': rows, 'build': build})}")


if __name__ == "__main__":
    asyncio.run(main())
