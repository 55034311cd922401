"""A real MCP server of named shelves of items held in its process, beside a folder of notes.

Run: ``python -m toolatlas.testing.servers.shelves ROOT [--removable] [--logged-removal]``. Every shelf, the
``default`` one included, is made on its first use. ``add_item`` puts an item on a shelf;
``list_shelves`` lists every shelf with how many items it holds and when it was made (an ISO
date-time); three more argument-free reads speak of the ``default`` shelf alone — and so make it —
and sort before the listing by name. ``label_item`` makes a label, and changes nothing unless it is
given a shelf to put the label on. ``write_note`` writes ``ROOT/note.txt`` and nothing else;
``stock`` puts an item on a shelf *and* appends a line to ``ROOT/stock.log``. With ``--removable``,
``remove_shelf`` removes a shelf by its name; with ``--logged-removal`` too, it also appends the
shelf's name to ``ROOT/removed.log`` (as a server that saves and backs up on every change). Shelves are never written to disk: a restore of the
folder never undoes one.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

__all__ = ["build_server", "main"]


def build_server(root: Path, *, removable: bool = False, logged_removal: bool = False) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    server = MCPServer("shelves", version="1.0.0", instructions="Shelves of items kept in memory.")
    shelves: dict[str, dict[str, Any]] = {}
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writing = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    def shelf_named(name: str) -> list[str]:
        return shelves.setdefault(name, {"items": [], "made": datetime.now(UTC).isoformat()})["items"]

    @server.tool(description="Put an item on a shelf; the shelf is made on first use.", annotations=writing)
    def add_item(
        item: Annotated[str, Field(description="What to put on the shelf.")],
        shelf: Annotated[str, Field(description="The shelf's name.")] = "default",
    ) -> str:
        shelf_named(shelf).append(item)
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
        return len(shelf_named("default"))

    @server.tool(description="Find the items that are on the default shelf twice.", annotations=reading)
    def find_duplicates() -> list[str]:
        items = shelf_named("default")
        return sorted({i for i in items if items.count(i) > 1})

    @server.tool(description="Get the items of the default shelf.", annotations=reading)
    def get_default_shelf() -> list[str]:
        return list(shelf_named("default"))

    @server.tool(description="List every shelf: its name, how many items it holds, when it was made.", annotations=reading)
    def list_shelves() -> list[dict[str, Any]]:
        return [{"name": name, "items": len(shelf["items"]), "made": shelf["made"]} for name, shelf in shelves.items()]

    @server.tool(description="Make a printable label for an item; given a shelf, the label goes on it.")
    def label_item(
        item: Annotated[str, Field(description="The item to label.")],
        shelf: Annotated[str | None, Field(description="The shelf to put the label on.")] = None,
    ) -> str:
        label = f"[ {item.upper()} ]"
        if shelf is not None:
            shelf_named(shelf).append(label)
        return label

    if removable:

        @server.tool(description="Remove a shelf and its items.", annotations=writing)
        def remove_shelf(shelf: Annotated[str, Field(description="The shelf's name.")]) -> str:
            if logged_removal:
                with (root / "removed.log").open("a") as log:
                    log.write(f"{shelf}\n")
            return f"removed {shelf}" if shelves.pop(shelf, None) is not None else f"no shelf named {shelf}"

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description="Shelves of items kept in memory, beside a folder of notes.")
    parser.add_argument("root", type=Path)
    parser.add_argument("--removable", action="store_true", help="add a tool that removes a shelf by name")
    parser.add_argument("--logged-removal", action="store_true", help="with --removable: log each removal in the folder")
    args = parser.parse_args()
    build_server(args.root, removable=args.removable, logged_removal=args.logged_removal).run("stdio")


if __name__ == "__main__":
    main()
