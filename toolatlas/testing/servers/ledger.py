"""A real MCP server of a cash ledger kept in a SQLite database it holds open for its whole run.

Run: ``python -m toolatlas.testing.servers.ledger ROOT [JOURNAL_MODE]``. The first call opens ``ROOT/ledger.db``
once, switches it to write-ahead logging (SQLite then keeps ``ledger.db-wal`` and its shared-memory index
``ledger.db-shm`` beside it; ``delete`` keeps SQLite's default rollback journal) and keeps the connection, as an
application library keeps its collection: ``add_entry`` adds a row, ``count_entries`` counts them. A reset that
writes the folder back under the running server is not what it reads next; a new run of it is.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

__all__ = ["build_server", "main"]


def build_server(root: Path, journal_mode: str = "wal") -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("ledger", version="1.0.0", instructions="A cash ledger in a SQLite database.")
    held: list[sqlite3.Connection] = []

    def ledger() -> sqlite3.Connection:
        if not held:
            conn = sqlite3.connect(root / "ledger.db", isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA journal_mode={journal_mode}")
            held.append(conn)
        return held[0]

    @server.tool(description="Add an entry to the ledger.")
    def add_entry(
        memo: Annotated[str, Field(description="What the money was for.")],
        amount: Annotated[float, Field(description="The amount, negative for a payment.")],
    ) -> str:
        ledger().execute("INSERT INTO entries(memo, amount) VALUES (?, ?)", (memo, amount))
        return f"added {memo}"

    @server.tool(description="Count the entries of the ledger.")
    def count_entries() -> str:
        (count,) = ledger().execute("SELECT COUNT(*) FROM entries").fetchone()
        return f"{count} entries"

    return server


def main() -> None:
    build_server(Path(sys.argv[1]), *sys.argv[2:3]).run("stdio")


if __name__ == "__main__":
    main()
