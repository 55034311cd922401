"""Routing over many servers, value shapes, and boundaries said once across tools.

The atlas here is built for the purpose: four servers whose descriptions share generic words, so
only what each was verified on (the values it took, the words of its answers) tells them apart.
"""

from __future__ import annotations

from toolatlas.evaluation.metrics import boundary_included
from toolatlas.graph.models import EntryKind
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.guidance.atlas import OFF_ROUTE
from toolatlas.guidance.blends import Blends
from toolatlas.guidance.operations import expanded
from toolatlas.guidance.shapes import shape_words, value_shapes
from toolatlas.models import Effect, OutcomeClass

from .conftest import entry, node


def catalogue() -> AtlasView:
    """A calculator, a trip database, a text editor and a pattern tester: every description says
    "what" or "need" somewhere; what each was verified on differs."""
    tools = [
        node("maths", "evaluate", "Evaluate an arithmetic expression.", ("expression",), read_only=True),
        node("trips", "run_query", "Run a query against the database.", ("sql",), read_only=True),
        node("trips", "list_columns", "List the columns of a table.", ("table",), read_only=True),
        node("editor", "get_contents", "Get the contents of one or more text files.", ("file_path",),
             read_only=True),
        node("patterns", "add_case", "Add a case: what you need the pattern to match, and the number of hits.",
             ("pattern", "text"), read_only=False),
        node("patterns", "get_cases", "Get what cases you need and the number of each.", (), read_only=True),
    ]
    entries = [
        entry("maths", "evaluate", EntryKind.AFFORDANCE, when="evaluate an expression", effect=Effect.READ_ONLY,
              arguments={"expression": "2 + 3 * 4"}, excerpt="14"),
        entry("trips", "list_columns", EntryKind.AFFORDANCE, when="list the columns", effect=Effect.READ_ONLY,
              arguments={"table": "stays"}, excerpt='{"columns": ["traveller", "city", "nights"]}'),
        entry("trips", "run_query", EntryKind.AFFORDANCE, when="run a query", effect=Effect.READ_ONLY,
              arguments={"sql": "SELECT count(*) FROM stays"}, excerpt="[[12]]"),
        *(entry("trips", tool, EntryKind.BOUNDARY, outcome=OutcomeClass.TOOL_ERROR,
                condition=f"`{arg}` names a table that does not exist", error_signature=f"no such table: {name}",
                excerpt=f"no such table: {name}")
          for tool, arg, name in (("run_query", "sql", "missing_b200"), ("list_columns", "table", "missing_d9b9"))),
        entry("editor", "get_contents", EntryKind.AFFORDANCE, when="read a text file", effect=Effect.READ_ONLY,
              arguments={"file_path": "/srv/notes/plan.md"}, excerpt="# Plan"),
        entry("patterns", "add_case", EntryKind.AFFORDANCE, when="add a test case", effect=Effect.MUTATING,
              arguments={"pattern": "a+", "text": "aaa"}),
    ]
    return AtlasView(tools, entries, [], [])


class TestShapes:
    def test_values_are_named_by_their_kind(self) -> None:
        """An expression, a relative path with its extension, a date, a time and an email are told apart;
        a date is no subtraction, an email no file, an address no path."""
        assert value_shapes("What is 1500 * 1.04^10?") == {"shape:expression"}
        assert value_shapes("Open notes/todo.txt") == {"shape:relative_path", "shape:ext_txt", "shape:file"}
        assert value_shapes("on 2024-03-01 at 9:15") == {"shape:date", "shape:time"}
        assert value_shapes("write to max@example.de") == {"shape:email"}
        assert value_shapes("see https://example.org/a.html") == set()

    def test_an_expression_over_a_name(self) -> None:
        """A name and a number joined by a spaced operator is an expression over a variable; a glob or "C++"
        is none."""
        assert value_shapes("Evaluate rate * 12 where rate is 0.5.") == {"shape:expression", "shape:named_expression"}
        assert value_shapes("Find *.txt files written in C++") == set()

    def test_an_expression_that_divides(self) -> None:
        """A spaced slash or one beside a parenthesis in an expression divides; a date's or a path's does not."""
        assert value_shapes("Compute 10 / (5 - 5)") == {"shape:expression", "shape:division"}
        assert "shape:division" in value_shapes("What is 7*(x/(y-2)) for x = 3 * 4?")
        assert value_shapes("on 1/2/2024 in src/app") == set()

    def test_an_extension_says_its_format(self) -> None:
        """A file's extension says what it abbreviates (a text, a Word document), not that it is a file, and
        only where tools are matched: a format is no risk to rank findings by."""
        assert shape_words("Open notes/todo.txt") == "text"
        assert shape_words("Outline report.docx") == "word document"
        assert shape_words("Outline report.docx at 9:15 am", formats=False) == "12-hour clock time"

    def test_an_unknown_name_in_an_expression_is_warned(self) -> None:
        """An expression over a name meets the evaluator's finding that an unknown name fails."""
        view = catalogue()
        finding = entry("maths", "evaluate", EntryKind.BOUNDARY, outcome=OutcomeClass.TOOL_ERROR,
                        family="malformed_value", condition="`expression` calls a function that does not exist",
                        error_signature="Unknown identifier: no_such_function",
                        excerpt="Unknown identifier: no_such_function",
                        arguments={"expression": "no_such_function(1)"})
        rounding = entry("maths", "evaluate", EntryKind.BOUNDARY, outcome=OutcomeClass.TOOL_ERROR, support=5,
                         condition="`expression` divides by zero", error_signature="division by zero",
                         excerpt="division by zero", arguments={"expression": "1 / 0"})
        atlas = Atlas(AtlasView(view.tool_nodes.values(), [*view.entries.values(), finding, rounding], [], []))
        guidance = atlas.guide("Evaluate rate * 12 where rate is the monthly rate of 0.5.")
        assert boundary_included(guidance, "Unknown identifier", ["maths.evaluate"])

    def test_a_request_gains_the_words_for_its_values(self) -> None:
        """An expression in a request adds the word a calculator's documentation uses; a path adds no word
        of a file or a path, only what its extension abbreviates."""
        assert shape_words("What is 1500 * 1.04^10?") == "expression"
        assert "expression" in expanded("What is 1500 * 1.04^10?")
        assert shape_words("Write the bio into notes/team.md") == "markdown text"
        assert shape_words("Write the bio into notes/team.cfg") == ""


class TestRouting:
    def test_filler_words_route_nowhere(self) -> None:
        """A question whose only words are "what" and "need" goes to the server verified on expressions,
        not to the one whose descriptions say "what" and "need"."""
        view = catalogue()
        weights = view.route_weights("What is 1500 * 1.04^10? I need the number.")
        assert max(weights, key=weights.get) == "maths"
        guidance = Atlas(view).guide("What is 1500 * 1.04^10? I need the number.")
        assert guidance.tools[0].tool == "evaluate"

    def test_the_words_of_verified_answers_route_a_data_question(self) -> None:
        """Columns seen in a verified answer send a question about them to the server holding the data."""
        view = catalogue()
        weights = view.route_weights("How many nights did each traveller spend per city?")
        assert max(weights, key=weights.get) == "trips"
        assert weights["trips"] == 1.0 and all(w < 1.0 for s, w in weights.items() if s != "trips")

    def test_text_a_probe_invented_routes_nowhere(self) -> None:
        """A server that only took a probe's made-up sentence about a budget review, and echoed it back, does
        not outscore the server whose answer held those words."""
        view = catalogue()
        tools = [*view.tool_nodes.values(),
                 node("tasks", "add_task", "Add a task to the list.", ("title",), read_only=False),
                 node("docs", "read_doc", "Read a document.", ("name",), read_only=True)]
        entries = [*view.entries.values(),
                   entry("tasks", "add_task", EntryKind.AFFORDANCE, when="add a task", effect=Effect.MUTATING,
                         arguments={"title": "The budget review is ready for sign-off"},
                         excerpt="added task 3: The budget review is ready for sign-off"),  # an echo
                   entry("docs", "read_doc", EntryKind.AFFORDANCE, when="read a document", effect=Effect.READ_ONLY,
                         arguments={"name": "budget"}, excerpt="Budget review 2024: spending is on plan.")]
        weights = AtlasView(tools, entries, [], []).route_weights("What does the budget review say?")
        assert max(weights, key=weights.get) == "docs" and weights.get("tasks", 0.0) < weights["docs"]

    def test_how_a_request_asks_routes_less_than_what_it_is_about(self) -> None:
        """"Record a new stay for the traveller" goes to the trips data whose answers hold the traveller, not to a
        log server whose tool is named for recording: the operation word counts half as much as its object."""
        view = catalogue()
        tools = [*view.tool_nodes.values(),
                 node("log", "record_entry", "Record an entry in the log.", ("text",), read_only=False)]
        entries = [*view.entries.values(),
                   entry("log", "record_entry", EntryKind.AFFORDANCE, when="record an entry", effect=Effect.MUTATING,
                         arguments={"text": "x"}, excerpt="recorded")]
        weights = AtlasView(tools, entries, [], []).route_weights("Record a new stay for the traveller")
        assert max(weights, key=weights.get) == "trips"

    def test_a_request_whose_object_only_answers_know_goes_to_them(self) -> None:
        """"Add the Brennan booking to trips.csv": only "add" meets a description (the pattern tester's "Add a case");
        Brennan is a word of the trips data's answers and a CSV file what it was verified on — there it goes."""
        view = catalogue()
        entries = [*view.entries.values(),
                   entry("trips", "run_query", EntryKind.AFFORDANCE, when="run a query", effect=Effect.READ_ONLY,
                         arguments={"sql": "SELECT * FROM 'exports/trips.csv'"},
                         excerpt="traveller,city,nights\nBrennan,Oslo,3")]
        weights = AtlasView(view.tool_nodes.values(), entries, [], []).route_weights("Add the Brennan booking to trips.csv")
        assert max(weights, key=weights.get) == "trips"

    def test_a_routed_server_weighs_its_tools_by_its_score(self) -> None:
        """Among routed servers, the better-scoring one's tools weigh more; an unrouted one's least."""
        view = catalogue()
        weights = {"trips": 1.0, "editor": 0.5}
        relevance = {("trips", "run_query"): 1.0, ("editor", "get_contents"): 1.0, ("maths", "evaluate"): 1.0}
        routed = view.routed(relevance, weights)
        assert routed[("trips", "run_query")] > routed[("editor", "get_contents")] > routed[("maths", "evaluate")]

    def test_the_routed_servers_set_the_scale(self) -> None:
        """A task about the trips data whose words its tools' documentation hardly speaks: the best of its tools
        still counts fully, a tool of a server the task is not about that matches better counts as off-route."""
        view = catalogue()
        relevance = {("trips", "run_query"): 0.2, ("trips", "list_columns"): 0.1, ("patterns", "get_cases"): 1.0}
        routed = view.routed(relevance, {"trips": 1.0})
        assert routed[("trips", "run_query")] == 1.0 and routed[("trips", "list_columns")] == 0.5
        assert routed[("patterns", "get_cases")] == OFF_ROUTE
        assert view.routed({("patterns", "get_cases"): 1.0}, {"trips": 1.0}) == {("patterns", "get_cases"): OFF_ROUTE}

    def test_a_tool_whose_answers_hold_the_tasks_data_matches_it(self) -> None:
        """"Did turbidity at Kentmere go over 1 NTU?": no description says turbidity, the table reader's answers
        did — that reader is the tool for it, not the sheet lister whose answers named only sheets, nor the writer
        whose confirmation repeated the rows it wrote."""
        tools = [node("lab", "read_table", "Return one page of a table as rows.", ("path",), read_only=True),
                 node("lab", "list_sheets", "List sheet names and visibility.", ("path",), read_only=True),
                 node("lab", "write_csv", "Write the cleaned table to a file.", ("path",), read_only=False)]
        entries = [entry("lab", "read_table", EntryKind.AFFORDANCE, when="read a table", effect=Effect.READ_ONLY,
                         arguments={"path": "/data/exports.xlsx"}, excerpt='{"rows": [["Kentmere", 0.4, "NTU"]], '
                         '"columns": ["site", "turbidity", "unit"]}'),
                   entry("lab", "list_sheets", EntryKind.AFFORDANCE, when="list the sheets", effect=Effect.READ_ONLY,
                         arguments={"path": "/data/exports.xlsx"}, excerpt='{"sheets": ["Results", "Notes"]}'),
                   entry("lab", "write_csv", EntryKind.AFFORDANCE, when="write a table", effect=Effect.MUTATING,
                         arguments={"path": "/data/cleaned/out.csv"}, excerpt='Wrote 1 row: Kentmere, 0.4, NTU')]
        relevance = AtlasView(tools, entries, [], []).tool_relevance("Did turbidity at Kentmere go over 1 NTU?", None)
        assert max(relevance, key=relevance.get) == ("lab", "read_table")
        assert ("lab", "list_sheets") not in relevance and ("lab", "write_csv") not in relevance


class TestNamedFiles:
    def test_a_file_name_routes_by_its_kind_not_its_words(self) -> None:
        """"Open notes/todo.txt" goes to the server verified on text files, not to the one named for todo
        items; "the todo notes" said in words still goes there."""
        tools = [*catalogue().tool_nodes.values(),
                 node("todo", "add_todo", "Add a todo item to the todo list.", ("text",), read_only=False),
                 node("todo", "list_todos", "List the todo items, with their notes.", (), read_only=True)]
        view = AtlasView(tools, list(catalogue().entries.values()), [], [])
        assert view.route_weights("Open notes/todo.txt and show it to me.") == {"editor": 1.0}
        assert view.route_weights("Show me the todo notes") == {"todo": 1.0}

    def test_a_quoted_name_that_is_no_file_still_routes(self) -> None:
        """A backticked column name is the server's own word: "what is in `traveller`?" goes to the trips
        data whose answers hold that column."""
        assert catalogue().route_weights("What is in `traveller`?") == {"trips": 1.0}


class TestBlends:
    def test_a_catalogue_word_that_blends_two_words_of_the_request(self) -> None:
        """"regular expression" meets a catalogue's ``regex`` and "time zone" its ``timezone``; two words that
        only start alike ("a regular meeting", "time zones" said in full) add nothing."""
        blends = Blends(["regex", "timezone", "meet", "zone"])
        assert blends.of("Write a regular expression for order lines") == ("regex",)
        assert blends.of("Which time zone is Tokyo in?") == ("timezone",)
        assert blends.of("Book a regular meeting") == ()
        assert blends.of("Set the timezone to Tokyo") == ()

    def test_two_words_that_make_a_catalogue_word_whole(self) -> None:
        """"to do" meets a catalogue's ``todo`` and "log in" its ``login``, short and common as each word is; two
        words that make no word of the catalogue ("go to", "do it") add nothing."""
        blends = Blends(["todo", "login", "goto"])
        assert blends.of("List everything I still have to do for work") == ("todo",)
        assert blends.of("Log in as the admin user") == ("login",)
        assert blends.of("Do it now, then go home") == ()

    def test_a_blend_routes_to_the_server_named_by_it(self) -> None:
        """A request for "a regular expression" goes to the pattern tester whose tools say ``regex``, not to
        the calculator whose descriptions say "expression"."""
        tools = [*catalogue().tool_nodes.values(),
                 node("patterns", "test_regex", "Test a regex against the cases.", ("regex",), read_only=True)]
        view = AtlasView(tools, list(catalogue().entries.values()), [], [])
        task = "Check a regular expression against a few lines"
        weights = view.route_weights(task)
        assert max(weights, key=weights.get) == "patterns"
        assert Atlas(view).guide(task).tools[0].tool == "test_regex"


class TestSaidOnce:
    def test_a_boundary_two_tools_share_is_said_once_for_both(self) -> None:
        """"no such table" with two different harvested names, on two served tools, is one warning that
        names both tools; the metric counts it as a warning about either."""
        atlas = Atlas(catalogue())
        task = "List the columns of the stays table, then run a query counting the stays per city"
        guidance = atlas.guide(task, servers=["trips"], max_tokens=5000, docs_ratio=None)
        notes = [(t.tool, b) for t in guidance.tools for b in t.when_not if "no such table" in b.error]
        assert len(notes) == 1
        tool, note = notes[0]
        other = {"run_query", "list_columns"} - {tool}
        assert note.also == [f"trips.{other.pop()}"]
        assert "(also `" in guidance.to_text()
        assert boundary_included(guidance, "no such table", ["trips.run_query"])
        assert boundary_included(guidance, "no such table", ["trips.list_columns"])


class TestValueRisks:
    def test_a_value_meets_the_boundary_about_its_kind(self) -> None:
        """"9:15 am" is a 12-hour clock time: the boundary about 12-hour times is served, though the
        request never says "12-hour"."""
        assert value_shapes("at 9:15 am") == {"shape:time", "shape:time_12h"}
        tools = [node("clock", "convert_time", "Convert a time between time zones.",
                      ("time", "source_timezone", "target_timezone"), read_only=True)]
        entries = [
            entry("clock", "convert_time", EntryKind.AFFORDANCE, when="convert a time", effect=Effect.READ_ONLY),
            entry("clock", "convert_time", EntryKind.BOUNDARY, family="invalid_time_format",
                  outcome=OutcomeClass.TOOL_ERROR, condition="`time` uses a 12-hour clock instead of HH:MM",
                  error_signature="Invalid time format. Expected HH:MM", excerpt="Invalid time format. Expected HH:MM"),
            entry("clock", "convert_time", EntryKind.BOUNDARY, family="invalid_timezone",
                  outcome=OutcomeClass.TOOL_ERROR, condition="`target_timezone` is not an IANA time zone name",
                  error_signature="Invalid timezone", excerpt="Invalid timezone", support=5),
        ]
        guidance = Atlas(AtlasView(tools, entries, [], [])).guide("A client in Paris says 9:15 am; what is that in Tokyo?")
        [tool] = guidance.tools
        assert tool.when_not and tool.when_not[0].error.startswith("Invalid time format")


class TestServerWords:
    def test_a_word_only_the_lexicon_holds_routes(self) -> None:
        """A task word that no tool text or evidence excerpt of any server holds, but one server's answers
        said past the excerpt (its lexicon), routes the task there."""
        from toolatlas.graph.models import Fingerprint, ServerNode

        view = catalogue()
        task = "Anything about Porto?"
        assert view.route(task) == set(view.servers)  # nothing matches: every server
        fingerprint = Fingerprint(runtime="r", transport="t", snapshot="", tools={}, toolatlas="v", method="m")
        nodes = [ServerNode(id="t", server="trips", fingerprint=fingerprint, lexicon=["lisbon", "porto"]),
                 ServerNode(id="e", server="editor", fingerprint=fingerprint, lexicon=["plan", "notes"])]
        told = AtlasView(view.tool_nodes.values(), view.entries.values(), [], [], servers=nodes)
        assert told.route(task) == {"trips"}

    def test_what_the_catalogue_and_the_server_say_it_is_for_routes(self) -> None:
        """The catalogue's description of a server, and the instructions the server gives of itself, are
        part of the text a task is routed by."""
        from toolatlas.graph.models import Fingerprint, ServerNode

        view = catalogue()
        fingerprint = Fingerprint(runtime="r", transport="t", snapshot="", tools={}, toolatlas="v", method="m")
        said = "Regular expressions: collect sample strings, then test patterns on them."
        task = "Which sample strings do my regular expressions run against?"
        assert max(view.router.scores(task)[0].items(), key=lambda kv: kv[1], default=("", 0))[0] != "patterns"
        for field in ("description", "instructions"):
            nodes = [ServerNode(id="p", server="patterns", fingerprint=fingerprint, **{field: said})]
            told = AtlasView(view.tool_nodes.values(), view.entries.values(), [], [], servers=nodes)
            assert max(told.router.scores(task)[0].items(), key=lambda kv: kv[1])[0] == "patterns"

