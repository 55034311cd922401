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
from toolatlas.probing.models import BatchSummary
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
