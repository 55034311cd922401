"""A real MCP server of shapes on a canvas held in memory, some of whose answers claim what they did not do.

Run: ``python -m toolatlas.testing.servers.sketch``. ``add_shape`` adds a shape of a kind at a point and
answers it with the id the server minted; ``list_shapes`` lists them, of one kind, or those whose
fields equal every field of ``filter``; ``erase_shape`` erases one (``Shape <id> not found`` for
another id, a tool error). ``align_shapes`` is a placeholder: it answers ``{"aligned": true}`` with the
ids it was given, existing or not, and moves nothing. ``order_shapes`` answers the shapes from left to
right, or — once two shapes share a point — ``{"order": [], "error": "Ordering failed: shapes overlap"}``
in a successful result, whatever extra arguments it is given. ``add_links`` adds links to a board,
one per pair of shapes: a second link between the same two shapes replaces the first, answered only
as ``links_existed``; ``list_boards`` shows every board's links, ``check_board`` fails once a link
leads from a shape to itself.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from pydantic import Field
from typing_extensions import TypedDict

__all__ = ["Link", "build_server", "main"]

Link = TypedDict("Link", {"from": str, "to": str, "kind": str})
"""A link of a board: from one shape to another, of a kind."""


def build_server() -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("sketch", version="1.0.0", instructions="Shapes on a canvas held in memory.")
    shapes: dict[str, dict[str, Any]] = {}

    @server.tool(description="Add a shape to the canvas; returns the shape with its new id.")
    def add_shape(
        kind: Annotated[Literal["circle", "square", "triangle"], Field(description="The kind of shape.")],
        x: Annotated[int, Field(description="Horizontal position.")],
        y: Annotated[int, Field(description="Vertical position.")],
    ) -> dict[str, Any]:
        shape_id = uuid.uuid4().hex[:12]
        shape = {"id": shape_id, "kind": kind, "x": x, "y": y}
        shapes[shape_id] = shape
        return shape

    @server.tool(description="List the shapes on the canvas, optionally of one kind or matching a filter.")
    def list_shapes(
        kind: Annotated[str | None, Field(description="Only shapes of this kind.")] = None,
        filter: Annotated[dict[str, Any] | None, Field(description="Fields a shape must equal.")] = None,  # noqa: A002
    ) -> list[dict[str, Any]]:
        found = [s for s in shapes.values() if kind is None or s["kind"] == kind]
        return [s for s in found if all(s.get(k) == v for k, v in (filter or {}).items())]

    @server.tool(description="Erase a shape from the canvas.")
    def erase_shape(shape_id: Annotated[str, Field(description="The shape's id.")]) -> dict[str, Any]:
        if shape_id not in shapes:
            raise ToolError(f"Shape {shape_id} not found")
        del shapes[shape_id]
        return {"id": shape_id, "erased": True}

    @server.tool(description="Align shapes along one edge.")
    def align_shapes(
        shape_ids: Annotated[list[str], Field(description="The shapes' ids.")],
        edge: Annotated[Literal["left", "right", "top", "bottom"], Field(description="The edge to align to.")],
    ) -> dict[str, Any]:
        return {"aligned": True, "shape_ids": shape_ids, "edge": edge}

    @server.tool(description="The shapes from left to right.")
    def order_shapes() -> dict[str, Any]:
        points = [(s["x"], s["y"]) for s in shapes.values()]
        if len(points) != len(set(points)):
            return {"order": [], "error": "Ordering failed: shapes overlap"}
        return {"order": [s["id"] for s in sorted(shapes.values(), key=lambda s: (s["x"], s["y"]))]}

    boards: dict[str, dict[tuple[str, str], str]] = {}

    @server.tool(description="Add links between shapes to a board (one link per pair of shapes).")
    def add_links(
        board: Annotated[str, Field(description="Board name")],
        links: Annotated[list[Link], Field(description="Links to add")],
    ) -> dict[str, Any]:
        held = boards.setdefault(board, {})
        existed = sum((link.get("from", ""), link.get("to", "")) in held for link in links)
        for link in links:
            held[(link.get("from", ""), link.get("to", ""))] = link.get("kind", "")
        return {"links_added": len(links) - existed, "links_existed": existed}

    @server.tool(description="Every board with its links.")
    def list_boards() -> dict[str, Any]:
        return {name: [f"{a} -{kind}-> {b}" for (a, b), kind in links.items()] for name, links in boards.items()}

    @server.tool(description="Check a board's links: none may lead from a shape back to itself.")
    def check_board(board: Annotated[str, Field(description="Board name")] = "main") -> dict[str, Any]:
        loops = [a for (a, b) in boards.get(board, {}) if a == b]
        if loops:
            return {"checked": 0, "error": f"Board check failed: a link loops on {loops[0]}"}
        return {"checked": len(boards.get(board, {}))}

    return server


def main() -> None:
    build_server().run("stdio")


if __name__ == "__main__":
    main()
