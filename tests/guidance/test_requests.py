"""How a request's plain words become a plan's operations, on a table server guidance was never tuned on:
loading reads, an average counts and "per" groups, and a list of instructions after commas is one each."""

from __future__ import annotations

from toolatlas.graph.models import ToolNode
from toolatlas.guidance import AtlasView


def tables() -> AtlasView:
    """A table server: an opener, a sorter, a grouping aggregator and a plain counter."""
    def tool(name: str, description: str, *required: str) -> ToolNode:
        return ToolNode(id=f"tables.{name}", server="tables", tool=name, schema_hash="h", description=description,
                        input_schema={"type": "object", "properties": {a: {"type": "string"} for a in required},
                                      "required": list(required)})

    return AtlasView([tool("open_table", "Load a table file into a session.", "file_path"),
                      tool("sort_rows", "Sort the rows of a session by columns.", "session_id", "columns"),
                      tool("group_aggregate", "Group rows and apply aggregation functions.", "session_id", "by"),
                      tool("count_rows", "Count the rows of a session.", "session_id")], [], [], [])


class TestRequestWords:
    def test_loading_a_file_reads_it(self) -> None:
        """"Load prices.csv" asks for a read: the tool that opens a file into the server is planned."""
        assert [(s.operation, s.tool[1]) for s in tables().plan("Load prices.csv into the server.").steps] == [
            ("read", "open_table")]

    def test_an_average_per_thing_groups_and_aggregates(self) -> None:
        """"The average price per category" is a computation over groups: the grouping aggregator is planned,
        not only the plain counter."""
        plan = tables().plan("What is the average price per category in prices.csv?")
        assert "count" in plan.operations and ("tables", "group_aggregate") in plan.tools

    def test_instructions_listed_after_commas(self) -> None:
        """A tool's own verb first after a comma is the next instruction of a list ("load it, *sort* it"), as
        it is after "then"."""
        plan = tables().plan("Load prices.csv, sort it by price from highest to lowest.")
        assert [s.tool[1] for s in plan.steps] == ["open_table", "sort_rows"]
