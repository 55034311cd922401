"""A real MCP server of paged searches over built-in lines, whose answers are text with ``Label: value`` lines.

Run: ``python -m toolatlas.testing.servers.searches``. ``search_lines`` takes a regular expression and
a page size and costs :data:`SEARCH_S` a call (it reads everything): a pattern that does not compile is
logged and swallowed, and answers ``No matches found for pattern: <pattern>`` like a pattern that
matches nothing; otherwise it keeps the matches in memory under a search id it mints (eight hex
characters, whatever the caller wanted) and answers ``Search ID: <id>`` / ``Total matches: N`` /
``Page: 1/K`` lines and the first page. ``next_page`` and ``search_info`` take that id; any other
answers ``Error: Search session '<id>' not found`` in a successful result. ``count_matches`` counts at
once, and swallows a pattern that does not compile the same way. Every answer is a string.
"""

from __future__ import annotations

import re
import sys
import time
import uuid
from typing import Annotated, Any

from pydantic import Field

__all__ = ["LINES", "SEARCH_S", "build_server", "main"]

SEARCH_S = 0.3
"""What one search costs: far more than the paging calls, so a build's time budget judges it costly."""
LINES = (
    "Board meeting minutes, 14 May",
    "Present: the chair, the treasurer and two members",
    "The board approved the budget for the new roof",
    "Invoice 0423 was paid in full",
    "The next board meeting is on 11 June",
)


def build_server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("searches", version="1.0.0", instructions="Paged regular-expression searches over meeting notes.")
    sessions: dict[str, dict[str, Any]] = {}

    def page_of(search_id: str) -> str:
        session = sessions[search_id]
        size, page = session["size"], session["page"]
        pages = (len(session["matches"]) + size - 1) // size
        shown = session["matches"][(page - 1) * size: page * size]
        head = f"Search ID: {search_id}\nPattern: {session['pattern']}\nTotal matches: {len(session['matches'])}\nPage: {page}/{pages}\n\n"
        return head + "\n".join(f"- {line}" for line in shown)

    @server.tool(description="Search the notes for a regular expression; returns the first page of matches "
                             "and a search id for the paging tools.")
    def search_lines(
        pattern: Annotated[str, Field(description="Regular expression pattern to search for")],
        page_size: Annotated[int, Field(description="Matches per page")] = 2,
    ) -> str:
        time.sleep(SEARCH_S)
        try:
            matches = [line for line in LINES if re.search(pattern, line, re.IGNORECASE)]
        except re.error as exc:
            print(f"invalid pattern {pattern!r}: {exc}", file=sys.stderr)
            matches = []
        if not matches:
            return f"No matches found for pattern: {pattern}"
        search_id = uuid.uuid4().hex[:8]
        sessions[search_id] = {"pattern": pattern, "matches": matches, "size": max(1, page_size), "page": 1}
        return page_of(search_id)

    @server.tool(description="Count the notes that match a regular expression.")
    def count_matches(pattern: Annotated[str, Field(description="Regular expression pattern to count")]) -> str:
        try:
            found = sum(1 for line in LINES if re.search(pattern, line, re.IGNORECASE))
        except re.error as exc:
            print(f"invalid pattern {pattern!r}: {exc}", file=sys.stderr)
            found = 0
        return f"Matches: {found}" if found else f"No matches found for pattern: {pattern}"

    @server.tool(description="The next page of a search's matches.")
    def next_page(search_id: Annotated[str, Field(description="Search session id from a previous search")]) -> str:
        if search_id not in sessions:
            return f"Error: Search session '{search_id}' not found"
        session = sessions[search_id]
        pages = (len(session["matches"]) + session["size"] - 1) // session["size"]
        if session["page"] >= pages:
            return f"Already on the last page ({session['page']}/{pages})"
        session["page"] += 1
        return page_of(search_id)

    @server.tool(description="What a search session holds: its pattern, matches and current page.")
    def search_info(search_id: Annotated[str, Field(description="Search session id from a previous search")]) -> str:
        if search_id not in sessions:
            return f"Error: Search session '{search_id}' not found"
        session = sessions[search_id]
        return f"Search ID: {search_id}\nPattern: {session['pattern']}\nTotal matches: {len(session['matches'])}\nCurrent page: {session['page']}"

    return server


def main() -> None:
    build_server().run("stdio")


if __name__ == "__main__":
    main()
