"""``AtlasProxy``: an MCP server in front of one MCP server, adding what the atlas knows about it.

Every ``tools/call`` is forwarded with its name and arguments as given, and the server's answer
comes back as the server sent it — ``content``, ``structuredContent``, ``isError``, ``_meta`` —
or, when the server answered with a JSON-RPC error, as that same error. Only two things differ
from the server: each tool's ``description`` ends with its ``Atlas:`` block, and one more tool
(``atlas_guidance``) gives task-conditioned guidance. A server the atlas does not know is passed
through without either.

Resources, resource templates, prompts and argument completion are forwarded the same way when
the server declares the capability: the requests as the client sent them (cursors included), the
answers as the server sent them. A server without resources or prompts has none to list: the proxy
answers their lists empty and a read or get with an invalid-params error saying so (argument
completion stays undeclared). Subscriptions are not forwarded.

=================================  ===============================================================
the server                          the proxy's client gets
=================================  ===============================================================
answers (ok or ``isError``)         the result, unchanged
answers with a JSON-RPC error       the same error (code, message, data)
crashes / garbles the wire          JSON-RPC error ``-32603`` naming it; restarted on the next call
does not answer in time             JSON-RPC error ``-32603``; killed, restarted on the next call
cannot be restarted                 JSON-RPC error ``-32603`` with the start failure
=================================  ===============================================================

The error's ``data`` says which (``outcome``: ``crash``, ``timeout``, ``protocol_error``) with the
tail of the server's stderr. A timeout is not sent as ``-32001``: SDK clients use that code for
their own request timeouts and would take the proxy for the server that hung.

Two paths, one behaviour. For handshake-era clients (every protocol version up to 2025-11-25) a
server middleware answers ``tools/call`` and ``tools/list`` itself, so the JSON objects the
server sent are written back without being validated into models and dumped again: the result
bytes are the server's. Clients of the 2026-07-28 protocol go through the SDK's handlers, where
the same objects become typed results wearing that protocol's envelope (``resultType``, cache
hints, ``serverInfo``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import mcp_types as types
import structlog
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from toolatlas.client import ServerConnection
from toolatlas.client.connection import FORWARDED_REQUESTS
from toolatlas.errors import ServerStartError
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.proxy.notes import GuidanceTool, ToolNotes

__all__ = ["AtlasProxy", "forwarded_requests"]

log = structlog.get_logger(__name__)

STDERR_TAIL = 2048
"""Characters of the server's stderr sent with an error about it."""
ATLAS_INSTRUCTIONS = (
    "Proxied by ToolAtlas: each tool description ends with notes verified by executing the tool "
    "(uses that work, the exact errors where it fails, compositions). Before a task, call {tool} "
    "with the task in plain words for guidance on which tools to use and how."
)


class AtlasProxy:
    """The proxy's MCP server (:attr:`server`, an SDK low-level ``Server``) over one upstream connection."""

    def __init__(self, upstream: ServerConnection, notes: ToolNotes | None, guidance: GuidanceTool | None) -> None:
        """``notes`` and ``guidance`` are None for a server the atlas does not know (a plain pass-through)."""
        self.upstream = upstream
        self.notes = notes
        self.guidance = guidance
        self.forwarded = forwarded_requests(upstream.capabilities)
        info = upstream.server_info
        instructions = ATLAS_INSTRUCTIONS.format(tool=guidance.name) if guidance else None
        self.answered = self.forwarded | _ANSWERED_ANYWAY
        self.server: Server[Any] = Server(
            info.name if info else upstream.name,
            version=info.version if info else "",
            title=info.title if info else None,
            instructions="\n\n".join(filter(None, [upstream.instructions, instructions])) or None,
            on_list_tools=self._on_list_tools,
            on_call_tool=self._on_call_tool,
            on_list_resources=self._forwarding_handler("resources/list", types.ListResourcesResult),
            on_list_resource_templates=self._forwarding_handler("resources/templates/list",
                                                                types.ListResourceTemplatesResult),
            on_read_resource=self._forwarding_handler("resources/read", types.ReadResourceResult),
            on_list_prompts=self._forwarding_handler("prompts/list", types.ListPromptsResult),
            on_get_prompt=self._forwarding_handler("prompts/get", types.GetPromptResult),
            on_completion=self._forwarding_handler("completion/complete", types.CompleteResult),
        )
        self.server.middleware.append(self._pass_through)
        self._log = log.bind(server=upstream.name)

    # -- the behaviour -------------------------------------------------------------------------

    async def list_tools(self) -> dict[str, Any]:
        """Every tool of the server (all its pages) with its atlas notes, and the guidance tool."""
        with _start_failures():
            tools = await self.upstream.list_tools_raw()
        if not isinstance(tools, list):
            raise self._error("tools/list", tools)
        if self.notes is None or self.guidance is None:
            return {"tools": tools}
        return {"tools": [*map(self.notes.annotate, tools), self.guidance.definition()]}

    async def call_tool(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """The server's result for the call, as it sent it (the guidance tool is answered here)."""
        if self.guidance is not None and name == self.guidance.name:
            return await self.guidance.call(arguments)
        with _start_failures():
            reply = await self.upstream.call_raw(name, arguments)
        if isinstance(reply, dict):
            return reply
        raise self._error(f"tools/call {name!r}", reply)

    async def forward(self, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """The server's answer to a resources, prompts or completion request, as it sent it (a
        resources or prompts request to a server without them: no items, or an error saying so)."""
        if method not in self.forwarded:
            if method in _NONE_LISTED:
                return {_NONE_LISTED[method]: []}
            what = method.split("/")[0]
            raise MCPError(types.INVALID_PARAMS, f"server {self.upstream.name!r} has no {what}")
        with _start_failures():
            reply = await self.upstream.request_raw(method, dict(params) if params is not None else None)
        if isinstance(reply, dict):
            return reply
        raise self._error(method, reply)

    def _error(self, request: str, reply: types.ErrorData | CallOutcome) -> MCPError:
        if isinstance(reply, types.ErrorData):
            return MCPError.from_error_data(reply)
        outcome = reply.outcome.value
        self._log.warning("upstream_failed", request=request, outcome=outcome, detail=reply.excerpt[:200])
        what = {
            OutcomeClass.TIMEOUT: "did not answer in time",
            OutcomeClass.CRASH: "crashed",
        }.get(reply.outcome, "broke the protocol")
        message = (f"upstream server {self.upstream.name!r} {what} during {request}: {reply.excerpt[:500]} "
                   "(it is restarted on the next call)")
        data = {"server": self.upstream.name, "outcome": outcome, "stderr_tail": reply.stderr_tail[-STDERR_TAIL:]}
        return MCPError(types.INTERNAL_ERROR, message, data)

    # -- the SDK's handlers: clients of the 2026-07-28 protocol ---------------------------------

    async def _on_list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        _no_cursor(params.cursor if params else None)
        return types.ListToolsResult.model_validate(await self.list_tools(), by_name=False)

    async def _on_call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        result = await self.call_tool(params.name, params.arguments)
        return types.CallToolResult.model_validate(result, by_name=False)

    def _forwarding_handler(self, method: str, result: type[BaseModel]) -> Callable[..., Awaitable[Any]] | None:
        """The SDK handler of a forwarded request (None when the proxy does not answer it)."""
        if method not in self.answered:
            return None

        async def handle(ctx: ServerRequestContext[Any], params: BaseModel | None) -> Any:
            # the request's _meta carries the 2026 envelope, which the handshake-era session does not take
            sent = (params.model_dump(by_alias=True, exclude_none=True, exclude={"meta"}, mode="json")
                    if params is not None else None)
            return result.model_validate(await self.forward(method, sent), by_name=False)

        return handle

    # -- the pass-through: handshake-era clients get the server's JSON as it came ----------------

    async def _pass_through(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS or ctx.session.client_params is None:
            return await call_next(ctx)  # the 2026 envelope, or the SDK's own pre-initialize answer
        params = ctx.params
        if ctx.method == "tools/call" and isinstance(params, Mapping):
            name, arguments = params.get("name"), params.get("arguments")
            if isinstance(name, str) and (arguments is None or isinstance(arguments, dict)):
                return await self.call_tool(name, arguments)
        elif ctx.method == "tools/list" and (params is None or isinstance(params, Mapping)):
            _no_cursor((params or {}).get("cursor"))
            return await self.list_tools()
        elif ctx.method in self.answered and (params is None or isinstance(params, Mapping)):
            return await self.forward(ctx.method, params)
        return await call_next(ctx)  # malformed params: the SDK's validation answers




_NONE_LISTED = {"resources/list": "resources", "resources/templates/list": "resourceTemplates", "prompts/list": "prompts"}
"""The list requests answered without items when the server does not declare the capability."""
_ANSWERED_ANYWAY = frozenset({*_NONE_LISTED, "resources/read", "prompts/get"})


def forwarded_requests(capabilities: types.ServerCapabilities | None) -> frozenset[str]:
    """The requests besides tools the proxy forwards: those of the capabilities the server declared."""
    if capabilities is None:
        return frozenset()
    declared = {"resources": capabilities.resources, "prompts": capabilities.prompts,
                "completion": capabilities.completions}
    return frozenset(method for method in FORWARDED_REQUESTS if declared[method.split("/")[0]] is not None)


@contextmanager
def _start_failures() -> Iterator[None]:
    """A server that cannot be (re)started is an MCP error for the client, not the proxy's end."""
    try:
        yield
    except ServerStartError as exc:
        message = f"upstream server {exc.server!r} cannot be started: {exc.reason}"
        data = {"server": exc.server, "outcome": "start_failed", "stderr_tail": exc.stderr_tail[-STDERR_TAIL:]}
        raise MCPError(types.INTERNAL_ERROR, message, data) from None


def _no_cursor(cursor: object) -> None:
    """The proxy lists every tool in one page (it follows the server's pages itself)."""
    if cursor is not None:
        message = f"unknown cursor {cursor!r}: the proxy lists every tool in one page"
        raise MCPError(types.INVALID_PARAMS, message)
