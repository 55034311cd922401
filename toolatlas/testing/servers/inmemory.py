"""A real MCP server whose whole state lives in its own process: tasks, settings, a history — and one slow tool.

Run: ``python -m toolatlas.testing.servers.inmemory [--clearing]``. Nothing is written to disk, so
an environment digest never sees a change: only the server's read tools show what a call did (a task
added, a setting switched, a calculation remembered). With ``--clearing`` one more tool clears the
history of calculations. One tool sleeps ``seconds`` (10 by default),
as long-running tools do. Refusals are MCP tool errors whose text says why: a task id that does
not exist, two mutually exclusive filters together, an empty title, an unknown operation.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from pydantic import Field

__all__ = ["build_server", "main"]


def build_server(*, clearing: bool = False) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    server = MCPServer("inmemory", version="1.0.0", instructions="Tasks, settings and a history kept in memory.")
    tasks: dict[int, dict[str, Any]] = {}
    settings: dict[str, Any] = {"verbose": False, "unit": "metric"}
    history: list[str] = []
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writing = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    @server.tool(description="Add a task to the in-memory task list; returns its id.", annotations=writing)
    def add_task(title: Annotated[str, Field(description="What the task is about.")]) -> dict[str, Any]:
        if not title.strip():
            raise ToolError("title must not be empty")
        task_id = len(tasks) + 1
        tasks[task_id] = {"id": task_id, "title": title, "done": False}
        return tasks[task_id]

    @server.tool(description="List the tasks, optionally only the done or only the pending ones.", annotations=reading)
    def list_tasks(
        done_only: Annotated[bool | None, Field(description="Only done tasks. Mutually exclusive with pending_only.")] = None,
        pending_only: Annotated[bool | None, Field(description="Only pending tasks.")] = None,
    ) -> dict[str, Any]:
        if done_only and pending_only:
            raise ToolError("done_only and pending_only cannot be used together")
        shown = [t for t in tasks.values() if not (done_only and not t["done"]) and not (pending_only and t["done"])]
        return {"tasks": shown}

    @server.tool(description="Mark a task done by its id.", annotations=writing)
    def complete_task(task_id: Annotated[int, Field(description="The id add_task returned.")]) -> dict[str, Any]:
        if task_id not in tasks:
            raise ToolError(f"no task with id {task_id}")
        tasks[task_id]["done"] = True
        return tasks[task_id]

    @server.tool(description="Change one setting of the session.", annotations=writing)
    def set_unit(unit: Annotated[Literal["metric", "imperial"], Field(description="The unit system.")]) -> str:
        settings["unit"] = unit
        return f"unit set to {unit}"

    @server.tool(description="Show the session's settings.", annotations=reading)
    def get_settings() -> dict[str, Any]:
        return dict(settings)

    @server.tool(description="Add two numbers; the calculation is remembered in the history.", annotations=writing)
    def add_numbers(a: float, b: float) -> str:
        line = f"{a:g} + {b:g} = {a + b:g}"
        history.append(line)
        return line

    @server.tool(description="Show every calculation made so far in this session.", annotations=reading)
    def get_history() -> str:
        return "\n".join(history) if history else "(no calculations yet)"

    if clearing:

        @server.tool(description="Clear the calculation history.", annotations=writing)
        def clear_history() -> str:
            history.clear()
            return "history cleared"

    @server.tool(description="Wait, then say so: a long-running operation.", annotations=reading)
    async def wait(
        seconds: Annotated[float, Field(ge=0, le=60, description="How long to wait, in seconds.")] = 10.0,
    ) -> str:
        await asyncio.sleep(seconds)
        return f"waited {seconds:g} s"

    return server


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="An MCP server whose state lives in its process.")
    parser.add_argument("--clearing", action="store_true", help="add a tool that clears the history")
    build_server(clearing=parser.parse_args().clearing).run("stdio")


if __name__ == "__main__":
    main()
