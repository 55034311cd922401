"""A real MCP server with no state that tells the time of day, waits, and joins words.

Run: ``python -m toolatlas.testing.servers.wallclock``. ``current_time`` takes no argument and
answers the time of day to the second (``It is 20:41:07.``, no date): asked twice within one second
it answers alike, a second later otherwise — with nothing changed. ``pause`` waits, then says so;
``join_words`` joins two words, either of which may be empty. Nothing is kept between calls.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

__all__ = ["build_server", "main"]


def build_server() -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    server = MCPServer("wallclock", version="1.0.0", instructions="The time of day, a pause and words joined.")
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(description="Get the current time of day.", annotations=reading)
    def current_time() -> str:
        return f"It is {datetime.now():%H:%M:%S}."

    @server.tool(description="Wait a moment, then say so.")
    async def pause(
        seconds: Annotated[float, Field(ge=0, le=10, description="How long to wait, in seconds.")] = 1.2,
    ) -> str:
        await asyncio.sleep(seconds)
        return f"paused {seconds:g} s"

    @server.tool(description="Join two words with a space.", annotations=reading)
    def join_words(
        first: Annotated[str, Field(description="The first word.")],
        second: Annotated[str, Field(description="The second word.")],
    ) -> str:
        return f"{first} {second}".strip()

    return server


def main() -> None:
    build_server().run("stdio")


if __name__ == "__main__":
    main()
