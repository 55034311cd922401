"""The guidance service under load: requests/s and p50/p95/p99 latency per level of concurrent clients.

One run, one atlas (the demo catalogue's), one task mix (the tasks of
``toolatlas/evaluation/demo_tasks.toml``, cycled so consecutive requests differ):

* ``in-process``   ``Atlas.guide`` on one thread: the baseline every service figure is divided by;
* ``http``         ``POST /v1/guidance`` on ``toolatlas serve --transport http`` (uvicorn, one worker);
* ``mcp``          ``tools/call get_guidance`` on ``/mcp`` of that service (streamable HTTP, stateless,
                   JSON): the exact request the MCP SDK client sends (tests/serve drive the SDK itself);
  each with the guidance answer cache on and off (``--cache-size 0``: every answer is computed);
* ``http, 2 workers`` without the cache;
* ``ray-serve``    1 and 2 replicas behind Ray Serve's HAProxy ingress, without the cache
                   (``actors/serve.py``; run with ``RAY_SERVE_THROUGHPUT_OPTIMIZED=0
                   RAY_SERVE_ENABLE_HA_PROXY=0 ... --only ray --save-as guidance_load_serve_default``
                   to measure Serve's default proxy path instead).
* ``--only cli``   the ``toolatlas loadtest`` command against this benchmark's own generator on one
                   service, alternated per level: the two agree within the noise, and the command's
                   generator CPU per request is its overhead.

Each level runs N closed-loop clients on keep-alive connections (:mod:`toolatlas.loadtest`) in a
separate process, so the generator never steals the service's event loop; it does share the
machine's cores (its CPU µs per request are reported). A level is measured in consecutive windows
and reports the median window, so a burst of other work on the machine moves one window only.
The in-process baseline is measured the same way just before each configuration. Per
configuration: the best requests/s at p99 <= 50 ms, its ratio to the in-process baseline, and
the target (>= 500 req/s there).

    .venv/bin/python benchmarks/guidance_load.py [--export atlas.json | --config configs/demo.toml]
        [--levels 1,2,4,8,16,32,64] [--seconds 1] [--windows 3] [--warmup 0.5] [--only all|uvicorn|ray|cli]
        [--save-as NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402

from toolatlas.evaluation import DEMO_TASKS, load_tasks  # noqa: E402
from toolatlas.guidance.atlas import CACHE_SIZE  # noqa: E402
from toolatlas.loadtest import LevelResult, LoadGenerator, Target, http_target, mcp_target  # noqa: E402
from toolatlas.serve import ReplicaSettings, load_atlas, write_snapshot  # noqa: E402
from toolatlas.serve.process import ServiceProcess  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULT_EXPORT = REPO / ".toolatlas" / "atlas" / "demo" / "atlas.json"
TARGET_RPS, TARGET_P99_MS = 500.0, 50.0


@dataclass
class Sweep:
    """One configuration's levels, and the in-process baseline measured just before them."""

    name: str
    cached: bool
    baseline: dict
    levels: list[LevelResult]

    def best(self) -> LevelResult | None:
        """The level with the most requests/s among those with p99 within the target and no errors."""
        fine = [lv for lv in self.levels if lv.p99_ms <= TARGET_P99_MS and lv.error_count == 0]
        return max(fine, key=lambda lv: lv.rps, default=None)


@dataclass
class Run:
    """What every sweep of one run shares."""

    args: argparse.Namespace
    snapshot: Path
    tasks: list[str]
    generator: LoadGenerator
    in_process: InProcess


# -- the baseline --------------------------------------------------------------------------------


class InProcess:
    """``Atlas.guide`` called on this thread over the task mix, with and without the answer cache."""

    def __init__(self, snapshot: Path, tasks: list[str]) -> None:
        self.tasks = tasks
        self.atlases = {cached: load_atlas(atlas=snapshot, cache_size=CACHE_SIZE if cached else 0)
                        for cached in (True, False)}
        for task in tasks:  # warm: the cached atlas then answers from its cache, as a warmed service does
            self.atlases[True].guide(task)

    def measure(self, cached: bool, *, seconds: float, windows: int) -> dict:
        """Requests/s of the median window, and latency percentiles over all windows."""
        atlas, tasks = self.atlases[cached], self.tasks
        rates, latencies, index = [], [], 0
        for _ in range(windows):
            deadline, done = time.perf_counter() + seconds, 0
            while (started := time.perf_counter()) < deadline:
                atlas.guide(tasks[index % len(tasks)])
                latencies.append(time.perf_counter() - started)
                index, done = index + 1, done + 1
            rates.append(done / seconds)
        ordered = sorted(latencies)
        return {"rps": statistics.median(rates), "window_rps": [round(r) for r in rates],
                "p50_ms": ordered[len(ordered) // 2] * 1000, "p99_ms": ordered[int(0.99 * len(ordered))] * 1000}


# -- the services --------------------------------------------------------------------------------


def sweep(run: Run, name: str, cached: bool, target: Target) -> Sweep:
    """The levels of one configuration, after the in-process baseline with the same cache setting."""
    args = run.args
    baseline = run.in_process.measure(cached, seconds=args.seconds, windows=args.windows)
    print(f"\n{name} (in-process Atlas.guide just before: {baseline['rps']:.0f} req/s)")
    print(f"{'clients':>7} {'req/s':>8} {'windows':>11} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
          f"{'errors':>6} {'gen µs/req':>10} {'load':>5}", flush=True)
    levels = []
    for clients in args.levels:
        level = run.generator.level(target, clients, seconds=args.seconds, warmup=args.warmup, windows=args.windows)
        levels.append(level)
        spread = f"{min(level.window_rps):.0f}-{max(level.window_rps):.0f}"
        print(f"{clients:7d} {level.rps:8.0f} {spread:>11} {level.p50_ms:7.2f} {level.p95_ms:7.2f} {level.p99_ms:7.2f} "
              f"{level.error_count:6d} {level.generator_cpu_us:10.0f} {level.load_average:5.1f}", flush=True)
    return Sweep(name=name, cached=cached, baseline=baseline, levels=levels)


def uvicorn_sweeps(run: Run) -> list[Sweep]:
    sweeps = []
    for cached in (True, False):
        cache = [] if cached else ["--cache-size", "0"]
        with ServiceProcess("--atlas", str(run.snapshot), *cache, cwd=REPO) as service:
            label = "cache on" if cached else "cache off"
            sweeps.append(sweep(run, f"http, {label}", cached, http_target(service.url, run.tasks)))
            sweeps.append(sweep(run, f"mcp, {label}", cached, mcp_target(service.url, run.tasks)))
    with ServiceProcess("--atlas", str(run.snapshot), "--cache-size", "0", "--workers", "2", cwd=REPO) as service:
        sweeps.append(sweep(run, "http, cache off, 2 workers", False, http_target(service.url, run.tasks)))
    return sweeps


def ray_sweeps(run: Run) -> list[Sweep]:
    import ray
    from ray import serve

    from toolatlas.actors.serve import free_serve_port, start_serve  # first: it sets Serve's environment for ray.serve

    ray.init(address="local", include_dashboard=False, log_to_driver=False, _node_ip_address=os.environ.get("TOOLATLAS_RAY_NODE_IP"))
    sweeps = []
    try:
        for replicas in (1, 2):
            port = free_serve_port()
            start_serve(ReplicaSettings(snapshot=str(run.snapshot), cache_size=0), port=port, replicas=replicas)
            name = f"ray-serve http, cache off, {replicas} replica(s)"
            sweeps.append(sweep(run, name, False, http_target(f"http://127.0.0.1:{port}", run.tasks)))
            serve.shutdown()
    finally:
        ray.shutdown()
    return sweeps


def cli_agreement(run: Run) -> list[dict]:
    """``toolatlas loadtest`` (a process of its own, as a user runs it) against this benchmark's generator
    on the same service, alternated twice per level: their requests/s should agree within the noise,
    and the command's generator CPU per request is its overhead."""
    args, rows = run.args, []
    with tempfile.TemporaryDirectory(prefix="loadtest-tasks-") as scratch, \
            ServiceProcess("--atlas", str(run.snapshot), "--cache-size", "0", cwd=REPO) as service:
        tasks_file = Path(scratch) / "tasks.txt"
        tasks_file.write_text("\n".join(run.tasks) + "\n")
        target = http_target(service.url, run.tasks)
        print(f"\n`toolatlas loadtest` vs this benchmark's generator, http, cache off\n"
              f"{'clients':>7} {'bench req/s':>11} {'cli req/s':>9} {'cli/bench':>9} {'bench p99':>9} {'cli p99':>8} "
              f"{'cli gen µs/req':>14}", flush=True)
        for clients in args.levels:
            bench, cli = [], []
            for _ in range(2):
                bench.append(run.generator.level(target, clients, seconds=args.seconds, warmup=args.warmup,
                                                 windows=args.windows))
                cli.append(_loadtest_command(service.url, tasks_file, clients, args))
            bench_rps = statistics.median(lv.rps for lv in bench)
            cli_rps = statistics.median(lv["rps"] for lv in cli)
            row = {"clients": clients, "bench_rps": bench_rps, "cli_rps": cli_rps, "ratio": cli_rps / bench_rps,
                   "bench_p99_ms": statistics.median(lv.p99_ms for lv in bench),
                   "cli_p99_ms": statistics.median(lv["p99_ms"] for lv in cli),
                   "cli_generator_cpu_us": statistics.median(lv["generator_cpu_us"] for lv in cli)}
            rows.append(row)
            print(f"{clients:7d} {bench_rps:11.0f} {cli_rps:9.0f} {row['ratio']:9.3f} {row['bench_p99_ms']:9.2f} "
                  f"{row['cli_p99_ms']:8.2f} {row['cli_generator_cpu_us']:14.0f}", flush=True)
    return rows


def _loadtest_command(url: str, tasks_file: Path, clients: int, args: argparse.Namespace) -> dict:
    """One level measured by the ``toolatlas loadtest`` command; its JSON data's level."""
    out = tasks_file.parent / f"level-{clients}.html"
    subprocess.run(
        [str(Path(sys.executable).with_name("toolatlas")), "loadtest", url, "--tasks", str(tasks_file),
         "--concurrency", str(clients), "--duration", str(args.seconds * args.windows),
         "--windows", str(args.windows), "--warmup", str(args.warmup), "-o", str(out)],
        check=True, capture_output=True, text=True,
    )
    (level,) = json.loads(out.with_suffix(".json").read_text())["levels"]
    return level


# -- the run -------------------------------------------------------------------------------------


@contextmanager
def snapshot_of(args: argparse.Namespace) -> Iterator[Path]:
    if args.export:
        yield Path(args.export)
        return
    with tempfile.TemporaryDirectory(prefix="guidance-load-") as scratch:
        yield write_snapshot(load_atlas(args.config), Path(scratch) / "atlas.json")


def summary(sweeps: list[Sweep]) -> list[dict]:
    print(f"\n{'configuration':40} {'best req/s':>10} {'clients':>7} {'p99 ms':>7} {'in-process':>10} "
          f"{'ratio':>7} {'target':>6}")
    rows = []
    for s in sweeps:
        best = s.best()
        baseline = s.baseline["rps"]
        row = {"configuration": s.name, "cached": s.cached, "best_rps": best.rps if best else 0.0,
               "in_process_rps": baseline,
               "clients": best.clients if best else None, "p99_ms": best.p99_ms if best else None,
               "ratio_to_in_process": (best.rps / baseline) if best else 0.0,
               "target_met": bool(best and best.rps >= TARGET_RPS)}
        rows.append(row)
        print(f"{s.name:40} {row['best_rps']:10.0f} {row['clients'] or '-':>7} "
              f"{(row['p99_ms'] or float('nan')):7.2f} {baseline:10.0f} {row['ratio_to_in_process']:7.3f} "
              f"{'yes' if row['target_met'] else 'no':>6}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--export", help="atlas.json to serve (default: the demo atlas export, when built)")
    source.add_argument("--config", help="catalogue whose store to serve (default: configs/demo.toml)")
    parser.add_argument("--levels", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2, 4, 8, 16, 32, 64])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measured window")
    parser.add_argument("--windows", type=int, default=3, help="measured windows per level (the median is reported)")
    parser.add_argument("--warmup", type=float, default=0.5, help="seconds per level before measuring")
    parser.add_argument("--only", choices=["all", "uvicorn", "ray", "cli"], default="all",
                        help="which services to sweep; cli: `toolatlas loadtest` against this benchmark's generator")
    parser.add_argument("--save-as", default="guidance_load", help="results file name (benchmarks/results/NAME.json)")
    args = parser.parse_args()
    if args.export is None and args.config is None:
        args.export = str(DEFAULT_EXPORT) if DEFAULT_EXPORT.exists() else None
        args.config = None if args.export else str(REPO / "configs" / "demo.toml")

    tasks = [task.text for task in load_tasks(DEMO_TASKS)]
    with snapshot_of(args) as snapshot, LoadGenerator() as generator:
        run = Run(args=args, snapshot=snapshot, tasks=tasks, generator=generator, in_process=InProcess(snapshot, tasks))
        print(f"{len(tasks)} tasks, {os.cpu_count()} cores; every level: {args.windows} windows of {args.seconds:g} s "
              f"after {args.warmup:g} s, the median window reported")
        if args.only == "cli":
            rows = cli_agreement(run)
            print(f"\nsaved {save(args.save_as + '_cli', {'atlas': str(snapshot), 'levels': rows})}")
            return
        sweeps = uvicorn_sweeps(run) if args.only != "ray" else []
        if args.only != "uvicorn":
            sweeps += ray_sweeps(run)
    rows = summary(sweeps)
    path = save(args.save_as, {
        "atlas": str(snapshot), "tasks": len(tasks), "cores": os.cpu_count(),
        "window_s": args.seconds, "windows_per_level": args.windows, "warmup_s": args.warmup,
        "target": {"rps": TARGET_RPS, "p99_ms": TARGET_P99_MS},
        "ray_serve_environment": {k: v for k, v in os.environ.items() if k.startswith("RAY_SERVE_")},
        "summary": rows,
        "sweeps": [{"configuration": s.name, "cached": s.cached, "in_process": s.baseline,
                    "levels": [lv.model_dump() for lv in s.levels]} for s in sweeps],
    })
    print(f"\nsaved {path}")


if __name__ == "__main__":
    main()
