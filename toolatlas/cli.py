"""The ``toolatlas`` command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from toolatlas import __version__
from toolatlas.config import Catalogue, load_catalogue
from toolatlas.console import coverage_line, coverage_table, render_table, usage_table, whole_number
from toolatlas.errors import ToolAtlasError
from toolatlas.home import Home
from toolatlas.logs import configure_logging
from toolatlas.pipeline import TOPOLOGIES

__all__ = ["main"]


def cmd_validate(args: argparse.Namespace) -> int:
    from toolatlas.errors import ConfigError
    from toolatlas.preflight import catalogue_problems

    catalogue = load_catalogue(args.config)
    problems = catalogue_problems(catalogue)
    if problems:
        raise ConfigError(str(args.config), problems)
    rows = [
        (s.name, s.runtime.kind, getattr(s.runtime, "package", "") or "", getattr(s.runtime, "version", ""), s.transport.kind, s.environment.kind, "yes" if s.enabled else "no")
        for s in catalogue.servers
    ]
    print(f"{args.config}: catalogue {catalogue.name!r} is valid, {len(catalogue.servers)} server(s)")
    print(render_table(["server", "runtime", "package", "version", "transport", "environment", "enabled"], rows))
    return 0


def cmd_servers_install(args: argparse.Namespace) -> int:
    from toolatlas.runtimes import install_all

    catalogue = load_catalogue(args.config)
    home = Home.default().ensure()
    servers = catalogue.servers_named(args.server)
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


def _warn_unconfined(servers) -> None:
    """Say which servers the catalogue runs outside the OS sandbox (they can touch this machine)."""
    from toolatlas.confinement import unconfined_servers

    for name in unconfined_servers(servers):
        print(f"warning: server {name!r} runs outside the OS sandbox (sandbox.enabled = false in the catalogue): "
              "it can read, write and reach whatever this user can", file=sys.stderr, flush=True)


def cmd_servers_check(args: argparse.Namespace) -> int:
    from toolatlas.smoke import smoke_check_all
    from toolatlas.workspace import Workspace

    catalogue = load_catalogue(args.config)
    workspace = Workspace(catalogue)
    servers = catalogue.servers_named(args.server)
    print(f"checking {len(servers)} server(s): start in a sandbox, list tools, one call, freeze, reset", flush=True)
    _warn_unconfined(servers)

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


def cmd_build(args: argparse.Namespace) -> int:
    from toolatlas.outputs import write_outputs
    from toolatlas.pipeline.commands import build_atlas
    from toolatlas.progress import BuildProgress
    from toolatlas.store.paths import AtlasPaths, open_store

    catalogue = load_catalogue(args.config)
    servers = catalogue.servers_named(args.server)
    rounds = catalogue.build.rounds if args.rounds is None else args.rounds
    print(
        f"building the atlas of {len(servers)} server(s), bootstrap + {rounds} round(s), "
        f"frontier={args.frontier}, into {AtlasPaths(catalogue).root}",
        flush=True,
    )
    _warn_unconfined(servers)
    with BuildProgress([s.name for s in servers], rounds, coverage_line) as progress:
        report = build_atlas(
            args.config, catalogue, servers, engine=args.engine, rounds=rounds, frontier=args.frontier,
            resume=args.resume, on_round=progress.round_done, backend=args.backend, jobs=args.jobs,
            hosts=args.hosts, topology=args.topology, address=args.address, on_start=progress.line,
        )
    store = open_store(catalogue)
    try:
        print()
        print(coverage_table(report.coverage))
        export, page = write_outputs(catalogue, store)
    finally:
        store.close()
    print(
        f"\n{report.probes} probes ({report.calls} calls) in {report.seconds:.1f}s = {report.probes_per_s:.1f} probes/s; "
        f"{report.entries} entries in the atlas"
    )
    if report.llm is not None:
        print(usage_table(report.llm))
    print(f"atlas:  {export}\nreport: {page}")
    failed = {name: status for name, status in report.servers.items() if status != "ok"}
    for name, status in failed.items():
        print(f"{name}: {status}", file=sys.stderr)
    llm = report.llm.total() if report.llm is not None else None
    if llm is not None and llm.calls and llm.failures == llm.calls:
        print(f"every LLM call failed ({llm.calls} calls, {llm.requests} requests): the LLM rounds added nothing; "
              "see the log for the endpoint's answers", file=sys.stderr)
        return 1
    return 1 if failed else 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from toolatlas.graph.models import EntryKind
    from toolatlas.outputs import built_store
    from toolatlas.store.types import Filter

    catalogue = load_catalogue(args.config)
    store = built_store(catalogue)
    try:
        tools = store.all("tools", Filter.where(server=args.server) if args.server else None)
        entries = store.all("entries", Filter.where(server=args.server) if args.server else None)
        if args.tool:
            tools = [t for t in tools if t.tool == args.tool]
            entries = [e for e in entries if e.tool == args.tool]
        if not tools:
            _explain_empty_selection(store, catalogue, args.server, args.tool)
        by_tool: dict[tuple[str, str], dict[EntryKind, list]] = {}
        for entry in entries:
            by_tool.setdefault((entry.server, entry.tool), {k: [] for k in EntryKind})[entry.kind].append(entry)
        rows = []
        for node in sorted(tools, key=lambda n: (n.server, n.tool)):
            found = by_tool.get((node.server, node.tool), {k: [] for k in EntryKind})
            rows.append((
                node.server, node.tool, node.probes, len(found[EntryKind.AFFORDANCE]), len(found[EntryKind.BOUNDARY]),
                len(found[EntryKind.CO_USAGE]), f"{node.argument_coverage:.0%}", len(node.traces),
            ))
        print(render_table(["server", "tool", "calls", "affordances", "boundaries", "co-usage", "args", "traces"], rows))
        if args.tool:
            for kind in EntryKind:
                chosen = sorted((e for e in entries if e.kind is kind), key=lambda e: -e.support)
                if chosen:
                    print(f"\n{kind.value}:")
                    for entry in chosen:
                        status = "" if entry.status.value == "active" else f" ({entry.status.value}: not served)"
                        print(f"  [{entry.support}x, {entry.confidence:.2f}]{status} {entry.text}")
    finally:
        store.close()
    return 0


def _explain_empty_selection(store, catalogue: Catalogue, server: str | None, tool: str | None) -> None:  # type: ignore[no-untyped-def]
    """Why ``inspect`` has nothing to show: a name that is not there (with the names that are), or no build yet."""
    from toolatlas.store.types import Filter

    names = [spec.name for spec in catalogue.servers]
    if server is not None and server not in names:
        raise ToolAtlasError(f"{catalogue.source}: no server {server!r} (servers: {', '.join(names)})")
    stored = store.all("tools", Filter.where(server=server) if server else None)
    if not stored:
        raise ToolAtlasError(f"nothing stored yet for {server or 'this catalogue'}: run `toolatlas build` first")
    tools = sorted({node.tool for node in stored if server is None or node.server == server})
    raise ToolAtlasError(f"no tool {tool!r}{f' on server {server!r}' if server else ''} (tools: {', '.join(tools)})")


def cmd_export(args: argparse.Namespace) -> int:
    from toolatlas.export import AtlasExport
    from toolatlas.outputs import built_store, write_outputs

    if args.schema:
        print(json.dumps(AtlasExport.model_json_schema(by_alias=True), indent=1))
        return 0
    if args.config is None:
        raise ToolAtlasError("export needs a CONFIG (or --schema)")

    catalogue = load_catalogue(args.config)
    store = built_store(catalogue)
    try:
        export, page = write_outputs(catalogue, store, everything=args.all)
    finally:
        store.close()
    if args.redact:
        from toolatlas.trust.redact import redact_document

        redacted, counts = redact_document(json.loads(export.read_text()), catalogue.trust.redact)
        export.write_text(json.dumps(redacted, indent=1, ensure_ascii=False))
        found = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items())) or "none"
        print(f"redacted private values: {found}")
    if args.sign:
        from toolatlas.trust import sign_document

        signed = sign_document(json.loads(export.read_text()), Path(args.sign))
        export.write_text(json.dumps(signed, indent=1, ensure_ascii=False))
    if args.output:
        Path(args.output).write_text(export.read_text())
        print(f"wrote {args.output}" + (f" (signed by {signed['signature']['key']})" if args.sign else ""))
    else:
        print(f"wrote {export}" + (f" (signed by {signed['signature']['key']})" if args.sign else ""))
    return 0


def cmd_keygen(args: argparse.Namespace) -> int:
    from toolatlas.trust import generate_keys

    private, public = generate_keys(Path(args.output))
    print(f"wrote {private} (private: keep it secret) and {public} (give it to those who load your atlas)")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from toolatlas.outputs import built_store, write_outputs

    catalogue = load_catalogue(args.config)
    store = built_store(catalogue)
    try:
        _export, page = write_outputs(catalogue, store)
    finally:
        store.close()
    if args.output:
        Path(args.output).write_text(page.read_text())
        page = Path(args.output)
    print(f"report: {page.resolve()}")
    return 0


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
            from actors.serve import serve_on_ray

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


def cmd_diff(args: argparse.Namespace) -> int:
    from toolatlas.lifecycle import diff_atlases, load_export

    changes = diff_atlases(load_export(args.old), load_export(args.new), old_name=str(args.old), new_name=str(args.new))
    rendered = {"text": changes.as_text, "markdown": changes.as_markdown, "json": changes.as_json}[args.format]()
    print(rendered)
    return 1 if changes.regressions else 0


def cmd_seeds(args: argparse.Namespace) -> int:
    from toolatlas.environments import seeds

    print(render_table(["seed", "environment kind"], sorted(seeds.available().items())))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolatlas", description="Execution-verified tool atlases for MCP servers.")
    parser.add_argument("--log-level", default=None, help="debug, info, warning (default; or $TOOLATLAS_LOG_LEVEL)")
    parser.add_argument("--log-json", action="store_true", help="one JSON object per log line")
    parser.add_argument("--version", action="version", version=f"toolatlas {__version__}")
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

    build = commands.add_parser("build", help="probe every tool in sandboxes and build the atlas")
    build.add_argument("config", type=Path)
    build.add_argument("--rounds", type=whole_number(0), default=None, help="exploration rounds R (default: the catalogue's)")
    build.add_argument("--server", action="append", help="only this server (repeatable)")
    build.add_argument(
        "--frontier", choices=["graph", "uniform", "linucb"], default="graph", help="probe selection (default graph)"
    )
    build.add_argument("--jobs", type=whole_number(1), default=4, help="servers built in parallel (default 4)")
    build.add_argument("--resume", action="store_true", help="continue an interrupted build from its last completed rounds")
    build.add_argument("--engine", choices=["ray", "asyncio"], default="ray",
                       help="ray: actors on a cluster or a local Ray instance (default); asyncio: this process only")
    build.add_argument("--address", help="Ray cluster address (default: $RAY_ADDRESS, else start a local instance)")
    build.add_argument("--hosts", type=whole_number(1), default=None, help="executor host actors (default: 2 per node)")
    build.add_argument("--topology", choices=TOPOLOGIES, default="auto",
                       help="colocated: a server's host also plans and absorbs its probes (one executor per server); "
                            "split: shard actors do, fed batch by batch (any number of executors); auto: colocated "
                            "when executors_per_server is 1 (default)")
    build.add_argument("--backend", choices=["auto", "offline", "llm"], default="auto",
                       help="auto: the LLM method after the offline rounds when the catalogue has an [llm] endpoint "
                            "(default); offline: never; llm: require one")
    build.set_defaults(func=cmd_build)

    inspect = commands.add_parser("inspect", help="summarise the atlas per server and tool")
    inspect.add_argument("config", type=Path)
    inspect.add_argument("--server")
    inspect.add_argument("--tool", help="also list this tool's entries")
    inspect.set_defaults(func=cmd_inspect)

    export = commands.add_parser("export", help="write the atlas as versioned JSON")
    export.add_argument("config", type=Path, nargs="?")
    export.add_argument("-o", "--output")
    export.add_argument("--schema", action="store_true", help="print the JSON Schema of the export instead")
    export.add_argument("--sign", metavar="KEY", help="sign the export with this private key (toolatlas keygen)")
    export.add_argument("--redact", action="store_true",
                        help="replace private values in evidence and texts (absolute paths, hosts, addresses, e-mail "
                             "addresses, credentials, the catalogue's [trust] redact list) by placeholders")
    export.add_argument("--all", action="store_true",
                        help="every record, also those not served (stale, contradicted, retired, quarantined)")
    export.set_defaults(func=cmd_export)

    diff = commands.add_parser(
        "diff", help="what changed in the knowledge between two atlas exports; exit 1 on regressions",
        description="Compare two `toolatlas export` documents per server and tool. Exit 0 when nothing "
        "regressed, 1 on a regression (a removed server or tool, a lost affordance, a verified use that "
        "now fails), 2 on a usage error.",
    )
    diff.add_argument("old", type=Path, help="the atlas.json of the earlier release")
    diff.add_argument("new", type=Path, help="the atlas.json of the later release")
    diff.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                      help="markdown: tables fit for a pull-request comment")
    diff.set_defaults(func=cmd_diff)

    from toolatlas.demo import add_commands as add_demo_command
    from toolatlas.lifecycle.commands import add_commands as add_lifecycle_commands
    from toolatlas.loadtest.commands import add_commands as add_loadtest_command
    from toolatlas.scaffold import add_commands as add_init_command
    from toolatlas.trust.commands import add_commands as add_trust_commands

    add_lifecycle_commands(commands)
    add_trust_commands(commands)
    add_init_command(commands)
    add_demo_command(commands)
    add_loadtest_command(commands)

    keygen = commands.add_parser("keygen", help="write an Ed25519 key pair for signing exports (KEY, KEY.pub)")
    keygen.add_argument("-o", "--output", required=True, metavar="KEY", help="the private key's file; KEY.pub beside it")
    keygen.set_defaults(func=cmd_keygen)

    report = commands.add_parser("report", help="write the self-contained HTML report of the atlas")
    report.add_argument("config", type=Path)
    report.add_argument("-o", "--output")
    report.set_defaults(func=cmd_report)

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

    seeds = commands.add_parser("seeds", help="list the built-in snapshot seeds")
    seeds.set_defaults(func=cmd_seeds)
    return parser


OPTIONAL_MODULES = {"ray": "ray", "psycopg": "postgres"}
"""Top-level modules of the optional dependencies, and the extra that installs each (pyproject.toml)."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(args.log_level, json=args.log_json or None)
    try:
        return int(args.func(args) or 0)
    except ToolAtlasError as exc:
        print(f"toolatlas: error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        extra = OPTIONAL_MODULES.get((exc.name or "").partition(".")[0])
        if extra is None:
            raise
        print(f"toolatlas: error: this needs {exc.name!r}, an optional dependency: pip install 'toolatlas[{extra}]'"
              + (" (or build with --engine asyncio, in this process)" if extra == "ray" else ""), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("toolatlas: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `toolatlas export --schema | head`: the reader has what it wanted
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
