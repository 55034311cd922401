"""Admitting agents' reports on Ray: each server's reports are replayed as a task on some node; the
driver keeps the store (it hands each task its server's records and saves what the task returns)."""

from __future__ import annotations

import asyncio

import ray

from toolatlas.actors.common import actor_workspace
from toolatlas.runtimes import install
from toolatlas.trust.admission import Admission, AdmitServer, admit_server
from toolatlas.trust.outcomes import QueuedOutcome

__all__ = ["ADMIT_SERVER_TIMEOUT_S", "ray_admitter"]

ADMIT_SERVER_TIMEOUT_S = 3600.0
"""Seconds one server's replays may take on the cluster."""


def admit_on_node(config: str, records: dict, server: str, items: list[QueuedOutcome]) -> tuple[list[Admission], dict]:
    """One server's reports, replayed where Ray placed this task."""
    workspace = actor_workspace(config)
    if server in {spec.name for spec in workspace.catalogue.servers}:
        install(workspace.catalogue.server(server), workspace.home)
    return asyncio.run(admit_server(workspace, records, server, items))


def ray_admitter(config: str) -> AdmitServer:
    """An :data:`AdmitServer` that replays each server's reports as a Ray task."""
    task = ray.remote(num_cpus=1, max_retries=1)(admit_on_node)

    async def admit(records: dict, server: str, items: list[QueuedOutcome]) -> tuple[list[Admission], dict]:
        return await asyncio.wait_for(task.remote(config, records, server, items), ADMIT_SERVER_TIMEOUT_S)

    return admit
