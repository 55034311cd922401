"""LlmClient over real HTTP against the scripted OpenAI-compatible server: completions, tool calls,
structured outputs with repair, retries, timeouts, the endpoint concurrency limit, per-role models."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from pydantic import BaseModel
from scripted_llm import MODEL, conversation, settings_for

from toolatlas.errors import ConfigError, LlmError, LlmOutputError
from toolatlas.llm import ROLE_HEADER, LlmClient, function_tool, tool_result_message
from toolatlas.testing.openai_script import Fault, Reply, ScriptedCall
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.testing.openai_wire import ChatRequest


class SeedTask(BaseModel):
    task: str
    difficulty: int
    tools: list[str]
    note: str | None = None


READ_FILE = function_tool(
    "read_file",
    "Read a file",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


class TestCompletion:
    async def test_plain_completion(self, server: ScriptedOpenAIServer) -> None:
        """A text answer comes back with the endpoint's usage, model, finish reason and latency."""
        server.script.add(lambda request: f"echo {request.last_user_text}", role="agent")
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete("agent", conversation("agent", "list the files"))
        assert reply.text == "echo list the files"
        assert (reply.model, reply.finish_reason, reply.ok) == (MODEL, "stop", True)
        sent = server.chat_requests[0]
        assert reply.usage.prompt_tokens == sent.prompt_tokens() > 0
        assert reply.usage.completion_tokens == 4  # echo, list, the, files
        assert reply.latency_ms > 0 and reply.requests == 1 and reply.retries == 0

    async def test_role_travels_in_tag_and_header(self, server: ScriptedOpenAIServer) -> None:
        """The server reads the role from the prompt's tag, or from the header when there is none."""
        server.script.add("ok")
        async with LlmClient(settings_for(server)) as llm:
            await llm.complete("navigator", conversation("navigator", "hi"))
            await llm.complete("inducer", [{"role": "user", "content": "no system prompt"}])
        tagged, untagged = server.chat_requests
        assert tagged.role_tag is not None and tagged.role_tag.version == 1
        assert (tagged.role, untagged.role_tag, untagged.role) == ("navigator", None, "inducer")
        assert untagged.headers[ROLE_HEADER.lower()] == "inducer"

    async def test_tool_calls_parsed_and_conversation_continues(self, server: ScriptedOpenAIServer) -> None:
        """Tool calls arrive typed; the assistant message and tool result go back in the real wire format."""
        server.script.add(
            lambda request: f"the file says {request.tool_results[-1]['content']}",
            role="agent",
            where=lambda r: bool(r.tool_results),
        )
        server.script.add(Reply.call("read_file", {"path": "notes.txt"}), role="agent", tool="read_file")
        messages = conversation("agent", "what is in notes.txt?")
        async with LlmClient(settings_for(server)) as llm:
            first = await llm.complete("agent", messages, tools=[READ_FILE], tool_choice="auto")
            call = first.tool_calls[0]
            assert (first.finish_reason, call.name, call.arguments, first.text) == (
                "tool_calls",
                "read_file",
                {"path": "notes.txt"},
                None,
            )
            messages += [first.as_message(), tool_result_message(call.id, "hello")]
            second = await llm.complete("agent", messages, tools=[READ_FILE])
        assert second.text == "the file says hello"
        assert server.requests[1].status == 200  # the wire checks accepted the tool round trip
        assert server.chat_requests[1].messages[-2]["tool_calls"][0]["id"] == call.id

    async def test_malformed_tool_arguments_are_data(self, server: ScriptedOpenAIServer) -> None:
        """Arguments that are not a JSON object become ``arguments_error`` on the call, not an exception."""
        server.script.add(
            Reply.calls(ScriptedCall("read_file", '{"path": '), ScriptedCall("read_file", "[1, 2]")),
            role="agent",
        )
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete("agent", conversation("agent", "go"), tools=[READ_FILE])
        broken, listed = reply.tool_calls
        assert broken.arguments is None and "not valid JSON" in (broken.arguments_error or "")
        assert listed.arguments is None and "JSON object" in (listed.arguments_error or "")

    async def test_tool_choice_by_name_is_forced(self, server: ScriptedOpenAIServer) -> None:
        """A bare tool name becomes the wire's forced-function tool_choice."""
        server.script.add(Reply.call("read_file", {"path": "a"}))
        async with LlmClient(settings_for(server)) as llm:
            await llm.complete(
                "agent", conversation("agent", "go"), tools=[READ_FILE], tool_choice="read_file"
            )
        assert server.chat_requests[0].body["tool_choice"] == {
            "type": "function",
            "function": {"name": "read_file"},
        }

    async def test_per_role_model_and_temperature(self, server: ScriptedOpenAIServer) -> None:
        """role_models / role_temperatures pick a role's model and default temperature; calls may override."""
        server.script.add(lambda request: request.model)
        settings = settings_for(
            server,
            role_models={"navigator": "small-model"},
            role_temperatures={"agent": 0.7},
            max_tokens_param="max_completion_tokens",
            extra_body={"reasoning_effort": "medium"},
        )
        async with LlmClient(settings) as llm:
            navigator = await llm.complete("navigator", conversation("navigator", "x"))
            agent = await llm.complete("agent", conversation("agent", "x"), seed=7, max_tokens=50)
            pinned = await llm.complete("agent", conversation("agent", "x"), temperature=0.0)
        assert (navigator.text, agent.text) == ("small-model", MODEL)
        bodies = [request.body for request in server.chat_requests]
        assert [body["model"] for body in bodies] == ["small-model", MODEL, MODEL]
        assert (
            "temperature" not in bodies[0]
            and bodies[1]["temperature"] == 0.7
            and bodies[2]["temperature"] == 0.0
        )
        assert (bodies[1]["seed"], bodies[1]["max_completion_tokens"], bodies[1]["reasoning_effort"]) == (
            7,
            50,
            "medium",
        )
        assert pinned.model == MODEL

    async def test_unknown_role_is_refused(self, server: ScriptedOpenAIServer) -> None:
        """A role outside LLM_ROLES is a ConfigError before any request is made."""
        async with LlmClient(settings_for(server)) as llm:
            with pytest.raises(ConfigError, match="unknown LLM role 'planner'"):
                await llm.complete("planner", conversation("agent", "x"))
        assert server.requests == []

    async def test_bound_handle_books_server_and_round(self, server: ScriptedOpenAIServer) -> None:
        """``bind`` fixes role, server and round for every call made through the handle."""
        server.script.add("ok")
        async with LlmClient(settings_for(server)) as llm:
            proposer = llm.bind("proposer", server="git", round=2)
            await proposer.complete(conversation("proposer", "x"))
            await proposer.complete(conversation("proposer", "y"))
        (row,) = llm.ledger.rows
        assert (row.role, row.server, row.round, row.tally.calls) == ("proposer", "git", 2, 2)


class TestStructuredOutput:
    async def test_parsed_with_strict_schema(self, server: ScriptedOpenAIServer) -> None:
        """The request carries a strict json_schema from the model; the JSON answer is parsed into it."""
        server.script.add(
            {"task": "count lines", "difficulty": 2, "tools": ["wc"], "note": None}, structured=True
        )
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete(
                "proposer", conversation("proposer", "one task"), response_model=SeedTask
            )
        assert reply.parsed == SeedTask(task="count lines", difficulty=2, tools=["wc"])
        fmt = server.chat_requests[0].response_format
        assert fmt is not None and fmt["type"] == "json_schema"
        assert fmt["json_schema"]["name"] == "SeedTask" and fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["schema"]["required"] == ["task", "difficulty", "tools", "note"]

    async def test_malformed_then_valid_is_repaired(self, server: ScriptedOpenAIServer) -> None:
        """A malformed answer is shown back with the validation error; the second answer succeeds."""
        server.script.add(Fault.malformed_json('{"task": "x", "difficulty": '), times=1, role="proposer")
        server.script.add({"task": "x", "difficulty": 1, "tools": [], "note": "fixed"}, role="proposer")
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete(
                "proposer", conversation("proposer", "one task"), response_model=SeedTask
            )
        assert reply.ok and reply.parsed is not None and reply.parsed.note == "fixed"
        assert (reply.requests, reply.repairs) == (2, 1)
        retry = server.chat_requests[1].messages
        assert retry[-2] == {"role": "assistant", "content": '{"task": "x", "difficulty": '}
        assert "not valid for the required JSON schema" in retry[-1]["content"]
        assert "Invalid JSON" in retry[-1]["content"]
        assert llm.ledger.total().repairs == 1 and llm.ledger.total().failures == 0

    async def test_invalid_schema_error_names_the_field(self, server: ScriptedOpenAIServer) -> None:
        """A JSON answer with wrong field types is repaired with the field paths in the message."""
        server.script.add(Fault.invalid_schema(), times=1)
        server.script.add({"task": "x", "difficulty": 3, "tools": ["a"], "note": None})
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete("proposer", conversation("proposer", "t"), response_model=SeedTask)
        assert reply.ok and reply.repairs == 1
        repair = server.chat_requests[1].messages[-1]["content"]
        assert "difficulty:" in repair and "task:" in repair

    async def test_always_malformed_is_a_recorded_failure(self, server: ScriptedOpenAIServer) -> None:
        """After structured_output_retries repairs the reply carries a typed failure; nothing is raised."""
        server.script.add(Fault.malformed_json("sorry, I cannot"))
        async with LlmClient(settings_for(server, structured_output_retries=2)) as llm:
            reply = await llm.complete(
                "proposer", conversation("proposer", "t"), response_model=SeedTask, server="git"
            )
        assert not reply.ok and reply.parsed is None
        assert reply.failure is not None
        assert (reply.failure.schema_name, reply.failure.attempts, reply.failure.last_text) == (
            "SeedTask",
            3,
            "sorry, I cannot",
        )
        assert len(server.requests) == 3 and reply.repairs == 2
        tally = llm.ledger.select(role="proposer", server="git")
        assert (tally.calls, tally.failures, tally.repairs, tally.requests) == (1, 1, 2, 3)
        with pytest.raises(LlmOutputError, match="Invalid JSON"):
            reply.parsed_or_raise()

    async def test_code_fence_around_json_is_tolerated(self, server: ScriptedOpenAIServer) -> None:
        """Some local models wrap JSON in a Markdown fence; the object inside is accepted."""
        payload = json.dumps({"task": "t", "difficulty": 1, "tools": [], "note": None})
        server.script.add(f"```json\n{payload}\n```")
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete("proposer", conversation("proposer", "t"), response_model=SeedTask)
        assert reply.ok and reply.parsed is not None and reply.requests == 1

    async def test_free_form_map_sends_non_strict_schema(self, server: ScriptedOpenAIServer) -> None:
        """A dict field cannot be strict: the plain schema is sent, and validation still applies."""

        class Scores(BaseModel):
            scores: dict[str, float]

        server.script.add({"scores": {"a": 1.0}})
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete("inducer", conversation("inducer", "t"), response_model=Scores)
        assert reply.parsed == Scores(scores={"a": 1.0})
        assert server.chat_requests[0].response_format["json_schema"]["strict"] is False


class TestRetries:
    async def test_rate_limit_honours_retry_after(self, server: ScriptedOpenAIServer) -> None:
        """A 429 with Retry-After is retried after at least that wait, and the retry is counted."""
        server.script.inject(Fault.rate_limit(retry_after=0.2))
        server.script.add("fine")
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete("agent", conversation("agent", "x"))
        assert (reply.text, reply.retries, reply.requests) == ("fine", 1, 2)
        first, second = server.requests
        assert (first.status, second.status) == (429, 200)
        assert second.received_at - first.received_at >= 0.2
        assert llm.ledger.total().retries == 1

    @pytest.mark.parametrize("status", [500, 503])
    async def test_server_errors_are_retried(self, server: ScriptedOpenAIServer, status: int) -> None:
        """5xx answers are retried with backoff until one succeeds."""
        server.script.inject(Fault.server_error(status), Fault.server_error(status))
        server.script.add("recovered")
        async with LlmClient(settings_for(server, max_retries=2)) as llm:
            reply = await llm.complete("agent", conversation("agent", "x"))
        assert (reply.text, reply.retries) == ("recovered", 2)
        assert [record.status for record in server.requests] == [status, status, 200]

    async def test_dropped_connection_is_retried(self, server: ScriptedOpenAIServer) -> None:
        """A connection closed mid-response counts as a connection error and is retried."""
        server.script.inject(Fault.drop())
        server.script.add("after the drop")
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete("agent", conversation("agent", "x"))
        assert (reply.text, reply.retries) == ("after the drop", 1)
        assert server.requests[0].outcome == "fault:drop"

    async def test_timeouts_retried_then_llm_error(self, server: ScriptedOpenAIServer) -> None:
        """A request slower than timeout_s is abandoned and retried; when every try times out, LlmError."""
        server.script.add("too late", delay_s=1.0)
        async with LlmClient(settings_for(server, timeout_s=0.2, max_retries=1)) as llm:
            with pytest.raises(LlmError, match=r"after 2 request\(s\): no answer within 0.2 s") as caught:
                await llm.complete("agent", conversation("agent", "x"), server="memory", round=1)
        assert caught.value.attempts == 2 and caught.value.status is None
        assert len(server.requests) == 2
        tally = llm.ledger.select(server="memory", round=1)
        assert (tally.calls, tally.failures, tally.retries, tally.requests) == (1, 1, 1, 2)

    async def test_retries_exhausted_on_persistent_5xx(self, server: ScriptedOpenAIServer) -> None:
        """An endpoint that keeps answering 503 raises LlmError with the status after max_retries."""
        server.script.add(Fault.unavailable())
        async with LlmClient(settings_for(server, max_retries=3)) as llm:
            with pytest.raises(LlmError, match="HTTP 503") as caught:
                await llm.complete("agent", conversation("agent", "x"))
        assert (caught.value.status, caught.value.attempts, len(server.requests)) == (503, 4, 4)

    async def test_auth_error_is_not_retried(self, server: ScriptedOpenAIServer) -> None:
        """401 fails at once and the message points at the key variable."""
        server.script.add(Fault.http(401, "Incorrect API key provided"))
        async with LlmClient(settings_for(server, api_key_env="MY_LLM_KEY")) as llm:
            with pytest.raises(
                LlmError, match=r"refused the credentials \(HTTP 401\); check the key in \$MY_LLM_KEY"
            ):
                await llm.complete("agent", conversation("agent", "x"))
        assert len(server.requests) == 1

    async def test_api_key_sent_from_the_configured_variable(
        self, server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The bearer token is read from api_key_env."""
        monkeypatch.setenv("MY_LLM_KEY", "sk-test-123")
        server.script.add("ok")
        async with LlmClient(settings_for(server, api_key_env="MY_LLM_KEY")) as llm:
            await llm.complete("agent", conversation("agent", "x"))
        assert server.requests[0].headers["authorization"] == "Bearer sk-test-123"

    async def test_unmatched_request_fails_fast(self, server: ScriptedOpenAIServer) -> None:
        """A request no rule answers is a 400 from the scripted server: no retries, a clear message."""
        async with LlmClient(settings_for(server)) as llm:
            with pytest.raises(LlmError, match="no rule matches request #0"):
                await llm.complete("agent", conversation("agent", "x"))
        assert len(server.requests) == 1

    async def test_unreachable_endpoint(self) -> None:
        """Nothing listening: connection errors are retried, then LlmError."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        settings = settings_for(f"http://127.0.0.1:{port}/v1")
        async with LlmClient(settings) as llm:
            with pytest.raises(LlmError, match="connection failed") as caught:
                await llm.complete("agent", conversation("agent", "x"))
        assert caught.value.attempts == 3
        assert llm.ledger.total().failures == 1


class TestConcurrency:
    async def test_limit_per_endpoint_is_honoured(self, server: ScriptedOpenAIServer) -> None:
        """With max_concurrency=2, eight concurrent calls never put more than two requests in flight."""
        server.script.add("slow", delay_s=0.1)
        async with LlmClient(settings_for(server, max_concurrency=2)) as llm:
            replies = await asyncio.gather(
                *(llm.complete("agent", conversation("agent", str(i))) for i in range(8))
            )
        assert [reply.text for reply in replies] == ["slow"] * 8
        assert server.max_in_flight == 2

    async def test_limit_is_shared_by_clients_of_one_endpoint(self, server: ScriptedOpenAIServer) -> None:
        """Two clients (two roles' worth) of the same base URL share one limit."""
        server.script.add("slow", delay_s=0.1)
        settings = settings_for(server, max_concurrency=3)
        async with LlmClient(settings) as agents, LlmClient(settings) as navigators:
            calls = [agents.complete("agent", conversation("agent", "a")) for _ in range(5)]
            calls += [navigators.complete("navigator", conversation("navigator", "n")) for _ in range(5)]
            await asyncio.gather(*calls)
        assert server.max_in_flight == 3
        assert len(server.requests) == 10

    async def test_requests_run_concurrently_below_the_limit(self, server: ScriptedOpenAIServer) -> None:
        """The limit does not serialise: with room for 4, four slow calls overlap."""
        server.script.add("slow", delay_s=0.2)
        async with LlmClient(settings_for(server, max_concurrency=4)) as llm:
            await asyncio.gather(*(llm.complete("agent", conversation("agent", "x")) for _ in range(4)))
        assert server.max_in_flight == 4


def test_policy_sees_parsed_request(server: ScriptedOpenAIServer) -> None:
    """A policy receives the parsed ChatRequest (sync use of the fixture: the server runs in a thread)."""
    seen: list[ChatRequest] = []
    server.script.add(lambda request: seen.append(request) or "ok")

    async def call() -> None:
        async with LlmClient(settings_for(server)) as llm:
            await llm.complete("decompiler", conversation("decompiler", "write it up"))

    asyncio.run(call())
    assert seen[0].role == "decompiler" and seen[0].last_user_text == "write it up"
