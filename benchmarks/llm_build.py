"""The LLM method's build figures: tokens and calls per role, per server and round; wall time;
share of rollouts resolved — against the scripted OpenAI-compatible server (no hosted model).

One build of the demo ``memory`` server with the paper's defaults (k=3 seed tasks per tool, N=4
rollouts, R exploration rounds with 3 boundary + 3 affordance tasks per target, K targets): the
offline rounds first, then the LLM rounds. The scripted model answers instantly, so the wall
time is ToolAtlas's own cost of the method (proposal vetting in the code box, agent loops over
real MCP calls in real sandboxes, verifier runs, citation-checked induction): the ratio printed
is the LLM rounds' wall time against the offline rounds' in the same run. With a real model,
add its latency per call times the calls shown.

    .venv/bin/python benchmarks/llm_build.py [--rounds 2] [--engine asyncio|ray]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402

from toolatlas.config import LlmSettings, StoreSettings, load_catalogue  # noqa: E402
from toolatlas.console import usage_table  # noqa: E402
from toolatlas.home import Home  # noqa: E402
from toolatlas.pipeline.catalogue import build_catalogue  # noqa: E402
from toolatlas.store.paths import open_store  # noqa: E402
from toolatlas.testing.memory_policy import MemoryPolicy  # noqa: E402
from toolatlas.testing.openai_server import ScriptedOpenAIServer  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="R (offline and LLM exploration rounds)")
    args = parser.parse_args()

    demo = load_catalogue(REPO / "configs" / "demo.toml")
    with ScriptedOpenAIServer(MemoryPolicy().script()) as endpoint, tempfile.TemporaryDirectory() as store_dir:
        catalogue = demo.model_copy(update={
            "servers": [demo.server("memory")],
            "build": demo.build.model_copy(update={"rounds": args.rounds}),
            "llm": LlmSettings(base_url=endpoint.base_url, model="scripted-model", max_concurrency=8),
            "store": StoreSettings(backend="edge", path=store_dir),
        })
        store = open_store(catalogue)
        try:
            report = asyncio.run(build_catalogue(Workspace(catalogue, Home(REPO / ".toolatlas")), store))
        finally:
            store.close()

    offline = [r for r in report.coverage if r.stage == "offline"]
    llm = [r for r in report.coverage if r.stage != "offline"]
    print(f"{'round':>5} {'stage':11} {'tasks':>5} {'rejected':>8} {'rollouts':>8} {'resolved':>8} {'tokens':>8} {'s':>6}")
    for r in report.coverage:
        print(f"{r.round:5d} {r.stage:11} {r.tasks:5d} {r.tasks_rejected:8d} {r.probes:8d} {r.resolved:8d} "
              f"{r.llm_tokens:8d} {r.seconds:6.1f}")
    print()
    print(usage_table(report.llm))
    rollouts = sum(r.probes for r in llm)
    share = sum(r.resolved for r in llm) / rollouts if rollouts else 0.0
    offline_s, llm_s = sum(r.seconds for r in offline), sum(r.seconds for r in llm)
    per_round = {f"{role}@{rnd}": t.total_tokens for (role, rnd), t in report.llm.group("role", "round").items()}
    print(f"\nwall {report.seconds:.1f}s; offline rounds {offline_s:.1f}s ({sum(r.probes for r in offline)} probes), "
          f"LLM rounds {llm_s:.1f}s ({rollouts} rollouts, {share:.0%} resolved): ratio {llm_s / max(offline_s, 1e-9):.1f}x")
    path = save("llm_build", {
        "rounds": args.rounds,
        "seconds": report.seconds,
        "offline_seconds": offline_s,
        "llm_seconds": llm_s,
        "llm_vs_offline_wall": llm_s / max(offline_s, 1e-9),
        "rollouts": rollouts,
        "resolved_share": share,
        "by_role": {role: t.model_dump() for role, t in report.llm.by_role().items()},
        "tokens_by_role_and_round": per_round,
        "coverage": [r.model_dump(mode="json") for r in report.coverage],
    })
    print(f"saved {path}")


if __name__ == "__main__":
    main()
