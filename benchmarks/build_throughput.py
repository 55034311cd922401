"""Probes/s of a build of one server, in-process and on Ray, as a ratio of the server's physical limit.

Per demo server, in one process: (1) the raw call rate of its smoke call on one session, one call
in flight (the executor's own rhythm); (2) the cost of one reset of its environment, done as the
build does it (``Sandbox.restore``); (3) a build of that server alone (bootstrap + R rounds, one
executor) with each engine. Printed: build probes/s and calls/s; the share of probes that changed
state (only those are reset); the limit of a probe = calls per probe × call time + reset share ×
one reset; and the ratios. Raw rates are measured before and after the builds, averaged.

    .venv/bin/python benchmarks/build_throughput.py [--rounds 2] [--server NAME] [--engine asyncio|ray|both]
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
from toolatlas.environments import render_value  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.pipeline.catalogue import build_catalogue  # noqa: E402
from toolatlas.store.paths import open_store  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


async def raw_rates(workspace: Workspace, name: str, seconds: float) -> tuple[float, float]:
    """(seconds per smoke call, seconds per reset) on one sandbox."""
    spec = workspace.catalogue.server(name)
    assert spec.smoke is not None
    async with workspace.sandbox(spec) as sandbox:
        arguments = render_value(spec.smoke.arguments, sandbox.variables())
        calls = []
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            await sandbox.call(spec.smoke.tool, arguments)
            calls.append(time.perf_counter() - t0)
        resets = []
        for _ in range(20):
            t0 = time.perf_counter()
            await sandbox.restore()
            resets.append(time.perf_counter() - t0)
    return statistics.mean(calls), statistics.median(resets)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--server", action="append")
    parser.add_argument("--engine", choices=["asyncio", "ray", "both"], default="both")
    args = parser.parse_args()
    configure_logging()
    if args.engine in ("ray", "both"):
        import os

        import ray

        os.environ.setdefault("TOOLATLAS_HOME", str(REPO / ".toolatlas"))
        ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.2", log_to_driver=False,
                 runtime_env={"env_vars": {"TOOLATLAS_HOME": os.environ["TOOLATLAS_HOME"]}})
    demo = load_catalogue(REPO / "configs" / "demo.toml")
    rows = []
    for name in args.server or [s.name for s in demo.servers]:
        with tempfile.TemporaryDirectory() as tmp:
            catalogue = demo.model_copy(update={"store": StoreSettings(backend="edge", path=tmp)})
            workspace = Workspace(catalogue)
            call_a, reset_a = await raw_rates(workspace, name, args.seconds)
            engines = ["asyncio", "ray"] if args.engine == "both" else [args.engine]
            reports = {}
            for engine in engines:
                target = catalogue.model_copy(update={"store": StoreSettings(backend="edge", path=f"{tmp}/{engine}")})
                if engine == "asyncio":
                    store = open_store(target)
                    try:
                        reports[engine] = await build_catalogue(
                            Workspace(target), store, servers=[target.server(name)], rounds=args.rounds
                        )
                    finally:
                        store.close()
                else:
                    config = Path(tmp) / "ray.toml"
                    config.write_text((REPO / "configs" / "demo.toml").read_text().replace(
                        'path = "../.toolatlas/atlas/demo"', f'path = "{tmp}/ray"'))
                    from toolatlas.actors.coordinator import RayBuild

                    build = RayBuild(config, target, hosts=1)
                    reports[engine] = await build.run([target.server(name)], rounds=args.rounds)
            call_b, reset_b = await raw_rates(workspace, name, args.seconds)
        call_s, reset_s = (call_a + call_b) / 2, (reset_a + reset_b) / 2
        for engine, report in reports.items():
            build_seconds = sum(c.seconds for c in report.coverage)
            calls_per_probe = report.calls / report.probes
            # read-only probes need no reset: the limit charges a reset only to the probes that had one
            limit = 1 / (calls_per_probe * call_s + (report.resets / report.probes) * reset_s)
            rows.append({
                "server": name,
                "engine": engine,
                "probes": report.probes,
                "calls": report.calls,
                "build_probes_per_s": report.probes / build_seconds,
                "build_calls_per_s": report.calls / build_seconds,
                "raw_calls_per_s": 1 / call_s,
                "reset_ms": reset_s * 1000,
                "reset_share": report.resets / report.probes,
                "probe_limit_per_s": limit,
                "ratio_vs_raw_calls": (report.calls / build_seconds) * call_s,
                "ratio_vs_probe_limit": (report.probes / build_seconds) / limit,
            })
        print(f"  measured {name}", flush=True)
    print("\nbuild of one server at a time (one executor) vs the raw limits of the same server, same run")
    print(f"{'server':<11} {'engine':<8} {'probes':>7} {'resets':>7} {'probes/s':>9} {'calls/s':>8} {'raw calls/s':>12} {'reset ms':>9} "
          f"{'limit probes/s':>15} {'vs raw calls':>13} {'vs limit':>9}")
    for r in rows:
        print(f"{r['server']:<11} {r['engine']:<8} {r['probes']:>7} {r['reset_share']:7.0%} {r['build_probes_per_s']:9.1f} {r['build_calls_per_s']:8.1f} "
              f"{r['raw_calls_per_s']:12.0f} {r['reset_ms']:9.2f} {r['probe_limit_per_s']:15.1f} "
              f"{r['ratio_vs_raw_calls']:13.3f} {r['ratio_vs_probe_limit']:9.2f}")
    by = {(r["server"], r["engine"]): r for r in rows}
    pairs = [(by[(s, "ray")], by[(s, "asyncio")]) for s, e in by if e == "ray" and (s, "asyncio") in by]
    if pairs:
        print("ray / in-process probes/s: " + ", ".join(
            f"{r['server']} {r['build_probes_per_s'] / a['build_probes_per_s']:.2f}" for r, a in pairs))
    print(f"\nsaved {save('build_throughput', {'rounds': args.rounds, 'rows': rows})}")


if __name__ == "__main__":
    asyncio.run(main())
