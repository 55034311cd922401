"""Scale: a generated catalogue of real MCP server processes built in one Ray job, 10 → 50 → 100 servers.

For each size, in one process: (1) the physical limit of the same servers — every server's
sandbox started at once (timed), then all of them loop concurrently for a few seconds over their
smoke call alone (the raw call rate: read-only work needs no reset) and over [smoke call; reset]
(the same with the environment reset rate; a reset as the build does it, ``Sandbox.restore``);
(2) the Ray build of the catalogue (bootstrap + R rounds); (3) optionally the in-process build.
The limit of the build's own work is its calls at the raw call rate plus its resets (only probes
that changed state are reset) at the reset cost the two loops imply; end to end it adds the
servers' start. Reported: wall time, probes/s, the ratios against the limit (end to end, and the
probing window: first server ready → last round's end) and against the in-process build, peak
memory per executor host (the host process plus its server processes) and in total (the driver
and everything under it), and how wall time grows.

    .venv/bin/python benchmarks/scale.py [--sizes 10 50 100] [--rounds 1] [--in-process]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402

from toolatlas.config import load_catalogue  # noqa: E402
from toolatlas.environments import render_value  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.testing.catalogues import generate_catalogue  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


class MemorySampler:
    """Peak RSS of each executor host (with its children) and of this process tree, sampled in a thread."""

    def __init__(self, interval: float = 0.5) -> None:
        self.interval = interval
        self.peak_total = 0
        self.peak_host = 0
        self.peak_hosts_sum = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            try:
                tree = [me, *me.children(recursive=True)]
                total = sum(_rss(p) for p in tree)
                hosts = [p for p in tree if "ExecutorHost" in " ".join(_cmdline(p))]
                per_host = [_rss(h) + sum(_rss(c) for c in _children(h)) for h in hosts]
                self.peak_total = max(self.peak_total, total)
                if per_host:
                    self.peak_host = max(self.peak_host, max(per_host))
                    self.peak_hosts_sum = max(self.peak_hosts_sum, sum(per_host))
            except psutil.Error:
                pass
            self._stop.wait(self.interval)


def _rss(process: psutil.Process) -> int:
    try:
        return process.memory_info().rss
    except psutil.Error:
        return 0


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def _children(process: psutil.Process) -> list[psutil.Process]:
    try:
        return process.children(recursive=True)
    except psutil.Error:
        return []


async def physical_limit(config: Path, seconds: float) -> tuple[float, float, float]:
    """(seconds to start every server, call+reset ops/s, read-only calls/s), each server in its own
    sandbox, all started at once as the build starts them."""
    workspace = Workspace(load_catalogue(config))
    sandboxes = [workspace.sandbox(spec) for spec in workspace.catalogue.servers]
    t0 = time.perf_counter()
    await asyncio.gather(*(s.start() for s in sandboxes))
    started = time.perf_counter() - t0
    try:
        rates = []
        for reset in (True, False):
            count = 0
            deadline = time.perf_counter() + seconds

            async def loop(sandbox) -> None:
                nonlocal count
                spec = sandbox.spec
                arguments = render_value(spec.smoke.arguments, sandbox.variables())
                while time.perf_counter() < deadline:
                    await sandbox.call(spec.smoke.tool, arguments)
                    if reset:
                        await sandbox.restore()
                    count += 1

            t0 = time.perf_counter()
            await asyncio.gather(*(loop(s) for s in sandboxes))
            rates.append(count / (time.perf_counter() - t0))
        return started, rates[0], rates[1]
    finally:
        await asyncio.gather(*(s.close() for s in sandboxes), return_exceptions=True)


def ray_build(config: Path, rounds: int) -> tuple[object, MemorySampler, float]:
    import ray

    from actors.coordinator import RayBuild

    catalogue = load_catalogue(config)
    ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.2", log_to_driver=False,
             runtime_env={"env_vars": {"TOOLATLAS_HOME": os.environ["TOOLATLAS_HOME"]}})
    try:
        with MemorySampler() as memory:
            t0 = time.perf_counter()
            build = RayBuild(config, catalogue)
            report = asyncio.run(build.run(catalogue.servers, rounds=rounds))
            wall = time.perf_counter() - t0
    finally:
        ray.shutdown()
    return report, memory, wall


def in_process_build(config: Path, rounds: int) -> tuple[object, float]:
    from toolatlas.build.catalogue import build_catalogue, open_store

    catalogue = load_catalogue(config)
    store = open_store(catalogue)
    try:
        t0 = time.perf_counter()
        report = asyncio.run(build_catalogue(Workspace(catalogue), store, rounds=rounds, parallel_servers=16))
        return report, time.perf_counter() - t0
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=4.0, help="measuring time of the physical limit")
    parser.add_argument("--in-process", action="store_true", help="also build in-process, for the ratio")
    args = parser.parse_args()
    configure_logging()
    os.environ.setdefault("TOOLATLAS_HOME", str(REPO / ".toolatlas"))
    rows = []
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            config = generate_catalogue(size, Path(tmp) / "catalogue")
            # offline seed tasks are deterministic: one rollout each is enough at scale
            config.write_text(config.read_text().replace("[build]\n", "[build]\nrollouts_per_task = 1\n", 1))
            start_s, limit_ops, limit_reads = asyncio.run(physical_limit(config, args.seconds))
            report, memory, wall = ray_build(config, args.rounds)
            call_s = 1 / limit_reads
            reset_s = max(0.0, 1 / limit_ops - call_s)
            limit_work_s = report.calls * call_s + report.resets * reset_s
            row = {
                "servers": size,
                "ok": sum(1 for s in report.servers.values() if s == "ok"),
                "probes": report.probes,
                "calls": report.calls,
                "resets": report.resets,
                "wall_s": wall,
                "build_s": report.seconds,
                "probing_s": report.probing_seconds,
                "probes_per_s": report.probes / report.seconds,
                "steady_probes_per_s": report.probes / report.probing_seconds,
                "limit_probe_ops_per_s": limit_ops,
                "limit_read_calls_per_s": limit_reads,
                "limit_reset_ms": reset_s * 1000,
                "limit_work_s": limit_work_s,
                "limit_probes_per_s": report.probes / limit_work_s,
                "ratio_vs_limit": limit_work_s / report.probing_seconds,
                "limit_start_s": start_s,
                "limit_end_to_end_s": start_s + limit_work_s,
                "ratio_end_to_end": (start_s + limit_work_s) / report.seconds,
                "peak_mib_per_host": memory.peak_host / 2**20,
                "peak_mib_hosts": memory.peak_hosts_sum / 2**20,
                "peak_mib_total": memory.peak_total / 2**20,
            }
            if args.in_process:
                local, local_wall = in_process_build(config, args.rounds)
                row["in_process_probes_per_s"] = local.probes / local.seconds
                row["ratio_vs_in_process"] = row["probes_per_s"] / row["in_process_probes_per_s"]
                row["in_process_wall_s"] = local_wall
            rows.append(row)
            print(f"  {size} servers: {report.probes} probes in {report.seconds:.0f}s", flush=True)
    print("\nRay build of generated catalogues (bootstrap + rounds; one executor per server)")
    print("(limit e2e = start every server at once + the build's calls at the raw call rate and its resets at the")
    print(" reset cost, all servers busy at once; steady = probes/s from the first server ready to the last round's")
    print(" end, against the limit's probes/s for the same calls and resets)")
    print(f"{'servers':>7} {'ok':>4} {'probes':>7} {'calls':>6} {'resets':>6} {'build s':>8} {'limit e2e s':>11} "
          f"{'vs e2e':>7} {'probes/s':>9} {'steady/s':>9} {'limit/s':>8} {'vs limit':>9} {'vs in-proc':>10} "
          f"{'MiB/host':>9} {'MiB hosts':>10} {'MiB total':>10} {'s/server':>9}")
    for r in rows:
        print(f"{r['servers']:>7} {r['ok']:>4} {r['probes']:>7} {r['calls']:>6} {r['resets']:>6} {r['build_s']:8.1f} "
              f"{r['limit_end_to_end_s']:11.1f} {r['ratio_end_to_end']:7.2f} {r['probes_per_s']:9.1f} "
              f"{r['steady_probes_per_s']:9.1f} {r['limit_probes_per_s']:8.1f} {r['ratio_vs_limit']:9.2f} "
              f"{r.get('ratio_vs_in_process', float('nan')):10.2f} "
              f"{r['peak_mib_per_host']:9.0f} {r['peak_mib_hosts']:10.0f} {r['peak_mib_total']:10.0f} "
              f"{r['build_s'] / r['servers']:9.2f}")
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        growth = (last["build_s"] / first["build_s"]) / (last["servers"] / first["servers"])
        print(f"time growth {first['servers']} → {last['servers']} servers: ×{last['build_s'] / first['build_s']:.2f} "
              f"for ×{last['servers'] / first['servers']:.0f} servers (≤ 1 is linear or better: {growth:.2f})")
    print(f"\nsaved {save('scale', {'rounds': args.rounds, 'rows': rows})}")


if __name__ == "__main__":
    main()
