"""A real MCP server of notes in a folder, with a header grammar its refusals quote and a remover that never refuses.

Run: ``python -m toolatlas.testing.servers.notebook ROOT``. ``write_note`` writes a note whose ``header``
must be a fenced block: anything else is refused with ``Header doesn't match '^~~~\\n(.*)\\n~~~$'``
(the pattern it checks); it never makes folders, so a note in a folder that does not exist fails with
``No such file or directory``. ``read_note`` reads one. ``remove_note`` unlinks a note with
``missing_ok``: a note that does not exist answers ``Note removed: <path>`` all the same. ``mkdir``
makes a folder (and its parents); ``rmdir`` removes an empty one — every folder of the snapshot holds
notes, so it works only on a folder made since.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

__all__ = ["HEADER", "build_server", "main"]

HEADER = r"^~~~\n(.*)\n~~~$"
"""What a note's header must match (a fenced block), quoted by the refusal of any other."""


def build_server(root: Path) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("notebook", version="1.0.0", instructions="Notes in a folder.")

    @server.tool(description="Write a note with a header and a body.")
    def write_note(
        path: Annotated[str, Field(description="The note's path, relative to the notes folder.")],
        header: Annotated[str, Field(description="The note's header block.")],
        body: Annotated[str, Field(description="The note's text.")],
    ) -> str:
        if not re.match(HEADER, header, re.DOTALL):
            raise ToolError(f"Header doesn't match '{HEADER}'")
        try:
            (root / path).write_text(f"{header}\n{body}")
        except OSError as exc:
            raise ToolError(str(exc)) from exc
        return f"Note written: {path}"

    @server.tool(description="Read a note.")
    def read_note(path: Annotated[str, Field(description="The note's path, relative to the notes folder.")]) -> str:
        try:
            return (root / path).read_text()
        except OSError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(description="Remove a note.")
    def remove_note(path: Annotated[str, Field(description="The note's path, relative to the notes folder.")]) -> str:
        try:
            (root / path).unlink(missing_ok=True)
        except OSError as exc:
            raise ToolError(str(exc)) from exc
        return f"Note removed: {path}"

    @server.tool(description="Make a folder.")
    def mkdir(path: Annotated[str, Field(description="The folder's path, relative to the notes folder.")]) -> str:
        (root / path).mkdir(parents=True, exist_ok=True)
        return f"Folder made: {path}"

    @server.tool(description="Remove an empty folder.")
    def rmdir(path: Annotated[str, Field(description="The folder's path, relative to the notes folder.")]) -> str:
        try:
            (root / path).rmdir()
        except OSError as exc:
            raise ToolError(str(exc)) from exc
        return f"Folder removed: {path}"

    return server


def main() -> None:
    build_server(Path(sys.argv[1])).run("stdio")


if __name__ == "__main__":
    main()
