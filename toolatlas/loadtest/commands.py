"""``toolatlas loadtest URL``: a guidance deployment under increasing load, as its operators test it."""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

from toolatlas.errors import ToolAtlasError

__all__ = ["MAX_CLIENTS", "MAX_LEVEL_S", "add_commands"]

MAX_CLIENTS = 1024
"""Concurrent clients one level may run."""
MAX_LEVEL_S = 600.0
"""Seconds one level may last (warm-up included)."""
MAX_LEVELS = 16


def _levels(text: str) -> list[int]:
    try:
        levels = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of whole numbers like 1,4,16,64") from None
    if not levels or len(levels) > MAX_LEVELS or any(not 1 <= n <= MAX_CLIENTS for n in levels):
        raise argparse.ArgumentTypeError(f"give 1 to {MAX_LEVELS} levels of 1 to {MAX_CLIENTS} clients, not {text!r}")
    return sorted(set(levels))


def add_commands(commands: argparse._SubParsersAction) -> None:
    loadtest = commands.add_parser(
        "loadtest", help="load-test a guidance service: req/s and p50/p95/p99 per level of concurrent clients",
        description="Closed-loop clients on keep-alive connections send guidance requests (the HTTP API, or MCP "
        "tool calls with --mcp) to a running `toolatlas serve`, level after level; each level is measured in "
        "windows and reports its median window. Prints a table, writes JSON and an HTML page with the plot of "
        "latency against load. Only loopback services unless --allow-remote (a service of your own).",
    )
    loadtest.add_argument("url", help="the service, e.g. http://127.0.0.1:8600")
    loadtest.add_argument("--mcp", action="store_true", help="call get_guidance on /mcp instead of POST /v1/guidance")
    loadtest.add_argument("--tasks", type=Path, metavar="FILE",
                          help="the task mix: one task per line, or a JSON list (default: the atlas's own traces)")
    loadtest.add_argument("--concurrency", type=_levels, default=[1, 4, 16, 64], metavar="1,4,16,64",
                          help="concurrent clients of each level (default 1,4,16,64)")
    loadtest.add_argument("--duration", type=float, default=3.0, metavar="S",
                          help="measured seconds per level, split into --windows windows (default 3)")
    loadtest.add_argument("--windows", type=int, default=3, help="measured windows per level (default 3)")
    loadtest.add_argument("--warmup", type=float, default=0.5, metavar="S", help="seconds before measuring (default 0.5)")
    loadtest.add_argument("--token-file", type=Path, metavar="FILE",
                          help="the service's bearer token (default: $TOOLATLAS_TOKEN)")
    loadtest.add_argument("--ray", action="store_true",
                          help="spread the clients over Ray actors on the cluster at --address (or a local instance)")
    loadtest.add_argument("--generators", type=int, default=2, help="Ray actors sharing each level's clients (default 2)")
    loadtest.add_argument("--address", default=None, help="Ray cluster for --ray (default $RAY_ADDRESS, else local)")
    loadtest.add_argument("-o", "--output", type=Path, default=Path("loadtest.html"),
                          help="the HTML page with the plot (default loadtest.html; the JSON beside it)")
    loadtest.add_argument("--allow-remote", action="store_true",
                          help="allow a service that is not on this machine (one you operate)")
    loadtest.set_defaults(func=cmd_loadtest)


def _check_bounds(args: argparse.Namespace) -> None:
    parts = urlsplit(args.url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolAtlasError(f"{args.url!r} is not an http(s) URL of a service")
    try:
        local = ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        local = parts.hostname == "localhost"
    if not local and not args.allow_remote:
        raise ToolAtlasError(f"{parts.hostname} is not this machine: load-test only services you operate "
                             "(--allow-remote says you do)")
    if not 1 <= args.windows <= 20:
        raise ToolAtlasError("--windows must be from 1 to 20")
    if not 0 < args.duration or args.duration + args.warmup > MAX_LEVEL_S or args.warmup < 0:
        raise ToolAtlasError(f"--duration and --warmup must be positive and last at most {MAX_LEVEL_S:g} s a level")
    if args.generators < 1:
        raise ToolAtlasError("--generators must be 1 or more")


def cmd_loadtest(args: argparse.Namespace) -> int:
    from toolatlas.loadtest import LoadGenerator, atlas_tasks, http_target, mcp_target, read_tasks
    from toolatlas.loadtest.report import page, table

    _check_bounds(args)
    url = args.url.rstrip("/")
    token = args.token_file.read_text().strip() if args.token_file else os.environ.get("TOOLATLAS_TOKEN")
    headers = {"authorization": f"Bearer {token}"} if token else {}
    tasks = read_tasks(args.tasks) if args.tasks else atlas_tasks(url, headers)
    target = (mcp_target if args.mcp else http_target)(url, tasks, headers)
    seconds = args.duration / args.windows
    kind = "MCP tools/call get_guidance" if args.mcp else "POST /v1/guidance"
    print(f"{kind} at {url}: {len(tasks)} task(s), levels {','.join(map(str, args.concurrency))}, "
          f"{args.windows} window(s) of {seconds:g} s after {args.warmup:g} s each", flush=True)
    levels = []
    if args.ray:
        from toolatlas.actors.loadtest import ray_level
        from toolatlas.ray_session import ray_session

        with ray_session(args.address):
            for clients in args.concurrency:
                levels.append(ray_level(target, clients, generators=args.generators, seconds=seconds,
                                        warmup=args.warmup, windows=args.windows))
                print(f"  {clients} client(s): {levels[-1].rps:.0f} req/s, p99 {levels[-1].p99_ms:.1f} ms", flush=True)
    else:
        with LoadGenerator() as generator:
            for clients in args.concurrency:
                levels.append(generator.level(target, clients, seconds=seconds, warmup=args.warmup,
                                              windows=args.windows))
                print(f"  {clients} client(s): {levels[-1].rps:.0f} req/s, p99 {levels[-1].p99_ms:.1f} ms", flush=True)
    print()
    print(table(levels))
    figures = {"url": url, "target": kind, "tasks": len(tasks), "window_s": seconds, "windows": args.windows,
               "warmup_s": args.warmup, "ray": args.ray, "levels": [lv.model_dump() for lv in levels]}
    args.output.write_text(page(levels, url=url, target=kind, tasks=len(tasks), figures=figures))
    data = args.output.with_suffix(".json")
    data.write_text(json.dumps(figures, indent=1))
    print(f"\nplot: {args.output}\ndata: {data}")
    failed = sum(lv.error_count for lv in levels)
    if failed:
        print(f"{failed} request(s) failed (see errors by kind above)", file=sys.stderr)
    return 1 if failed else 0
