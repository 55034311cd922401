"""The LLM navigator over real HTTP (scripted endpoint): the walk stays within its budget, honours STOP,
ignores and counts targets it was not offered; compression keeps only items tied to read entries; the
guidance has the offline path's typed model; malformed answers are recorded and fall back."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator

import pytest

from toolatlas.config import LlmSettings
from toolatlas.graph.models import (
    CoUsageRelation,
    Entry,
    EntryKind,
    Evidence,
    StrategyNode,
    ToolNode,
    TraceNode,
    TraceStep,
)
from toolatlas.guidance import Atlas, AtlasView, Guidance, LlmNavigator
from toolatlas.guidance.render import compress
from toolatlas.llm import LlmClient
from toolatlas.models import OutcomeClass
from toolatlas.testing.openai_script import Fault, Script
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.testing.openai_wire import ChatRequest

TASK = "stage the changed files and commit them with a message"


def tool(server: str, name: str, description: str, neighbours: dict | None = None) -> ToolNode:
    return ToolNode(id=f"{server}.{name}", server=server, tool=name, schema_hash="h", description=description,
                    neighbours=neighbours or {})


def entry(server: str, name: str, kind: EntryKind, text: str, **fields) -> Entry:
    evidence = Evidence(probe_id=f"p-{name}-{kind.value}", tool=name, outcome=fields.get("outcome", OutcomeClass.OK),
                        excerpt=fields.pop("excerpt", "ok"), arguments={"repo_path": "${repo}"})
    return Entry(id=f"e-{name}-{kind.value}", kind=kind, server=server, tool=name, schema_hash="h", signature=text,
                 text=text, evidence=[evidence], probe_ids=[evidence.probe_id], **fields)


def view() -> AtlasView:
    tools = [
        tool("git", "git_commit", "Records changes to the repository."),
        tool("git", "git_add", "Adds file contents to the staging area.", {"git_commit": 0.5}),
        tool("git", "git_log", "Shows the commit logs."),
        tool("git", "git_status", "Shows the working tree status."),
        tool("time", "convert_time", "Convert time between timezones."),
    ]
    entries = [
        entry("git", "git_commit", EntryKind.AFFORDANCE, "commit staged changes with a message", when="record changes",
              example_arguments={"repo_path": "${repo}", "message": "fix"}),
        entry("git", "git_commit", EntryKind.BOUNDARY, "git_commit fails when nothing is staged",
              condition="called with nothing staged", outcome=OutcomeClass.TOOL_ERROR,
              excerpt="No changes staged for commit. Use git_add first"),
        entry("git", "git_add", EntryKind.AFFORDANCE, "stage files for the next commit", when="stage changes"),
        entry("git", "git_add", EntryKind.CO_USAGE, "git_commit depends on git_add", peer="git_commit",
              relation=CoUsageRelation.STATE, weight=0.5, transitions=1),
        entry("time", "convert_time", EntryKind.AFFORDANCE, "convert a time between zones", when="convert times"),
    ]
    traces = [
        TraceNode(id="t-commit", server="git", task="stage the changed files, then commit them with a message",
                  steps=[TraceStep(tool="git_add", rationale="stage"), TraceStep(tool="git_commit", rationale="commit")],
                  tools=["git_add", "git_commit"], runs=2, resolved=2, strategies=["s-stage"], similar={"t-log": 0.4}),
        TraceNode(id="t-log", server="git", task="read the commit history",
                  steps=[TraceStep(tool="git_log", rationale="history")], tools=["git_log"], runs=1, resolved=1),
        TraceNode(id="t-time", server="time", task="convert a meeting time from Paris to Tokyo",
                  steps=[TraceStep(tool="convert_time", rationale="convert")], tools=["convert_time"], runs=1, resolved=1),
    ]
    strategies = [StrategyNode(id="s-stage", server="git", title="Stage before committing", when="committing",
                               plan=["Call git_add.", "Call git_commit."], tools=["git_add", "git_commit"],
                               traces=["t-commit"], support=2)]
    return AtlasView(tools, entries, traces, strategies)


def options(request: ChatRequest) -> dict[str, list[str]]:
    """The operations and targets the navigator was offered (the prompt's ``Options:`` line)."""
    line = re.search(r"^Options: (.*)$", request.last_user_text, re.MULTILINE)
    assert line is not None
    return {op: [o["target"] for o in offered] for op, offered in json.loads(line.group(1)).items()}


class Pilot:
    """A rule-driven navigator: follows ``plan`` — ``("first", op)`` takes op's first offered target (any op
    when None), ``("raw", op, target)`` answers as given, ``("stop",)`` stops; after the plan, the first option."""

    def __init__(self, *plan: tuple) -> None:
        self.plan = list(plan)
        self.seen: list[dict[str, list[str]]] = []

    def __call__(self, request: ChatRequest) -> dict:
        offered = options(request)
        self.seen.append(offered)
        move = self.plan.pop(0) if self.plan else ("first", None)
        if move[0] == "stop":
            return {"operation": "stop", "target": None, "reason": "enough"}
        if move[0] == "raw":
            return {"operation": move[1], "target": move[2], "reason": "scripted"}
        op = move[1] or next(iter(offered))
        return {"operation": op, "target": offered[op][0], "reason": "first offered"}


def keep_everything(request: ChatRequest, extra: dict | None = None) -> dict:
    """A compressor that keeps every read item by its id (and adds ``extra`` invented items)."""
    read = json.loads(request.last_user_text.split("Read items (JSON):\n", 1)[1])
    tools = [{"tool": t["tool"],
              "when": [{"entry_id": u["id"], "text": f"for this task: {u['text']}"} for u in t["uses"]],
              "when_not": [{"entry_id": b["id"], "text": b["condition"]} for b in t["boundaries"]],
              "compositions": [{"entry_id": c["id"], "text": c["text"]} for c in t["compositions"]]}
             for t in read["tools"]]
    answer = {"tools": tools, "strategies": [{"strategy_id": s["id"], "steps": ["Stage with git_add.", "Commit."]}
                                             for s in read["strategies"]],
              "exemplars": [t["id"] for t in read["traces"]][:1]}
    for key, items in (extra or {}).items():
        answer[key] = answer[key] + items
    return answer


@pytest.fixture()
def endpoint() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(Script()) as running:
        yield running


@pytest.fixture()
async def llm(endpoint: ScriptedOpenAIServer) -> AsyncIterator[LlmClient]:
    settings = LlmSettings(base_url=endpoint.base_url, model="scripted-model", timeout_s=5.0, max_retries=1,
                           backoff_base_s=0.005, backoff_cap_s=0.02, structured_output_retries=1)
    async with LlmClient(settings) as client:
        yield client


def asked(endpoint: ScriptedOpenAIServer, prompt: str) -> list[ChatRequest]:
    return [r for r in endpoint.chat_requests if r.role_tag is not None and r.role_tag.prompt == prompt]


class TestWalk:
    async def test_walks_within_the_budget(self, endpoint, llm) -> None:
        """A navigator that never says stop gets exactly B decisions; the seeds are the k_r nearest traces."""
        endpoint.script.add(Pilot(), system="prompt=navigator")
        endpoint.script.add(keep_everything, system="prompt=compressor")
        result = await LlmNavigator(llm).navigate(view(), TASK, k_r=1, budget=3)
        assert result.decisions == 3 and len(asked(endpoint, "navigator")) == 3 and result.stopped == "budget"
        trail = result.traversal.trail
        assert (trail[0].operation, trail[0].target) == ("read_trace", "t-commit") and len(trail) == 1 + 3
        assert len(asked(endpoint, "compressor")) == 1

    async def test_stop_is_honoured(self, endpoint, llm) -> None:
        """STOP ends the walk at once: no further navigator call, then one compression."""
        endpoint.script.add(Pilot(("first", "read_tool"), ("stop",)), system="prompt=navigator")
        endpoint.script.add(keep_everything, system="prompt=compressor")
        result = await LlmNavigator(llm).navigate(view(), TASK, k_r=1, budget=8)
        assert (result.decisions, result.stopped, len(asked(endpoint, "navigator"))) == (2, "sufficient", 2)
        assert [s.operation for s in result.traversal.trail] == ["read_trace", "read_tool"]

    async def test_invalid_targets_are_ignored_and_counted(self, endpoint, llm) -> None:
        """A tool the atlas lacks, a trace not yet reachable, an operation with nothing offered: ignored,
        counted, and the budget still bounds the walk."""
        pilot = Pilot(("raw", "read_tool", "git/git_push"), ("raw", "read_trace", "t-time"),
                      ("raw", "read_strategy", "t-log"), ("first", "read_tool"), ("stop",))
        endpoint.script.add(pilot, system="prompt=navigator")
        endpoint.script.add(keep_everything, system="prompt=compressor")
        result = await LlmNavigator(llm).navigate(view(), TASK, k_r=1, budget=8)
        assert len(result.invalid) == 3 and result.decisions == 5
        assert [s.operation for s in result.traversal.trail] == ["read_trace", "read_tool"]
        assert "git/git_add" in pilot.seen[0]["read_tool"] and "t-commit" in pilot.seen[0]["read_strategy"]

    async def test_expansion_opens_similar_traces_and_servers_filter(self, endpoint, llm) -> None:
        """Expand makes a similar trace readable; a server filter keeps other servers' tools out of the options."""
        pilot = Pilot(("raw", "expand", "t-commit"), ("raw", "read_trace", "t-log"), ("stop",))
        endpoint.script.add(pilot, system="prompt=navigator")
        endpoint.script.add(keep_everything, system="prompt=compressor")
        result = await LlmNavigator(llm).navigate(view(), TASK, servers={"git"}, k_r=1, budget=8)
        assert [s.target for s in result.traversal.trail] == ["t-commit", "t-commit", "t-log"] and not result.invalid
        assert "t-log" in pilot.seen[1]["read_trace"]
        assert all(not target.startswith("time/") for seen in pilot.seen for target in seen.get("read_tool", []))


class TestCompression:
    async def test_items_without_a_read_id_are_dropped(self, endpoint, llm) -> None:
        """Invented notes (no id, an id of another kind or tool, a tool not read, a strategy not read) are
        dropped and counted; kept notes keep their entry's exact error, example and evidence."""
        endpoint.script.add(Pilot(("first", "read_tool"), ("first", "read_tool"), ("first", "read_strategy"), ("stop",)),
                            system="prompt=navigator")
        invented = {
            "tools": [{"tool": "git/git_push", "when": [{"entry_id": None, "text": "push"}], "when_not": [],
                       "compositions": []}],
            "strategies": [{"strategy_id": "s-made-up", "steps": ["Do it."]}],
        }

        def compressor(request: ChatRequest) -> dict:
            answer = keep_everything(request, invented)
            commit = next(t for t in answer["tools"] if t["tool"] == "git/git_commit")
            commit["when"].append({"entry_id": None, "text": "always amend the last commit"})
            commit["when_not"].append({"entry_id": "e-git_add-affordance", "text": "a use passed off as a boundary"})
            return answer

        endpoint.script.add(compressor, system="prompt=compressor")
        atlas = view()
        result = await LlmNavigator(llm).navigate(atlas, TASK, k_r=1, budget=8)
        assert len(result.dropped) == 4, result.dropped
        guidance = result.guidance
        commit = next(t for t in guidance.tools if t.tool == "git_commit")
        assert [u.entry_id for u in commit.when] == ["e-git_commit-affordance"]
        assert commit.when[0].text == "for this task: works with `repo_path`, `message`"
        assert commit.when[0].example_arguments == {"repo_path": "${repo}", "message": "fix"}
        assert commit.when_not[0].error == "No changes staged for commit. Use git_add first"
        assert [s.id for s in guidance.strategies] == ["s-stage"] and guidance.strategies[0].steps[0] == "Stage with git_add."
        ids = [n.entry_id for t in guidance.tools for n in [*t.when, *t.when_not, *t.compositions]]
        assert ids and all(i in atlas.entries for i in ids)

    async def test_same_typed_guidance_as_the_offline_path(self, endpoint, llm) -> None:
        """Atlas.guide_async with the LLM navigator returns the offline path's Guidance model (every field typed,
        within the token budget); without a navigator it is the offline answer."""
        endpoint.script.add(Pilot(("first", "read_tool"), ("stop",)), system="prompt=navigator")
        endpoint.script.add(keep_everything, system="prompt=compressor")
        atlas = Atlas(view())
        offline = atlas.guide(TASK, max_tokens=400)
        llm_guidance = await atlas.guide_async(TASK, max_tokens=400, navigator=LlmNavigator(llm))
        assert type(llm_guidance) is type(offline) is Guidance
        assert Guidance.model_validate(llm_guidance.model_dump()) == llm_guidance
        assert llm_guidance.model_dump().keys() == offline.model_dump().keys()
        assert llm_guidance.tools and 0 < llm_guidance.tokens <= 400 and "## git." in llm_guidance.to_text()
        assert await atlas.guide_async(TASK, max_tokens=400) == offline


class TestFailures:
    async def test_a_malformed_walk_falls_back_to_the_offline_traversal(self, endpoint, llm) -> None:
        """A navigator answer that never validates ends the walk: the guidance is the offline traversal's,
        whole (its tools included), and says so; no compression is asked of the LLM."""
        endpoint.script.add(Fault.malformed_json(), system="prompt=navigator")
        atlas = view()
        result = await LlmNavigator(llm).navigate(atlas, TASK, k_r=1, budget=8, max_tokens=800)
        assert result.stopped == "llm_failure" and len(result.failures) == 1 and result.llm_calls == 1
        offline = Atlas(atlas, cache_size=0).guide(TASK, k_r=1, budget=8, max_tokens=800)
        assert result.guidance.tools and [t.tool for t in result.guidance.tools] == [t.tool for t in offline.tools]
        assert result.guidance.navigator.startswith("offline (the LLM navigator failed")
        assert result.fallback and result.usage.total_tokens > 0
        assert asked(endpoint, "compressor") == []

    async def test_a_failed_compression_keeps_the_llm_walk(self, endpoint, llm) -> None:
        """A compression that never validates falls back to the offline compression of what the LLM read."""
        endpoint.script.add(Pilot(("first", "read_tool"), ("stop",)), system="prompt=navigator")
        endpoint.script.add(Fault.invalid_schema(), system="prompt=compressor")
        atlas = view()
        result = await LlmNavigator(llm).navigate(atlas, TASK, k_r=1, budget=8, max_tokens=800)
        assert result.stopped == "sufficient" and not result.fallback
        assert result.guidance.model_copy(update={"navigator": "offline"}) == compress(atlas, result.traversal,
                                                                                       max_tokens=800)
        assert result.guidance.navigator == "llm (offline compression: the LLM compressor failed)"

    async def test_an_unreachable_endpoint_still_gives_guidance(self, endpoint, llm) -> None:
        """HTTP 500 on every request: recorded, and the offline traversal's guidance is served, tools and all."""
        endpoint.script.add(Fault.server_error())
        atlas = view()
        result = await LlmNavigator(llm).navigate(atlas, TASK, k_r=1, budget=8)
        assert result.stopped == "llm_failure" and all("HTTP 500" in f for f in result.failures)
        assert "git_commit" in [t.tool for t in result.guidance.tools]
        assert result.guidance.navigator.startswith("offline (") and "HTTP 500" in result.guidance.navigator

    async def test_nonsense_decisions_fall_back(self, endpoint, llm) -> None:
        """Every decision names a target that was not offered: the walk read nothing; offline instead."""
        endpoint.script.add(Pilot(*[("raw", "read_tool", "nowhere/nothing")] * 3), system="prompt=navigator")
        result = await LlmNavigator(llm).navigate(view(), TASK, k_r=1, budget=3)
        assert len(result.invalid) == result.decisions == 3
        assert result.guidance.tools and "named nothing it was offered" in result.guidance.navigator
