"""The Ray build on a real local Ray instance and a real two-node cluster.

Same seed, same atlas: the Ray engine equals the in-process engine in every topology (colocated:
a server's host plans and absorbs its probes; split: shard actors do; pools: as split, with the
rollouts verified by a verifier pool of their own); killing an executor host, a shard or the
verifier hosts mid-build changes nothing in the final atlas; a server that cannot start is reported
while the others complete; `ray job submit` to a two-node cluster runs executors on both nodes.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from toolatlas.actors.coordinator import RayBuild, answer  # noqa: E402
from toolatlas.config import load_catalogue  # noqa: E402
from toolatlas.errors import ConfigError, WorkerError  # noqa: E402
from toolatlas.home import Home  # noqa: E402
from toolatlas.pipeline.catalogue import build_catalogue  # noqa: E402
from toolatlas.store.paths import AtlasPaths, open_store  # noqa: E402
from toolatlas.testing import faulty_server_command, hostile_server_command  # noqa: E402
from toolatlas.testing.kills import BuildKilled, KillingFiles, KillingWriter, KillSwitch  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
HOME = REPO / ".toolatlas"


def demo_copy(tmp: Path, name: str) -> Path:
    """The demo catalogue with its atlas in ``tmp/name`` and each seed task run once: what the engines
    must agree on does not depend on how often a seed task is repeated."""
    text = (REPO / "configs" / "demo.toml").read_text()
    text = text.replace('path = "../.toolatlas/atlas/demo"', f'path = "{tmp / name}"')
    text = text.replace("rollouts_per_task = 4", "rollouts_per_task = 1")
    assert str(tmp / name) in text and "rollouts_per_task = 1" in text, (
        "configs/demo.toml's store path or rollouts moved: update this helper (it must not build into the demo's store)")
    path = tmp / f"{name}.toml"
    path.write_text(text)
    return path


def entries_of(config: Path) -> dict:
    store = open_store(load_catalogue(config))
    try:
        return {e.id: (e.support, e.transitions) for e in store.all("entries")}
    finally:
        store.close()


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    os.environ["TOOLATLAS_HOME"] = str(HOME)
    ray.init(address="local", include_dashboard=False, num_cpus=2, _node_ip_address="127.0.0.2",
             runtime_env={"env_vars": {"TOOLATLAS_HOME": str(HOME)}}, log_to_driver=False)
    yield
    ray.shutdown()
    os.environ.pop("TOOLATLAS_HOME", None)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The in-process build of memory + time, bootstrap + 1 round."""
    tmp = tmp_path_factory.mktemp("reference")
    config = demo_copy(tmp, "reference")
    catalogue = load_catalogue(config)
    store = open_store(catalogue)
    try:
        asyncio.run(build_catalogue(Workspace(catalogue, Home(HOME)), store,
                                    servers=[catalogue.server("memory"), catalogue.server("time")], rounds=1))
    finally:
        store.close()
    return entries_of(config)


def ray_build(
    config: Path, *, sabotage=None, watch=None, servers=("memory", "time"), rounds: int = 1, topology: str = "auto"
):
    """Build ``servers`` on the local Ray instance; ``sabotage(build, row)`` runs on every coverage
    row, ``watch(build)`` in a thread while the build runs."""
    catalogue = load_catalogue(config)
    build = RayBuild(config, catalogue, hosts=2, topology=topology)

    def on_round(row) -> None:
        if sabotage is not None:
            sabotage(build, row)

    watcher = threading.Thread(target=watch, args=(build,), daemon=True) if watch is not None else None
    if watcher is not None:
        watcher.start()
    report = asyncio.run(build.run([catalogue.server(s) for s in servers], rounds=rounds, on_round=on_round))
    if watcher is not None:
        watcher.join(timeout=10)
    assert build.topology == ("colocated" if topology == "auto" else topology)
    return report, build


def wait_until_ready(build: RayBuild, server: str, timeout: float = 120) -> None:
    """Block (in a watcher thread) until ``server`` is ready to probe: its first round is about to run."""
    deadline = time.monotonic() + timeout
    while server not in build.ready_at and time.monotonic() < deadline:
        time.sleep(0.005)


def kill_when_memory_probes(pool: str, killed: list[str]) -> Callable[[RayBuild], None]:
    """A watcher that kills every actor of the build's ``pool`` (``shards``, ``verifiers``) once the memory
    server is ready to probe, noting the kill in ``killed``."""
    def watch(build: RayBuild) -> None:
        wait_until_ready(build, "memory")
        killed.append(pool)
        for actor in getattr(build, pool):
            ray.kill(actor, no_restart=False)

    return watch


class TestRayEngine:
    # split (9 s), slow: pools places its batches with split's code (PoolsPlacement is a SplitPlacement) and
    # its batches' probe log is asserted here by default, and a split build's atlas is asserted equal to the
    # in-process one by test_backpressure_of_one_batch_does_not_deadlock and test_shard_lost_while_its_server_probes
    @pytest.mark.parametrize("topology", ["colocated", pytest.param("split", marks=pytest.mark.slow), "pools"])
    def test_same_atlas_as_in_process(self, local_ray, reference, tmp_path: Path, topology: str) -> None:
        """The Ray build of the same catalogue and seed stores exactly the in-process atlas (pools: every
        batch verified by the verifier pool, both of its hosts taking turns)."""
        config = demo_copy(tmp_path, "ray")
        report, build = ray_build(config, topology=topology)
        assert not build.redone and report.engine == "ray" and report.servers == {"memory": "ok", "time": "ok"}
        if topology == "pools":
            assert len(build.verifiers) == 2 and sorted(build.placement.batches) == [0, 1]
            assert sum(build.placement.batches.values()) == len(build.probe_log.batches)
        assert report.calls >= report.probes > 0 and report.resets > 0
        assert entries_of(config) == reference
        # every probe's end time came back, within its batch's (or round's) span on the driver's clock
        assert build.probe_log.probes == report.probes
        slack = 0.05  # the hosts' wall clock read against the driver's perf_counter
        for sent, back, probes, ended in build.probe_log.batches:
            assert len(ended) == probes and all(sent - slack <= t <= back + slack for t in ended)
            assert list(ended) == sorted(ended)
        # counted exactly, the probes after a time are those that ended after it
        ends = sorted(t for p in build.probe_log.batches for t in p.ended)
        middle = ends[report.probes // 2]
        later = len(ends) - ends.index(middle) - ends.count(middle)  # probes deferred to one moment end together
        assert build.probe_log.after(middle) == later and 0 < later < report.probes
        assert build.probe_log.after(0.0) == report.probes == build.probe_log.after(0.0, exact=False)

    # colocated (9 s) and pools, slow: a colocated round holds one permit for its whole span, with nothing to
    # deadlock on; split's window of batches is the harder case
    @pytest.mark.parametrize("topology", [pytest.param("colocated", marks=pytest.mark.slow), "split",
                                          pytest.param("pools", marks=pytest.mark.slow)])
    def test_backpressure_of_one_batch_does_not_deadlock(self, local_ray, reference, tmp_path: Path, topology: str) -> None:
        """With a single batch (or round) allowed in flight across the build, every server still completes,
        same atlas (pools: with a single verifier host for two executor hosts)."""
        config = demo_copy(tmp_path, "one-permit")
        catalogue = load_catalogue(config)
        build = RayBuild(config, catalogue, hosts=2, inflight=1, topology=topology, verifiers=1)
        report = asyncio.run(build.run([catalogue.server("memory"), catalogue.server("time")], rounds=1))
        assert report.servers == {"memory": "ok", "time": "ok"} and report.probing_seconds > 0
        assert entries_of(config) == reference

    # colocated: 11 s of CPU, slow; a colocated host's death mid-round (the harder moment) is
    # test_colocated_server_reopened_when_its_host_dies, by default
    @pytest.mark.parametrize("topology", [pytest.param("colocated", marks=pytest.mark.slow), "split"])
    def test_executor_host_killed_mid_build(self, local_ray, reference, tmp_path: Path, topology: str) -> None:
        """An executor host killed after the first round is restarted by Ray; its work is redone, nothing doubles
        (colocated: the servers it held are reopened from their checkpoints and the round re-run)."""
        killed = []

        def kill_host(build: RayBuild, row) -> None:
            if not killed:
                killed.append(row.server)
                ray.kill(build.hosts[0], no_restart=False)

        config = demo_copy(tmp_path, "killed-host")
        report, _ = ray_build(config, sabotage=kill_host, topology=topology)
        assert killed and report.servers == {"memory": "ok", "time": "ok"}
        assert entries_of(config) == reference

    def test_colocated_server_reopened_when_its_host_dies(self, local_ray, reference, tmp_path: Path) -> None:
        """The host holding a colocated server dies mid-round: the server is reopened from its last
        checkpoint on the restarted host and the round redone — same atlas, nothing doubled."""
        killed = []

        def kill_when_memory_probes(build: RayBuild) -> None:
            wait_until_ready(build, "memory")
            killed.append(True)
            ray.kill(build.hosts[0], no_restart=False)  # memory is on host 0 (server index 0, slot 0)

        config = demo_copy(tmp_path, "reopened")
        report, build = ray_build(config, watch=kill_when_memory_probes, topology="colocated")
        assert killed and report.servers == {"memory": "ok", "time": "ok"}
        assert [server for server, _ in build.redone] == ["memory"]
        assert entries_of(config) == reference

    @pytest.mark.slow  # 13 s of CPU; a shard's death while its server probes (the harder moment) is
    # test_shard_lost_while_its_server_probes, by default
    def test_shard_killed_mid_build(self, local_ray, reference, tmp_path: Path) -> None:
        """A shard killed after a round is restored from its checkpoint and the round redone: same atlas."""
        killed = []

        def kill_shard(build: RayBuild, row) -> None:
            if not killed and row.round == 0:
                assert build.shards
                killed.append(row.server)
                for shard in build.shards:
                    ray.kill(shard, no_restart=False)

        config = demo_copy(tmp_path, "killed-shard")
        report, _ = ray_build(config, sabotage=kill_shard, topology="split")
        assert killed and report.servers == {"memory": "ok", "time": "ok"}
        assert entries_of(config) == reference

    def test_shard_lost_while_its_server_probes(self, local_ray, reference, tmp_path: Path) -> None:
        """The shard actor dies while its server probes (split): it is restored and the round redone.
        (Killed on a coverage row, as above, the shard may already have served its last call.)"""
        killed: list[str] = []
        config = demo_copy(tmp_path, "lost-shard")
        report, build = ray_build(config, watch=kill_when_memory_probes("shards", killed), topology="split")
        assert killed and report.servers == {"memory": "ok", "time": "ok"}
        assert "memory" in {server for server, _ in build.redone}
        assert entries_of(config) == reference

    @pytest.mark.slow  # a verifier's death costs a retried batch, no redone round; 12 s
    def test_verifier_host_killed_while_its_server_probes(self, local_ray, reference, tmp_path: Path) -> None:
        """Every verifier host of the pools topology dies while the servers probe: Ray restarts them and
        retries their batches, which bring all they need — no round redone, same atlas."""
        killed: list[str] = []
        config = demo_copy(tmp_path, "killed-verifiers")
        report, build = ray_build(config, watch=kill_when_memory_probes("verifiers", killed), topology="pools")
        assert killed and report.servers == {"memory": "ok", "time": "ok"} and not build.redone
        assert entries_of(config) == reference

    def test_topology_choice(self, local_ray, tmp_path: Path) -> None:
        """auto: colocated with one executor per server, split with several; colocated refuses several (naming
        the field); pools is chosen, not defaulted to, its verifier pool as large as the executor hosts unless asked."""
        config = demo_copy(tmp_path, "topology")
        catalogue = load_catalogue(config)
        assert RayBuild(config, catalogue).topology == "colocated"
        several = catalogue.model_copy(update={"build": catalogue.build.model_copy(update={"executors_per_server": 2})})
        assert RayBuild(config, several).topology == "split"
        with pytest.raises(ConfigError, match="executors_per_server"):
            RayBuild(config, several, topology="colocated")
        with pytest.raises(ConfigError, match="topology"):
            RayBuild(config, catalogue, topology="mesh")
        pools = RayBuild(config, several, hosts=3, topology="pools")
        assert (pools.topology, pools.verifier_count) == ("pools", 3)
        assert RayBuild(config, catalogue, topology="pools", verifiers=5).verifier_count == 5
        assert RayBuild(config, catalogue, hosts=3).verifier_count == 0

    def test_an_actor_that_gives_no_answer_fails_with_a_worker_error(self, local_ray) -> None:
        """A call on an actor that outlasts its named timeout raises WorkerError naming the call, instead of hanging."""

        @ray.remote(num_cpus=0)
        class Sleeper:
            async def nap(self, seconds: float) -> float:
                await asyncio.sleep(seconds)
                return seconds

        sleeper = Sleeper.remote()
        try:
            assert asyncio.run(answer(sleeper.nap.remote(0), 30, "a nap")) == 0
            with pytest.raises(WorkerError, match="a nap: no answer in 1 s"):
                asyncio.run(answer(sleeper.nap.remote(60), 1, "a nap"))
        finally:
            ray.kill(sleeper)

    def test_server_that_cannot_start(self, local_ray, tmp_path: Path) -> None:
        """A server that never starts is reported failed in the coverage; the other server's build completes."""
        command, args = faulty_server_command()
        echo, echo_args = hostile_server_command()  # offering only its harmless echo: a server that just works
        config = tmp_path / "broken.toml"
        config.write_text(json_toml({
            "store": {"path": str(tmp_path / "atlas")},
            "build": {"seed_tasks_per_tool": 1, "rollouts_per_task": 1},
            "servers": [
                {"name": "good", "transport": {"command": echo, "args": [*echo_args, "--only", "echo"]}},
                {"name": "broken", "transport": {"command": command, "args": [*args, "--crash-on-start"]},
                 "limits": {"max_restarts": 0}},
            ],
        }))
        report, _ = ray_build(config, servers=("good", "broken"), rounds=0)
        assert report.servers["good"] == "ok"
        assert report.servers["broken"].startswith("failed") and "refusing to start" in report.servers["broken"]
        rows = [json.loads(line) for line in AtlasPaths(load_catalogue(config)).coverage.read_text().splitlines()]
        assert any(r["server"] == "broken" and r["status"] == "failed" for r in rows)


class KilledRayBuild(RayBuild):
    """A Ray build whose driver dies before a chosen durable write: its files here and its records'
    saves to the store's owner, counted by one switch."""

    def __init__(self, *args, switch: KillSwitch, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.switch = switch

    def persistence(self):  # type: ignore[no-untyped-def]
        files, writer = super().persistence()
        return KillingFiles(files.paths, self.switch), KillingWriter(writer, self.switch)


def killable_build(config: Path, kill_at: int | None, *, resume: bool = False, topology: str = "colocated") -> KillSwitch:
    """Build memory + time (bootstrap + 1 round) on the local Ray instance, killed before write ``kill_at``."""
    catalogue = load_catalogue(config)
    switch = KillSwitch(kill_at)
    build = KilledRayBuild(config, catalogue, hosts=2, topology=topology, switch=switch)
    asyncio.run(build.run([catalogue.server("memory"), catalogue.server("time")], rounds=1, resume=resume))
    return switch


def killed_and_resumed(config: Path, rng: random.Random, writes: int, topology: str) -> list[int]:
    """Kill a fresh build at a random write, resume it (maybe killed again), then resume to the end; the kill points."""
    kills = [rng.randrange(1, writes)]
    with pytest.raises(BuildKilled):
        killable_build(config, kills[0], topology=topology)
    while rng.random() < 0.5:
        kills.append(rng.randrange(writes // 2 + 1))
        try:
            killable_build(config, kills[-1], resume=True, topology=topology)
        except BuildKilled:
            continue
        break
    killable_build(config, None, resume=True, topology=topology)
    return kills


# slow in every topology (colocated 23 s): a resume is the driver's, written once in the library and killed at
# random writes in process by default (tests/pipeline/test_killed_build.py), and on Ray a colocated server is
# reopened from its checkpoint on a restarted host by default (test_colocated_server_reopened_when_its_host_dies)
@pytest.mark.slow
class TestRayResume:
    @pytest.mark.parametrize("topology", ["colocated", "split", "pools"])
    def test_killed_at_a_random_write_and_resumed_equals_the_uninterrupted_build(
        self, local_ray, reference, tmp_path: Path, topology: str
    ) -> None:
        """A Ray build killed between two durable writes (seeded, sometimes again while resuming) and resumed
        ends with the in-process build's entries, support and transitions: nothing lost, nothing counted twice."""
        whole = demo_copy(tmp_path, "whole")
        writes = len(killable_build(whole, None, topology=topology).writes)
        assert entries_of(whole) == reference and writes > 4
        config = demo_copy(tmp_path, "killed")
        kills = killed_and_resumed(config, random.Random(7), writes, topology)
        assert entries_of(config) == reference, f"kills at writes {kills}"

    @pytest.mark.slow
    @pytest.mark.timeout(3600)
    @pytest.mark.parametrize("topology", ["colocated", "split"])
    def test_killed_at_many_random_writes(self, local_ray, reference, tmp_path: Path, topology: str) -> None:
        """Killed at ten seeded random points per topology, every resumed Ray build ends with the uninterrupted atlas."""
        writes = len(killable_build(demo_copy(tmp_path, "whole"), None, topology=topology).writes)
        rng = random.Random(21)
        for trial in range(10):
            config = demo_copy(tmp_path, f"killed{trial}")
            kills = killed_and_resumed(config, rng, writes, topology)
            assert entries_of(config) == reference, f"kills at writes {kills}"


def json_toml(data: dict) -> str:
    """A tiny TOML writer for test catalogues (tables of scalars and lists, arrays of tables)."""
    def value(v) -> str:
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        return str(v)

    lines = []
    for key, section in data.items():
        if isinstance(section, list):
            for item in section:
                lines.append(f"[[{key}]]")
                lines += [f"{k} = {value(v)}" for k, v in item.items()]
        else:
            lines.append(f"[{key}]")
            lines += [f"{k} = {value(v)}" for k, v in section.items()]
    return "\n".join(lines) + "\n"


# 45 s, slow: a real two-node cluster started and stopped (cluster/local_cluster.sh, ~20 s of it) and a build
# submitted as a job; by default the Ray build runs on a local instance in every topology (TestRayEngine), and
# `python -m toolatlas`, what a job's entry point calls, is tests/test_package.py's
@pytest.mark.slow
class TestTwoNodeCluster:
    def test_job_submit_runs_executors_on_both_nodes(self, tmp_path: Path) -> None:
        """`ray job submit` of a real build to a two-node cluster (127.0.0.2 + 127.0.0.3) completes on both nodes."""
        script = REPO / "cluster" / "local_cluster.sh"
        env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY": str(Path(sys.executable).parent / "ray")}
        subprocess.run([str(script), "stop", "6391"], env=env, capture_output=True)
        started = subprocess.run([str(script), "start", "6391", "8276"], env=env, capture_output=True, text=True, timeout=180)
        try:
            assert started.returncode == 0, started.stdout + started.stderr
            config = demo_copy(tmp_path, "cluster")
            runtime_env = tmp_path / "runtime_env.yaml"
            runtime_env.write_text(f"env_vars:\n  TOOLATLAS_HOME: {HOME}\n")
            job = subprocess.run(
                [str(Path(sys.executable).parent / "ray"), "job", "submit", "--address", "http://127.0.0.2:8276",
                 "--runtime-env", str(runtime_env), "--", sys.executable, "-m", "toolatlas", "build", str(config),
                 "--server", "memory", "--server", "time", "--server", "sqlite", "--rounds", "1", "--hosts", "4"],
                env=env, capture_output=True, text=True, timeout=600,
            )
            assert job.returncode == 0, job.stdout[-3000:] + job.stderr[-3000:]
            report = json.loads((tmp_path / "cluster" / "build.json").read_text())
            assert report["engine"] == "ray"
            assert report["servers"] == {"memory": "ok", "time": "ok", "sqlite": "ok"}
            nodes = {node for placed in report["nodes"].values() for node in placed}
            assert len(nodes) == 2, report["nodes"]
            atlas = json.loads((tmp_path / "cluster" / "atlas.json").read_text())
            for server in atlas["servers"]:
                assert server["tools"] and all(tool["affordances"] for tool in server["tools"]), server["name"]
        finally:
            subprocess.run([str(script), "stop", "6391"], env=env, capture_output=True, timeout=120)
