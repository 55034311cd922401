"""Builds of the wild catalogue (``configs/wild.toml``) for tests and benchmarks: chosen servers built
offline in-process into a throwaway store.

:data:`FAST_SUBSET` is the three servers ``make test-servers`` installs, of different kinds
(``units``: no state, PyPI; ``eslint``: a directory, npm; ``taskmanager``: a JSON file, npm).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from toolatlas.config import Catalogue, StoreSettings, load_catalogue
from toolatlas.graph.models import Entry
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.pipeline.driver import BuildReport
from toolatlas.runtimes.installer import install
from toolatlas.store.paths import open_store
from toolatlas.workspace import Workspace

__all__ = ["FAST_SUBSET", "WildBuild", "build_wild"]

REPO = Path(__file__).resolve().parents[2]
FAST_SUBSET = ("units", "eslint", "taskmanager")


@dataclass(frozen=True)
class WildBuild:
    catalogue: Catalogue
    workspace: Workspace
    report: BuildReport
    entries: list[Entry]


def build_wild(store_dir: Path, servers: tuple[str, ...] | None = None) -> WildBuild:
    """Build ``servers`` of the wild catalogue (all when None) into a store at ``store_dir``."""
    base = load_catalogue(REPO / "configs" / "wild.toml")
    catalogue = base.model_copy(update={"store": StoreSettings(backend="edge", path=str(store_dir))})
    workspace = Workspace(catalogue)
    chosen = [s for s in catalogue.enabled_servers if servers is None or s.name in servers]
    for spec in chosen:
        install(spec, workspace.home)  # a no-op once installed (make test-servers does it up front)
    store = open_store(catalogue)
    try:
        report = asyncio.run(build_catalogue(workspace, store, servers=chosen))
        entries = store.all("entries")
    finally:
        store.close()
    return WildBuild(catalogue, workspace, report, entries)
