"""Where one catalogue's atlas lives on disk, and opening its store.

An atlas directory holds the store, the coverage log, the build report, each server's checkpoint,
the LLM method's rollouts, the consistency check and the exports. Building writes them; guidance,
the lifecycle commands and the exports read them.
"""

from __future__ import annotations

from pathlib import Path

from toolatlas.config import Catalogue
from toolatlas.store.atlas import AtlasStore

__all__ = ["AtlasPaths", "open_store"]


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

    @property
    def checkpoints(self) -> Path:
        """Every server's checkpoint of the build under way (or last run): what ``--resume`` continues."""
        return self.root / "checkpoints"

    def checkpoint(self, server: str) -> Path:
        return self.checkpoints / f"{server}.json"

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
    """The catalogue's atlas store (created empty on first use)."""
    paths = AtlasPaths(catalogue)
    paths.root.mkdir(parents=True, exist_ok=True)
    settings = catalogue.store.model_copy(update={"path": str(paths.store)})
    return AtlasStore.open(settings, prefix=_prefix(catalogue.name))


def _prefix(name: str) -> str:
    cleaned = "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_") or "atlas"
    return cleaned[:40]
