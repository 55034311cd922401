"""Building the atlas of a whole catalogue in this process: servers in parallel, rounds per server.

Each server advances through its rounds independently (a slow server never holds back a fast
one). Its changed records go to the store at the end of every round, and every round's coverage
row is appended to ``<atlas dir>/coverage.jsonl`` as it happens. The build ends with
``build.json`` (the report), and the CLI then writes ``atlas.json`` and ``report.html``.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from typing import TYPE_CHECKING

import structlog

from toolatlas.build.server import ServerBuild
from toolatlas.build.shard import CHECKPOINT_VERSION, ServerShard
from toolatlas.config import Catalogue, ServerSpec
from toolatlas.errors import ConfigError, ToolAtlasError
from toolatlas.graph.consistency import ConsistencyReport, check_consistency
from toolatlas.graph.models import Entry
from toolatlas.graph.state import RoundCoverage
from toolatlas.llm.ledger import UsageLedger
from toolatlas.models import Frozen, utcnow
from toolatlas.store.atlas import AtlasStore
from toolatlas.workspace import Workspace

if TYPE_CHECKING:
    from toolatlas.llm import LlmClient

__all__ = [
    "AtlasPaths",
    "BuildReport",
    "StoreSink",
    "build_catalogue",
    "check_resumable",
    "write_consistency",
    "finish_report",
    "read_checkpoint",
    "read_coverage",
    "write_checkpoint",
]

log = structlog.get_logger(__name__)


class AtlasPaths:
    """Where one catalogue's atlas lives: the store, the coverage log, the build report, exports."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.root = catalogue.atlas_dir

    @property
    def store(self) -> Path:
        return self.root / "store"

    @property
    def coverage(self) -> Path:
        return self.root / "coverage.jsonl"

    @property
    def build_report(self) -> Path:
        return self.root / "build.json"

    def checkpoint(self, server: str) -> Path:
        return self.root / "checkpoints" / f"{server}.json"

    def rollouts(self, server: str) -> Path:
        """The LLM method's raw trajectories of ``server``: one JSON line per rollout, with its verdict."""
        return self.root / "rollouts" / f"{server}.jsonl"

    @property
    def export(self) -> Path:
        return self.root / "atlas.json"

    @property
    def consistency(self) -> Path:
        """The end-of-build consistency check of what the atlas serves (:mod:`toolatlas.graph.consistency`)."""
        return self.root / "consistency.json"

    @property
    def report(self) -> Path:
        return self.root / "report.html"


def open_store(catalogue: Catalogue) -> AtlasStore:
    paths = AtlasPaths(catalogue)
    paths.root.mkdir(parents=True, exist_ok=True)
    settings = catalogue.store.model_copy(update={"path": str(paths.store)})
    return AtlasStore.open(settings, prefix=_prefix(catalogue.name))


def _prefix(name: str) -> str:
    cleaned = "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_") or "atlas"
    return cleaned[:40]


class StoreSink:
    """Persists a shard's round: changed records to the store, the coverage row, then the checkpoint.

    The checkpoint is written last and atomically: a build killed at any moment resumes from the
    last round whose records are all stored (re-running a half-saved round upserts the same ids).
    """

    def __init__(self, store: AtlasStore, paths: AtlasPaths) -> None:
        self.store = store
        self.paths = paths
        self._lock = threading.Lock()

    def save_round(self, shard: ServerShard, coverage: RoundCoverage) -> None:
        checkpoint = shard.checkpoint()
        with self._lock:  # embedded stores are single-writer; servers' rounds end concurrently
            self.store.save(shard.take_dirty())
            self.store.flush()
            self.append_coverage(coverage)
        write_checkpoint(self.paths.checkpoint(shard.spec.name), checkpoint)

    def save_records(self, layers: dict[str, list]) -> None:
        """Upsert records outside a round (a refresh, a replay), durable on return."""
        with self._lock:
            self.store.save(layers)
            self.store.flush()

    def append_coverage(self, coverage: RoundCoverage) -> None:
        self.paths.coverage.parent.mkdir(parents=True, exist_ok=True)
        with self.paths.coverage.open("a", encoding="utf-8") as handle:
            handle.write(coverage.model_dump_json() + "\n")

    def load_checkpoint(self, server: str) -> dict | None:
        return read_checkpoint(self.paths.checkpoint(server))

    def save_rollouts(self, server: str, round_: int, lines: list[str]) -> None:
        save_rollouts(self.paths.rollouts(server), round_, lines)


def save_rollouts(path: Path, round_: int, lines: list[str]) -> None:
    """Keep one LLM round's raw trajectories: a re-run round (after a resume) replaces its earlier
    lines instead of adding to them. Written before the round's checkpoint, atomically."""
    kept = []
    if path.exists():
        kept = [line for line in path.read_text().splitlines() if json.loads(line).get("round") != round_]
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(f".tmp-{os.getpid()}")
    staging.write_text("".join(line + "\n" for line in [*kept, *lines]))
    os.replace(staging, path)


def write_checkpoint(path: Path, state: dict | str) -> None:
    """Write a checkpoint atomically (``state`` as a dict, or already as JSON text)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(f".tmp-{os.getpid()}")
    staging.write_text(state if isinstance(state, str) else json.dumps(state))
    os.replace(staging, path)


def read_checkpoint(path: Path) -> dict | None:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ToolAtlasError(f"checkpoint {path} is unreadable ({exc}); delete it to rebuild that server") from exc


def read_coverage(path: Path) -> list[RoundCoverage]:
    """Coverage rows, the latest per (server, round) — a resumed or repeated build appends."""
    if not path.exists():
        return []
    rows: dict[tuple[str, int], RoundCoverage] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = RoundCoverage.model_validate_json(line)
            rows.pop((row.server, row.round), None)
            rows[(row.server, row.round)] = row
    return list(rows.values())


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
) -> BuildReport:
    """Build (or extend, or with ``resume`` continue) the atlas of the catalogue's servers.

    ``backend``: ``auto`` runs the LLM method after the offline rounds when the catalogue has an
    ``[llm]`` endpoint; ``offline`` never does; ``llm`` requires one.
    """
    catalogue = workspace.catalogue
    chosen = list(servers) if servers is not None else catalogue.enabled_servers
    rounds = catalogue.build.rounds if rounds is None else rounds
    llm = open_llm(catalogue, backend)
    last_round = final_round(rounds, llm is not None)
    paths = AtlasPaths(catalogue)
    sink = StoreSink(store, paths)
    previous = read_coverage(paths.coverage)
    if not resume:  # a new build starts the coverage log of its servers afresh
        names = {s.name for s in chosen}
        paths.coverage.parent.mkdir(parents=True, exist_ok=True)
        paths.coverage.write_text("".join(r.model_dump_json() + "\n" for r in previous if r.server not in names))
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
        checkpoint = sink.load_checkpoint(spec.name) if resume else None
        if checkpoint is not None:
            check_resumable(checkpoint, catalogue.build.seed, frontier)
            if checkpoint["completed_round"] >= last_round:
                statuses[spec.name] = "ok"
                log.info("server_already_built", server=spec.name)
                return [r for r in previous if r.server == spec.name]
        async with gate:
            build = ServerBuild(
                workspace, spec, catalogue.build, frontier,
                sink=sink, on_round=on_round, on_probe=count_calls, rounds=rounds, resume=resume, llm=llm,
            )
            if checkpoint is None and not resume:
                # resumed without a checkpoint, the server completed no round: its stored records come
                # from the round the kill interrupted (the redo rewrites them; loaded, they count twice)
                build.preload = await asyncio.to_thread(store.server_records, spec.name)
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
        results = await asyncio.gather(*(one(s) for s in chosen))
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


def check_resumable(checkpoint: dict, seed: int, frontier: str) -> None:
    """A checkpoint resumes only the build that wrote it (same format, seed and frontier)."""
    if checkpoint.get("version") != CHECKPOINT_VERSION:
        raise ToolAtlasError(f"checkpoint of {checkpoint.get('server')!r} has format {checkpoint.get('version')}, "
                             f"this version writes {CHECKPOINT_VERSION}; rebuild without --resume")
    if checkpoint.get("seed") != seed or checkpoint.get("frontier") != frontier:
        raise ToolAtlasError(
            f"checkpoint of {checkpoint.get('server')!r} was written with seed {checkpoint.get('seed')} and frontier "
            f"{checkpoint.get('frontier')!r}, not {seed} and {frontier!r}: resume with the same settings or rebuild"
        )


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
