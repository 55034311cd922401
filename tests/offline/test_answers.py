"""Values a description, a listing or an error names: read, typed by kind, tied to their argument, retried."""

from __future__ import annotations

import random
from typing import Any

import pytest

from toolatlas.models import ToolSpec
from toolatlas.offline.answers import answered_values, argument_takers, named_fixes
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.hints import description_values, documented_arguments, error_values, listed_items
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.retries import hinted_retries
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.values import ArgKind


def make(name: str, properties: dict[str, Any], description: str = "") -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return ToolSpec(server="unseen", name=name, description=description, input_schema=schema)


def string(description: str = "") -> dict[str, Any]:
    return {"type": "string", "description": description}


class TestListedItems:
    @pytest.mark.parametrize(
        ("span", "items"),
        [
            ("['Sales', 'Targets']", ["Sales", "Targets"]),
            ("'a', 'b' or 'c'. Then more", ["a", "b", "c"]),
            ("m, km, mi, ft.", ["m", "km", "mi", "ft"]),
            ("`#fff` | `#000`", ["#fff", "#000"]),
            ("json, yaml, etc.", ["json", "yaml"]),
            ("the first sheet of the workbook", []),
            ("CONNECT (1), CONNACK (2), PUBLISH (3). Use the name", ["CONNECT", "CONNACK", "PUBLISH"]),
            ("m (metres), km or ft (feet)", ["m", "km", "ft"]),
        ],
    )
    def test_lists(self, span: str, items: list[str]) -> None:
        """Bracketed, quoted and bare lists are read, an item's short gloss in parentheses left out (a packet's
        number in a table); prose is not a list."""
        assert listed_items(span) == items


class TestDescriptions:
    @pytest.mark.parametrize(
        ("description", "choices", "examples"),
        [
            (
                "Target unit, e.g. km or mi. Supported units: m, km, mi, ft",
                ["m", "km", "mi", "ft"],
                ["km", "mi"],
            ),
            ("Sort order: one of asc, desc", ["asc", "desc"], []),
            ("Colour in hex (for example `#ff0000`)", [], ["#ff0000"]),
            ("A cron line such as 0 9 * * 1-5", [], ["0 9 * * 1-5"]),
            ("Output format. Allowed values: png, jpeg, webp", ["png", "jpeg", "webp"], []),
            ("The text to analyse, such as a paragraph of prose.", [], []),
            ("Region code; use `eu-west-1` for Ireland", [], ["eu-west-1"]),
        ],
    )
    def test_choices_and_examples(self, description: str, choices: list[str], examples: list[str]) -> None:
        """Allowed-value lists and examples are told apart; prose examples give nothing."""
        assert description_values(description) == (choices, examples)

    def test_a_docstring_describes_arguments_the_schema_only_titles(self) -> None:
        """``Args:`` lines give the description an argument's schema lacks (``Priority`` → ``(A-Z)``)."""
        docstring = (
            "Add a todo.\n\n    Args:\n        text: The todo text\n        priority: Priority level (A-Z),\n"
        )
        docstring += "            optional\n\n    Returns:\n        The todo"
        assert documented_arguments(docstring) == {
            "text": "The todo text",
            "priority": "Priority level (A-Z), optional",
        }
        tool = make(
            "add_todo",
            {"text": {"type": "string", "title": "Text"}, "priority": string("Priority")},
            docstring,
        )
        text, priority = infer_arguments(tool)
        assert text.description == "The todo text"
        assert priority.examples == ["A", "B", "C"]
        assert (
            ValueSynth(EnvironmentFacts(kind="none"), ValuePool()).valid_arguments(tool).arguments["priority"]
            == "A"
        )

    def test_a_paragraph_that_opens_with_an_arguments_name_describes_it(self) -> None:
        """``occ_code: 6-digit SOC code … (e.g., '151252' …)`` as a paragraph of the docstring, its lines at its own
        indent: the code's description and example; a capitalised ``Note:`` paragraph documents nothing."""
        docstring = ("Get wage data for an occupation.\n\n    occ_code: 6-digit SOC code without dash (e.g., '151252'"
                     " for Software\n    Developers).\n\n    Note: figures are rounded.\n")
        assert documented_arguments(docstring) == {"occ_code": "6-digit SOC code without dash (e.g., '151252' for "
                                                               "Software Developers)."}
        tool = make("get_wage_data", {"occ_code": {"type": "string", "title": "Occ Code"}}, docstring)
        assert ValueSynth(EnvironmentFacts(kind="none"), ValuePool()).valid_arguments(tool).arguments["occ_code"] == "151252"

    def test_backticked_argument_names_are_not_examples(self) -> None:
        """A backticked sibling name (``see `count` ``) is not taken for a value."""
        tool = make(
            "lookup", {"label": string("Shown beside `count` in the list"), "count": {"type": "integer"}}
        )
        assert infer_arguments(tool)[0].examples == []

    def test_a_backticked_name_to_look_values_up_with_is_not_an_example(self) -> None:
        """``(see `list_sources`)`` says where a value comes from; ``Use `auto` to …`` gives one."""
        source = infer_arguments(make("get_quantity", {"source": string(
            "Restrict to one source/device (see `list_sources`). Omit to auto-dedupe parallel devices.")}))[0]
        assert source.examples == []
        mode = infer_arguments(make("render", {"mode": string("Use `auto` to pick one from the screen.")}))[0]
        assert mode.examples == ["auto"]

    def test_a_list_wrapped_over_lines_and_codes_written_as_aliases(self) -> None:
        """``signature: FACP/FADT, APIC/MADT, HPET,`` and on the next line ``WAET, RSDP.``: every code, aliases each
        an item, the line's last comma going on."""
        tool = make("acpi_table", {"signature": string()}, description=(
            "Decode one table.\n\n    signature: FACP/FADT, APIC/MADT, HPET, MCFG,\n    WAET, RSDP. index picks among "
            "duplicates."))
        assert infer_arguments(tool)[0].enum == ["FACP", "FADT", "APIC", "MADT", "HPET", "MCFG", "WAET", "RSDP"]

    def test_described_units_keep_their_kind(self) -> None:
        """A unit argument whose description lists the units keeps the unit kind, with the list as its set."""
        spec = infer_arguments(make("convert", {"unit": string("Supported units: m, km, mi")}))[0]
        assert spec.kind is ArgKind.UNIT and spec.enum == ["m", "km", "mi"] and spec.enum_from_description


class TestErrors:
    @pytest.mark.parametrize(
        ("text", "values", "argument"),
        [
            ("Sheet 'x' not found. Available sheets: 'Sales', 'Targets'", ["Sales", "Targets"], None),
            ("Invalid enum value. Expected 'asc' | 'desc', received 'up'", ["asc", "desc"], None),
            (
                "1 validation error\nunit\n  Input should be 'metric' or 'imperial'",
                ["metric", "imperial"],
                "unit",
            ),
            ("Unknown unit 'furlongs'. Did you mean 'furlong'?", ["furlong"], None),
            ('[{"code": "invalid_enum_value", "options": ["a", "b"], "path": ["mode"]}]', ["a", "b"], "mode"),
            ("Error: table users does not exist", None, None),
            (
                "1 validation error\ntarget_timezone\n  Field required "
                "[type=missing, input_value={'time': '09:05', "
                "'zone': 'Europe/London'}, input_type=dict]",
                None,
                None,
            ),
            ("Unknown unit. Supported units: 'Amer...', 'km'", ["km"], None),
            ('{"message": "Reference kind is not supported.", "hint": "Use return, noc, or sec."}',
             ["return", "noc", "sec"], None),
            ("You can use this tool, or that one.", None, None),
            ("'GM4XVQ' is not a 4, 6 or 8 character Maidenhead locator (e.g. DN13 or DN13la).", ["DN13", "DN13la"],
             None),
            ("no FACP table in /x. Tables present: APIC, DSDT, HPET", ["APIC", "DSDT", "HPET"], None),
            ("invalid IUPAC character 'E' at motif position 1; use A,C,G,T,N", ["A", "C", "G", "T", "N"], None),
            ("1 validation error\nmetro_codes\n  Input should be a valid list [type=list_type]", None, None),
            ("Unknown journal 'example'. Configured: ['workshop', 'notebook-2025']", ["workshop", "notebook-2025"],
             None),
        ],
    )
    def test_values_an_error_names(self, text: str, values: list[str] | None, argument: str | None) -> None:
        """The values an error offers, less the refused one, and the argument when it says which."""
        found = error_values(text)
        if values is None:
            assert found == []
            return
        assert found[0].values == values and found[0].argument == argument


    @pytest.mark.parametrize(
        ("text", "values", "noun"),
        [
            ("Invalid table index. Document has 1 tables (0-0).", ["0"], "tables"),
            ("Invalid paragraph index. Document has 7 paragraphs (0-6).", ["0", "6"], "paragraphs"),
            ("page must be between 1 and 10", ["1", "10"], "page"),
            ("Invalid table index. Document has 0 tables (0--1).", None, None),
            ("Slide index 5 not found. Presentation has 2 slides.", ["0", "1"], "slides"),
            ("Row 1 is not an application row (data rows are 2–13).", ["2", "13"], "rows"),
            ("Presentation has 2 slides.", None, None),
            ("Released on (2024-03-14)", None, None),
        ],
    )
    def test_a_stated_span_names_its_ends(self, text: str, values: list[str] | None, noun: str | None) -> None:
        """A span of valid positions names its two ends and the noun before it; an empty span names nothing."""
        found = error_values(text)
        if values is None:
            assert found == []
            return
        assert found[-1].values == values and found[-1].noun.endswith(noun) and not found[-1].complete


class TestHarvestFromAnswers:
    def test_an_error_feeds_the_argument_it_is_about(self) -> None:
        """``Available sheets`` after a refused sheet: pooled for that argument, typed as sheets."""
        tool = make("read_sheet", {"sheet": string("Sheet to read"), "cell": string("Cell in A1 notation")})
        pool = ValuePool()
        arguments = {"sheet": "Sheet1", "cell": "A1"}
        pool.harvest_error(
            tool, "Sheet not found: 'Sheet1'. Available: ['Sales', 'Targets']", {}, "p1", arguments=arguments
        )
        named = pool.named_for("read_sheet:sheet")
        assert [r.value for r in named] == ["Sales", "Targets"]
        assert {r.kind for r in named} == {ArgKind.SHEET_NAME} and named[0].failed_arguments == arguments
        assert pool.named_for("read_sheet:cell") == []

    def test_values_go_to_the_argument_whose_schema_takes_them(self) -> None:
        """``scope='state' takes a 2-digit FIPS (e.g. '51' for VA)``, said of `area_code` and naming `scope`: the code
        is for `area_code`, since `scope`'s choices (national, state, metro) do not hold it."""
        tool = make("get_wage_data", {"occ_code": string("SOC code"), "area_code": string("Area code"),
                                      "scope": {"type": "string", "enum": ["national", "state", "metro"]}})
        error = ("area_code='0012345' does not look like a state FIPS code. scope='state' takes a 2-digit FIPS "
                 "(e.g. '51' for VA).")
        fixes = named_fixes(tool, error, {"occ_code": "151252", "scope": "state", "area_code": 12345})
        assert [(f.argument, f.value) for f in fixes] == [("get_wage_data:area_code", "51")]

    def test_what_one_tool_was_told_about_an_argument_its_siblings_declaring_it_alike_take(self) -> None:
        """``valid DNA characters are ACGT`` for `summarize`'s `sequence` goes to `translate`'s `sequence` declared the
        same way too (with no retry of its own), never to a `sequence` declared otherwise."""
        sequence = string("Raw nucleotide sequence")
        summarize = make("summarize", {"sequence": sequence})
        translate = make("translate", {"sequence": sequence, "table": string("Genetic code")})
        other = make("count_words", {"sequence": string("Words to count")})
        pool = ValuePool()
        siblings = {t.name: t for t in (summarize, translate, other)}
        pool.harvest_error(summarize, "invalid character 'E'; valid DNA characters are ACGT, ACGU", {}, "p1",
                           arguments={"sequence": "example"}, siblings=siblings)
        assert [r.value for r in pool.named_for("summarize:sequence")] == ["ACGT", "ACGU"]
        shared = pool.named_for("translate:sequence")
        assert [r.value for r in shared] == ["ACGT", "ACGU"] and shared[0].failed_arguments is None
        assert pool.named_for("count_words:sequence") == []

    def test_a_json_errors_keys_do_not_say_which_argument(self) -> None:
        """A JSON error's ``"code":`` key is its shape: the hint's values go to `kind`, which the message names, not
        to an argument called `code`."""
        tool = make("lookup_code", {"kind": string("Kind of code"), "code": string("The code to look up")})
        text = ('{"error": {"code": "UNSUPPORTED", "message": "Reference kind is not supported.", '
                '"hint": "Use return, noc, transaction, or sec."}}')
        fixes = named_fixes(tool, text, {"kind": "example", "code": "example"})
        assert {f.locator for f in fixes} == {"kind"} and [f.value for f in fixes][:2] == ["return", "noc"]

    def test_an_example_refused_in_two_arguments_alike_is_offered_to_both(self) -> None:
        """``'example' is not a … locator (e.g. DN13 or DN13la)`` for a call that gave `start` and `end` the same value:
        each takes the examples; given different values, which one it is about is not said."""
        tool = make("calculate_distance", {"start": string(), "end": string()})
        text = "'example' is not a 4, 6 or 8 character Maidenhead locator (e.g. DN13 or DN13la)."
        fixes = named_fixes(tool, text, {"start": "example", "end": "example"})
        assert sorted((f.locator, f.value) for f in fixes) == [
            ("end", "DN13"), ("end", "DN13la"), ("start", "DN13"), ("start", "DN13la")]
        assert named_fixes(tool, text.replace("'example'", "'FN31'"), {"start": "FN31x", "end": "zz"}) == []

    def test_later_calls_prefer_named_values(self) -> None:
        """Once an error named the sheets, plans of that tool (and other sheet arguments) use them."""
        reader = make("read_sheet", {"sheet": string("Sheet to read")})
        writer = make("write_cell", {"sheet_name": string(), "cell": string("Cell in A1 notation")})
        pool = ValuePool()
        pool.harvest_error(
            reader,
            "Unknown sheet 'Sheet1'; valid sheets are: Sales, Targets",
            {},
            "p1",
            arguments={"sheet": "Sheet1"},
        )
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        assert {synth.valid_arguments(reader, None, v).arguments["sheet"] for v in range(2)} == {
            "Sales",
            "Targets",
        }
        assert synth.valid_arguments(writer, None, 0).arguments["sheet_name"] in ("Sales", "Targets")

    def test_a_named_ranges_costly_end_is_never_planned(self) -> None:
        """``entries_per_batch must be between 1 and 10000``: later calls take 1, never 10000 entries a batch (a valid
        call at the far end of a count makes every call of the tool slow)."""
        generate = make("generate_file", {"entries_per_batch": {"type": "integer", "description": "Entries a batch."}})
        pool = ValuePool()
        pool.harvest_error(generate, "entries_per_batch must be between 1 and 10000", {}, "p1",
                           arguments={"entries_per_batch": 1000000000})
        assert {r.value for r in pool.named_for("generate_file:entries_per_batch")} >= {"1", "10000"}
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        planned = {synth.valid_arguments(generate, None, v).arguments.get("entries_per_batch") for v in range(3)}
        assert 1 in planned and 10000 not in planned

    def test_identities_an_answer_labels_feed_the_arguments_named_for_them(self) -> None:
        """``Key: vaswani2017`` lines and the bare lines under ``所有条目的key:`` are what ``key`` and the items of
        ``keys`` take — before an identifier harvested under another name."""
        reader = make("read_file", {"filepath": string("File to read")})
        entry = make("get_entry", {"key": string()})
        writer = make("write_entries", {"keys": {"type": "array", "items": {"type": "string"}}})
        pool = ValuePool()
        pool.harvest(reader, "1. Key: vaswani2017attention\n   Type: inproceedings\n", None, {}, "p1")
        pool.harvest(reader, "文件: thesis.bib (总计 2 个条目)\n\n所有条目的key:\nbeltagy2020\ntay2022\n", None, {}, "p2")
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        keys = {"vaswani2017attention", "beltagy2020", "tay2022"}
        assert {synth.valid_arguments(entry, None, v).arguments["key"] for v in range(3)} == keys
        assert set(synth.valid_arguments(writer, None, 0).arguments["keys"]) <= keys

    def test_a_list_under_a_plural_key_feeds_the_argument_of_its_singular(self) -> None:
        """``{"lemmas": [...]}`` from one tool: the values another tool's ``lemma`` takes (a name the build knew
        no kind for)."""
        lister = make("list_terms", {})
        deprecate = make("deprecate_term", {"lemma": string(), "reason": string()})
        pool = ValuePool()
        pool.harvest(lister, '{"lemmas": ["aqueduct", "bastion"]}', {"lemmas": ["aqueduct", "bastion"]}, {}, "p1")
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        assert {synth.valid_arguments(deprecate, None, v).arguments["lemma"] for v in range(2)} == {"aqueduct", "bastion"}
        assert synth.valid_arguments(deprecate, None, 0).arguments["reason"] not in ("aqueduct", "bastion")

    def test_whole_number_ids_a_search_lists_feed_an_integer_id(self) -> None:
        """``{'note_ids': [1796622027790, …]}`` (a Python repr): the ids ``get_note``'s integer ``note_id`` takes,
        as numbers; a number that names no id (``limit``) is not one of them."""
        search = make("search_notes", {"query": string()})
        get = ToolSpec(server="s", name="get_note", description="Get a note.", input_schema={
            "type": "object", "required": ["note_id"],
            "properties": {"note_id": {"type": "integer"}, "limit": {"type": "integer", "minimum": 1}}})
        pool = ValuePool()
        pool.harvest(search, "{'success': True, 'note_ids': [1796622027790, 1796622027791], 'count': 2}", None, {},
                     "p1")
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        calls = [synth.valid_arguments(get, None, v).arguments for v in range(2)]
        assert {c["note_id"] for c in calls} == {1796622027790, 1796622027791}
        assert all(c.get("limit") not in (1796622027790, 1796622027791) for c in calls)

    def test_a_title_named_as_existing_takes_one_a_listing_grouped_where_the_description_says(self) -> None:
        """``{"TODO": [...], "DOING": [...]}`` from a board's listing — a framework's ``{"result": "<that JSON>"}``
        around it —: "the exact title of the task currently in DOING" is one listed under DOING, a move names the
        column its task is listed in, and a tool creating a task still invents its title."""
        lister = make("list_tasks", {})
        propose = make("propose_done", {"title": string("Exact title of the task currently in DOING.")})
        move = make("move_task", {"title": string("Exact title of the task to move"),
                                  "from_column": string("Source column — any column present in the board"),
                                  "to_column": string("Destination column — any column present in the board")},
                    description="Move a task from one column to another.")
        add = make("add_task", {"title": string("Task title")}, description="Add a new task to the kanban board.")
        board = '{\n  "TODO": ["Show the winter banner"],\n  "DOING": ["Fix double charge"]\n}'
        pool = ValuePool()
        pool.harvest(lister, board, {"result": board}, {}, "p1")
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        assert {synth.valid_arguments(propose, None, v).arguments["title"] for v in range(2)} == {"Fix double charge"}
        moves = [synth.valid_arguments(move, None, v).arguments for v in range(2)]
        assert {(m["title"], m["from_column"]) for m in moves} == {("Show the winter banner", "TODO"),
                                                                    ("Fix double charge", "DOING")}
        assert all(m["to_column"] not in ("TODO", "DOING") or m["to_column"] != m["from_column"] for m in moves)
        assert synth.valid_arguments(add, None, 0).arguments["title"] not in ("Show the winter banner", "Fix double charge")

    def test_one_group_is_a_grouping_only_when_the_call_asked_for_it(self) -> None:
        """``{"DOING": [...]}`` answering ``column="DOING"`` is a group; ``{"Pinned": [...]}`` unasked is none."""
        lister = make("list_tasks", {"column": string()})
        pool = ValuePool()
        pool.harvest(lister, '{"DOING": ["Fix double charge"]}', None, {}, "p1", arguments={"column": "DOING"})
        pool.harvest(lister, '{"Pinned": ["Board file was reformatted"]}', None, {}, "p2", arguments={})
        assert [(r.value, r.context) for r in pool.values(ArgKind.IDENTIFIER)] == [("Fix double charge", "group:DOING")]

    def test_a_changelog_names_commits_and_the_files_a_commit_changed(self) -> None:
        """The abbreviated commits of a log and the files of a diffstat are what a tool taking a commit or a tracked
        path is called with; the same hex in a tool that is no log is not a commit."""
        log = make("changelog", {}, description="Generate a changelog for a commit range.")
        text = ("## Changelog\n- **Split the fare calculator** — 62b24b4 (Sandeep Rao, 2026-12-01)\n"
                " app/payments/fare_calculator.py | 10 ++++++++++\n 1 file changed")
        pool = ValuePool()
        pool.harvest(log, text, None, {}, "p1")
        assert [r.value for r in pool.values(ArgKind.REVISION)] == ["62b24b4"]
        assert [r.value for r in pool.values(ArgKind.FILE_PATH)] == ["app/payments/fare_calculator.py"]
        diff = ValuePool()
        diff.harvest(log, "diff --git a/x.py b/x.py\nindex 076f1ee..e408e57 100644", None, {}, "p3")
        assert diff.values(ArgKind.REVISION) == []  # a diff's blobs are no commits
        paint = make("mix_paint", {}, description="Mix two colours.")
        other = ValuePool()
        other.harvest(paint, "mixed 62b24b4 and ffee00", None, {}, "p2")
        assert other.values(ArgKind.REVISION) == []

    def test_a_generic_argument_keeps_its_values_to_itself(self) -> None:
        """Values named for a plain string argument are not offered to other tools' string arguments."""
        tool = make("set_mode", {"mode": string("How to run")})
        other = make("greet", {"name_of_thing": string()})
        pool = ValuePool()
        pool.harvest_error(tool, "mode must be one of [fast, slow]", {}, "p1", arguments={"mode": "example"})
        assert [r.value for r in pool.named_for("set_mode:mode")] == ["fast", "slow"]
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        assert synth.valid_arguments(tool, None, 0).arguments["mode"] == "fast"
        assert synth.valid_arguments(other, None, 0).arguments["name_of_thing"] not in ("fast", "slow")

    def test_an_error_about_a_path_names_formats_not_values(self) -> None:
        """``Supported: .csv, .xlsx`` after a .txt file: formats are kept; no argument gets ``.csv``."""
        tool = make("list_sheets", {"file": string("Path to the spreadsheet file"), "sheet": string()})
        pool = ValuePool()
        error = "Unsupported file format: '.txt'. Supported: .csv, .ods, .xlsx"
        pool.harvest_error(tool, error, {}, "p1", arguments={"file": "${root}/a.txt", "sheet": "Sheet1"})
        assert [r.value for r in pool.named_for("list_sheets:file")] == [".csv", ".ods", ".xlsx"]
        assert pool.named_for("list_sheets:sheet") == []

    def test_an_error_that_names_the_argument_ties_its_values_to_it(self) -> None:
        """``Invalid unit. Valid options: …`` names the argument by its name: the options are for `unit`
        alone, though the refused value is not quoted and the noun is only ``options``."""
        tool = make("set_padding", {"left": {"type": "number"}, "right": {"type": "number"},
                                    "unit": {"type": "string", "default": "points"}})
        pool = ValuePool()
        error = "Invalid unit. Valid options: points, percent"
        pool.harvest_error(tool, error, {}, "p1", arguments={"left": 7, "right": 7, "unit": "m"})
        assert [r.value for r in pool.named_for("set_padding:unit")] == ["points", "percent"]
        assert pool.named_for("set_padding:left") == pool.named_for("set_padding:right") == []

    def test_nothing_is_guessed_without_evidence(self) -> None:
        """A list with nothing tying it to one of several arguments is not harvested."""
        tool = make("combine", {"left": string(), "right": string()})
        pool = ValuePool()
        pool.harvest_error(tool, "Supported: alpha, beta", {}, "p1", arguments={"left": "x", "right": "y"})
        assert len(pool) == 0

    def test_listing_outputs_are_typed_by_what_they_list(self) -> None:
        """A listing tool's lines and a JSON key name their kind; a single read value is not a listing."""
        pool = ValuePool()
        pool.harvest(make("list_sheets", {"file": string()}), "Sales\nTargets", None, {}, "p1")
        pool.harvest(make("info", {}), "", {"units": ["km", "mi"], "rows": [["sku", "name"]]}, {}, "p2")
        pool.harvest(make("read_cell", {"cell": string("A1 cell")}), "Region", None, {}, "p3")
        assert [r.value for r in pool.values(ArgKind.SHEET_NAME)] == ["Sales", "Targets"]
        assert [r.value for r in pool.values(ArgKind.UNIT)] == ["km", "mi"]
        assert pool.values(ArgKind.CELL) == []


class TestFieldsNamedLikeArguments:
    """``"projects": ["house"]`` in a listing's records: values another tool's ``project`` argument takes."""

    LISTER = make("list_todos", {})
    FILTER = make("filter_by_project", {"project": string()})
    ANSWER = {"todos": [{"id": "0", "text": "Call the plumber +house", "projects": ["house"], "priority": "A"},
                        {"id": "1", "text": "Send the report +work", "projects": ["work", "house"], "priority": 3}],
              "count": 2}

    def takers(self, *tools: ToolSpec) -> dict:
        return argument_takers({t.name: t for t in tools})

    def test_a_field_feeds_the_argument_named_like_it(self) -> None:
        pool = ValuePool()
        pool.harvest_answered(self.LISTER, self.ANSWER, self.takers(self.LISTER, self.FILTER), "p1", arguments={})
        named = pool.named_for("filter_by_project:project")
        assert [r.value for r in named] == ["house", "work"]
        assert {(r.tool, r.probe_id, r.failed_arguments) for r in named} == {("list_todos", "p1", None)}
        assert pool.values(ArgKind.STRING) == []  # tied to that argument: no other string argument gets them

    def test_plans_of_that_tool_take_them(self) -> None:
        pool = ValuePool()
        pool.harvest_answered(self.LISTER, self.ANSWER, self.takers(self.LISTER, self.FILTER), "p1", arguments={})
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        assert synth.valid_arguments(self.FILTER, None, 0).arguments["project"] in ("house", "work")

    def test_an_echo_of_the_call_is_no_value_of_the_server(self) -> None:
        """``filter_by_project(project="example")`` answers ``"project": "example"``: the tool's own argument
        and what the call sent are not harvested."""
        echo = {"todos": [], "project": "example"}
        other = make("tag_todos", {"project": string()})
        takers = self.takers(self.FILTER, other)
        assert answered_values(echo, "filter_by_project", takers, {"example"}) == []
        found = answered_values({"project": "house"}, "filter_by_project", takers, {"example"})
        assert [(tool, spec.name, value) for tool, spec, value in found] == [("tag_todos", "project", "house")]

    def test_typed_arguments_and_long_texts_are_left_to_their_own_readers(self) -> None:
        """Only plain string arguments: an id, a path or an enum has its own source; a record's long text is
        content, not a name."""
        tools = [make("get_todo", {"todo_id": string()}), make("open_file", {"path": string("File path")}),
                 make("set_text", {"text": {"type": "string", "enum": ["a", "b"]}})]
        takers = self.takers(*tools)
        assert answered_values({"todo_id": "7", "path": "/tmp/x", "text": "a"}, "list_todos", takers, set()) == []
        long = {"project": "x" * 65}
        assert answered_values(long, "list_todos", self.takers(self.FILTER), set()) == []

    def test_a_name_many_tools_take_is_the_servers_handle(self) -> None:
        """``alias`` taken by five tools names what the server holds (minted and listed by their own means):
        no pooled copy per taker."""
        tools = [make(f"tool_{n}", {"alias": string()}) for n in range(5)]
        assert "alias" not in self.takers(*tools) and "alias" in self.takers(*tools[:4])

    def test_the_proposer_plans_the_lister_then_the_filter(self) -> None:
        """A data-flow probe per value: the call whose answer named it, then the tool that takes it."""
        from toolatlas.config import ServerSpec
        from toolatlas.graph.state import ServerGraph
        from toolatlas.offline.proposer import OfflineProposer

        proposer = OfflineProposer(ServerGraph("s", [self.LISTER, self.FILTER]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        proposer.calls_by_probe["p1"] = {"list_todos": {}}
        proposer.pool.harvest_answered(self.LISTER, self.ANSWER, proposer.takers, "p1", arguments={})
        flows = [p for p in proposer.candidates(1, ["filter_by_project"])["filter_by_project"]
                 if any(k.startswith("filter_by_project:data<list_todos") for k in p.coverage_keys)]
        assert len(flows) == 2 and len({k for p in flows for k in p.coverage_keys if ":data<" in k}) == 2
        for flow in flows:
            first, second = flow.steps
            assert (first.tool, first.arguments) == ("list_todos", {})
            assert [r.value for r in second.harvested] == [second.arguments["project"]]
        assert {flow.steps[1].arguments["project"] for flow in flows} == {"house", "work"}  # each value it named


    def test_a_data_flow_makes_first_what_its_source_was_called_after(self) -> None:
        """A listing read after a file was loaded into the server (``load → list``): the data-flow probe loads it
        first too, or the listing answers "nothing loaded" and its value meets nothing."""
        from toolatlas.config import ServerSpec
        from toolatlas.graph.state import ServerGraph
        from toolatlas.offline.proposer import OfflineProposer

        load = make("load_file", {"file_path": string()})
        proposer = OfflineProposer(ServerGraph("s", [load, self.LISTER, self.FILTER]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        proposer.calls_by_probe["p1"] = {"load_file": {"file_path": "${root}/todos.json"}, "list_todos": {}}
        proposer.pool.harvest_answered(self.LISTER, self.ANSWER, proposer.takers, "p1", arguments={})
        flows = [p for p in proposer.candidates(1, ["filter_by_project"])["filter_by_project"]
                 if any(k.startswith("filter_by_project:data<list_todos") for k in p.coverage_keys)]
        assert flows and all([s.tool for s in flow.steps] == ["load_file", "list_todos", "filter_by_project"]
                             and flow.steps[0].arguments == {"file_path": "${root}/todos.json"} for flow in flows)


class TestCurrentValues:
    @pytest.mark.parametrize(
        ("text", "arguments", "fixed"),
        [
            ("The tracker changed since you read it (now f890255f19e1e979, you had 2.0.0). Re-read and retry.",
             {"row": 2, "expected_version": "2.0.0"}, ("expected_version", "f890255f19e1e979")),
            ("version mismatch: expected 7, got 2", {"row": 3, "revision": 2}, ("revision", "7")),
            ("bad revision: got 2, expected 7.", {"row": 3, "revision": 2}, ("revision", "7")),
            ("expected 7, got 5", {"row": 3, "revision": 2}, None),
        ],
    )
    def test_the_current_value_beside_the_stale_one_sent_is_for_its_argument(
        self, text: str, arguments: dict, fixed: tuple[str, str] | None
    ) -> None:
        """An error giving the current value beside the one an argument sent (``now X, you had Y``, ``expected X,
        got Y``) names X for that argument; one whose stale value no argument sent names nothing."""
        tool = make("set_status", {"row": {"type": "integer"}, "expected_version": string("Version you read"),
                                   "revision": {"type": "integer"}})
        found = [(f.locator, f.value) for f in named_fixes(tool, text, arguments)]
        assert (fixed in found) if fixed else not [f for f in found if f[1] == "7"]


class TestHintedRetries:
    def test_the_failed_call_is_retried_with_a_named_value(self) -> None:
        """One retry per argument and failed call: the same arguments, the first named value that differs."""
        tool = make("convert", {"value": {"type": "number"}, "unit": string("Target unit")})
        pool = ValuePool()
        failing = {"value": 3, "unit": "furlongs"}
        pool.harvest_error(
            tool, "Unknown unit 'furlongs'. Did you mean 'furlong'?", {}, "p1", arguments=failing
        )
        retries = hinted_retries(tool, pool)
        assert len(retries) == 1
        assert retries[0].failing == failing and retries[0].fixed == {"value": 3, "unit": "furlong"}

    def test_a_position_is_retried_inside_the_stated_span(self) -> None:
        """``Document has 1 tables (0-0)`` after index 2: the same call with index 0, kept a number (no table name)."""
        tool = make("set_table_width", {"filename": string(), "table_index": {"type": "integer"}, "width": {"type": "number"}})
        pool = ValuePool()
        failing = {"filename": "${root}/report.docx", "table_index": 2, "width": 10}
        pool.harvest_error(tool, "Invalid table index. Document has 1 tables (0-0).", {}, "p1", arguments=failing)
        retries = hinted_retries(tool, pool)
        assert [r.fixed for r in retries] == [{**failing, "table_index": 0}]
        assert pool.values(ArgKind.TABLE_NAME) == []

    def test_a_call_that_failed_after_others_is_retried_after_them(self) -> None:
        """``Slide index 5 not found. Presentation has 1 slides.`` is met only once a deck exists: the retry with
        index 0 makes the calls the failed one was made after first (those that did not fail), and judges the
        retried call against the failed one."""
        from toolatlas.config import ServerSpec
        from toolatlas.graph.state import ServerGraph
        from toolatlas.models import CallOutcome, OutcomeClass
        from toolatlas.offline.proposer import OfflineProposer
        from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict

        listing = make("list_slide_components", {"slide_index": {"type": "integer"}})
        deck = make("create_deck", {"name": string("Deck name")})
        proposer = OfflineProposer(ServerGraph("s", [listing, deck]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        steps = [ProbeStep(tool="list_slide_components", arguments={"slide_index": 5}, expect="any"),
                 ProbeStep(tool="create_deck", arguments={"name": "menu"}, expect="ok"),
                 ProbeStep(tool="list_slide_components", arguments={"slide_index": 5}, expect="ok", enabled_by=1)]
        answers = ["No presentation found.", "Created deck 'menu'", "Slide index 5 not found. Presentation has 1 slides."]
        probe = Probe(id="p1", server="s", round=1, direction=Direction.AFFORDANCE, target="list_slide_components",
                      task="t", steps=steps)
        results = [StepResult(index=i, outcome=CallOutcome(server="s", tool=s.tool, arguments=s.arguments,
                                                           outcome=OutcomeClass.TOOL_ERROR if i != 1 else OutcomeClass.OK,
                                                           excerpt=text))
                   for i, (s, text) in enumerate(zip(steps, answers, strict=True))]
        verdicts = [StepVerdict(index=i, tool=s.tool, outcome=results[i].outcome.outcome, failed=i != 1,
                                error_text=answers[i] if i != 1 else "") for i, s in enumerate(steps)]
        proposer.observe(Rollout(probe=probe, steps=results), Verdict(probe_id="p1", server="s", resolved=False,
                                                                      steps=verdicts))
        [retry] = [p for p in proposer.candidates(2, ["list_slide_components"])["list_slide_components"]
                   if any(":retry:named:" in k for k in p.coverage_keys)]
        assert [(s.tool, s.arguments) for s in retry.steps] == [
            ("create_deck", {"name": "menu"}), ("list_slide_components", {"slide_index": 5}),
            ("list_slide_components", {"slide_index": 0})]
        assert retry.steps[2].retry_of == 1

    def test_the_proposer_runs_each_named_value_first(self) -> None:
        """Each value errors named is its own retry probe (its own coverage key), ahead of the tool's other chains."""
        from toolatlas.config import ServerSpec
        from toolatlas.graph.state import ServerGraph
        from toolatlas.offline.proposer import OfflineProposer

        tool = make("rename_sheet", {"sheet": string("Sheet to rename"), "new_name": string("New sheet name")})
        proposer = OfflineProposer(ServerGraph("s", [tool]), None, ServerSpec(name="s", transport={"command": "x"}),
                                   random.Random(0))
        proposer.pool.harvest_error(tool, "Sheet not found: 'Sheet1'. Available: ['Sales', 'Targets']", {}, "p1",
                                    arguments={"sheet": "Sheet1", "new_name": "Report"})
        proposer.pool.harvest_error(tool, "Sheet not found: 'Sheet2'. Available: ['Summary']", {},
                                    "p2", arguments={"sheet": "Sheet2", "new_name": "Report"})
        chains = proposer.composition_probes(1, "rename_sheet")
        retries = [p for p in chains if any(":retry:named:" in k for k in p.coverage_keys)]
        assert len(retries) == 2 and chains[: len(retries)] == retries
        assert len({k for p in retries for k in p.coverage_keys if ":retry:named:" in k}) == 2

    def test_a_path_is_retried_with_a_real_file_of_a_named_format(self, seed_facts: dict) -> None:
        """After ``Supported: .csv``, the retry picks an existing file of that format from the snapshot."""
        tool = make("read_table", {"path": string("File to read")}, description="Read a table from a file")
        pool = ValuePool()
        pool.harvest_error(
            tool,
            "Unsupported format '.md'. Supported: .csv",
            {},
            "p1",
            arguments={"path": "${root}/README.md"},
        )
        synth = ValueSynth(seed_facts["filesystem"], pool, random.Random(0))
        retries = hinted_retries(tool, pool, synth)
        assert len(retries) == 1 and retries[0].fixed["path"].endswith(".csv")
        assert retries[0].fixed["path"] in {f.path for f in seed_facts["filesystem"].tree.files}


class TestSqlWithoutFacts:
    def test_description_examples_and_named_tables(self) -> None:
        """No database facts: the description's statement for writes; reads of the sheets a listing named."""
        write = make(
            "sql_execute",
            {
                "sql": string(
                    "SQL mutation: INSERT, UPDATE or DELETE. Example: UPDATE Sales SET units = 3 WHERE id = 1."
                )
            },
        )
        read = make("sql_query", {"sql": string("SQL SELECT statement. Each sheet is a table.")})
        pool = ValuePool()
        pool.harvest(make("list_sheets", {"file": string()}), "Sales\nTargets", None, {}, "p1")
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        assert synth.valid_arguments(write).arguments["sql"] == "UPDATE Sales SET units = 3 WHERE id = 1"
        planned = synth.valid_arguments(read)
        assert planned.arguments["sql"] == 'SELECT * FROM "Sales" LIMIT 5'
        assert planned.used_values[0].tool == "list_sheets"  # a data edge from the listing
        bare = make("sql_execute", {"sql": string("SQL mutation: INSERT, UPDATE or DELETE")})
        assert ValueSynth(EnvironmentFacts(kind="none")).valid_arguments(bare) is None  # nothing to write from
