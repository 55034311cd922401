"""A live MCP session with one server that survives the server: crash, hang and garbage become outcomes.

:class:`ServerConnection` starts the server (stdio) or connects to it (streamable HTTP), lists its
tools, and calls them with a timeout. Whatever the server does, :meth:`ServerConnection.call`
returns a :class:`~toolatlas.models.CallOutcome`:

=====================  ================================================  ==========================
server behaviour        outcome class                                     session afterwards
=====================  ================================================  ==========================
answers                 ``ok`` / ``tool_error`` (``isError``)              kept
JSON-RPC error          ``protocol_error`` with ``error_code``             kept
non-JSON / huge line    ``protocol_error``                                 killed, restarted on use
no answer in time       ``timeout``                                       killed, restarted on use
exits mid-call          ``crash``                                         restarted on use
=====================  ================================================  ==========================

For a proxy, :meth:`ServerConnection.call_raw` and :meth:`ServerConnection.list_tools_raw` hand
back what the server answered, untouched: its result (or tools) as the JSON objects it sent, or
the JSON-RPC error it sent; a request that got no answer is the failed outcome of the table.

A server that cannot be (re)started raises :class:`~toolatlas.errors.ServerStartError` after
``limits.max_restarts`` attempts: that is a failure of the build's infrastructure, not of a tool.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import anyio
import httpx2
import mcp_types as types
import structlog
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from toolatlas.client.results import outcome_from_result, tool_spec_from_mcp
from toolatlas.client.stdio import StdioLaunch, StdioServerProcess, TransportFault
from toolatlas.config.servers import Limits
from toolatlas.errors import ServerStartError
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec, canonical_json, utcnow

__all__ = ["FORWARDED_REQUESTS", "HttpEndpoint", "RawReply", "ServerConnection"]

log = structlog.get_logger(__name__)

SHUTDOWN_TIMEOUT = 5.0
"""Seconds a session gets to wind down (transport stop included) before its task is cancelled."""
RESTART_BACKOFF_S = (0.1, 0.3, 1.0, 2.0, 4.0)
"""Pause before each successive start attempt after a failed one."""
MAX_TOOL_PAGES = 1000
"""Pages of ``tools/list`` followed before a server's pagination is taken to loop."""
HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)
"""An HTTP server's requests wait 30 s to connect, write or get a connection; a response stream may stay
open 5 minutes between events (the MCP transports' own defaults)."""
CLIENT_INFO = types.Implementation(name="toolatlas", version="0.1.0")
_RAW_RESULT = TypeAdapter(dict[str, Any])
_SHARED_VALIDATORS: dict[str, Any] = {}
"""Compiled output-schema validators by canonical schema JSON, shared by every session in this process."""
_SHARED_VALIDATORS_MAX = 4096
"""A result kept as the JSON object the server sent (the SDK still checks it against the protocol)."""
_ResultT = TypeVar("_ResultT")

FORWARDED_REQUESTS: dict[str, type[types.ClientRequest]] = {
    "resources/list": types.ListResourcesRequest,
    "resources/templates/list": types.ListResourceTemplatesRequest,
    "resources/read": types.ReadResourceRequest,
    "prompts/list": types.ListPromptsRequest,
    "prompts/get": types.GetPromptRequest,
    "completion/complete": types.CompleteRequest,
}
"""Requests besides ``tools/*`` that :meth:`ServerConnection.request_raw` sends (resources, prompts,
argument completion): what a proxy in front of a server passes on."""

RawReply = dict[str, Any] | types.ErrorData | CallOutcome
"""What a raw request ended with: the server's result as it sent it, the JSON-RPC error it sent,
or — when no answer came — the failed :class:`CallOutcome`."""


class _Failure(NamedTuple):
    """How a request ended without a result."""

    outcome: OutcomeClass
    message: str
    code: int | None = None
    error: types.ErrorData | None = None
    """The JSON-RPC error as the server sent it; None when the server sent none (crash, hang, garbage)."""


@dataclass(frozen=True)
class HttpEndpoint:
    """A server already running behind an MCP streamable-HTTP URL."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Session:
    """One started server process (or HTTP connection) and the MCP client over it."""

    generation: int
    client: Client
    task: asyncio.Task[None]
    stop: asyncio.Event
    process: StdioServerProcess | None
    faults: list[TransportFault] = field(default_factory=list)
    inflight: set[anyio.CancelScope] = field(default_factory=set)
    broken: str | None = None


class ServerConnection:
    """A restartable MCP client session with one server."""

    def __init__(
        self,
        name: str,
        endpoint: StdioLaunch | HttpEndpoint,
        limits: Limits | None = None,
        *,
        stderr_log: Path | None = None,
        mode: str = "auto",
    ) -> None:
        self.name = name
        self.endpoint = endpoint
        self.limits = limits or Limits()
        self.stderr_log = stderr_log
        self.mode = mode
        self.tools: list[ToolSpec] = []
        self.server_info: types.Implementation | None = None
        self.protocol_version: str | None = None
        self.instructions: str | None = None
        self.capabilities: types.ServerCapabilities | None = None
        self.starts = 0
        self.restarts = 0
        self._session: _Session | None = None
        self._generation = 0
        self._lock = asyncio.Lock()
        self._slots = asyncio.Semaphore(self.limits.concurrency)
        self._gave_up: ServerStartError | None = None
        self._log = log.bind(server=name)

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._session is not None and self._session.broken is None

    @property
    def pid(self) -> int | None:
        return self._session.process.pid if self._session and self._session.process else None

    def stderr_tail(self, max_bytes: int = 4096) -> str:
        process = self._session.process if self._session else None
        return process.stderr_tail(max_bytes) if process else ""

    async def start(self) -> None:
        """Start the server and list its tools (no-op when already running)."""
        await self._ensure_session()

    async def restart(self, *, graceful: bool = True) -> None:
        """Stop the running server, if any, and start a fresh one (``graceful``: as :meth:`close`)."""
        async with self._lock:
            if self._session is not None:
                if self._session.process is not None:
                    self._session.process.graceful = graceful
                await self._close_session(self._session)
                self.restarts += 1
            await self._start_with_retries()

    async def close(self, *, graceful: bool = True) -> None:
        """Stop the server. ``graceful``: close its stdin and let it exit on its own before
        SIGTERM (the MCP way); without, SIGTERM its process group at once — for a server whose
        state is thrown away next, where an orderly exit only costs CPU (a Python server's
        interpreter teardown takes ~0.2 s of CPU, a tenth of a second per server in a build)."""
        async with self._lock:
            if self._session is not None:
                if self._session.process is not None:
                    self._session.process.graceful = graceful
                await self._close_session(self._session)

    async def __aenter__(self) -> ServerConnection:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        with anyio.CancelScope(shield=True):
            await self.close()

    # -- calls -------------------------------------------------------------------------------

    async def list_tools(self, *, refresh: bool = False) -> list[ToolSpec]:
        session = await self._ensure_session()
        if refresh:
            self.tools = await self._fetch_tools(session)
        return self.tools

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None) -> CallOutcome:
        """Call a tool; every way the call can end is an outcome, never a hang."""
        arguments = dict(arguments or {})
        async with self._slots:
            session = await self._ensure_session()
            started_at, t0 = utcnow(), time.perf_counter()
            result, failure = await self._request(session, timeout, lambda: session.client.call_tool(tool, arguments))
            latency_ms = (time.perf_counter() - t0) * 1000
            if failure is not None:
                return self._failed(session, tool, arguments, failure, latency_ms, started_at)
            assert result is not None
            return outcome_from_result(
                server=self.name,
                tool=tool,
                arguments=arguments,
                result=result,
                latency_ms=latency_ms,
                started_at=started_at,
                max_output_bytes=self.limits.max_output_bytes,
            )

    async def call_raw(
        self, tool: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> RawReply:
        """Call a tool and hand back what the server answered, untouched (see :data:`RawReply`).

        The result is not checked against the tool's output schema, and ``arguments=None`` is sent
        as no arguments at all: a proxy forwards exactly what its client asked for.
        """
        request = types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments=arguments))
        return await self._raw(request, tool, arguments or {}, timeout)

    async def request_raw(self, method: str, params: dict[str, Any] | None = None) -> RawReply:
        """Send one of the requests a proxy forwards besides tools (:data:`FORWARDED_REQUESTS`) and
        hand back the server's answer untouched; ``params`` are sent as the client gave them."""
        kind = FORWARDED_REQUESTS.get(method)
        if kind is None:
            raise ValueError(f"{method!r} is not a request that is forwarded (one of {', '.join(FORWARDED_REQUESTS)})")
        request = kind.model_validate({"method": method, **({"params": params} if params is not None else {})})
        return await self._raw(request, method, params or {}, self.limits.list_timeout_s)

    async def list_tools_raw(self) -> list[dict[str, Any]] | types.ErrorData | CallOutcome:
        """Every page of ``tools/list``, each tool the JSON object the server sent; or what ended a page."""
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await self._raw(types.ListToolsRequest(params=params), "tools/list", {}, self.limits.list_timeout_s)
            if not isinstance(page, dict):
                return page
            tools.extend(page.get("tools") or [])
            cursor = page.get("nextCursor")
            if not cursor:
                break
        return tools

    async def _raw(
        self, request: types.ClientRequest, label: str, arguments: dict[str, Any], timeout: float | None
    ) -> RawReply:
        async with self._slots:
            session = await self._ensure_session()
            started_at, t0 = utcnow(), time.perf_counter()
            result, failure = await self._request(
                # the result as raw JSON: a TypeAdapter of a dict, where the SDK's annotation expects a model
                session, timeout, lambda: session.client.session.send_request(request, _RAW_RESULT)  # type: ignore[type-var]
            )
            if failure is None:
                assert result is not None
                return result
            if failure.error is not None:
                self._log.debug("request_error_answered", request=label, code=failure.code, message=failure.message[:200])
                return failure.error
            latency_ms = (time.perf_counter() - t0) * 1000
            return self._failed(session, label, arguments, failure, latency_ms, started_at)

    async def _request(
        self, session: _Session, timeout: float | None, send: Callable[[], Awaitable[_ResultT]]
    ) -> tuple[_ResultT | None, _Failure | None]:
        """Run one request under the call deadline: ``(result, None)`` or ``(None, failure)``."""
        timeout = timeout if timeout is not None else self.limits.call_timeout_s
        if session.process is not None:
            session.process.working()
        scope = anyio.CancelScope(deadline=anyio.current_time() + timeout)
        session.inflight.add(scope)
        failure: _Failure | None = None
        result: _ResultT | None = None
        try:
            with scope:
                result = await send()
        except MCPError as exc:
            failure = self._classify_mcp_error(session, exc)
        except (RuntimeError, ValueError) as exc:
            # output-schema violations (RuntimeError) and invalid results (pydantic ValidationError)
            failure = _Failure(OutcomeClass.PROTOCOL_ERROR, f"invalid result: {exc}")
        finally:
            session.inflight.discard(scope)
        if result is None and failure is None:  # cancelled: deadline or a transport fault
            failure = self._classify_interruption(session, timeout)
        return result, failure

    def _failed(
        self,
        session: _Session,
        tool: str,
        arguments: dict[str, Any],
        failure: _Failure,
        latency_ms: float,
        started_at: datetime,
    ) -> CallOutcome:
        outcome, message, code, _error = failure
        broken = outcome in (OutcomeClass.TIMEOUT, OutcomeClass.CRASH) or session.broken is not None
        if broken:
            self._break(session, f"{outcome.value} in {tool}")
        self._log.info("call_failed", tool=tool, outcome=outcome.value, message=message[:200])
        return CallOutcome(
            server=self.name,
            tool=tool,
            arguments=arguments,
            outcome=outcome,
            excerpt=message[: self.limits.max_output_bytes],
            output_bytes=len(message.encode()),
            error_code=code,
            latency_ms=latency_ms,
            started_at=started_at,
            stderr_tail=self.stderr_tail(2048) if broken else "",
        )

    def _classify_mcp_error(self, session: _Session, exc: MCPError) -> _Failure:
        if exc.code == types.CONNECTION_CLOSED:
            fault = self._first_fault(session)
            if fault is not None and fault.kind != "exited":
                return _Failure(OutcomeClass.PROTOCOL_ERROR, fault.detail)
            return _Failure(OutcomeClass.CRASH, fault.detail if fault else "the connection to the server closed")
        if exc.code == types.REQUEST_TIMEOUT:
            return _Failure(OutcomeClass.TIMEOUT, str(exc), exc.code)
        return _Failure(OutcomeClass.PROTOCOL_ERROR, exc.error.message or str(exc), exc.code, exc.error)

    def _classify_interruption(self, session: _Session, timeout: float) -> _Failure:
        fault = self._first_fault(session)
        if fault is None:
            return _Failure(OutcomeClass.TIMEOUT, f"no answer within {timeout:g}s")
        if fault.kind == "exited":
            return _Failure(OutcomeClass.CRASH, fault.detail)
        return _Failure(OutcomeClass.PROTOCOL_ERROR, fault.detail)

    @staticmethod
    def _first_fault(session: _Session) -> TransportFault | None:
        exited = [f for f in session.faults if f.kind == "exited"]
        others = [f for f in session.faults if f.kind != "exited"]
        return (others or exited)[0] if others or exited else None

    # -- session management ------------------------------------------------------------------

    async def _ensure_session(self) -> _Session:
        session = self._session
        if session is not None and session.broken is None:
            return session
        async with self._lock:
            session = self._session
            if session is not None and session.broken is None:
                return session
            if session is not None:
                self._log.info("server_restarting", reason=session.broken, generation=session.generation)
                await self._close_session(session)
                self.restarts += 1
            return await self._start_with_retries()

    async def _start_with_retries(self) -> _Session:
        if self._gave_up is not None:
            raise self._gave_up
        last: ServerStartError | None = None
        for attempt in range(self.limits.max_restarts + 1):
            if attempt:
                await asyncio.sleep(RESTART_BACKOFF_S[min(attempt - 1, len(RESTART_BACKOFF_S) - 1)])
            try:
                return await self._start_once()
            except ServerStartError as exc:
                last = exc
                self._log.warning("server_start_failed", attempt=attempt + 1, reason=exc.reason)
        assert last is not None
        self._gave_up = last
        raise last

    async def _start_once(self) -> _Session:
        self._generation += 1
        generation = self._generation
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Client] = loop.create_future()
        stop = asyncio.Event()
        process: StdioServerProcess | None = None
        holder: dict[str, _Session] = {}

        def on_fault(fault: TransportFault) -> None:
            session = holder.get("session")
            if session is not None:
                self._on_fault(session, fault)

        if isinstance(self.endpoint, StdioLaunch):
            process = StdioServerProcess(
                self.endpoint,
                max_message_bytes=self.limits.max_message_bytes,
                on_fault=on_fault,
                stderr_log=self.stderr_log,
            )
            transport: Any = process.connect()
        else:
            http = httpx2.AsyncClient(headers=self.endpoint.headers or None, timeout=HTTP_TIMEOUT)
            transport = streamable_http_client(self.endpoint.url, http_client=http)
        task = loop.create_task(self._host(transport, ready, stop), name=f"mcp-session-{self.name}-{generation}")
        t0 = time.perf_counter()
        try:
            with anyio.fail_after(self.limits.start_timeout_s):
                client = await asyncio.shield(ready)
        except TimeoutError:
            await self._abandon(task, stop, process)
            raise ServerStartError(
                self.name, f"no MCP handshake within {self.limits.start_timeout_s:g}s", process.stderr_tail() if process else ""
            ) from None
        except BaseException as exc:
            await self._abandon(task, stop, process)
            if isinstance(exc, asyncio.CancelledError):
                raise
            reason = _describe(exc)
            raise ServerStartError(self.name, reason, process.stderr_tail() if process else "") from exc
        session = _Session(generation=generation, client=client, task=task, stop=stop, process=process)
        holder["session"] = session
        if process is not None and process.returncode is not None:
            session.broken = "exited right after the handshake"
        self._session = session
        self.server_info = client.server_info
        self.protocol_version = client.protocol_version
        self.instructions = client.instructions
        self.capabilities = client.server_capabilities
        try:
            self.tools = await self._fetch_tools(session)
        except (MCPError, TimeoutError, RuntimeError, ValueError) as exc:
            await self._close_session(session)
            raise ServerStartError(self.name, f"tools/list failed: {_describe(exc)}", self.stderr_tail()) from exc
        self.starts += 1
        self._log.info(
            "server_started",
            generation=generation,
            pid=process.pid if process else None,
            confinement=self.endpoint.confinement if isinstance(self.endpoint, StdioLaunch) else "http",
            tools=len(self.tools),
            startup_ms=round((time.perf_counter() - t0) * 1000, 1),
        )
        return session

    async def _host(self, transport: Any, ready: asyncio.Future[Client], stop: asyncio.Event) -> None:
        """Own the client's context for the session's life: anyio scopes must exit in the task that entered them."""
        try:
            async with Client(transport, mode=self.mode, cache=None, client_info=CLIENT_INFO) as client:  # type: ignore[arg-type]
                if not ready.done():
                    ready.set_result(client)
                await stop.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:  # noqa: BLE001 - handed to the starter, or logged
            if not ready.done():
                ready.set_exception(exc)
            else:
                self._log.debug("session_ended_with_error", error=_describe(exc))

    async def _fetch_tools(self, session: _Session) -> list[ToolSpec]:
        tools: list[ToolSpec] = []
        cursor: str | None = None
        with anyio.fail_after(self.limits.list_timeout_s):
            for _ in range(MAX_TOOL_PAGES):
                page = await session.client.list_tools(cursor=cursor, cache_mode="refresh")
                tools.extend(tool_spec_from_mcp(self.name, tool) for tool in page.tools)
                _share_output_validators(session.client.session, page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
        return tools

    def _on_fault(self, session: _Session, fault: TransportFault) -> None:
        session.faults.append(fault)
        if fault.kind == "exited" or session.inflight:
            # A fault while calls are in flight poisons them all: which call caused it is unknowable.
            self._break(session, f"{fault.kind}: {fault.detail}")
        else:
            self._log.warning("server_protocol_noise", kind=fault.kind, detail=fault.detail)

    def _break(self, session: _Session, reason: str) -> None:
        if session.broken is None:
            session.broken = reason
        for scope in list(session.inflight):
            scope.cancel()
        if session.process is not None:
            session.process.kill()

    async def _close_session(self, session: _Session) -> None:
        session.stop.set()
        done, _ = await asyncio.wait({session.task}, timeout=SHUTDOWN_TIMEOUT)
        if not done:
            if session.process is not None:
                session.process.kill()
            session.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(session.task, SHUTDOWN_TIMEOUT)
        if self._session is session:
            self._session = None

    async def _abandon(self, task: asyncio.Task[None], stop: asyncio.Event, process: StdioServerProcess | None) -> None:
        if process is not None:
            process.kill()
        stop.set()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(task, SHUTDOWN_TIMEOUT)


def _share_output_validators(client_session: Any, tools: list[types.Tool]) -> None:
    """Give a session the process's compiled validator of each listed output schema.

    The SDK (mcp 2.x) compiles a validator per session and tool on the tool's first structured
    result, checking the schema against its metaschema first (~1 ms). A process that holds many
    sessions of similar servers (an executor host runs ~50, and a restarted server opens a new
    session) compiles each distinct schema once instead. This fills the SDK's own cache
    (``ClientSession._tool_output_validators``, which it keeps in step with the tools' listed
    schemas); on an SDK without it nothing changes, and a schema that does not compile is left
    to the SDK, which reports it on every call as before.
    """
    cache = getattr(client_session, "_tool_output_validators", None)
    if not isinstance(cache, dict):
        return
    from jsonschema import SchemaError
    from jsonschema.validators import validator_for
    from referencing import Registry

    for tool in tools:
        schema = tool.output_schema
        if schema is None or tool.name in cache:
            continue
        key = canonical_json(schema)
        validator = _SHARED_VALIDATORS.get(key)
        if validator is None:
            kind = validator_for(schema)
            try:
                kind.check_schema(schema)
            except SchemaError:
                continue
            validator = kind(schema, registry=Registry())  # $refs resolve within the schema, as the SDK does
            if len(_SHARED_VALIDATORS) >= _SHARED_VALIDATORS_MAX:
                _SHARED_VALIDATORS.clear()
            _SHARED_VALIDATORS[key] = validator
        cache[tool.name] = validator


def _describe(exc: BaseException) -> str:
    """One line for an exception, looking inside exception groups for the first real cause."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return f"{exc.error.message} (code {exc.code})"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if str(exc) else text
