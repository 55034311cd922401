"""A real MCP server that opens tables into sessions it mints in memory, and queries a database with stated limits.

Run: ``python -m toolatlas.testing.servers.sessions``. ``open_table`` copies one of two built-in
tables into a new session and answers its id — a UUID the server makes, whatever ``session_id`` the
caller suggests — and the table's columns; every session tool takes that id and answers
``{"success": false, "error": "Session not found"}`` in a successful result for any other, and a
column the session's table lacks is refused the same way (``Column 'x' not found``). ``match_rows``
takes rules whose fields no schema names: a rule without a ``column`` is refused as ``Column None is
not in the table``. ``query`` runs one read-only SQL statement over an in-memory database whose
``readings`` table has more rows than the 5 a result is capped at: two statements are refused, a
longer result is cut (``truncated to 5 rows``). Nothing is written to disk.
"""

from __future__ import annotations

import sqlite3
import uuid
from typing import Annotated, Any, Literal

from pydantic import Field

__all__ = ["build_server", "main"]

ROW_CAP = 5
TABLES: dict[str, list[dict[str, Any]]] = {
    "cities": [
        {"city": "Lyon", "country": "FR", "population": 522000},
        {"city": "Porto", "country": "PT", "population": 232000},
        {"city": "Graz", "country": "AT", "population": 291000},
    ],
    "people": [
        {"name": "Ada", "age": 36},
        {"name": "Alan", "age": 41},
    ],
}


def build_server() -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    server = MCPServer("sessions", version="1.0.0", instructions="Tables opened into sessions; a capped SQL reader.")
    sessions: dict[str, list[dict[str, Any]]] = {}
    database = sqlite3.connect(":memory:", check_same_thread=False)
    database.execute("CREATE TABLE readings (id INTEGER PRIMARY KEY, station TEXT, value REAL)")
    database.executemany("INSERT INTO readings (station, value) VALUES (?, ?)",
                         [(f"st{i % 3}", i * 1.5) for i in range(12)])
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writing = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    def missing() -> dict[str, Any]:
        return {"success": False, "error": "Session not found"}

    @server.tool(description="Open a built-in table into a new session; returns the session's id.", annotations=writing)
    def open_table(
        table: Annotated[Literal["cities", "people"], Field(description="The table to open.")],
        session_id: Annotated[str | None, Field(description="A session id to use.")] = None,
    ) -> dict[str, Any]:
        minted = str(uuid.uuid4())
        sessions[minted] = [dict(row) for row in TABLES[table]]
        return {"success": True, "session_id": minted, "rows": len(sessions[minted]), "columns": list(TABLES[table][0])}

    @server.tool(description="Count the rows of a session's table.", annotations=reading)
    def count_rows(session_id: Annotated[str, Field(description="The session.")]) -> dict[str, Any]:
        if session_id not in sessions:
            return missing()
        return {"success": True, "rows": len(sessions[session_id])}

    @server.tool(description="Every value of one column of a session's table.", annotations=reading)
    def column_values(
        session_id: Annotated[str, Field(description="The session.")],
        column: Annotated[str, Field(description="The column.")],
    ) -> dict[str, Any]:
        if session_id not in sessions:
            return missing()
        rows = sessions[session_id]
        if column not in rows[0]:
            return {"success": False, "error": f"Column '{column}' not found"}
        return {"success": True, "values": [row[column] for row in rows]}

    @server.tool(description="The rows of a session's table with only some of its columns.", annotations=reading)
    def pick_columns(
        session_id: Annotated[str, Field(description="The session.")],
        columns: Annotated[list[str], Field(description="The columns to keep.")],
    ) -> dict[str, Any]:
        if session_id not in sessions:
            return missing()
        rows = sessions[session_id]
        unknown = [c for c in columns if c not in rows[0]]
        if unknown or not columns:
            return {"success": False, "error": f"Columns not found: {unknown}"}
        return {"success": True, "rows": [{c: row[c] for c in columns} for row in rows]}

    @server.tool(description="The rows of a session's table that meet every rule.", annotations=reading)
    def match_rows(
        session_id: Annotated[str, Field(description="The session.")],
        rules: Annotated[list[dict[str, Any]], Field(description="The rules a row must meet.")],
    ) -> dict[str, Any]:
        if session_id not in sessions:
            return missing()
        rows = sessions[session_id]
        for rule in rules:
            column = rule.get("column")
            if column not in rows[0]:
                return {"success": False, "error": f"Column {column} is not in the table"}
            rows = [row for row in rows if "equals" not in rule or str(row[column]) == str(rule["equals"])]
        return {"success": True, "rows": rows}

    @server.tool(description="List the database's tables with their row counts.", annotations=reading)
    def list_tables() -> dict[str, Any]:
        return {"tables": [{"name": "readings", "rows": database.execute("SELECT count(*) FROM readings").fetchone()[0]}]}

    @server.tool(
        description=f"Run a read-only query. A single SQL statement; results are capped at {ROW_CAP} rows.",
        annotations=reading,
    )
    def query(sql: Annotated[str, Field(description="A single SELECT statement.")]) -> str:
        if sqlite3.complete_statement(sql.strip().rstrip(";") + ";") and ";" in sql.strip().rstrip(";"):
            raise ToolError("multi-statement: only a single SQL statement is allowed")
        if not sql.lstrip().lower().startswith(("select", "with")):
            raise ToolError("read-only: only SELECT is allowed")
        try:
            rows = database.execute(sql).fetchall()
        except sqlite3.Error as exc:
            raise ToolError(str(exc)) from exc
        text = "\n".join(", ".join(str(v) for v in row) for row in rows[:ROW_CAP])
        if len(rows) > ROW_CAP:
            text += f"\n(truncated to {ROW_CAP} rows)"
        return text or "(no rows)"

    return server


def main() -> None:
    build_server().run("stdio")


if __name__ == "__main__":
    main()
