"""The driver of a catalogue's build, whatever runs its servers' rounds.

:class:`CatalogueBuild` decides everything a build decides once: where each server starts (a new
build, or ``--resume`` from its file), running its rounds in order until one is not ``ok``, running
a round again when the worker that held the server's state was lost (:class:`~toolatlas.errors.
RoundLost`: reopened from its last durable start), persisting every round in round order — records,
coverage row, then checkpoint (:mod:`toolatlas.pipeline.persistence`) — off the rounds' critical path,
a failed row for a server that could not be built, and the build's report.

Where the rounds run is a :class:`Placement`: in this process
(:class:`~toolatlas.pipeline.local.LocalPlacement`), on Ray actors (``actors/``), or a test double
that loses rounds on purpose (:class:`~toolatlas.testing.placements.LosingPlacement`). Where the
records go is a :class:`RecordWriter`: the store in this process, or the actor that owns it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

import structlog

from toolatlas.config import Catalogue, ServerSpec
from toolatlas.errors import ConfigError, RoundLost, ToolAtlasError
from toolatlas.graph.models import Entry
from toolatlas.graph.state import RoundCoverage
from toolatlas.llm.ledger import UsageLedger
from toolatlas.models import Frozen
from toolatlas.pipeline import TOPOLOGIES
from toolatlas.pipeline.checkpoint import RoundResult, ServerStart
from toolatlas.pipeline.persistence import BuildFiles

__all__ = ["BuildReport", "CatalogueBuild", "Placement", "RecordWriter", "choose_topology", "planned_rounds"]

log = structlog.get_logger(__name__)

def choose_topology(catalogue: Catalogue, topology: str, *, config: str) -> str:
    """The topology ``topology`` asks for, ``colocated``, ``split`` or ``pools``: a :class:`ConfigError`
    naming ``config`` when it is unknown or cannot hold the catalogue's executors per server."""
    single = catalogue.build.executors_per_server == 1
    if topology not in TOPOLOGIES:
        raise ConfigError(config, [("topology", f"must be one of {', '.join(TOPOLOGIES)}, not {topology!r}")])
    if topology == "colocated" and not single:
        raise ConfigError(config, [("build.executors_per_server", "the colocated topology runs one executor per server")])
    if topology == "auto":
        return "colocated" if single else "split"
    return topology


class Placement(Protocol):
    """Where a build's servers run their rounds (this process, Ray actors)."""

    async def open(self, spec: ServerSpec, start: ServerStart, focus: frozenset[str] | None) -> int:
        """Start ``spec`` from ``start`` (replacing any earlier opening); the first round still to run.
        Raises a :class:`~toolatlas.errors.ToolAtlasError` when the server cannot start."""
        ...

    async def run_round(self, server: str, round_: int) -> RoundResult:
        """Run one round of an open server (:class:`~toolatlas.errors.RoundLost` if its state is gone)."""
        ...

    async def close(self, server: str) -> None:
        """Stop the server's sandboxes and forget it."""
        ...


class RecordWriter(Protocol):
    """Where a build's records go: the atlas store, in this process or owned by an actor."""

    async def server_records(self, server: str) -> dict[str, list]:
        """Everything stored of ``server``, by layer."""
        ...

    async def save(self, server: str, records: dict[str, list]) -> None:
        """Upsert records, durable on return."""
        ...

    async def finish(self) -> list[Entry]:
        """Build the search indexes; every entry of the atlas (for the consistency check)."""
        ...


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


def planned_rounds(rounds: int, with_llm: bool) -> list[int]:
    """A server's rounds: bootstrap and ``rounds`` offline rounds, then the LLM method's."""
    planned = list(range(rounds + 1))
    if with_llm:
        from toolatlas.pipeline.method import llm_rounds

        planned += list(llm_rounds(rounds))
    return planned


class CatalogueBuild:
    """One build of a catalogue's servers over a placement (see the module's docstring)."""

    def __init__(
        self,
        catalogue: Catalogue,
        placement: Placement,
        files: BuildFiles,
        writer: RecordWriter,
        *,
        frontier: str = "graph",
        rounds: int | None = None,
        with_llm: bool = False,
        parallel_servers: int | None = None,
        on_round: Callable[[RoundCoverage], None] | None = None,
        focus: dict[str, frozenset[str]] | None = None,
    ) -> None:
        self.catalogue = catalogue
        self.placement = placement
        self.files = files
        self.writer = writer
        self.frontier = frontier
        self.rounds = catalogue.build.rounds if rounds is None else rounds
        self.planned = planned_rounds(self.rounds, with_llm)
        self.gate = asyncio.Semaphore(parallel_servers) if parallel_servers else None
        self.on_round = on_round
        self.focus = focus or {}
        self.statuses: dict[str, str] = {}
        """Server → ``ok`` or ``failed: reason``."""
        self.redone: list[tuple[str, int]] = []
        """(server, round) run again after the worker holding the server was lost."""
        self.calls = self.resets = 0
        self.window = [float("inf"), 0.0]
        """From the first server ready to probe to the last round's end: the steady-state window."""
        self.entries: list[Entry] = []

    async def run(self, servers: Sequence[ServerSpec], *, resume: bool = False) -> list[RoundCoverage]:
        """Build ``servers``; every coverage row, in server order. A server's failure is its own
        (a failed row, the others go on); an error of the build itself stops every server."""
        previous = self.files.begin([s.name for s in servers], resume=resume)
        tasks = [asyncio.ensure_future(self._server(spec, resume, previous)) for spec in servers]
        try:
            results = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        self.entries = await self.writer.finish()
        return [row for rows in results for row in rows]

    def report(
        self, started: datetime, seconds: float, coverage: list[RoundCoverage], *, entries: int, engine: str,
        llm: UsageLedger | None = None, **details,
    ) -> BuildReport:
        """The build's report (written to ``build.json``); ``details``: what only its placement knows."""
        probes = sum(c.probes for c in coverage)
        report = BuildReport(
            catalogue=self.catalogue.name,
            frontier=self.frontier,
            started_at=started.isoformat(),
            seconds=round(seconds, 3),
            servers=self.statuses,
            coverage=coverage,
            probes=probes,
            calls=self.calls,
            resets=self.resets,
            probes_per_s=round(probes / seconds, 2) if seconds else 0.0,
            entries=entries,
            engine=engine,
            probing_seconds=round(max(0.0, self.window[1] - self.window[0]), 3),
            llm=llm,
            **details,
        )
        self.files.paths.build_report.write_text(report.model_dump_json(indent=2))
        return report

    async def _server(self, spec: ServerSpec, resume: bool, previous: list[RoundCoverage]) -> list[RoundCoverage]:
        name, seed = spec.name, self.catalogue.build.seed
        begun = self.files.start(name, seed, self.frontier) if resume else None
        if begun is not None and begun.completed_round >= self.planned[-1]:
            self.statuses[name] = "ok"
            log.info("server_already_built", server=name)
            return [r for r in previous if r.server == name]
        if self.gate is None:
            return await self._build(spec, begun)
        async with self.gate:
            return await self._build(spec, begun)

    async def _build(self, spec: ServerSpec, begun: ServerStart | None) -> list[RoundCoverage]:
        name = spec.name
        try:
            if begun is None:  # the server begins in this build: its opening holds what earlier builds stored
                stored = await self.writer.server_records(name)
                begun = await asyncio.to_thread(self.files.open, name, self.catalogue.build.seed, self.frontier, stored)
            try:
                first = await self.placement.open(spec, begun, self.focus.get(name))
            except ToolAtlasError as exc:
                return [self._failed(name, str(exc))]
            self.window[0] = min(self.window[0], time.perf_counter())
            try:
                rows = await self._rounds(spec, first)
            finally:
                await self.placement.close(name)
        except RoundLost as exc:  # lost again while being reopened: the server fails, the others go on
            log.warning("server_lost", server=name, detail=str(exc))
            return [self._failed(name, str(exc))]
        except Exception as exc:  # one server's bug must not lose the others' work
            log.exception("server_build_crashed", server=name)
            return [self._failed(name, f"{type(exc).__name__}: {exc}")]
        bad = [r for r in rows if r.status != "ok"]
        self.statuses[name] = "ok" if not bad else f"failed: {bad[-1].detail}"
        return rows

    async def _rounds(self, spec: ServerSpec, first: int) -> list[RoundCoverage]:
        """Run the server's rounds from ``first`` in order, until one is not ``ok``; each is persisted
        in round order while the next runs, and every persisting is awaited before returning."""
        name = spec.name
        rows: list[RoundCoverage] = []
        persisted: asyncio.Future[None] | None = None
        try:
            for round_ in (r for r in self.planned if r >= first):
                while True:
                    try:
                        result = await self.placement.run_round(name, round_)
                        break
                    except RoundLost:
                        log.warning("round_lost", server=name, round=round_)
                        self.redone.append((name, round_))
                        if persisted is not None:
                            await persisted
                        start = await asyncio.to_thread(self.files.start, name, self.catalogue.build.seed,
                                                        self.frontier)
                        assert start is not None, "a server's opening is written before its first round"
                        await self.placement.open(spec, start, self.focus.get(name))
                if result.summary is not None:
                    self.calls += result.summary.calls
                    self.resets += result.summary.resets
                persisted = asyncio.ensure_future(self._persist(name, result, after=persisted))
                rows.append(result.coverage)
                self.window[1] = max(self.window[1], time.perf_counter())
                if result.coverage.status != "ok":
                    break
        finally:
            if persisted is not None:
                await asyncio.gather(persisted, return_exceptions=True)
        if persisted is not None:
            await persisted  # raises what persisting raised
        return rows

    async def _persist(self, name: str, result: RoundResult, *, after: asyncio.Future[None] | None) -> None:
        """A finished round's trajectories and records, then its coverage row, then its checkpoint."""
        if after is not None:
            await after
        if result.trajectories:
            await asyncio.to_thread(self.files.save_rollouts, name, result.coverage.round, result.trajectories)
        await self.writer.save(name, result.records.layers())
        await asyncio.to_thread(self.files.append_coverage, result.coverage)
        # a graph's checkpoint is hundreds of kB of JSON: written off the event loop
        await asyncio.to_thread(self.files.write_checkpoint, name, result.checkpoint)
        if self.on_round is not None:
            self.on_round(result.coverage)

    def _failed(self, name: str, detail: str) -> RoundCoverage:
        """A server that could not be built: its failed coverage row, logged and reported."""
        row = RoundCoverage(server=name, round=0, status="failed", detail=detail[:500])
        self.files.append_coverage(row)
        if self.on_round is not None:
            self.on_round(row)
        self.statuses[name] = f"failed: {row.detail}"
        return row
