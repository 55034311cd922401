"""A scripted OpenAI-compatible HTTP server: the honest stand-in for an LLM endpoint in tests.

It speaks the real wire format over real HTTP (Starlette on uvicorn), so the code under test
uses the real ``openai`` SDK end to end:

- ``POST /v1/chat/completions``: messages (tool messages included, checked as the real API
  checks them), ``tools`` → ``tool_calls`` with finish reason ``tool_calls``,
  ``response_format`` json_schema → the JSON as content, ``usage`` on every answer;
- ``GET /v1/models``, and ``POST /v1/embeddings`` (deterministic hashed vectors, float or base64);
- ``GET /_scripted/requests``: the recorded requests, for a test in another process.

Answers come from a :class:`~toolatlas.testing.openai_script.Script`. Every request is recorded
(:attr:`ScriptedOpenAIServer.requests`), and so is the peak number in flight.

Three ways to run it::

    with ScriptedOpenAIServer(script) as server:          # a background thread
        LlmSettings(base_url=server.base_url, model="scripted-model")

    async with ScriptedOpenAIServer(script) as server:    # on the running event loop
        ...

    python -m toolatlas.testing.openai_server --script tests.llm.scripts:SCRIPT --port 8700

The command prints ``TOOLATLAS_SCRIPTED_OPENAI=<base url>`` once it is listening; without
``--script`` it runs :func:`echo_script` (every chat request is answered with its last user message).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from toolatlas.errors import ToolAtlasError
from toolatlas.testing.openai_script import Fault, Reply, Script
from toolatlas.testing.openai_wire import (
    ChatRequest,
    WireError,
    completion_body,
    count_tokens,
    embeddings_body,
    error_body,
    invalid_instance,
)

__all__ = ["READY_PREFIX", "RecordedRequest", "ScriptedOpenAIServer", "echo_script", "main"]

READY_PREFIX = "TOOLATLAS_SCRIPTED_OPENAI="
STARTUP_TIMEOUT_S = 10.0
SHUTDOWN_TIMEOUT_S = 10.0
_DROPPED_BODY = b'{"id": "chatcmpl-dropped", "choices": ['


@dataclass
class RecordedRequest:
    """One request the server received, and what it answered."""

    index: int
    path: str
    received_at: float  # time.monotonic()
    body: Any
    headers: dict[str, str]
    chat: ChatRequest | None = None
    status: int = 0
    outcome: str = ""  # "text", "tool_calls", "json", "fault:<kind>", "invalid_request", "no_rule", ...
    rule: int | None = None

    def summary(self) -> dict[str, Any]:
        """A JSON-ready account (what ``GET /_scripted/requests`` lists)."""
        return {
            "index": self.index,
            "path": self.path,
            "role": self.chat.role if self.chat else None,
            "model": self.chat.model if self.chat else None,
            "status": self.status,
            "outcome": self.outcome,
            "rule": self.rule,
            "body": self.body,
        }


class _DroppedConnection(Exception):
    """Raised mid-response to make uvicorn close the connection (a scripted ``drop`` fault)."""


class _DroppingResponse(Response):
    """Promises a body, sends a fragment, then aborts: the client sees the connection drop."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"4096")],
            }
        )
        await send({"type": "http.response.body", "body": _DROPPED_BODY, "more_body": True})
        raise _DroppedConnection


class _QuietDrops(logging.Filter):
    """Keep uvicorn from logging a traceback for every scripted dropped connection."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], _DroppedConnection))


class _Uvicorn(uvicorn.Server):
    """uvicorn that leaves signal handling to its host unless it is the whole process."""

    def __init__(self, config: uvicorn.Config, *, handle_signals: bool) -> None:
        super().__init__(config)
        self._handle_signals = handle_signals

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if self._handle_signals:
            with super().capture_signals():
                yield
        else:
            yield


class ScriptedOpenAIServer:
    """The scripted endpoint on ``host`` (a free port unless ``port`` is given)."""

    def __init__(self, script: Script | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.script = script if script is not None else Script()
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._host, self._port = host, port
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._server: _Uvicorn | None = None
        self._thread: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/embeddings", self._embeddings, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/_scripted/requests", self._recorded, methods=["GET"]),
            ]
        )

    # --- lifecycle ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._socket is None:
            raise ToolAtlasError("the scripted server is not running")
        return self._socket.getsockname()[1]

    @property
    def base_url(self) -> str:
        """The ``/v1`` URL to give an OpenAI client."""
        return f"http://{self._host}:{self.port}/v1"

    @property
    def chat_requests(self) -> list[ChatRequest]:
        """The parsed chat requests, in arrival order (invalid ones left out)."""
        return [record.chat for record in self.requests if record.chat is not None]

    async def serve(
        self, *, handle_signals: bool = False, on_ready: Callable[[str], None] | None = None
    ) -> None:
        """Serve on the running loop until :meth:`stop` / :meth:`stop_async` (or SIGINT / SIGTERM
        with ``handle_signals``); ``on_ready`` gets the base URL once the port listens."""
        self._server = self._uvicorn(handle_signals=handle_signals)
        task = asyncio.create_task(self._server.serve(sockets=[self._bind()]))
        while not self._server.started and not task.done():
            await asyncio.sleep(0.01)
        if on_ready is not None and self._server.started:
            on_ready(self.base_url)
        await task

    def start(self) -> ScriptedOpenAIServer:
        """Serve from a background thread; returns once the port accepts connections."""
        self._thread = threading.Thread(target=asyncio.run, args=(self.serve(),), daemon=True)
        self._thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self._started():
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise ToolAtlasError("the scripted OpenAI server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop the background thread (requests still sleeping in a delay are cut off)."""
        self._request_exit()
        if self._thread is not None:
            self._thread.join(SHUTDOWN_TIMEOUT_S)
        self._release()

    async def start_async(self) -> ScriptedOpenAIServer:
        """Serve on the running event loop; returns once listening."""
        self._task = asyncio.create_task(self.serve())
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self._started():
            if self._task.done() or time.monotonic() > deadline:
                raise ToolAtlasError("the scripted OpenAI server did not start")
            await asyncio.sleep(0.01)
        return self

    async def stop_async(self) -> None:
        self._request_exit()
        if self._task is not None:
            await asyncio.wait_for(self._task, SHUTDOWN_TIMEOUT_S)
        self._release()

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def __aenter__(self) -> ScriptedOpenAIServer:
        return await self.start_async()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop_async()

    def _started(self) -> bool:
        return self._server is not None and self._server.started

    def _request_exit(self) -> None:
        if self._server is not None:
            self._server.should_exit = self._server.force_exit = True

    def _bind(self) -> socket.socket:
        # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY only on sockets that say they are TCP; without
        # it every reply on a kept-alive connection waits ~40 ms for the client's delayed ACK
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((self._host, self._port))
        self._socket = sock
        return sock

    def _uvicorn(self, *, handle_signals: bool) -> _Uvicorn:
        logging.getLogger("uvicorn.error").addFilter(_QuietDrops())
        config = uvicorn.Config(
            self.app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        return _Uvicorn(config, handle_signals=handle_signals)

    def _release(self) -> None:
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._task = None

    # --- routes ------------------------------------------------------------------------------

    def _record(self, request: Request, body: Any) -> RecordedRequest:
        with self._lock:
            record = RecordedRequest(
                len(self.requests), request.url.path, time.monotonic(), body, dict(request.headers)
            )
            self.requests.append(record)
        return record

    async def _chat(self, request: Request) -> Response:
        body = await _json_body(request)
        record = self._record(request, body)
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._answer_chat(record)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _answer_chat(self, record: RecordedRequest) -> Response:
        try:
            record.chat = ChatRequest.parse(record.body, record.headers)
        except WireError as exc:
            return _finish(record, exc.status, "invalid_request", exc.body())
        step = self.script.next_step(record.chat)
        record.rule = step.rule
        if step.delay_s:
            await asyncio.sleep(step.delay_s)
        if step.response is None:
            reason = step.error or _no_rule_message(record)
            return _finish(
                record,
                400,
                "no_rule" if step.error is None else "policy_error",
                error_body(reason, code="scripted"),
            )
        if isinstance(step.response, Fault):
            return self._fault(record, step.response)
        return self._reply(record, step.response)

    def _fault(self, record: RecordedRequest, fault: Fault) -> Response:
        assert record.chat is not None
        record.outcome = f"fault:{fault.kind}"
        match fault.kind:
            case "status":
                headers = {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
                kind = (
                    "rate_limit_error"
                    if fault.status == 429
                    else "server_error"
                    if fault.status >= 500
                    else "invalid_request_error"
                )
                record.status = fault.status
                return JSONResponse(error_body(fault.text, kind=kind), fault.status, headers=headers)
            case "malformed_json":
                return self._reply(record, Reply.say(fault.text), outcome=record.outcome)
            case "invalid_schema":
                return self._reply(
                    record, Reply.json(invalid_instance(record.chat.json_schema)), outcome=record.outcome
                )
            case "drop":
                record.status = 0
                return _DroppingResponse()
        raise ToolAtlasError(f"fault kind {fault.kind!r} cannot end a response")

    def _reply(self, record: RecordedRequest, reply: Reply, *, outcome: str | None = None) -> Response:
        chat = record.chat
        assert chat is not None
        calls: list[dict[str, Any]] = [
            {
                "id": call.id or f"call_{record.index}_{position}",
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.arguments
                    if isinstance(call.arguments, str)
                    else json.dumps(call.arguments),
                },
            }
            for position, call in enumerate(reply.tool_calls)
        ]
        completion_tokens = reply.completion_tokens
        if completion_tokens is None:
            completion_tokens = count_tokens(reply.content or "") + sum(
                count_tokens(call["function"]["arguments"]) + 1 for call in calls
            )
        body = completion_body(
            chat,
            number=record.index,
            content=reply.content,
            tool_calls=calls,
            finish_reason=reply.finish_reason or ("tool_calls" if calls else "stop"),
            completion_tokens=completion_tokens,
            prompt_tokens=reply.prompt_tokens if reply.prompt_tokens is not None else chat.prompt_tokens(),
        )
        default = "tool_calls" if calls else "json" if chat.json_schema is not None else "text"
        return _finish(record, 200, outcome or default, body)

    async def _embeddings(self, request: Request) -> Response:
        body = await _json_body(request)
        record = self._record(request, body)
        try:
            return _finish(record, 200, "embeddings", embeddings_body(body))
        except WireError as exc:
            return _finish(record, exc.status, "invalid_request", exc.body())

    async def _models(self, request: Request) -> Response:
        data = [
            {"id": model, "object": "model", "created": 0, "owned_by": "toolatlas-scripted"}
            for model in self.script.models
        ]
        return JSONResponse({"object": "list", "data": data})

    async def _recorded(self, request: Request) -> Response:
        with self._lock:
            records = [record.summary() for record in self.requests]
        return JSONResponse({"requests": records, "max_in_flight": self.max_in_flight})


async def _json_body(request: Request) -> Any:
    raw = await request.body()
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw.decode("utf-8", "replace")


def _finish(record: RecordedRequest, status: int, outcome: str, body: dict[str, Any]) -> JSONResponse:
    record.status, record.outcome = status, record.outcome or outcome
    return JSONResponse(body, status)


def _no_rule_message(record: RecordedRequest) -> str:
    chat = record.chat
    assert chat is not None
    return (
        f"scripted server: no rule matches request #{record.index} "
        f"(role={chat.role!r}, model={chat.model!r}, tools={chat.tool_names}, schema={chat.schema_name!r}, "
        f"last user message={chat.last_user_text[:200]!r})"
    )


# --- running it as a process -------------------------------------------------------------------


def echo_script() -> Script:
    """Answers every chat request with its last user message (the command's default script)."""
    return Script().add(lambda request: Reply.say(request.last_user_text), name="echo")


def _load_script(target: str | None) -> Script:
    """``module:attr`` naming a :class:`Script` or a zero-argument callable returning one."""
    if not target:
        return echo_script()
    module_name, _, attr = target.partition(":")
    if not attr:
        raise ToolAtlasError(f"--script wants module:attr, got {target!r}")
    value = getattr(importlib.import_module(module_name), attr)
    script = value() if callable(value) and not isinstance(value, Script) else value
    if not isinstance(script, Script):
        raise ToolAtlasError(f"{target} is not a Script (or a callable returning one)")
    return script


def main(argv: list[str] | None = None) -> None:
    """``python -m toolatlas.testing.openai_server [--script module:attr] [--host H] [--port N]``."""
    parser = argparse.ArgumentParser(
        prog="python -m toolatlas.testing.openai_server", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--script", help="module:attr of a Script, or of a callable returning one (default: echo)"
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: a free port (printed on stdout)")
    args = parser.parse_args(argv)
    server = ScriptedOpenAIServer(_load_script(args.script), host=args.host, port=args.port)
    asyncio.run(
        server.serve(handle_signals=True, on_ready=lambda url: print(f"{READY_PREFIX}{url}", flush=True))
    )


if __name__ == "__main__":
    main()
