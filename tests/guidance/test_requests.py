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


def sheets_and_shop() -> AtlasView:
    """A spreadsheet server (a sheet adder, renamer, remover, a font setter, a row remover) beside a shop database
    whose only changing tool runs statements, verified on a ``DELETE``."""
    from toolatlas.graph.models import EntryKind
    from toolatlas.models import Effect

    from .conftest import entry, node

    tools = [node("sheets", "add_sheet", "Add a new sheet to a workbook.", ("file", "name"), read_only=False),
             node("sheets", "rename_sheet", "Rename a sheet of a workbook.", ("file", "sheet", "new_name"),
                  read_only=False),
             node("sheets", "delete_sheet", "Delete a sheet of a workbook.", ("file", "sheet"), read_only=False),
             node("sheets", "set_font", "Set the font of a range of cells.", ("file", "cells", "font"),
                  read_only=False),
             node("sheets", "delete_rows", "Delete rows of a sheet.", ("file", "sheet", "rows"), read_only=False),
             node("sheets", "read_sheet", "Read the cells of a sheet.", ("file",), read_only=True),
             node("shop", "list_tables", "List the tables of the shop database.", read_only=True),
             node("shop", "describe_table", "Describe the columns of a table of the shop database.", ("table",),
                  read_only=True),
             node("shop", "run_sql", "Run a SQL statement on the orders of the shop database.", ("sql",),
                  read_only=False)]
    found = [entry("shop", "run_sql", EntryKind.AFFORDANCE, when="run a statement", effect=Effect.MUTATING,
                   arguments={"sql": "DELETE FROM order_archive WHERE total = 0"}),
             entry("shop", "list_tables", EntryKind.AFFORDANCE, when="list the tables", effect=Effect.READ_ONLY,
                   excerpt="customers\norders\norder_archive"),
             entry("shop", "describe_table", EntryKind.AFFORDANCE, when="describe a table", effect=Effect.READ_ONLY,
                   arguments={"table": "order_archive"}, excerpt="id total customer")]
    return AtlasView(tools, found, [], [])


class TestValuesAndInstructions:
    def test_a_quoted_or_capitalised_value_asks_for_nothing(self) -> None:
        """Renaming a sheet to 'Delete me' (or the sheet called Delete) is a rename: the words of a name are a value
        the request gives, not an instruction to delete; a run of capitalised words is a title, whose verbs do ask."""
        view = sheets_and_shop()
        assert "delete" in view.plan("Sheet Chores: Rename Drafts, Then Delete Old Sheets In budget.xlsx").operations
        for task in ("Rename the sheet 'Old' of budget.xlsx to 'Delete me'.",
                     "Rename the sheet called Delete to Archive in budget.xlsx."):
            assert [(s.operation, s.tool[1]) for s in view.plan(task).steps] == [("rename", "rename_sheet")]

    def test_one_word_asks_for_the_operation_a_tool_does_best(self) -> None:
        """"Add a bold font to cells" is an edit (the font setter), not also a creation the sheet adder barely
        matches: of the operations one word asks for, those whose tool scores near the best are planned."""
        plan = sheets_and_shop().plan("Add a bold font to cells A1:B2 of budget.xlsx.")
        assert ("edit", "set_font") in [(s.operation, s.tool[1]) for s in plan.steps]
        assert "create" not in plan.operations and ("sheets", "add_sheet") not in plan.tools

    def test_the_routed_servers_executor_outranks_a_named_tool_elsewhere(self) -> None:
        """Deleting rows of a shop table goes to the shop's statement runner, verified on that table, not to
        the sheet server's row remover, though that one is named for deleting."""
        plan = sheets_and_shop().plan("Delete the rows of order_archive whose total is 0 in the shop database.")
        assert [(s.operation, s.tool) for s in plan.steps] == [("delete", ("shop", "run_sql"))]
        plan = sheets_and_shop().plan("Delete the second row of the table in report.xlsx.")
        assert [(s.operation, s.tool) for s in plan.steps] == [("delete", ("sheets", "delete_rows"))]

    def test_appending_is_what_an_appender_does(self) -> None:
        """"Append a row" asks for what a tool named ``append_…`` does (a write), not only for an edit."""
        from .conftest import node

        view = AtlasView([node("sheets", "append_rows", "Append rows after the last row of a sheet.", ("file", "rows"),
                               read_only=False),
                          node("sheets", "update_cell", "Update the value of one cell of a sheet.", ("file", "cell"),
                               read_only=False)], [], [], [])
        plan = view.plan("Append the row 'Q4, 120' to the Sales sheet of report.xlsx.")
        assert ("sheets", "append_rows") in plan.tools

    def test_turning_a_thing_into_another_converts_it(self) -> None:
        """"Turn letter.docx into a PDF" asks for a conversion (the converter), not for an edit."""
        from .conftest import node

        view = AtlasView([node("docs", "convert_to_pdf", "Convert a document to PDF.", ("filename",), read_only=False),
                          node("docs", "set_width", "Set the width of a table of a document.", ("filename", "width"),
                               read_only=False)], [], [], [])
        plan = view.plan("Turn letter.docx into a PDF.")
        assert plan.operations == ["convert"] and plan.tools == [("docs", "convert_to_pdf")]


class TestNounsAndSentences:
    def test_a_word_after_a_possessive_names_a_thing(self) -> None:
        """"our annual *report*" and "your *answer*" ask for no writing; "report the totals" does, and so does "a
        *new* table" (an adjective after "a") and "what does the wiki *say*" is no noun either."""
        from toolatlas.guidance.operations import as_noun, mentions

        assert [m.operation for m in mentions("Check our annual report for errors.")] == []
        assert "write" in [m.operation for m in mentions("Report the totals to me.")]
        tokens = "Load it into a new suppliers table and see what the wiki say".split()
        assert not as_noun(tokens, tokens.index("new")) and not as_noun(tokens, tokens.index("say"))

    def test_a_verb_after_did_tells_what_happened(self) -> None:
        """"How did my body weight *change*" and "when did it last change" ask about the past, not for an edit; a comma
        ends the clause ("what did it say, and *add* it to the notes" still asks to add)."""
        from toolatlas.guidance.operations import mentions

        assert [m.operation for m in mentions("How did my body weight change over the two weeks?")] == []
        assert [m.operation for m in mentions("How large is notes.txt and when did it last change?")] == []
        assert "edit" in [m.operation for m in mentions("Read what it said, and change the title.")]
        assert "create" in [m.operation for m in mentions("What did she say, then add it to the list.")]

    def test_a_sentence_run_on_without_a_space_still_asks(self) -> None:
        """"…required by the task.Write your answer in answer.txt": the second sentence's verb is an instruction."""
        from toolatlas.guidance.operations import mentions

        found = mentions("Do not add anything required by the task.Write your answer in a file named answer.txt.")
        assert [m.operation for m in found] == ["write"] and found[0].words.startswith("your answer")

    def test_a_quoted_value_is_not_what_the_operation_acts_on(self) -> None:
        """"Put 'order button moulds for the club chairs' on my to-do list": to put is to add, and what it acts on is
        the list (a to-do is a task), never the words of the title given; a quoted file name still names the
        object."""
        from toolatlas.guidance.operations import expanded, mentions

        found = mentions("Put 'order button moulds for the club chairs' on my to-do list as urgent.")
        assert "create" in [m.operation for m in found]
        assert all("button" not in m.words for m in found) and "to-do list" in found[0].words
        assert "task" in expanded("my to-do list").split() and "present" in expanded("the menu deck").split()
        assert mentions("Read 'notes.txt' please.")[0].named


def test_an_ing_form_describes_unless_it_follows_a_word_that_makes_it_an_instruction() -> None:
    """"the second *reading* frame (*starting* at base 2)" asks to read and to create nothing; "start by *creating*
    the folder" and "files *containing* TODO" still ask for what they say."""
    from toolatlas.guidance.operations import operations_in

    assert operations_in("Translate the second reading frame (starting at base 2) of GATGGCTAG.") == ["convert"]
    assert operations_in("Start by creating the folder docs, then write notes.md") == ["create", "write"]
    assert operations_in("Find files containing TODO") == ["search"]


def test_a_task_about_a_server_whose_tools_no_word_matches_gets_that_servers_tools() -> None:
    """"BsmBI sites in this nucleotide fragment" names no tool's words, but its words route it to the sequence
    server (an argument's "nucleotide sequence"): its tools are served, the other server's are not; a task routed
    nowhere (every server alike) gets no tool at all rather than all of them."""
    from toolatlas.guidance import Atlas

    def tool(server: str, name: str, description: str, **props: dict) -> ToolNode:
        return ToolNode(id=f"{server}.{name}", server=server, tool=name, schema_hash="h", description=description,
                        input_schema={"type": "object", "properties": props, "required": list(props)})

    sequence = {"type": "string", "description": "Raw nucleotide sequence or one FASTA record"}
    view = AtlasView([tool("dna", "scan_motif", "Scan an IUPAC motif on either strand.", sequence=sequence),
                      tool("dna", "gc_content", "Summarise the composition.", sequence=sequence),
                      tool("mesh", "create_cube", "Create a cube mesh.", size={"type": "number"})], [], [], [])
    served = Atlas(view).guide("Are there BsmBI sites in this nucleotide fragment?", docs_ratio=None)
    assert {t.tool for t in served.tools} == {"scan_motif", "gc_content"}
    assert Atlas(view).guide("Frobnicate the quux", docs_ratio=None).tools == []
