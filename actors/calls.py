"""Calls from the build's driver to its actors: each within a named timeout, a lost actor told apart.

Every wait on an actor has a timeout named here; an actor that gives no answer in time raises
:class:`~toolatlas.errors.WorkerError` (its server fails, the others' builds go on). An actor that
died (Ray restarts it and retries, or gave up on it) is *lost*, not wrong: :func:`lost` says so,
and the placements turn it into :class:`~toolatlas.errors.RoundLost` for the driver to reopen the
server from its last checkpoint.
"""

from __future__ import annotations

import asyncio
from typing import Any

import ray
import structlog
from ray.exceptions import ActorUnavailableError, RayActorError

from toolatlas.errors import ToolAtlasError, WorkerError

__all__ = [
    "BATCH_TIMEOUT_S",
    "ROUND_TIMEOUT_S",
    "SHARD_TIMEOUT_S",
    "START_TIMEOUT_S",
    "STOP_TIMEOUT_S",
    "STORE_TIMEOUT_S",
    "answer",
    "answer_surviving",
    "cause",
    "lost",
    "raised",
]

log = structlog.get_logger(__name__)

START_TIMEOUT_S = 900.0
"""Starting or opening a server on an actor: installing its runtime on the node, its sandbox, discovery."""
ROUND_TIMEOUT_S = 3600.0
"""A round one actor runs whole: a colocated server's round, an LLM round."""
BATCH_TIMEOUT_S = 1800.0
"""A batch of probes on an executor host (each call has its own timeout inside)."""
SHARD_TIMEOUT_S = 600.0
"""Planning, absorbing or finishing a round on a shard actor."""
STORE_TIMEOUT_S = 600.0
"""A save, read, count or optimisation on the store owner."""
STOP_TIMEOUT_S = 120.0
"""Stopping a server's sandboxes, closing an actor."""
RESTART_WAIT_ATTEMPTS = 12
"""Polls (with backoff, ~40 s in all) for a restarting actor to accept calls again."""


async def answer(call: ray.ObjectRef, timeout: float, what: str) -> Any:
    """An actor's answer to one call, within its named timeout (:class:`WorkerError` if none came)."""
    try:
        return await asyncio.wait_for(call, timeout)
    except TimeoutError as exc:
        raise WorkerError(f"{what}: no answer in {timeout:.0f} s") from exc


async def answer_surviving(method, *args, timeout: float, what: str) -> Any:
    """Call an actor that may be restarting (or die during the call, holding no state yet): the call
    is made again on the restarted actor, a bounded number of times."""
    for attempt in range(RESTART_WAIT_ATTEMPTS):
        try:
            return await answer(method.remote(*args), timeout, what)
        except (RayActorError, ActorUnavailableError):
            log.warning("actor_restarting", call=what, attempt=attempt)
            await asyncio.sleep(min(0.2 * 2**attempt, 5.0))
    return await answer(method.remote(*args), timeout, what)


def lost(exc: BaseException, *, or_raised: type[BaseException] | None = None) -> bool:
    """The actor died (Ray restarts it, or gave up on it), or — with ``or_raised`` — its method
    raised that kind (a restarted actor that no longer holds what it held)."""
    if isinstance(exc, (RayActorError, ActorUnavailableError)):
        return True
    return or_raised is not None and (
        isinstance(exc, or_raised) or isinstance(getattr(exc, "cause", None), or_raised)
    )


def raised(exc: BaseException) -> ToolAtlasError:
    """What an actor's method raised, as the library's error (a Ray task error wraps it): ours as it
    is, anything else as a :class:`WorkerError` carrying its text."""
    inner = getattr(exc, "cause", None)
    return inner if isinstance(inner, ToolAtlasError) else WorkerError(cause(exc))


def cause(exc: BaseException) -> str:
    """What an actor's method raised (a Ray task error wraps it), as text."""
    inner = getattr(exc, "cause", None)
    return str(inner) if inner is not None else str(exc)
