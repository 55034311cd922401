"""The HTTP JSON API of the guidance service, with the MCP streamable-HTTP endpoint on the same port.

=======  ==================================  ==================================================
method   path                                answer
=======  ==================================  ==================================================
POST     ``/v1/guidance``                    :class:`Guidance` JSON (or text, ``format=text``)
GET      ``/v1/servers``                     :class:`ServerList`
GET      ``/v1/tools/{server}/{tool}``       :class:`ToolGuidance`
GET      ``/v1/traces?task=…&k=3&server=…``  :class:`TraceList` (search)
GET      ``/v1/traces/{id}``                 :class:`TraceExemplar`
GET      ``/v1/traces/{id}/similar``         :class:`TraceList` (expand)
GET      ``/v1/traces/{id}/strategies``      :class:`StrategyList`
GET      ``/v1/health``                      :class:`Health` (never needs the token)
GET      ``/metrics``                        Prometheus text exposition (:mod:`toolatlas.serve.metrics`)
POST     ``/v1/outcomes``                    an agent's report of a call (a write token, see below)
POST     ``/mcp``                            MCP streamable HTTP (stateless, JSON responses;
                                             with sessions: also GET and DELETE, SSE streams)
=======  ==================================  ==================================================

``/v1/outcomes`` exists when the service takes reports (:class:`~toolatlas.trust.outcomes.WriteBack`):
it needs ``Authorization: Bearer <write token>`` — a token of its own, not the read token — and
answers 202 with the queued report's id, 401 for another token, 429 past the token's rate. A report
is a candidate only: nothing is served before a sandbox replay admits it.

Errors are ``{"error": message, "detail": [{"loc": field, "msg": problem}, ...]}`` with 400 (body
is not JSON), 401 (missing or wrong bearer token), 404 (unknown trace, server or tool, or path),
405, 413 (body too large) or 422 (a field is invalid; ``detail`` names it).

Request lines (method, path, status, milliseconds) are logged at debug level by a middleware that
is only installed when debug logging is on, so the hot path pays nothing for them otherwise.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import structlog
from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolatlas.serve.mcp_server import create_mcp_server
from toolatlas.serve.metrics import Metrics, MetricsMiddleware
from toolatlas.serve.models import GuidanceRequest, StrategyList, TraceList
from toolatlas.serve.reader import AtlasReader, InvalidRequest, UnknownRecord
from toolatlas.trust.outcomes import OutcomeReport, WriteBack, WriteRefused

__all__ = ["MAX_BODY_BYTES", "BearerToken", "RequestLog", "create_app"]

log = structlog.get_logger(__name__)

MAX_BODY_BYTES = 64 * 1024
"""Largest request body accepted on ``/v1`` (a task and a few options)."""
OPEN_PATHS = frozenset({"/v1/health"})
"""Paths answered without the bearer token (load balancers probe them)."""
WRITE_PATHS = frozenset({"/v1/outcomes"})
"""Paths that check a write token of their own instead of the read token."""
JSON = "application/json"
T = TypeVar("T", bound=BaseModel)


def _json(payload: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    body = payload.model_dump_json() if hasattr(payload, "model_dump_json") else json.dumps(payload)
    return Response(body, status_code=status, media_type=JSON, headers=headers)


def _error(status: int, message: str, detail: list | None = None, headers: Mapping[str, str] | None = None) -> Response:
    return _json({"error": message, "detail": detail or []}, status, headers)


def _validation_detail(exc: ValidationError) -> list[dict]:
    return [{"loc": ".".join(map(str, e["loc"])), "msg": e["msg"]} for e in exc.errors(include_url=False)]


class BearerToken:
    """ASGI middleware: every HTTP request but :data:`OPEN_PATHS` needs ``Authorization: Bearer <token>``.

    The header is compared in constant time, so the answer's timing says nothing about the token.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in OPEN_PATHS | WRITE_PATHS:
            given = next((value for key, value in scope["headers"] if key == b"authorization"), b"")
            scheme, _, credentials = given.strip().partition(b" ")
            # the scheme is case-insensitive (RFC 9110 §11.1); the token is compared in constant time
            if scheme.lower() != b"bearer" or not hmac.compare_digest(credentials.strip(), self.expected):
                response = _error(401, "missing or wrong bearer token (send Authorization: Bearer <token>)",
                                  headers={"WWW-Authenticate": 'Bearer realm="toolatlas"'})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class RequestLog:
    """ASGI middleware: one structured debug line per HTTP request (method, path, status, ms)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), 500

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            log.debug("http_request", method=scope["method"], path=scope["path"], status=status,
                      ms=round((time.perf_counter() - started) * 1000, 3))


async def _body(request: Request) -> bytes | Response:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return _error(413, f"request body larger than {MAX_BODY_BYTES} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return _error(413, f"request body larger than {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _parsed(request: Request, model: type[T], what: str) -> T | Response:
    """The request body as ``model``, or the error answer: 413 too large, 400 not JSON, 422 invalid."""
    body = await _body(request)
    if isinstance(body, Response):
        return body
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "json_invalid":
            return _error(400, "request body is not valid JSON", _validation_detail(exc))
        return _error(422, f"invalid {what}", _validation_detail(exc))


def _bearer(request: Request) -> str:
    scheme, _, credentials = request.headers.get("authorization", "").strip().partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


def _outcome_route(writeback: WriteBack, metrics: Metrics) -> Route:
    async def outcomes(request: Request) -> Response:
        report = await _parsed(request, OutcomeReport, "outcome report")
        if isinstance(report, Response):
            return report
        try:
            queued = await asyncio.to_thread(writeback.submit, report, _bearer(request))
        except WriteRefused as exc:
            metrics.report(f"refused_{exc.status}")
            headers = {"WWW-Authenticate": 'Bearer realm="toolatlas-write"'} if exc.status == 401 else None
            return _error(exc.status, str(exc), headers=headers)
        metrics.report("queued")
        return _json({"queued": queued.id, "admitted": False}, 202)

    return Route("/v1/outcomes", outcomes, methods=["POST"])


def _routes(reader: AtlasReader) -> list[Route]:
    """The ``/v1`` routes: each answers from ``reader``; its errors become 404/422 in :func:`create_app`."""

    async def guidance(request: Request) -> Response:
        ask = await _parsed(request, GuidanceRequest, "guidance request")
        if isinstance(ask, Response):
            return ask
        answer = await reader.guide_async(ask)
        if ask.format == "text":
            return Response(answer.to_text(), media_type="text/plain; charset=utf-8")
        return _json(answer)

    async def servers(request: Request) -> Response:
        return _json(reader.server_list)

    async def health(request: Request) -> Response:
        return _json(reader.health)

    async def tool(request: Request) -> Response:
        return _json(reader.read_tool(request.path_params["server"], request.path_params["tool"]))

    async def search(request: Request) -> Response:
        query = request.query_params
        k = query.get("k", "3")
        if not k.isdigit():
            return _error(422, "invalid search", [{"loc": "k", "msg": f"must be an integer, not {k!r}"}])
        if not query.get("task", "").strip():
            return _error(422, "invalid search", [{"loc": "task", "msg": "query parameter 'task' is required"}])
        found = reader.search_traces(query["task"], int(k), query.getlist("server") or None)
        return _json(TraceList(traces=found))

    async def trace(request: Request) -> Response:
        return _json(reader.read_trace(request.path_params["trace_id"]))

    async def similar(request: Request) -> Response:
        return _json(TraceList(traces=reader.expand(request.path_params["trace_id"])))

    async def strategies(request: Request) -> Response:
        return _json(StrategyList(strategies=reader.read_strategy(request.path_params["trace_id"])))

    return [
        Route("/v1/guidance", guidance, methods=["POST"]),
        Route("/v1/servers", servers, methods=["GET"]),
        Route("/v1/health", health, methods=["GET"]),
        Route("/v1/tools/{server}/{tool}", tool, methods=["GET"]),
        Route("/v1/traces", search, methods=["GET"]),
        Route("/v1/traces/{trace_id}", trace, methods=["GET"]),
        Route("/v1/traces/{trace_id}/similar", similar, methods=["GET"]),
        Route("/v1/traces/{trace_id}/strategies", strategies, methods=["GET"]),
    ]


async def _unknown_record(request: Request, exc: Exception) -> Response:
    return _error(404, str(exc))


async def _invalid_request(request: Request, exc: Exception) -> Response:
    return _error(422, str(exc))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)  # registered for HTTPException only
    return _error(exc.status_code, str(exc.detail), headers=exc.headers)


def create_app(
    reader: AtlasReader,
    *,
    token: str | None = None,
    mcp: bool = True,
    host: str = "127.0.0.1",
    writeback: WriteBack | None = None,
    mcp_sessions: bool = False,
) -> ASGIApp:
    """The HTTP API over ``reader``; with ``mcp``, the MCP streamable-HTTP endpoint at ``/mcp`` too;
    with ``writeback``, ``/v1/outcomes`` and the ``report_outcome`` tool.

    ``/mcp`` is stateless with JSON answers unless ``mcp_sessions``: then each client gets a session
    (``mcp-session-id``) and answers come as server-sent event streams, as clients that open several
    streams of one session expect — one serving process only, since a session lives in its process.

    ``host`` is where the service listens: on a loopback address the MCP endpoint only accepts
    loopback ``Host`` headers (the SDK's DNS-rebinding protection).
    """
    metrics = Metrics()
    metrics.records = dict(reader.atlas.view.status_counts)

    async def exposition(request: Request) -> Response:
        metrics.cache = (reader.atlas.cache_hits, reader.atlas.cache_misses)
        return Response(metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    routes: list[BaseRoute] = [*_routes(reader), Route("/metrics", exposition, methods=["GET"])]
    if writeback is not None:
        routes.append(_outcome_route(writeback, metrics))
    mcp_server = None
    if mcp:
        mcp_server = create_mcp_server(reader, writeback=writeback)
        # Stateless with JSON answers by default: any worker or replica can answer any request, and a
        # read-only service never needs to push messages to a client.
        mcp_app = mcp_server.streamable_http_app(
            streamable_http_path="/mcp", stateless_http=not mcp_sessions, json_response=not mcp_sessions, host=host
        )
        routes.extend(mcp_app.routes)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        log.info("guidance_service_started", atlas=reader.name, mcp=mcp, mcp_sessions=mcp_sessions,
                 auth=token is not None, pid=reader.health.pid)
        if mcp_server is None:
            yield
            return
        async with mcp_server.session_manager.run():
            yield

    app: ASGIApp = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            UnknownRecord: _unknown_record, InvalidRequest: _invalid_request, HTTPException: _http_error,
        },
    )
    if token:
        app = BearerToken(app, token)
    app = MetricsMiddleware(app, metrics)
    if log.is_enabled_for(logging.DEBUG):
        app = RequestLog(app)
    return app
