"""A rule-driven scripted LLM for the whole method over the demo ``memory`` server (a test double).

Serve it with ``python -m toolatlas.testing.openai_server --script toolatlas.testing.memory_policy:script``.

It plays every role the way a competent model would on this server, reading only what the
prompts show (the real wire format: structured outputs and tool calls), so the real pipeline
runs end to end — proposals vetted in the code box, agents acting on the real MCP server in real
sandboxes, verifiers judging real post-states, citations checked against real calls:

* proposer: per request, the asked number of tasks "remember person Ada-<n> ...", each with a
  verifier that looks for that entity in the frozen knowledge-graph file;
* decompiler: a plain request per chain (the agent cannot redo these, so they fail — contrast);
* agent: creates the entity the task names with one function call, then answers; tasks it does
  not understand get a refusal (a failed rollout);
* inducer: a trace from the calls of the resolved rollouts, an affordance per ok call and a
  boundary per failed call of the target tool, citing those calls; no strategies.
"""

from __future__ import annotations

import ast
import itertools
import re
from typing import Any

from toolatlas.testing.openai_script import Reply, Script
from toolatlas.testing.openai_wire import ChatRequest

CALL_LINE = re.compile(r"\[rollout=(\S+) step=(\d+) call=(\d+)\] `?([A-Za-z0-9_\-]+)`?\s.*?→\s*(\w+)(?::\s*(.*))?")
PERSON = re.compile(r"Ada-(\d+)")

VERIFIER = '''
def verify(state, answer):
    names = {r.get("name") for r in state.records() if isinstance(r, dict)}
    return "Ada-{n}" in names, "looked for Ada-{n} among " + str(sorted(n for n in names if n))
'''


class MemoryPolicy:
    """The answers, with counters so every proposed task is distinct."""

    def __init__(self) -> None:
        self.people = itertools.count(1)
        self.chains = itertools.count(1)

    def script(self) -> Script:
        return (
            Script(models=["scripted-model"])
            .add(self.propose, role="proposer", structured=True, name="proposer")
            .add(self.decompile, role="decompiler", structured=True, name="decompiler")
            .add(self.act, role="agent", name="agent")
            .add(self.reflect, role="inducer", schema="ReflectionAnswer", name="reflector")
            .add(self.capabilities, role="inducer", schema="CapabilityAnswer", name="capabilities")
            .add({"strategies": []}, role="inducer", schema="StrategyAnswer", name="strategies")
        )

    # -- roles ------------------------------------------------------------------------------------

    def propose(self, request: ChatRequest) -> Reply:
        match = re.search(r"Write exactly (\d+) seed task\(s\), (\d+) boundary task\(s\) and (\d+) affordance task\(s\)",
                          request.last_user_text)
        counts = dict(zip(("seed", "boundary", "affordance"), map(int, match.groups()), strict=True)) if match else {}
        tasks = []
        for kind, n in counts.items():
            for _ in range(n):
                person = next(self.people)
                tasks.append({
                    "kind": kind,
                    "text": f"Please remember a person called Ada-{person} who wrote a program.",
                    "rationale": "stores one entity",
                    "requires_change": True,
                    "verifier": VERIFIER.replace("{n}", str(person)),
                })
        return Reply.json({"tasks": tasks})

    def decompile(self, request: ChatRequest) -> Reply:
        section = re.search(r"^## Values the request must state[^\n]*\n(.*?)(?=^## |\Z)", request.last_user_text,
                            re.DOTALL | re.MULTILINE)
        values = []
        for line in (section.group(1).splitlines() if section else []):
            if line.startswith("- "):
                values.append(str(ast.literal_eval(line[2:])))
        stated = "; ".join(values) or "as before"
        return Reply.json({"text": f"Redo the knowledge-graph update from ticket {next(self.chains)}: {stated}.",
                           "rationale": "the recorded chain"})

    def act(self, request: ChatRequest) -> Reply:
        if request.tool_results:
            return Reply.say("Done: the person is remembered.")
        person = PERSON.search(request.last_user_text)
        if person is None or "create_entities" not in request.tool_names:
            return Reply.say("I cannot tell what to do here.")
        entity = {"name": f"Ada-{person.group(1)}", "entityType": "person", "observations": ["wrote a program"]}
        return Reply.call("create_entities", {"entities": [entity]})

    def reflect(self, request: ChatRequest) -> Reply:
        calls = self._calls(request)
        ok = [c for c in calls if c["outcome"] == "ok"]
        steps = [{"tool": c["tool"], "rationale": "store what the user asked to remember"} for c in ok[:1]]
        cited = sorted({c["rollout"] for c in ok})
        tips = [{"text": "Give the entity a type and at least one observation.", "rollouts": cited}] if cited else []
        return Reply.json({"rollouts": cited, "steps": steps, "tips": tips})

    def capabilities(self, request: ChatRequest) -> Reply:
        target = re.search(r"^Tool: `?([A-Za-z0-9_\-]+)`?", request.last_user_text, re.MULTILINE)
        entries: list[dict[str, Any]] = []
        for call in self._calls(request):
            if target is not None and call["tool"] != target.group(1):
                continue
            cite = [{"rollout": call["rollout"], "step": call["step"], "call": call["call"]}]
            if call["outcome"] == "ok":
                entries.append({"kind": "affordance", "text": "Stores new entities with a type and observations.",
                                "when": "to remember a new person or thing", "cites": cite})
            elif call["output"]:
                words = " ".join(call["output"].split()[:4])
                entries.append({"kind": "boundary", "text": "Fails on this input.", "condition": "bad input",
                                "error_signature": words, "cites": cite})
        return Reply.json({"entries": entries[:4]})

    @staticmethod
    def _calls(request: ChatRequest) -> list[dict[str, Any]]:
        found = []
        for line in request.last_user_text.splitlines():
            match = CALL_LINE.search(line)
            if match:
                rollout, step, call, tool, outcome, output = match.groups()
                found.append({"rollout": rollout, "step": int(step), "call": int(call), "tool": tool,
                              "outcome": outcome, "output": output or ""})
        return found


def script() -> Script:
    """A fresh policy's script (for ``--script toolatlas.testing.memory_policy:script``)."""
    return MemoryPolicy().script()
