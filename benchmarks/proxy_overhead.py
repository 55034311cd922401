"""What ``toolatlas proxy`` adds to a call: latency through the proxy against the server called directly.

Per cheap read-only tool (filesystem ``read_text_file`` and ``list_allowed_directories``, memory
``read_graph``), two copies of the same server binary run on the same data (a copy of the demo
snapshot, deployment mode): one reached directly, one through ``toolatlas proxy``. The same plain
SDK client (``mcp.Client`` over stdio, handshake protocol) calls both, in alternating blocks, in
the same run: sequentially (1 call in flight) and with 8 in flight. A third client speaks the
2026-07-28 protocol to the proxy (the SDK-handler path instead of the pass-through). Reported:
p50 / p95 latency, calls/s, the p50 the proxy adds in ms, and ratios proxy/direct.

The atlas is built first (filesystem + memory, one round, a few seconds) into a scratch store.

    .venv/bin/python benchmarks/proxy_overhead.py [--calls 40] [--blocks 8]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import demo_atlas_export, percentile_ms, save
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from toolatlas.config import load_catalogue
from toolatlas.home import Home
from toolatlas.logs import configure_logging
from toolatlas.proxy import deployment_launch, deployment_variables

REPO = Path(__file__).resolve().parents[1]
HOME = REPO / ".toolatlas"
SERVERS = ("filesystem", "memory")
IN_FLIGHT = (1, 8)
Call = Callable[[], Awaitable[object]]


async def build_atlas(scratch: Path) -> tuple[Path, dict[str, dict[str, str]]]:
    """A catalogue copy whose store holds a fresh atlas of SERVERS, its export, and each server's data copy."""
    workspace, export = await demo_atlas_export(scratch, SERVERS, rounds=1)
    catalogue = workspace.catalogue
    data = {}
    for name in SERVERS:  # the "user's data": a copy of the server's snapshot
        source = Path(workspace.snapshot(catalogue.server(name)).path)
        target = scratch / "data" / name
        if source.is_dir():
            shutil.copytree(source, target)
            data[name] = {"root": str(target)}
        else:
            target.mkdir(parents=True)
            shutil.copy(source, target / source.name)
            data[name] = {"file": str(target / source.name)}
    return export, data


def stdio(command: str, args: list[str], env: dict[str, str], cwd: str | None) -> StdioServerParameters:
    return StdioServerParameters(command=command, args=args, env=env, cwd=cwd)


async def drive(call: Call, in_flight: int, calls: int) -> list[float]:
    """``calls`` calls with ``in_flight`` workers: each call's latency in seconds."""
    latencies: list[float] = []
    remaining = calls

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            t0 = time.perf_counter()
            await call()
            latencies.append(time.perf_counter() - t0)

    await asyncio.gather(*(worker() for _ in range(in_flight)))
    return latencies


async def measure(variants: dict[str, Call], in_flight: int, calls: int, blocks: int) -> dict[str, dict]:
    """Alternating blocks of every variant (rotated order), so load on the machine hits all alike."""
    samples: dict[str, list[float]] = {name: [] for name in variants}
    seconds: dict[str, float] = {name: 0.0 for name in variants}
    names = list(variants)
    for block in range(blocks):
        for name in names[block % len(names):] + names[: block % len(names)]:
            t0 = time.perf_counter()
            samples[name] += await drive(variants[name], in_flight, calls)
            seconds[name] += time.perf_counter() - t0
    return {
        name: {"p50_ms": round(percentile_ms(s, 0.5), 3), "p95_ms": round(percentile_ms(s, 0.95), 3),
               "calls_per_s": round(len(s) / seconds[name], 1), "calls": len(s)}
        for name, s in samples.items()
    }


async def bench_tool(clients: dict[str, Client], tool: str, arguments: dict,
                     calls: int, blocks: int) -> list[dict]:
    rows = []
    variants = {name: (lambda c=client: c.call_tool(tool, arguments)) for name, client in clients.items()}
    for call in variants.values():  # warm up every path
        for _ in range(20):
            result = await call()
            assert not result.is_error, result
    for in_flight in IN_FLIGHT:
        stats = await measure(variants, in_flight, calls * in_flight, blocks)
        direct, proxy, modern = stats["direct"], stats["proxy"], stats["proxy_2026"]
        row = {
            "tool": tool, "in_flight": in_flight, **{f"{k}_{m}": v for k, s in stats.items() for m, v in s.items()},
            "added_p50_ms": round(proxy["p50_ms"] - direct["p50_ms"], 3),
            "p50_ratio": round(proxy["p50_ms"] / direct["p50_ms"], 2),
            "p95_ratio": round(proxy["p95_ms"] / direct["p95_ms"], 2),
            "throughput_ratio": round(proxy["calls_per_s"] / direct["calls_per_s"], 2),
            "added_p50_ms_2026": round(modern["p50_ms"] - direct["p50_ms"], 3),
        }
        rows.append(row)
        print(f"  {tool:<26} {in_flight:>2} in flight   direct p50 {direct['p50_ms']:6.2f} p95 {direct['p95_ms']:6.2f} ms"
              f" {direct['calls_per_s']:7.1f}/s | proxy p50 {proxy['p50_ms']:6.2f} p95 {proxy['p95_ms']:6.2f} ms"
              f" {proxy['calls_per_s']:7.1f}/s | +{row['added_p50_ms']:.2f} ms p50 (x{row['p50_ratio']:.2f}),"
              f" throughput x{row['throughput_ratio']:.2f} | 2026 client +{row['added_p50_ms_2026']:.2f} ms", flush=True)
    return rows


async def main(calls: int, blocks: int) -> None:
    configure_logging("warning")
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="toolatlas-proxy-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        t0 = time.perf_counter()
        export, data = await build_atlas(scratch)
        print(f"atlas of {', '.join(SERVERS)} built in {time.perf_counter() - t0:.1f}s", flush=True)
        catalogue = load_catalogue(REPO / "configs" / "demo.toml")
        env = {"TOOLATLAS_HOME": str(HOME)}
        plan = {
            "filesystem": [("read_text_file", {"path": f"{data['filesystem']['root']}/README.md"}),
                           ("list_allowed_directories", {})],
            "memory": [("read_graph", {})],
        }
        for server, tools in plan.items():
            launch = deployment_launch(catalogue, server, deployment_variables(data[server]), Home(HOME))
            direct = stdio(launch.command, launch.args, launch.env, launch.cwd)
            var_args = [a for k, v in data[server].items() for a in ("--var", f"{k}={v}")]
            proxy = stdio(sys.executable, ["-m", "toolatlas", "proxy", str(REPO / "configs" / "demo.toml"), "--server",
                                           server, "--atlas", str(export), *var_args], env, str(REPO))
            async with AsyncExitStack() as stack:
                clients = {
                    "direct": await stack.enter_async_context(Client(stdio_client(direct), mode="legacy")),
                    "proxy": await stack.enter_async_context(Client(stdio_client(proxy), mode="legacy")),
                    "proxy_2026": await stack.enter_async_context(Client(stdio_client(proxy), mode="2026-07-28")),
                }
                print(f"{server}: direct {clients['direct'].protocol_version}, proxy {clients['proxy'].protocol_version}, "
                      f"proxy_2026 {clients['proxy_2026'].protocol_version}", flush=True)
                for tool, arguments in tools:
                    rows += [{"server": server, **row}
                             for row in await bench_tool(clients, tool, arguments, calls, blocks)]
    sequential = [r for r in rows if r["in_flight"] == 1]
    summary = {
        "added_p50_ms_sequential": {r["tool"]: r["added_p50_ms"] for r in sequential},
        "p50_ratio_sequential": {r["tool"]: r["p50_ratio"] for r in sequential},
        "throughput_ratio_8_in_flight": {r["tool"]: r["throughput_ratio"] for r in rows if r["in_flight"] == 8},
    }
    path = save("proxy_overhead", {"calls_per_block": calls, "blocks": blocks, "rows": rows, "summary": summary})
    print(f"\nadded p50 (sequential): {summary['added_p50_ms_sequential']}")
    print(f"wrote {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=40, help="calls per block and worker (default 40)")
    parser.add_argument("--blocks", type=int, default=8, help="alternating blocks per variant (default 8)")
    options = parser.parse_args()
    asyncio.run(main(options.calls, options.blocks))
