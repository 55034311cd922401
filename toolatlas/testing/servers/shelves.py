"""A real MCP server of named shelves of items held in its process, beside a folder of notes.

Run: ``python -m toolatlas.testing.servers.shelves ROOT``. ``add_item`` puts an item on a shelf,
making the shelf on first use; ``list_shelves`` lists every shelf with how many items it holds and
when it was made (an ISO date-time); three more argument-free reads speak of the ``default`` shelf
alone, and sort before the listing by name. ``label_item`` makes a label and changes nothing.
``write_note`` writes ``ROOT/note.txt`` and nothing else; ``stock`` puts an item on a shelf *and*
appends a line to ``ROOT/stock.log``. Shelves are never written to disk: a restore of the folder
never undoes one.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

__all__ = ["build_server", "main"]


def build_server(root: Path) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    server = MCPServer("shelves", version="1.0.0", instructions="Shelves of items kept in memory.")
    shelves: dict[str, dict[str, Any]] = {"default": {"items": [], "made": datetime.now(UTC).isoformat()}}
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writing = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    @server.tool(description="Put an item on a shelf; the shelf is made on first use.", annotations=writing)
    def add_item(
        item: Annotated[str, Field(description="What to put on the shelf.")],
        shelf: Annotated[str, Field(description="The shelf's name.")] = "default",
    ) -> str:
        shelves.setdefault(shelf, {"items": [], "made": datetime.now(UTC).isoformat()})["items"].append(item)
        return f"{item} is on {shelf}"

    @server.tool(description="Write a note to the folder.", annotations=writing)
    def write_note(text: Annotated[str, Field(description="What the note says.")]) -> str:
        (root / "note.txt").write_text(text)
        return "noted"

    @server.tool(description="Stock an item on a shelf and log it in the folder.", annotations=writing)
    def stock(
        item: Annotated[str, Field(description="What to stock.")],
        shelf: Annotated[str, Field(description="The shelf's name.")] = "default",
    ) -> str:
        with (root / "stock.log").open("a") as log:
            log.write(f"{shelf}: {item}\n")
        return add_item(item, shelf)

    @server.tool(description="Count the items on the default shelf.", annotations=reading)
    def count_items() -> int:
        return len(shelves["default"]["items"])

    @server.tool(description="Find the items that are on the default shelf twice.", annotations=reading)
    def find_duplicates() -> list[str]:
        items = shelves["default"]["items"]
        return sorted({i for i in items if items.count(i) > 1})

    @server.tool(description="Get the items of the default shelf.", annotations=reading)
    def get_default_shelf() -> list[str]:
        return list(shelves["default"]["items"])

    @server.tool(description="List every shelf: its name, how many items it holds, when it was made.", annotations=reading)
    def list_shelves() -> list[dict[str, Any]]:
        return [{"name": name, "items": len(shelf["items"]), "made": shelf["made"]} for name, shelf in shelves.items()]

    @server.tool(description="Make a printable label for an item.")
    def label_item(item: Annotated[str, Field(description="The item to label.")]) -> str:
        return f"[ {item.upper()} ]"

    return server


def main() -> None:
    build_server(Path(sys.argv[1])).run("stdio")


if __name__ == "__main__":
    main()
