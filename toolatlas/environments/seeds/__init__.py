"""Deterministic seed generators that build the demo and wild catalogues' starting states.

``generate(name, kind, dest)`` writes the state entry of environment ``kind`` at ``dest``: a
folder for ``directory`` and ``git``, a file for ``sqlite``, ``json_file`` and ``postgres`` (for
PostgreSQL a SQL script that the environment runs into its template database). ``dest`` must not
exist yet; its parent must. Every seed is byte-for-byte reproducible (a SQLite file only for the
same SQLite library version, which writes its version number into the header).

=====================  =========  ==============================================================
seed                   kind       what it builds
=====================  =========  ==============================================================
``demo.filesystem``    directory  a small project tree (docs, code, data, logs, odd file names)
``demo.sqlite``        sqlite     a shop database: customers, products, orders, order items
``demo.git``           git        a repository with history, two branches and a tag
``demo.memory``        json_file  the knowledge graph (JSON Lines) of the MCP memory server
``demo.postgres``      postgres   a PostgreSQL script for a lending library
``wild.spreadsheets``  directory  a two-sheet ``.xlsx`` workbook, a CSV price list and a note
``wild.documents``     directory  two Word documents (a report with headings and a table, a letter)
``wild.todo``          directory  a ``todo.txt`` task list and its ``done.txt``
``wild.tasks``         json_file  a request/task manager's JSON file, each workflow step represented
``wild.jsproject``     directory  a JavaScript project with an ESLint flat config and files to lint
=====================  =========  ==============================================================
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

# Importing a generator module registers its seeds.
from toolatlas.environments.seeds import (  # noqa: F401
    js_project,
    knowledge_graph,
    library,
    office,
    project_tree,
    repository,
    shop,
    task_lists,
)
from toolatlas.environments.seeds._registry import SEEDS, Seed
from toolatlas.errors import SnapshotError

__all__ = ["SEEDS", "Seed", "available", "generate"]


def available() -> dict[str, str]:
    """Seed name → environment kind it produces."""
    return {name: entry.kind for name, entry in sorted(SEEDS.items())}


def generate(name: str, kind: str, dest: Path) -> None:
    """Write the state entry of seed ``name`` for environment ``kind`` at ``dest`` (which must not exist)."""
    entry = SEEDS.get(name)
    if entry is None:
        known = ", ".join(f"{n} ({k})" for n, k in available().items()) or "none"
        raise SnapshotError(f"unknown seed {name!r}; known seeds: {known}")
    if entry.kind != kind:
        raise SnapshotError(
            f"seed {name!r} builds a {entry.kind!r} environment, not {kind!r}; "
            f"seeds for {kind!r}: {', '.join(n for n, k in available().items() if k == kind) or 'none'}"
        )
    if dest.exists() or dest.is_symlink():
        raise SnapshotError(f"seed {name!r} will not overwrite existing {dest}")
    if not dest.parent.is_dir():
        raise SnapshotError(f"seed {name!r} needs an existing parent folder for {dest}")
    try:
        entry.build(dest)
    except SnapshotError:
        raise
    except (OSError, sqlite3.Error, subprocess.SubprocessError) as exc:
        raise SnapshotError(f"seed {name!r} could not build {dest}: {exc}") from exc
