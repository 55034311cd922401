"""A real MCP server of text drafts edited in its process and written to a folder only when saved.

Run: ``python -m toolatlas.testing.servers.drafts ROOT``. The drafts are read from ``ROOT/drafts.json`` when the
server starts; ``list_drafts`` lists their names. ``edit_draft`` changes a draft in the server's memory only and says so (``Remember to call
save_drafts to persist changes.``); ``read_draft`` shows the draft as edited; ``save_drafts`` writes every draft
back to ``ROOT/drafts.json`` and keeps the file it replaces as ``ROOT/drafts.json.bak`` — so a save changes the
folder even when nothing was edited (the backup), and changes the drafts file only after an edit. A draft that
does not exist is refused as an MCP tool error.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

__all__ = ["build_server", "main"]


def build_server(root: Path) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("drafts", version="1.0.0", instructions="Text drafts, edited in memory and saved to a folder.")
    store = root / "drafts.json"
    drafts: dict[str, str] = json.loads(store.read_text()) if store.exists() else {}

    @server.tool(description="List the drafts by name.")
    def list_drafts() -> dict[str, list[str]]:
        return {"names": sorted(drafts)}

    @server.tool(description="Read one draft as it stands, edits included.")
    def read_draft(name: Annotated[str, Field(description="The draft's name.")]) -> str:
        if name not in drafts:
            raise ToolError(f"No draft named {name!r}")
        return drafts[name]

    @server.tool(description="Replace the text of one draft.")
    def edit_draft(
        name: Annotated[str, Field(description="The draft's name.")],
        text: Annotated[str, Field(description="The draft's new text.")],
    ) -> str:
        if name not in drafts:
            raise ToolError(f"No draft named {name!r}")
        drafts[name] = text
        return f"Draft {name!r} edited. Remember to call save_drafts to persist changes."

    @server.tool(description="Write every draft to the drafts file, keeping the previous file as a backup.")
    def save_drafts() -> str:
        if store.exists():
            shutil.copyfile(store, root / "drafts.json.bak")
        store.write_text(json.dumps(drafts, indent=2, sort_keys=True) + "\n")
        return f"Saved {len(drafts)} drafts to {store.name}"

    return server


def main() -> None:
    build_server(Path(sys.argv[1])).run("stdio")


if __name__ == "__main__":
    main()
