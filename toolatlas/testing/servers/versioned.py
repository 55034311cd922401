"""A real MCP server released in two versions, for what an atlas says about a release.

Run: ``python -m toolatlas.testing.servers.versioned --version 1`` (or ``2``, ``3``). State lives in the
process (notes), so each sandbox starts empty. From version 1 to version 2:

- ``add_note`` gains an optional ``tags`` argument (a changed schema);
- ``export_all`` is removed, ``search_notes`` is new;
- ``shout`` starts refusing texts longer than 12 characters (a valid use that now fails);
- ``get_note`` stops failing on id 0 with an internal error (a fixed bug: id 0 is "no such note"
  like any other absent id);
- ``count_notes`` is the same in both.

Release 3 is release 1 with one change only: ``add_note`` has release 2's interface (``tags``).
"""

from __future__ import annotations

import argparse
from typing import Annotated, Any

from pydantic import Field

__all__ = ["build_server", "main"]

SHOUT_LIMIT = 12
"""Version 2's longest text ``shout`` accepts."""


def build_server(version: int) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    if version not in (1, 2, 3):
        raise ValueError(f"version must be 1, 2 or 3, not {version}")
    server = MCPServer("versioned", version=f"{version}.0.0", instructions="Notes kept in memory.")
    notes: dict[int, dict[str, Any]] = {}
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writing = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    if version != 2:

        @server.tool(description="Every note as one JSON document.", annotations=reading)
        def export_all() -> dict[str, Any]:
            return {"notes": list(notes.values())}

    if version == 1:

        @server.tool(description="Add a note; returns it with its id.", annotations=writing)
        def add_note(title: Annotated[str, Field(description="The note's title.")]) -> dict[str, Any]:
            if not title.strip():
                raise ToolError("title must not be empty")
            number = len(notes) + 1
            note = {"id": number, "title": title}
            notes[number] = note
            return note

    else:

        @server.tool(description="Add a note, optionally tagged; returns it with its id.", annotations=writing)
        def add_note(  # type: ignore[misc] # the same tool, its version 2
            title: Annotated[str, Field(description="The note's title.")],
            tags: Annotated[list[str] | None, Field(description="Tags of the note.")] = None,
        ) -> dict[str, Any]:
            if not title.strip():
                raise ToolError("title must not be empty")
            number = len(notes) + 1
            note = {"id": number, "title": title, "tags": list(tags or [])}
            notes[number] = note
            return note

    if version == 2:

        @server.tool(description="Notes whose title contains the query.", annotations=reading)
        def search_notes(query: Annotated[str, Field(description="Text to look for in titles.")]) -> dict[str, Any]:
            if not query.strip():
                raise ToolError("query must not be empty")
            return {"notes": [n for n in notes.values() if query.lower() in n["title"].lower()]}

    @server.tool(description="A note by its id.", annotations=reading)
    def get_note(note_id: Annotated[int, Field(description="The id add_note returned.")]) -> dict[str, Any]:
        if note_id == 0 and version != 2:
            raise ToolError("internal error: index out of range")
        if note_id not in notes:
            raise ToolError(f"no note with id {note_id}")
        return notes[note_id]

    @server.tool(description="The text in capitals.", annotations=reading)
    def shout(text: Annotated[str, Field(description="Any text.")]) -> str:
        if version == 2 and len(text) > SHOUT_LIMIT:
            raise ToolError(f"text longer than {SHOUT_LIMIT} characters")
        return text.upper()

    @server.tool(description="How many notes there are.", annotations=reading)
    def count_notes() -> int:
        return len(notes)

    return server


def main() -> None:
    parser = argparse.ArgumentParser(prog="versioned")
    parser.add_argument("--version", type=int, choices=(1, 2, 3), required=True)
    build_server(parser.parse_args().version).run("stdio")


if __name__ == "__main__":
    main()
