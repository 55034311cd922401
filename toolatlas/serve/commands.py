"""The serving commands: ``guide`` (guidance from an atlas, once), ``serve`` (the guidance service:
MCP over stdio or HTTP, and the HTTP JSON API) and ``proxy`` (an MCP server in front of one catalogue
server, its tools annotated with the atlas's notes)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from toolatlas.config import load_catalogue
from toolatlas.console import whole_number
from toolatlas.errors import ToolAtlasError

__all__ = ["add_commands"]


def add_commands(commands: argparse._SubParsersAction) -> None:
    guide = commands.add_parser("guide", help="task-conditioned guidance from an atlas")
    guide.add_argument("task", help="what the agent has to do, in plain words")
    guide.add_argument("--config", type=Path, default=Path("configs/demo.toml"), help="catalogue whose atlas to read")
    guide.add_argument("--trust", type=Path, action="append", default=[], metavar="KEY.pub",
                       help="only an --atlas export signed by this public key (repeatable)")
    guide.add_argument("--atlas", type=Path, help="read an exported atlas.json instead of the catalogue's store")
    guide.add_argument("--with-conflicts", action="store_true",
                       help="of a merged atlas (toolatlas merge), also serve the entries its builders disagree on")
    guide.add_argument("--server", action="append", help="only these servers (repeatable)")
    guide.add_argument("--budget", type=int, default=8, help="read budget B of the traversal (default 8)")
    guide.add_argument("--k-r", dest="k_r", type=int, default=3, help="seed traces k_r (default 3)")
    guide.add_argument("--max-tokens", type=int, default=1200, help="size of the guidance (approximate tokens)")
    guide.add_argument("--json", action="store_true", help="the typed fields as JSON instead of text")
    guide.add_argument("--navigator", choices=("offline", "llm"), default="offline",
                       help="offline: the scored traversal (default); llm: the catalogue's [llm] endpoint walks and "
                            "compresses (the offline traversal when it fails, with a warning)")
    guide.set_defaults(func=cmd_guide)

    serve = commands.add_parser("serve", help="serve an atlas, read-only: MCP server (stdio or HTTP) and HTTP JSON API")
    serve.add_argument("config", type=Path, nargs="?", help="catalogue whose atlas to serve (its store is read once)")
    serve.add_argument("--trust", type=Path, action="append", default=[], metavar="KEY.pub",
                       help="only an --atlas export signed by this public key (repeatable)")
    serve.add_argument("--atlas", type=Path, help="serve an exported atlas.json instead of the catalogue's store")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                       help="stdio: an MCP server on stdin/stdout (default); http: HTTP API at /v1 and MCP at /mcp")
    serve.add_argument("--engine", choices=["uvicorn", "ray-serve"], default="uvicorn",
                       help="HTTP engine: uvicorn worker processes (default) or a Ray Serve deployment")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8600, help="HTTP port (default 8600)")
    serve.add_argument("--token", help="bearer token the HTTP service requires (default: $TOOLATLAS_TOKEN, else none; "
                                       "visible in `ps`: prefer --token-file)")
    serve.add_argument("--token-file", type=Path, metavar="FILE", help="read the bearer token from FILE")
    serve.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (default 1)")
    serve.add_argument("--replicas", type=int, default=1, help="Ray Serve replicas, one CPU each (default 1)")
    serve.add_argument("--address", default=None, help="Ray cluster for --engine ray-serve (default $RAY_ADDRESS, else local)")
    serve.add_argument("--write-tokens", type=Path, metavar="FILE",
                       help="take agents' reports of calls (POST /v1/outcomes, report_outcome) from holders of these "
                            "tokens (one per line); reports are queued, never served, until `toolatlas outcomes` "
                            "admits what a sandbox replay confirms")
    serve.add_argument("--outcomes", type=Path, metavar="FILE",
                       help="the queue file of reports (default: outcomes.jsonl in the catalogue's atlas folder)")
    serve.add_argument("--reports-per-minute", type=whole_number(1), default=60,
                       help="reports a minute each write token may send, per serving process (default 60)")
    serve.add_argument("--mcp-sessions", action="store_true",
                       help="/mcp keeps sessions with server-sent event streams (one worker); default: stateless "
                            "JSON answers any worker can give")
    serve.add_argument("--cache-size", type=int, default=None,
                       help="guidance answers cached per process (default 4096; 0 computes every answer)")
    serve.set_defaults(func=cmd_serve)

    proxy = commands.add_parser(
        "proxy", help="an MCP server in front of one catalogue server: every call forwarded unchanged, "
                      "tool descriptions with their atlas notes, plus a guidance tool")
    proxy.add_argument("config", type=Path, help="the catalogue with the server's launch config (and its atlas)")
    proxy.add_argument("--server", required=True, help="the catalogue server to proxy")
    proxy.add_argument("--trust", type=Path, action="append", default=[], metavar="KEY.pub",
                       help="only an --atlas export signed by this public key (repeatable)")
    proxy.add_argument("--atlas", type=Path, help="an exported atlas.json (default: the catalogue's store, read once)")
    proxy.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                       help="stdio: MCP on stdin/stdout (default); http: MCP streamable HTTP at /mcp")
    proxy.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    proxy.add_argument("--port", type=int, default=8700, help="HTTP port (default 8700)")
    proxy.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                       help="value of a ${NAME} placeholder of the server's launch config, e.g. root=/srv/project "
                            "(the server runs against your real environment)")
    proxy.add_argument("--sandbox", action="store_true",
                       help="run the server against a private copy of the catalogue's snapshot instead (demo, tests)")
    proxy.add_argument("--notes-budget", type=int, default=700, help="characters of atlas notes per tool (default 700)")
    proxy.set_defaults(func=cmd_proxy)


def _trusted(args: argparse.Namespace) -> list[Path]:
    """The keys an --atlas export must be signed by: --trust, and the catalogue's ``[trust] keys``."""
    if args.trust and not args.atlas:
        raise ToolAtlasError("--trust checks the signature of an --atlas export: give the export")
    keys = list(args.trust)
    if args.atlas and args.config is not None and Path(args.config).exists():
        catalogue = load_catalogue(args.config)
        keys += [catalogue.resolve(key) for key in catalogue.trust.keys]
    return keys


def cmd_guide(args: argparse.Namespace) -> int:
    from toolatlas.outputs import require_built
    from toolatlas.serve.runner import load_atlas

    trusted = _trusted(args)
    if not args.atlas:
        require_built(load_catalogue(args.config))
    atlas = load_atlas(None if args.atlas else args.config, args.atlas, trusted=trusted,
                       include_conflicted=args.with_conflicts)
    if atlas.load_report is not None and atlas.load_report.dropped:
        from toolatlas.trust import summary

        print(f"toolatlas: {args.atlas}: records its evidence does not support are not served: "
              f"{summary(atlas.load_report)}", file=sys.stderr)
    unknown = [name for name in args.server or [] if name not in atlas.servers]
    if unknown:
        known = ", ".join(atlas.servers) or "none: build it first with `toolatlas build`"
        raise ToolAtlasError(f"the atlas {atlas.name!r} knows nothing of server(s) {', '.join(unknown)} (it has: {known})")
    if args.navigator == "llm":
        guidance = asyncio.run(_llm_guidance(args, atlas))
        if guidance.navigator != "llm":
            print(f"toolatlas: warning: the guidance is by {guidance.navigator}", file=sys.stderr)
    else:
        guidance = atlas.guide(args.task, servers=args.server, budget=args.budget, k_r=args.k_r,
                               max_tokens=args.max_tokens)
    print(guidance.model_dump_json(indent=1) if args.json else guidance.to_text())
    return 0


async def _llm_guidance(args: argparse.Namespace, atlas):  # type: ignore[no-untyped-def]
    """Guidance walked and compressed by the catalogue's LLM endpoint (falling back to the offline
    traversal when it fails)."""
    from toolatlas.guidance import LlmNavigator
    from toolatlas.llm import LlmClient

    catalogue = load_catalogue(args.config)
    if catalogue.llm is None:
        raise ToolAtlasError(f"{args.config}: --navigator llm needs an [llm] endpoint in the catalogue")
    async with LlmClient(catalogue.llm) as client:
        return await atlas.guide_async(args.task, servers=args.server, budget=args.budget, k_r=args.k_r,
                                       max_tokens=args.max_tokens, navigator=LlmNavigator(client))


def cmd_serve(args: argparse.Namespace) -> int:
    import os

    from toolatlas.guidance.atlas import CACHE_SIZE
    from toolatlas.serve import ReplicaSettings, load_atlas, serve_http, serve_stdio, shared_snapshot
    from toolatlas.serve.runner import TOKEN_ENV

    if args.config is None and args.atlas is None:
        raise ToolAtlasError("serve needs a CONFIG or --atlas atlas.json")
    if args.cache_size is None:
        args.cache_size = CACHE_SIZE
    if args.cache_size < 0:
        raise ToolAtlasError("--cache-size must be 0 (no cache) or more")
    trusted = _trusted(args)
    if args.transport == "stdio":
        if args.engine != "uvicorn":
            raise ToolAtlasError("--engine ray-serve serves over HTTP: add --transport http")
        if args.mcp_sessions:
            raise ToolAtlasError("--mcp-sessions is for the HTTP endpoint: add --transport http")
        write_tokens, outcomes = _write_back(args)
        writeback = None
        if write_tokens and outcomes is not None:
            from toolatlas.trust.outcomes import OutcomeQueue, WriteBack

            writeback = WriteBack(OutcomeQueue(Path(outcomes)), write_tokens, args.reports_per_minute)
        serve_stdio(load_atlas(args.config, args.atlas, cache_size=args.cache_size, trusted=trusted), writeback)
        return 0
    if args.engine == "uvicorn" and args.replicas != 1:
        raise ToolAtlasError("--replicas is for --engine ray-serve; uvicorn runs --workers processes")
    if args.mcp_sessions and (args.engine != "uvicorn" or args.workers != 1):
        raise ToolAtlasError("--mcp-sessions needs --engine uvicorn --workers 1: an MCP session lives in the "
                             "process that opened it")
    token = _service_token(args, os.environ.get(TOKEN_ENV))
    processes = f"{args.replicas} Ray Serve replica(s)" if args.engine == "ray-serve" else f"{args.workers} worker(s)"
    write_tokens, outcomes = _write_back(args)
    with shared_snapshot(args.config, args.atlas, trusted=trusted) as snapshot:
        settings = ReplicaSettings(snapshot=str(snapshot), token=token, host=args.host, cache_size=args.cache_size,
                                   log_level=args.log_level, log_json=args.log_json or None,
                                   write_tokens=write_tokens, outcomes=outcomes,
                                   reports_per_minute=args.reports_per_minute, mcp_sessions=args.mcp_sessions)
        print(f"serving the atlas on http://{args.host}:{args.port} (HTTP API /v1, MCP /mcp), {processes}, "
              f"{'bearer token required' if token else 'no token'}", file=sys.stderr, flush=True)
        if args.engine == "ray-serve":
            from toolatlas.actors.serve import serve_on_ray

            serve_on_ray(settings, port=args.port, replicas=args.replicas, address=args.address)
        else:
            serve_http(settings, port=args.port, workers=args.workers)
    return 0


def _write_back(args: argparse.Namespace) -> tuple[list[str], str | None]:
    """The write tokens and the queue file of the service's write-back (none: it takes no reports)."""
    if args.write_tokens is None:
        return [], None
    from toolatlas.trust.outcomes import read_tokens

    try:
        tokens = read_tokens(args.write_tokens)
    except OSError as exc:
        raise ToolAtlasError(f"--write-tokens {args.write_tokens}: cannot read it ({exc.strerror})") from None
    if not tokens:
        raise ToolAtlasError(f"--write-tokens {args.write_tokens} holds no token (one per line)")
    if args.outcomes is not None:
        return tokens, str(args.outcomes.resolve())
    if args.config is None:
        raise ToolAtlasError("--write-tokens needs --outcomes FILE (or a CONFIG, whose atlas folder keeps the queue)")
    from toolatlas.trust.admission import queue_path

    return tokens, str(queue_path(load_catalogue(args.config)))


def _service_token(args: argparse.Namespace, from_env: str | None) -> str | None:
    """The HTTP service's bearer token: --token-file, --token or $TOOLATLAS_TOKEN; warns where it
    is exposed (on the command line every local user sees it in `ps`) or missing on an open address."""
    import ipaddress

    token = None
    if args.token_file is not None:
        try:
            token = args.token_file.read_text().strip()
        except OSError as exc:
            raise ToolAtlasError(f"--token-file {args.token_file}: cannot read it ({exc.strerror})") from None
        if not token:
            raise ToolAtlasError(f"--token-file {args.token_file} is empty")
    elif args.token:
        print("toolatlas: warning: a --token on the command line is visible to every local user in `ps`; "
              "prefer --token-file or $TOOLATLAS_TOKEN", file=sys.stderr)
        token = args.token
    else:
        token = from_env or None
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = args.host == "localhost"
    if token is None and not loopback:
        print(f"toolatlas: warning: serving on {args.host} without a token: anyone who reaches the port reads "
              "the atlas; give --token-file or $TOOLATLAS_TOKEN", file=sys.stderr)
    return token


def _variables(pairs: Sequence[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ToolAtlasError(f"--var {pair!r}: expected NAME=VALUE, e.g. --var root=/srv/project")
        values[name.strip()] = value
    return values


def cmd_proxy(args: argparse.Namespace) -> int:
    from toolatlas.proxy import ProxySettings, run_proxy

    if args.notes_budget < 0:
        raise ToolAtlasError("--notes-budget must be 0 or more characters")
    trusted = _trusted(args)
    run_proxy(ProxySettings(
        config=args.config, server=args.server, atlas=args.atlas, transport=args.transport, host=args.host,
        port=args.port, sandbox=args.sandbox, variables=_variables(args.var), budget=args.notes_budget,
        trusted=tuple(trusted),
    ))
    return 0
