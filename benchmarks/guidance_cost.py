"""The cost of one guidance request: the LLM navigator against the offline navigator, same atlas, same run.

For every task of the demo task set (``toolatlas/evaluation/demo_tasks.toml``) both paths answer
the same request (B=8 reads, k_r=3 seed traces, 1,200 guidance tokens), interleaved so machine
load hits both alike:

* ``offline``  ``Atlas.guide`` (scored traversal, rule-based compression; answer cache off);
* ``llm``      ``Atlas.guide_async(navigator=LlmNavigator(llm))``: an LLM decision per read, then an
               LLM compression, over real HTTP against the in-library scripted OpenAI-compatible
               server. Its "model" is a rule-driven policy reading the prompt: read tools until four
               are read, then stop; keep every read item by its id.

Reported per request: latency (median, p90), LLM calls, prompt and completion tokens (the scripted
server counts words and punctuation, a deterministic stand-in for a tokenizer), and the size of
the guidance. The latency of the LLM path here is its floor — prompts, HTTP, JSON, validation —
a real model adds its generation time to each of its calls.

    .venv/bin/python benchmarks/guidance_cost.py [--config configs/demo.toml | --export atlas.json] [--tasks N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import percentile_ms, save  # noqa: E402

from toolatlas.config import LlmSettings  # noqa: E402
from toolatlas.evaluation import DEMO_TASKS, load_tasks  # noqa: E402
from toolatlas.guidance import Atlas, LlmNavigator  # noqa: E402
from toolatlas.llm import LlmClient  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.testing.openai_script import Script  # noqa: E402
from toolatlas.testing.openai_server import ScriptedOpenAIServer  # noqa: E402
from toolatlas.testing.openai_wire import ChatRequest  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TOOLS_BEFORE_STOP = 4


def navigator_policy(request: ChatRequest) -> dict:
    """Read the first offered tool until four tools are read, else a strategy, an expansion, a trace; then stop."""
    text = request.last_user_text
    offered = json.loads(re.search(r"^Options: (.*)$", text, re.M).group(1))
    tools_read = len(re.findall(r"^- tool ", text, re.M))
    if tools_read >= TOOLS_BEFORE_STOP:
        return {"operation": "stop", "target": None, "reason": "the task's tools are read"}
    for operation in ("read_tool", "read_strategy", "expand", "read_trace"):
        if offered.get(operation):
            return {"operation": operation, "target": offered[operation][0]["target"], "reason": "most relevant"}
    return {"operation": "stop", "target": None, "reason": "nothing left"}


def compressor_policy(request: ChatRequest) -> dict:
    """Keep every read item by its id, strategies as they are, the first trace as the example."""
    read = json.loads(request.last_user_text.split("Read items (JSON):\n", 1)[1])
    tools = [{"tool": t["tool"],
              "when": [{"entry_id": u["id"], "text": u["text"]} for u in t["uses"]],
              "when_not": [{"entry_id": b["id"], "text": b["condition"]} for b in t["boundaries"]],
              "compositions": [{"entry_id": c["id"], "text": c["text"]} for c in t["compositions"]]}
             for t in read["tools"]]
    strategies = [{"strategy_id": s["id"], "steps": s["steps"]} for s in read["strategies"]]
    return {"tools": tools, "strategies": strategies, "exemplars": [t["id"] for t in read["traces"]][:1]}


def summary(latencies: list[float], rows: list[dict]) -> dict:
    def mean(key: str) -> float:
        return round(statistics.fmean(row[key] for row in rows), 2)

    return {
        "requests": len(rows),
        "p50_ms": round(statistics.median(latencies) * 1000, 3),
        "p90_ms": round(percentile_ms(latencies, 0.9), 3),
        "llm_calls": mean("calls"),
        "prompt_tokens": mean("prompt_tokens"),
        "completion_tokens": mean("completion_tokens"),
        "guidance_tokens": mean("guidance_tokens"),
        "guidance_tools": mean("tools"),
    }


async def measure(atlas: Atlas, tasks: list[str], server: ScriptedOpenAIServer) -> dict:
    settings = LlmSettings(base_url=server.base_url, model="scripted-model", timeout_s=30.0)
    offline_s: list[float] = []
    llm_s: list[float] = []
    offline_rows: list[dict] = []
    llm_rows: list[dict] = []
    async with LlmClient(settings) as llm:
        navigator = LlmNavigator(llm)

        def run_offline(task: str) -> None:
            t0 = time.perf_counter()
            guidance = atlas.guide(task)
            offline_s.append(time.perf_counter() - t0)
            offline_rows.append({"calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                 "guidance_tokens": guidance.tokens, "tools": len(guidance.tools)})

        async def run_llm(task: str) -> None:
            t0 = time.perf_counter()
            result = await navigator.navigate(atlas.view, task)
            llm_s.append(time.perf_counter() - t0)
            llm_rows.append({"calls": result.llm_calls, "prompt_tokens": result.usage.prompt_tokens,
                             "completion_tokens": result.usage.completion_tokens,
                             "guidance_tokens": result.guidance.tokens, "tools": len(result.guidance.tools),
                             "invalid": len(result.invalid), "dropped": len(result.dropped)})

        for i, task in enumerate(tasks):
            if i % 2:
                await run_llm(task)
                run_offline(task)
            else:
                run_offline(task)
                await run_llm(task)
        by_role = {role: tally.model_dump() for role, tally in llm.ledger.by_role().items()}
    offline, with_llm = summary(offline_s, offline_rows), summary(llm_s, llm_rows)
    return {
        "offline": offline,
        "llm": with_llm,
        "ratio_latency_p50": round(with_llm["p50_ms"] / offline["p50_ms"], 1),
        "ratio_guidance_tokens": round(with_llm["guidance_tokens"] / offline["guidance_tokens"], 3),
        "llm_tokens_per_request": round(with_llm["prompt_tokens"] + with_llm["completion_tokens"], 1),
        "invalid_choices": sum(r["invalid"] for r in llm_rows),
        "dropped_items": sum(r["dropped"] for r in llm_rows),
        "ledger_by_role": by_role,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--config", default=str(REPO / "configs" / "demo.toml"), help="catalogue whose store holds the atlas")
    source.add_argument("--export", help="an atlas.json export instead of a store")
    parser.add_argument("--tasks", type=int, default=0, help="first N tasks of the demo set (0: all)")
    args = parser.parse_args()
    configure_logging("warning")

    atlas = (Atlas.from_export(args.export, cache_size=0) if args.export else Atlas.open(args.config, cache_size=0))
    tasks = [t.text for t in load_tasks(DEMO_TASKS)]
    tasks = tasks[: args.tasks] if args.tasks else tasks
    script = Script().add(navigator_policy, system="prompt=navigator").add(compressor_policy, system="prompt=compressor")
    with ScriptedOpenAIServer(script) as server:
        result = asyncio.run(measure(atlas, tasks, server))
    offline, llm = result["offline"], result["llm"]
    print(f"{len(tasks)} guidance requests on {args.export or args.config}")
    print(f"{'path':8} {'p50 ms':>8} {'p90 ms':>8} {'LLM calls':>9} {'prompt tok':>10} {'compl tok':>9} {'guidance tok':>12}")
    for name, row in (("offline", offline), ("llm", llm)):
        print(f"{name:8} {row['p50_ms']:8.2f} {row['p90_ms']:8.2f} {row['llm_calls']:9.1f} {row['prompt_tokens']:10.0f} "
              f"{row['completion_tokens']:9.0f} {row['guidance_tokens']:12.0f}")
    print(f"LLM/offline: latency p50 x{result['ratio_latency_p50']}, {result['llm_tokens_per_request']:.0f} LLM tokens "
          f"per request (offline: 0), guidance size x{result['ratio_guidance_tokens']}")
    path = save("guidance_cost", {"atlas": args.export or args.config, "tasks": len(tasks), **result})
    print(f"saved {path}")


if __name__ == "__main__":
    main()
