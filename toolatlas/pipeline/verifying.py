"""The verifier role on its own: rollouts judged in a process that did not run them.

An executor that hands its rollouts on (:meth:`~toolatlas.probing.executor.Executor.execute_batch`)
describes its sandbox once as a :class:`VerifierBasis` — the live tools and the snapshot's digest,
what its own verifier reads — and :class:`Verifiers` judges the rollouts against it with
:func:`~toolatlas.probing.determinism.verified`: the verdicts the executor would have made itself.
A verifier holds nothing a batch needs but what the batch brings, so any verifier of a pool (the
pools topology's actors, ``actors/verifiers.py``), restarted or not, takes any batch.
"""

from __future__ import annotations

from toolatlas.environments import StateDigest
from toolatlas.models import Frozen, ToolSpec
from toolatlas.probing.determinism import verified
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Rollout, Verdict
from toolatlas.probing.verifier import Verifier
from toolatlas.workspace import Workspace

__all__ = ["VerifierBasis", "Verifiers"]


class VerifierBasis(Frozen):
    """What verifying one sandbox's rollouts reads besides the rollouts: its server, its live tools
    (already validated by its MCP client) and its snapshot's digest."""

    server: str
    slot: int
    tools: list[ToolSpec]
    snapshot: StateDigest

    @classmethod
    def of(cls, executor: Executor, server: str, slot: int) -> VerifierBasis:
        """The basis of a started executor's sandbox."""
        assert executor.snapshot_digest is not None, "start() the executor first"
        return cls(server=server, slot=slot, tools=executor.sandbox.tools, snapshot=executor.snapshot_digest)


class Verifiers:
    """Verifies batches of rollouts from any executor of a catalogue's servers."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.known: dict[tuple[str, int], tuple[VerifierBasis, Verifier]] = {}
        """(server, slot) → the last basis seen and its verifier: reused while the sandbox is the same."""

    def verifier(self, basis: VerifierBasis) -> Verifier:
        """The verifier of one sandbox's rollouts."""
        key = (basis.server, basis.slot)
        known = self.known.get(key)
        if known is None or known[0] != basis:
            environment = self.workspace.environment(self.workspace.catalogue.server(basis.server))
            known = self.known[key] = (basis, Verifier.of_live(environment, basis.snapshot, basis.tools))
        return known[1]

    def verify(self, basis: VerifierBasis, rollouts: list[Rollout]) -> list[tuple[Rollout, Verdict]]:
        """Each rollout of one sandbox, in order, as the inducer reads it, with its verdict."""
        verifier = self.verifier(basis)
        return [verified(verifier, rollout) for rollout in rollouts]
