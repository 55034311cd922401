"""Catalogues of one server at two releases, for what an atlas says about a release.

:func:`release_catalogue` writes a TOML whose one server, ``versioned``, is
:mod:`toolatlas.testing.servers.versioned` at the release asked for (state kept in its process).
Two catalogues, one per release, in two folders, give two atlases to compare.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["RELEASE_2_CHANGES", "release_catalogue"]

_TOML = """version = 1
name = "releases"
description = "One in-memory notes server, at release {release}."

[build]                     # the method's defaults, but the rounds (and the rollouts and executors, when asked)
rounds = {rounds}
{rollouts}{executors}
[store]
backend = "edge"
path = "atlas"

[[servers]]
name = "versioned"
description = "Notes kept in memory."
transport = {{ command = "{python}", args = ["-m", "toolatlas.testing.servers.versioned", "--version", "{release}"] }}
"""


def release_catalogue(dest: Path, release: int, *, rounds: int = 1, rollouts: int | None = None,
                      executors: int | None = None) -> Path:
    """Write the catalogue of the ``versioned`` server at ``release`` (1 or 2) under ``dest``; ``rollouts``
    runs each seed task that often instead of the method's default, ``executors`` sandboxes share a
    server's probes instead of one."""
    dest.mkdir(parents=True, exist_ok=True)
    config = dest / "releases.toml"
    config.write_text(_TOML.format(release=release, rounds=rounds, python=sys.executable,
                                   rollouts="" if rollouts is None else f"rollouts_per_task = {rollouts}\n",
                                   executors="" if executors is None else f"executors_per_server = {executors}\n"))
    return config


RELEASE_2_CHANGES = frozenset({
    ("tool_removed", "export_all"),
    ("tool_added", "search_notes"),
    ("schema_changed", "add_note"),
    ("valid_use_fails", "shout"),
})
"""(change kind, tool) a diff of release 1's atlas against release 2's must report, however each was
made (built whole, refreshed, on either engine)."""
