"""Atlas recall on servers nobody tuned for: maintainer facts recalled, tools with a verified use, cost.

For each catalogue (by default ``configs/wild.toml`` with the facts in ``benchmarks/facts/wild/``,
then ``configs/demo.toml`` with ``benchmarks/facts/demo/``), in this process and with a fresh
store in a temporary folder (the catalogue's own atlas is left alone):

1. the raw call rate of every server — its smoke call on one sandbox, one call in flight, for
   ``--seconds`` — measured before the build and again after it, averaged;
2. the offline build of the catalogue (bootstrap + R rounds, the catalogue's settings, servers
   one at a time unless ``--parallel``), timing every call by the tool it called;
3. per server: recall of its maintainer facts (:mod:`toolatlas.evaluation.facts`; each miss with
   what the atlas holds instead), tools with ≥ 1 active verified affordance (of the tools the
   server lists, whether or not the atlas holds a node for them), build seconds (the
   rounds' own time) and the server's whole build (its sandboxes' start, discovery and pilots,
   the rounds: what a user waits for), the slowest tool's share of the whole build (its pilots
   and every call of it), and the build's calls/s and probes/s against the raw call rate (both in
   the same run: the machine is shared, so only ratios count), with the share of the rounds the
   server spent answering calls (the rest is ToolAtlas's own work and waits).

Goals (issue 14): wild recall ≥ 0.9, demo ≥ 0.95; ≥ 95% of wild tools with a verified affordance;
build calls/s ≥ 0.5 of the raw rate; no tool > 15% of its server's build time.

**When a tool dominates.** A share above 15% is arithmetic on a server of few tools: one tool is
all of a one-tool server's calls, and each of two equally costly tools takes about half. A tool
therefore *dominates* when its share of the server's whole build is above its fair share,
``max(0.15, 1 / tools)`` — 15% on a server of seven tools or more, an equal split below that (a
one-tool server is never judged). The share of the rounds alone is printed as well (``rnd``).

**The raw rate** is the server's smoke call (usually its cheapest read) on a warm session: a build
calls every tool, refusals and heavy calls included, so on a server whose tools work harder than its
smoke call, calls/s falls below the raw rate with no overhead at all; ``srv`` (the rounds' share
spent in calls) tells the two apart.

    .venv/bin/python benchmarks/atlas_recall.py [--config configs/wild.toml --facts benchmarks/facts/wild]
        [--server NAME] [--rounds R] [--seconds 1.0] [--parallel 1] [--misses]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402

from toolatlas.config import StoreSettings, load_catalogue  # noqa: E402
from toolatlas.environments import render_value  # noqa: E402
from toolatlas.evaluation.facts import load_facts, recall_facts  # noqa: E402
from toolatlas.graph.models import EntryKind, EntryStatus  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.pipeline.persistence import StoreSink  # noqa: E402
from toolatlas.pipeline.server import ServerBuild  # noqa: E402
from toolatlas.store.paths import AtlasPaths, open_store  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULTS = [
    (REPO / "configs" / "wild.toml", REPO / "benchmarks" / "facts" / "wild"),
    (REPO / "configs" / "demo.toml", REPO / "benchmarks" / "facts" / "demo"),
]


async def raw_call_seconds(workspace: Workspace, name: str, seconds: float) -> tuple[float | None, set[str]]:
    """Mean seconds of one smoke call on a warm session (None without a smoke call), and the tools the
    server lists (the denominator of "tools with a verified use": a tool the atlas lacks still counts)."""
    spec = workspace.catalogue.server(name)
    async with workspace.sandbox(spec) as sandbox:
        listed = {tool.name for tool in sandbox.tools}
        if spec.smoke is None:
            return None, listed
        arguments = render_value(spec.smoke.arguments, sandbox.variables())
        await sandbox.call(spec.smoke.tool, arguments)  # the first call may load code; not counted
        samples = []
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            await sandbox.call(spec.smoke.tool, arguments)
            samples.append(time.perf_counter() - t0)
    return statistics.mean(samples), listed


class CallClock:
    """Per server: probes, calls, and seconds spent in each tool's calls (fed by the build's on_probe)."""

    def __init__(self) -> None:
        self.probes: dict[str, int] = defaultdict(int)
        self.calls: dict[str, int] = defaultdict(int)
        self.tool_seconds: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))

    def __call__(self, rollout, verdict, delta) -> None:
        server = rollout.probe.server
        self.probes[server] += 1
        self.calls[server] += len(rollout.steps)
        for step in rollout.steps:
            self.tool_seconds[server][step.outcome.tool] += step.outcome.latency_ms / 1000


def fair_share(tools: int) -> float:
    """The share of its server's whole build above which a tool dominates (see the module docstring)."""
    return max(0.15, 1 / max(tools, 1))


async def build_servers(
    workspace: Workspace, store, specs, rounds: int | None, parallel: int, clock: CallClock
):
    """The offline build of ``specs`` (as ``toolatlas build --engine asyncio`` runs it), every probe
    reported to ``clock``; the coverage rows of every server and round, and per server its whole
    build's seconds and each tool's seconds (its pilots included)."""
    sink = StoreSink(store, AtlasPaths(workspace.catalogue))
    gate = asyncio.Semaphore(parallel)

    async def one(spec):
        async with gate:
            build = ServerBuild(
                workspace, spec, workspace.catalogue.build, sink=sink, on_probe=clock, rounds=rounds
            )
            rows = await build.run()
            return rows, build.seconds, build.costs()

    done = await asyncio.gather(*(one(spec) for spec in specs))
    await asyncio.to_thread(store.optimize)
    whole = {spec.name: (seconds, costs) for spec, (_rows, seconds, costs) in zip(specs, done, strict=True)}
    return [row for server_rows, _s, _c in done for row in server_rows], whole


async def measure(
    config: Path,
    facts_dir: Path,
    servers: list[str] | None,
    rounds: int | None,
    seconds: float,
    parallel: int,
    show_tools: list[str] | None = None,
) -> dict:
    base = load_catalogue(config)
    fact_sets = [s for s in load_facts(facts_dir) if servers is None or s.server in servers]
    chosen = [s for s in base.enabled_servers if servers is None or s.name in servers]
    with tempfile.TemporaryDirectory(prefix="atlas-recall-") as tmp:
        catalogue = base.model_copy(update={"store": StoreSettings(backend="edge", path=tmp)})
        workspace = Workspace(catalogue)
        before = {s.name: await raw_call_seconds(workspace, s.name, seconds) for s in chosen}
        clock = CallClock()
        store = open_store(catalogue)
        try:
            t0 = time.perf_counter()
            coverage, whole = await build_servers(workspace, store, chosen, rounds, parallel, clock)
            wall = time.perf_counter() - t0
            entries = store.all("entries")
            tools = store.all("tools")
        finally:
            store.close()
        after = {s.name: await raw_call_seconds(workspace, s.name, seconds) for s in chosen}
    outcomes = recall_facts(fact_sets, entries)
    for entry in sorted(entries, key=lambda e: (e.tool, e.kind.value)):
        if show_tools and entry.tool in show_tools:
            print(f"  {entry.status.value:<6} {entry.kind.value:<10} {entry.tool}: {entry.signature[:90]}"
                  f" | {entry.peer or ''} | {(entry.condition or '')[:90]}")
            for item in entry.evidence:
                print(f"      {item.arguments!s:.160} -> {item.excerpt[:160]!r}")
    rows = []
    for spec in chosen:
        name = spec.name
        mine = [o for o in outcomes if o.server == name]
        listed = sorted(before[name][1])
        in_atlas = {t.tool for t in tools if t.server == name and t.status is EntryStatus.ACTIVE}
        afforded = {
            e.tool
            for e in entries
            if e.server == name and e.kind is EntryKind.AFFORDANCE and e.status is EntryStatus.ACTIVE
        }
        own = [c for c in coverage if c.server == name]
        build_s = sum(c.seconds for c in own)
        failed = [c.detail for c in own if c.status != "ok"]
        per_tool = clock.tool_seconds.get(name, {})
        slowest = max(per_tool.items(), key=lambda kv: kv[1], default=("-", 0.0))
        server_s, tool_costs = whole[name]
        heaviest = max(tool_costs.items(), key=lambda kv: kv[1], default=("-", 0.0))
        call_s = sum(per_tool.values())
        raw = [s for s, _tools in (before[name], after[name]) if s is not None]
        raw_s = statistics.mean(raw) if raw else None
        calls_per_s = clock.calls[name] / build_s if build_s else 0.0
        rows.append(
            {
                "server": name,
                "status": "ok" if not failed else f"failed: {failed[-1]}",
                "facts": len(mine),
                "recalled": sum(o.recalled for o in mine),
                "recalled_summarised": sorted(o.fact for o in mine if o.summarised),
                "missed": [
                    {"fact": o.fact, "kind": o.kind.value, "reason": o.reason} for o in mine if not o.recalled
                ],
                "tools": len(listed),
                "tools_with_affordance": len(afforded & set(listed)),
                "tools_without_affordance": sorted(set(listed) - afforded),
                "tools_without_node": sorted(set(listed) - in_atlas),
                "build_s": build_s,
                "probes": clock.probes[name],
                "calls": clock.calls[name],
                "slowest_tool": slowest[0],
                "slowest_tool_share": slowest[1] / build_s if build_s else 0.0,
                "server_build_s": server_s,
                "heaviest_tool": heaviest[0],
                "heaviest_tool_share": heaviest[1] / server_s if server_s else 0.0,
                "fair_share": fair_share(len(listed)),
                "calls_share_of_rounds": call_s / build_s if build_s else 0.0,
                "probes_per_s": clock.probes[name] / build_s if build_s else 0.0,
                "calls_per_s": calls_per_s,
                "raw_calls_per_s": 1 / raw_s if raw_s else None,
                "raw_before_after": [1 / s if s else None for s, _tools in (before[name], after[name])],
                "calls_vs_raw": calls_per_s * raw_s if raw_s else None,
                "probes_vs_raw": (clock.probes[name] / build_s) * raw_s if raw_s and build_s else None,
            }
        )
    facts = sum(r["facts"] for r in rows)
    tools_n = sum(r["tools"] for r in rows)
    return {
        "config": str(config.relative_to(REPO)) if config.is_relative_to(REPO) else str(config),
        "facts_dir": str(facts_dir.relative_to(REPO)) if facts_dir.is_relative_to(REPO) else str(facts_dir),
        "rounds": rounds if rounds is not None else base.build.rounds,
        "parallel_servers": parallel,
        "build_wall_s": wall,
        "recall": sum(r["recalled"] for r in rows) / facts if facts else None,
        "recall_active_only": sum(r["recalled"] - len(r["recalled_summarised"]) for r in rows) / facts
        if facts
        else None,
        "facts": facts,
        "tools": tools_n,
        "tools_with_affordance_share": sum(r["tools_with_affordance"] for r in rows) / tools_n
        if tools_n
        else None,
        "rows": rows,
    }


def _ratio(value: float | None) -> str:
    return "   -" if value is None else f"{value:4.2f}"


def show(result: dict, misses: bool) -> None:
    print(
        f"\n{result['config']} (facts: {result['facts_dir']}, R={result['rounds']}, "
        f"servers {'one at a time' if result['parallel_servers'] == 1 else result['parallel_servers']})"
    )
    print(
        f"{'server':<12} {'recall':>9} {'afford':>7} {'rounds s':>8} {'whole s':>7} {'heaviest tool':<24} {'share':>5} "
        f"{'fair':>4} {'rnd':>4} {'probes/s':>8} {'calls/s':>8} {'raw/s':>7} {'calls/raw':>9} {'probes/raw':>10} {'srv':>4}"
    )
    for r in result["rows"]:
        raw = "-" if r["raw_calls_per_s"] is None else f"{r['raw_calls_per_s']:.0f}"
        share = r["recalled"] / r["facts"] if r["facts"] else 0.0
        print(
            f"{r['server']:<12} {r['recalled']:>3}/{r['facts']:<2} {share:3.2f}"
            f" {r['tools_with_affordance']:>3}/{r['tools']:<3} {r['build_s']:8.2f} {r['server_build_s']:7.2f} "
            f"{r['heaviest_tool'][:24]:<24} "
            f"{r['heaviest_tool_share']:5.2f} {r['fair_share']:4.2f} {r['slowest_tool_share']:4.2f} "
            f"{r['probes_per_s']:8.1f} {r['calls_per_s']:8.1f} {raw:>7} "
            f"{_ratio(r['calls_vs_raw']):>9} {_ratio(r['probes_vs_raw']):>10} {r['calls_share_of_rounds']:4.2f}"
            + ("" if r["status"] == "ok" else f"  [{r['status'][:60]}]")
        )
    over = [r["server"] for r in result["rows"] if r["tools"] > 1 and r["heaviest_tool_share"] > r["fair_share"]]
    over_15 = [r["server"] for r in result["rows"] if r["tools"] > 1 and r["heaviest_tool_share"] > 0.15]
    slow = [r["server"] for r in result["rows"] if r["calls_vs_raw"] is not None and r["calls_vs_raw"] < 0.5]
    print(
        f"recall {result['recall']:.3f} of {result['facts']} facts ({result['recall_active_only']:.3f} by served entries, "
        f"the rest by schema violations a summary serves); tools with a verified affordance "
        f"{result['tools_with_affordance_share']:.3f} of {result['tools']}; "
        f"build {result['build_wall_s']:.1f}s"
    )
    print(
        f"a tool over its fair share of its server's whole build: {', '.join(over) or 'none'} "
        f"(over 15%, servers of 2+ tools: {', '.join(over_15) or 'none'}); "
        f"calls/s < 0.5 of raw: {', '.join(slow) or 'none'}"
    )
    if misses:
        for r in result["rows"]:
            for miss in r["missed"]:
                print(f"  miss {r['server']}.{miss['fact']} ({miss['kind']}): {miss['reason']}")
            for fact in r["recalled_summarised"]:
                print(f"  summarised {r['server']}.{fact}: a schema violation its tool's summary serves")
            if r["tools_without_affordance"]:
                print(f"  no affordance {r['server']}: {', '.join(r['tools_without_affordance'])}")
            if r["tools_without_node"]:
                print(f"  not in the atlas at all {r['server']}: {', '.join(r['tools_without_node'])}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="one catalogue (default: wild, then demo)")
    parser.add_argument(
        "--facts", type=Path, help="its facts folder (default: benchmarks/facts/<catalogue name>)"
    )
    parser.add_argument("--server", action="append", help="only these servers (repeatable)")
    parser.add_argument("--rounds", type=int, help="exploration rounds R (default: the catalogue's)")
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="raw-rate measuring time per server, before and after"
    )
    parser.add_argument(
        "--parallel", type=int, default=1, help="servers built at once (1: clean per-server times)"
    )
    parser.add_argument(
        "--misses", action="store_true", help="print every missed fact and tool without a use"
    )
    parser.add_argument("--show", action="append", help="print every atlas entry of this tool (repeatable)")
    args = parser.parse_args()
    configure_logging()
    if args.config is not None:
        facts = args.facts or REPO / "benchmarks" / "facts" / load_catalogue(args.config).name
        pairs = [(args.config.resolve(), facts.resolve())]
    else:
        pairs = DEFAULTS
    results = []
    for config, facts_dir in pairs:
        result = await measure(config, facts_dir, args.server, args.rounds, args.seconds, args.parallel, args.show)
        show(result, args.misses)
        results.append(result)
    name = "atlas_recall" if args.config is None and not args.server else f"atlas_recall_{pairs[0][0].stem}"
    print(f"\nsaved {save(name, {'catalogues': results})}")


if __name__ == "__main__":
    asyncio.run(main())
