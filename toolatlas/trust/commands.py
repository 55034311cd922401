"""The trust commands of the CLI: ``toolatlas merge`` (exports of several builders) and ``toolatlas outcomes``
(agents' reports, admitted through a replay)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from toolatlas.config import load_catalogue
from toolatlas.console import render_table
from toolatlas.errors import ToolAtlasError

__all__ = ["add_commands"]


def add_commands(commands: argparse._SubParsersAction) -> None:
    merge = commands.add_parser(
        "merge", help="merge atlas exports of the same servers from several builders, with a conflict log",
        description="Merge `toolatlas export` documents field by field: the same entry adds its support, "
        "pooled evidence and provenance; disagreements (a claim field, a status, the same call working for "
        "one builder and failing for another, a tool's interface, a server's set-up) are kept as a typed "
        "conflict log in the output, and `guide` does not serve conflicted entries unless asked "
        "(--with-conflicts). Nothing is dropped. Exit 0, 2 on a usage error.",
    )
    merge.add_argument("exports", type=Path, nargs="+", metavar="ATLAS.json", help="two or more exports")
    merge.add_argument("-o", "--output", type=Path, required=True, help="the merged export")
    merge.add_argument("--builder", action="append", default=[], metavar="NAME",
                       help="the builder of each export, in order (default: each file's name)")
    merge.set_defaults(func=cmd_merge)

    outcomes = commands.add_parser(
        "outcomes", help="admit agents' reported calls into the atlas where a sandbox replay confirms them",
        description="Drain the queue of reports the guidance service took (serve --write-tokens): replay each "
        "reported call on a fresh sandbox and admit the replay's own observation when it ends as the agent "
        "said; reject the others, keeping what the replay showed (<queue>.rejected.jsonl). Exit 0, 2 on a "
        "usage error.",
    )
    outcomes.add_argument("config", type=Path)
    outcomes.add_argument("--queue", type=Path, metavar="FILE",
                          help="the queue file (default: outcomes.jsonl in the catalogue's atlas folder)")
    outcomes.add_argument("--engine", choices=("asyncio", "ray"), default="asyncio",
                          help="asyncio: replay here (default); ray: a task per server on a cluster or local Ray")
    outcomes.add_argument("--address", default=None, help="Ray cluster for --engine ray (default $RAY_ADDRESS, else local)")
    outcomes.set_defaults(func=cmd_outcomes)


def cmd_merge(args: argparse.Namespace) -> int:
    from toolatlas.lifecycle import load_export
    from toolatlas.trust.merge import merge_atlases

    if len(args.exports) < 2:
        raise ToolAtlasError("merge needs two or more exports")
    names = args.builder or [path.stem for path in args.exports]
    if len(names) != len(args.exports):
        raise ToolAtlasError(f"{len(args.exports)} exports but {len(names)} --builder name(s): give one per export")
    if len(set(names)) != len(names):
        raise ToolAtlasError(f"builders need names of their own (got {', '.join(names)}): use --builder")
    merged = merge_atlases([(name, load_export(path)) for name, path in zip(names, args.exports, strict=True)])
    args.output.write_text(json.dumps(merged.model_dump(mode="json", by_alias=True), indent=1, ensure_ascii=False))
    log = merged.merge
    assert log is not None
    out = sum(len(t.affordances) + len(t.boundaries) + len(t.co_usage) for s in merged.servers for t in s.tools)
    print(f"merged {len(names)} atlas(es) ({', '.join(names)}): {log.entries_in} entries in, {out} out")
    kinds = Counter(conflict.kind for conflict in log.conflicts)
    if log.conflicts:
        print(f"{len(log.conflicts)} conflict(s), {len(log.conflicted)} entries not served unless asked: "
              + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items())))
        rows = [(c.kind, c.server, c.tool or "", c.field or "", "; ".join(f"{b}: {v}" for b, v in c.values.items())[:90])
                for c in log.conflicts[:20]]
        print(render_table(["conflict", "server", "tool", "field", "what each builder says"], rows))
    else:
        print("no conflicts")
    print(f"wrote {args.output}")
    return 0


def cmd_outcomes(args: argparse.Namespace) -> int:
    import asyncio

    from toolatlas.outputs import built_store, write_outputs
    from toolatlas.trust.admission import admit_outcomes, queue_path
    from toolatlas.trust.outcomes import OutcomeQueue
    from toolatlas.workspace import Workspace

    catalogue = load_catalogue(args.config)
    queue = OutcomeQueue(args.queue or queue_path(catalogue))
    pending = queue.pending()
    print(f"{pending} report(s) queued in {queue.path}")
    if not pending:
        return 0
    store = built_store(catalogue)
    try:
        if args.engine == "ray":
            from toolatlas.actors.admission import ray_admitter
            from toolatlas.ray_session import ray_session

            with ray_session(args.address):
                admissions = asyncio.run(admit_outcomes(Workspace(catalogue), store, queue,
                                                        admit=ray_admitter(str(args.config))))
        else:
            admissions = asyncio.run(admit_outcomes(Workspace(catalogue), store, queue))
        export, _page = write_outputs(catalogue, store)
    finally:
        store.close()
    rows = [(a.server, a.tool, a.verdict, a.replayed_outcome, (a.detail or ", ".join(a.entries))[:80])
            for a in admissions]
    print(render_table(["server", "tool", "report", "replay", "why / entries"], rows))
    admitted = sum(a.verdict == "admitted" for a in admissions)
    print(f"{admitted} admitted, {len(admissions) - admitted} rejected; atlas: {export}")
    return 0
