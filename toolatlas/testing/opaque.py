"""Catalogues whose state the snapshot cannot show, for discovery, in-process state and cost tests.

:func:`opaque_catalogue` writes one TOML with two real servers:

- ``shopdb``: the demo's SQLite server over the demo shop database, but behind a ``command``
  environment (a file the command copies in): no snapshot facts, only the server's own query tool.
- ``inmemory``: :mod:`toolatlas.testing.servers.inmemory`, state kept in its process, one tool that
  sleeps 10 s by default.

:func:`server_catalogue` writes one with any one in-library test server; :func:`sessions_catalogue` with :mod:`toolatlas.testing.servers.sessions` alone: sessions
whose ids the server mints in memory, and a query tool with stated limits; :func:`folder_catalogue` one
with an in-library server over a folder of files (a ``directory`` environment, its root the server's argument).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from toolatlas.environments import SqliteEnvironment

__all__ = ["folder_catalogue", "opaque_catalogue", "server_catalogue", "sessions_catalogue"]

_TOML = """version = 1
name = "opaque"
description = "A database behind a command environment, and a server that keeps its state in memory."

[build]                     # the method's defaults, but the rounds
rounds = {rounds}

[store]
backend = "edge"
path = "atlas"

[[servers]]
name = "shopdb"
description = "A shop's customers, products and orders in SQLite."
runtime = {{ kind = "pypi", package = "mcp-server-sqlite", version = "2025.4.25", requirements = ["mcp<2"] }}
transport = {{ args = ["--db-path", "${{root}}/shop.db"] }}
environment = {{ kind = "command", snapshot = "shop.db", prepare = "cp ${{snapshot}} ${{root}}/shop.db", digest = "sha256sum ${{root}}/shop.db | sed 's/ .*//; s/^/shop.db\\t/'" }}

[[servers]]
name = "inmemory"
transport = {{ command = "{python}", args = ["-m", "toolatlas.testing.servers.inmemory"] }}
"""


def opaque_catalogue(dest: Path, *, rounds: int = 3) -> Path:
    """Write the catalogue and the shop database under ``dest``; returns the TOML path."""
    dest.mkdir(parents=True, exist_ok=True)
    seed = SqliteEnvironment().materialise(None, "demo.sqlite", dest / "seed")
    shutil.copyfile(seed.path, dest / "shop.db")
    config = dest / "opaque.toml"
    config.write_text(_TOML.format(rounds=rounds, python=sys.executable))
    return config


_ONE_SERVER_TOML = """version = 1
name = "{name}"
description = "{description}"

[build]
rounds = {rounds}

[store]
backend = "edge"
path = "atlas"

[[servers]]
name = "{name}"
transport = {{ command = "{python}", args = ["-m", "toolatlas.testing.servers.{name}"{root}] }}
"""

_FOLDER_ENVIRONMENT = 'environment = { kind = "directory", snapshot = "snapshot" }\n'
"""A folder server's environment: the snapshot folder copied for each instance, its root the server's argument."""


def _write_one_server(dest: Path, name: str, rounds: int, description: str, *, over_folder: bool) -> Path:
    """Write the catalogue of the one in-library stdio server ``name`` as ``dest/<name>.toml`` (its atlas in
    ``dest/atlas``), over the folder ``dest/snapshot`` when ``over_folder``; returns the TOML path."""
    dest.mkdir(parents=True, exist_ok=True)
    config = dest / f"{name}.toml"
    text = _ONE_SERVER_TOML.format(name=name, description=description, rounds=rounds, python=sys.executable,
                                   root=', "${root}"' if over_folder else "")
    config.write_text(text + (_FOLDER_ENVIRONMENT if over_folder else ""))
    return config


def server_catalogue(dest: Path, name: str, *, rounds: int = 1, description: str = "") -> Path:
    """Write a catalogue of the one in-library stdio server :mod:`toolatlas.testing.servers.<name>` under
    ``dest`` (its atlas in ``dest/atlas``); returns the TOML path."""
    return _write_one_server(dest, name, rounds, description, over_folder=False)


def sessions_catalogue(dest: Path, *, rounds: int = 1) -> Path:
    """Write the catalogue of the sessions server under ``dest``; returns the TOML path."""
    return server_catalogue(dest, "sessions", rounds=rounds, description="Tables opened into sessions the server "
                            "mints in memory; a capped SQL reader.")


def folder_catalogue(dest: Path, name: str, files: dict[str, str], *, rounds: int = 1, description: str = "") -> Path:
    """Write a catalogue of the in-library stdio server :mod:`toolatlas.testing.servers.<name>` over a folder
    holding ``files`` (relative path → text) under ``dest``; returns the TOML path."""
    snapshot = dest / "snapshot"
    for relative, text in files.items():
        (snapshot / relative).parent.mkdir(parents=True, exist_ok=True)
        (snapshot / relative).write_text(text)
    return _write_one_server(dest, name, rounds, description, over_folder=True)
