"""A real MCP server of a parts catalogue whose lookups answer at once but refuse slowly.

Run: ``python -m toolatlas.testing.servers.lookup``. ``describe_part`` answers a known part in
milliseconds; a name that is not in the catalogue is refused only after a slow scan
(:data:`SCAN_S`), as a lookup that reflects a whole schema or walks a whole index before it can
say "not found" does. The other tools are ordinary: a listing, a count, a sum and an echo. No
state: every call is answered from the fixed catalogue.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from pydantic import Field

__all__ = ["SCAN_S", "build_server", "main"]

SCAN_S = 0.4
"""How long a lookup of a part that does not exist takes before it is refused."""

PARTS = {
    "bolt-m6": {"name": "bolt-m6", "kind": "bolt", "diameter_mm": 6, "stock": 120},
    "nut-m6": {"name": "nut-m6", "kind": "nut", "diameter_mm": 6, "stock": 300},
    "washer-m8": {"name": "washer-m8", "kind": "washer", "diameter_mm": 8, "stock": 75},
}


def build_server() -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    server = MCPServer("lookup", version="1.0.0", instructions="A parts catalogue: list, count and describe parts.")
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(description="List the names of every part in the catalogue.", annotations=reading)
    def list_parts() -> dict[str, Any]:
        return {"parts": sorted(PARTS)}

    @server.tool(description="Count the parts in the catalogue.", annotations=reading)
    def count_parts() -> int:
        return len(PARTS)

    @server.tool(description="Describe one part of the catalogue by its name.", annotations=reading)
    def describe_part(name: Annotated[str, Field(description="The part's name, as list_parts gives it.")]) -> dict[str, Any]:
        if name in PARTS:
            return PARTS[name]
        time.sleep(SCAN_S)  # the whole catalogue is scanned before a name is found missing
        raise ToolError(f"no part named {name!r}")

    @server.tool(description="Add two numbers.", annotations=reading)
    def add_numbers(a: float, b: float) -> float:
        return a + b

    @server.tool(description="Return the text unchanged.", annotations=reading)
    def echo(text: Annotated[str, Field(description="Any text.")]) -> str:
        return text

    return server


def main() -> None:
    build_server().run("stdio")


if __name__ == "__main__":
    main()
