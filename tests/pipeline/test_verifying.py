"""Verification apart from the executors: rollouts judged in another process get the executor's verdicts.

The pools topology runs verifiers as their own pool; that is sound only if a rollout and its
sandbox's :class:`VerifierBasis` carry everything the verdict depends on — the digests, the
later-second repeat of a replay — so a verifier that never saw the sandbox judges exactly as the
executor's own verifier. Real generated stateful servers over stdio; the verifier in a forked process.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.home import Home
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.pipeline.shard import ServerShard
from toolatlas.pipeline.verifying import VerifierBasis, Verifiers
from toolatlas.probing.determinism import verified, with_later_second
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, Verdict
from toolatlas.testing.catalogues import generate_catalogue
from toolatlas.workspace import Workspace


def verify_apart(config: str, home: str, basis: VerifierBasis, rollouts: list[Rollout]) -> list[tuple[Rollout, Verdict]]:
    """What a verifier of the pool answers, in a process of its own with a workspace of its own."""
    return Verifiers(Workspace(load_catalogue(Path(config)), Home(Path(home)))).verify(basis, rollouts)


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two generated servers (notes-000, kv-001), one rollout per seed task."""
    path = generate_catalogue(2, tmp_path_factory.mktemp("catalogue"))
    path.write_text(path.read_text().replace("[build]\n", "[build]\nrollouts_per_task = 1\n", 1))
    return path


class TestVerifiersApart:
    async def test_rollouts_verified_in_another_process_get_the_executors_verdicts(self, config: Path, tmp_path: Path) -> None:
        """Bootstrap and one round of kv-001, executed unverified: a forked verifier's judgements equal
        the executor's own verifier's, replays' later-second repeats included, and the verdicts of a
        second executor that verifies its own run of the same probes."""
        catalogue = load_catalogue(config)
        workspace = Workspace(catalogue, Home(tmp_path / "home"))
        spec = catalogue.server("kv-001")
        executor, colocated = Executor(workspace.sandbox(spec), "apart"), Executor(workspace.sandbox(spec), "here")
        await executor.start()
        await colocated.start()
        shard = ServerShard(workspace, spec, catalogue.build)
        shard.prepare(executor.sandbox.tools)
        basis = VerifierBasis.of(executor, spec.name, 0)
        judged: list[tuple[Rollout, Verdict]] = []
        try:
            with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
                for round_ in (0, 1):
                    # unplanned in time, every deterministic-looking replay is repeated in a later second
                    probes = [p.model_copy(update={"planned_at": None}) for p in shard.plan(round_)]
                    rollouts, ended = await executor.execute_batch(probes)
                    assert len(ended) == len(rollouts)
                    assert all(r.final_digest is not None for r in rollouts if r.infrastructure_error is None)
                    here = [verified(executor.verifier, rollout) for rollout in rollouts]
                    apart = pool.submit(verify_apart, str(config), str(tmp_path / "home"), basis, rollouts).result()
                    assert apart == here
                    # and what an executor verifying its own probes concludes, probe by probe
                    assert [v for _, v in apart] == [v for _, v in (await colocated.run_batch(probes))[0]]
                    for rollout, verdict in apart:
                        shard.absorb(rollout, verdict)
                    shard.finish_round(round_, 0.0)
                    judged += list(zip(rollouts, (v for _, v in apart), strict=True))
        finally:
            await executor.close()
            await colocated.close()
        repeated = [(r, v) for r, v in judged if r.later is not None]
        assert repeated and any(v.deterministic is True for _, v in repeated), "round 1 replays looked deterministic"
        assert all(r.later is None for r, _ in apart), "the inducer reads no repeat and no digest"

    def test_a_later_second_that_answers_otherwise_makes_a_replay_nondeterministic(self) -> None:
        """The repeat carried on a rollout decides: the same answer keeps the verdict, another answer
        (or one showing the clock) turns it non-deterministic; a crashed repeat teaches nothing."""
        def outcome(text: str, kind: OutcomeClass = OutcomeClass.OK) -> CallOutcome:
            return CallOutcome(server="dice", tool="roll", arguments={}, outcome=kind, excerpt=text, latency_ms=1.0)

        probe = Probe(id="p1", server="dice", round=1, direction=Direction.REPLAY, target="roll", task="again",
                      steps=[ProbeStep(tool="roll")], reference_excerpt="4")
        rollout = Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome("4"))])
        verdict = Verdict(probe_id="p1", server="dice", resolved=True, steps=[], deterministic=True)
        assert with_later_second(verdict, rollout) == verdict
        assert with_later_second(verdict, rollout.model_copy(update={"later": outcome("4")})) == verdict
        differs = with_later_second(verdict, rollout.model_copy(update={"later": outcome("2")}))
        assert differs.deterministic is False and differs.checks[-1].detail == "output differs in a later second"
        crashed = rollout.model_copy(update={"later": outcome("", OutcomeClass.CRASH)})
        assert with_later_second(verdict, crashed) == verdict
