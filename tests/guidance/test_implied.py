"""What a task's own values imply about a tool's verified boundaries: a stated limit it goes past, a value
outside an argument's declared set — on tools guidance was never tuned on."""

from __future__ import annotations

from toolatlas.graph.models import EntryKind, ToolNode
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.guidance.implied import asks_past, near_miss, task_leads
from toolatlas.models import Effect, OutcomeClass

from .conftest import entry

FAIL = OutcomeClass.TOOL_ERROR
CAPPED = "`query` selects all 60 rows of `readings`, more than the 25 rows the description caps a result at"


def one_argument_tool(server: str, tool: str, description: str, argument: str) -> ToolNode:
    """A tool of ``server`` taking one required string ``argument``."""
    return ToolNode(id=f"{server}.{tool}", server=server, tool=tool, schema_hash="h", description=description,
                    input_schema={"type": "object", "properties": {argument: {"type": "string"}},
                                  "required": [argument]})


def capped_reader(answer: str) -> AtlasView:
    """A read-only query tool whose description caps a result at 25 rows, probed one row past the cap."""
    reader = one_argument_tool("obs", "run_query",
                               "Run one read-only query over the observations. Results are capped at 25 rows.", "query")
    found = [
        entry("obs", "run_query", EntryKind.AFFORDANCE, when="run a query", effect=Effect.READ_ONLY,
              arguments={"query": "SELECT * FROM stations"}),
        entry("obs", "run_query", EntryKind.AFFORDANCE, family="past_stated_limit", effect=Effect.READ_ONLY,
              when=f"{CAPPED} (accepted)", arguments={"query": "SELECT * FROM readings"}, excerpt=answer),
        entry("obs", "run_query", EntryKind.BOUNDARY, outcome=FAIL, support=12,
              condition='called with `query` = "DELETE FROM stations"', error_signature="statement is blocked",
              excerpt="statement is blocked"),
        entry("obs", "run_query", EntryKind.BOUNDARY, outcome=FAIL, support=9, family="sql_unknown_table",
              condition="`query` reads a table that does not exist", error_signature="no such table: <s>",
              excerpt="no such table: missing_b200"),
    ]
    return AtlasView([reader], found, [], [])


CUT = 'truncated to 25 rows\n{"columns": ["id", "station", "day"], "rows": [{"id": 1}]}'


class TestStatedLimits:
    def test_a_request_for_everything_is_told_the_answer_is_cut(self) -> None:
        """Every reading of a tool capped at 25 rows: the accepted call past the cap, whose answer says it was
        cut, is served as a limit with the server's words, ahead of better supported failures."""
        guidance = Atlas(capped_reader(CUT)).guide("Show me every daily reading of every station")
        notes = guidance.tools[0].when_not
        assert notes[0].cut and notes[0].error == "truncated to 25 rows"
        assert notes[0].condition == CAPPED
        assert "- limit: " + CAPPED in guidance.to_text()

    def test_a_count_past_the_cap_meets_it_and_one_within_does_not(self) -> None:
        """A request for 40 readings goes past a cap of 25; one for the 10 warmest days, a date, a time, a year,
        a threshold or one result per group does not."""
        profile = capped_reader(CUT).profiles[("obs", "run_query")]
        cut = next(i for i, f in enumerate(profile.findings) if f.cut)
        assert task_leads(profile, "List the 40 most recent readings") == {cut: 2.0}
        assert task_leads(profile, "List the 10 warmest days of 2024-03-01 at 12:30") == {}
        assert asks_past("the 1,000 coldest readings", 25) and asks_past("Give me 100 orders", 25)
        assert not asks_past("readings since 2024-03-01", 25)
        assert not asks_past("What was the mean temperature in March 2024?", 25)
        assert not asks_past("the engineers who earn more than 70,000 a year", 25)
        assert not asks_past("How many rows are in each table?", 25)

    def test_an_answer_that_does_not_state_the_cap_stays_a_tolerance(self) -> None:
        """A call past the cap whose answer holds every row (a record's "id": 25 is no cap) is a misuse the tool
        survived, not a limit: it is no finding."""
        view = capped_reader('{"rows": [{"id": 25}, {"id": 26}, {"id": 60}]}')
        profile = view.profiles[("obs", "run_query")]
        assert not any(f.cut for f in profile.findings)
        assert any(CAPPED in f.text for f in profile.tolerances)


def clock(format_members: list[str]) -> AtlasView:
    """A time tool whose `format` argument declares its formats, with a better supported natural failure."""
    now = ToolNode(id="dates.current_time", server="dates", tool="current_time", schema_hash="h",
                   description="Get the current time in a time zone.",
                   input_schema={"type": "object", "properties": {
                       "timezone": {"type": "string"}, "format": {"type": "string", "enum": format_members}}})
    found = [
        entry("dates", "current_time", EntryKind.AFFORDANCE, when="get the current time", effect=Effect.READ_ONLY),
        entry("dates", "current_time", EntryKind.BOUNDARY, outcome=FAIL, support=20,
              condition="`timezone` is a word, not a time zone", error_signature="Invalid time zone",
              excerpt="Invalid time zone"),
        entry("dates", "current_time", EntryKind.BOUNDARY, outcome=FAIL, support=3, family="schema_validation",
              condition=f"`format` is not one of: {', '.join(format_members)}",
              error_signature="Input validation error: Invalid option", excerpt="Input validation error: Invalid option"),
    ]
    return AtlasView([now], found, [], [])


FORMATS = ["h:mm A", "YYYY-MM-DD HH:mm:ss", "YYYY-MM-DD", "MM/DD/YYYY"]


class TestDeclaredSets:
    def test_a_value_almost_in_the_set_is_a_near_miss(self) -> None:
        """A format the set holds only longer is a near miss; a member written whole, a longer value beginning
        with a short member, or a member in other case is not."""
        members = tuple(FORMATS)
        assert near_miss("Write it as YYYY-MM-DD HH:mm, without seconds", members)
        assert not near_miss("Write it as YYYY-MM-DD please", members)
        assert not near_miss("Write it as YYYY-MM-DD HH:mm:ss", members)
        assert not near_miss("sort them in descending order", ("asc", "desc"))
        assert not near_miss("in Celsius", ("celsius", "fahrenheit"))
        assert not near_miss("What time is it in Lisbon?", members)
        assert not near_miss("List the first names", ("first_name", "last_name"))

    def test_a_member_with_capitals_written_otherwise_is_a_near_miss(self) -> None:
        """"the Arduino Uno" where the set holds "Arduino UNO": a value a caller copies from the task is refused; the
        member written as declared is none."""
        boards = ("ESP32", "Arduino UNO", "STM32")
        assert near_miss("Draw me a pinout of the Arduino Uno.", boards)
        assert not near_miss("Draw me a pinout of the Arduino UNO.", boards)

    def test_the_answer_to_a_value_outside_the_set_leads(self) -> None:
        """A task nearly writing a declared format is served the tool's answer to a value outside the set (schema
        validation, otherwise last) before a better supported failure its words do not point at."""
        atlas = Atlas(clock(FORMATS))
        task = "What is the time now in Lisbon? Write it as YYYY-MM-DD HH:mm, without seconds."
        assert "Invalid option" in atlas.guide(task).tools[0].when_not[0].error
        plain = atlas.guide("What is the time now in Lisbon? Write it as YYYY-MM-DD.")
        assert all("Invalid option" not in b.error for b in plain.tools[0].when_not)


def read_only_sql() -> AtlasView:
    """A database server on a read-only connection: one executor, verified to read and to refuse an INSERT."""
    def tool(name: str, description: str) -> ToolNode:
        return ToolNode(id=f"weather.{name}", server="weather", tool=name, schema_hash="h", description=description,
                        input_schema={"type": "object", "properties": {"sql": {"type": "string"}},
                                      "required": ["sql"]})

    found = [
        entry("weather", "run_sql", EntryKind.AFFORDANCE, when="run a statement", effect=Effect.READ_ONLY,
              arguments={"sql": "SELECT name FROM stations"}, excerpt="Harbour\nRidge"),
        entry("weather", "run_sql", EntryKind.BOUNDARY, outcome=FAIL, support=4,
              condition='called with `sql` = "INSERT INTO stations (name) VALUES (\'x\')"',
              error_signature="statement blocked", excerpt="statement blocked",
              arguments={"sql": "INSERT INTO stations (name) VALUES ('x')"}),
        entry("weather", "run_sql", EntryKind.BOUNDARY, outcome=FAIL, support=9,
              condition='called with `sql` = "SELECT * FROM storm_alerts"', error_signature="no such table: <s>",
              excerpt="no such table: storm_alerts", arguments={"sql": "SELECT * FROM storm_alerts"}),
    ]
    return AtlasView([tool("run_sql", "Run one SQL statement against the weather database."),
                      tool("describe", "Describe the tables of the weather database.")], found, [], [])


class TestChangesOfWhatCannotChange:
    def test_a_change_goes_to_the_executor_that_refuses_it(self) -> None:
        """Adding a row on a server whose only executor changes nothing: the executor verified on change
        statements is planned for it, and its refusal of one is said first — before a failure of a read the
        task's words point at."""
        guidance = Atlas(read_only_sql()).guide("Add a storm alert row for the Harbour station")
        assert [s.tool for s in guidance.plan][:1] == ["weather.run_sql"]
        run = next(t for t in guidance.tools if t.tool == "run_sql")
        assert run.when_not[0].error == "statement blocked"

    def test_an_executor_of_change_statements_stands_in_before_a_tool_only_seen_changing(self) -> None:
        """Of two servers with no tool named for adding, the executor verified on an INSERT takes the change, not a
        tool of the other server whose words match better but which was only seen changing something."""
        view = read_only_sql()
        days = ToolNode(id="dates.days_in_month", server="dates", tool="days_in_month", schema_hash="h",
                        description="Get the number of days in the month of a storm alert date.",
                        input_schema={"type": "object", "properties": {"date": {"type": "string"}}})
        seen = entry("dates", "days_in_month", EntryKind.AFFORDANCE, when="count the days", effect=Effect.MUTATING,
                     arguments={"date": "2024-03-14"}, excerpt="31")
        atlas = Atlas(AtlasView([*view.tool_nodes.values(), days], [*view.entries.values(), seen], [], []))
        plan = atlas.guide("Add a storm alert dated 2024-03-20", servers=["weather", "dates"]).plan
        assert [s.tool for s in plan][:1] == ["weather.run_sql"]


def customers(*, carried_out: bool = True) -> AtlasView:
    """A shop's statement runner with three failures of inserting a customer: a duplicate email (a natural failure,
    the best supported), a country the CHECK constraint refuses and an email left NULL; without ``carried_out``
    none of them is known to have reached the data (the server may have blocked each statement)."""
    run = ToolNode(id="shop.run_sql", server="shop", tool="run_sql", schema_hash="h",
                   description="Run one SQL statement against the shop database.",
                   input_schema={"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]})
    insert = "INSERT INTO customers (name, email, country) VALUES ('Ada', 'ada@example.com', 'Germany')"
    found = [
        entry("shop", "run_sql", EntryKind.AFFORDANCE, when="run a statement", effect=Effect.READ_ONLY,
              arguments={"sql": "SELECT name FROM customers"}, excerpt="Ada"),
        entry("shop", "run_sql", EntryKind.BOUNDARY, outcome=FAIL, support=12,
              condition=f'called with `sql` = "{insert[:40]}…"',
              error_signature="UNIQUE constraint failed: customers.email",
              excerpt="UNIQUE constraint failed: customers.email", arguments={"sql": insert}),
        entry("shop", "run_sql", EntryKind.BOUNDARY, outcome=FAIL, support=3,
              family="constraint_violation" if carried_out else None,
              condition="`sql` inserts a row where `customers.country` violates CHECK (length(country) = 2) (check)",
              error_signature="CHECK constraint failed: length(country) = 2",
              excerpt="CHECK constraint failed: length(country) = 2", arguments={"sql": insert}),
        entry("shop", "run_sql", EntryKind.BOUNDARY, outcome=FAIL, support=3,
              family="constraint_violation" if carried_out else None,
              condition="`sql` inserts a row where NOT NULL column `customers.email` is set to NULL (not null)",
              error_signature="NOT NULL constraint failed: customers.email",
              excerpt="NOT NULL constraint failed: customers.email", arguments={"sql": insert}),
    ]
    return AtlasView([run], found, [], [])


class TestGivenValues:
    def test_the_words_a_value_is_given_as(self) -> None:
        """The words next to a number, an email, a quoted text or a capitalised name are what the request gives a
        value to; a condition's quoted names say what a finding's value went to (the last part of a path)."""
        from toolatlas.guidance.implied import given_words, subjects
        from toolatlas.guidance.index import terms

        assert set(terms("level")) <= given_words("Add a level 12 heading to report.docx")
        assert set(terms("country")) <= given_words("Add a customer whose country is France.")
        assert set(terms("country")) <= given_words("Add Max, with his country written out as 'Germany'.")
        assert not given_words("Show me every daily reading of every station.")
        assert subjects("`sql` inserts a row where `customers.country` violates CHECK") == {*terms("sql"),
                                                                                           *terms("country")}
        assert subjects("`ops[1].unit` is `months`") == {*terms("unit"), *terms("months")}

    def test_a_value_given_to_what_a_finding_is_about_leads(self) -> None:
        """"Whose country is France": the CHECK constraint on `customers.country` is said first, before the better
        supported duplicate-email failure; a given email does not make an email left NULL likely."""
        atlas = Atlas(customers())
        first = atlas.guide("Add a customer Jeanne Martin, jeanne@example.fr, whose country is France.",
                            docs_ratio=None).tools[0].when_not[0]
        assert "CHECK constraint failed" in first.error
        first = atlas.guide("Add a customer whose email is ana@example.com.", docs_ratio=None).tools[0].when_not[0]
        assert "NOT NULL" not in first.error

    def test_a_change_the_data_refused_was_carried_out(self) -> None:
        """A runner never seen changing anything, but whose INSERT ran into a constraint, is no read-only
        connection: an insert is not told each data-changing failure first as its refusal, only those its
        values imply; a runner that blocked the INSERT is told that refusal first."""
        from toolatlas.guidance.implied import task_leads

        task = "Record a new customer named Bo Chen."
        carried = customers().profiles[("shop", "run_sql")]
        assert task_leads(carried, task, ["write"]) == {}
        blocked = customers(carried_out=False).profiles[("shop", "run_sql")]
        refused = [i for i, f in enumerate(blocked.findings) if f.changes]
        assert set(task_leads(blocked, task, ["write"])) == set(refused) and refused

    def test_which_thing_a_value_names_is_left_to_what_naming_risks(self) -> None:
        """A file the task gives by name does not lead the failure of a file that does not exist (what naming a thing
        risks ranks that one), but does lead the answer to a file of the kind the task gives."""
        from toolatlas.guidance.implied import task_leads

        sheet = ToolNode(id="books.add_sheet", server="books", tool="add_sheet", schema_hash="h",
                         description="Add a sheet to a workbook.",
                         input_schema={"type": "object", "properties": {"file": {"type": "string"}},
                                       "required": ["file"]})
        found = [
            entry("books", "add_sheet", EntryKind.BOUNDARY, outcome=FAIL, family="nonexistent_reference",
                  condition="`file` names a file that does not exist", error_signature="File not found: <s>",
                  excerpt="File not found: missing_3f2a.xlsx"),
            entry("books", "add_sheet", EntryKind.BOUNDARY, outcome=FAIL,
                  condition='called with `file` = "README.txt" (the error names it)',
                  error_signature="Unsupported file format: '.txt'", excerpt="Unsupported file format: '.txt'"),
        ]
        profile = AtlasView([sheet], found, [], []).profiles[("books", "add_sheet")]
        leads = task_leads(profile, "Add a sheet to the file 'Budget 2024'.")
        assert [profile.findings[i].entry.family for i in leads] == [None]

    def test_a_kind_of_file_the_tool_failed_on_leads(self) -> None:
        """A task naming a ``.txt`` file to a workbook tool, verified on ``.xlsx`` files and failing on the real
        ``README.txt``, is told that failure first; naming a workbook it is not."""
        from toolatlas.guidance.implied import task_leads

        sheet = ToolNode(id="books.add_sheet", server="books", tool="add_sheet", schema_hash="h",
                         description="Add a sheet to a workbook.",
                         input_schema={"type": "object", "properties": {"file": {"type": "string"},
                                                                        "sheet": {"type": "string"}},
                                       "required": ["file"]})
        found = [
            entry("books", "add_sheet", EntryKind.AFFORDANCE, when="add a sheet", effect=Effect.MUTATING,
                  arguments={"file": "${root}/budget.xlsx", "sheet": "Q1"}),
            entry("books", "add_sheet", EntryKind.BOUNDARY, outcome=FAIL, support=9,
                  condition='called with `sheet` = "Sheet1" (the error names it)', error_signature="Sheet not found",
                  excerpt="Sheet not found: 'Sheet1'", arguments={"file": "${root}/budget.xlsx", "sheet": "Sheet1"}),
            entry("books", "add_sheet", EntryKind.BOUNDARY, outcome=FAIL, support=2,
                  condition='called with `file` = "${root}/README.txt" (the error names it)',
                  error_signature="Unsupported file format: '.txt'", excerpt="Unsupported file format: '.txt'",
                  arguments={"file": "${root}/README.txt"}),
        ]
        atlas = Atlas(AtlasView([sheet], found, [], []))
        first = atlas.guide("Add one more sheet to budget.txt.", docs_ratio=None).tools[0].when_not[0]
        assert first.error == "Unsupported file format: '.txt'"
        profile = atlas.view.profiles[("books", "add_sheet")]
        assert task_leads(profile, "Add one more sheet to budget.xlsx.") == {}


def code_runner() -> AtlasView:
    """A code runner probed with code that outran its time limit, beside better supported failures."""
    runner = one_argument_tool("py", "run_code", "Run Python code in a session.", "code")
    found = [
        entry("py", "run_code", EntryKind.AFFORDANCE, when="run code", effect=Effect.READ_ONLY,
              arguments={"code": "print(1 + 1)"}),
        entry("py", "run_code", EntryKind.BOUNDARY, outcome=FAIL, support=12,
              condition="`code` uses a name nothing defines", error_signature="name <s> is not defined",
              excerpt="NameError: name 'undefined_name' is not defined"),
        entry("py", "run_code", EntryKind.BOUNDARY, outcome=FAIL, support=9,
              condition="`code` is not valid syntax", error_signature="invalid syntax", excerpt="invalid syntax"),
        entry("py", "run_code", EntryKind.BOUNDARY, support=1, reported_as_success=True, family="malformed_value",
              condition="`code` runs for 12 seconds (past a time limit)", error_signature="Execution exceeded <n>s limit",
              excerpt='status: "timeout", error_message: "Execution exceeded 5s limit"'),
    ]
    return AtlasView([runner], found, [], [])


class TestLongRuns:
    def test_work_over_a_huge_count_meets_the_time_limit(self) -> None:
        """A loop over every integer below ten billion is what a time limit stops: the call that outran it is
        served first, ahead of better supported mistakes; a small count or a year leads to nothing."""
        view = code_runner()
        profile = view.profiles[("py", "run_code")]
        timed = next(i for i, f in enumerate(profile.findings) if "time limit" in f.text)
        assert task_leads(profile, "In Python, add up the squares of every integer below ten billion") == {timed: 2.0}
        guidance = Atlas(view).guide("In Python, add up the squares of every integer below ten billion with a loop")
        assert "past a time limit" in guidance.tools[0].when_not[0].condition
        for task in ("Sum the squares of 1 to 100 in Python", "In Python, count the weekdays of 2024",
                     "Add up 1,250 and 3,400 in Python"):
            assert task_leads(profile, task) == {}, task

    def test_the_counts_that_outrun_seconds(self) -> None:
        from toolatlas.guidance.implied import asks_long_run

        for task in ("below 10,000,000,000", "a loop to 100000000000", "5 million rows", "1e12 steps",
                     "ten billion integers"):
            assert asks_long_run(task), task
        for task in ("the 1,000 coldest readings", "order 123456", "in 2024", "costs 12,500.50", "2024-03-01"):
            assert not asks_long_run(task), task


def bibliography(listing: str) -> AtlasView:
    """A reader of a bibliography file whose verified answer lists five entries and says how many more there are."""
    reader = one_argument_tool("bib", "read_file", "Read a BibTeX file and list its entries.", "path")
    found = [
        entry("bib", "read_file", EntryKind.AFFORDANCE, when="read a file", effect=Effect.READ_ONLY,
              arguments={"path": "thesis.bib"}, excerpt=listing),
        entry("bib", "read_file", EntryKind.BOUNDARY, outcome=FAIL, support=9,
              condition="`path` names a file that does not exist", family="nonexistent_reference",
              error_signature="No such file or directory: <s>", excerpt="No such file or directory: 'x.bib'"),
    ]
    return AtlasView([reader], found, [], [])


class TestPartialAnswers:
    LISTING = "共 14 个条目\n1. vaswani2017attention\n2. devlin2019bert\n\n... 还有 9 个条目"

    def test_a_request_for_everything_is_told_the_answer_shows_part(self) -> None:
        """Every entry of a file whose reader's verified answer lists five and says "... 还有 9 个条目" (9 more): that
        line is served, quoted, ahead of a better supported failure; a request for one entry is not told."""
        view = bibliography(self.LISTING)
        served = Atlas(view).guide("Print every entry of the thesis bibliography").tools[0].when_not
        assert served[0].cut and served[0].error == "... 还有 9 个条目"
        one = Atlas(view).guide("Print the entry vaswani2017attention of the thesis bibliography").tools[0].when_not
        assert not any(b.cut for b in one)

    def test_an_answer_that_shows_everything_says_nothing_more(self) -> None:
        from toolatlas.guidance.profiles import says_more

        view = bibliography("共 2 个条目\n1. vaswani2017attention\n2. devlin2019bert")
        assert not any(f.cut for f in view.profiles[("bib", "read_file")].findings)
        for line in ("... and 9 more entries", "Showing 5 of 14 results", "… 还有 3 条"):
            listed = entry("bib", "read_file", EntryKind.AFFORDANCE, excerpt=f"a\nb\n{line}")
            assert says_more(listed) == line, line
        assert says_more(entry("bib", "read_file", EntryKind.AFFORDANCE, excerpt="We need 3 more chairs.")) is None


class TestConditionLines:
    def test_misuses_answered_alike_are_said_by_the_first_and_a_count(self) -> None:
        """A boundary several misuses ran into is served by its first condition and how many more there are."""
        from toolatlas.guidance.profiles import condition_line

        assert condition_line("`formula` divides by zero; or when `formula` is written in lower case (`h2o`); or when "
                              "`formula` is empty") == "`formula` divides by zero (or 2 more)"
        assert condition_line("`path` names no_such_object_3f2a") == "`path` names …"


    def test_a_whole_call_is_quoted_by_its_first_arguments_and_what_follows_them(self) -> None:
        """A condition quoting a call of seven arguments keeps those that fit in a line and ``(the error names it)``;
        a short call is quoted whole."""
        from toolatlas.guidance.profiles import CALLED_CHARS, condition_line

        call = ('called with `device_sn` = "HW-L2-CAM-FILL", `model_name` = "fill-level", `model_version` = "1.2.0", '
                '`capture_time` = "2026-12-01 07:14:52", `status` = "error", `error` = "label skew 4.6 deg" '
                "(the error names it)")
        said = condition_line(call)
        assert said == ('called with `device_sn` = "HW-L2-CAM-FILL", `model_name` = "fill-level", '
                        '`model_version` = "1.2.0", … (the error names it)')
        assert len(said) <= CALLED_CHARS + len(", … (the error names it)")
        assert condition_line("called with `record_id` = 3 (or 2 more)") == "called with `record_id` = 3 (or 2 more)"


class TestVerdicts:
    def test_a_negative_verdict_is_said_as_the_tools_no_in_its_own_words(self) -> None:
        """A validator's boundary that is its verdict is served as "says no", quoted by the verdict, not as a
        refusal to avoid quoted by the answer's first line."""
        validate = one_argument_tool("net", "validate_ip_in_subnet",
                                     "Validate that an IP address belongs to a subnet.", "ip_address")
        condition = 'called with `ip_address` = "8.8.8.8", `network` = "172.16.0.0/12"'
        found = [
            entry("net", "validate_ip_in_subnet", EntryKind.AFFORDANCE, when="validate an address",
                  effect=Effect.READ_ONLY, arguments={"ip_address": "172.16.0.5"}),
            entry("net", "validate_ip_in_subnet", EntryKind.BOUNDARY, reported_as_success=True, condition=condition,
                  text=f'`validate_ip_in_subnet` gives a negative verdict when {condition}: “"is_valid": false”.',
                  error_signature="<s>: false", arguments={"ip_address": "8.8.8.8"},
                  excerpt='{\n  "ip_address": "8.8.8.8",\n  "is_valid": false\n}'),
        ]
        guidance = Atlas(AtlasView([validate], found, [], [])).guide("Is 8.8.8.8 inside 172.16.0.0/12?")
        [note] = guidance.tools[0].when_not
        assert note.verdict and note.error == '"is_valid": false'
        assert f'- says no: {condition}: “"is_valid": false”' in guidance.to_text()


class TestInducerWords:
    def test_a_task_saying_called_meets_the_folder_not_the_inducers_called_with(self) -> None:
        """"a folder called trees" points at the folder that does not exist, not at a better supported condition the
        inducer wrote as "called with …"."""
        rename = ToolNode(id="f.rename_file", server="f", tool="rename_file", schema_hash="h",
                          description="Rename a GEDCOM file",
                          input_schema={"type": "object", "required": ["file_name", "new_name"],
                                        "properties": {"file_name": {"type": "string"}, "new_name": {"type": "string"}}})
        found = [
            entry("f", "rename_file", EntryKind.AFFORDANCE, when="rename a file", effect=Effect.MUTATING,
                  arguments={"file_name": "a.ged", "new_name": "b"}),
            entry("f", "rename_file", EntryKind.BOUNDARY, outcome=FAIL, support=24,
                  condition='called with `file_name` = "${root}/a.ged", `new_name` = "example"',
                  error_signature="Non-relative patterns are unsupported", excerpt="Non-relative patterns are unsupported"),
            entry("f", "rename_file", EntryKind.BOUNDARY, reported_as_success=True, support=2, family="missing_parent",
                  condition="`new_name` puts the file in a folder that does not exist",
                  error_signature="Error renaming a.ged: [Errno <n>] No such file or directory",
                  excerpt="Error renaming a.ged: [Errno 2] No such file or directory"),
        ]
        guidance = Atlas(AtlasView([rename], found, [], [])).guide("Move the Okafor tree into a folder called trees.")
        assert guidance.tools[0].when_not[0].condition == "`new_name` puts the file in a folder that does not exist"


class TestRefusedSizes:
    def test_a_task_larger_than_the_limit_a_refusal_states_is_warned_of_it(self) -> None:
        """A checker refused a 100 KB text with ``the limit is 50000``: a task over a 120,000-character report meets
        that refusal first; one over a 3,000-character letter does not."""
        checker = one_argument_tool("proof", "check_text", "Check a Welsh text for mutation errors.", "text")
        found = [
            entry("proof", "check_text", EntryKind.AFFORDANCE, when="check a text", effect=Effect.READ_ONLY,
                  arguments={"text": "Dw i'n mynd i Gaerdydd."}),
            entry("proof", "check_text", EntryKind.BOUNDARY, outcome=FAIL, support=9, family="empty_value",
                  condition="`text` is an empty string", error_signature="The text is empty.",
                  excerpt="The text is empty."),
            entry("proof", "check_text", EntryKind.BOUNDARY, outcome=FAIL, support=2, family="oversized_value",
                  condition="`text` is 100 KB long", error_signature="Text is <n> characters; the limit is <n>.",
                  excerpt="Text is 100000 characters; the limit is 50000. Split the document into sections."),
        ]
        profile = AtlasView([checker], found, [], []).profiles[("proof", "check_text")]
        oversized = next(i for i, f in enumerate(profile.findings) if f.entry.family == "oversized_value")
        assert profile.findings[oversized].cap == 50000
        assert oversized in task_leads(profile, "Check our annual report (about 120,000 characters) in one go.")
        assert oversized not in task_leads(profile, "Check this letter of about 3,000 characters.")


class TestRecasedNames:
    def test_a_name_written_in_another_case_meets_a_refusal_of_it(self) -> None:
        """A task that writes `Sana` where the server refused `Sana` for its `sana` leads with that refusal; one
        that writes `sana` as the server does, or does not name her, does not; an accepted recasing is no lead."""
        tool = one_argument_tool("ops", "create_task", "Create a task for an assignee.", "assignee")
        condition = "`assignee` is a listed value written otherwise (`Sana` for `sana`)"
        refused = entry("ops", "create_task", EntryKind.BOUNDARY, outcome=FAIL, family="case_changed",
                        condition=condition, error_signature="assignee must be one of hamza, sana, ali",
                        excerpt="assignee must be one of hamza, sana, ali", arguments={"assignee": "Sana"})
        profile = AtlasView([tool], [refused], [], []).profiles[("ops", "create_task")]
        index = next(i for i, f in enumerate(profile.findings) if f.entry.family == "case_changed")
        assert task_leads(profile, "Give Sana a task to call the client back") == {index: 2.0}
        assert task_leads(profile, "Give sana a task to call the client back") == {}
        assert task_leads(profile, "Give Hamza a task to call the client back") == {}
        empty = refused.model_copy(update={"outcome": OutcomeClass.OK, "reported_as_success": True})  # nothing found
        profile = AtlasView([tool], [empty], [], []).profiles[("ops", "create_task")]
        assert list(task_leads(profile, "Give Sana a task to call the client back").values()) == [2.0]
        accepted = refused.model_copy(update={"kind": EntryKind.AFFORDANCE, "outcome": OutcomeClass.OK})
        profile = AtlasView([tool], [accepted], [], []).profiles[("ops", "create_task")]
        assert task_leads(profile, "Give Sana a task to call the client back") == {}


class TestOtherNotations:
    def test_a_value_written_in_another_notation_meets_the_refusal_that_names_the_one_it_takes(self) -> None:
        """A refusal naming ``YYYY-MM-DD`` leads for a task that writes 18/10/2026, not for one that writes
        2026-10-18; one naming ``0x-prefixed hex`` leads for a frame id written 3B1, not for a count of 12."""
        workouts = one_argument_tool("health", "get_workouts", "Workouts in a date range.", "start")
        pattern = entry("health", "get_workouts", EntryKind.BOUNDARY, outcome=FAIL, family="malformed_value",
                        condition="`start` is a word, not a date", error_signature="1 validation error",
                        excerpt="1 validation error for call[get_workouts]\nstart\n  String should match pattern "
                                "'^\\d{4}-\\d{2}-\\d{2}$' (YYYY-MM-DD)", arguments={"start": "example"})
        profile = AtlasView([workouts], [pattern], [], []).profiles[("health", "get_workouts")]
        assert list(task_leads(profile, "How many runs between 18/10/2026 and 01/11/2026?").values()) == [2.0]
        assert task_leads(profile, "How many runs between 2026-10-18 and 2026-11-01?") == {}
        decode = one_argument_tool("can", "decode_frame", "Decode one CAN payload.", "arbitration_id")
        hexed = entry("can", "decode_frame", EntryKind.BOUNDARY, outcome=FAIL, family=None,
                      condition='called with `arbitration_id` = "example"', error_signature="Invalid arbitration ID",
                      excerpt="Invalid arbitration ID 'example'; use a decimal integer or 0x-prefixed hex",
                      arguments={"arbitration_id": "example"})
        profile = AtlasView([decode], [hexed], [], []).profiles[("can", "decode_frame")]
        assert list(task_leads(profile, "Decode this frame: ID 3B1, data 94 11 B0 04").values()) == [2.0]
        assert task_leads(profile, "Decode the 12 frames of the bench test") == {}


class TestNamedForCode:
    def test_a_thing_named_by_its_name_meets_the_tool_that_takes_its_code(self) -> None:
        """"the median salary of a Data Scientist": the tool was verified to refuse an occupation's name where it
        takes the code, so that refusal leads, before a better supported failure the words point at; a task giving
        the code is not told it."""
        wages = one_argument_tool("wages", "get_wage_data", "Wages of one occupation by its SOC code.", "occ_code")
        found = [
            entry("wages", "get_wage_data", EntryKind.AFFORDANCE, when="read one occupation's wages",
                  effect=Effect.READ_ONLY, arguments={"occ_code": "15-1252"}),
            entry("wages", "get_wage_data", EntryKind.BOUNDARY, outcome=FAIL, support=12,
                  condition="`occ_code` names an occupation that does not exist",
                  error_signature="no occupation <s>", excerpt="no occupation 99-9999"),
            entry("wages", "get_wage_data", EntryKind.BOUNDARY, outcome=FAIL, support=2, family="name_for_code",
                  condition="`occ_code` is the name a code stands for (`Software Developers`), not the code",
                  error_signature="occ_code=<s> must be a SOC code like <s>",
                  excerpt="occ_code='Software Developers' must be a SOC code like 15-1252"),
        ]
        atlas = Atlas(AtlasView([wages], found, [], []))
        named = atlas.guide("What is the national median salary of a Data Scientist?", docs_ratio=None)
        assert "must be a SOC code" in named.tools[0].when_not[0].error
        coded = atlas.guide("What is the national median salary of occupation 15-2051? Missing ones too.",
                            docs_ratio=None)
        assert "must be a SOC code" not in coded.tools[0].when_not[0].error
