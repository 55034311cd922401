"""The untouched initial state of a server, in a form verifiers can read.

Verifiers are vetted against the state every task starts from, and a rollout that changed
nothing is judged on it. For the file kinds (directory, SQLite, git, JSON file) that is the
snapshot itself, read in place and never written. The other kinds (``none``, ``command``,
``postgres``) have no readable snapshot, so a fresh instance is prepared and frozen untouched,
and discarded when the caller is done with it.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from toolatlas.codebox.states import StateInput
from toolatlas.config import ServerSpec
from toolatlas.workspace import Workspace

__all__ = ["READABLE_SNAPSHOT_KINDS", "StateInput", "initial_state"]

READABLE_SNAPSHOT_KINDS = frozenset({"directory", "sqlite", "git", "json_file"})
"""Kinds whose materialised snapshot is itself a state a verifier can read."""


@asynccontextmanager
async def initial_state(workspace: Workspace, spec: ServerSpec) -> AsyncIterator[StateInput]:
    """The state every task of ``spec`` starts from, readable by verifiers, for the ``with`` block."""
    snapshot = await asyncio.to_thread(workspace.snapshot, spec)
    if snapshot.kind in READABLE_SNAPSHOT_KINDS:
        yield snapshot
        return
    environment = workspace.environment(spec)
    slot = workspace.home.instances / f"{spec.name}-initial-{uuid.uuid4().hex[:10]}"
    instance = await asyncio.to_thread(environment.prepare, snapshot, slot)
    target = workspace.home.instances / "frozen" / f"{instance.id}-untouched"
    try:
        frozen = await asyncio.to_thread(environment.freeze, instance, target)
    finally:
        await asyncio.shield(asyncio.to_thread(environment.discard, instance))
    try:
        yield frozen
    finally:
        await asyncio.shield(asyncio.to_thread(environment.discard, frozen))
