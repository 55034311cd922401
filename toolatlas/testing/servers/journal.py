"""A real MCP server of notes in a folder that keeps a history of its calls in a file named after its run.

Run: ``python -m toolatlas.testing.servers.journal ROOT``. ``write_note`` writes ``ROOT/<name>.md``
and ``read_note`` reads it back; every call that worked is appended to
``ROOT/.history/history_<run>.json``, where ``<run>`` is a UUID the server makes when it starts — a
file another run of the same call writes under another name. A note that does not exist is refused
as an MCP tool error.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

__all__ = ["build_server", "main"]


def build_server(root: Path) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("journal", version="1.0.0", instructions="Notes in a folder, and a history of the calls.")
    history = root / ".history" / f"history_{uuid.uuid4()}.json"

    def remember(tool: str, name: str) -> None:
        history.parent.mkdir(exist_ok=True)
        calls = json.loads(history.read_text()) if history.exists() else []
        history.write_text(json.dumps([*calls, {"tool": tool, "name": name}]))

    @server.tool(description="Write a note: its text goes to <name>.md in the notes folder.")
    def write_note(
        name: Annotated[str, Field(description="The note's file name, without .md.")],
        text: Annotated[str, Field(description="What the note says.")],
    ) -> str:
        (root / f"{name}.md").write_text(text)
        remember("write_note", name)
        return f"wrote {name}.md"

    @server.tool(description="Read a note by its name.")
    def read_note(name: Annotated[str, Field(description="The note's file name, without .md.")]) -> str:
        path = root / f"{name}.md"
        if not path.is_file():
            raise ToolError(f"no note named {name}")
        remember("read_note", name)
        return path.read_text()

    return server


def main() -> None:
    build_server(Path(sys.argv[1])).run("stdio")


if __name__ == "__main__":
    main()
