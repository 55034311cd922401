"""Shared fixtures: a throwaway ToolAtlas home per test session, the demo catalogue built once for
the tests that read its atlas, the wild catalogue's fast subset built once for every test that
reads it, and the releases of the ``versioned`` test server built once and copied to each test
that changes them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from folders import copy_folder

from toolatlas.home import Home
from toolatlas.logs import configure_logging

if TYPE_CHECKING:
    from toolatlas.config import Catalogue
    from toolatlas.pipeline.catalogue import BuildReport
    from toolatlas.workspace import Workspace

configure_logging("info")

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture()
def tmp_home(tmp_path: Path) -> Home:
    """An empty ToolAtlas home for one test."""
    return Home(tmp_path / "home").ensure()


DEMO_ROUNDS = 2
"""The demo build's exploration rounds (after its bootstrap)."""


@dataclass(frozen=True)
class DemoBuild:
    """The demo catalogue built offline, its store closed again: what the build reported and stored."""

    catalogue: Catalogue
    workspace: Workspace
    rounds: int
    report: BuildReport
    records: dict


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory: pytest.TempPathFactory) -> DemoBuild:
    """The demo catalogue's five real servers built offline (bootstrap + :data:`DEMO_ROUNDS` rounds)
    into a store of this session: the demo build's tests and the demo guidance-quality tests read what
    it stored (the demo build's tests then build ``time`` again into that store)."""
    import asyncio

    from toolatlas.config import StoreSettings, load_catalogue
    from toolatlas.pipeline.catalogue import build_catalogue
    from toolatlas.store.paths import open_store
    from toolatlas.workspace import Workspace

    demo = load_catalogue(REPO / "configs" / "demo.toml")
    store_dir = tmp_path_factory.mktemp("demo-atlas")
    catalogue = demo.model_copy(update={"store": StoreSettings(backend="edge", path=str(store_dir))})
    workspace = Workspace(catalogue, Home(REPO / ".toolatlas"))
    store = open_store(catalogue)
    try:
        report = asyncio.run(build_catalogue(workspace, store, rounds=DEMO_ROUNDS))
        records = store.records()
    finally:
        store.close()
    return DemoBuild(catalogue, workspace, DEMO_ROUNDS, report, records)


@pytest.fixture(scope="session")
def wild_fast_subset(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The wild catalogue's fast subset built offline once (recall and consistency tests read it)."""
    from toolatlas.testing.wild import FAST_SUBSET, build_wild

    return build_wild(tmp_path_factory.mktemp("wild") / "atlas", FAST_SUBSET)


RELEASE_EXECUTORS = 2
"""The executors of :func:`built_release`'s catalogues."""


@pytest.fixture(scope="session")
def built_release(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``built_release(dest, release=1, rounds=1, rollouts=1)``: the catalogue of the ``versioned``
    server at ``release`` with its atlas built (offline), copied into ``dest``; ``rollouts`` runs each
    seed task that often (once by default: the tests read what an atlas holds, not how often it was
    seen; None: the method's default). Each (release, rounds, rollouts) is built once per test session,
    so tests that refresh, verify or export it do not build it again. The catalogue has two executors:
    the server keeps its notes in memory and restarts after most probes, and two executors overlap the
    restarts (the atlas is the one executor's, tests/pipeline/test_resume.py's TestDeterminism)."""
    from toolatlas.cli import main
    from toolatlas.testing.releases import release_catalogue

    built: dict[tuple[int, int, int | None], Path] = {}

    def copy(dest: Path, release: int = 1, rounds: int = 1, rollouts: int | None = 1) -> Path:
        key = (release, rounds, rollouts)
        if key not in built:
            folder = tmp_path_factory.mktemp(f"release{release}-rounds{rounds}-rollouts{rollouts or 'default'}")
            config = release_catalogue(folder, release, rounds=rounds, rollouts=rollouts, executors=RELEASE_EXECUTORS)
            assert main(["build", str(config), "--engine", "asyncio"]) == 0
            built[key] = folder
        copy_folder(built[key], dest)
        return dest / "releases.toml"

    return copy
