"""A catalogue entry for a server nobody described yet (``toolatlas init``).

Given a pinned npm or PyPI package, or a command, the server is installed in its own prefix or venv,
started in its sandbox and asked for its tools; from what it lists the entry gets:

- the **runtime**, with ``requirements = ["mcp<2"]`` when a PyPI server does not start with the
  current ``mcp`` SDK but does with the 1.x line (servers written for it crash under mcp 2);
- an **environment** proposal: ``none`` when no tool takes a path, an SQL text or a database,
  else a commented proposal of the kind its arguments suggest (the server's own start-up arguments
  decide where it keeps state, which only its documentation says);
- a **smoke call** that was made and answered: a tool that needs no argument and reads (by its
  annotations or its name), else none;
- the tool list, as comments, for the reader.

The entry is TOML text that ``toolatlas validate`` accepts as it is. With no server given, ``init``
writes the bundled demo catalogue instead (:func:`write_example`), a whole catalogue to start from.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from toolatlas.config import CommandRuntime, NpmRuntime, PypiRuntime, ServerSpec, StdioTransport, parse_catalogue
from toolatlas.errors import ConfigError, ToolAtlasError
from toolatlas.home import Home
from toolatlas.models import ToolSpec
from toolatlas.runtimes import install
from toolatlas.workspace import Workspace

if TYPE_CHECKING:
    from toolatlas.offline.kinds import ArgSpec

__all__ = ["Scaffold", "add_commands", "example_catalogue", "runtime_from", "scaffold", "write_example"]

log = structlog.get_logger(__name__)

LEGACY_MCP = "mcp<2"
"""What a PyPI server written for the 1.x SDK needs beside it."""
_READS = re.compile(r"^(list|get|read|show|describe|search|find|query|status|info|version|help|health|ping)(_|$)")
_KINDS: list[tuple[frozenset[str], tuple[str, str]]] = [
    (frozenset({"repo_path", "branch", "revision"}),
     ("git", 'a git repository: pass it as "${repo}" in its transport args')),
    (frozenset({"sql", "sql_query_read", "sql_query_write", "sql_ddl", "table_name", "column_name"}),
     ("sqlite", 'a database file: pass it as "${db_path}" in its transport args')),
    (frozenset({"file_path", "dir_path", "path", "new_path", "glob"}),
     ("directory", 'a folder: pass it as "${root}" in its transport args')),
    (frozenset({"entity_name", "entity_type", "relation_type", "observation"}),
     ("json_file", 'a JSON file: pass it as "${file}" (often in an environment variable)')),
]
"""Argument kinds that say where a server keeps state, and the environment kind that holds it."""


@dataclass
class Scaffold:
    """What ``init`` found out about one server."""

    spec: ServerSpec
    tools: list[ToolSpec]
    smoke: str | None = None
    environment: tuple[str, str] | None = None
    """A proposed environment kind and why (None: the tools hold no state anyone passes them)."""
    notes: list[str] = field(default_factory=list)

    def toml(self) -> str:
        """The ``[[servers]]`` entry, with the proposals and the tool list as comments."""
        runtime = self.spec.runtime
        lines = ["[[servers]]", f'name = "{self.spec.name}"']
        match runtime:
            case NpmRuntime():
                lines.append(f'runtime = {{ kind = "npm", package = "{runtime.package}", version = "{runtime.version}" }}')
            case PypiRuntime():
                extra = ""
                if runtime.requirements:
                    extra = ", requirements = [" + ", ".join(f'"{r}"' for r in runtime.requirements) + "]"
                lines.append(f'runtime = {{ kind = "pypi", package = "{runtime.package}", '
                             f'version = "{runtime.version}"{extra} }}')
            case CommandRuntime() if isinstance(self.spec.transport, StdioTransport):
                command, args = self.spec.transport.command, self.spec.transport.args
                quoted = ", ".join(f'"{a}"' for a in args)
                lines.append(f'transport = {{ command = "{command}", args = [{quoted}] }}')
        if self.environment is None:
            lines.append('environment = { kind = "none" }')
        else:
            kind, why = self.environment
            lines.append('environment = { kind = "none" }')
            lines.append(f'# its tools\' arguments say where it likely keeps state: in {why};')
            lines.append(f'# then: environment = {{ kind = "{kind}", snapshot = "…" }}')
        if self.smoke:
            lines.append(f'smoke = {{ tool = "{self.smoke}" }}')
        lines += [f"# {note}" for note in self.notes]
        lines.append(f"# {len(self.tools)} tool(s):")
        lines += [f"#   {tool.name}: {tool.purpose}" for tool in sorted(self.tools, key=lambda t: t.name)]
        return "\n".join(lines) + "\n"


def runtime_from(npm: str | None = None, pypi: str | None = None, command: str | None = None,
                 name: str | None = None) -> ServerSpec:
    """The entry's first form: ``pkg@1.2.3`` on npm, ``pkg==1.2.3`` on PyPI, or a command line."""
    if sum(x is not None for x in (npm, pypi, command)) != 1:
        raise ToolAtlasError("give exactly one of --npm PKG@VERSION, --pypi PKG==VERSION, --command \"...\"")
    data: dict = {}
    if npm is not None:
        package, at, version = npm.rpartition("@")
        if not at or not package or not version:
            raise ToolAtlasError(f"--npm {npm!r}: give the exact version, e.g. @scope/pkg@1.2.3")
        data = {"runtime": {"kind": "npm", "package": package, "version": version}}
        default = package.rsplit("/", 1)[-1]
    elif pypi is not None:
        package, eq, version = pypi.partition("==")
        if not eq or not package or not version:
            raise ToolAtlasError(f"--pypi {pypi!r}: give the exact version, e.g. pkg==1.2.3")
        data = {"runtime": {"kind": "pypi", "package": package, "version": version}}
        default = package
    else:
        words = (command or "").split()
        if not words:
            raise ToolAtlasError("--command is empty")
        data = {"transport": {"command": words[0], "args": words[1:]}}
        default = Path(words[-1]).stem if len(words) > 1 else Path(words[0]).name
    bare = re.sub(r"^(mcp-server-|server-|mcp-)|(-mcp-server|-mcp|-server)$", "", (name or default).lower())
    slug = re.sub(r"[^a-z0-9_-]+", "-", bare if name is None else (name or default).lower()).strip("-")[:63]
    data["name"] = (slug if slug and slug[0].isalnum() else f"s-{slug}")[:63]
    try:
        catalogue = parse_catalogue({"servers": [data]}, Path("init.toml"))
    except ConfigError as exc:
        raise ToolAtlasError(str(exc)) from None
    return catalogue.servers[0]


async def _listed(spec: ServerSpec, home: Home) -> tuple[list[ToolSpec], str | None]:
    """Install, start (in the sandbox), list; and the first read-like argument-free tool that answers."""
    await asyncio.to_thread(install, spec, home)
    workspace = Workspace(parse_catalogue({"servers": [spec.model_dump(mode="json")]}, Path("init.toml")), home)
    async with workspace.sandbox(spec.name) as sandbox:
        tools = list(sandbox.tools)
        for tool in sorted(tools, key=lambda t: (not _reads(t), t.name)):
            if tool.input_schema.get("required") or not _reads(tool):
                continue
            outcome = await sandbox.call(tool.name, {})
            if outcome.ok:
                return tools, tool.name
    return tools, None


def _reads(tool: ToolSpec) -> bool:
    if tool.annotations.read_only is not None:
        return tool.annotations.read_only
    return bool(_READS.match(tool.name))


def _kinds(arguments: Iterable[ArgSpec]) -> Iterator[str]:
    """The kind of every argument and of every field inside one (an array's items, an object's properties)."""
    for argument in arguments:
        yield argument.kind.value
        yield from _kinds([argument.items] if argument.items is not None else [])
        yield from _kinds(argument.properties)


def _environment(tools: list[ToolSpec]) -> tuple[str, str] | None:
    from toolatlas.offline.kinds import infer_arguments

    kinds = {kind for tool in tools for kind in _kinds(infer_arguments(tool))}
    return next((proposal for known, proposal in _KINDS if kinds & known), None)


async def scaffold(spec: ServerSpec, home: Home) -> Scaffold:
    """Find out what ``spec``'s server lists; a PyPI server that starts only with the 1.x SDK gets it."""
    notes = []
    try:
        tools, smoke = await _listed(spec, home)
    except ToolAtlasError as first:
        if not isinstance(spec.runtime, PypiRuntime) or LEGACY_MCP in spec.runtime.requirements:
            raise
        log.info("init_retry_with_legacy_mcp", server=spec.name, error=str(first)[:200])
        legacy = spec.model_copy(update={"runtime": spec.runtime.model_copy(
            update={"requirements": [*spec.runtime.requirements, LEGACY_MCP]})})
        try:
            tools, smoke = await _listed(legacy, home)
        except ToolAtlasError:
            raise first from None
        spec = legacy
        notes.append(f"it does not start with the current mcp SDK and does with {LEGACY_MCP}: hence the requirement")
    if not tools:
        notes.append("it lists no tools")
    return Scaffold(spec=spec, tools=tools, smoke=smoke, environment=_environment(tools), notes=notes)


def add_commands(commands: argparse._SubParsersAction) -> None:
    init = commands.add_parser(
        "init", help="scaffold a catalogue entry for a server: install it, list its tools, propose the rest",
        description="Install the server (a pinned npm or PyPI package, or a command), start it in its sandbox and "
        "list its tools; write a [[servers]] entry with its runtime (adding mcp<2 for a PyPI server that only "
        "starts with the 1.x SDK), a proposed environment and a smoke call that answered. Printed, or appended "
        "to a catalogue with -o (created when missing). With no server given, writes the demo catalogue "
        "(five reference servers) to -o or ./demo.toml as an example to start from.",
    )
    source = init.add_mutually_exclusive_group()
    source.add_argument("--npm", metavar="PKG@VERSION", help="an npm package at an exact version")
    source.add_argument("--pypi", metavar="PKG==VERSION", help="a PyPI package at an exact version")
    source.add_argument("--command", metavar='"CMD ARGS"', help="a server already on this machine")
    init.add_argument("--name", help="the server's name in the catalogue (default: from the package)")
    init.add_argument("-o", "--output", type=Path, metavar="CATALOGUE", help="append the entry to this catalogue")
    init.set_defaults(func=cmd_init)


def cmd_init(args: argparse.Namespace) -> int:
    from toolatlas.config import load_catalogue

    if not (args.npm or args.pypi or args.command):
        target = args.output or Path("demo.toml")
        written = write_example(target)
        print(f"{'wrote' if written else 'kept'} the demo catalogue {target}; next: toolatlas demo -o {target}, "
              f"or add a server with toolatlas init --npm PKG@VERSION -o {target}", file=sys.stderr)
        return 0
    spec = runtime_from(args.npm, args.pypi, args.command, args.name)
    if args.output is not None and args.output.exists():
        existing = load_catalogue(args.output)
        if any(server.name == spec.name for server in existing.servers):
            raise ToolAtlasError(f"{args.output} has a server named {spec.name!r} already: choose another --name")
    print(f"installing and starting {spec.name} to list its tools…", file=sys.stderr, flush=True)
    found = asyncio.run(scaffold(spec, Home.default().ensure()))
    entry = found.toml()
    if args.output is None:
        print(entry, end="")
        return 0
    if args.output.exists():
        text = args.output.read_text()
        args.output.write_text(text + ("" if text.endswith("\n") else "\n") + "\n" + entry)
    else:
        catalogue = re.sub(r"[^a-z0-9_-]+", "-", args.output.stem.lower()).strip("-") or "catalogue"
        args.output.write_text(f'version = 1\nname = "{catalogue}"\n\n' + entry)
    load_catalogue(args.output)  # what was written is a valid catalogue
    print(f"wrote the entry of {spec.name} ({len(found.tools)} tools) to {args.output}; "
          f"next: toolatlas validate {args.output}", file=sys.stderr)
    return 0


_STORE_PATH = re.compile(r"^path\s*=.*\n", re.MULTILINE)


def example_catalogue() -> str:
    """The demo catalogue's text without its ``[store] path``, so its atlas goes beside the file written."""
    text = (resources.files("toolatlas") / "catalogues" / "demo.toml").read_text(encoding="utf-8")
    head, sep, store = text.partition("\n[store]\n")
    table, rest_sep, rest = store.partition("\n[")
    text = head + sep + _STORE_PATH.sub("", table) + rest_sep + rest
    if "path" in tomllib.loads(text).get("store", {}):  # the table's layout changed: fail here, not in a build
        raise ToolAtlasError("the bundled demo catalogue keeps a [store] path that could not be removed")
    return text


def write_example(target: Path) -> bool:
    """Write the demo catalogue to ``target``; False when a file with the same text is already there."""
    text = example_catalogue()
    if target.exists():
        if target.read_text(encoding="utf-8") == text:
            return False
        raise ToolAtlasError(f"{target} exists and is not the demo catalogue: remove it or pass another --output")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return True
