"""Small builds of two demo servers, and what an atlas holds, for the resume and lost-round tests; the build of
one test server, and the uses it verified, for the tests of what a build learns from one server."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from toolatlas.config import Catalogue, StoreSettings, load_catalogue
from toolatlas.graph.models import Entry, EntryKind, EntryStatus
from toolatlas.home import Home
from toolatlas.pipeline import budget
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.pipeline.persistence import StoreSink
from toolatlas.pipeline.server import ServerBuild
from toolatlas.store.paths import AtlasPaths, open_store
from toolatlas.testing.opaque import server_catalogue
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
SERVERS = ["memory", "time"]
ROUNDS = 2


def catalogue_at(path: Path) -> Catalogue:
    """The demo catalogue, small budgets, its atlas at ``path``."""
    demo = load_catalogue(REPO / "configs" / "demo.toml")
    return demo.model_copy(update={
        "store": StoreSettings(backend="edge", path=str(path)),
        "build": demo.build.model_copy(update={"seed_tasks_per_tool": 1, "rollouts_per_task": 1}),
    })


@contextmanager
def planned_by_count() -> Iterator[None]:
    """Builds in this block plan by probe count alone: no tool is costly (:mod:`toolatlas.pipeline.budget`).

    A plan shares a round's time by what calls cost, so on a loaded host one call slowed by the
    scheduler can make a tool of milliseconds costly and drop some of its probes: two builds of the
    same seed then differ. The tests that compare a resumed, re-run or differently placed build with
    an uninterrupted one compare what the build does with its plan, which must not depend on the
    host's load; the time shares themselves, and their ledger's exact resume, are
    tests/pipeline/test_time_budget.py's.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(budget, "COSTLY_CALL_S", math.inf)
        yield


def build_at(path: Path) -> Catalogue:
    """The uninterrupted small build of :data:`SERVERS`, bootstrap + :data:`ROUNDS`, stored at ``path``
    (:func:`planned_by_count`)."""
    catalogue = catalogue_at(path)
    store = open_store(catalogue)
    try:
        with planned_by_count():
            asyncio.run(build_catalogue(Workspace(catalogue, Home(REPO / ".toolatlas")), store, rounds=ROUNDS,
                                        servers=[catalogue.server(s) for s in SERVERS]))
    finally:
        store.close()
    return catalogue


def atlas(catalogue: Catalogue) -> dict:
    """What the atlas holds: every record's id with its counts."""
    store = open_store(catalogue)
    try:
        records = store.records()
    finally:
        store.close()
    return {
        "entries": {e.id: (e.support, e.transitions, e.status.value) for e in records["entries"]},
        "traces": {t.id: (t.runs, t.resolved) for t in records["traces"]},
        "strategies": sorted(s.id for s in records["strategies"]),
        "tools": {n.id: (n.probes, tuple(n.arguments_exercised)) for n in records["tools"]},
    }


def server_entries(folder: Path, catalogue_file: Path, server: str, **settings: int) -> list[Entry]:
    """The active entries of one server's build (bootstrap + the catalogue's rounds) of ``catalogue_file``,
    stored where the catalogue says, the working area under ``folder``; ``settings`` replace build settings
    (``seed_tasks_per_tool=1``...)."""
    catalogue = load_catalogue(catalogue_file)
    workspace = Workspace(catalogue, Home(folder / "home"))
    store = open_store(catalogue)
    try:
        build = ServerBuild(workspace, catalogue.server(server), catalogue.build.model_copy(update=settings),
                            sink=StoreSink(store, AtlasPaths(catalogue)))
        asyncio.run(build.run())
        return [e for e in store.all("entries") if e.status is EntryStatus.ACTIVE]
    finally:
        store.close()


def library_server_entries(tmp_path_factory: pytest.TempPathFactory, name: str, *, rounds: int, description: str,
                           **settings: int) -> list[Entry]:
    """:func:`server_entries` of the in-library test server ``name`` (:func:`~toolatlas.testing.opaque.server_catalogue`),
    in a fresh folder."""
    folder = tmp_path_factory.mktemp(name)
    return server_entries(folder, server_catalogue(folder, name, rounds=rounds, description=description), name, **settings)


def uses(entries: list[Entry], tool: str) -> list[Entry]:
    """The verified uses (``uses:`` affordances) of ``tool``."""
    return [e for e in entries if e.tool == tool and e.kind is EntryKind.AFFORDANCE and e.signature.startswith("uses:")]
