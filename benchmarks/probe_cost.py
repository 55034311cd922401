"""What each tool costs a build: per server, build time, the slowest tool's share, probe rate vs the raw call rate.

Builds a catalogue in this process (the demo catalogue and the opaque one of
:mod:`toolatlas.testing.opaque` — a database behind a ``command`` environment, and an in-memory
server with a tool that sleeps 10 s by default), then, in the same run, measures each server's raw
call rate: its fastest argument-free read tool (else its smoke call) called back to back on one
session for a few seconds. Prints per server the build's wall time, probes/s and calls/s, calls/s
as a share of the raw rate, and the tool whose calls took the most time with its share of the
server's build time (no single tool should pass 15%).

    .venv/bin/python benchmarks/probe_cost.py [--catalogue demo|opaque|both] [--rounds 3] [--seconds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402

from toolatlas.config import StoreSettings, load_catalogue  # noqa: E402
from toolatlas.environments import render_value  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.offline.kinds import ToolEffect, tool_effect  # noqa: E402
from toolatlas.pipeline.catalogue import build_catalogue  # noqa: E402
from toolatlas.store.paths import open_store  # noqa: E402
from toolatlas.testing.opaque import opaque_catalogue  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


async def raw_rate(workspace: Workspace, name: str, seconds: float) -> float:
    """Calls per second of the server's cheapest read on one session (back to back)."""
    spec = workspace.catalogue.server(name)
    async with workspace.sandbox(spec) as sandbox:
        candidates = [(t.name, {}) for t in sandbox.tools if tool_effect(t) is ToolEffect.READ and not t.required]
        if spec.smoke is not None:
            candidates.append((spec.smoke.tool, render_value(spec.smoke.arguments, sandbox.variables())))
        best = None
        for tool, arguments in candidates:
            outcome = await sandbox.call(tool, arguments, timeout=2.0)
            if outcome.ok and (best is None or outcome.latency_ms < best[2]):
                best = (tool, arguments, outcome.latency_ms)
        if best is None:
            return 0.0
        tool, arguments, _ms = best
        calls, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            await sandbox.call(tool, arguments)
            calls += 1
        return calls / (time.perf_counter() - t0)


async def measure(config: Path, rounds: int, seconds: float) -> list[dict]:
    catalogue = load_catalogue(config)
    with tempfile.TemporaryDirectory() as tmp:
        catalogue = catalogue.model_copy(update={"store": StoreSettings(backend="edge", path=tmp)})
        workspace = Workspace(catalogue)
        store = open_store(catalogue)
        try:
            report = await build_catalogue(workspace, store, rounds=rounds, parallel_servers=1)  # as the raw rate: alone
        finally:
            store.close()
        rows = []
        for server, build_s in report.server_seconds.items():
            probes = sum(c.probes for c in report.coverage if c.server == server)
            calls = sum(sum(c.outcome_mix.values()) for c in report.coverage if c.server == server)
            tools = report.tool_seconds.get(server, {})
            slowest = max(tools, key=tools.get) if tools else ""
            rate = await raw_rate(workspace, server, seconds)
            rows.append({
                "catalogue": catalogue.name, "server": server, "build_s": build_s, "probes": probes, "calls": calls,
                "probes_per_s": probes / build_s, "calls_per_s": calls / build_s, "raw_calls_per_s": rate,
                "calls_vs_raw": (calls / build_s) / rate if rate else 0.0,
                "slowest_tool": slowest, "slowest_s": tools.get(slowest, 0.0),
                "slowest_share": tools.get(slowest, 0.0) / build_s if build_s else 0.0,
            })
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalogue", choices=("demo", "opaque", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0, help="how long the raw call rate is measured")
    args = parser.parse_args()
    configure_logging()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        configs = []
        if args.catalogue in ("demo", "both"):
            configs.append(REPO / "configs" / "demo.toml")
        if args.catalogue in ("opaque", "both"):
            configs.append(opaque_catalogue(Path(tmp) / "opaque", rounds=args.rounds))
        for config in configs:
            rows += await measure(config, args.rounds, args.seconds)
    print("\nper server, built in this process, then its raw call rate measured in the same run")
    print(f"{'catalogue':<9} {'server':<11} {'build s':>8} {'probes':>7} {'probes/s':>9} {'calls/s':>8} "
          f"{'raw calls/s':>12} {'calls/raw':>10} {'slowest tool':<16} {'its s':>6} {'share':>6}")
    for r in rows:
        print(f"{r['catalogue']:<9} {r['server']:<11} {r['build_s']:8.1f} {r['probes']:7d} {r['probes_per_s']:9.1f} "
              f"{r['calls_per_s']:8.1f} {r['raw_calls_per_s']:12.0f} {r['calls_vs_raw']:10.3f} "
              f"{r['slowest_tool']:<16} {r['slowest_s']:6.2f} {r['slowest_share']:6.1%}")
    save("probe_cost", {"rounds": args.rounds, "rows": rows})


if __name__ == "__main__":
    asyncio.run(main())
