"""Stateful MCP servers built from templates: the generated catalogues of scale benchmarks run these.

Run: ``python -m toolatlas.testing.servers.stateful --kind notes --variant 7 [--state FILE]``.
Kinds: ``notes``, ``kv``, ``todo``, ``inventory``, ``counter`` (see
:mod:`toolatlas.testing.servers.templates`). ``--variant N`` deterministically changes tool
names, descriptions, argument sets and limits, so that servers of one kind differ.

All state lives in ONE JSON file, from ``--state`` or ``$STATEFUL_STATE``: it is read at every
call and a mutating call writes it back atomically (write a sibling, then rename), so a
``json_file`` environment can snapshot and reset it under a running server. A missing file is an
empty state. Refused calls are MCP tool errors (``isError``) whose text says why.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

from toolatlas.testing.servers.templates import KINDS
from toolatlas.testing.servers.templates.base import Refusal, ToolDef, Variant

__all__ = ["STATE_ENV", "StateFile", "build_server", "main"]

STATE_ENV = "STATEFUL_STATE"
"""Environment variable naming the state file (``--state`` wins)."""


class StateFile:
    """The server's whole state: one JSON object in one file, replaced atomically on write."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise Refusal(f"cannot read the state file: {exc.strerror}") from exc
        try:
            state = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            raise Refusal(f"the state file is not valid JSON: {exc.msg} at line {exc.lineno}") from exc
        if not isinstance(state, dict):
            raise Refusal("the state file does not hold a JSON object")
        return state

    def write(self, state: dict[str, Any]) -> None:
        staging = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            staging.write_text(
                json.dumps(state, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            os.replace(staging, self.path)
        except OSError as exc:
            staging.unlink(missing_ok=True)
            raise Refusal(f"cannot write the state file: {exc.strerror}") from exc


def _tool_function(tool: ToolDef, store: StateFile) -> Any:
    """An async function with ``tool``'s public signature that runs its body against the state file.

    Async on purpose: the SDK runs sync tools on worker threads, and a read-modify-write of the
    state file must not interleave with another call's.
    """
    from mcp.server.mcpserver.exceptions import ToolError

    async def call(**arguments: Any) -> Any:
        roles = {arg.role: arguments[arg.name] for arg in tool.args}
        try:
            state = store.read()
            result = tool.body(state, **roles)
            if not tool.read_only:
                store.write(state)
        except Refusal as exc:
            raise ToolError(str(exc)) from exc
        return result

    call.__name__ = tool.name
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(a.name, inspect.Parameter.KEYWORD_ONLY, annotation=a.type, default=a.default)
            for a in tool.args
        ],
        return_annotation=tool.returns,
    )
    return call


def build_server(kind: str, variant: int, state: Path) -> Any:
    """The MCP server of one kind and variant, bound to its state file."""
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    template = importlib.import_module(f"toolatlas.testing.servers.templates.{kind}")
    store = StateFile(state)
    server = MCPServer(
        f"{kind}-{variant:03d}", version="1.0.0", instructions=f"A {kind} service; state in one JSON file."
    )
    for tool in template.tools(Variant(kind, variant)):
        annotations = ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=None if tool.read_only else tool.destructive,
            idempotent_hint=True if tool.read_only else tool.idempotent,
            open_world_hint=False,
        )
        server.add_tool(
            _tool_function(tool, store), name=tool.name, description=tool.description, annotations=annotations
        )
    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="stateful", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--kind", required=True, choices=KINDS)
    parser.add_argument(
        "--variant", type=int, default=0, help="deterministic variation of names, arguments and limits"
    )
    parser.add_argument("--state", type=Path, default=None, help=f"state file (default: ${STATE_ENV})")
    args = parser.parse_args(argv)
    state = args.state or (Path(os.environ[STATE_ENV]) if os.environ.get(STATE_ENV) else None)
    if state is None:
        parser.error(f"give --state FILE or set {STATE_ENV}")
    if not state.parent.is_dir():
        sys.stderr.write(f"stateful: the folder of the state file {state} does not exist\n")
        raise SystemExit(2)
    build_server(args.kind, args.variant, state).run("stdio")


if __name__ == "__main__":
    main()
