"""ReAct, CodeAct and SwitchAct turn loops: a scripted model over real HTTP, real MCP servers in sandboxes."""

from __future__ import annotations

import re

import pytest

from toolatlas.agents import NOT_EXECUTED, run_agent
from toolatlas.errors import ConfigError
from toolatlas.llm import LlmClient
from toolatlas.models import OutcomeClass
from toolatlas.sandbox import Sandbox
from toolatlas.tasks.models import AgentKind, AgentRollout, TaskSpec
from toolatlas.testing.openai_script import Fault, Reply, Script, ScriptedCall
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.testing.openai_wire import ChatRequest

from .conftest import make_task, root_of, snapshot_file, tool_outputs, turns

pytestmark = pytest.mark.servers

REACT, CODEACT, SWITCHACT = "prompt=agent_react", "prompt=agent_codeact", "prompt=agent_switchact"


async def run(sandbox: Sandbox, llm: LlmClient, task: TaskSpec, kind: AgentKind, **options) -> AgentRollout:
    """One rollout straight on the sandbox's live server (no freezing: that is the runner's job)."""
    return await run_agent(
        task, kind, llm=llm, tools=sandbox.tools, call=sandbox.call, variables=sandbox.variables(), **options
    )


def list_docs(request: ChatRequest) -> Reply:
    return Reply.call("list_directory", {"path": f"{root_of(request)}/docs"})


def read_first_listed(request: ChatRequest) -> Reply:
    first = re.search(r"\[FILE\] (\S+)", tool_outputs(request)[-1])
    assert first, tool_outputs(request)
    return Reply.call("read_text_file", {"path": f"{root_of(request)}/docs/{first.group(1)}"})


def first_line_of_last_output(request: ChatRequest) -> Reply:
    return Reply.say(tool_outputs(request)[-1].splitlines()[0])


class TestReAct:
    async def test_two_real_calls_then_an_answer_built_from_what_the_server_returned(
        self, filesystem: Sandbox, llm: LlmClient, script: Script, endpoint: ScriptedOpenAIServer
    ) -> None:
        """The listing names the file to read, the read returns the file as it is on disk, the answer quotes it."""
        script.add(turns(list_docs, read_first_listed, first_line_of_last_output), system=REACT)
        task = make_task("What is the title of the first document in ${root}/docs?")
        result = await run(filesystem, llm, task, AgentKind.REACT)

        assert result.stop == "answer", result.detail
        assert [step.action.kind for step in result.steps] == ["call", "call", "answer"]
        assert [(call.tool, call.outcome) for call in result.calls] == [
            ("list_directory", OutcomeClass.OK),
            ("read_text_file", OutcomeClass.OK),
        ]
        on_disk = snapshot_file(filesystem, "docs/api.md")
        assert result.calls[1].arguments == {"path": f"{filesystem.variables()['root']}/docs/api.md"}
        assert result.calls[1].excerpt.strip() == on_disk.strip()
        assert result.final_answer == on_disk.splitlines()[0]
        first, _, last = endpoint.chat_requests
        assert sorted(first.tool_names) == sorted(tool.name for tool in filesystem.tools)
        assert first.body["temperature"] == 0.0
        assert last.tool_results[-1]["content"] == result.steps[1].observation

    async def test_a_tool_error_is_observed_and_the_corrected_call_succeeds(
        self, filesystem: Sandbox, llm: LlmClient, script: Script
    ) -> None:
        """A read of a missing file fails for real; the model sees the error text and reads the right file."""

        def retry_if_failed(request: ChatRequest) -> Reply:
            if "ENOENT" not in tool_outputs(request)[-1]:
                return Reply.say("the first read did not fail")
            return Reply.call("read_text_file", {"path": f"{root_of(request)}/README.md"})

        script.add(
            turns(
                lambda request: Reply.call("read_text_file", {"path": f"{root_of(request)}/NOTES.md"}),
                retry_if_failed,
                first_line_of_last_output,
            ),
            system=REACT,
        )
        result = await run(
            filesystem, llm, make_task("What is the project called? See ${root}."), AgentKind.REACT
        )

        assert result.stop == "answer", result.detail
        failed, fixed = result.calls
        assert failed.outcome is OutcomeClass.TOOL_ERROR
        assert result.steps[0].observation.startswith("[tool_error] ENOENT")
        assert fixed.ok and result.final_answer == snapshot_file(filesystem, "README.md").splitlines()[0]

    async def test_mistaken_calls_are_answered_and_not_executed(
        self, filesystem: Sandbox, llm: LlmClient, script: Script, endpoint: ScriptedOpenAIServer
    ) -> None:
        """Bad JSON, a second call in one reply, an unknown function, run_python in ReAct: answered, never run."""
        script.add(
            turns(
                Reply.calls(
                    ScriptedCall("read_text_file", '{"path": '),
                    ScriptedCall("list_allowed_directories", {}),
                ),
                Reply.call("read_everything", {}),
                Reply.call("run_python", {"code": "print(1)"}),
                Reply.say("giving up"),
            ),
            system=REACT,
        )
        result = await run(filesystem, llm, make_task("Summarise ${root}."), AgentKind.REACT)

        assert result.stop == "answer", result.detail  # every call was answered, or the endpoint would refuse
        assert result.calls == []
        assert [step.observation.split(":")[0] for step in result.steps[:3]] == [
            "[not executed] the arguments are not a JSON object",
            "[not executed] there is no function 'read_everything' (offered",
            "[not executed] there is no function 'run_python' (offered",
        ]
        second = endpoint.chat_requests[1]
        assert [message["content"] for message in second.tool_results][1] == NOT_EXECUTED


SNIPPET = """
created = tools.create_entities(entities=[
    {"name": "Agent Test", "entityType": "test", "observations": ["made by a snippet"]}
])
found = call_tool("search_nodes", {"query": "Agent Test"})
print("created:", created.outcome, "found:", [entity["name"] for entity in found.json()["entities"]])
"""


class TestCodeAct:
    async def test_a_snippet_composes_two_real_calls_and_both_are_recorded(
        self, memory: Sandbox, llm: LlmClient, script: Script, endpoint: ScriptedOpenAIServer
    ) -> None:
        """run_python is the only function; the snippet's calls reach the server in order; its print is the observation."""
        script.add(
            turns(Reply.call("run_python", {"code": SNIPPET}), first_line_of_last_output), system=CODEACT
        )
        result = await run(
            memory, llm, make_task("Record an entity named Agent Test.", server="memory"), AgentKind.CODEACT
        )

        assert result.stop == "answer", result.detail
        step = result.steps[0]
        assert (step.action.kind, step.code_status) == ("code", "ok")
        assert [(call.tool, call.outcome) for call in step.calls] == [
            ("create_entities", OutcomeClass.OK),
            ("search_nodes", OutcomeClass.OK),
        ]
        assert step.observation == "created: ok found: ['Agent Test']" == result.final_answer
        request = endpoint.chat_requests[0]
        assert request.tool_names == ["run_python"]
        assert (
            "search_nodes" in request.system_text and '"required"' in request.system_text
        )  # schemas in the prompt
        check = await memory.call("open_nodes", {"names": ["Agent Test"]})
        assert "made by a snippet" in check.excerpt


class TestSwitchAct:
    async def test_one_rollout_mixes_a_function_call_and_a_snippet(
        self, memory: Sandbox, llm: LlmClient, script: Script, endpoint: ScriptedOpenAIServer
    ) -> None:
        """Both interfaces are offered every turn; a call then a snippet that reads what the call wrote."""
        entity = {"name": "Switch Test", "entityType": "test", "observations": ["first"]}
        snippet = (
            'call_tool("add_observations", {"observations": [{"entityName": "Switch Test", "contents": ["second"]}]})\n'
            'print(tools.open_nodes(names=["Switch Test"]).json()["entities"][0]["observations"])'
        )
        script.add(
            turns(
                Reply.call("create_entities", {"entities": [entity]}),
                Reply.call("run_python", {"code": snippet}),
                first_line_of_last_output,
            ),
            system=SWITCHACT,
        )
        result = await run(
            memory, llm, make_task("Note two things about Switch Test.", server="memory"), AgentKind.SWITCHACT
        )

        assert result.stop == "answer", result.detail
        assert [step.action.kind for step in result.steps] == ["call", "code", "answer"]
        assert [call.tool for call in result.calls] == ["create_entities", "add_observations", "open_nodes"]
        assert result.final_answer == "['first', 'second']"
        names = endpoint.chat_requests[1].tool_names
        assert "run_python" in names and set(names) - {"run_python"} == {tool.name for tool in memory.tools}


class TestStops:
    async def test_max_turns_stops_an_agent_that_never_answers(
        self, memory: Sandbox, llm: LlmClient, script: Script
    ) -> None:
        script.add(Reply.call("read_graph", {}), system=REACT)
        result = await run(
            memory, llm, make_task("Read forever.", server="memory"), AgentKind.REACT, max_turns=3
        )
        assert (result.stop, len(result.steps), len(result.calls), result.final_answer) == (
            "max_turns",
            3,
            3,
            "",
        )

    async def test_the_rollout_timeout_keeps_the_snippet_cut_short_with_its_real_call(
        self, memory: Sandbox, llm: LlmClient, script: Script
    ) -> None:
        """A snippet that calls a tool and then hangs: stop=timeout, the call it made is kept, no exception."""
        code = 'print(call_tool("read_graph", {}).outcome, flush=True)\nimport time\ntime.sleep(60)'
        script.add(Reply.call("run_python", {"code": code}), system=CODEACT)
        result = await run(memory, llm, make_task("Hang.", server="memory"), AgentKind.CODEACT, timeout_s=2.5)

        assert result.stop == "timeout" and "2.5 s" in result.detail
        (step,) = result.steps
        assert (step.code_status, step.observation) == (
            "interrupted",
            "[interrupted] the rollout's time ran out during this action",
        )
        assert [call.tool for call in step.calls] == ["read_graph"]

    async def test_the_rollout_timeout_stops_a_slow_model(
        self, memory: Sandbox, llm: LlmClient, script: Script
    ) -> None:
        script.add(Reply.call("read_graph", {}), times=1, system=REACT)
        script.add(Reply.say("too late"), delay_s=3.0, system=REACT)
        result = await run(
            memory, llm, make_task("Be slow.", server="memory"), AgentKind.REACT, timeout_s=1.0
        )
        assert (result.stop, [call.tool for call in result.calls], result.final_answer) == (
            "timeout",
            ["read_graph"],
            "",
        )

    @pytest.mark.parametrize(
        ("fault", "detail"),
        [
            (Fault.server_error(), "HTTP 500"),
            (Fault.drop(), "connection"),
            (Reply(), "neither text nor a function call"),
        ],
        ids=["500s-beyond-retries", "dropped-connections", "empty-reply"],
    )
    async def test_llm_failures_end_the_rollout_as_data(
        self,
        memory: Sandbox,
        llm: LlmClient,
        script: Script,
        endpoint: ScriptedOpenAIServer,
        fault,
        detail: str,
    ) -> None:
        """After one real call the endpoint fails for good: stop=llm_failure, the step made so far is kept."""
        script.add(Reply.call("read_graph", {}), times=1, system=REACT)
        script.add(fault, system=REACT)
        result = await run(memory, llm, make_task("Fail.", server="memory"), AgentKind.REACT)

        assert result.stop == "llm_failure" and detail in result.detail, result.detail
        assert [call.tool for call in result.calls] == ["read_graph"]
        retried = isinstance(fault, Fault)
        assert len(endpoint.chat_requests) == (1 + 3 if retried else 2)  # 1 + max_retries when retryable


class TestPromptAndUsage:
    async def test_guidance_fills_the_memory_slot_of_the_system_prompt(
        self, filesystem: Sandbox, llm: LlmClient, script: Script, endpoint: ScriptedOpenAIServer
    ) -> None:
        """The atlas's guidance reaches the model in the system prompt; without it the slot says so."""
        script.add(Reply.say("done"), system=REACT)
        guidance = "read_text_file: pass head=N to read the first lines of a large log."
        task = make_task("Look at ${root}/logs.")
        await run(filesystem, llm, task, AgentKind.REACT, guidance=guidance)
        await run(filesystem, llm, task, AgentKind.REACT)

        guided, unguided = endpoint.chat_requests
        assert guidance in guided.system_text and guidance not in unguided.system_text
        assert "there may be none.\n(none)" in unguided.system_text
        assert guided.system_text.startswith("[toolatlas:role=agent v1 prompt=agent_react]")
        assert (guided.role, guided.role_tag.prompt) == ("agent", "agent_react")
        assert filesystem.variables()["root"] + "/logs" in guided.last_user_text

    async def test_usage_is_booked_as_role_agent_for_the_task_server_and_round(
        self, memory: Sandbox, llm: LlmClient, script: Script
    ) -> None:
        script.add(turns(Reply.call("read_graph", {}), Reply.say("done")), system=SWITCHACT)
        await run(memory, llm, make_task("Read.", server="memory"), AgentKind.SWITCHACT)
        rows = llm.ledger.group("role", "server", "round")
        assert list(rows) == [("agent", "memory", 0)] and rows[("agent", "memory", 0)].calls == 2

    async def test_a_handle_bound_to_another_role_is_refused(self, memory: Sandbox, llm: LlmClient) -> None:
        with pytest.raises(ConfigError, match="agents call as role 'agent'"):
            await run(memory, llm.bind("proposer"), make_task("x", server="memory"), AgentKind.REACT)
