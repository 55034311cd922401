"""A real MCP server of a word list whose first lookup loads it, as a dictionary or a model is loaded.

Run: ``python -m toolatlas.testing.servers.cold``. The first ``define`` call of the process loads the
word list (:data:`LOAD_S`, longer than a discovery pilot waits); every later call answers at once. No state a
call changes.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from pydantic import Field

__all__ = ["LOAD_S", "build_server", "main"]

LOAD_S = 3.0
"""How long the first lookup of a process takes: the word list is loaded then."""

WORDS = {"start": "to begin something", "stop": "to end something", "examine": "to look at carefully"}


def build_server() -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    server = MCPServer("cold", version="1.0.0", instructions="A word list, loaded on its first lookup.")
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    loaded: list[bool] = []

    @server.tool(description="Define a word of the word list.", annotations=reading)
    async def define(word: Annotated[str, Field(description="The word to define, e.g. start.")]) -> str:
        if not loaded:
            await asyncio.sleep(LOAD_S)  # the list is read from disk the first time
            loaded.append(True)
        if word.lower() not in WORDS:
            raise ToolError(f"no word {word!r} in the list")
        return f"{word}: {WORDS[word.lower()]}"

    return server


def main() -> None:
    build_server().run("stdio")


if __name__ == "__main__":
    main()
