"""The build as a command runs it, on an engine chosen by name: ``asyncio`` (this process, through
:func:`toolatlas.pipeline.catalogue.build_catalogue`) or ``ray`` (the Ray placements of :mod:`toolatlas.actors`).

Like every ``commands`` module this one sits above :mod:`toolatlas.actors`: it is where a command wires the
library to a placement, and it imports the actors only inside the function that chose Ray, so
``toolatlas`` still imports without Ray.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from toolatlas.config import Catalogue, ServerSpec
from toolatlas.errors import ConfigError
from toolatlas.graph.state import RoundCoverage
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.pipeline.driver import BuildReport
from toolatlas.store.paths import open_store
from toolatlas.workspace import Workspace

__all__ = ["build_atlas"]


def build_atlas(
    config: Path,
    catalogue: Catalogue,
    servers: Sequence[ServerSpec],
    *,
    engine: str = "asyncio",
    rounds: int | None = None,
    frontier: str = "graph",
    resume: bool = False,
    on_round: Callable[[RoundCoverage], None] | None = None,
    backend: str = "auto",
    jobs: int = 4,
    hosts: int | None = None,
    topology: str = "auto",
    address: str | None = None,
    on_start: Callable[[str], None] | None = None,
) -> BuildReport:
    """Build the atlas of ``servers`` on an engine: ``asyncio`` (this process, ``jobs`` servers at a
    time) or ``ray`` (actors on the cluster at ``address`` / $RAY_ADDRESS, else a local Ray instance,
    ``hosts`` executor hosts in ``topology``). ``on_start`` hears what the Ray build runs on."""
    rounds = catalogue.build.rounds if rounds is None else rounds
    if engine == "ray":
        from toolatlas.actors.coordinator import RayBuild
        from toolatlas.ray_session import ray_session

        if on_start is not None:
            where = address or os.environ.get("RAY_ADDRESS")
            on_start(f"connecting to the Ray cluster at {where}…" if where else "starting a local Ray instance…")
        with ray_session(address):
            build = RayBuild(config, catalogue, frontier=frontier, hosts=hosts, backend=backend, topology=topology)
            if on_start is not None:
                on_start(f"ray: {build.node_count} node(s), {build.host_count} executor hosts, "
                         f"{build.shard_count} shard(s), {build.topology} topology")
            return asyncio.run(build.run(servers, rounds=rounds, resume=resume, on_round=on_round))
    if engine != "asyncio":
        raise ConfigError(None, [("engine", f"must be asyncio or ray, not {engine!r}")])
    store = open_store(catalogue)
    try:
        return asyncio.run(build_catalogue(Workspace(catalogue), store, servers=servers, rounds=rounds,
                                           frontier=frontier, parallel_servers=jobs, resume=resume,
                                           on_round=on_round, backend=backend))
    finally:
        store.close()
