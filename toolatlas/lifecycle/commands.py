"""The lifecycle commands of the CLI: ``toolatlas refresh`` and ``toolatlas verify``."""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from datetime import timedelta
from pathlib import Path

from toolatlas.config import load_catalogue
from toolatlas.console import coverage_line, render_table, whole_number
from toolatlas.errors import ToolAtlasError

__all__ = ["add_commands", "parse_age"]

_AGE = re.compile(r"^(\d+)([smhdw])$")
_UNIT = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_age(text: str) -> timedelta:
    """``90s``, ``30m``, ``12h``, ``7d`` or ``2w`` as a duration."""
    match = _AGE.match(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not an age like 30m, 12h, 7d or 2w")
    return timedelta(**{_UNIT[match.group(2)]: int(match.group(1))})


def add_commands(commands: argparse._SubParsersAction) -> None:
    verify = commands.add_parser(
        "verify", help="replay entries' evidence in fresh sandboxes; exit 1 when a replay disagreed",
        description="Replay the evidence of the atlas's served affordances and boundaries on fresh sandboxes. "
        "An entry whose replay agrees stays active (last_verified moves to now); one that replays differently "
        "becomes contradicted, with the new observation kept; one whose tool is gone is retired, one whose "
        "tool changed its interface stale. Exit 0 when every replay agreed, 1 otherwise, 2 on a usage error.",
    )
    verify.add_argument("config", type=Path)
    chosen = verify.add_mutually_exclusive_group()
    chosen.add_argument("--all", action="store_true", help="every served entry (the default)")
    chosen.add_argument("--sample", type=whole_number(1), metavar="N", help="a seeded random sample of N entries per server")
    verify.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    verify.add_argument("--older-than", type=parse_age, metavar="AGE",
                        help="only entries last verified longer ago than AGE (30m, 12h, 7d, 2w)")
    verify.add_argument("--server", action="append", help="only this server (repeatable)")
    verify.add_argument("--jobs", type=whole_number(1), default=4, help="servers verified at once (default 4)")
    verify.add_argument("--engine", choices=("asyncio", "ray"), default="asyncio",
                        help="asyncio: this process (default); ray: a task per server on a cluster or local Ray")
    verify.add_argument("--address", default=None, help="Ray cluster for --engine ray (default $RAY_ADDRESS, else local)")
    verify.set_defaults(func=cmd_verify)
    _add_refresh(commands)


def _add_refresh(commands: argparse._SubParsersAction) -> None:
    refresh = commands.add_parser(
        "refresh", help="re-list each server's tools and probe only what changed since the atlas was built",
        description="Compare each server's tools and set-up with the fingerprint its atlas was built from. "
        "Unchanged tools keep their entries (no probe spent); a tool whose interface changed is probed again "
        "with its co-usage neighbours (its old entries go stale); a removed tool's entries are retired; a new "
        "tool is onboarded; a changed release, start-up or snapshot replays the unchanged tools' entries. "
        "Exit 0 when every server was refreshed, 1 when one failed, 2 on a usage error.",
    )
    refresh.add_argument("config", type=Path)
    refresh.add_argument("--server", action="append", help="only this server (repeatable)")
    refresh.add_argument("--rounds", type=whole_number(0), default=None, help="exploration rounds R for what is probed "
                                                                      "(default: the catalogue's)")
    refresh.add_argument("--jobs", type=whole_number(1), default=4, help="servers refreshed at once (default 4)")
    refresh.add_argument("--engine", choices=("asyncio", "ray"), default="asyncio",
                         help="where what changed is probed: asyncio, this process (default); ray: actors on a "
                              "cluster or a local Ray instance")
    refresh.add_argument("--address", default=None, help="Ray cluster for --engine ray (default $RAY_ADDRESS, else local)")
    refresh.set_defaults(func=cmd_refresh)


def cmd_verify(args: argparse.Namespace) -> int:
    from toolatlas.lifecycle.verify import ServerVerification, verify_catalogue
    from toolatlas.outputs import built_store, write_outputs
    from toolatlas.ray_session import ray_session
    from toolatlas.workspace import Workspace

    catalogue = load_catalogue(args.config)
    servers = catalogue.servers_named(args.server)
    store = built_store(catalogue)
    built = set(store.servers())
    missing = [spec.name for spec in servers if spec.name not in built]
    if args.server and missing:
        store.close()
        raise ToolAtlasError(f"the atlas holds nothing of {', '.join(missing)} yet: run `toolatlas build` first")
    servers = [spec for spec in servers if spec.name in built]
    what = f"a sample of {args.sample} entries per server" if args.sample else "every served entry"
    age = f" last verified over {args.older_than} ago" if args.older_than else ""
    print(f"verifying {what}{age} of {len(servers)} server(s) on fresh sandboxes", flush=True)

    def progress(result: ServerVerification) -> None:
        if result.error:
            print(f"  {result.server:<16} not verified: {result.error}", flush=True)
            return
        counts = ", ".join(f"{verdict} {result.count(verdict)}" for verdict in ("agreed", "contradicted", "retired", "stale")
                           if result.count(verdict))
        print(f"  {result.server:<16} {len(result.replays)} replayed ({counts or 'nothing to replay'}) "
              f"in {result.seconds:.1f}s", flush=True)

    async def run(replay=None):  # type: ignore[no-untyped-def]
        return await verify_catalogue(Workspace(catalogue), store, servers, sample=args.sample,
                                      older_than=args.older_than, seed=args.seed, jobs=args.jobs,
                                      replay=replay, on_server=progress)

    try:
        if args.engine == "ray":
            from toolatlas.actors.verify import ray_replayer

            with ray_session(args.address):
                report = asyncio.run(run(ray_replayer(str(args.config))))
        else:
            report = asyncio.run(run())
        _show(report)
        export, _page = write_outputs(catalogue, store)
    finally:
        store.close()
    print(f"atlas:  {export}")
    return 0 if report.ok else 1


def _show(report) -> None:  # type: ignore[no-untyped-def]
    differing = [r for r in report.replays if r.verdict != "agreed"]
    if differing:
        rows = [(r.server, r.tool, r.kind.value, r.verdict, r.detail[:90]) for r in differing]
        print()
        print(render_table(["server", "tool", "entry", "now", "why"], rows))
    agreement = report.agreement
    share = f" = {agreement:.3f}" if agreement is not None else ""
    agreed = sum(r.verdict == "agreed" for r in report.replays)
    print(f"\n{agreed}/{len(report.replays)} replays agreed{share} in {report.seconds:.1f}s", flush=True)
    for result in report.servers:
        if result.error:
            print(f"{result.server}: not verified: {result.error}", file=sys.stderr)


def cmd_refresh(args: argparse.Namespace) -> int:
    from toolatlas.lifecycle.refresh import ServerRefresh, ToolFate, refresh_catalogue
    from toolatlas.outputs import require_built, write_outputs
    from toolatlas.store.paths import open_store
    from toolatlas.workspace import Workspace

    catalogue = load_catalogue(args.config)
    servers = catalogue.servers_named(args.server)
    require_built(catalogue)
    print(f"refreshing {len(servers)} server(s) of {args.config}", flush=True)

    def progress(result: ServerRefresh) -> None:
        if result.plan is not None:
            plan = result.plan
            print(f"{result.server}: " + ("; ".join(plan.changes[:6]) or "nothing changed"), flush=True)
            moved = [(tool, fate) for tool, fate in sorted(plan.fates.items()) if fate is not ToolFate.KEPT]
            for tool, fate in moved:
                print(f"  {tool:<28} {fate.value}", flush=True)
            kept = sum(fate is ToolFate.KEPT for fate in plan.fates.values())
            if kept:
                print(f"  ({kept} tool(s) kept as they are)", flush=True)
        verification = result.verification
        replayed = (f", {sum(r.verdict == 'agreed' for r in verification.replays)}/{len(verification.replays)} "
                    "replays agreed") if verification else ""
        status = f"failed: {result.error}" if result.error else "ok"
        print(f"{result.server}: {result.probes} probes{replayed} in {result.seconds:.1f}s, {status}", flush=True)

    on_round = lambda row: print(coverage_line(row), flush=True)  # noqa: E731
    if args.engine == "ray":
        results = _refresh_on_ray(args, catalogue, servers, on_round)
        for result in results:
            progress(result)
    else:
        store = open_store(catalogue)
        try:
            results = asyncio.run(refresh_catalogue(Workspace(catalogue), store, servers, rounds=args.rounds,
                                                    jobs=args.jobs, on_round=on_round, on_server=progress))
        finally:
            store.close()
    store = open_store(catalogue)
    try:
        export, _page = write_outputs(catalogue, store)
    finally:
        store.close()
    contradicted = [x for r in results if r.verification for x in r.verification.replays if x.verdict == "contradicted"]
    if contradicted:
        print("\nno longer true (contradicted by a replay; the tool was probed again):")
        print(render_table(["server", "tool", "entry", "why"], [(x.server, x.tool, x.kind.value, x.detail[:90])
                                                                for x in contradicted]))
    probes = sum(r.probes for r in results)
    print(f"\n{probes} probes over {len(results)} server(s); atlas: {export}")
    return 1 if any(r.error for r in results) else 0


def _refresh_on_ray(args: argparse.Namespace, catalogue, servers, on_round) -> list:  # type: ignore[no-untyped-def]
    """A refresh whose probes run on Ray: the plans and replays here (the store is this process's),
    then one Ray build of what changed (its store owner holds the store meanwhile)."""
    from toolatlas.actors.coordinator import RayBuild
    from toolatlas.lifecycle.refresh import build_focus, prepare_catalogue, probed
    from toolatlas.pipeline.catalogue import write_consistency
    from toolatlas.ray_session import ray_session
    from toolatlas.store.paths import AtlasPaths, open_store
    from toolatlas.workspace import Workspace

    store = open_store(catalogue)
    try:
        prepared = asyncio.run(prepare_catalogue(Workspace(catalogue), store, servers, jobs=args.jobs))
    finally:
        store.close()
    focus = {r.server: build_focus(r) for r in prepared if not r.error and r.plan is not None and r.plan.focus}
    if not focus:
        return prepared
    rounds = catalogue.build.rounds if args.rounds is None else args.rounds
    with ray_session(args.address):
        build = RayBuild(args.config, catalogue, backend="offline")
        report = asyncio.run(build.run([catalogue.server(name) for name in focus], rounds=rounds, on_round=on_round,
                                       focus={name: tools for name, tools in focus.items() if tools is not None}))
    store = open_store(catalogue)
    try:
        write_consistency(AtlasPaths(catalogue), store.all("entries"))
    finally:
        store.close()
    return [probed(r, [row for row in report.coverage if row.server == r.server]) if r.server in focus else r
            for r in prepared]
