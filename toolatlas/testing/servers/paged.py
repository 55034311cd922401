"""A small MCP server that lists its tools over several pages and answers unknown tools with a JSON-RPC error.

Run: ``python -m toolatlas.testing.servers.paged [--tools N] [--page-size P]``. Tools ``tool_00`` …
each echo their ``text`` argument back with structured content and a ``_meta`` field; a call to
any other name is a JSON-RPC error ``-32602`` whose ``data`` lists the known tools. It also serves
what a proxy forwards besides tools: notes as resources (``note://0`` …, listed over pages of the
same size, and the template ``note://{index}``), one prompt (``summarise`` with a required
``topic``) and completion of that argument; an unknown resource or prompt is a JSON-RPC error.
Built on the SDK's low-level server, so pagination and errors are exactly what a proxy must
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

NOTES = 5
"""Resources the server lists (``note://0`` …)."""
TOPICS = ("stock", "shipping", "staff")


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

    notes = [types.Resource(name=f"note {i}", uri=f"note://{i}", mime_type="text/plain") for i in range(NOTES)]

    async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        start = int(params.cursor) if params and params.cursor else 0
        end = start + page_size
        return types.ListResourcesResult(resources=notes[start:end], next_cursor=str(end) if end < len(notes) else None)

    async def list_templates(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[types.ResourceTemplate(name="note", uri_template="note://{index}")]
        )

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        index = str(params.uri).removeprefix("note://")
        if not index.isdigit() or int(index) >= NOTES:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {params.uri}", {"uri": str(params.uri)})
        text = f"Note {index}: {TOPICS[int(index) % len(TOPICS)]}."
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=str(params.uri), mime_type="text/plain", text=text)]
        )

    async def list_prompts(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        topic = types.PromptArgument(name="topic", description="What to summarise.", required=True)
        return types.ListPromptsResult(prompts=[types.Prompt(name="summarise", arguments=[topic])])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        topic = (params.arguments or {}).get("topic")
        if params.name != "summarise" or not topic:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt or missing topic: {params.name}")
        text = types.TextContent(type="text", text=f"Summarise the notes on {topic}.")
        return types.GetPromptResult(description="Summarise notes", messages=[types.PromptMessage(role="user", content=text)])

    async def complete(ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
        values = [t for t in TOPICS if t.startswith(params.argument.value)]
        return types.CompleteResult(completion=types.Completion(values=values, total=len(values), has_more=False))

    return Server(
        "paged", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool,
        on_list_resources=list_resources, on_list_resource_templates=list_templates, on_read_resource=read_resource,
        on_list_prompts=list_prompts, on_get_prompt=get_prompt, on_completion=complete,
    )


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
