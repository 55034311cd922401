"""The executor verifying where it runs: same verdicts as a verifier reading kept post-states.

``run_verified`` (what executor hosts and the in-process build run) must reach exactly the
verdict a separate verifier reaches on the same probe run with its post-state kept, keep no
post-state, reset only the probes that changed the instance, and ship rollouts without digests.
Real generated stateful servers over stdio.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.config import Catalogue, load_catalogue
from toolatlas.home import Home
from toolatlas.pipeline.shard import ServerShard
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import BatchSummary, Direction, Probe
from toolatlas.probing.verifier import Verifier
from toolatlas.testing.catalogues import generate_catalogue
from toolatlas.workspace import Workspace


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    """Two generated servers (notes-000, kv-001), one rollout per seed task."""
    config = generate_catalogue(2, tmp_path_factory.mktemp("catalogue"))
    config.write_text(config.read_text().replace("[build]\n", "[build]\nrollouts_per_task = 1\n", 1))
    return load_catalogue(config)


class TestRunVerified:
    @pytest.mark.parametrize("server", ["notes-000", "kv-001"])
    async def test_same_verdicts_as_a_verifier_of_kept_post_states(
        self, catalogue: Catalogue, tmp_path: Path, server: str
    ) -> None:
        """Every seed probe: the in-place verdict equals the kept-state one; changed instances are
        reset (and only those), nothing is left frozen, and no digest travels with the rollout."""
        workspace = Workspace(catalogue, Home(tmp_path / "home"))
        spec = catalogue.server(server)
        keeping, verifying = Executor(workspace.sandbox(spec), "keeping"), Executor(workspace.sandbox(spec), "here")
        await keeping.start()
        await verifying.start()
        try:
            tools = keeping.sandbox.tools
            environment = workspace.environment(spec)
            reference = Verifier(environment, environment.digest(workspace.snapshot(spec)), {t.name: t for t in tools})
            shard = ServerShard(workspace, spec, catalogue.build)
            shard.prepare(tools)
            probes = shard.plan(0)
            rollouts = []
            for probe in probes:
                kept = await keeping.run(probe)
                expected = reference.verify(kept)  # reads the kept post-state's digest, then discards it
                rollout, verdict = await verifying.run_verified(probe)
                assert verdict == expected, probe.id
                assert rollout.frozen is None and rollout.reset == kept.reset == (kept.frozen is not None)
                assert rollout.final_digest is None and all(s.digest_after is None for s in rollout.steps)
                assert await verifying.sandbox.digest() == verifying.snapshot_digest
                rollouts.append(rollout)
            resets = [r.reset for r in rollouts]
            assert any(resets) and not all(resets), "the seeds include read-only and mutating probes"
            summary = BatchSummary.of(rollouts)
            assert summary.resets == sum(resets) == verifying.resets
            assert summary.calls == sum(len(r.steps) for r in rollouts)
            assert summary.infrastructure_errors == [False] * len(rollouts)
        finally:
            await keeping.close()
            await verifying.close()

    async def test_a_probe_that_compares_reads_is_judged_once(self, catalogue: Catalogue, tmp_path: Path) -> None:
        """On a state the environment holds, the executor judges a probe that compares reads to decide on a
        restart; the verdict it serves is that judgement, not a second one of the same rollout."""
        workspace = Workspace(catalogue, Home(tmp_path / "home"))
        spec = catalogue.server("notes-000")
        executor = Executor(workspace.sandbox(spec), "here")
        await executor.start()
        try:
            shard = ServerShard(workspace, spec, catalogue.build)
            shard.prepare(executor.sandbox.tools)
            read = next(p.steps[0] for p in shard.plan(0) if len(p.steps) == 1 and not p.steps[0].mutation
                        and p.steps[0].tool.startswith(("list", "get", "read", "search")))
            compared = Probe(id="compared", server=spec.name, round=1, direction=Direction.AFFORDANCE, target=read.tool,
                             task="read twice", steps=[read, read.model_copy(update={"compares": 0})])
            judged: list[str] = []
            verify = executor.verifier.verify
            executor.verifier.verify = lambda rollout, **kw: judged.append(rollout.probe.id) or verify(rollout, **kw)
            _rollout, verdict = await executor.run_verified(compared)
            assert judged == ["compared"] and verdict.steps[1].output_changed is False
            [(_rollout, batched)], _ended = await executor.run_batch([compared])  # a batch of an executor host
            assert judged == ["compared", "compared"] and batched == verdict
        finally:
            await executor.close()
