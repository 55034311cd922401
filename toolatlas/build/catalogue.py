"""Building the atlas of a whole catalogue in this process: servers in parallel, rounds per server.

Each server advances through its rounds independently (a slow server never holds back a fast
one). Its changed records go to the store at the end of every round, and every round's coverage
row is appended to ``<atlas dir>/coverage.jsonl`` as it happens, before the round's checkpoint
(:mod:`toolatlas.build.persistence`: a killed build resumes to the atlas it would have built). The
build ends with ``build.json`` (the report), and the CLI then writes ``atlas.json`` and ``report.html``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import structlog

from toolatlas.build.persistence import (
    BuildFiles,
    ServerStart,
    StoreSink,
    check_resumable,
    read_checkpoint,
    read_coverage,
    save_rollouts,
    write_checkpoint,
)
from toolatlas.build.server import ServerBuild
from toolatlas.config import Catalogue, ServerSpec
from toolatlas.errors import ConfigError
from toolatlas.graph.consistency import ConsistencyReport, check_consistency
from toolatlas.graph.models import Entry
from toolatlas.graph.state import RoundCoverage
from toolatlas.llm.ledger import UsageLedger
from toolatlas.models import Frozen, utcnow
from toolatlas.store.atlas import AtlasStore
from toolatlas.store.paths import AtlasPaths, open_store
from toolatlas.workspace import Workspace

if TYPE_CHECKING:
    from toolatlas.llm import LlmClient

__all__ = [
    "AtlasPaths",
    "BuildFiles",
    "BuildReport",
    "ServerStart",
    "StoreSink",
    "build_catalogue",
    "check_resumable",
    "finish_report",
    "open_store",
    "read_checkpoint",
    "read_coverage",
    "save_rollouts",
    "write_checkpoint",
    "write_consistency",
]

log = structlog.get_logger(__name__)


class BuildReport(Frozen):
    """What a build did, per server and in total."""

    catalogue: str
    frontier: str
    started_at: str
    seconds: float
    servers: dict[str, str]
    """Server → ``ok`` or ``failed: reason``."""
    coverage: list[RoundCoverage]
    probes: int
    calls: int
    probes_per_s: float
    entries: int
    resets: int = 0
    """Probes that changed their instance (frozen and reset); the others needed no reset."""
    probing_seconds: float = 0.0
    """From the first server ready to probe to the last round's end (excludes start-up); 0 if not measured."""
    engine: str = "asyncio"
    """``asyncio`` (this process) or ``ray`` (actors on a cluster or a local Ray instance)."""
    nodes: dict[str, list[str]] = {}
    """Server → the Ray nodes its executors ran on (Ray builds)."""
    llm: UsageLedger | None = None
    """LLM builds: tokens, calls, retries, failures and cost per role, model, server and round."""
    server_seconds: dict[str, float] = {}
    """Server → its build's wall time (in-process builds)."""
    tool_seconds: dict[str, dict[str, float]] = {}
    """Server → tool → seconds its calls took (pilot included): no tool should dominate its server's build."""


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
    last_round = final_round(rounds, llm is not None)
    paths = AtlasPaths(catalogue)
    sink = sink or StoreSink(store, paths)
    previous = sink.begin([s.name for s in chosen], resume=resume)
    gate = asyncio.Semaphore(parallel_servers)
    started, t0 = utcnow(), time.perf_counter()
    calls = resets = 0
    statuses: dict[str, str] = {}
    costs: dict[str, tuple[float, dict[str, float]]] = {}

    def count_calls(rollout, verdict, delta) -> None:
        nonlocal calls, resets
        calls += len(rollout.steps)
        resets += rollout.reset

    async def one(spec: ServerSpec) -> list[RoundCoverage]:
        seed = catalogue.build.seed
        begun = sink.start(spec.name, seed, frontier) if resume else None
        if begun is not None and begun.completed_round >= last_round:
            statuses[spec.name] = "ok"
            log.info("server_already_built", server=spec.name)
            return [r for r in previous if r.server == spec.name]
        async with gate:
            start = begun or await asyncio.to_thread(sink.open_server, spec.name, seed, frontier, resume=False)
            build = ServerBuild(
                workspace, spec, catalogue.build, frontier,
                sink=sink, on_round=on_round, on_probe=count_calls, rounds=rounds, origin=start, llm=llm,
            )
            try:
                result = await build.run()
                costs[spec.name] = (build.seconds, dict(build.tool_seconds))
            except Exception as exc:  # one server's bug must not lose the others' work
                log.exception("server_build_crashed", server=spec.name)
                failed = RoundCoverage(server=spec.name, round=0, status="failed", detail=f"{type(exc).__name__}: {exc}"[:500])
                sink.append_coverage(failed)
                if on_round is not None:
                    on_round(failed)
                result = [failed]
            bad = [c for c in result if c.status != "ok"]
            statuses[spec.name] = "ok" if not bad else f"failed: {bad[-1].detail}"
            return result

    try:
        results = await all_or_none(one(s) for s in chosen)
    finally:
        if llm is not None:
            await llm.aclose()
    await asyncio.to_thread(store.optimize)
    await asyncio.to_thread(lambda: write_consistency(paths, store.all("entries")))
    report = finish_report(catalogue, store, frontier, started, time.perf_counter() - t0, statuses,
                           [row for rows in results for row in rows], calls, resets,
                           llm.ledger if llm is not None else None)
    report = report.model_copy(update={
        "server_seconds": {name: round(seconds, 3) for name, (seconds, _t) in sorted(costs.items())},
        "tool_seconds": {name: {t: round(v, 3) for t, v in sorted(tools.items())} for name, (_s, tools) in sorted(costs.items())},
    })
    AtlasPaths(catalogue).build_report.write_text(json.dumps(report.model_dump(mode="json"), indent=2))
    return report


async def all_or_none(coroutines) -> list:
    """Await every coroutine concurrently; if one raises, cancel the rest (and wait for them) before
    raising it: a build that stops leaves nothing running."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


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

    return LlmClient(catalogue.llm)


def final_round(rounds: int, with_llm: bool) -> int:
    """The last round of a build: the offline rounds', or the LLM method's after them."""
    if not with_llm:
        return rounds
    from toolatlas.method import llm_rounds

    return llm_rounds(rounds)[-1]


def finish_report(
    catalogue, store, frontier, started, seconds, statuses, coverage, calls, resets, llm: UsageLedger | None = None
) -> BuildReport:
    probes = sum(c.probes for c in coverage)
    report = BuildReport(
        catalogue=catalogue.name,
        frontier=frontier,
        started_at=started.isoformat(),
        seconds=round(seconds, 3),
        servers=statuses,
        coverage=coverage,
        probes=probes,
        calls=calls,
        resets=resets,
        probes_per_s=round(probes / seconds, 2) if seconds else 0.0,
        entries=store.count("entries"),
        llm=llm,
    )
    AtlasPaths(catalogue).build_report.write_text(json.dumps(report.model_dump(mode="json"), indent=2))
    return report
