"""The ``toolatlas`` command line."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from toolatlas.config import Catalogue, load_catalogue
from toolatlas.console import render_table
from toolatlas.errors import ToolAtlasError
from toolatlas.home import Home
from toolatlas.logs import configure_logging

__all__ = ["main"]


def _catalogue(args: argparse.Namespace) -> Catalogue:
    return load_catalogue(args.config)


def _servers(catalogue: Catalogue, names: Sequence[str] | None):
    if not names:
        return catalogue.enabled_servers
    unknown = [n for n in names if n not in {s.name for s in catalogue.servers}]
    if unknown:
        raise ToolAtlasError(f"unknown server(s) {', '.join(unknown)}; the catalogue has {', '.join(s.name for s in catalogue.servers)}")
    return [catalogue.server(n) for n in names]


def cmd_validate(args: argparse.Namespace) -> int:
    catalogue = _catalogue(args)
    rows = [
        (s.name, s.runtime.kind, getattr(s.runtime, "package", "") or "", getattr(s.runtime, "version", ""), s.transport.kind, s.environment.kind, "yes" if s.enabled else "no")
        for s in catalogue.servers
    ]
    print(f"{args.config}: catalogue {catalogue.name!r} is valid, {len(catalogue.servers)} server(s)")
    print(render_table(["server", "runtime", "package", "version", "transport", "environment", "enabled"], rows))
    return 0


def cmd_servers_install(args: argparse.Namespace) -> int:
    from toolatlas.runtimes import install_all

    catalogue = _catalogue(args)
    home = Home.default().ensure()
    servers = _servers(catalogue, args.server)
    print(f"installing {len(servers)} server runtime(s) into {home.runtimes}", flush=True)

    def progress(result) -> None:
        where = result.runtime.location if result.ok and result.runtime else ""
        state = "ok" if result.ok else "FAILED"
        print(f"  {result.server:<24} {result.kind:<8} {state:<7} {result.seconds:7.2f}s  {where}", flush=True)

    results = install_all(catalogue, home, servers=servers, jobs=args.jobs, force=args.force, progress=progress)
    failed = [r for r in results.values() if not r.ok]
    if failed:
        print(f"{len(failed)} runtime(s) failed to install:", file=sys.stderr)
        for r in failed:
            print(f"- {r.server}: {r.error}", file=sys.stderr)
        return 1
    return 0


def cmd_servers_check(args: argparse.Namespace) -> int:
    from toolatlas.smoke import smoke_check_all
    from toolatlas.workspace import Workspace

    catalogue = _catalogue(args)
    workspace = Workspace(catalogue)
    servers = _servers(catalogue, args.server)
    print(f"checking {len(servers)} server(s): start in a sandbox, list tools, one call, freeze, reset", flush=True)

    def progress(report) -> None:
        print(f"  {report.server:<24} {'ok' if report.ok else 'FAILED':<7} {report.seconds:6.2f}s", flush=True)

    reports = asyncio.run(smoke_check_all(workspace, servers, concurrency=args.jobs, progress=progress))
    rows = [
        (
            r.server,
            r.runtime,
            r.environment,
            r.tools,
            r.protocol,
            r.call,
            r.outcome,
            "" if r.latency_ms is None else f"{r.latency_ms:.1f}",
            r.state_change,
            {True: "exact", False: "DIFFERS", None: ""}[r.reset_exact],
            "ok" if r.ok else "FAILED",
        )
        for r in reports
    ]
    print()
    print(render_table(
        ["server", "runtime", "env", "tools", "protocol", "smoke call", "outcome", "ms", "state change", "reset", "status"], rows
    ))
    failed = [r for r in reports if not r.ok]
    for r in failed:
        print(f"\n{r.server}: {r.detail}", file=sys.stderr)
    return 1 if failed else 0


def cmd_seeds(args: argparse.Namespace) -> int:
    from toolatlas.environments import seeds

    print(render_table(["seed", "environment kind"], sorted(seeds.available().items())))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolatlas", description="Execution-verified tool atlases for MCP servers.")
    parser.add_argument("--log-level", default=None, help="debug, info, warning (default; or $TOOLATLAS_LOG_LEVEL)")
    parser.add_argument("--log-json", action="store_true", help="one JSON object per log line")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser("validate", help="check a catalogue file and list its servers")
    validate.add_argument("config", type=Path)
    validate.set_defaults(func=cmd_validate)

    servers = commands.add_parser("servers", help="provision and check a catalogue's MCP servers")
    server_commands = servers.add_subparsers(dest="servers_command", required=True, metavar="ACTION")
    install = server_commands.add_parser("install", help="install every server runtime (npm prefix / own venv), once")
    install.add_argument("config", type=Path)
    install.add_argument("--server", action="append", help="only this server (repeatable)")
    install.add_argument("--jobs", type=int, default=2, help="installs in parallel (default 2)")
    install.add_argument("--force", action="store_true", help="reinstall even if present")
    install.set_defaults(func=cmd_servers_install)
    check = server_commands.add_parser("check", help="start each server in a sandbox, call it, reset it")
    check.add_argument("config", type=Path)
    check.add_argument("--server", action="append", help="only this server (repeatable)")
    check.add_argument("--jobs", type=int, default=2, help="servers checked in parallel (default 2)")
    check.set_defaults(func=cmd_servers_check)

    seeds = commands.add_parser("seeds", help="list the built-in snapshot seeds")
    seeds.set_defaults(func=cmd_seeds)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(args.log_level, json=args.log_json or None)
    try:
        return int(args.func(args) or 0)
    except ToolAtlasError as exc:
        print(f"toolatlas: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("toolatlas: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
