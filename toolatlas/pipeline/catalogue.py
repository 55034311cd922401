"""Building the atlas of a whole catalogue in this process: servers in parallel, rounds per server.

Each server advances through its rounds independently (a slow server never holds back a fast
one). Its changed records go to the store at the end of every round, and every round's coverage
row is appended to ``<atlas dir>/coverage.jsonl`` as it happens, before the round's checkpoint
(:mod:`toolatlas.pipeline.persistence`: a killed build resumes to the atlas it would have built). The
build ends with ``build.json`` (the report), and the CLI then writes ``atlas.json`` and ``report.html``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import structlog

from toolatlas.config import Catalogue, ServerSpec
from toolatlas.errors import ConfigError
from toolatlas.graph.consistency import ConsistencyReport, check_consistency
from toolatlas.graph.models import Entry
from toolatlas.graph.state import RoundCoverage
from toolatlas.models import utcnow
from toolatlas.pipeline.driver import BuildReport, CatalogueBuild
from toolatlas.pipeline.local import LocalPlacement, StoreWriter
from toolatlas.pipeline.persistence import StoreSink
from toolatlas.store.atlas import AtlasStore
from toolatlas.store.paths import AtlasPaths
from toolatlas.workspace import Workspace

if TYPE_CHECKING:
    from toolatlas.llm import LlmClient

__all__ = ["build_catalogue", "use_llm", "write_consistency"]

log = structlog.get_logger(__name__)


async def build_catalogue(
    workspace: Workspace,
    store: AtlasStore,
    *,
    servers: Sequence[ServerSpec] | None = None,
    rounds: int | None = None,
    frontier: str = "graph",
    parallel_servers: int = 4,
    resume: bool = False,
    on_round: Callable[[RoundCoverage], None] | None = None,
    backend: str = "auto",
    sink: StoreSink | None = None,
) -> BuildReport:
    """Build (or extend, or with ``resume`` continue) the atlas of the catalogue's servers.

    ``backend``: ``auto`` runs the LLM method after the offline rounds when the catalogue has an
    ``[llm]`` endpoint; ``offline`` never does; ``llm`` requires one. ``sink`` persists the rounds
    (by default a :class:`StoreSink` over ``store``).
    """
    catalogue = workspace.catalogue
    chosen = list(servers) if servers is not None else catalogue.enabled_servers
    rounds = catalogue.build.rounds if rounds is None else rounds
    llm = open_llm(catalogue, backend)
    paths = AtlasPaths(catalogue)
    sink = sink or StoreSink(store, paths)
    placement = LocalPlacement(workspace, frontier, rounds=rounds, llm=llm)
    driver = CatalogueBuild(catalogue, placement, sink, StoreWriter(sink), frontier=frontier, rounds=rounds,
                            with_llm=llm is not None, parallel_servers=parallel_servers, on_round=on_round)
    started, t0 = utcnow(), time.perf_counter()
    try:
        coverage = await driver.run(chosen, resume=resume)
    finally:
        if llm is not None:
            await llm.aclose()
    seconds = time.perf_counter() - t0
    await asyncio.to_thread(write_consistency, paths, driver.entries)
    return driver.report(
        started, seconds, coverage, entries=store.count("entries"), engine="asyncio",
        llm=llm.ledger if llm is not None else None,
        server_seconds={name: round(s, 3) for name, s in sorted(placement.server_seconds.items())},
        tool_seconds={name: {t: round(v, 3) for t, v in sorted(tools.items())}
                      for name, tools in sorted(placement.tool_seconds.items())},
    )


def write_consistency(paths: AtlasPaths, entries: list[Entry]) -> ConsistencyReport:
    """Check what the atlas serves and write ``consistency.json``; a contradiction is logged as an error."""
    report = check_consistency(entries)
    paths.consistency.parent.mkdir(parents=True, exist_ok=True)
    document = {**report.summary(), **report.model_dump(mode="json")}
    paths.consistency.write_text(json.dumps(document, indent=2))
    if report.ok:
        log.info("atlas_consistent", **report.summary())
    else:
        log.error("atlas_inconsistent", **report.summary(),
                  first=[c.detail for c in report.contradictions[:3]] or report.without_evidence[:3])
    return report


def use_llm(catalogue: Catalogue, backend: str) -> bool:
    """Whether a build runs the LLM method: ``backend`` auto (when ``[llm]`` is set), offline or llm."""
    if backend not in ("auto", "offline", "llm"):
        raise ConfigError(None, [("backend", f"must be auto, offline or llm, not {backend!r}")])
    if backend == "llm" and catalogue.llm is None:
        raise ConfigError(str(catalogue.source) if catalogue.source else None,
                          [("llm", "--backend llm needs an [llm] endpoint in the catalogue")])
    return backend != "offline" and catalogue.llm is not None


def open_llm(catalogue: Catalogue, backend: str) -> LlmClient | None:
    """The build's LLM client, or None for an offline build (see :func:`use_llm`)."""
    if not use_llm(catalogue, backend):
        return None
    from toolatlas.llm import LlmClient

    assert catalogue.llm is not None  # use_llm: the catalogue has an [llm] section
    return LlmClient(catalogue.llm)
