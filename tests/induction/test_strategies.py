"""Strategy aggregation: related traces are grouped, and a strategy is kept only when it cites at least two
traces of the graph and uses only tools those traces use; it upserts by title and links its traces."""

from __future__ import annotations

import pytest
from rollout_kit import Scenario

from toolatlas.graph.models import TraceNode, TraceStep
from toolatlas.graph.state import ServerGraph
from toolatlas.induction import LlmInducer, trace_groups
from toolatlas.testing.openai_script import Fault

pytestmark = pytest.mark.servers  # real calls to the demo filesystem server


def trace(graph: ServerGraph, name: str, task: str, tools: list[str], resolved: int = 1) -> TraceNode:
    node = TraceNode(id=f"trace-{name}", server=graph.server, task=task,
                     steps=[TraceStep(tool=t, rationale=f"use {t}") for t in tools], tools=sorted(set(tools)),
                     runs=2, resolved=resolved, failed=2 - resolved)
    graph.put_trace(node)
    return node


def library(scene: Scenario) -> ServerGraph:
    graph = scene.graph()
    trace(graph, "api", "Find the API page in docs and give its first heading", ["list_directory", "read_text_file"], 2)
    trace(graph, "arch", "Show what the architecture notes say about storage", ["list_directory", "read_text_file"])
    trace(graph, "info", "When was the changelog last modified?", ["get_file_info"])
    return graph


def strategy(title: str, traces: list[str], tools: list[str]) -> dict:
    return {"title": title, "when": "the exact file name is unknown", "plan": ["List the folder.", "Read the file."],
            "pitfalls": ["Guessed names fail with ENOENT."], "tools": tools, "traces": traces}


class TestStrategies:
    def test_related_traces_form_a_group(self, scene: Scenario) -> None:
        """Traces sharing a tool pattern are grouped; a trace related to none stays out."""
        groups = trace_groups(library(scene))
        assert [[t.id for t in group] for group in groups] == [["trace-api", "trace-arch"]]

    async def test_only_well_cited_strategies_are_kept(self, scene: Scenario, endpoint, llm) -> None:
        """One trace, a tool no cited trace uses, or an unknown trace: dropped with reasons; the sound one is
        kept, cites its traces and is linked from them."""
        endpoint.script.add({"strategies": [
            strategy("Discover the exact file name before reading", ["trace-api", "trace-arch"],
                     ["list_directory", "read_text_file"]),
            strategy("Read directly", ["trace-api"], ["read_text_file"]),
            strategy("Write what you read", ["trace-api", "trace-arch"], ["list_directory", "write_file"]),
            strategy("Ghost support", ["trace-api", "trace-ghost"], ["read_text_file"]),
        ]}, system="prompt=strategy_aggregator")
        graph = library(scene)
        report = await LlmInducer(llm).aggregate_strategies(graph, round=1)

        (kept,) = graph.strategies.values()
        assert kept.title == "Discover the exact file name before reading" and kept.round_found == 1
        assert (kept.traces, kept.tools, kept.support) == (["trace-api", "trace-arch"], ["list_directory", "read_text_file"], 2)
        assert all(kept.id in graph.traces[t].strategies for t in kept.traces)
        assert report.new_strategies == [kept.id]
        assert report.drop_counts == {"strategy:too_few_traces": 2, "strategy:tool_not_in_traces": 1,
                                      "strategy:unknown_trace": 1}
        (request,) = endpoint.chat_requests
        assert "trace-api" in request.last_user_text and "trace-info" not in request.last_user_text

    async def test_reaggregation_upserts(self, scene: Scenario, endpoint, llm) -> None:
        """A group already aggregated is not asked again; another inducer asking again upserts the same node."""
        endpoint.script.add({"strategies": [strategy("Discover first", ["trace-api", "trace-arch"], [])]},
                            system="prompt=strategy_aggregator")
        graph = library(scene)
        inducer = LlmInducer(llm)
        await inducer.aggregate_strategies(graph, round=1)
        await inducer.aggregate_strategies(graph, round=2)
        assert len(endpoint.chat_requests) == 1
        again = await LlmInducer(llm).aggregate_strategies(graph, round=2)
        (node,) = graph.strategies.values()
        assert again.updated_strategies == [node.id] and node.round_found == 1
        assert node.tools == ["list_directory", "read_text_file"]  # none listed: the cited traces' tools

    async def test_strategy_layer_off_asks_nothing(self, scene: Scenario, endpoint, llm) -> None:
        """Ablation: without the strategy layer no strategy is asked for or written."""
        graph = library(scene)
        report = await LlmInducer(llm, strategy_layer=False).aggregate_strategies(graph, round=1)
        assert not endpoint.chat_requests and not graph.strategies and report.llm_calls == 0

    async def test_a_malformed_answer_is_recorded_and_asked_again_later(self, scene: Scenario, endpoint, llm) -> None:
        """An answer that never validates writes nothing and is recorded; the group stays open for the next call."""
        endpoint.script.add(Fault.malformed_json(), system="prompt=strategy_aggregator", times=2)
        endpoint.script.add({"strategies": [strategy("Discover first", ["trace-api", "trace-arch"], [])]},
                            system="prompt=strategy_aggregator")
        graph = library(scene)
        inducer = LlmInducer(llm)
        first = await inducer.aggregate_strategies(graph, round=1)
        assert [f.prompt for f in first.failures] == ["strategy_aggregator"] and not graph.strategies
        await inducer.aggregate_strategies(graph, round=1)
        assert len(graph.strategies) == 1
