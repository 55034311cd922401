"""The atlas as an MCP server, driven by the real MCP SDK client over stdio and streamable HTTP.

stdio spawns ``toolatlas serve CONFIG --transport stdio``; streamable HTTP reaches ``/mcp`` of the
HTTP service subprocess (with its bearer token). Both must answer what the library answers, and
the same as the HTTP JSON API.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from mcp import Client
from service_process import TASKS, BuiltAtlas, mcp_over_http, mcp_over_stdio

from toolatlas.client.connection import HttpEndpoint, ServerConnection
from toolatlas.config.servers import Limits
from toolatlas.errors import ServerStartError
from toolatlas.guidance import Guidance, StrategyGuidance, ToolGuidance, TraceExemplar
from toolatlas.serve import ServerList, TraceList
from toolatlas.serve.process import ServiceProcess

pytestmark = pytest.mark.servers

TRANSPORTS = ("stdio", "streamable-http")
TOOLS = {"get_guidance", "search_traces", "read_trace", "expand", "read_tool", "read_strategy", "list_servers"}


@asynccontextmanager
async def connect(transport: str, built: BuiltAtlas, service: ServiceProcess) -> AsyncIterator[Client]:
    """An MCP client session with the atlas over ``transport``."""
    session = mcp_over_stdio(built.config) if transport == "stdio" else mcp_over_http(service.url, service.headers)
    async with session as client:
        yield client


@pytest.mark.parametrize("transport", TRANSPORTS)
class TestMcpServer:
    async def test_tools_are_listed_read_only_with_schemas(
        self, transport: str, built: BuiltAtlas, service: ServiceProcess
    ) -> None:
        """tools/list offers guidance and the traversal operations, read-only, with typed output schemas."""
        async with connect(transport, built, service) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        assert all(tool.annotations.read_only_hint and not tool.annotations.destructive_hint for tool in tools.values())
        guidance = tools["get_guidance"]
        assert guidance.input_schema["required"] == ["task"]
        assert guidance.input_schema["properties"]["task"]["maxLength"] == 2000
        assert {"tools", "strategies", "exemplars"} <= set(guidance.output_schema["properties"])

    async def test_guidance_equals_the_library_and_the_http_api(
        self, transport: str, built: BuiltAtlas, service: ServiceProcess, client: httpx.Client
    ) -> None:
        """get_guidance answers (structured, and as JSON text) what Atlas.guide and POST /v1/guidance answer."""
        async with connect(transport, built, service) as mcp:
            for task in TASKS:
                result = await mcp.call_tool("get_guidance", {"task": task})
                over_mcp = Guidance.model_validate(result.structured_content)
                over_http = Guidance.model_validate_json(client.post("/v1/guidance", json={"task": task}).content)
                assert not result.is_error
                assert over_mcp == over_http == built.atlas.guide(task)
                assert Guidance.model_validate_json(result.content[0].text) == over_mcp

    async def test_text_format_puts_the_rendering_in_the_text(
        self, transport: str, built: BuiltAtlas, service: ServiceProcess
    ) -> None:
        """format=text gives the compact rendering as text, the typed fields still as structured content."""
        async with connect(transport, built, service) as client:
            result = await client.call_tool("get_guidance", {"task": TASKS[1], "format": "text", "servers": ["time"]})
        expected = built.atlas.guide(TASKS[1], servers=["time"])
        assert result.content[0].text == expected.to_text()
        assert Guidance.model_validate(result.structured_content) == expected

    async def test_traversal_tools_answer_what_the_library_answers(
        self, transport: str, built: BuiltAtlas, service: ServiceProcess
    ) -> None:
        """search_traces → read_trace → expand → read_strategy, read_tool and list_servers navigate the atlas."""
        atlas = built.atlas
        with_strategies = next(t for t in atlas.view.traces.values() if t.strategies)
        async with connect(transport, built, service) as client:
            found = await client.call_tool("search_traces", {"task": "convert time", "k": 3})
            trace = await client.call_tool("read_trace", {"trace_id": with_strategies.id})
            similar = await client.call_tool("expand", {"trace_id": with_strategies.id})
            strategies = await client.call_tool("read_strategy", {"trace_id": with_strategies.id})
            tool = await client.call_tool("read_tool", {"server": "git", "tool": "git_commit"})
            servers = await client.call_tool("list_servers", {})
        assert TraceList.model_validate(found.structured_content).traces == atlas.search_traces("convert time", k=3)
        assert TraceExemplar.model_validate(trace.structured_content) == atlas.read_trace(with_strategies.id)
        assert TraceList.model_validate(similar.structured_content).traces == atlas.expand(with_strategies.id)
        read = [StrategyGuidance.model_validate(s) for s in strategies.structured_content["strategies"]]
        assert read == atlas.read_strategy(with_strategies.id) != []
        assert ToolGuidance.model_validate(tool.structured_content) == atlas.read_tool("git", "git_commit")
        assert {s.name for s in ServerList.model_validate(servers.structured_content).servers} == {"git", "time"}

    async def test_unknown_ids_and_bad_arguments_are_tool_errors(
        self, transport: str, built: BuiltAtlas, service: ServiceProcess
    ) -> None:
        """Unknown ids, names and invalid arguments come back as readable tool errors naming what is wrong."""
        async with connect(transport, built, service) as client:
            trace = await client.call_tool("read_trace", {"trace_id": "no-such-trace"})
            tool = await client.call_tool("read_tool", {"server": "time", "tool": "no_such_tool"})
            server = await client.call_tool("get_guidance", {"task": "commit", "servers": ["svn"]})
            empty = await client.call_tool("get_guidance", {"task": ""})
            budget = await client.call_tool("get_guidance", {"task": "commit", "budget": 0})
        assert all(r.is_error for r in (trace, tool, server, empty, budget))
        assert "no trace 'no-such-trace'" in trace.content[0].text and "search_traces" in trace.content[0].text
        assert "convert_time" in tool.content[0].text
        assert "'svn'" in server.content[0].text and "git, time" in server.content[0].text
        assert "task" in empty.content[0].text and "budget" in budget.content[0].text


class TestCatalogueHttpEndpoint:
    async def test_a_catalogue_http_endpoint_sends_its_headers(self, service: ServiceProcess) -> None:
        """A server reached by URL gets the endpoint's headers: with the bearer token the tools list, without it the start fails."""
        limits = Limits(call_timeout_s=10.0, start_timeout_s=20.0, max_message_bytes=1_000_000, max_output_bytes=10_000,
                        max_restarts=0)
        async with ServerConnection("atlas", HttpEndpoint(f"{service.url}/mcp", service.headers), limits) as connection:
            assert TOOLS <= {tool.name for tool in connection.tools}
        with pytest.raises(ServerStartError):
            async with ServerConnection("atlas", HttpEndpoint(f"{service.url}/mcp"), limits):
                pass
