"""The atlas as an MCP server: ``get_guidance`` plus the traversal operations, all read-only (and, when
the service takes agents' reports, ``report_outcome``, which only queues them for a replay).

:func:`create_mcp_server` builds an ``MCPServer`` over an :class:`AtlasReader`; run it over stdio
(``server.run("stdio")``) or mount its streamable-HTTP endpoint in the HTTP app
(:mod:`toolatlas.serve.http_api`). Unknown ids and names come back as tool errors (``isError``)
whose text says where valid ones come from, so an agent can correct itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from toolatlas import __version__
from toolatlas.guidance import Guidance, ToolGuidance, TraceExemplar
from toolatlas.serve.models import (
    DEFAULT_BUDGET,
    DEFAULT_K_R,
    DEFAULT_MAX_TOKENS,
    SEARCH_K_MAX,
    GuidanceFormat,
    GuidanceRequest,
    GuidanceTokens,
    ReadBudget,
    SeedTraces,
    ServerList,
    ServerNames,
    StrategyList,
    TaskText,
    TraceList,
)
from toolatlas.serve.reader import AtlasReader, ServeError
from toolatlas.trust.outcomes import OutcomeReport, WriteBack, WriteRefused

__all__ = ["create_mcp_server"]

INSTRUCTIONS = """\
A tool atlas of the MCP servers {servers}: what their tools were verified to do, where they fail
(with the exact error each server returns), how they combine, and strategies and example traces
from executed tasks. Before working on a task with those servers, call get_guidance with the task
in plain words. To navigate yourself: search_traces, then read_trace / expand / read_strategy, and
read_tool for one tool. list_servers gives the valid server and tool names. Everything is read-only."""

READ_ONLY = dict(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

TraceId = Annotated[
    str, Field(min_length=1, description="A trace id from search_traces, expand, or get_guidance's exemplars or trail.")
]


def create_mcp_server(reader: AtlasReader, *, writeback: WriteBack | None = None) -> MCPServer:
    """An MCP server exposing one atlas: guidance and the traversal operations as read-only tools, and
    with ``writeback`` a ``report_outcome`` tool that queues an agent's report for a sandbox replay."""
    server = MCPServer(
        f"toolatlas-{reader.name}",
        title=f"ToolAtlas: {reader.name}",
        version=__version__,
        instructions=INSTRUCTIONS.format(servers=", ".join(s.name for s in reader.server_list.servers)),
        log_level="WARNING",
    )

    def tool(title: str, description: str):
        return server.tool(description=description, annotations=ToolAnnotations(title=title, **READ_ONLY))

    @tool(
        "Guidance for a task",
        "Task-conditioned guidance, verified by executing the tools in sandboxes. Call this before you "
        "start a task with the servers of this atlas. Returns, for each relevant tool: when to use it "
        "(with example arguments that worked), when not to (the failing condition and the exact error "
        "the server gives), and useful compositions with other tools; applicable multi-step strategies; "
        "and one or two exemplar traces. Every item carries the id of its atlas entry and the probes "
        "that verified it. The structured result is always the full JSON; format='text' puts a compact, "
        "prompt-ready rendering in the text content instead of the JSON.",
    )
    async def get_guidance(
        task: TaskText,
        servers: ServerNames = None,
        budget: ReadBudget = DEFAULT_BUDGET,
        k_r: SeedTraces = DEFAULT_K_R,
        max_tokens: GuidanceTokens = DEFAULT_MAX_TOKENS,
        format: GuidanceFormat = "json",
    ) -> Annotated[CallToolResult, Guidance]:
        with _tool_errors():
            request = GuidanceRequest(task=task, servers=servers, budget=budget, k_r=k_r, max_tokens=max_tokens,
                                      format=format)
            guidance = await reader.guide_async(request)
        text = guidance.to_text() if format == "text" else guidance.model_dump_json()
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=guidance.model_dump(mode="json"))

    @tool(
        "Search traces",
        "Find executed task traces similar to a task, nearest first. Each trace has the task, the ordered "
        "(tool, rationale) steps, tips, and how often it resolved. Use it to navigate the atlas yourself: "
        "follow up with read_trace, expand (similar traces) and read_strategy.",
    )
    async def search_traces(
        task: TaskText,
        k: Annotated[int, Field(ge=1, le=SEARCH_K_MAX, description="How many traces to return.")] = 3,
        servers: ServerNames = None,
    ) -> TraceList:
        with _tool_errors():
            return TraceList(traces=reader.search_traces(task, k, servers))

    @tool("Read a trace", "One executed trace by id: its task, ordered (tool, rationale) steps, tips and outcomes.")
    async def read_trace(trace_id: TraceId) -> TraceExemplar:
        with _tool_errors():
            return reader.read_trace(trace_id)

    @tool("Expand a trace", "The traces most similar to a given trace (its atlas neighbours), to widen a search.")
    async def expand(trace_id: TraceId) -> TraceList:
        with _tool_errors():
            return TraceList(traces=reader.expand(trace_id))

    @tool(
        "Read a tool",
        "Everything verified about one tool of one server: its purpose, verified uses with example "
        "arguments, failure boundaries with the server's exact error text, and compositions with peer tools.",
    )
    async def read_tool(
        server: Annotated[str, Field(min_length=1, description="Server name, from list_servers.")],
        tool: Annotated[str, Field(min_length=1, description="Tool name of that server, from list_servers.")],
    ) -> ToolGuidance:
        with _tool_errors():
            return reader.read_tool(server, tool)

    @tool(
        "Read strategies of a trace",
        "The strategies (ordered steps and pitfalls) induced from a trace and the traces like it.",
    )
    async def read_strategy(trace_id: TraceId) -> StrategyList:
        with _tool_errors():
            return StrategyList(strategies=reader.read_strategy(trace_id))

    @tool("List servers", "The servers and tools this atlas covers, with how many traces and strategies each has.")
    async def list_servers() -> ServerList:
        return reader.server_list

    if writeback is not None:
        _report_tool(server, writeback)
    return server


def _report_tool(server: MCPServer, writeback: WriteBack) -> None:
    @server.tool(
        description="Report a call you made to one of this atlas's servers and how it ended. The report is "
        "replayed in a sandbox later and enters the atlas only if the replay ends the same way. Needs the "
        "write token you were given. Write paths relative to the server's placeholders (${root}/notes.md).",
        annotations=ToolAnnotations(title="Report an outcome", read_only_hint=False, destructive_hint=False,
                                    idempotent_hint=False, open_world_hint=False),
    )
    async def report_outcome(
        server_name: Annotated[str, Field(description="The server, as list_servers names it.")],
        tool: Annotated[str, Field(description="The tool you called.")],
        outcome: Annotated[Literal["ok", "error"], Field(description="ok: it did what you asked; error: it failed.")],
        write_token: Annotated[str, Field(description="Your write token.")],
        arguments: Annotated[dict[str, Any] | None, Field(description="The arguments you called it with.")] = None,
        message: Annotated[str, Field(description="What it answered (an error's text).")] = "",
    ) -> dict[str, Any]:
        try:
            report = OutcomeReport(server=server_name, tool=tool, arguments=arguments or {}, outcome=outcome,
                                   message=message[:2000])
            queued = await asyncio.to_thread(writeback.submit, report, write_token)
        except WriteRefused as exc:
            raise ToolError(str(exc)) from exc
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors())
            raise ToolError(f"invalid arguments: {problems}") from exc
        return {"queued": queued.id, "admitted": False}


@contextmanager
def _tool_errors() -> Iterator[None]:
    """The service's expected failures (unknown ids, invalid input) as tool errors the agent can read."""
    try:
        yield
    except ServeError as exc:
        raise ToolError(str(exc)) from exc
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors())
        raise ToolError(f"invalid arguments: {problems}") from exc
