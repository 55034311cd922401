"""The scripted OpenAI-compatible server over real HTTP: wire checks as the real API makes them,
rule order and faults, embeddings and models through the openai SDK, the in-loop mode, and the
command-line process another job can use."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from toolatlas.config import LlmSettings
from toolatlas.llm import LlmClient, role_tag
from toolatlas.testing.openai_script import Fault, Reply, Script
from toolatlas.testing.openai_server import READY_PREFIX, ScriptedOpenAIServer
from toolatlas.testing.openai_wire import hashed_embedding

USER = {"role": "user", "content": "hi"}
TOOL = {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}


@pytest.fixture()
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(Script().add("hello")) as running:
        yield running


def chat(server: ScriptedOpenAIServer, **body: Any) -> httpx.Response:
    return httpx.post(f"{server.base_url}/chat/completions", json={"model": "m", **body}, timeout=5)


class TestWireChecks:
    def test_answer_has_the_real_shape(self, server: ScriptedOpenAIServer) -> None:
        """A chat answer is a chat.completion with one choice, an assistant message and usage."""
        answer = chat(server, messages=[USER]).json()
        assert answer["object"] == "chat.completion" and answer["model"] == "m"
        (choice,) = answer["choices"]
        assert choice["message"] == {"role": "assistant", "content": "hello", "refusal": None}
        assert choice["finish_reason"] == "stop"
        usage = answer["usage"]
        assert (
            usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
            and usage["completion_tokens"] == 1
        )

    def test_tool_call_shape(self) -> None:
        """A scripted tool call goes out as tool_calls (JSON-string arguments), finish reason tool_calls."""
        with ScriptedOpenAIServer(
            Script().add(Reply.call("read_file", {"path": "a"}, id="call_x"))
        ) as server:
            choice = chat(server, messages=[USER], tools=[TOOL]).json()["choices"][0]
        assert choice["finish_reason"] == "tool_calls"
        assert choice["message"]["tool_calls"] == [
            {
                "id": "call_x",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a"}'},
            }
        ]

    @pytest.mark.parametrize(
        ("body", "param", "message"),
        [
            ({"messages": []}, "messages", "non-empty"),
            ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0].role", "must be one of"),
            (
                {"messages": [USER, {"role": "tool", "tool_call_id": "c1", "content": "x"}]},
                "messages[1]",
                "preceding message",
            ),
            (
                {
                    "messages": [
                        USER,
                        {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                            ],
                        },
                        USER,
                    ]
                },
                "messages[2]",
                "unanswered: c1",
            ),
            ({"messages": [USER], "tool_choice": "required"}, "tool_choice", "only allowed when tools"),
            (
                {
                    "messages": [USER],
                    "tools": [TOOL],
                    "tool_choice": {"type": "function", "function": {"name": "nope"}},
                },
                "tool_choice",
                "not in tools",
            ),
            (
                {
                    "messages": [USER],
                    "response_format": {"type": "json_schema", "json_schema": {"name": "x"}},
                },
                "response_format.json_schema",
                "schema object",
            ),
            ({"messages": [USER], "stream": True}, "stream", "does not stream"),
        ],
    )
    def test_invalid_requests_rejected_like_the_real_api(
        self, server: ScriptedOpenAIServer, body: dict[str, Any], param: str, message: str
    ) -> None:
        """Requests the real API refuses get a 400 with an OpenAI error body naming the parameter."""
        answer = chat(server, **body)
        assert answer.status_code == 400
        error = answer.json()["error"]
        assert (
            error["param"] == param
            and message in error["message"]
            and error["type"] == "invalid_request_error"
        )
        assert server.requests[-1].outcome == "invalid_request"


class TestScript:
    def test_rules_in_order_with_times(self) -> None:
        """The first live matching rule answers; a rule with times=n steps aside after n answers."""
        script = Script().add("first", times=2).add("then")
        with ScriptedOpenAIServer(script) as server:
            texts = [
                chat(server, messages=[USER]).json()["choices"][0]["message"]["content"] for _ in range(4)
            ]
        assert texts == ["first", "first", "then", "then"]
        assert (script.uses(0), script.uses(1)) == (2, 2)

    def test_matching_on_role_tag_model_user_and_structure(self) -> None:
        """Rules select by role tag, model, a regex over the last user message, and a schema."""
        script = (
            Script()
            .add("by role", role="navigator")
            .add("by model", model="big")
            .add("by user", user=r"^count \d+")
            .add("by schema", structured=True, schema="Plan")
            .add("fallback")
        )
        schema = {"type": "json_schema", "json_schema": {"name": "Plan", "schema": {"type": "object"}}}
        system = {"role": "system", "content": role_tag("navigator") + "\nnavigate"}
        with ScriptedOpenAIServer(script) as server:
            answers = [
                chat(server, messages=[system, USER]),
                httpx.post(f"{server.base_url}/chat/completions", json={"model": "big", "messages": [USER]}),
                chat(server, messages=[{"role": "user", "content": "count 3 files"}]),
                chat(server, messages=[USER], response_format=schema),
                chat(server, messages=[USER]),
            ]
        texts = [answer.json()["choices"][0]["message"]["content"] for answer in answers]
        assert texts == ["by role", "by model", "by user", "by schema", "fallback"]

    def test_queued_faults_come_first(self) -> None:
        """Injected faults answer the next requests, one each, before any rule; delays then fall through."""
        script = (
            Script()
            .add("ok")
            .inject(Fault.rate_limit(retry_after=3), Fault.server_error(503), Fault.delay(0.05))
        )
        with ScriptedOpenAIServer(script) as server:
            answers = [chat(server, messages=[USER]) for _ in range(3)]
            records = list(server.requests)
        assert [answer.status_code for answer in answers] == [429, 503, 200]
        assert answers[0].headers["retry-after"] == "3"
        assert answers[0].json()["error"]["type"] == "rate_limit_error"
        assert script.pending_faults == 0 and records[2].outcome == "text"

    def test_invalid_schema_fault_violates_the_schema(self) -> None:
        """The invalid-schema fault answers 200 with JSON that fits none of the declared properties."""
        schema = {
            "type": "json_schema",
            "json_schema": {
                "name": "T",
                "schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            },
        }
        with ScriptedOpenAIServer(Script().add(Fault.invalid_schema())) as server:
            content = chat(server, messages=[USER], response_format=schema).json()["choices"][0]["message"][
                "content"
            ]
        assert json.loads(content) == {"n": {"unexpected": True}}

    def test_no_rule_and_broken_policy_answer_400(self) -> None:
        """An unmatched request and a policy that raises both get a 400 that explains which."""
        script = Script().add(lambda request: 1 / 0, role="agent", name="divide")
        system = {"role": "system", "content": role_tag("agent")}
        with ScriptedOpenAIServer(script) as server:
            unmatched = chat(server, messages=[USER])
            broken = chat(server, messages=[system, USER])
        assert (
            unmatched.status_code == 400
            and "no rule matches request #0" in unmatched.json()["error"]["message"]
        )
        assert (
            broken.status_code == 400
            and "rule divide raised ZeroDivisionError" in broken.json()["error"]["message"]
        )

    def test_dropped_connection_is_a_transport_error(self, server: ScriptedOpenAIServer) -> None:
        """The drop fault closes the connection mid-body: the client sees a protocol error, not a response."""
        server.script.inject(Fault.drop())
        with pytest.raises(httpx.RemoteProtocolError):
            chat(server, messages=[USER])
        assert chat(server, messages=[USER]).status_code == 200  # the server keeps serving


class TestEmbeddingsAndModels:
    def test_embeddings_through_the_sdk(self, server: ScriptedOpenAIServer) -> None:
        """The SDK's base64 default decodes to the hashed unit vectors; shared words, similar vectors."""
        client = openai.OpenAI(base_url=server.base_url, api_key="k")
        texts = ["read the file", "read the file please", "drop database tables"]
        vectors = [item.embedding for item in client.embeddings.create(model="e", input=texts).data]
        assert vectors[0] == pytest.approx(hashed_embedding("read the file"), abs=1e-6)
        assert all(math.isclose(sum(v * v for v in vector), 1.0, rel_tol=1e-5) for vector in vectors)

        def cosine(a: list[float], b: list[float]) -> float:
            return sum(x * y for x, y in zip(a, b, strict=True))

        assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2])
        floats = client.embeddings.create(model="e", input="x", encoding_format="float", dimensions=8)
        assert len(floats.data[0].embedding) == 8

    def test_models_listed(self) -> None:
        """GET /v1/models lists the script's models."""
        with ScriptedOpenAIServer(Script(models=["a", "b"])) as server:
            client = openai.OpenAI(base_url=server.base_url, api_key="k")
            assert [model.id for model in client.models.list()] == ["a", "b"]


async def test_serves_on_the_running_loop() -> None:
    """``async with`` runs the server on the test's own event loop; LlmClient talks to it there."""
    async with ScriptedOpenAIServer(Script().add(lambda request: request.last_user_text.upper())) as server:
        settings = LlmSettings(base_url=server.base_url, model="m")
        async with LlmClient(settings) as llm:
            reply = await llm.complete("agent", [{"role": "user", "content": "shout"}])
    assert reply.text == "SHOUT"


def test_runs_as_a_separate_process() -> None:
    """``python -m toolatlas.testing.openai_server`` prints its URL, answers, and lists what it received."""
    process = subprocess.Popen(
        [sys.executable, "-m", "toolatlas.testing.openai_server", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith(READY_PREFIX)
        base_url = line.removeprefix(READY_PREFIX)
        client = openai.OpenAI(base_url=base_url, api_key="k")
        answer = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "echo me"}])
        assert answer.choices[0].message.content == "echo me"
        recorded = httpx.get(base_url.removesuffix("/v1") + "/_scripted/requests").json()["requests"]
        assert [(entry["path"], entry["outcome"]) for entry in recorded] == [("/v1/chat/completions", "text")]
    finally:
        process.terminate()
        # uvicorn shuts down gracefully, then re-raises the SIGTERM it caught
        assert process.wait(timeout=10) in (0, -signal.SIGTERM)
