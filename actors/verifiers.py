"""``VerifierHost``: the verifier role as a pool of its own (the pools topology).

A host of the pool judges batches of rollouts from any executor host — the library's
:class:`~toolatlas.pipeline.verifying.Verifiers`; each batch brings its sandbox's basis, so the
pool scales apart from the executors, and a host that Ray restarts takes the retried batch as is.
"""

from __future__ import annotations

from toolatlas.actors.common import actor_workspace
from toolatlas.pipeline.verifying import Verifiers

__all__ = ["VerifierHost"]


class VerifierHost(Verifiers):
    def __init__(self, config: str) -> None:
        super().__init__(actor_workspace(config))
