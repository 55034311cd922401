"""Generated catalogues of many real, stateful MCP servers, for scale benchmarks and tests.

:func:`generate_catalogue` writes ``catalogue.toml`` with ``n`` servers built from the templates
of :mod:`toolatlas.testing.servers.stateful` (kinds round-robin, each server its own variant),
plus one deterministic seed state per server under ``seeds/``. Every server runs with our
interpreter over stdio against a ``json_file`` environment, so ToolAtlas snapshots and resets
its state like any other server's::

    [[servers]]
    name = "notes-000"
    runtime = { kind = "command" }
    transport = { command = "/…/python", args = ["-m", "toolatlas.testing.servers.stateful",
                  "--kind", "notes", "--variant", "0"], env = { STATEFUL_STATE = "${file}" } }
    environment = { kind = "json_file", snapshot = "seeds/notes-000.json", filename = "state.json" }
"""

from __future__ import annotations

import importlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from toolatlas.testing.servers.templates import KINDS
from toolatlas.testing.servers.templates.base import Variant

__all__ = ["CATALOGUE_FILE", "SERVER_MODULE", "generate_catalogue", "server_plan"]

CATALOGUE_FILE = "catalogue.toml"
SERVER_MODULE = "toolatlas.testing.servers.stateful"
LIMITS = {
    "concurrency": 4,
    "call_timeout_s": 10.0,
    "start_timeout_s": 120.0,
    "list_timeout_s": 10.0,
    "max_restarts": 3,
}
"""Per-server limits: calls answer in milliseconds, but 120 servers starting at once on 2 cores took 82 s."""

_DESCRIPTIONS = {
    "notes": "Notes with titles, text and tags, kept in one JSON file.",
    "kv": "A key-value store with bounded value sizes, kept in one JSON file.",
    "todo": "Tasks with priorities and due dates, kept in one JSON file.",
    "inventory": "Stock levels of items that can never go negative, kept in one JSON file.",
    "counter": "Named counters that stay within their bounds, kept in one JSON file.",
}


def server_plan(n: int, *, seed: int = 0) -> list[tuple[str, str, int]]:
    """``(name, kind, variant)`` of each of ``n`` servers: kinds round-robin, variants counting per kind.

    ``seed`` shifts every variant number, so two seeds give two different sets of servers.
    """
    plan = []
    for index in range(n):
        kind = KINDS[index % len(KINDS)]
        variant = index // len(KINDS) + seed * 1000
        plan.append((f"{kind}-{index:03d}", kind, variant))
    return plan


def generate_catalogue(n: int, dest: Path, *, seed: int = 0) -> Path:
    """Write ``n`` stateful servers' catalogue and seed states under ``dest``; returns the TOML path."""
    if n < 1:
        raise ValueError("a catalogue needs at least one server")
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "seeds").mkdir(exist_ok=True)
    blocks = []
    for name, kind, variant in server_plan(n, seed=seed):
        template = importlib.import_module(f"toolatlas.testing.servers.templates.{kind}")
        chosen = Variant(kind, variant)
        state = template.seed(chosen, random.Random(f"{seed}:{name}"))
        (dest / "seeds" / f"{name}.json").write_text(
            json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
        blocks.append(_server_block(name, kind, variant, template.smoke(chosen)))
    summary = f"{n} generated stateful MCP servers ({', '.join(KINDS)}), one JSON state file each."
    header = "\n".join(
        [
            f"# Written by toolatlas.testing.catalogues.generate_catalogue(n={n}, seed={seed}).",
            "version = 1",
            f"name = {_toml(f'stateful-{n}')}",
            f"description = {_toml(summary)}",
            "",
            "[build]",
            f"seed = {seed}",
            "",
            "[store]",
            'path = "atlas"',
        ]
    )
    path = dest / CATALOGUE_FILE
    path.write_text(header + "\n\n" + "\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


def _server_block(name: str, kind: str, variant: int, smoke: tuple[str, dict[str, Any]]) -> str:
    args = ["-m", SERVER_MODULE, "--kind", kind, "--variant", str(variant)]
    transport = {"command": sys.executable, "args": args, "env": {"STATEFUL_STATE": "${file}"}}
    environment = {"kind": "json_file", "snapshot": f"seeds/{name}.json", "filename": "state.json"}
    tool, arguments = smoke
    lines = [
        "[[servers]]",
        f"name = {_toml(name)}",
        f"description = {_toml(_DESCRIPTIONS[kind])}",
        f"tags = {_toml(['generated', kind])}",
        f"runtime = {_toml({'kind': 'command'})}",
        f"transport = {_toml(transport)}",
        f"environment = {_toml(environment)}",
        f"smoke = {_toml({'tool': tool, 'arguments': arguments} if arguments else {'tool': tool})}",
        f"limits = {_toml(LIMITS)}",
    ]
    return "\n".join(lines)


def _toml(value: Any) -> str:
    """A TOML inline value: strings are JSON strings (a subset of TOML basic strings), tables inline."""
    match value:
        case bool():
            return "true" if value else "false"
        case int() | float():
            return repr(value)
        case str():
            return json.dumps(value)
        case list():
            return "[" + ", ".join(_toml(item) for item in value) + "]"
        case dict():
            return (
                "{ " + ", ".join(f"{key} = {_toml(item)}" for key, item in value.items()) + " }"
                if value
                else "{}"
            )
    raise TypeError(f"cannot write {type(value).__name__} as TOML")
