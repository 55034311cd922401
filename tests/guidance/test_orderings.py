"""Orderings the build proved, in a plan: a tool fails on a made-up identifier and succeeds with the one another
tool minted in the server's process, so the minting tool goes first and the failure is said."""

from __future__ import annotations

from toolatlas.graph.models import CoUsageRelation, EntryKind, ToolNode
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.models import Effect, OutcomeClass

from .conftest import entry

MINTED = ("`session_id` is not one `open_table` made in this server's process (the same call succeeds with the "
          "`session_id` `open_table` answers, right after it)")


def sessions(*, proven: bool) -> AtlasView:
    """A table server whose sorter takes a session id the opener mints (proven by the build, or not)."""
    def tool(name: str, description: str, required: tuple[str, ...], read_only: bool) -> ToolNode:
        return ToolNode(id=f"tables.{name}", server="tables", tool=name, schema_hash="h", description=description,
                        input_schema={"type": "object", "properties": {a: {"type": "string"} for a in required},
                                      "required": list(required)})

    tools = [tool("open_table", "Open a table of the shop into a session.", ("table",), False),
             tool("sort_rows", "Sort the rows of a session by a column.", ("session_id", "column"), False),
             tool("count_rows", "Count the rows of a session.", ("session_id",), True)]
    found = [
        entry("tables", "open_table", EntryKind.AFFORDANCE, when="open a table", effect=Effect.MUTATING),
        entry("tables", "sort_rows", EntryKind.BOUNDARY, outcome=OutcomeClass.TOOL_ERROR, support=5,
              condition='called with `column` = "weight"', error_signature="Column is not sortable",
              excerpt="Column is not sortable"),
        entry("tables", "sort_rows", EntryKind.BOUNDARY, outcome=OutcomeClass.TOOL_ERROR, support=2,
              condition=MINTED if proven else 'called with `session_id` = "example"',
              error_signature="Session not found", excerpt="Session not found",
              **({"peer": "open_table", "relation": CoUsageRelation.DATA} if proven else {})),
    ]
    return AtlasView(tools, found, [], [])


class TestProvenOrderings:
    def test_the_minting_tool_goes_first(self) -> None:
        """A planned tool proven to need an identifier another tool mints has that tool planned before it;
        unproven, the plan has the sorter alone."""
        task = "Sort the price list rows by price"
        steps = Atlas(sessions(proven=True)).guide(task).plan
        assert [s.tool for s in steps] == ["tables.open_table", "tables.sort_rows"]
        assert [s.tool for s in Atlas(sessions(proven=False)).guide(task).plan] == ["tables.sort_rows"]

    def test_the_proven_cause_is_said_first(self) -> None:
        """The failure whose cause and fix the build proved (pass on what the minting tool answered) is the
        sorter's first boundary, before a better supported failure of a valid call."""
        guidance = Atlas(sessions(proven=True)).guide("Sort the price list rows by price")
        sort = next(t for t in guidance.tools if t.tool == "sort_rows")
        assert sort.when_not[0].condition == MINTED


def documents() -> AtlasView:
    """A server that reads JSON files into memory under an alias, and finds what it holds."""
    def tool(name: str, description: str, required: tuple[str, ...]) -> ToolNode:
        return ToolNode(id=f"docs.{name}", server="docs", tool=name, schema_hash="h", description=description,
                        input_schema={"type": "object", "properties": {a: {"type": "string"} for a in required},
                                      "required": list(required)})

    tools = [tool("load_document", "Load a JSON file from disk into memory.", ("file_path",)),
             tool("find_items", "Find the items of a document in memory by a field.", ("alias", "field")),
             tool("export_items", "Export the items of a loaded document to a file.", ("alias", "file_path"))]
    found = [
        entry("docs", "load_document", EntryKind.AFFORDANCE, when="load a file", effect=Effect.READ_ONLY,
              arguments={"file_path": "${root}/shop.json"}, excerpt="loaded shop: 12 items"),
        entry("docs", "find_items", EntryKind.AFFORDANCE, when="find items", effect=Effect.READ_ONLY,
              arguments={"alias": "shop", "field": "price"}, excerpt="3 items"),
        entry("docs", "export_items", EntryKind.AFFORDANCE, when="export items", effect=Effect.MUTATING,
              arguments={"alias": "shop", "file_path": "${root}/out.json"}, excerpt="exported 12 items"),
    ]
    return AtlasView(tools, found, [], [])


class TestNamedFiles:
    def test_a_named_file_is_read_in_before_tools_that_take_none(self) -> None:
        """Finding what orders.json holds, on a server whose finder takes no file: the tool that reads a file
        into the server goes first (not the exporter, which also takes one)."""
        plan = documents().plan("Find the items Ines ordered in orders.json")
        assert [s.tool[1] for s in plan.steps] == ["load_document", "find_items"]

    def test_no_reader_before_a_tool_that_takes_the_file(self) -> None:
        """Without a file named, or when a planned tool takes the file itself, nothing is read in first."""
        assert [s.tool[1] for s in documents().plan("Find the items Ines ordered by price").steps] == ["find_items"]
        assert "load_document" not in [s.tool[1] for s in documents().plan("Export the orders to out.json").steps]
