"""Raw MCP call throughput and latency per demo server: the physical limit later stages are measured against.

For each server of the catalogue, one session, a read-only call, with 1 and 8 calls in flight:
our client layer (:class:`ServerConnection`: bounded transport, outcome classification) against
the plain SDK client (``mcp.Client`` over the SDK's stdio transport) on the same server binary,
measured in alternating blocks in the same run. The ratio ours/SDK is the cost of our layer.

    .venv/bin/python benchmarks/mcp_calls.py [--config configs/demo.toml] [--seconds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from toolatlas.client import ServerConnection, StdioLaunch  # noqa: E402
from toolatlas.config import load_catalogue  # noqa: E402
from toolatlas.environments import render_value  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.sandbox import launch_for  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


async def drive(call, in_flight: int, seconds: float) -> tuple[float, float, int]:
    """Run ``call`` with ``in_flight`` workers for ``seconds``: (calls/s, median latency ms, errors)."""
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal errors
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            ok = await call()
            latencies.append(time.perf_counter() - t0)
            errors += 0 if ok else 1

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(in_flight)))
    elapsed = time.perf_counter() - t0
    return len(latencies) / elapsed, statistics.median(latencies) * 1000, errors


async def bench_server(workspace: Workspace, name: str, seconds: float, rounds: int) -> list[dict]:
    spec = workspace.catalogue.server(name)
    assert spec.smoke is not None, f"{name} needs a smoke call to benchmark"
    sandbox = workspace.sandbox(spec)
    instance = await asyncio.to_thread(sandbox.environment.prepare, sandbox.snapshot, workspace.home.instances / f"bench-{name}")
    try:
        launch = launch_for(spec, sandbox.runtime, instance.variables)
        assert isinstance(launch, StdioLaunch)
        arguments = render_value(spec.smoke.arguments, instance.variables)
        limits = spec.limits.model_copy(update={"concurrency": 8})
        ours = ServerConnection(name, launch, limits)
        await ours.start()
        params = StdioServerParameters(command=launch.command, args=launch.args, env=launch.env, cwd=launch.cwd)
        rows = []
        async with Client(params, cache=None) as sdk:

            async def call_sdk() -> bool:
                result = await sdk.call_tool(spec.smoke.tool, arguments)
                return not result.is_error

            async def call_ours() -> bool:
                return (await ours.call(spec.smoke.tool, arguments)).ok

            for in_flight in (1, 8):
                samples: dict[str, list[tuple[float, float, int]]] = {"sdk": [], "ours": []}
                for i in range(rounds):  # alternate which goes first
                    order = [("sdk", call_sdk), ("ours", call_ours)] if i % 2 == 0 else [("ours", call_ours), ("sdk", call_sdk)]
                    for label, call in order:
                        samples[label].append(await drive(call, in_flight, seconds / rounds))
                med = {k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v), sum(r[2] for r in v)) for k, v in samples.items()}
                rows.append(
                    {
                        "server": name,
                        "tool": spec.smoke.tool,
                        "in_flight": in_flight,
                        "calls_per_s": med["ours"][0],
                        "median_ms": med["ours"][1],
                        "sdk_calls_per_s": med["sdk"][0],
                        "sdk_median_ms": med["sdk"][1],
                        "ratio_vs_sdk": med["ours"][0] / med["sdk"][0],
                        "errors": med["ours"][2] + med["sdk"][2],
                    }
                )
        await ours.close()
        return rows
    finally:
        await asyncio.to_thread(sandbox.environment.discard, instance)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(REPO / "configs" / "demo.toml"))
    parser.add_argument("--seconds", type=float, default=2.0, help="measuring time per server, mode and client")
    parser.add_argument("--rounds", type=int, default=4, help="alternating blocks per measurement")
    parser.add_argument("--server", action="append")
    args = parser.parse_args()
    configure_logging()
    catalogue = load_catalogue(args.config)
    workspace = Workspace(catalogue)
    names = args.server or [s.name for s in catalogue.enabled_servers if s.smoke is not None]
    rows = []
    for name in names:
        rows.extend(await bench_server(workspace, name, args.seconds, args.rounds))
        print(f"  measured {name}", flush=True)
    print("\nraw MCP calls on one session: ours (ServerConnection) vs the plain SDK client, same run")
    print(f"{'server':<11} {'tool':<26} {'inflight':>8} {'calls/s':>9} {'p50 ms':>8} {'sdk/s':>9} {'sdk p50':>8} {'ratio':>6} {'err':>4}")
    for r in rows:
        print(
            f"{r['server']:<11} {r['tool']:<26} {r['in_flight']:>8} {r['calls_per_s']:9.0f} {r['median_ms']:8.2f} "
            f"{r['sdk_calls_per_s']:9.0f} {r['sdk_median_ms']:8.2f} {r['ratio_vs_sdk']:6.2f} {r['errors']:>4}"
        )
    print(f"\nsaved {save('mcp_calls', {'seconds': args.seconds, 'rows': rows})}")


if __name__ == "__main__":
    asyncio.run(main())
