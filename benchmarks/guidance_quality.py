"""Guidance quality on real and project task sets: atlas guidance vs the docs-only baseline, and ablations.

Every system answers the same tasks in the same run. Task sets (each over its own atlas):

* ``mcpmark``  MCPMark's filesystem development tasks (``--mcpmark PATH`` or ``$TOOLATLAS_MCPMARK``: a
               checkout of github.com/eval-sys/mcpmark), annotated by ToolAtlas with the tools a
               correct solution needs and the failure it runs into
               (``toolatlas/evaluation/mcpmark_filesystem.toml``), over ``configs/mcpmark.toml``: the
               demo servers with the filesystem server built on the development instances' initial
               directories (the paper's cross-environment split). ``--build`` lays those directories
               out and builds that atlas first (offline, in this process);
* ``demo``     ``toolatlas/evaluation/demo_tasks.toml`` over ``configs/demo.toml``;
* ``wild``     ``toolatlas/evaluation/wild_tasks.toml`` over ``configs/wild.toml`` (needs for tools the
               atlas holds no node for — a server that failed to build — count as misses);
* ``unseen``   ``toolatlas/evaluation/unseen_tasks.toml`` over ``configs/unseen.toml``, servers written
               down before any atlas of them existed (all tasks dev since their one held-out figure;
               missing tools count as misses, as for ``wild``);
* ``heldout``  ``toolatlas/evaluation/heldout_tasks.toml`` over ``configs/heldout.toml``, held-out servers
               nobody tuned on (all tasks held; missing tools count as misses, as for ``wild``);
* ``heldout2`` ``toolatlas/evaluation/heldout2_tasks.toml`` over ``configs/heldout2.toml``, a third catalogue
               of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout2_dev`` ``toolatlas/evaluation/heldout2_dev_tasks.toml`` over the same ``configs/heldout2.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout3`` ``toolatlas/evaluation/heldout3_tasks.toml`` over ``configs/heldout3.toml``, a fourth catalogue
               of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout3_dev`` ``toolatlas/evaluation/heldout3_dev_tasks.toml`` over the same ``configs/heldout3.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout4`` ``toolatlas/evaluation/heldout4_tasks.toml`` over ``configs/heldout4.toml``, a fifth catalogue
               of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout4_dev`` ``toolatlas/evaluation/heldout4_dev_tasks.toml`` over the same ``configs/heldout4.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout5`` ``toolatlas/evaluation/heldout5_tasks.toml`` over ``configs/heldout5.toml``, a sixth catalogue
               of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout5_dev`` ``toolatlas/evaluation/heldout5_dev_tasks.toml`` over the same ``configs/heldout5.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout6`` ``toolatlas/evaluation/heldout6_tasks.toml`` over ``configs/heldout6.toml``, a seventh catalogue
               of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout6_dev`` ``toolatlas/evaluation/heldout6_dev_tasks.toml`` over the same ``configs/heldout6.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout7`` ``toolatlas/evaluation/heldout7_tasks.toml`` over ``configs/heldout7.toml``, an eighth catalogue
               of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout7_dev`` ``toolatlas/evaluation/heldout7_dev_tasks.toml`` over the same ``configs/heldout7.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout8`` ``toolatlas/evaluation/heldout8_tasks.toml`` over ``configs/heldout8.toml``, a ninth catalogue
               of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout8_dev`` ``toolatlas/evaluation/heldout8_dev_tasks.toml`` over the same ``configs/heldout8.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout9`` ``toolatlas/evaluation/heldout9_tasks.toml`` over ``configs/heldout9.toml``, a tenth catalogue
               of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout9_dev`` ``toolatlas/evaluation/heldout9_dev_tasks.toml`` over the same ``configs/heldout9.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout10`` ``toolatlas/evaluation/heldout10_tasks.toml`` over ``configs/heldout10.toml``, an eleventh
               catalogue of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout10_dev`` ``toolatlas/evaluation/heldout10_dev_tasks.toml`` over the same ``configs/heldout10.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout11`` ``toolatlas/evaluation/heldout11_tasks.toml`` over ``configs/heldout11.toml``, a twelfth
               catalogue of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout11_dev`` ``toolatlas/evaluation/heldout11_dev_tasks.toml`` over the same ``configs/heldout11.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout12`` ``toolatlas/evaluation/heldout12_tasks.toml`` over ``configs/heldout12.toml``, a thirteenth
               catalogue of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout12_dev`` ``toolatlas/evaluation/heldout12_dev_tasks.toml`` over the same ``configs/heldout12.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout13`` ``toolatlas/evaluation/heldout13_tasks.toml`` over ``configs/heldout13.toml``, a fourteenth
               catalogue of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout13_dev`` ``toolatlas/evaluation/heldout13_dev_tasks.toml`` over the same ``configs/heldout13.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout14`` ``toolatlas/evaluation/heldout14_tasks.toml`` over ``configs/heldout14.toml``, a fifteenth
               catalogue of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout14_dev`` ``toolatlas/evaluation/heldout14_dev_tasks.toml`` over the same ``configs/heldout14.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``heldout15`` ``toolatlas/evaluation/heldout15_tasks.toml`` over ``configs/heldout15.toml``, a sixteenth
               catalogue of held-out servers nobody tuned on (all tasks held; missing tools count as misses);
* ``heldout15_dev`` ``toolatlas/evaluation/heldout15_dev_tasks.toml`` over the same ``configs/heldout15.toml``:
               development tasks written from those servers' listings and sources, apart from the held set
               (all tasks dev; missing tools count as misses);
* ``--config CATALOGUE [--tasks FILE]`` instead: one catalogue with its own task file
  (``toolatlas/evaluation/<catalogue>_tasks.toml``) or the given one.

Systems: ``atlas`` (``Atlas.guide``, B=8, k_r=3, 1,200 tokens, all servers), ``docs-only`` (BM25 over
the raw tool names and descriptions, top 5), ``atlas, right server`` (the caller names the task's
server: what routing costs), ``static (no traversal)``, and the navigator with B=4/12, k_r=1/5.

Reported per task set and split: recall@5 of needed tools, complete@5 (every need in the top 5),
the likely failure warned (share of the tasks with one), mean tokens and their ratio to docs-only,
p50 latency of an answer computed afresh (no answer cache; timings are noise on a shared machine:
compare the ratio to docs-only in the same run, not absolute values across runs).

    .venv/bin/python benchmarks/guidance_quality.py [--mcpmark PATH [--build]] [--sets mcpmark,demo,wild,unseen,heldout,heldout2,heldout2_dev,heldout3,heldout3_dev,heldout4,heldout4_dev,heldout5,heldout5_dev,heldout6,heldout6_dev,heldout7,heldout7_dev,heldout8,heldout8_dev,heldout9,heldout9_dev,heldout10,heldout10_dev,heldout11,heldout11_dev,heldout12,heldout12_dev,heldout13,heldout13_dev,heldout14,heldout14_dev,heldout15,heldout15_dev]
                                                    [--config CATALOGUE [--tasks FILE]] [--missing-tools error|warn]
                                                    [--rows all|dev|none] [--repeat 5] [--why]

Results go to ``benchmarks/results/guidance_quality.json`` (demo) and ``guidance_quality_<set>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save

from toolatlas.errors import ConfigError
from toolatlas.evaluation import (
    DEMO_TASKS,
    AtlasGuidance,
    DocsOnly,
    EvalTask,
    TaskResult,
    check_tools,
    evaluate,
    load_tasks,
    summarise,
)
from toolatlas.evaluation.mcpmark import CHECKOUT_ENV, discover, evaluation_tasks, materialise_states
from toolatlas.evaluation.misses import miss_cause
from toolatlas.guidance import Atlas, StaticNavigator

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs"
MCPMARK_STATES = REPO / ".toolatlas" / "mcpmark" / "filesystem"
"""Where ``configs/mcpmark.toml`` reads the development instances' initial directories."""
THIRD_PARTY_SETS = (
    "wild", "unseen", "heldout", "heldout2", "heldout2_dev", "heldout3", "heldout3_dev", "heldout4", "heldout4_dev",
    "heldout5", "heldout5_dev", "heldout6", "heldout6_dev", "heldout7", "heldout7_dev", "heldout8", "heldout8_dev",
    "heldout9", "heldout9_dev", "heldout10", "heldout10_dev", "heldout11", "heldout11_dev", "heldout12",
    "heldout12_dev", "heldout13", "heldout13_dev", "heldout14", "heldout14_dev", "heldout15", "heldout15_dev",
)
"""Task sets over third-party catalogues: ``toolatlas/evaluation/<set>_tasks.toml`` over ``configs/<set>.toml``
(or the catalogue :data:`OVER` names); a need for a tool the atlas has no node for (a server that failed to
build) counts as a miss."""
OVER = {"heldout2_dev": "heldout2", "heldout3_dev": "heldout3", "heldout4_dev": "heldout4", "heldout5_dev": "heldout5",
        "heldout6_dev": "heldout6", "heldout7_dev": "heldout7", "heldout8_dev": "heldout8",
        "heldout9_dev": "heldout9", "heldout10_dev": "heldout10",
        "heldout11_dev": "heldout11", "heldout12_dev": "heldout12", "heldout13_dev": "heldout13",
        "heldout14_dev": "heldout14", "heldout15_dev": "heldout15"}
"""Task sets over another set's catalogue: development tasks written apart from a held set, on its servers."""


def systems(atlas: Atlas, *, ablations: bool) -> list:
    chosen = [AtlasGuidance(atlas, name="atlas"), DocsOnly(atlas.view),
              AtlasGuidance(atlas, name="atlas, right server", right_servers=True)]
    if ablations:
        chosen += [
            AtlasGuidance(atlas, name="static (no traversal)", navigator=StaticNavigator()),
            AtlasGuidance(atlas, name="atlas B=4", budget=4),
            AtlasGuidance(atlas, name="atlas B=12", budget=12),
            AtlasGuidance(atlas, name="atlas k_r=1", k_r=1),
            AtlasGuidance(atlas, name="atlas k_r=5", k_r=5),
        ]
    return chosen


def mark(result: TaskResult) -> str:
    boundary = "" if result.boundary is None else (" b+" if result.boundary else " b-")
    return f"{result.recall:4.2f}{boundary:3}"


def print_rows(results: dict[str, list[TaskResult]], split: str | None = None) -> None:
    """Each task's row (of ``split`` only, when given: the rows a tuner may look at)."""
    atlas, docs = results["atlas"], results["docs-only"]
    print(f"\n{'task':44} {'atlas':8} {'docs':8}  atlas missed | docs missed")
    for a, d in zip(atlas, docs, strict=True):
        if split is not None and a.split != split:
            continue
        print(f"{a.task[:44]:44} {mark(a):8} {mark(d):8}  {', '.join(a.missed) or '-'} | {', '.join(d.missed) or '-'}")


def print_misses(atlas: Atlas, tasks: list[EvalTask]) -> None:
    """Why each development task's likely failure was not warned of (held tasks are never diagnosed)."""
    system = AtlasGuidance(atlas)
    causes = [(task, miss_cause(system, task)) for task in tasks if task.split == "dev"]
    found = [(task, cause) for task, cause in causes if cause is not None]
    print(f"\nunwarned dev failures: {len(found)} of {sum(1 for task, _ in causes if task.boundary_hint)}")
    for task, cause in found:
        print(f"  {task.id:40} {cause.value:16} {', '.join(task.boundary_phrases)[:60]}")


def build_mcpmark(checkout: str | None) -> None:
    """Lay out the development instances' initial directories and build ``configs/mcpmark.toml`` offline."""
    from toolatlas.config import load_catalogue
    from toolatlas.home import Home
    from toolatlas.pipeline.catalogue import build_catalogue
    from toolatlas.store.paths import open_store
    from toolatlas.workspace import Workspace

    sources = materialise_states(discover(checkout), MCPMARK_STATES)
    print("initial directories: " + ", ".join(f"{i} ({s})" for i, s in sources.items()))
    catalogue = load_catalogue(CONFIGS / "mcpmark.toml")
    store = open_store(catalogue)
    try:
        asyncio.run(build_catalogue(Workspace(catalogue, Home(REPO / ".toolatlas")), store))
    finally:
        store.close()


def mcpmark_tasks(checkout: str | None) -> list[EvalTask]:
    tasks, unavailable = evaluation_tasks(discover(checkout))
    for item in unavailable:
        print(f"unavailable: {item.key}: {'; '.join(item.reasons)}")
    return tasks


def task_sets(args: argparse.Namespace) -> list[tuple[str, Path, list[EvalTask]]]:
    """(name, catalogue, tasks) of every requested task set that can run."""
    if args.config:
        config = Path(args.config).resolve()
        own = DEMO_TASKS.with_name(f"{config.stem}_tasks.toml")
        tasks = Path(args.tasks) if args.tasks else own if own.exists() else DEMO_TASKS
        return [(tasks.stem.removesuffix("_tasks"), config, load_tasks(tasks))]
    chosen = []
    for name in args.sets.split(","):
        if name == "mcpmark":
            if not (args.mcpmark or os.environ.get(CHECKOUT_ENV)):
                print(f"mcpmark: skipped (no checkout: --mcpmark PATH or ${CHECKOUT_ENV})")
                continue
            if args.build:
                build_mcpmark(args.mcpmark)
            chosen.append(("mcpmark", CONFIGS / "mcpmark.toml", mcpmark_tasks(args.mcpmark)))
        elif name == "demo":
            chosen.append(("demo", CONFIGS / "demo.toml", load_tasks(DEMO_TASKS)))
        elif name in THIRD_PARTY_SETS:
            config = CONFIGS / f"{OVER.get(name, name)}.toml"
            tasks = DEMO_TASKS.with_name(f"{name}_tasks.toml")
            if config.exists() and tasks.exists():
                chosen.append((name, config, load_tasks(tasks)))
            else:
                print(f"{name}: skipped (no configs/{name}.toml or {name} task set yet)")
    return chosen


def report(name: str, results: dict[str, list[TaskResult]]) -> dict:
    splits = sorted({r.split for r in results["atlas"]}) + ["all"]
    table = {}
    for split in splits:
        rows = [summarise(system, [r for r in got if split == "all" or r.split == split]) for system, got in results.items()]
        table[split] = rows
        docs = next(s for s in rows if s.system == "docs-only")
        first = rows[0]
        print(f"\n[{name} / {split}] {first.tasks} tasks, {first.boundary_tasks} with a likely failure")
        print(f"{'system':24} {'recall@5':>8} {'complete@5':>10} {'warned':>7} {'tokens':>7} {'×docs':>6} {'p50 ms':>7}")
        for s in rows:
            ratio = s.mean_tokens / docs.mean_tokens if docs.mean_tokens else 0.0
            print(f"{s.system:24} {s.recall_at_5:8.3f} {s.complete_at_5:10.3f} {s.boundary_inclusion:7.3f} "
                  f"{s.mean_tokens:7.0f} {ratio:6.2f} {s.p50_ms:7.3f}")
    return {split: [s.as_dict() for s in rows] for split, rows in table.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mcpmark", help=f"an MCPMark checkout (default: ${CHECKOUT_ENV})")
    parser.add_argument("--build", action="store_true", help="lay out the MCPMark instances and build their atlas first")
    parser.add_argument("--sets", default="mcpmark,demo,wild", help="task sets, comma-separated")
    parser.add_argument("--config", help="one catalogue instead of the task sets (with its own task file)")
    parser.add_argument("--tasks", help="the task file for --config")
    parser.add_argument("--missing-tools", choices=["error", "warn"], default=None,
                        help="a task needing a tool the atlas lacks: stop (a typo) or count it as a miss "
                             "(default: warn for the third-party sets wild, unseen, heldout, heldout2, heldout2_dev, heldout3, "
                             "heldout3_dev, heldout4, heldout4_dev, heldout5, heldout5_dev, heldout6, heldout6_dev, heldout7, "
                             "heldout7_dev, heldout8, heldout8_dev, heldout9, heldout9_dev, heldout10, heldout10_dev, heldout11, "
                             "heldout11_dev, heldout12, heldout12_dev, heldout13, heldout13_dev, heldout14, heldout14_dev, heldout15 "
                             "and heldout15_dev, "
                             "error otherwise)")
    parser.add_argument("--rows", choices=["all", "dev", "none"], default="all",
                        help="per-task rows to print (dev: only the development split's)")
    parser.add_argument("--repeat", type=int, default=5, help="answers per task for latency (median)")
    parser.add_argument("--why", action="store_true",
                        help="say why each development task's likely failure was not warned of (not in the atlas, "
                             "routing, tool not served, budget, ranked out)")
    args = parser.parse_args()

    for name, config, tasks in task_sets(args):
        atlas = Atlas.open(config)
        try:
            check_tools(tasks, [f"{server}.{tool}" for server, tool in atlas.view.tool_keys], file=str(config))
        except ConfigError as exc:
            if (args.missing_tools or ("warn" if name in THIRD_PARTY_SETS else "error")) == "error":
                raise
            print(f"warning: tools the atlas has no node for (their needs count as misses):\n  {exc}")
        results = {s.name: evaluate(s, tasks, repeat=args.repeat) for s in systems(atlas, ablations=name == "demo")}
        if args.rows != "none":
            print_rows(results, "dev" if args.rows == "dev" else None)
        if args.why:
            print_misses(atlas, tasks)
        where = str(config.relative_to(REPO)) if config.is_relative_to(REPO) else str(config)
        path = save("guidance_quality" if name == "demo" else f"guidance_quality_{name}", {
            "catalogue": where, "tasks": len(tasks), "summary": report(name, results),
            "per_task": {system: [vars(r) for r in rows] for system, rows in results.items()}})
        print(f"\nsaved {path}")


if __name__ == "__main__":
    main()
