"""Verification on Ray: each server's replays run as a task on some node of the cluster.

The driver keeps the atlas store (it chooses the entries and writes what the replays showed,
:func:`toolatlas.lifecycle.verify.verify_catalogue`); a task gets one server's chosen entries,
installs the server's runtime on its node if needed, replays them on a fresh sandbox there and
returns a :class:`~toolatlas.lifecycle.verify.ServerVerification`.
"""

from __future__ import annotations

import asyncio

import ray
import structlog

from toolatlas.actors.common import actor_workspace
from toolatlas.config import ServerSpec
from toolatlas.graph.models import Entry
from toolatlas.lifecycle.verify import ReplayServer, ServerVerification, verify_server
from toolatlas.runtimes import install

__all__ = ["VERIFY_SERVER_TIMEOUT_S", "ray_replayer"]

log = structlog.get_logger(__name__)

VERIFY_SERVER_TIMEOUT_S = 3600.0
"""Seconds one server's replays may take on the cluster before the task is cancelled."""


def replay_on_node(config: str, server: str, entries: list[Entry]) -> ServerVerification:
    """One server's replays, where Ray placed this task."""
    workspace = actor_workspace(config)
    spec = workspace.catalogue.server(server)
    install(spec, workspace.home)
    return asyncio.run(verify_server(workspace, spec, entries))


def ray_replayer(config: str) -> ReplayServer:
    """A :data:`ReplayServer` that runs each server's replays as a Ray task."""
    task = ray.remote(num_cpus=1, max_retries=1)(replay_on_node)

    async def replay(spec: ServerSpec, entries: list[Entry]) -> ServerVerification:
        ref = task.remote(config, spec.name, entries)
        try:
            return await asyncio.wait_for(ref, VERIFY_SERVER_TIMEOUT_S)
        except TimeoutError:
            ray.cancel(ref, force=True)
            log.warning("verify_server_timed_out", server=spec.name, timeout_s=VERIFY_SERVER_TIMEOUT_S)
            return ServerVerification(server=spec.name, error=f"its replays took over {VERIFY_SERVER_TIMEOUT_S:g}s")
        except ray.exceptions.RayError as exc:
            log.warning("verify_server_failed", server=spec.name, error=str(exc)[:300])
            return ServerVerification(server=spec.name, error=f"{type(exc).__name__}: {str(exc)[:400]}")

    return replay
