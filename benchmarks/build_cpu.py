"""Where a distributed build's CPU goes: CPU milliseconds per probe for each kind of process.

Builds a generated catalogue of real MCP servers (``toolatlas/testing/catalogues.py``) on a local
Ray instance while a thread samples the CPU time of every process under this one (the Ray
instance, its actors, their server processes), tells them apart by command line (the driver,
executor hosts, shard actors, the store owner, MCP servers, Ray's own processes), and keeps each
process's last reading (so a server that exits keeps what it used). Reported over the window the
physical limit is measured in — from the last server ready to the last batch back — as CPU ms per
probe per kind, next to the CPU the window offered (cores × seconds per probe). On this 2-core
machine the build is CPU-bound: what ToolAtlas spends per probe beside the servers is what keeps
it from the servers' own limit (``benchmarks/scale.py``). With ``--limit``, the limit's own loop
over the same servers is measured before and after the build, and all are set side by side per MCP
call: the servers' CPU, ToolAtlas's (the raw client in the limit; everything else in the build) and
the cores used.

    .venv/bin/python benchmarks/build_cpu.py [--servers 100] [--rounds 1] [--limit]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ProcessTreeSampler, save  # noqa: E402

from toolatlas.config import load_catalogue  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.testing.catalogues import SERVER_MODULE, generate_catalogue  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
KINDS = (
    ("ray::ExecutorHost", "executor hosts"),
    ("ray::ShardActor", "shard actors"),
    ("ray::StoreOwner", "store owner"),
    (SERVER_MODULE, "MCP servers"),
    ("raylet", "Ray (raylet, GCS, agents)"),
    ("gcs_server", "Ray (raylet, GCS, agents)"),
    ("ray", "Ray (raylet, GCS, agents)"),
)


class CpuSampler(ProcessTreeSampler):
    """CPU seconds used so far by each kind of process under this one."""

    def __init__(self, interval: float = 0.5) -> None:
        super().__init__(interval)
        self.used: dict[int, tuple[str, float]] = {}
        """pid → (kind, CPU seconds at its last reading)."""
        self.marks: dict[str, dict[str, float]] = {}
        """label → :meth:`totals` at the first sample after its condition held."""
        self._conditions: list[tuple[str, Callable[[], bool]]] = []

    def mark_when(self, label: str, condition: Callable[[], bool]) -> None:
        self._conditions.append((label, condition))

    def totals(self) -> dict[str, float]:
        """CPU seconds per kind, now."""
        out: dict[str, float] = {}
        for kind, seconds in list(self.used.values()):
            out[kind] = out.get(kind, 0.0) + seconds
        return out

    def _kind(self, process: psutil.Process) -> str | None:
        if process.pid == os.getpid():
            return "driver"
        try:
            command = " ".join(process.cmdline())
        except psutil.Error:
            return None
        if not command or "ray::IDLE" in command:
            return None  # exiting, or a worker not yet an actor: keep what it was
        return next((label for key, label in KINDS if key in command), "other")

    def sample(self, tree: list[psutil.Process]) -> None:
        for process in tree:
            try:
                times = process.cpu_times()
            except psutil.Error:
                continue
            known = self.used.get(process.pid)
            kind = self._kind(process) or (known[0] if known else "other")
            self.used[process.pid] = (kind, times.user + times.system)
        for label, condition in self._conditions:
            if label not in self.marks and condition():
                self.marks[label] = self.totals()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--topology", choices=["auto", "colocated", "split"], default="auto")
    parser.add_argument("--hosts", type=int, default=None, help="executor hosts (default: RayBuild's, 2 per node)")
    parser.add_argument("--limit", action="store_true",
                        help="measure the CPU per call of the physical limit's loop over the same servers before and "
                             "after the build (benchmarks/scale.py), to set the build's CPU per call beside it")
    parser.add_argument("--seconds", type=float, default=8.0, help="measuring time of each limit loop")
    args = parser.parse_args()
    configure_logging()
    os.environ.setdefault("TOOLATLAS_HOME", str(REPO / ".toolatlas"))

    import ray

    from toolatlas.actors.coordinator import RayBuild

    with tempfile.TemporaryDirectory() as tmp:
        config = generate_catalogue(args.servers, Path(tmp) / "catalogue")
        config.write_text(config.read_text().replace("[build]\n", "[build]\nrollouts_per_task = 1\n", 1))
        catalogue = load_catalogue(config)
        limit = limit_cpu(config, args.seconds, args.rounds) if args.limit else None
        ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.2", log_to_driver=False,
                 runtime_env={"env_vars": {"TOOLATLAS_HOME": os.environ["TOOLATLAS_HOME"]}})
        expected_rows = len(catalogue.servers) * (args.rounds + 1)
        rows_seen: list[object] = []
        try:
            with CpuSampler() as cpu:
                build = RayBuild(config, catalogue, topology=args.topology, hosts=args.hosts)
                cpu.mark_when("ready", lambda: len(build.ready_at) == len(catalogue.servers))
                cpu.mark_when("end", lambda: len(rows_seen) >= expected_rows)
                report = asyncio.run(build.run(catalogue.servers, rounds=args.rounds, on_round=rows_seen.append))
                time.sleep(2 * cpu.interval)
        finally:
            ray.shutdown()
        # the limit again after the build: the two readings bracket it (this machine drifts)
        after = limit_cpu(config, args.seconds, args.rounds) if args.limit else None
    start = max(build.ready_at.values())
    probes = build.probe_log.after(start)  # a batch or round under way at the start counts pro rata
    window = max(p.back for p in build.probe_log.batches) - start
    # readings at the first sample after the last server was ready and after the last round was
    # reported (half a second at most past each point; the sampling itself counts as the driver's)
    used = {kind: cpu.marks["end"].get(kind, 0.0) - cpu.marks["ready"].get(kind, 0.0) for kind in cpu.marks["end"]}
    cores = psutil.cpu_count()
    rows = sorted(((kind, 1000 * seconds / probes) for kind, seconds in used.items()), key=lambda r: -r[1])
    print(f"\n{args.servers} servers, {build.topology} topology: {report.probes} probes; {probes:.0f} after the last server was ready, in {window:.1f} s "
          f"({probes / window:.0f} probes/s); {cores} cores offer {1000 * cores * window / probes:.2f} CPU ms per probe")
    print(f"{'process kind':<28} {'CPU ms per probe':>17}")
    for kind, ms in rows:
        print(f"{kind:<28} {ms:17.2f}")
    print(f"{'all':<28} {sum(ms for _, ms in rows):17.2f}")
    result = {'servers': args.servers, 'topology': build.topology, 'rounds': args.rounds, 'probes': probes,
              'window_s': window, 'cpu_ms_per_probe': dict(rows)}
    if limit is not None:
        # per MCP call, the unit both share (the build's calls in the window: its probes × calls per probe)
        calls = probes * report.calls / report.probes
        servers = used.get("MCP servers", 0.0)
        build_row = (1000 * servers / calls, 1000 * (sum(used.values()) - servers) / calls, sum(used.values()) / window)
        print(f"\nCPU ms per MCP call      {'MCP servers':>12} {'ToolAtlas':>10} {'cores used':>11}")
        assert after is not None
        print(f"{'limit loop, before':<24} {limit['servers_ms']:12.2f} {limit['client_ms']:10.2f} {limit['cores']:11.2f}")
        print(f"{'build':<24} {build_row[0]:12.2f} {build_row[1]:10.2f} {build_row[2]:11.2f}")
        print(f"{'limit loop, after':<24} {after['servers_ms']:12.2f} {after['client_ms']:10.2f} {after['cores']:11.2f}")
        result["limit_cpu_ms_per_call"] = {"before": limit, "after": after}
        result["build_cpu_ms_per_call"] = {"servers_ms": build_row[0], "toolatlas_ms": build_row[1], "cores": build_row[2]}
    print(f"\nsaved {save('build_cpu', result)}")


def limit_cpu(config: Path, seconds: float, rounds: int) -> dict[str, float]:
    """CPU per call of the physical limit's loop over the build's own calls (``scale.physical_limit``'s
    ``mix`` loop: all servers busy, calls replayed raw, resets where the build resets): its MCP
    servers' share, this process's (the raw client and the resets), and the cores used."""
    from scale import physical_limit

    me = psutil.Process()
    readings: dict[bool, tuple[float, float]] = {}

    def tree() -> tuple[float, float]:
        own, servers = sum(me.cpu_times()[:2]), 0.0
        for child in me.children(recursive=True):
            try:
                servers += sum(child.cpu_times()[:2])
            except psutil.Error:
                pass
        return own, servers

    def on_loop(name: str, ended: bool) -> None:
        if name == "mix":
            readings[ended] = tree()

    limit = asyncio.run(physical_limit(config, seconds, rounds, on_loop=on_loop))
    (own0, servers0), (own1, servers1) = readings[False], readings[True]
    calls = limit["mix_calls"]
    return {"servers_ms": 1000 * (servers1 - servers0) / calls, "client_ms": 1000 * (own1 - own0) / calls,
            "cores": (own1 - own0 + servers1 - servers0) / limit["mix_wall_s"], "calls": calls}


if __name__ == "__main__":
    main()
