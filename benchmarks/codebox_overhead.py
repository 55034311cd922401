"""What confinement costs: one verifier run, and one tool call through the CodeAct bridge.

Measured interleaved in the same run against baselines:

- a verifier run (trivial ``verify`` on a directory state) — every layer, and the audit hook
  alone — vs a bare ``python -I -c pass`` of the same interpreter (the floor of any subprocess);
- per tool call: ``n`` calls of ``read_graph`` on the demo memory server from inside one
  snippet vs the same ``n`` calls made directly with ``Sandbox.call`` (needs the demo runtimes).

    .venv/bin/python benchmarks/codebox_overhead.py [--iterations 30] [--calls 20] [--no-servers]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median_ms, save

from toolatlas.codebox import RunPolicy, RunStatus, run_code, run_verifier
from toolatlas.config import load_catalogue
from toolatlas.environments import FrozenState
from toolatlas.home import Home
from toolatlas.logs import configure_logging
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
VERIFIER = "def verify(state, answer):\n    return state.read_text('a.txt') == answer\n"


async def timed(coro_factory) -> float:
    t0 = time.perf_counter()
    await coro_factory()
    return time.perf_counter() - t0


async def bare_python() -> None:
    process = await asyncio.create_subprocess_exec(sys.executable, "-I", "-c", "pass")
    await process.wait()


async def bench_verifier(iterations: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "a.txt").write_text("x")
        state = FrozenState(kind="directory", instance_id="bench", path=folder)
        policies = {"all_layers": RunPolicy(), "audit_hook_only": RunPolicy(kernel_isolation=False)}
        samples: dict[str, list[float]] = {name: [] for name in [*policies, "bare_python"]}
        isolation = None
        for _ in range(iterations):
            for name, policy in policies.items():

                async def run(policy: RunPolicy = policy) -> None:
                    nonlocal isolation
                    result = await run_verifier(VERIFIER, state, "x", policy=policy)
                    assert result.status is RunStatus.OK, result
                    isolation = isolation or result.isolation

                samples[name].append(await timed(run))
            samples["bare_python"].append(await timed(bare_python))
    base = median_ms(samples["bare_python"])
    return {
        "iterations": iterations,
        "median_ms": {name: round(median_ms(values), 1) for name, values in samples.items()},
        "ratio_to_bare_python": {
            name: round(median_ms(values) / base, 2) for name, values in samples.items()
        },
        "isolation": isolation.model_dump() if isolation else None,
    }


async def bench_bridge(iterations: int, calls: int) -> dict:
    catalogue = load_catalogue(REPO / "configs" / "demo.toml")
    async with Workspace(catalogue, Home(REPO / ".toolatlas")).sandbox("memory") as sandbox:
        names = [tool.name for tool in sandbox.tools]
        snippet = f"for _ in range({calls}):\n    tools.read_graph()\n"
        empty = "pass\n"
        samples: dict[str, list[float]] = {"snippet_with_calls": [], "empty_snippet": [], "direct_calls": []}

        async def direct() -> None:
            for _ in range(calls):
                await sandbox.call("read_graph", {})

        for _ in range(iterations):
            samples["snippet_with_calls"].append(await timed(lambda: run_code(snippet, sandbox.call, names)))
            samples["empty_snippet"].append(await timed(lambda: run_code(empty, sandbox.call, names)))
            samples["direct_calls"].append(await timed(direct))
    with_calls, empty_ms, direct_ms = (median_ms(samples[k]) for k in samples)
    per_call_bridge = (with_calls - empty_ms) / calls
    per_call_direct = direct_ms / calls
    return {
        "iterations": iterations,
        "calls_per_snippet": calls,
        "median_ms": {name: round(median_ms(values), 1) for name, values in samples.items()},
        "per_call_ms": {"through_bridge": round(per_call_bridge, 2), "direct": round(per_call_direct, 2)},
        "per_call_ratio_bridge_to_direct": round(per_call_bridge / per_call_direct, 2),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--no-servers", action="store_true", help="skip the CodeAct bridge measurement")
    args = parser.parse_args()
    configure_logging("warning")
    results = {"verifier_run": await bench_verifier(args.iterations)}
    print("verifier run, median ms:", results["verifier_run"]["median_ms"])
    print("  ratio to a bare python -I -c pass:", results["verifier_run"]["ratio_to_bare_python"])
    if not args.no_servers:
        results["codeact_bridge"] = await bench_bridge(args.iterations, args.calls)
        bridge = results["codeact_bridge"]
        print("CodeAct bridge, median ms:", bridge["median_ms"])
        print(
            "  per call:",
            bridge["per_call_ms"],
            "ratio bridge/direct:",
            bridge["per_call_ratio_bridge_to_direct"],
        )
    print("saved", save("codebox_overhead", results))


if __name__ == "__main__":
    asyncio.run(main())
