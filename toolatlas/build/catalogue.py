"""Building the atlas of a whole catalogue in this process: servers in parallel, rounds per server.

Each server advances through its rounds independently (a slow server never holds back a fast
one). Its changed records go to the store at the end of every round, and every round's coverage
row is appended to ``<atlas dir>/coverage.jsonl`` as it happens. The build ends with
``build.json`` (the report), and the CLI then writes ``atlas.json`` and ``report.html``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import structlog

from toolatlas.build.frontier import frontier_for
from toolatlas.build.server import ServerBuild
from toolatlas.config import Catalogue, ServerSpec
from toolatlas.graph.state import RoundCoverage, ServerGraph
from toolatlas.models import Frozen, utcnow
from toolatlas.store.atlas import AtlasStore
from toolatlas.workspace import Workspace

__all__ = ["AtlasPaths", "BuildReport", "StoreSink", "build_catalogue", "read_coverage"]

log = structlog.get_logger(__name__)


class AtlasPaths:
    """Where one catalogue's atlas lives: the store, the coverage log, the build report, exports."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.root = catalogue.resolve(catalogue.store.path)

    @property
    def store(self) -> Path:
        return self.root / "store"

    @property
    def coverage(self) -> Path:
        return self.root / "coverage.jsonl"

    @property
    def build_report(self) -> Path:
        return self.root / "build.json"

    @property
    def export(self) -> Path:
        return self.root / "atlas.json"

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
    """Persists a server's changed records and its coverage rows at the end of every round."""

    def __init__(self, store: AtlasStore, coverage_log: Path) -> None:
        self.store = store
        self.coverage_log = coverage_log
        self._lock = threading.Lock()

    def save_round(self, graph: ServerGraph, coverage: RoundCoverage) -> None:
        with self._lock:  # embedded stores are single-writer; servers' rounds end concurrently
            self.store.save(graph.take_dirty())
            self.store.flush()
            self.append_coverage(coverage)

    def append_coverage(self, coverage: RoundCoverage) -> None:
        self.coverage_log.parent.mkdir(parents=True, exist_ok=True)
        with self.coverage_log.open("a", encoding="utf-8") as handle:
            handle.write(coverage.model_dump_json() + "\n")


def read_coverage(path: Path) -> list[RoundCoverage]:
    if not path.exists():
        return []
    return [RoundCoverage.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]


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


async def build_catalogue(
    workspace: Workspace,
    store: AtlasStore,
    *,
    servers: Sequence[ServerSpec] | None = None,
    rounds: int | None = None,
    frontier: str = "graph",
    parallel_servers: int = 4,
    on_round: Callable[[RoundCoverage], None] | None = None,
) -> BuildReport:
    """Build (or extend) the atlas of the catalogue's servers; returns the build report."""
    catalogue = workspace.catalogue
    chosen = list(servers) if servers is not None else catalogue.enabled_servers
    paths = AtlasPaths(catalogue)
    sink = StoreSink(store, paths.coverage)
    gate = asyncio.Semaphore(parallel_servers)
    started, t0 = utcnow(), time.perf_counter()
    calls = 0
    statuses: dict[str, str] = {}

    def count_calls(rollout, verdict, delta) -> None:
        nonlocal calls
        calls += len(rollout.steps)

    async def one(spec: ServerSpec) -> list[RoundCoverage]:
        async with gate:
            build = ServerBuild(
                workspace,
                spec,
                catalogue.build,
                frontier_for(frontier),
                sink=sink,
                on_round=on_round,
                on_probe=count_calls,
                rounds=rounds,
            )
            stored = await asyncio.to_thread(store.server_records, spec.name)
            build.preload = stored
            try:
                result = await build.run()
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

    results = await asyncio.gather(*(one(s) for s in chosen))
    await asyncio.to_thread(store.optimize)
    coverage = [row for rows in results for row in rows]
    seconds = time.perf_counter() - t0
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
        probes_per_s=round(probes / seconds, 2) if seconds else 0.0,
        entries=await asyncio.to_thread(store.count, "entries"),
    )
    paths.build_report.write_text(json.dumps(report.model_dump(mode="json"), indent=2))
    return report
