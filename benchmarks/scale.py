"""Scale: a generated catalogue of real MCP server processes built in one Ray job, 10 → 50 → 100 servers.

For each size, in one process: (1) the physical limit of the same servers — every server's
sandbox started at once (timed), then all of them loop concurrently for a few seconds over their
smoke call alone (the raw call rate of a cheap read: read-only work needs no reset), over [smoke
call; reset] (the same with the environment reset rate; a reset as the build does it,
``Sandbox.restore``) and over the calls of their own bootstrap probes replayed raw (the build's
call mix: refusals cost a server about twice a plain read); (2) the Ray build of the catalogue
(bootstrap + R rounds); (3) optionally the in-process build. The limit of the build's own work
is its calls at the raw rate of its call mix plus its resets (only probes that changed state are
reset) at the reset cost; end to end it adds the servers' start. Reported: wall time, probes/s,
the ratios against the limit (end to end, and the probing window: first server ready → last
round's end; also against the smoke-call limit, the stricter and less faithful one) and against
the in-process build, peak memory per executor host (the host process plus its server processes)
and in total (the driver and everything under it), and how wall time grows.

    .venv/bin/python benchmarks/scale.py [--sizes 10 50 100] [--rounds 1] [--repeat N] [--bracket] [--cold-pass] [--in-process]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ProcessTreeSampler, save  # noqa: E402

from toolatlas.config import load_catalogue  # noqa: E402
from toolatlas.environments import render_value  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.pipeline import TOPOLOGIES  # noqa: E402
from toolatlas.testing.catalogues import generate_catalogue  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


class MemorySampler(ProcessTreeSampler):
    """Peak RSS of each executor host (with its children) and of this process tree.

    Cheap on purpose (it shares the 2 cores with the build it measures): a process's kind is read
    from its command line once, and the tree is walked once a second.
    """

    def __init__(self, interval: float = 1.0) -> None:
        super().__init__(interval)
        self.peak_total = 0
        self.peak_host = 0
        self.peak_hosts_sum = 0
        self._hosts: dict[int, bool] = {}

    def _is_host(self, process: psutil.Process) -> bool:
        if process.pid not in self._hosts:
            command = " ".join(_cmdline(process))
            if not command.startswith("ray::") or "IDLE" in command:  # not (yet) an actor: ask again later
                return False
            self._hosts[process.pid] = "ExecutorHost" in command
        return self._hosts[process.pid]

    def sample(self, tree: list[psutil.Process]) -> None:
        rss = {p.pid: _rss(p) for p in tree}
        per_host = [rss[h.pid] + sum(rss.get(c.pid, 0) for c in _children(h)) for h in tree if self._is_host(h)]
        self.peak_total = max(self.peak_total, sum(rss.values()))
        if per_host:
            self.peak_host = max(self.peak_host, max(per_host))
            self.peak_hosts_sum = max(self.peak_hosts_sum, sum(per_host))


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


async def physical_limit(
    config: Path, seconds: float, rounds: int, on_loop: Callable[[str, bool], None] | None = None,
    *, cold_pass: bool = False,
) -> dict[str, float]:
    """The physical limit of the catalogue's servers, each in its own sandbox, all started at once
    as the build starts them (timed), then all looping concurrently for ``seconds`` per loop:

    - ``smoke``: each server's smoke call alone (the raw call rate of a cheap read);
    - ``smoke_reset``: [smoke call; reset] (the same with the environment reset rate);
    - ``mix``: the build's own calls, replayed raw in order, with a reset after every probe whose
      tools are not all read-only. The probes are the build's: the same seed plans the same probes
      (an in-process build of rounds 0..R-1 before the loops, untimed, gives the last round's plan).
      Calls differ in cost: a refusal costs a server about twice a plain read.

    The raw cost of one call of the build's mix is then the mix loop's time less its resets at
    the reset cost, per call. ``on_loop(name, ended)`` is called as each loop starts and ends
    (``benchmarks/build_cpu.py`` reads CPU times there).

    With ``cold_pass``, the loops' servers are then stopped and fresh ones started, and every server
    replays its own probes once, in order, all servers at once (``pass_*``): the build's work done raw
    by servers as cold as the build's. The loops above run warm servers (planning called every tool
    already), which on these servers cost ~10% less CPU per call than a first pass.
    """
    from toolatlas.pipeline.shard import ServerShard
    from toolatlas.probing.executor import Executor

    workspace = Workspace(load_catalogue(config))
    sandboxes = [workspace.sandbox(spec) for spec in workspace.catalogue.servers]
    executors = [Executor(sandbox, sandbox.spec.name) for sandbox in sandboxes]
    t0 = time.perf_counter()
    await asyncio.gather(*(e.start() for e in executors))
    started = time.perf_counter() - t0
    plans: dict[str, list[tuple[list[tuple[str, object]], bool]]] = {}

    async def plan_rounds(executor: Executor) -> None:
        sandbox = executor.sandbox
        shard = ServerShard(workspace, sandbox.spec, workspace.catalogue.build)
        shard.prepare(sandbox.tools)
        read_only = {t.name for t in sandbox.tools if t.annotations.read_only}
        plans[sandbox.spec.name] = []
        for round_ in range(rounds + 1):
            probes = shard.plan(round_)
            plans[sandbox.spec.name] += [
                ([(step.tool, step.arguments) for step in probe.steps], not all(s.tool in read_only for s in probe.steps))
                for probe in probes
            ]
            if round_ < rounds:
                for probe in probes:
                    shard.absorb(*await executor.run_verified(probe))
                shard.finish_round(round_, 0.0)

    await asyncio.gather(*(plan_rounds(e) for e in executors))
    try:
        counts: dict[str, tuple[int, int, float]] = {}
        for loop_name in ("smoke_reset", "smoke", "mix"):
            calls = resets = 0
            deadline = time.perf_counter() + seconds

            async def loop(sandbox, loop_name: str = loop_name, deadline: float = deadline) -> None:
                nonlocal calls, resets
                spec = sandbox.spec
                variables = sandbox.variables()
                if loop_name == "mix":
                    # every probe starts from the snapshot (mutating ones are reset after), so the order
                    # is free: shuffled, a few seconds sample all the build's rounds, not the first only
                    probes = list(plans[spec.name])
                    random.Random(spec.name).shuffle(probes)
                else:
                    probes = [([(spec.smoke.tool, spec.smoke.arguments)], loop_name == "smoke_reset")]
                while time.perf_counter() < deadline:
                    for steps, mutating in probes:
                        made = await _replay(sandbox, steps, mutating, variables)  # not `calls += await`:
                        calls += made  # that reads `calls` before the await, losing other loops' counts
                        resets += mutating
                        if time.perf_counter() >= deadline:
                            break
                if loop_name == "mix":
                    await sandbox.restore()  # not counted: leaves the state as the build finds it

            if on_loop is not None:
                on_loop(loop_name, False)
            t0 = time.perf_counter()
            await asyncio.gather(*(loop(s) for s in sandboxes))
            counts[loop_name] = (calls, resets, time.perf_counter() - t0)
            if on_loop is not None:
                on_loop(loop_name, True)
    finally:
        await asyncio.gather(*(s.close() for s in sandboxes), return_exceptions=True)
    smoke_calls, _, smoke_wall = counts["smoke"]
    call_s = smoke_wall / smoke_calls
    ops, _, ops_wall = counts["smoke_reset"]
    reset_s = max(0.0, ops_wall / ops - call_s)
    mix_calls, mix_resets, mix_wall = counts["mix"]
    mix_call_s = max(1e-9, (mix_wall - mix_resets * reset_s) / mix_calls)
    passed = await _cold_pass(workspace, plans) if cold_pass else {}
    return {
        **passed,
        "start_s": started,
        "read_calls_per_s": 1 / call_s,
        "probe_ops_per_s": ops / ops_wall,
        "reset_s": reset_s,
        "mix_calls_per_s": 1 / mix_call_s,
        "mix_reset_share": mix_resets / max(1, mix_calls),
        "mix_calls": mix_calls,
        "mix_resets": mix_resets,
        "mix_wall_s": mix_wall,
    }


async def _replay(sandbox, steps: list[tuple[str, object]], mutating: bool, variables: dict[str, str]) -> int:
    """One probe's calls replayed raw, then a reset if it calls a tool not marked read-only; its calls."""
    for tool, arguments in steps:
        await sandbox.call(tool, render_value(arguments, variables))
    if mutating:
        await sandbox.restore()
    return len(steps)


async def _cold_pass(workspace: Workspace, plans: dict[str, list[tuple[list[tuple[str, object]], bool]]]) -> dict[str, float]:
    """Fresh servers each replay their own probes once, in order, concurrently; a reset after every
    probe that calls a tool not marked read-only (the caller charges resets beyond the build's)."""
    sandboxes = [workspace.sandbox(spec) for spec in workspace.catalogue.servers]
    await asyncio.gather(*(s.start() for s in sandboxes))
    calls = resets = 0

    async def one_pass(sandbox) -> None:
        nonlocal calls, resets
        variables = sandbox.variables()
        for steps, mutating in plans[sandbox.spec.name]:
            made = await _replay(sandbox, steps, mutating, variables)
            calls += made
            resets += mutating

    try:
        t0 = time.perf_counter()
        await asyncio.gather(*(one_pass(s) for s in sandboxes))
        wall = time.perf_counter() - t0
    finally:
        await asyncio.gather(*(s.close() for s in sandboxes), return_exceptions=True)
    return {"pass_wall_s": wall, "pass_calls": calls, "pass_resets": resets}


def ray_build(
    config: Path, rounds: int, topology: str = "auto"
) -> tuple[object, MemorySampler, float, tuple[float, int, float] | None]:
    import ray

    from toolatlas.actors.coordinator import RayBuild

    catalogue = load_catalogue(config)
    ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.2", log_to_driver=False,
             runtime_env={"env_vars": {"TOOLATLAS_HOME": os.environ["TOOLATLAS_HOME"]}})
    try:
        with MemorySampler() as memory:
            t0 = time.perf_counter()
            build = RayBuild(config, catalogue, topology=topology)
            report = asyncio.run(build.run(catalogue.servers, rounds=rounds))
            wall = time.perf_counter() - t0
            ready_rate = all_ready_rate(build)
    finally:
        ray.shutdown()
    return report, memory, wall, ready_rate


def all_ready_rate(build) -> tuple[float, int, float] | None:
    """(probes/s, probes, probes/s pro rata) once every server is running: from the last server
    ready to the last batch back — the window the limit's loops measure (all servers started, all
    busy). Before it, the build shares the cores with the servers still starting; the tail after
    the busiest phase, as servers finish one by one, stays in. Probes count by the end times the
    hosts report (``ProbeLog.after``); the pro rata figure (a batch or round under way at
    the start spread evenly over its span: it counts short) is kept for comparison with earlier
    figures. None when too little of the build falls in the window."""
    if not build.ready_at or not build.probe_log.batches:
        return None
    start = max(build.ready_at.values())
    probes = build.probe_log.after(start)
    if probes < 0.25 * build.probe_log.probes:
        return None
    window = max(p.back for p in build.probe_log.batches) - start
    return probes / window, round(probes), build.probe_log.after(start, exact=False) / window


def in_process_build(config: Path, rounds: int) -> tuple[object, float]:
    from toolatlas.pipeline.catalogue import build_catalogue
    from toolatlas.store.paths import open_store

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
    parser.add_argument("--seconds", type=float, default=8.0, help="measuring time of the physical limit")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per size (limit and build each time): the machine is noisy, read the medians")
    parser.add_argument("--bracket", action="store_true",
                        help="measure the limit again after the build and use the mean of the two (drift shows the noise)")
    parser.add_argument("--cold-pass", action="store_true",
                        help="also the limit of one raw pass of the build's probes over freshly started servers")
    parser.add_argument("--in-process", action="store_true", help="also build in-process, for the ratio")
    parser.add_argument("--topology", choices=TOPOLOGIES, default="auto",
                        help="the Ray build's topology (actors/coordinator.py)")
    args = parser.parse_args()
    configure_logging()
    os.environ.setdefault("TOOLATLAS_HOME", str(REPO / ".toolatlas"))
    rows = []
    for size in args.sizes:
        for run in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                config = generate_catalogue(size, Path(tmp) / "catalogue")
                # offline seed tasks are deterministic: one rollout each is enough at scale
                config.write_text(config.read_text().replace("[build]\n", "[build]\nrollouts_per_task = 1\n", 1))
                limit = asyncio.run(physical_limit(config, args.seconds, args.rounds, cold_pass=args.cold_pass))
                report, memory, wall, ready_rate = ray_build(config, args.rounds, args.topology)
                drift = None
                if args.bracket:  # the limit again after the build: the mean of the two brackets it
                    after = asyncio.run(physical_limit(config, args.seconds, args.rounds, cold_pass=args.cold_pass))
                    drift = after["mix_calls_per_s"] / limit["mix_calls_per_s"]
                    limit = {key: (limit[key] + after[key]) / 2 for key in limit}
                reset_s = limit["reset_s"]
                # the build's own calls at the raw rate of its call mix, and its resets at the reset cost
                limit_work_s = report.calls / limit["mix_calls_per_s"] + report.resets * reset_s
                smoke_work_s = report.calls / limit["read_calls_per_s"] + report.resets * reset_s
                row = {
                    "servers": size,
                    "run": run + 1,
                    "ok": sum(1 for s in report.servers.values() if s == "ok"),
                    "probes": report.probes,
                    "calls": report.calls,
                    "resets": report.resets,
                    "wall_s": wall,
                    "build_s": report.seconds,
                    "probing_s": report.probing_seconds,
                    "probes_per_s": report.probes / report.seconds,
                    "steady_probes_per_s": report.probes / report.probing_seconds,
                    "limit_probe_ops_per_s": limit["probe_ops_per_s"],
                    "limit_read_calls_per_s": limit["read_calls_per_s"],
                    "limit_mix_calls_per_s": limit["mix_calls_per_s"],
                    "limit_reset_ms": reset_s * 1000,
                    "limit_work_s": limit_work_s,
                    "limit_probes_per_s": report.probes / limit_work_s,
                    "ratio_vs_limit": limit_work_s / report.probing_seconds,
                    "ratio_vs_smoke_limit": smoke_work_s / report.probing_seconds,
                    "all_ready_probes": ready_rate[1] if ready_rate else None,
                    "all_ready_probes_per_s": ready_rate[0] if ready_rate else None,
                    "ratio_all_ready_vs_limit": ready_rate[0] / (report.probes / limit_work_s) if ready_rate else None,
                    "ratio_all_ready_pro_rata_vs_limit":
                        ready_rate[2] / (report.probes / limit_work_s) if ready_rate else None,
                    "limit_start_s": limit["start_s"],
                    "limit_drift": drift,
                    "limit_end_to_end_s": limit["start_s"] + limit_work_s,
                    "ratio_end_to_end": (limit["start_s"] + limit_work_s) / report.seconds,
                    "peak_mib_per_host": memory.peak_host / 2**20,
                    "peak_mib_hosts": memory.peak_hosts_sum / 2**20,
                    "peak_mib_total": memory.peak_total / 2**20,
                }
                if args.cold_pass:
                    # the pass resets after every probe with a tool not marked read-only: charge only the build's
                    pass_work_s = limit["pass_wall_s"] - (limit["pass_resets"] - report.resets) * reset_s
                    row["limit_pass_probes_per_s"] = report.probes / pass_work_s
                    row["ratio_all_ready_vs_pass"] = (ready_rate[0] / row["limit_pass_probes_per_s"]) if ready_rate else None
                if args.in_process:
                    local, local_wall = in_process_build(config, args.rounds)
                    row["in_process_probes_per_s"] = local.probes / local.seconds
                    row["ratio_vs_in_process"] = row["probes_per_s"] / row["in_process_probes_per_s"]
                    row["in_process_wall_s"] = local_wall
                rows.append(row)
                print(f"  {size} servers (run {run + 1}/{args.repeat}): {report.probes} probes in {report.seconds:.0f}s, "
                      f"vs e2e {row['ratio_end_to_end']:.2f}, all-ready vs limit {row['ratio_all_ready_vs_limit'] or float('nan'):.2f}"
                      f" (pro rata {row['ratio_all_ready_pro_rata_vs_limit'] or float('nan'):.2f})"
                      + (f", vs a cold pass {row['ratio_all_ready_vs_pass'] or float('nan'):.2f}" if args.cold_pass else "")
                      + (f" (limit after / before the build: {drift:.2f})" if drift else ""), flush=True)
    print("\nRay build of generated catalogues (bootstrap + rounds; one executor per server)")
    print("(limit = the build's calls at the raw rate of its call mix and its resets at the reset cost, all servers")
    print(" busy at once; e2e adds starting every server at once; steady = probes/s from the first server ready to")
    print(" the last round's end; all-ready = probes/s from the last server ready to the last batch back, the")
    print(" limit's own window; 'vs smoke' charges every call at the smoke call's raw rate instead)")
    print(f"{'servers':>7} {'ok':>4} {'probes':>7} {'calls':>6} {'resets':>6} {'build s':>8} {'limit e2e s':>11} "
          f"{'vs e2e':>7} {'probes/s':>9} {'steady/s':>9} {'limit/s':>8} {'vs limit':>9} {'vs smoke':>9} "
          f"{'all-ready/s':>11} {'vs limit':>9} "
          f"{'vs in-proc':>10} {'MiB/host':>9} {'MiB hosts':>10} {'MiB total':>10} {'s/server':>9}")
    for r in rows:
        print(f"{r['servers']:>7} {r['ok']:>4} {r['probes']:>7} {r['calls']:>6} {r['resets']:>6} {r['build_s']:8.1f} "
              f"{r['limit_end_to_end_s']:11.1f} {r['ratio_end_to_end']:7.2f} {r['probes_per_s']:9.1f} "
              f"{r['steady_probes_per_s']:9.1f} {r['limit_probes_per_s']:8.1f} {r['ratio_vs_limit']:9.2f} "
              f"{r['ratio_vs_smoke_limit']:9.2f} {r['all_ready_probes_per_s'] or float('nan'):11.1f} "
              f"{r['ratio_all_ready_vs_limit'] or float('nan'):9.2f} {r.get('ratio_vs_in_process', float('nan')):10.2f} "
              f"{r['peak_mib_per_host']:9.0f} {r['peak_mib_hosts']:10.0f} {r['peak_mib_total']:10.0f} "
              f"{r['build_s'] / r['servers']:9.2f}")
    if args.repeat > 1:
        for size in args.sizes:
            runs = [r for r in rows if r["servers"] == size]
            for key, label in (("ratio_end_to_end", "vs e2e"), ("ratio_all_ready_vs_limit", "all-ready vs limit"),
                               ("ratio_all_ready_pro_rata_vs_limit", "all-ready (pro rata) vs limit"),
                               ("ratio_all_ready_vs_pass", "all-ready vs a cold pass")):
                values = sorted(r[key] for r in runs if r.get(key) is not None)
                if values:
                    print(f"{size} servers, {label}: median {statistics.median(values):.2f} "
                          f"({values[0]:.2f}–{values[-1]:.2f} over {len(values)} runs)")
    if len(args.sizes) > 1:
        first = next(r for r in rows if r["servers"] == args.sizes[0])
        last = next(r for r in rows if r["servers"] == args.sizes[-1])
        growth = (last["build_s"] / first["build_s"]) / (last["servers"] / first["servers"])
        print(f"time growth {first['servers']} → {last['servers']} servers: ×{last['build_s'] / first['build_s']:.2f} "
              f"for ×{last['servers'] / first['servers']:.0f} servers (≤ 1 is linear or better: {growth:.2f})")
    print(f"\nsaved {save('scale', {'rounds': args.rounds, 'rows': rows})}")


if __name__ == "__main__":
    main()
