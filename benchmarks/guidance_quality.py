"""Guidance quality on the project's task set: atlas guidance vs the docs-only baseline, and ablations.

Every system answers the same tasks (``toolatlas/evaluation/demo_tasks.toml``: user requests over
the demo servers, each with the tools a correct solution needs and, for some, the verified
boundary it runs into) in the same run:

* ``atlas``       ``Atlas.guide`` with the defaults (B=8 reads, k_r=3 seed traces, 1,200 tokens);
* ``docs-only``   BM25 over the raw tool names + descriptions, top 5 (no atlas);
* ``static``      no traversal: the B tools most relevant by their atlas text, read directly
                  (the same retrieval the navigator starts from, without traces or edges);
* ``B=4``/``B=12``/``k_r=1``/``k_r=5``  the navigator with another read budget or seed count.

Reports recall@5 of needed tools, complete@5 (every need in the top 5), boundary inclusion, mean
tokens and p50 latency, for the dev half, the held-out half and all tasks; per-task rows show
the top-5 ranks and the needs each system missed. Latency is measured without the answer cache.
Only the dev half may inform changes to guidance; the held half reports how they generalise.

    .venv/bin/python benchmarks/guidance_quality.py [--config configs/demo.toml | --export atlas.json]
                                                    [--tasks FILE] [--rows all|dev|held|none] [--repeat 5]

``--config configs/wild.toml --missing-tools warn`` reports the wild catalogue on
``toolatlas/evaluation/wild_tasks.toml`` (a catalogue's own task file is found by its name; results go
to ``guidance_quality_wild.json``); ``warn`` scores a need for a tool the atlas holds no node for as a miss.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402

from toolatlas.errors import ConfigError  # noqa: E402
from toolatlas.evaluation import (  # noqa: E402
    DEMO_TASKS,
    AtlasGuidance,
    DocsOnly,
    TaskResult,
    check_tools,
    evaluate,
    load_tasks,
    summarise,
)
from toolatlas.guidance import Atlas, StaticNavigator  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SPLITS = ("dev", "held", "all")


def systems(atlas: Atlas) -> list:
    return [
        AtlasGuidance(atlas, name="atlas"),
        DocsOnly(atlas.view),
        AtlasGuidance(atlas, name="static (no traversal)", navigator=StaticNavigator()),
        AtlasGuidance(atlas, name="atlas B=4", budget=4),
        AtlasGuidance(atlas, name="atlas B=12", budget=12),
        AtlasGuidance(atlas, name="atlas k_r=1", k_r=1),
        AtlasGuidance(atlas, name="atlas k_r=5", k_r=5),
    ]


def mark(result: TaskResult) -> str:
    boundary = "" if result.boundary is None else (" b+" if result.boundary else " b-")
    return f"{result.recall:4.2f}{boundary:3}"


def print_rows(results: dict[str, list[TaskResult]], which: str) -> None:
    atlas, docs = results["atlas"], results["docs-only"]
    print(f"\n{'task':24} {'split':5} {'atlas':8} {'docs':8}  atlas missed | docs missed")
    for a, d in zip(atlas, docs, strict=True):
        if which != "all" and a.split != which:
            continue
        print(f"{a.task:24} {a.split:5} {mark(a):8} {mark(d):8}  {', '.join(a.missed) or '-'} | {', '.join(d.missed) or '-'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--config", default=str(REPO / "configs" / "demo.toml"), help="catalogue whose store holds the atlas")
    source.add_argument("--export", help="an atlas.json export instead of a store")
    parser.add_argument("--tasks", help="task file (default: toolatlas/evaluation/<catalogue>_tasks.toml)")
    parser.add_argument("--missing-tools", choices=["error", "warn"], default="error",
                        help="a task needing a tool the atlas lacks: stop (a typo) or count it as a miss")
    parser.add_argument("--rows", choices=["all", "dev", "held", "none"], default="all", help="per-task rows to print")
    parser.add_argument("--repeat", type=int, default=5, help="answers per task for latency (median)")
    args = parser.parse_args()

    atlas = Atlas.from_export(args.export) if args.export else Atlas.open(args.config)
    own_tasks = DEMO_TASKS.with_name(f"{Path(args.config).stem}_tasks.toml")
    args.tasks = args.tasks or str(own_tasks if not args.export and own_tasks.exists() else DEMO_TASKS)
    tasks = load_tasks(args.tasks)
    try:
        check_tools(tasks, [f"{server}.{tool}" for server, tool in atlas.view.tool_keys], file=args.tasks)
    except ConfigError as exc:
        if args.missing_tools == "error":
            raise
        print(f"warning: tools the atlas has no node for (their needs count as misses):\n  {exc}")
    results = {system.name: evaluate(system, tasks, repeat=args.repeat) for system in systems(atlas)}
    if args.rows != "none":
        print_rows(results, args.rows)

    table = {split: [] for split in SPLITS}
    for name, rows in results.items():
        for split in SPLITS:
            chosen = [r for r in rows if split == "all" or r.split == split]
            table[split].append(summarise(name, chosen))
    for split in SPLITS:
        first = table[split][0]
        print(f"\n[{split}] {first.tasks} tasks, {first.boundary_tasks} with a known boundary")
        print(f"{'system':24} {'recall@5':>8} {'complete@5':>10} {'boundary':>8} {'tokens':>7} {'p50 ms':>7}")
        for s in table[split]:
            print(f"{s.system:24} {s.recall_at_5:8.3f} {s.complete_at_5:10.3f} {s.boundary_inclusion:8.3f} "
                  f"{s.mean_tokens:7.0f} {s.p50_ms:7.3f}")
    stem = Path(args.tasks).stem.removesuffix("_tasks")
    path = save("guidance_quality" if stem == "demo" else f"guidance_quality_{stem}", {
        "atlas": args.export or args.config,
        "tasks": {"file": str(Path(args.tasks).resolve().relative_to(REPO)) if Path(args.tasks).resolve().is_relative_to(REPO)
                  else args.tasks, "count": len(tasks)},
        "summary": {split: [s.as_dict() for s in rows] for split, rows in table.items()},
        "per_task": {name: [vars(r) for r in rows] for name, rows in results.items()},
    })
    print(f"\nsaved {path}")


if __name__ == "__main__":
    main()
