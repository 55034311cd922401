"""Task-conditioned guidance on servers guidance was never tuned on: plans, gaps, discovery, routing,
task-relevant boundaries, the documentation as knowledge, and no probe leftovers."""

from __future__ import annotations

from toolatlas.graph.models import CoUsageRelation, EntryKind
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.guidance.models import BoundaryNote, Guidance, PlanStep, ToolGuidance, UseNote
from toolatlas.guidance.profiles import answer_line
from toolatlas.guidance.text import fit, render_text
from toolatlas.models import Effect, OutcomeClass

from .conftest import entry, node, notes_atlas, notes_entries, notes_tools


def served(guidance) -> list[str]:
    return [t.tool for t in guidance.tools]


def failing(tool: tuple[str, str, str, tuple[str, ...]], *failures: tuple, read_only: bool = False) -> Atlas:
    """An atlas of one tool (server, name, description, required arguments) and its failures, each (family,
    support, condition, error[, the call's arguments])."""
    server, name, description, required = tool
    found = [entry(server, name, EntryKind.BOUNDARY, outcome=OutcomeClass.TOOL_ERROR, family=family, support=support,
                   condition=condition, error_signature=error, excerpt=error, arguments=(rest or [None])[0])
             for family, support, condition, error, *rest in failures]
    return Atlas(AtlasView([node(server, name, description, required, read_only=read_only)], found, [], []))


def first_warning(atlas: Atlas, task: str) -> str:
    """The error of the first boundary served for ``task`` (no budget)."""
    return atlas.guide(task, docs_ratio=None).tools[0].when_not[0].error


class TestToolSelection:
    def test_operations_choose_the_tools(self) -> None:
        """Create, then save into it: the creator and the saver are planned, in the task's order."""
        guidance = Atlas(notes_atlas()).guide("Create a notebook called trips and save a note about Lisbon in it")
        steps = [(s.operation, s.tool) for s in guidance.plan]
        assert ("create", "notes.create_notebook") in steps and ("write", "notes.save_note") in steps
        assert steps.index(("create", "notes.create_notebook")) < steps.index(("write", "notes.save_note"))

    def test_a_tool_named_for_the_instruction_does_it(self) -> None:
        """A verb the operation vocabulary lacks but a tool's name starts with is an operation when the request
        gives it as an instruction, not when it names a thing."""
        tools = [*notes_tools(), node("notes", "archive_notebook", "Take a notebook out of the active list.",
                                      ("name",), read_only=False)]
        atlas = Atlas(AtlasView(tools, notes_entries(), [], []))
        steps = [(s.operation, s.tool) for s in atlas.guide("Archive the notebook called trips").plan]
        assert ("archiv", "notes.archive_notebook") in steps
        noun = atlas.view.plan("Open the note about my archive in the work notebook")
        assert "archiv" not in noun.operations

    def test_a_verb_after_the_prefix_the_server_names_its_tools_under(self) -> None:
        """``erp_stage_invoice`` and ``erp_match_po`` share the prefix ``erp``: the word after it is the tool's
        own verb, so "Stage it" plans the stager; a prefix of one tool's name alone is no namespace."""
        from toolatlas.guidance.operations import namespaces, tool_operations

        names = ["erp_stage_invoice", "erp_match_po", "invoices_extract", "log_food", "get_vendor", "get_po"]
        assert namespaces(names, "invoices") == {"erp"}  # "get" opens names as their verb
        assert tool_operations("erp_stage_invoice", "Creates a not-yet-posted invoice record.", "invoices",
                               namespaces(names, "invoices"))["stage"] == 1.0
        assert "stage" not in tool_operations("erp_stage_invoice", "Creates a not-yet-posted invoice record.")
        tools = [node("invoices", "erp_stage_invoice", "Creates a reversible, not-yet-posted invoice record.",
                      ("invoice_id",), read_only=False),
                 node("invoices", "erp_match_po", "Three-way match of an invoice against its purchase order.",
                      ("invoice_id",), read_only=True),
                 node("invoices", "invoices_extract", "Extract the fields of one inbox invoice.", ("invoice_id",),
                      read_only=True)]
        plan = AtlasView(tools, [], [], []).plan("Hallam Timber chased invoice HTM-40655. Stage it for this week.")
        assert ("stage", ("invoices", "erp_stage_invoice")) in [(s.operation, s.tool) for s in plan.steps]

    def test_what_a_name_acts_on_is_read_after_its_prefix(self) -> None:
        """``pptx_add_slide`` on a server named ``slides`` acts on a slide (``pptx`` opens every name: no object), so
        "Add a slide … to the menu deck" plans the slide adder, not the deck maker; a ``tables`` server's
        ``open_table`` still loads a file the request names without saying "table"."""
        tools = [node("slides", name, description, (), read_only=False) for name, description in (
            ("pptx_add_slide", "Add a slide with a title and bullet points to the presentation."),
            ("pptx_create_quick_deck", "Create a complete presentation with title slide in one call."),
            ("pptx_list", "List the presentations held in memory."))]
        view = AtlasView(tools, [], [], [])
        assert view.profiles[("slides", "pptx_add_slide")].objects == {"slide"}
        plan = view.plan("Add a slide listing this week's specials (leek and potato soup) to the menu deck.")
        assert ("create", ("slides", "pptx_add_slide")) in [(s.operation, s.tool) for s in plan.steps]

    def test_numbers_and_sentence_ends_name_nothing(self) -> None:
        """A decimal number or a word before a full stop is no exact name; a file name or a path is."""
        from toolatlas.guidance.operations import names_something

        assert not names_something("Evaluate rate * 12 where rate is 0.5.")
        assert not names_something("What is 1500 * 1.04^10? I need it.")
        assert names_something("Open notes.txt") and names_something("Read src/app")

    def test_phrasal_verbs_and_plural_nouns(self) -> None:
        """"Look up" asks for a search; "saves", a noun where an instruction has the bare verb, asks for nothing."""
        view = notes_atlas()
        assert "search" in view.plan("Look up the note about Lisbon").operations
        assert "delete" in view.plan("We dropped the Lisbon trip. Take it off the work notebook.").operations
        assert view.plan("Open the note that lists my saves in the work notebook").operations == ["read"]

    def test_the_head_of_a_noun_phrase_asks_for_nothing(self) -> None:
        """"the directory *export* we took on Friday" names a thing (a clause about it follows); "Export the directory"
        and "what does the wiki *say*?" still ask."""
        from toolatlas.guidance.operations import operations_in

        assert "export" not in operations_in("How big is the directory export we took on Friday?")
        assert operations_in("Export the directory we took on Friday") == ["export"]
        assert operations_in("What does the wiki say?") == ["read"]

    def test_what_a_code_means_is_no_average(self) -> None:
        """"What does R02 mean?" asks for a meaning; "the mean of the readings" for an average."""
        from toolatlas.guidance.operations import operations_in

        assert "count" not in operations_in("What does return reason R02 mean?")
        assert "count" in operations_in("Give the mean of the temperature readings")

    def test_give_me_asks_for_a_read(self) -> None:
        """"Give me its full text", like "show me", asks to read what follows whom it is for."""
        assert notes_atlas().plan("Give me the full text of the todo note").operations == ["read"]

    def test_a_getter_reads_and_a_description_that_gets_does_not(self) -> None:
        """A tool named ``get_…`` reads; "Get …" in a description alone says nothing of what a tool does."""
        from toolatlas.guidance.operations import tool_operations

        assert tool_operations("get_document_text", "Extract all text from a document.")["read"] == 1.0
        assert "read" not in tool_operations("describe_table", "Get the schema of a table.")

    def test_the_object_of_an_operation(self) -> None:
        """"Show *me* the …" acts on what follows whom it is for; a verb last in its clause acts on what
        precedes it ("what does the report *say*?")."""
        from toolatlas.guidance.operations import mentions

        [show] = mentions("Show me the details of commit e4b603a")
        assert show.operation == "read" and show.words.startswith("the details of commit")
        say = [m for m in mentions("What does the quarterly report say?") if m.operation == "read"]
        assert say and "quarterly report" in say[0].words

    def test_a_question_about_a_named_thing(self) -> None:
        """A question about a named file reads it; "when" inside a statement asks nothing."""
        from toolatlas.guidance.operations import asks_about_named

        assert asks_about_named("What does `src/app.py` return?") and asks_about_named("When was notes.txt made")
        assert not asks_about_named("`save_note` fails when `body` is null: Input validation error.")

    def test_a_question_about_a_named_thing_reads_it_beside_other_operations(self) -> None:
        """"What is the output of … in `work/todo.note`?" reads the note, though "output" also asks to write."""
        plan = notes_atlas().plan("What is the output returned at line 3 of `work/todo.note`?")
        assert ("read", ("notes", "open_note")) in [(s.operation, s.tool) for s in plan.steps]

    def test_which_things_a_named_container_holds_is_a_listing(self) -> None:
        """"Which files are inside site-backup.tar.gz?" lists the archive, though a question about a named thing
        otherwise reads it, and an extractor is named for a reading word."""
        from toolatlas.guidance.operations import asks_for_members

        tools = [node("arc", "extract", "Extract a ZIP or TAR.GZ archive into a folder.", ("input",), read_only=False),
                 node("arc", "list_archive", "List what a ZIP or TAR.GZ archive holds without extracting it.",
                      ("input",), read_only=True)]
        view = AtlasView(tools, [], [], [])
        plan = view.plan("Which files are inside site-backup.tar.gz? Don't unpack it.")
        assert [(s.operation, s.tool) for s in plan.steps] == [("list", ("arc", "list_archive"))]
        plan = view.plan("What is inside site-backup.tar.gz?")
        assert [(s.operation, s.tool) for s in plan.steps] == [("read", ("arc", "extract"))]
        assert asks_for_members("What tables does shop.db have?")
        assert not asks_for_members("Which files are large?") and not asks_for_members("What does notes.txt say?")

    def test_an_export_a_converter_does_is_no_gap(self) -> None:
        """A tool that converts a document to another format exports it: no "No tool exports" is said."""
        tools = [*notes_tools(), node("notes", "convert_to_pdf", "Convert a note to a PDF file.", ("notebook", "title"),
                                      read_only=False)]
        guidance = Atlas(AtlasView(tools, notes_entries(), [], [])).guide("Export the groceries note as a PDF")
        assert not [g for g in guidance.gaps if g.operation == "export"]
        assert "convert_to_pdf" in served(guidance)[:2]

    def test_how_a_request_is_asked_matches_no_tool(self) -> None:
        """Words of how a request is asked ("about", "any more") lift no tool whose description has them:
        a request about a note meets the note tools, not a tool "about" a day."""
        tools = [*notes_tools(), node("calendar", "describe_day", "Everything about a day, and more.", ("day",),
                                      read_only=True)]
        view = AtlasView(tools, notes_entries(), [], [])
        assert view.tool_relevance("about any more", None) == {}
        relevance = view.tool_relevance("Drop the note about groceries, I don't need it any more", None)
        assert ("calendar", "describe_day") not in relevance

    def test_an_entry_count_does_not_lift_a_tool(self) -> None:
        """A tool with forty entries full of the task's words does not displace the tool that does the work."""
        task = "Put buy milk into my todo note in the work notebook"
        plain = served(Atlas(notes_atlas()).guide(task))
        loaded = served(Atlas(notes_atlas(rename_entries=40)).guide(task))
        assert "save_note" in loaded[:3]
        assert "rename_note" not in loaded[: loaded.index("save_note") + 1]
        assert loaded.index("save_note") == plain.index("save_note")

    def test_a_missing_operation_is_said_and_composed(self) -> None:
        """No tool copies: the gap is said, and the reader and the writer that do it are served."""
        guidance = Atlas(notes_atlas()).guide("Copy the note groceries from the home notebook into the work notebook")
        [gap] = [g for g in guidance.gaps if g.operation == "copy"]
        assert gap.text.startswith("No tool copies") and {"notes.open_note", "notes.save_note"} <= set(gap.tools)
        assert {"open_note", "save_note"} <= set(served(guidance))

    def test_a_tool_that_mirrors_is_a_copy(self) -> None:
        """A tool that mirrors one folder into another copies: "copy my notes out to the backup folder" is planned
        on it, not read + write."""
        tools = [*notes_tools(), node("notes", "mirror_notes", "Mirror every note out to a backup directory.", (),
                                      read_only=False)]
        guidance = Atlas(AtlasView(tools, notes_entries(), [], [])).guide("Copy my notes out to the backup folder")
        assert not [g for g in guidance.gaps if g.operation == "copy"]
        assert served(guidance)[0] == "mirror_notes"

    def test_a_content_search_is_not_sent_to_a_name_search(self) -> None:
        """A search for words inside notes is told that the search tool matches titles, and to read instead."""
        guidance = Atlas(notes_atlas()).guide("Find the notes that contain the word invoice")
        [gap] = [g for g in guidance.gaps if g.operation == "search"]
        assert "`find_notes` matches names" in gap.text and "glob-style pattern" in gap.text
        assert "notes.open_note" in gap.tools and "open_note" in served(guidance)

    def test_a_search_of_values_is_a_content_search(self) -> None:
        """A tool that searches values for a substring or a regex pattern (and returns their paths), or runs SQL over
        the data, searches contents: a search for text inside is sent to it, and no gap says otherwise."""
        tools = [node("docs", "load_doc", "Load a JSON file into memory.", ("file_path",), read_only=True),
                 node("docs", "search_text", "Recursively search all string values for a substring or regex pattern. "
                      "Returns the paths and values of every match found.", ("alias", "pattern"), read_only=True),
                 node("db", "execute_query", "Execute a SQL query. Unqualified table names resolve to the current "
                      "schema.", ("sql",), read_only=False)]
        view = AtlasView(tools, [], [], [])
        guidance = Atlas(view).guide("Search orders.json for text containing the word refund", docs_ratio=None)
        assert not guidance.gaps and ("search", "docs.search_text") in [(s.operation, s.tool) for s in guidance.plan]
        from toolatlas.guidance.operations import name_search

        assert not name_search(tools[2].description)

    def test_a_request_with_no_operation_discovers_for_its_answer(self) -> None:
        """"My todo note, please" asks for no operation: the discovery tool that supplies the notebook the
        best-matching reader needs comes first; a request naming its note exactly needs none."""
        atlas = Atlas(notes_atlas())
        assert atlas.view.plan("My todo note, please").discovery == [("notes", "list_notebooks")]
        assert served(atlas.guide("My todo note, please"))[:2] == ["list_notebooks", "open_note"]
        assert atlas.view.plan("My work/todo.note, please").discovery == []

    def test_the_discovery_tool_comes_first(self) -> None:
        """The tool that needs nothing and was verified to feed the others' arguments is the first step."""
        guidance = Atlas(notes_atlas()).guide("Save a note titled ideas with the body more tests")
        assert guidance.plan[0].operation == "discover" and guidance.plan[0].tool == "notes.list_notebooks"
        assert guidance.plan[0].feeds == "notes.save_note"

    def test_look_before_changing_what_the_request_does_not_name(self) -> None:
        """Staging pending work names no file: the read-only tool whose verified answer listed a file the
        stager was verified to take goes first; a request that names the file needs no look."""
        def tool(name: str, required: tuple[str, ...], read_only: bool):
            return node("repo", name, f"The {name} tool.", required, read_only=read_only)

        tools = [tool("stage", ("repo", "files"), False), tool("status", ("repo",), True),
                 tool("history", ("repo",), True)]
        found = [entry("repo", "stage", EntryKind.AFFORDANCE, when="stage files", arguments={
                     "repo": "${repo}", "files": ["${repo}/src/core.py"]}),
                 entry("repo", "stage", EntryKind.BOUNDARY, family="nonexistent_reference",
                       outcome=OutcomeClass.TOOL_ERROR, condition="`files[0]` names a file that does not exist",
                       error_signature="pathspec did not match", excerpt="pathspec did not match"),
                 entry("repo", "status", EntryKind.AFFORDANCE, when="show the status", arguments={"repo": "${repo}"},
                       excerpt="On main. modified: src/core.py"),
                 entry("repo", "history", EntryKind.AFFORDANCE, when="show the history", arguments={"repo": "${repo}"},
                       excerpt="commit 1: initial import")]
        view = AtlasView(tools, found, [], [])
        plan = view.plan("Stage my pending work so it is ready.")
        assert [(s.operation, s.tool[1]) for s in plan.steps] == [("inspect", "status"), ("stage", "stage")]
        assert [s.tool[1] for s in view.plan("Stage src/core.py now").steps] == ["stage"]

    def test_a_listing_no_list_tool_names_is_a_read(self) -> None:
        """"List the products with little stock" on a server whose only lister lists tables is read by its
        query reader; "list the tables" is still the lister's."""
        tools = [node("shop", "list_tables", "List all tables in the database.", read_only=True),
                 node("shop", "read_query", "Execute a SELECT query on the database.", ("query",), read_only=True)]
        used = [entry("shop", "read_query", EntryKind.AFFORDANCE, when="read the products", effect=Effect.READ_ONLY,
                      arguments={"query": "SELECT name, stock FROM products"}, excerpt="[('Lamp', 4)]")]
        view = AtlasView(tools, used, [], [])
        plan = view.plan("List the products that have fewer than five items in stock.")
        assert [(s.operation, s.tool[1], s.composes) for s in plan.steps] == [("read", "read_query", "list")]
        assert [s.tool[1] for s in view.plan("List the tables in the database.").steps] == ["list_tables"]

    def test_reading_properties_is_inspecting(self) -> None:
        """"Read the metadata of all files" plans the inspector only; "read all files" the reader."""
        tools = [node("files", "read_files", "Read the contents of several files.", ("paths",), read_only=True),
                 node("files", "get_file_info", "Get metadata of a file: its size and times.", ("path",),
                      read_only=True)]
        view = AtlasView(tools, [], [], [])
        assert [s.tool[1] for s in view.plan("Read the metadata of all files in the folder.").steps] == ["get_file_info"]
        assert [s.tool[1] for s in view.plan("Read all files in the folder.").steps] == ["read_files"]

    def test_one_operation_over_several_new_things(self) -> None:
        """"Add a heading … with a paragraph under it" plans the heading adder and the paragraph adder; a
        paragraph the request only refers to ("above the first paragraph") adds none."""
        tools = [node("docs", "add_heading", "Add a heading to a document.", ("name", "text"), read_only=False),
                 node("docs", "add_paragraph", "Add a paragraph to a document.", ("name", "text"), read_only=False),
                 node("docs", "add_table", "Add a table to a document.", ("name", "rows"), read_only=False)]
        view = AtlasView(tools, [], [], [])
        plan = view.plan("Add a 'Risks' heading to the report with a paragraph under it saying delays are the risk.")
        assert [s.tool[1] for s in plan.steps] == ["add_heading", "add_paragraph"]
        plan = view.plan("Add a 'Risks' heading to the report above the first paragraph.")
        assert [s.tool[1] for s in plan.steps] == ["add_heading"]

    def test_an_executor_stands_in_for_a_change_no_tool_is_named_for(self) -> None:
        """"Record a trip" on a server whose only changing tool executes statements plans that tool for the
        write; a tool named for writing, where there is one, does it instead."""
        tools = [node("trips", "list_tables", "List the tables.", read_only=True),
                 node("trips", "execute_statement", "Execute a statement on the database.", ("sql",), read_only=False)]
        used = [entry("trips", "execute_statement", EntryKind.AFFORDANCE, when="execute a statement",
                      effect=Effect.MUTATING, arguments={"sql": "INSERT INTO trips VALUES ('Ada', 3)"})]
        plan = AtlasView(tools, used, [], []).plan("Record a 4-night trip by Chen in the trips table.")
        assert [(s.operation, s.tool) for s in plan.steps] == [("write", ("trips", "execute_statement"))]
        writer = node("trips", "write_trip", "Write a trip to the trips table.", ("traveller",), read_only=False)
        plan = AtlasView([*tools, writer], used, [], []).plan("Record a 4-night trip by Chen in the trips table.")
        assert [(s.operation, s.tool) for s in plan.steps] == [("write", ("trips", "write_trip"))]

    def test_a_file_a_request_takes_from_is_read_by_the_server_that_reads_files(self) -> None:
        """"Load the trips from data/trips.csv into a new table": the database's reader of trips takes no file,
        so the file server's reader (verified on a named file) goes first; a file the request writes to is no
        source."""
        tools = [node("db", "read_query", "Read the trips rows of the database with a SELECT query.", ("query",),
                      read_only=True),
                 node("db", "create_table", "Create a new table in the database.", ("query",), read_only=False),
                 node("db", "write_query", "Execute an INSERT, UPDATE, or DELETE query.", ("query",), read_only=False),
                 node("files", "read_text_file", "Read the complete contents of a file as text.", ("path",),
                      read_only=True),
                 node("files", "write_file", "Create a new file or overwrite a file.", ("path", "content"),
                      read_only=False)]
        used = [entry("db", "read_query", EntryKind.AFFORDANCE, when="select trips", excerpt="trips: who, nights",
                      arguments={"query": "SELECT * FROM trips"}),
                entry("db", "create_table", EntryKind.AFFORDANCE, when="create a table", effect=Effect.MUTATING,
                      arguments={"query": "CREATE TABLE trips (who TEXT)"}),
                entry("files", "read_text_file", EntryKind.AFFORDANCE, when="read a file",
                      arguments={"path": "${root}/data/notes.csv"})]
        view = AtlasView(tools, used, [], [])
        plan = view.plan("Load the trips from data/trips.csv into a new trips table in the database.")
        assert plan.steps[0].tool == ("files", "read_text_file") and ("db", "create_table") in plan.tools
        plan = view.plan("Create a new trips table in the database and save its schema to data/schema.csv.")
        assert ("files", "read_text_file") not in plan.tools

    def test_the_right_server_first(self) -> None:
        """Among two servers, a calendar request is answered with calendar tools first."""
        guidance = Atlas(notes_atlas()).guide("Add an event on Monday to the calendar: dentist at nine")
        assert served(guidance)[0] == "add_event"
        assert all(t.server == "calendar" for t in guidance.tools if t.operations)


class TestBoundaries:
    def test_the_boundary_the_plan_hits_comes_first(self) -> None:
        """Saving into a notebook the task creates: the missing-notebook failure is served before the
        better-supported schema violations, and those at most once."""
        guidance = Atlas(notes_atlas()).guide("Make a new notebook named archive and save the note there")
        save = next(t for t in guidance.tools if t.tool == "save_note")
        assert save.when_not and "does not exist" in save.when_not[0].condition
        assert sum(1 for b in save.when_not if "Input validation" in b.error) <= 1

    def test_a_file_a_result_goes_into_may_already_exist(self) -> None:
        """Compressing into a named archive meets the refusal of an output that already exists, served beside
        better supported failures; compressing with no named output leaves it to them."""
        tools = [node("arc", "compress", "Compress files into an archive.", ("input",), optional=("output",),
                      read_only=False)]
        fail = OutcomeClass.TOOL_ERROR
        found = [
            entry("arc", "compress", EntryKind.AFFORDANCE, when="compress a file", effect=Effect.MUTATING,
                  arguments={"input": "notes.txt"}),
            entry("arc", "compress", EntryKind.BOUNDARY, outcome=fail, support=9,
                  condition="called with `format` = \"rar\" (the error names it)",
                  error_signature="Unsupported format: rar", excerpt="Unsupported format: rar"),
            entry("arc", "compress", EntryKind.BOUNDARY, outcome=fail, support=7,
                  condition="called with `level` = 12 (the error names it)",
                  error_signature="Compression level must be 0-9", excerpt="Compression level must be 0-9"),
            entry("arc", "compress", EntryKind.BOUNDARY, outcome=fail, support=2, family="already_exists",
                  condition="`output` names an existing file", error_signature="Output file already exists: <path>",
                  excerpt="Output file already exists: backup.zip. Use overwrite=true to replace."),
        ]
        atlas = Atlas(AtlasView(tools, found, [], []))
        served = atlas.guide("Compress notes.txt into invoices-2024.zip").tools[0].when_not
        assert any("already exists" in b.error for b in served)
        served = atlas.guide("Compress notes.txt with the best compression").tools[0].when_not
        assert len(served) == 2 and not any("already exists" in b.error for b in served)

    def test_an_argument_the_task_gives_a_value_meets_its_finding(self) -> None:
        """"A level 10 heading called Plan": the finding about `level` = 10 comes before one that only shares
        a word with the heading's text ("plan.txt"), though both are natural failures passed off as success."""
        tools = [*notes_tools(), node("notes", "add_heading", "Add a heading to a note.", ("title", "text"),
                                      optional=("level",), read_only=False)]
        fail = OutcomeClass.TOOL_ERROR
        findings = [
            entry("notes", "add_heading", EntryKind.BOUNDARY, outcome=fail, reported_as_success=True, support=3,
                  condition='called with `title` = "plan.txt" (the error names it)',
                  error_signature="Note plan.txt.note does not exist", excerpt="Note plan.txt.note does not exist"),
            entry("notes", "add_heading", EntryKind.BOUNDARY, outcome=fail, reported_as_success=True,
                  condition="called with `level` = 10 (the error names it)",
                  error_signature="Invalid heading level: 10", excerpt="Invalid heading level: 10"),
        ]
        atlas = Atlas(AtlasView(tools, [*notes_entries(), *findings], [], []))
        guidance = atlas.guide("Add a level 10 heading called Plan to the todo note", servers=["notes"])
        heading = next(t for t in guidance.tools if t.tool == "add_heading")
        assert heading.when_not and "`level` = 10" in heading.when_not[0].condition

    def test_an_everyday_word_meets_the_condition_in_the_documentations_words(self) -> None:
        """Linting "the build folder" meets the failure of naming a *directory* where a file is expected, before a
        better supported failure the task's words do not point at."""
        atlas = failing(("lint", "lint_files", "Lint source files.", ("paths",)),
                        ("missing_extension", 9, "`paths[0]` names an existing file without its extension (`.js`)",
                         "No files matching 'src/app' were found"),
                        ("path_is_directory", 2, "`paths[0]` names a directory where a file is expected",
                         "All files matched by 'build' are ignored"), read_only=True)
        first = first_warning(atlas, "Lint everything in the build folder.")
        assert first == "All files matched by 'build' are ignored"

    def test_a_quoted_name_risks_that_it_does_not_exist(self) -> None:
        """Approving the 'Proofread' task: the failure of a task that does not exist comes before a better
        supported failure the task's words point at as much."""
        atlas = failing(("tasks", "approve_task", "Approve a task of a request.", ("request", "task")),
                        ("nonexistent_reference", 2, "`task` names a task that does not exist", "Task not found"),
                        ("malformed_value", 9, "`request` is a request id in lower case", "Bad request id"))
        assert first_warning(atlas, "Approve the 'Proofread' task of the newsletter request.") == "Task not found"

    def test_the_very_file_a_finding_failed_on_comes_first(self) -> None:
        """Extracting payroll-2024.zip meets the failure the build saw on that very archive (encrypted) before a
        better supported one the task's words point at as much; another archive does not."""
        atlas = failing(("archives", "extract", "Extract an archive into a folder.", ("input", "output")),
                        (None, 1, 'called with `input` = "${root}/payroll-2024.zip"', "password required"),
                        ("path_is_file", 9, "the parent of `output` is a file, not a folder", "Not a directory"))
        assert first_warning(atlas, "Extract payroll-2024.zip into a folder called restored.") == "password required"
        assert first_warning(atlas, "Extract site-backup.tar.gz into a folder called restored.") == "Not a directory"

    def test_an_expression_that_divides_risks_a_zero_divisor(self) -> None:
        """An expression with a division meets the evaluator's division-by-zero failure before a better supported
        one; an expression without does not."""
        atlas = failing(("calc", "evaluate", "Evaluate an arithmetic expression.", ("expression",)),
                        ("malformed_value", 9, "`expression` calls a function that does not exist",
                         "Unknown identifier: no_such_function"),
                        ("malformed_value", 2, "`expression` divides by zero", "division by zero"), read_only=True)
        assert first_warning(atlas, "Evaluate 10 / (5 - 5).") == "division by zero"
        assert first_warning(atlas, "Evaluate 10 * (5 - 5).") != "division by zero"

    def test_a_contrived_value_needs_more_than_its_arguments_name(self) -> None:
        """A task that names a column does not point at an empty column name: the contrived failure ranks like
        schema validation, after the natural failure of the tool."""
        atlas = failing(("tables", "change_type", "Change the type of a column.", ("column", "dtype")),
                        ("empty_value", 9, "`column` is an empty string", "Column '' not found"),
                        (None, 2, 'called with `dtype` = "example" (the error names it)', "Unsupported dtype: example",
                         {"column": "salary", "dtype": "example"}))
        assert first_warning(atlas, "Change the salary column to the money type.") == "Unsupported dtype: example"

    def test_a_lookup_that_found_nothing_is_no_contrived_value(self) -> None:
        """A pin numbered 10^9 "not found on ESP32" says what any pin outside the board's table meets: served to a task
        naming a pin by its code, while a huge value refused for its size stays contrived."""
        pin = failing(("gpio", "get_pin_info", "Get detailed information about a GPIO pin.", ("board", "pin")),
                      ("oversized_value", 2, "`pin` is huge (10^9)", "❌ Pin 1000000000 not found on ESP32"),
                      read_only=True)
        assert first_warning(pin, "What is GPIO9 on the ESP32 good for?") == "❌ Pin … not found on ESP32"
        sized = failing(("gpio", "get_pin_info", "Get detailed information about a GPIO pin.", ("board", "pin")),
                        ("oversized_value", 2, "`pin` is huge (10^9)", "pin must be at most 40"), read_only=True)
        assert not sized.guide("What is GPIO9 on the ESP32 good for?", docs_ratio=None).tools[0].when_not

    def test_errors_that_differ_only_in_the_value_passed_are_one(self) -> None:
        """"Unsupported dtype: demo" and "Unsupported dtype: example", each naming the value its call passed, are
        one finding: the tool's second boundary is another failure."""
        atlas = failing(("tables", "change_type", "Change the type of a column.", ("column", "dtype")),
                        *((None, 3, f'called with `dtype` = "{name}" (the error names it)',
                           f"Unsupported dtype: {name}", {"column": "salary", "dtype": name})
                          for name in ("demo", "example")),
                        (None, 1, 'called with `column` = "wage" (the error names it)', "Column 'wage' not found",
                         {"column": "wage", "dtype": "int"}))
        guidance = atlas.guide("Change how salary is stored, to money.", docs_ratio=None)
        errors = [b.error for b in guidance.tools[0].when_not]
        assert len(errors) == 2 and sum("Unsupported dtype" in e for e in errors) == 1

    def test_findings_that_differ_only_in_what_the_state_listed_are_one(self) -> None:
        """Two answers naming a missing sheet that list different sheets available are one finding."""
        reader = node("sheets", "read_sheet", "Read a sheet of a workbook.", ("file", "sheet"), read_only=True)
        fail = OutcomeClass.TOOL_ERROR
        findings = [entry("sheets", "read_sheet", EntryKind.BOUNDARY, outcome=fail,
                          condition='called with `sheet` = "Sheet1" (the error names it)',
                          error_signature=f"Sheet not found: <s>. Available: [{listed}]",
                          excerpt=f"Sheet not found: 'Sheet1'. Available: [{listed}]")
                    for listed in ("<s>, <s>", "<s>, <s>, <s>")]
        assert len(AtlasView([reader], findings, [], []).profiles[("sheets", "read_sheet")].findings) == 1

    def test_findings_that_differ_only_in_random_names_are_one(self) -> None:
        """Two missing-notebook findings with different harvested names are served once."""
        guidance = Atlas(notes_atlas()).guide("Make a new notebook named archive and save the note there",
                                              max_tokens=5000, docs_ratio=None)
        save = next(t for t in guidance.tools if t.tool == "save_note")
        assert sum(1 for b in save.when_not if "does not exist" in b.condition) == 1

    def test_no_probe_leftovers_in_use_notes(self) -> None:
        """Use notes say which arguments worked and what changed, never a probe's harvested names."""
        guidance = Atlas(notes_atlas()).guide("Save a note titled ideas with the body more tests", max_tokens=5000,
                                              docs_ratio=None)
        save = next(t for t in guidance.tools if t.tool == "save_note")
        assert save.when[0].text == "works with `notebook`, `title`, `body`; changes state"
        assert "probe_7b43" not in guidance.to_text()

    def test_an_ordering_the_plan_must_respect_leads(self) -> None:
        """A failure until another tool has changed the state is served first, ahead of a better supported
        contrived misuse whose words happen to match what writing risks."""
        found = [*notes_entries(),
                 entry("notes", "save_note", EntryKind.BOUNDARY, family="path_escape", support=30,
                       outcome=OutcomeClass.TOOL_ERROR, condition="`notebook` climbs out of the allowed folder",
                       error_signature="Notebook path is outside the allowed directory",
                       excerpt="Notebook path is outside the allowed directory"),
                 entry("notes", "save_note", EntryKind.BOUNDARY, peer="create_notebook", support=1,
                       relation=CoUsageRelation.STATE, outcome=OutcomeClass.TOOL_ERROR,
                       condition="called on the unchanged snapshot (the same call succeeds once "
                                 "`create_notebook` has changed the state)",
                       error_signature="No notebook yet", excerpt="No notebook yet")]
        guidance = Atlas(AtlasView(notes_tools(), found, [], [])).guide("Save a note titled ideas with the body more tests",
                                                                  max_tokens=5000, docs_ratio=None)
        errors = [b.error for b in next(t for t in guidance.tools if t.tool == "save_note").when_not]
        assert "No notebook yet" in errors and "Notebook path is outside the allowed directory" not in errors

    def test_a_related_tool_says_the_failure_any_use_meets(self) -> None:
        """A tool served beside the plan says its ordering (it fails until the planned tool has acted), though
        the task's words never point at it."""
        tools = [node("patterns", "add_case", "Add a case the pattern must match.", ("text",), read_only=False),
                 node("patterns", "check_pattern", "Check a pattern against every case.", ("pattern",),
                      read_only=True)]
        ordering = entry("patterns", "check_pattern", EntryKind.BOUNDARY, peer="add_case",
                         relation=CoUsageRelation.STATE, outcome=OutcomeClass.TOOL_ERROR,
                         condition="called on the unchanged snapshot (the same call succeeds once `add_case` has "
                                   "changed the state)", error_signature="No cases defined", excerpt="No cases defined")
        guidance = Atlas(AtlasView(tools, [ordering], [], [])).guide("Add a case for the pattern a+ with the text aaa",
                                                                    max_tokens=5000, docs_ratio=None)
        check = next(t for t in guidance.tools if t.tool == "check_pattern")
        assert not check.operations and [b.error for b in check.when_not] == ["No cases defined"]

    def test_a_planned_tool_says_its_telling_failure(self) -> None:
        """When no finding matches the task's words, a planned tool still says its best-supported boundary —
        never schema validation or a contrived value, however well supported."""
        def failure(family: str | None, support: int, error: str):
            return entry("calendar", "add_event", EntryKind.BOUNDARY, family=family, support=support,
                         outcome=OutcomeClass.TOOL_ERROR, condition=f"a {family} case", error_signature=error,
                         excerpt=error)

        found = [*notes_entries(), failure("empty_value", 9, "Summary is blank"),
                 failure("schema_validation", 8, "Input validation error"),
                 failure("malformed_value", 2, "Unknown weekday")]
        guidance = Atlas(AtlasView(notes_tools(), found, [], [])).guide("Add an event on Monday to the calendar: "
                                                                         "dentist at nine")
        event = next(t for t in guidance.tools if t.tool == "add_event")
        assert [b.error for b in event.when_not] == ["Unknown weekday"]

    def test_no_probe_leftovers_in_errors(self) -> None:
        """The server's error is quoted with the name the probe invented replaced by its argument's name."""
        guidance = Atlas(notes_atlas()).guide("Make a new notebook named archive and save the note there")
        save = next(t for t in guidance.tools if t.tool == "save_note")
        assert save.when_not[0].error == "Notebook '<notebook>' not found"
        assert "missing_" not in guidance.to_text()


    def test_the_clause_the_task_meets_comes_first(self) -> None:
        """Of many operative clauses, the one a relative path in the request runs into is said first."""
        reader = node("files", "get_contents", "Get the contents of text files. Returns the lines with hashes. "
                      "Hashes must be passed back when editing. Ranges default to the whole file. "
                      "File paths must be absolute.", ("file_path",), read_only=True)
        guidance = Atlas(AtlasView([reader], [], [], [])).guide("Show me notes/todo.txt with line numbers")
        assert guidance.tools[0].documented[0].text == "File paths must be absolute."


class TestQuotedAnswers:
    def test_the_first_line_that_says_something(self) -> None:
        """A plain answer is quoted by its first line; an answer whose first line is a brace is quoted whole, on one line."""
        assert answer_line("Invalid timezone: Mars/Olympus\nTraceback…") == "Invalid timezone: Mars/Olympus"
        pretty = '{\n  "error": "Priority must be a single uppercase letter (A-Z)",\n  "priority": "b"\n}'
        assert answer_line(pretty) == '{ "error": "Priority must be a single uppercase letter (A-Z)", "priority": "b" }'

    def test_a_tally_where_nothing_went_through_is_quoted_by_its_reason(self) -> None:
        """``Extraction completed … Succeeded: 0 … Error: <reason>``: the reason, with an object's printed fields
        folded; a tally where something went through keeps its first line."""
        tally = ("Extraction completed\n=====\nArchives processed: 1\nSucceeded: 0\nFailed: 1\n\n❌ payroll.zip\n"
                 "   Error: ZIP extraction failed: File <ZipInfo filename='payroll/march.csv' compress_type=99 "
                 "filemode='?rw-------' file_size=112> is encrypted, password required for extraction\n")
        assert answer_line(tally) == "ZIP extraction failed: File <ZipInfo …> is encrypted, password required for extraction"
        done = tally.replace("Succeeded: 0", "Succeeded: 1").replace("Failed: 1", "Failed: 0")
        assert answer_line(done) == "Extraction completed"

    def test_a_line_that_opens_a_structure_is_said_with_it(self) -> None:
        """A prefix ending in a brace ("Error calling tool 'x': {") is quoted with the JSON body that says what
        went wrong."""
        said = 'Error calling tool \'run\': {\n  "success": false,\n  "error": "Constraint Error: Duplicate key"\n}'
        assert answer_line(said) == ('Error calling tool \'run\': { "success": false, "error": '
                                     '"Constraint Error: Duplicate key" }')

    def test_findings_behind_an_opening_line_are_told_apart(self) -> None:
        """Two failures whose error signatures are the same opening line ("… : {") are two findings, each
        said and ranked by its answer: a task that writes meets the constraint one."""
        runner = node("db", "run_sql", "Run a SQL statement.", ("sql",), read_only=False)
        fail = OutcomeClass.TOOL_ERROR
        findings = [entry("db", "run_sql", EntryKind.BOUNDARY, outcome=fail, condition=condition, support=support,
                          error_signature="Error calling tool <s>: {",
                          excerpt=f'Error calling tool \'run_sql\': {{\n  "error": "{error}"\n}}')
                    for condition, error, support in (
                        ("`sql` deletes from a view", "Binder Error: Can only delete from base table", 5),
                        ("`sql` inserts a row twice", "Constraint Error: Duplicate key violates unique constraint", 1))]
        atlas = Atlas(AtlasView([runner], findings, [], []))
        profile = atlas.view.profiles[("db", "run_sql")]
        assert len({f.signature for f in profile.findings}) == 2
        guidance = atlas.guide("Run SQL for a new trip, the key must stay unique", max_tokens=5000, docs_ratio=None)
        assert "Constraint Error" in guidance.tools[0].when_not[0].error

    def test_invented_names_are_not_carried(self) -> None:
        """A probe's random value is named by the argument that carried it, other random names become an ellipsis,
        and real names stay."""
        said = "SHA b'402f38ff519c07d6cc5e4b603a7a64b356c48552' could not be resolved in notes_main"
        assert (answer_line(said, {"revision": "402f38ff519c07d6cc5e4b603a7a64b356c48552"})
                == "SHA b'<revision>' could not be resolved in notes_main")
        assert answer_line("no such table: no_such_table_de45", {"query": "SELECT * FROM no_such_table_de45"}) == \
            "no such table: …"
        assert answer_line("rename 'a/missing_3348.md' -> 'b/x.md'", {"files": [{"from": "a/missing_3348.md"}]}) == \
            "rename '<files[0].from>' -> 'b/x.md'"
        assert answer_line("Entity with name No Such Entity b951 not found", {"names": ["No Such Entity b951"]}) == \
            "Entity with name <names[0]> not found"
        assert answer_line("Sheet not found: 'Sheet1' (of 2024)", {"sheet": "Sheet1"}) == "Sheet not found: 'Sheet1' (of 2024)"


class TestDocumentation:
    def test_operative_clauses_are_kept_and_advice_dropped(self) -> None:
        """The clause saying what happens to an existing note stays, marked verified by the tolerance the
        atlas holds; "Perfect for quick capture" goes."""
        guidance = Atlas(notes_atlas()).guide("Save a note titled todo in the work notebook", max_tokens=5000,
                                              docs_ratio=None)
        save = next(t for t in guidance.tools if t.tool == "save_note")
        texts = {d.text: d.status for d in save.documented}
        assert texts.get("Replaces the note if one exists with that title.") == "verified"
        assert not any("Perfect" in d for d in texts)
        assert "Perfect for" not in guidance.to_text()


def weighed(tool: str, weight: float, relevance: float = 1.0) -> ToolGuidance:
    """A served tool with one boundary of ``weight``."""
    note = BoundaryNote(condition=f"case {weight}", error="it failed in some way", outcome="tool_error",
                        entry_id=f"e{weight}", weight=weight)
    return ToolGuidance(server="s", tool=tool, when_not=[note], relevance=relevance)


def kept_weights(tools: list[ToolGuidance], fitting: list[ToolGuidance]) -> list[float]:
    """The weights of the boundaries left when guidance serving ``tools`` is fitted to about what serving
    ``fitting`` alone costs."""
    guidance = Guidance(task="t", tools=tools)
    kept = fit(guidance, len(guidance.model_copy(update={"tools": fitting}).to_text()) // 4 + 12)
    return [b.weight for t in kept.tools for b in t.when_not]


class TestBudget:
    def test_the_lightest_boundary_goes_first(self) -> None:
        """Over budget, the boundary the task is least likely to hit is dropped, whichever tool it is on."""
        first, second = weighed("first", 0.5), weighed("second", 2.5)
        assert kept_weights([first, second], [second]) == [2.5]

    def test_a_heavy_failure_of_a_tool_the_task_barely_points_at_goes_first(self) -> None:
        """A boundary's weight counts as much as its tool is relevant: the ordering of a tool the walk barely
        reached goes before the lighter failure of the tool the task is about."""
        first, far = weighed("first", 1.5), weighed("far", 3.5, relevance=0.01)
        assert kept_weights([first, far], [first]) == [1.5]

    def test_related_tools_are_named_before_details_go(self) -> None:
        """Over budget, a tool outside the plan keeps its name on the one line of related tools, paid for
        apart from the budget, while the planned tool keeps its second boundary."""
        def note(weight: float) -> BoundaryNote:
            return BoundaryNote(condition=f"case {weight} of a long condition the task may meet", entry_id=f"e{weight}",
                                error="it failed in some way that the server explains at length", outcome="tool_error",
                                weight=weight)

        planned = ToolGuidance(server="s", tool="planned", operations=["read"], when_not=[note(2.5), note(1.5)])
        related = [ToolGuidance(server="s", tool=f"related_{i}", purpose="Do another thing to the same records.")
                   for i in range(4)]
        guidance = Guidance(task="t", plan=[PlanStep(operation="read", tool="s.planned")], tools=[planned, *related])
        budget = len(guidance.model_copy(update={"tools": [planned]}).to_text()) // 4 + 2
        kept = fit(guidance, budget)
        assert [t.tool for t in kept.tools] == ["planned", *(t.tool for t in related)]
        assert len(kept.tools[0].when_not) == 2 and not any(t.purpose for t in kept.tools[1:])
        assert "## Also: s.related_0, s.related_1" in kept.to_text()

    def test_a_plan_that_only_discovers_leaves_the_answering_tools_their_say(self) -> None:
        """A plan made only of the discovery step asks for no operation: over budget, the tools that answer
        the request keep their boundary, the discovery tool's use note goes first."""
        boundary = BoundaryNote(condition="`query` names a table that does not exist", entry_id="e1",
                                error="no such table: invoices", outcome="tool_error", weight=1.5)
        finder = ToolGuidance(server="s", tool="list_tables", operations=["discover"],
                              when=[UseNote(text="works with no arguments; changes nothing", entry_id="e0")])
        reader = ToolGuidance(server="s", tool="read_query", purpose="Run a SELECT query.", when_not=[boundary])
        guidance = Guidance(task="t", plan=[PlanStep(operation="discover", tool="s.list_tables")],
                            tools=[finder, reader])
        kept = fit(guidance, len(guidance.to_text()) // 4 - 2)
        assert kept.tools[1].when_not == [boundary] and not kept.tools[0].when

    def test_guidance_pays_its_way(self) -> None:
        """By default guidance costs at most 1.4 times the served tools' descriptions (or the small floor);
        without that limit it says more."""
        from toolatlas.guidance.render import DOCS_RATIO, MIN_TOKENS, docs_tokens

        atlas = Atlas(notes_atlas(rename_entries=10))
        task = "Create a notebook called trips, copy the note groceries into it and save a note about Lisbon"
        paid, free = atlas.guide(task), atlas.guide(task, docs_ratio=None)
        docs = docs_tokens(atlas.view, [(t.server, t.tool) for t in paid.tools])
        assert paid.tokens <= max(MIN_TOKENS, DOCS_RATIO * docs) + 1 < free.tokens
        assert paid.plan == free.plan and paid.tools[0].tool == free.tools[0].tool

    def test_the_first_tools_purpose_goes_before_the_last_boundary(self) -> None:
        """Over budget, the discovery tool served first loses its purpose (an agent has its description) before
        the planned tool loses its one boundary."""
        boundary = BoundaryNote(condition="`session` is not one the loader made", entry_id="e1",
                                error="Invalid session or no data loaded", outcome="tool_error", weight=3.5)
        finder = ToolGuidance(server="s", tool="list_sessions", operations=["discover"],
                              purpose="List every active session of the server, with its columns and size.")
        stats = ToolGuidance(server="s", tool="column_stats", operations=["count"],
                             purpose="Get statistics of one column.", when_not=[boundary])
        guidance = Guidance(task="t", plan=[PlanStep(operation="discover", tool="s.list_sessions"),
                                            PlanStep(operation="count", tool="s.column_stats")],
                            tools=[finder, stats])
        without = guidance.model_copy(update={"tools": [finder.model_copy(update={"purpose": ""}),
                                                        stats.model_copy(update={"purpose": ""})]})
        kept = fit(guidance, len(render_text(without, also=False)) // 4 + 1)
        assert kept.tools[1].when_not == [boundary] and not kept.tools[0].purpose

    def test_a_tool_planned_for_several_operations_in_a_row_is_said_once(self) -> None:
        """The plan line names a tool once for consecutive operations: "stats (read, count)"."""
        guidance = Guidance(task="t", plan=[PlanStep(operation="read", tool="s.load", feeds="s.stats"),
                                            PlanStep(operation="read", tool="s.stats"),
                                            PlanStep(operation="count", tool="s.stats")])
        assert guidance.to_text().splitlines()[0] == "Plan: load (read; verified to feed stats) → stats (read, count)"

    def test_what_steps_feed_goes_before_the_last_boundary(self) -> None:
        """Over budget, the plan line stops saying what each step was verified to feed before the planned tool
        loses its one boundary."""
        boundary = BoundaryNote(condition="`session` is not one the loader made", entry_id="e1",
                                error="Invalid session or no data loaded", outcome="tool_error", weight=3.5)
        steps = [PlanStep(operation="discover", tool="s.list_sessions", feeds="s.load_table"),
                 PlanStep(operation="read", tool="s.load_table", feeds="s.column_stats"),
                 PlanStep(operation="count", tool="s.column_stats")]
        stats = ToolGuidance(server="s", tool="column_stats", operations=["count"], when_not=[boundary])
        guidance = Guidance(task="t", plan=steps, tools=[stats])
        plain = guidance.model_copy(update={"plan": [s.model_copy(update={"feeds": None}) for s in steps]})
        kept = fit(guidance, len(render_text(plain, also=False)) // 4 + 1)
        assert kept.tools[0].when_not == [boundary] and not any(s.feeds for s in kept.plan)


def test_a_validation_error_is_quoted_by_its_field_and_message() -> None:
    """Every violation of a pydantic model opens with the same head: guidance quotes the field and message under it."""
    refused = ("Error executing tool get_nth_usable_ip: 1 validation error for NthUsableIpRequest\nnetwork\n"
               "  Input is not a valid IPv4 network [type=ip_v4_network, input_value='10.0.0.0/33', input_type=str]")
    assert answer_line(refused) == ("Error executing tool get_nth_usable_ip: 1 validation error for NthUsableIpRequest: "
                                    "network: Input is not a valid IPv4 network")
    framed = ("1 validation error for call[get_workouts]\nstart\n  String should match pattern '^\\d{4}-\\d{2}$' "
              "[type=string_pattern_mismatch, input_value='18/10/2026', input_type=str]")
    assert answer_line(framed) == "1 validation error for call[get_workouts]: start: String should match pattern '^\\d{4}-\\d{2}$'"


def test_a_use_note_names_the_optional_arguments_every_verified_call_gave() -> None:
    """A tool whose schema requires nothing but whose every verified call gave a ``path`` works with ``path``, not
    "with no arguments" (its call with none fails); calls that gave one of two alternatives say so; a tool verified
    with no arguments at all still works with none."""
    from toolatlas.guidance.profiles import _use

    opener = node("caps", "open_capture", "Open one capture.", optional=("path", "capture_file", "max_tokens"),
                  read_only=True)
    uses = [entry("caps", "open_capture", EntryKind.AFFORDANCE, arguments={"path": "a.pcap", "max_tokens": 512},
                  effect=Effect.READ_ONLY),
            entry("caps", "open_capture", EntryKind.AFFORDANCE, arguments={"path": "b.pcap"}, effect=Effect.READ_ONLY)]
    note = _use(opener, uses)
    assert note is not None and note.text.startswith("works with `path`")
    either = [*uses[:1], entry("caps", "open_capture", EntryKind.AFFORDANCE, arguments={"capture_file": "f"},
                               effect=Effect.READ_ONLY)]
    note = _use(opener, either)
    assert note is not None and note.text.startswith("works with one of `path`, `capture_file`;")
    bare = [entry("caps", "open_capture", EntryKind.AFFORDANCE, arguments={}, effect=Effect.READ_ONLY), *uses]
    note = _use(opener, bare)
    assert note is not None and note.text.startswith("works with no arguments")


def test_one_error_of_two_tools_in_their_frameworks_frame_is_one_finding() -> None:
    """"Error executing tool analyze_tcp: Unknown capture_id." and the same of ``inspect_packets`` are one lesson:
    said on the first tool, the other listed beside it."""
    fail = OutcomeClass.TOOL_ERROR
    tools = [node("caps", name, "Analyse a capture.", ("capture_id",), read_only=True)
             for name in ("analyze_tcp", "inspect_packets")]
    findings = [entry("caps", name, EntryKind.BOUNDARY, outcome=fail, condition="`capture_id` names nothing",
                      error_signature=f"Error executing tool {name}: Unknown or evicted capture_id.",
                      excerpt=f"Error executing tool {name}: Unknown or evicted capture_id.")
                for name in ("analyze_tcp", "inspect_packets")]
    view = AtlasView(tools, findings, [], [])
    signatures = {view.profiles[("caps", name)].findings[0].signature for name in ("analyze_tcp", "inspect_packets")}
    assert len(signatures) == 1 and "analyze_tcp" not in next(iter(signatures))
