"""``VerifierActor``: checks frozen post-states on the node where the executors froze them.

Verification is idempotent (the frozen state is only discarded by :meth:`discard`, after the
verdict has been absorbed), so a retried call after a restart gives the same verdict.
"""

from __future__ import annotations

import asyncio

import ray

from actors.common import actor_workspace
from toolatlas.environments import FrozenState
from toolatlas.models import ToolSpec
from toolatlas.probing.models import Rollout, Verdict
from toolatlas.probing.verifier import Verifier


class VerifierActor:
    def __init__(self, config: str, store_path: str | None = None) -> None:
        self.workspace = actor_workspace(config, store_path)
        self.verifiers: dict[str, Verifier] = {}

    def node_id(self) -> str:
        return ray.get_runtime_context().get_node_id()

    def _verifier(self, server: str, tools: list[ToolSpec]) -> Verifier:
        if server not in self.verifiers:
            spec = self.workspace.catalogue.server(server)
            environment = self.workspace.environment(spec)
            digest = environment.digest(self.workspace.snapshot(spec))
            self.verifiers[server] = Verifier(environment, digest, {t.name: t for t in tools})
        return self.verifiers[server]

    async def verify_many(self, rollouts: list[Rollout], tools: list[ToolSpec]) -> list[Verdict]:
        if not rollouts:
            return []
        verifier = await asyncio.to_thread(self._verifier, rollouts[0].probe.server, tools)
        return await asyncio.to_thread(lambda: [verifier.verify(r, discard=False) for r in rollouts])

    async def discard_many(self, server: str, frozen: list[FrozenState]) -> None:
        """Delete frozen states whose verdicts have been absorbed."""
        environment = self.workspace.environment(self.workspace.catalogue.server(server))

        def discard_all() -> None:
            for state in frozen:
                environment.discard(state)

        await asyncio.to_thread(discard_all)
