"""The paper's method with an LLM, end to end: a build of the demo memory server whose every
role talks to the scripted OpenAI-compatible server over real HTTP, on the real MCP server in
real sandboxes, after the offline rounds — in this process and through the Ray build.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from toolatlas.config import BuildSettings, LlmSettings, MethodSettings, StoreSettings, load_catalogue
from toolatlas.errors import ConfigError
from toolatlas.home import Home
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.pipeline.persistence import save_rollouts
from toolatlas.store.paths import AtlasPaths, open_store
from toolatlas.testing.memory_policy import MemoryPolicy
from toolatlas.testing.openai_script import Fault
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.workspace import Workspace

pytestmark = pytest.mark.servers

REPO = Path(__file__).resolve().parents[2]
OFFLINE_ROUNDS = 1


def catalogue_for(endpoint: ScriptedOpenAIServer, store: Path):
    demo = load_catalogue(REPO / "configs" / "demo.toml")
    build = BuildSettings(
        rounds=OFFLINE_ROUNDS, seed_tasks_per_tool=1, rollouts_per_task=2, subgraph_size=2,
        boundary_probes_per_tool=1, affordance_probes_per_tool=1, probe_budget_per_round=30,
        method=MethodSettings(max_turns=4, rollout_timeout_s=30, chain_tasks_per_server=2),
    )
    llm = LlmSettings(base_url=endpoint.base_url, model="scripted-model", timeout_s=10, max_retries=3,
                      backoff_base_s=0.01, backoff_cap_s=0.05, max_concurrency=4)
    return demo.model_copy(update={
        "servers": [demo.server("memory")], "build": build, "llm": llm,
        "store": StoreSettings(backend="edge", path=str(store)),
    })


def to_toml(catalogue) -> str:
    """The demo catalogue's file with this test's [build], [store] and [llm] (for actors, which read the file)."""
    text = (REPO / "configs" / "demo.toml").read_text()
    head, servers = text.split("[[servers]]", 1)
    build, method, llm = catalogue.build, catalogue.build.method, catalogue.llm
    settings = f"""version = 1
name = "demo"

[build]
rounds = {build.rounds}
seed_tasks_per_tool = {build.seed_tasks_per_tool}
rollouts_per_task = {build.rollouts_per_task}
subgraph_size = {build.subgraph_size}
boundary_probes_per_tool = {build.boundary_probes_per_tool}
affordance_probes_per_tool = {build.affordance_probes_per_tool}
probe_budget_per_round = {build.probe_budget_per_round}

[build.method]
max_turns = {method.max_turns}
rollout_timeout_s = {method.rollout_timeout_s}
chain_tasks_per_server = {method.chain_tasks_per_server}

[store]
backend = "edge"
path = "{catalogue.store.path}"

[llm]
base_url = "{llm.base_url}"
model = "{llm.model}"
timeout_s = {llm.timeout_s}
max_retries = {llm.max_retries}
backoff_base_s = {llm.backoff_base_s}
backoff_cap_s = {llm.backoff_cap_s}

"""
    return settings + "[[servers]]" + servers


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One LLM build (asyncio engine), with a few rate limits and server errors injected on the way."""
    policy = MemoryPolicy()
    script = policy.script()
    with ScriptedOpenAIServer(script) as endpoint:
        catalogue = catalogue_for(endpoint, tmp_path_factory.mktemp("atlas"))
        script.inject(Fault.rate_limit(retry_after=0.01), Fault.server_error(503))
        store = open_store(catalogue)
        try:
            report = asyncio.run(build_catalogue(Workspace(catalogue, Home(REPO / ".toolatlas")), store))
            records = store.records()
        finally:
            store.close()
        yield catalogue, report, records, endpoint.chat_requests


class TestLlmBuild:
    def test_llm_rounds_follow_the_offline_rounds(self, built):
        """Offline rounds 0..R, then the LLM bootstrap (R+1) and R exploration rounds, all ok."""
        _catalogue, report, _records, _requests = built
        stages = [(row.round, row.stage, row.status) for row in report.coverage]
        assert stages == [(0, "offline", "ok"), (1, "offline", "ok"), (2, "bootstrap", "ok"), (3, "exploration", "ok")]

    def test_tasks_were_proposed_vetted_rolled_out_and_judged(self, built):
        """Bootstrap: k=1 seed task per tool plus the replay-checked chain tasks; exploration: 1+1 per
        target. Each ran N=2 rollouts, judged by its verifier on the real post-state: the seed and
        probe tasks resolve (the agent really stored the person), the chain tasks (which it cannot
        redo) fail."""
        _catalogue, report, _records, _requests = built
        bootstrap, exploration = [row for row in report.coverage if row.stage != "offline"]
        tools = bootstrap.tools
        assert bootstrap.tasks > tools and exploration.tasks == 2 * 2
        for row in (bootstrap, exploration):
            assert row.probes == 2 * row.tasks and row.llm_tokens > 0
        assert bootstrap.resolved == 2 * tools
        assert exploration.resolved == exploration.probes

    def test_raw_trajectories_are_kept_with_their_labels(self, built):
        """<atlas>/rollouts/memory.jsonl: one line per rollout, every agent step and real call, and the verdict."""
        catalogue, report, _records, _requests = built
        lines = [json.loads(line) for line in AtlasPaths(catalogue).rollouts("memory").read_text().splitlines()]
        assert len(lines) == sum(row.probes for row in report.coverage if row.stage != "offline")
        resolved = [line for line in lines if line["verdict"]["resolved"]]
        assert len(resolved) == sum(row.resolved for row in report.coverage if row.stage != "offline")
        calls = [call for line in resolved for step in line["rollout"]["steps"] for call in step["calls"]]
        assert calls and all(call["tool"] == "create_entities" and call["outcome"] == "ok" for call in calls)
        assert {line["rollout"]["id"] for line in lines} == {line["verdict"]["rollout_id"] for line in lines}

    def test_every_role_is_accounted_in_the_build_report(self, built):
        """Tokens and calls per role; the injected 429 and 503 were retried, not fatal."""
        _catalogue, report, _records, requests = built
        roles = report.llm.by_role()
        assert {"proposer", "agent", "inducer"} <= set(roles)
        assert all(t.calls > 0 and t.prompt_tokens > 0 for t in roles.values())
        assert report.llm.total().retries >= 2
        rounds = {row.round for row in report.llm.rows}
        assert {2, 3} <= rounds
        assert len(requests) >= report.llm.total().requests - report.llm.total().retries

    def test_the_llm_wrote_traces_and_cited_entries_into_the_atlas(self, built):
        """Reflection traces cite the rollouts; LLM-written entries carry evidence from the cited calls."""
        _catalogue, _report, records, _requests = built
        traces = [t for t in records["traces"] if any(p.startswith("r") for p in t.probe_ids) and t.tips]
        assert traces and all(step.tool == "create_entities" for t in traces for step in t.steps)
        llm_entries = [e for e in records["entries"] if any(ev.probe_id.startswith("r") for ev in e.evidence)]
        assert llm_entries
        assert any("Ada-" in str(ev.arguments) for e in llm_entries for ev in e.evidence)


@pytest.mark.slow  # 20 s; the LLM rounds are TestLlmBuild's in process, the ledgers' merge across processes
# tests/llm/test_llm_ledger.py's, the Ray build's placement tests/actors/test_ray_build.py's (default suite)
@pytest.mark.timeout(600)
def test_the_ray_build_runs_the_same_llm_rounds(tmp_path, monkeypatch):
    """Through the Ray coordinator (local Ray): the shard actor runs the LLM rounds, their records
    and checkpoints are persisted, and every actor's usage is merged into the report."""
    ray = pytest.importorskip("ray")
    from toolatlas.actors.coordinator import RayBuild

    policy = MemoryPolicy()
    with ScriptedOpenAIServer(policy.script()) as endpoint:
        catalogue = catalogue_for(endpoint, tmp_path / "atlas")
        config = tmp_path / "catalogue.toml"
        config.write_text(to_toml(catalogue))
        monkeypatch.setenv("TOOLATLAS_HOME", str(REPO / ".toolatlas"))
        ray.init(address="local", include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"TOOLATLAS_HOME": str(REPO / ".toolatlas")}})
        try:
            report = asyncio.run(RayBuild(config, load_catalogue(config)).run(catalogue.servers, rounds=OFFLINE_ROUNDS))
        finally:
            ray.shutdown()
    stages = [(row.round, row.stage, row.status) for row in report.coverage]
    assert stages == [(0, "offline", "ok"), (1, "offline", "ok"), (2, "bootstrap", "ok"), (3, "exploration", "ok")]
    bootstrap = report.coverage[2]
    assert bootstrap.tasks > bootstrap.tools and bootstrap.resolved == 2 * bootstrap.tools
    assert {"proposer", "agent", "inducer", "decompiler"} <= set(report.llm.by_role())
    store = open_store(catalogue)
    try:
        traces = [t for t in store.records()["traces"] if t.tips]
    finally:
        store.close()
    assert len(traces) >= bootstrap.tools
    kept = AtlasPaths(catalogue).rollouts("memory").read_text().splitlines()
    assert len(kept) == sum(row.probes for row in report.coverage if row.stage != "offline")


def test_a_rerun_round_replaces_its_trajectories(tmp_path):
    """After a resume re-runs a round, its raw trajectories are replaced, not added twice."""
    path = tmp_path / "rollouts" / "memory.jsonl"
    save_rollouts(path, 2, [json.dumps({"round": 2, "id": "a"}), json.dumps({"round": 2, "id": "b"})])
    save_rollouts(path, 3, [json.dumps({"round": 3, "id": "c"})])
    save_rollouts(path, 3, [json.dumps({"round": 3, "id": "c2"})])
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == ["a", "b", "c2"]


def test_backend_llm_without_an_endpoint_is_a_config_error(tmp_path):
    demo = load_catalogue(REPO / "configs" / "demo.toml")
    with pytest.raises(ConfigError, match="needs an \\[llm\\] endpoint"):
        asyncio.run(build_catalogue(Workspace(demo, Home(REPO / ".toolatlas")), None, backend="llm"))


def test_the_cli_build_prints_llm_rounds_and_usage_per_role(tmp_path, capsys, monkeypatch):
    """`toolatlas build --engine asyncio --backend llm` on a catalogue file: LLM round lines and the usage table
    (the command in this process, as a build on the asyncio engine runs)."""
    from toolatlas.cli import main

    monkeypatch.setenv("TOOLATLAS_HOME", str(REPO / ".toolatlas"))
    with ScriptedOpenAIServer(MemoryPolicy().script()) as endpoint:
        catalogue = catalogue_for(endpoint, tmp_path / "atlas")
        config = tmp_path / "catalogue.toml"
        config.write_text(to_toml(catalogue))
        status = main(["build", str(config), "--engine", "asyncio", "--backend", "llm", "--server", "memory"])
    done = capsys.readouterr()
    assert status == 0, done.err[-2000:]
    assert "round 2 (LLM bootstrap)" in done.out and "round 3 (LLM exploration)" in done.out
    usage = {line.split()[0] for line in done.out.splitlines() if line.split()}
    assert {"agent", "inducer", "proposer", "total"} <= usage


def test_a_build_whose_every_llm_call_failed_exits_1(tmp_path):
    """An endpoint that never answers usefully: the offline atlas is written, and the exit status says
    the LLM rounds added nothing (CI must not read that build as a whole one)."""
    from toolatlas.cli import main
    from toolatlas.testing.openai_script import Script

    with ScriptedOpenAIServer(Script()) as endpoint:  # no rule: every request is answered with an error
        catalogue = catalogue_for(endpoint, tmp_path / "atlas")
        config = tmp_path / "catalogue.toml"
        config.write_text(to_toml(catalogue))
        status = main(["build", str(config), "--engine", "asyncio", "--backend", "llm", "--server", "memory"])
    assert status == 1
    report = json.loads((tmp_path / "atlas" / "build.json").read_text())
    assert report["servers"] == {"memory": "ok"}
    assert (tmp_path / "atlas" / "atlas.json").exists()
