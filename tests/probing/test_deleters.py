"""The tool that deletes by name what a listing reader lists, and the names a listing newly shows."""

from __future__ import annotations

from toolatlas.models import ToolSpec
from toolatlas.probing.deleters import find_deleters, new_names


def tool(name: str, description: str, properties: dict, required: list[str]) -> ToolSpec:
    return ToolSpec(server="s", name=name, description=description,
                    input_schema={"type": "object", "properties": properties, "required": required})


LIST_GRAPHS = tool("list_graphs", "List all graph sessions", {}, [])
DELETE_GRAPH = tool("delete_graph", "Delete a graph session", {"graph": {"type": "string"}}, [])
FORGET = tool("forget", "Remove a node and its connected edges", {"label": {"type": "string"}}, ["label"])
LIST_SESSIONS = tool("list_sessions", "List all active sessions", {}, [])
CLOSE_SESSION = tool("close_session", "Close and clean up a session", {"session_id": {"type": "string"}}, ["session_id"])
LIST_SHELVES = tool("list_shelves", "List every shelf", {}, [])
REMOVE_SHELF = tool("remove_shelf", "Remove a shelf and its items.", {"shelf": {"type": "string"}}, ["shelf"])


class TestDeleters:
    def test_the_deleter_names_what_the_listing_lists(self) -> None:
        """A tool that deletes, removes or closes one thing of the listing's kind by name is its deleter
        (an optional only argument, a plural the listing's name holds); one of another kind is not."""
        found = find_deleters([LIST_GRAPHS, DELETE_GRAPH, FORGET, LIST_SESSIONS, CLOSE_SESSION, LIST_SHELVES, REMOVE_SHELF],
                              ["list_graphs", "list_sessions", "list_shelves"])
        assert {r: (d.tool, d.argument) for r, d in found.items()} == {
            "list_graphs": ("delete_graph", "graph"), "list_sessions": ("close_session", "session_id"),
            "list_shelves": ("remove_shelf", "shelf")}
        assert find_deleters([LIST_GRAPHS, FORGET], ["list_graphs"]) == {}

    def test_new_names_are_those_the_fresh_answer_did_not_hold(self) -> None:
        """Names under a naming key (or a plain list of names) that the fresh answer lacked; times,
        counts and other fields are no names."""
        fresh = {"graphs": [{"name": "sample", "node_count": 3, "created_at": "2026-01-01T10:00:00"}]}
        now = {"graphs": [{"name": "sample", "node_count": 4, "created_at": "2026-01-01T10:00:00"},
                          {"name": "default", "node_count": 0, "created_at": "2026-01-01T10:05:00"}]}
        assert new_names(fresh, now, "graph") == ["default"]
        assert new_names(None, {"sessions": [{"session_id": "a1", "file": "x.csv"}]}, "session_id") == ["a1"]
        assert new_names(["a"], ["a", "b"], "name") == ["b"]
