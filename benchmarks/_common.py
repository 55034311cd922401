"""Shared bits of the benchmarks: timing, statistics, result files. Benchmarks print ratios
against a baseline measured in the same process, interleaved, because these machines are noisy."""

from __future__ import annotations

import json
import platform
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import psutil

if TYPE_CHECKING:
    from toolatlas.workspace import Workspace

RESULTS = Path(__file__).resolve().parent / "results"
REPO = Path(__file__).resolve().parents[1]


def timed(func: Callable[[], Any]) -> float:
    """Seconds one call of ``func`` takes."""
    t0 = time.perf_counter()
    func()
    return time.perf_counter() - t0


def interleaved(ours: Callable[[], Any], baseline: Callable[[], Any], iterations: int) -> tuple[list[float], list[float]]:
    """Time ``ours`` and ``baseline`` alternately so that load on the machine hits both alike."""
    mine, theirs = [], []
    for i in range(iterations):
        if i % 2:
            mine.append(timed(ours))
            theirs.append(timed(baseline))
        else:
            theirs.append(timed(baseline))
            mine.append(timed(ours))
    return mine, theirs


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def percentile_ms(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def save(name: str, payload: dict[str, Any]) -> Path:
    """Write ``benchmarks/results/<name>.json`` with the machine it was measured on."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = {"benchmark": name, "machine": platform.node(), "python": platform.python_version(), **payload}
    path.write_text(json.dumps(payload, indent=2))
    return path


class ProcessTreeSampler:
    """Samples this process and everything under it (a local Ray instance, its actors, their
    server processes) in a thread, every ``interval`` seconds, while used as a context manager.
    Subclasses say what a sample keeps (:meth:`sample`)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self, tree: list[psutil.Process]) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            try:
                self.sample([me, *me.children(recursive=True)])
            except psutil.Error:
                pass  # a process went away mid-walk: the next sample sees the tree as it is
            self._stop.wait(self.interval)


async def demo_atlas_export(scratch: Path, servers: Sequence[str], rounds: int) -> tuple[Workspace, Path]:
    """The demo catalogue with its store in ``scratch/store``, ``servers`` built into it (offline,
    ``rounds`` rounds, runtimes from the repository's home), and the atlas exported to
    ``scratch/atlas.json``: ``(workspace, export)``."""
    from toolatlas.config import StoreSettings, load_catalogue
    from toolatlas.export import assemble
    from toolatlas.home import Home
    from toolatlas.pipeline.catalogue import build_catalogue
    from toolatlas.store.paths import open_store
    from toolatlas.workspace import Workspace

    demo = load_catalogue(REPO / "configs" / "demo.toml")
    catalogue = demo.model_copy(update={"store": StoreSettings(backend="edge", path=str(scratch / "store"))})
    workspace = Workspace(catalogue, Home(REPO / ".toolatlas"))
    store = open_store(catalogue)
    try:
        await build_catalogue(workspace, store, servers=[catalogue.server(s) for s in servers], rounds=rounds)
        records = store.records()
    finally:
        store.close()
    export = scratch / "atlas.json"
    export.write_text(assemble(catalogue.name, records["tools"], records["entries"], records["traces"],
                               records["strategies"], []).model_dump_json(by_alias=True))
    return workspace, export
