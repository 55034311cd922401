"""Budget allocation per round: the LinUCB bandit vs the same-budget uniform baseline (and graph).

All three build the demo catalogue from scratch with the same seed and the same probe budget per
round (K target tools × (boundary + affordance + 1)). ``linucb`` spends each slot on the
(tool, direction) arm with the highest upper confidence bound on new verified knowledge;
``uniform`` samples the same number of probes uniformly from every tool's candidates; ``graph``
(the under-explored-first frontier) is there for reference. Prints covered keys, entries,
boundary kinds, co-usage pairs and probes per round, the linucb/uniform ratios, and draws the
curves to ``benchmarks/results/frontier_allocation.svg``. ``--subgraph-size`` (K) tightens or
loosens the budget; results are saved per K (``frontier_allocation.json`` for the catalogue's K).

    .venv/bin/python benchmarks/frontier_allocation.py [--rounds 6] [--server NAME] [--subgraph-size K]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, save
from coverage import per_round

from toolatlas.config import StoreSettings, load_catalogue
from toolatlas.graph.state import RoundCoverage
from toolatlas.logs import configure_logging
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.report.charts import Series, line_chart
from toolatlas.store.paths import open_store
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]

FRONTIERS = ("linucb", "uniform", "graph")
METRICS = (
    ("covered_keys", "covered keys"),
    ("entries", "entries"),
    ("boundary_families", "boundary kinds"),
    ("co_usage_pairs", "pairs"),
    ("probes", "probes"),
)


async def run(frontier: str, rounds: int, servers: list[str] | None, subgraph_size: int | None) -> list[RoundCoverage]:
    """Build the demo catalogue from scratch into a throwaway store; its coverage rows."""
    demo = load_catalogue(REPO / "configs" / "demo.toml")
    build = demo.build if subgraph_size is None else demo.build.model_copy(update={"subgraph_size": subgraph_size})
    with tempfile.TemporaryDirectory() as tmp:
        catalogue = demo.model_copy(update={"store": StoreSettings(backend="edge", path=tmp), "build": build})
        store = open_store(catalogue)
        try:
            chosen = [catalogue.server(s) for s in servers] if servers else None
            report = await build_catalogue(Workspace(catalogue), store, servers=chosen, rounds=rounds, frontier=frontier)
        finally:
            store.close()
    return report.coverage


def ratio(ours: float, theirs: float) -> float:
    return ours / theirs if theirs else float("nan")


def print_table(results: dict[str, list[dict]], budget: int) -> None:
    linucb, uniform, graph = (results[f] for f in FRONTIERS)
    print(f"\ncumulative per round, budget {budget} probes per server and round (demo servers); "
          "columns linucb/uniform/graph")
    header = f"{'round':>5}" + "".join(f" {label + ' l/u/g':>22}" for _, label in METRICS)
    header += f" {'keys l÷u':>8} {'entries l÷u':>11} {'kinds l÷u':>9} {'pairs l÷u':>9}"
    print(header)
    for l_row, u_row, g_row in zip(linucb, uniform, graph, strict=True):
        line = f"{l_row['round']:>5}"
        for metric, _ in METRICS:
            line += f" {f'{l_row[metric]}/{u_row[metric]}/{g_row[metric]}':>22}"
        for metric, width in (("covered_keys", 8), ("entries", 11), ("boundary_families", 9), ("co_usage_pairs", 9)):
            line += f" {ratio(l_row[metric], u_row[metric]):>{width}.2f}"
        print(line)
    for name in FRONTIERS:
        rows = results[name]
        gains = [b["entries"] - a["entries"] for a, b in pairwise(rows)]
        probes = sum(r["probes"] for r in rows[1:])
        per_probe = sum(gains) / probes if probes else float("nan")
        print(f"{name:>7}: new entries per exploration round {gains}; {probes} exploration probes, "
              f"{per_probe:.3f} new entries per probe; tools with a boundary {rows[-1]['boundaries_tools']}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--server", action="append")
    parser.add_argument("--subgraph-size", type=int, default=None, help="K (default: the catalogue's)")
    args = parser.parse_args()
    configure_logging()
    settings = load_catalogue(REPO / "configs" / "demo.toml").build
    k = args.subgraph_size or settings.subgraph_size
    budget = min(settings.probe_budget_per_round,
                 k * (settings.boundary_probes_per_tool + settings.affordance_probes_per_tool + 1))
    results = {}
    for frontier in FRONTIERS:
        rows = await run(frontier, args.rounds, args.server, args.subgraph_size)
        results[frontier] = per_round(rows, args.rounds)
        print(f"  built with the {frontier} frontier", flush=True)
    print_table(results, budget)
    rounds = [row["round"] for row in results["linucb"]]
    colours = {"linucb": ("#7c3aed", "#16a34a"), "uniform": ("#dc2626", "#f97316"), "graph": ("#2563eb", "#0891b2")}
    dashes = {"linucb": None, "uniform": "5 4", "graph": "2 3"}
    series = [
        Series(f"{name}: {label}", colours[name][i], [float(r[metric]) for r in results[name]], dashes[name], str)
        for name in FRONTIERS
        for i, (metric, label) in enumerate((("covered_keys", "covered keys"), ("entries", "entries")))
    ]
    svg = line_chart(
        "frontier-allocation-bench",
        "Budget allocation per round: LinUCB vs uniform (graph for reference), same budget",
        "Covered exploration keys and verified entries of the demo catalogue after each round.",
        rounds,
        series,
        y_label="count",
    )
    name = "frontier_allocation" if k == settings.subgraph_size else f"frontier_allocation_k{k}"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.svg").write_text(svg)
    path = save(name, {"rounds": args.rounds, "subgraph_size": k, "budget_per_round": budget, **results})
    print(f"\nsaved {path} and {RESULTS / f'{name}.svg'}")


if __name__ == "__main__":
    asyncio.run(main())
