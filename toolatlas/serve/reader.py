"""``AtlasReader``: the read-only operations of the service over one loaded :class:`Atlas`.

Both transports (MCP tools, HTTP routes) call these and translate the two expected failures at
their edge::

    ToolAtlasError
    └── ServeError
        ├── UnknownRecord     a trace id, server or tool the atlas does not have  (HTTP 404, tool error)
        ├── InvalidRequest    input outside what the service accepts              (HTTP 422, tool error)
        └── AtlasUnavailable  the atlas to serve cannot be read                   (at start-up)
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable

import anyio

from toolatlas.errors import ToolAtlasError
from toolatlas.guidance import Atlas, Guidance, OfflineNavigator, StrategyGuidance, ToolGuidance, TraceExemplar
from toolatlas.serve.models import SEARCH_K_MAX, GuidanceRequest, Health, ServerList, ServerSummary

__all__ = ["AtlasReader", "AtlasUnavailable", "InvalidRequest", "ServeError", "UnknownRecord"]


class ServeError(ToolAtlasError):
    """The guidance service cannot do what was asked: answer a request, or load its atlas."""


class UnknownRecord(ServeError):
    """A trace id, server or tool that is not in the atlas."""


class InvalidRequest(ServeError):
    """Input outside what the service accepts."""


class AtlasUnavailable(ServeError):
    """The atlas to serve cannot be read (a missing or malformed export, an unreadable store)."""


class AtlasReader:
    """Guidance and the traversal operations over one read-only atlas, with clear errors for unknown names."""

    def __init__(self, atlas: Atlas, *, offload: bool | None = None) -> None:
        self.atlas = atlas
        self.offload = not isinstance(atlas.navigator, OfflineNavigator) if offload is None else offload
        """Run ``guide`` on a worker thread: worth it for a navigator that waits (an LLM); the offline
        one is pure-Python CPU work (~0.3 ms uncached on the demo atlas), which a thread would only
        delay behind the GIL, so it runs inline."""
        self.server_list = _server_list(atlas)
        self._servers = frozenset(s.name for s in self.server_list.servers)
        self._server_names = ", ".join(s.name for s in self.server_list.servers)
        self.health = Health(atlas=atlas.name, servers=len(self._servers), tools=len(atlas.view.tool_keys),
                             traces=len(atlas.view.traces), pid=os.getpid())

    @property
    def name(self) -> str:
        return self.atlas.name

    def guide(self, request: GuidanceRequest) -> Guidance:
        servers = self._check_servers(request.servers)
        return self.atlas.guide(
            request.task, servers=servers, budget=request.budget, k_r=request.k_r, max_tokens=request.max_tokens
        )

    async def guide_async(self, request: GuidanceRequest) -> Guidance:
        """:meth:`guide` for an event loop: inline, or on a worker thread when ``offload``."""
        if self.offload:
            return await anyio.to_thread.run_sync(self.guide, request)
        return self.guide(request)

    def search_traces(self, task: str, k: int = 3, servers: Iterable[str] | None = None) -> list[TraceExemplar]:
        if not task.strip():
            raise InvalidRequest("task must not be empty")
        if not 1 <= k <= SEARCH_K_MAX:
            raise InvalidRequest(f"k must be from 1 to {SEARCH_K_MAX}, not {k}")
        return self.atlas.search_traces(task, k=k, servers=self._check_servers(servers))

    def read_trace(self, trace_id: str) -> TraceExemplar:
        self._check_trace(trace_id)
        return self.atlas.read_trace(trace_id)

    def expand(self, trace_id: str) -> list[TraceExemplar]:
        self._check_trace(trace_id)
        return self.atlas.expand(trace_id)

    def read_strategy(self, trace_id: str) -> list[StrategyGuidance]:
        self._check_trace(trace_id)
        return self.atlas.read_strategy(trace_id)

    def read_tool(self, server: str, tool: str) -> ToolGuidance:
        if server not in self._servers:
            raise UnknownRecord(f"no server {server!r} in atlas {self.name!r}; it has: {self._server_names}")
        if (server, tool) not in self.atlas.view.tool_nodes:
            tools = next(summary.tools for summary in self.server_list.servers if summary.name == server)
            raise UnknownRecord(f"server {server!r} has no tool {tool!r} in this atlas; it has: {', '.join(tools)}")
        return self.atlas.read_tool(server, tool)

    def _check_trace(self, trace_id: str) -> None:
        if trace_id not in self.atlas.view.traces:
            raise UnknownRecord(
                f"no trace {trace_id!r} in atlas {self.name!r}; trace ids come from search_traces, expand, "
                "or the exemplars and trail of get_guidance"
            )

    def _check_servers(self, servers: Iterable[str] | None) -> list[str] | None:
        if servers is None:
            return None
        chosen = list(dict.fromkeys(servers))
        unknown = [s for s in chosen if s not in self._servers]
        if unknown:
            raise InvalidRequest(
                f"unknown server(s) {', '.join(map(repr, unknown))}; atlas {self.name!r} has: {self._server_names}"
            )
        return chosen


def _server_list(atlas: Atlas) -> ServerList:
    view = atlas.view
    tools: dict[str, list[str]] = {}
    for server, tool in view.tool_keys:
        tools.setdefault(server, []).append(tool)
    traces = Counter(trace.server for trace in view.traces.values())
    strategies = Counter(strategy.server for strategy in view.strategies.values())
    return ServerList(
        atlas=atlas.name,
        servers=[ServerSummary(name=name, tools=tools[name], traces=traces[name], strategies=strategies[name])
                 for name in sorted(tools)],
    )
