"""A small MCP server that lists its tools over several pages and answers unknown tools with a JSON-RPC error.

Run: ``python -m toolatlas.testing.servers.paged [--tools N] [--page-size P]``. Tools ``tool_00`` …
each echo their ``text`` argument back with structured content and a ``_meta`` field; a call to
any other name is a JSON-RPC error ``-32602`` whose ``data`` lists the known tools. Built on the
SDK's low-level server, so ``tools/list`` pagination and errors are exactly what a proxy must
follow and pass on.
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError


def build_server(tool_count: int, page_size: int) -> Server[Any]:
    names = [f"tool_{i:02d}" for i in range(tool_count)]
    tools = [
        types.Tool(
            name=name,
            description=f"Echo the text back (tool {i} of {tool_count}).",
            input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            output_schema={"type": "object", "properties": {"echo": {"type": "string"}, "tool": {"type": "string"}}},
        )
        for i, name in enumerate(names)
    ]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        start = int(params.cursor) if params and params.cursor else 0
        end = start + page_size
        return types.ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in names:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}", {"known": names})
        text = str((params.arguments or {}).get("text", ""))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content={"echo": text, "tool": params.name},
            _meta={"paged/served-by": params.name},
        )

    return Server("paged", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve(tool_count: int, page_size: int) -> None:
    server = build_server(tool_count, page_size)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=7)
    parser.add_argument("--page-size", type=int, default=3)
    args = parser.parse_args()
    anyio.run(serve, args.tools, args.page_size)


if __name__ == "__main__":
    main()
