"""Deterministic seed generators for snapshots (the demo catalogue's environments).

Interface: ``generate(name, kind, dest)`` writes the state entry for environment ``kind`` at
``dest`` (a folder for directory/git, a file for sqlite/json_file/postgres). To be filled in.
"""

from __future__ import annotations

from pathlib import Path

from toolatlas.errors import SnapshotError

__all__ = ["available", "generate"]

SEEDS: dict[str, tuple[str, object]] = {}


def available() -> dict[str, str]:
    """Seed name → environment kind it produces."""
    return {name: kind for name, (kind, _) in SEEDS.items()}


def generate(name: str, kind: str, dest: Path) -> None:
    if name not in SEEDS:
        raise SnapshotError(f"unknown seed {name!r}; known seeds: {', '.join(sorted(SEEDS)) or 'none'}")
    raise SnapshotError("seeds are not implemented yet")
