"""Trace reflection over real filesystem-server calls: N rollouts → one agent-neutral trace + contrastive tips,
every step backed by a successful call in a cited resolved rollout."""

from __future__ import annotations

import pytest
from rollout_kit import CODE, Scenario

from toolatlas.induction import LlmInducer
from toolatlas.induction.reflection import trace_id
from toolatlas.llm import LlmClient
from toolatlas.testing.openai_server import ScriptedOpenAIServer

pytestmark = pytest.mark.servers  # real calls to the demo filesystem server


def reflection(scene: Scenario, *, cited: list[int], steps: list[str], tips: list[tuple[str, list[str]]]) -> dict:
    return {
        "rollouts": [scene.ids[i] for i in cited],
        "steps": [{"tool": tool, "rationale": f"why {tool}"} for tool in steps],
        "tips": [{"text": text, "rollouts": ids} for text, ids in tips],
    }


def prompts(endpoint: ScriptedOpenAIServer, name: str) -> list:
    return [r for r in endpoint.chat_requests if r.role_tag is not None and r.role_tag.prompt == name]


class TestReflection:
    async def test_invented_and_uncalled_steps_are_dropped(self, scene: Scenario, endpoint, llm: LlmClient) -> None:
        """A step whose tool no cited resolved rollout called successfully (or that is no tool at all) is dropped;
        the kept steps, the cited tips and the run counts from the verdicts make the trace."""
        ids = scene.ids
        endpoint.script.add(reflection(
            scene, cited=[0, 1],
            steps=["list_directory", "read_text_file", "search_files", "delete_everything"],
            tips=[("List docs/ first: guessing the page name (reference.md) fails with ENOENT.", [ids[0], ids[2]]),
                  ("Be careful.", []),
                  ("Made-up evidence.", ["not-a-rollout"])],
        ), system="prompt=reflector")
        graph = scene.graph()
        report = await LlmInducer(llm, capability_layer=False).induce_task(scene.task, scene.rollouts, scene.verdicts, graph)

        trace = graph.traces[report.trace_id]
        assert [s.tool for s in trace.steps] == ["list_directory", "read_text_file"]
        assert trace.tips == ["List docs/ first: guessing the page name (reference.md) fails with ENOENT."]
        assert (trace.runs, trace.resolved, trace.failed) == (4, 2, 2)
        assert trace.probe_ids == ids and trace.tools == ["list_directory", "read_text_file"]
        assert report.drop_counts == {"step:tool_not_called": 1, "step:unknown_tool": 1, "tip:no_citation": 1,
                                      "tip:unknown_rollout": 1}
        assert report.trace_id in graph.tools["read_text_file"].traces

    async def test_prompt_shows_calls_not_agent_syntax(self, scene: Scenario, endpoint, llm: LlmClient) -> None:
        """The reflector sees every rollout's calls (the CodeAct snippet as the two calls it made), labels, and
        verdicts, but not the snippet's code; resolved rollouts come first."""
        endpoint.script.add(reflection(scene, cited=[1], steps=["read_text_file"], tips=[]), system="prompt=reflector")
        graph = scene.graph()
        report = await LlmInducer(llm, capability_layer=False).induce_task(scene.task, scene.rollouts, scene.verdicts, graph)
        (request,) = prompts(endpoint, "reflector")
        text = request.last_user_text
        assert CODE not in text and "tools.read_text_file" not in text
        assert f"[rollout={scene.ids[1]} step=0 call=1] read_text_file" in text
        assert '{"path": "${root}/docs/api.md"}' in text and "ENOENT" in text
        assert text.index(scene.ids[0]) < text.index(scene.ids[2])  # resolved before failed
        assert graph.traces[report.trace_id].steps[0].tool == "read_text_file"  # the snippet's call supports it

    async def test_steps_must_rest_on_a_resolved_rollout(self, scene: Scenario, endpoint, llm: LlmClient) -> None:
        """When rollouts resolved, citing only failed ones supports no step: no trace is written."""
        endpoint.script.add(reflection(scene, cited=[3], steps=["list_directory", "read_text_file"], tips=[]),
                            system="prompt=reflector")
        graph = scene.graph()
        report = await LlmInducer(llm, capability_layer=False).induce_task(scene.task, scene.rollouts, scene.verdicts, graph)
        assert report.trace_id is None and not graph.traces
        assert report.drop_counts == {"step:tool_not_called": 2, "trace:no_supported_steps": 1}

    async def test_all_failed_still_gives_a_trace_with_failure_tips(self, scene: Scenario, endpoint, llm: LlmClient) -> None:
        """With no resolved rollout the trace records what was tried (tools called in cited rollouts) and the
        failure tips; its stats mark it as unresolved."""
        failed = scene.rollouts[2:]
        verdicts = scene.verdicts[2:]
        endpoint.script.add(reflection(
            scene, cited=[2, 3], steps=["list_directory", "read_text_file", "write_file"],
            tips=[("reference.md does not exist: list the folder to find the real page name.", scene.ids[2:])],
        ), system="prompt=reflector")
        graph = scene.graph()
        report = await LlmInducer(llm, capability_layer=False).induce_task(scene.task, failed, verdicts, graph)
        trace = graph.traces[report.trace_id]
        assert [s.tool for s in trace.steps] == ["list_directory", "read_text_file"]
        assert (trace.runs, trace.resolved, trace.failed) == (2, 0, 2) and len(trace.tips) == 1
        assert report.drop_counts == {"step:tool_not_called": 1}

    async def test_reinduction_upserts_the_same_trace(self, scene: Scenario, endpoint, llm: LlmClient) -> None:
        """The trace is one per task: inducing the same rollouts again changes no count; new rollouts add theirs."""
        endpoint.script.add(reflection(scene, cited=[0], steps=["list_directory", "read_text_file"], tips=[]),
                            system="prompt=reflector")
        graph = scene.graph()
        inducer = LlmInducer(llm, capability_layer=False)
        await inducer.induce_task(scene.task, scene.rollouts[:3], scene.verdicts[:3], graph)
        await inducer.induce_task(scene.task, scene.rollouts[:3], scene.verdicts[:3], graph)
        assert list(graph.traces) == [trace_id("filesystem", scene.task.id)]
        assert graph.traces[trace_id("filesystem", scene.task.id)].runs == 3
        await inducer.induce_task(scene.task, scene.rollouts, scene.verdicts, graph)
        trace = graph.traces[trace_id("filesystem", scene.task.id)]
        assert (len(graph.traces), trace.runs, trace.resolved, trace.failed) == (1, 4, 2, 2)
