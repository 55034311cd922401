"""The trust commands of the CLI that work on exports: ``toolatlas merge``."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

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
