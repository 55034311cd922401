"""Same seed, same atlas: with more executors, across processes, and after a killed driver resumes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from small_builds import atlas, planned_by_count

from toolatlas.cli import main
from toolatlas.config import load_catalogue
from toolatlas.pipeline.persistence import read_coverage
from toolatlas.store.paths import AtlasPaths, open_store

REPO = Path(__file__).resolve().parents[2]
SERVERS = ["filesystem", "sqlite"]


def catalogue_file(tmp: Path, name: str) -> Path:
    """The demo catalogue with its atlas in ``tmp/name``, one rollout per seed task (what is resumed
    does not depend on how often a seed task is repeated), planned by count: builds in other processes
    that plan by time follow what calls cost there, and on a loaded host one slow call can make a tool
    of milliseconds costly in one build and not in the other."""
    demo = (REPO / "configs" / "demo.toml").read_text()
    text = demo.replace('path = "../.toolatlas/atlas/demo"', f'path = "{tmp / name}"')
    text = text.replace("rollouts_per_task = 4", 'rollouts_per_task = 1\nplan_by = "count"')
    assert str(tmp / name) in text and "rollouts_per_task = 1" in text, (
        "configs/demo.toml's store path or rollouts moved: update this helper (it must not build into the demo's store)")
    path = tmp / f"{name}.toml"
    path.write_text(text)
    return path


def build(config: Path, *extra: str, hash_seed: str, servers: list[str] = SERVERS, rounds: int = 2) -> subprocess.Popen:
    env = {**os.environ, "TOOLATLAS_HOME": str(REPO / ".toolatlas"), "PYTHONHASHSEED": hash_seed}
    args = [sys.executable, "-m", "toolatlas", "build", str(config), "--rounds", str(rounds), *extra]
    for server in servers:
        args += ["--server", server]
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class TestResume:
    # 55 s (split 40 s), slow: a real driver SIGKILLed and resumed from the command line; by default a Ray build
    # killed at a random durable write and resumed is tests/actors/test_ray_build.py's TestRayResume, the same in
    # process tests/pipeline/test_killed_build.py's, and `--resume` on the command line test_resume_refuses_another_seed
    @pytest.mark.slow
    @pytest.mark.parametrize("topology", ["colocated", "split"])
    def test_killed_build_resumes_to_the_same_atlas(self, tmp_path: Path, topology: str) -> None:
        """A driver killed mid-build resumes from the last completed rounds and ends with the uninterrupted atlas
        (in both Ray topologies: each server built by its host, or fed to shard actors batch by batch)."""
        reference = catalogue_file(tmp_path, "reference")  # in process: the engines make one atlas (tests/actors)
        process = build(reference, "--engine", "asyncio", hash_seed="1")
        output = process.communicate(timeout=600)[0]
        assert process.returncode == 0, output

        interrupted = catalogue_file(tmp_path, "interrupted")
        coverage = AtlasPaths(load_catalogue(interrupted)).coverage
        process = build(interrupted, "--topology", topology, hash_seed="2")
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and process.poll() is None:
            rows = read_coverage(coverage) if coverage.exists() else []
            if any(r.round >= 1 for r in rows):
                break
            time.sleep(0.05)
        assert process.poll() is None, "the build finished before it could be interrupted"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        done_before = {(r.server, r.round) for r in read_coverage(coverage)}
        assert done_before and len(done_before) < len(SERVERS) * 3

        process = build(interrupted, "--resume", "--topology", topology, hash_seed="3")
        output = process.communicate(timeout=600)[0]
        assert process.returncode == 0, output
        assert "build_resumed" in output or any(f"[{s}]" in output for s in SERVERS)
        expected, resumed = atlas(load_catalogue(reference)), atlas(load_catalogue(interrupted))
        assert resumed["entries"] == expected["entries"]
        assert resumed == expected
        checkpoints = AtlasPaths(load_catalogue(interrupted)).root / "checkpoints"
        assert {p.stem for p in checkpoints.glob("*.json")} == set(SERVERS)
        assert all(json.loads(p.read_text())["completed_round"] == 2 for p in checkpoints.glob("*.json"))

    # the default engine (Ray), slow (+10 s of a local instance): the driver checks the checkpoints on either engine
    @pytest.mark.parametrize("engine", ["asyncio", pytest.param(None, marks=pytest.mark.slow, id="default")])
    def test_resume_refuses_another_seed(self, tmp_path: Path, engine: str | None, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
        """A checkpoint written with one seed is not resumed under another."""
        config = catalogue_file(tmp_path, "seeded")
        # the checkpoint of one server's bootstrap, written by the command in this process (what is refused is the
        # checkpoint's seed, not anything of the process that wrote it); the resume on ``engine``: the command in
        # this process on asyncio, in a process of its own on Ray (a local instance is not started in the tests' process)
        monkeypatch.setenv("TOOLATLAS_HOME", str(REPO / ".toolatlas"))
        one_bootstrap = [str(config), "--rounds", "0", "--server", "time"]
        assert main(["build", *one_bootstrap, "--engine", "asyncio"]) == 0
        assert capsys.readouterr().out
        text = config.read_text().replace("seed = 0", "seed = 7")
        config.write_text(text)
        if engine is not None:
            status = main(["build", *one_bootstrap, "--resume", "--engine", engine])
            captured = capsys.readouterr()
            output = captured.out + captured.err
        else:
            process = build(config, "--resume", hash_seed="0", servers=["time"], rounds=0)
            output = process.communicate(timeout=600)[0]
            status = process.returncode
        assert status == 2 and "seed 0" in output and "not 7" in output



class TestDeterminism:
    async def test_executor_count_does_not_change_the_atlas(self, tmp_path: Path) -> None:
        """One executor or three per server: verdicts are absorbed in probe order, so the atlas is identical."""
        from toolatlas.config import StoreSettings
        from toolatlas.home import Home
        from toolatlas.pipeline.catalogue import build_catalogue
        from toolatlas.workspace import Workspace

        demo = load_catalogue(REPO / "configs" / "demo.toml")
        results = []
        for executors in (1, 3):
            catalogue = demo.model_copy(update={
                "store": StoreSettings(backend="edge", path=str(tmp_path / f"e{executors}")),
                "build": demo.build.model_copy(update={"executors_per_server": executors}),
            })
            store = open_store(catalogue)
            try:
                with planned_by_count():  # the host's load must not change one plan and not the other
                    await build_catalogue(Workspace(catalogue, Home(REPO / ".toolatlas")), store,
                                          servers=[catalogue.server("memory")], rounds=2)
                results.append({e.id: e.support for e in store.all("entries")})
            finally:
                store.close()
        assert results[0] == results[1] and len(results[0]) > 20
