"""A real MCP server of text drafts edited in its process and written to a folder only when saved.

Run: ``python -m toolatlas.testing.servers.drafts ROOT``. The drafts are read from ``ROOT/drafts.json`` when the
server starts (``{"d1": {"title": …, "text": …, "pinned": false, "locked": false}, …}``); ``list_drafts`` lists
them with their flags. ``edit_draft`` changes a draft in the server's memory only and says so (``Remember to call
save_drafts to persist changes.``); ``read_draft`` shows the draft as edited; ``save_drafts`` writes every draft
back to ``ROOT/drafts.json`` and keeps the file it replaces as ``ROOT/drafts.json.bak`` — so a save changes the
folder even when nothing was edited (the backup), and changes the drafts file only after an edit. A *pinned* draft
is not edited: the answer says so as a success (``{"status": "error", …}``); a *locked* draft is edited all the
same, without a word of its lock. A draft that does not exist is refused as an MCP tool error.
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
    drafts: dict[str, dict[str, Any]] = json.loads(store.read_text()) if store.exists() else {}

    def draft(draft_id: str) -> dict[str, Any]:
        if draft_id not in drafts:
            raise ToolError(f"No draft {draft_id!r}")
        return drafts[draft_id]

    @server.tool(description="List the drafts: id, title and flags.")
    def list_drafts() -> dict[str, list[dict[str, Any]]]:
        return {"drafts": [{"draft_id": key, "title": d["title"], "pinned": d.get("pinned", False),
                            "locked": d.get("locked", False)} for key, d in sorted(drafts.items())]}

    @server.tool(description="Read one draft as it stands, edits included.")
    def read_draft(draft_id: Annotated[str, Field(description="The draft's id.")]) -> str:
        return draft(draft_id)["text"]

    @server.tool(description="Replace the text of one draft.")
    def edit_draft(
        draft_id: Annotated[str, Field(description="The draft's id.")],
        text: Annotated[str, Field(description="The draft's new text.")],
    ) -> dict[str, str]:
        found = draft(draft_id)
        if found.get("pinned"):
            return {"status": "error", "message": f"Draft {draft_id} is pinned: unpin it before editing"}
        found["text"] = text
        return {"status": "success",
                "message": f"Draft {draft_id} edited. Remember to call save_drafts to persist changes."}

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
