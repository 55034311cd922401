"""A format or example a description states outranks what an argument's name suggests."""

from __future__ import annotations

import random
from typing import Any

import pytest

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.formats import Moment, moment_text, names_a_notation, stated_moment
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.hints import description_values
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.mutations import boundary_mutations
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.values import ArgKind


def planned(name: str, description: str) -> tuple[ArgKind, Any]:
    schema = {"type": "object", "properties": {name: {"type": "string", "description": description}}, "required": [name]}
    tool = ToolSpec(server="s", name="get_it", description="Get it.", input_schema=schema)
    specs = infer_arguments(tool)
    call = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0)).valid_arguments(tool, specs, 0)
    return specs[0].kind, call.arguments[name] if call else None


class TestStatedMoments:
    @pytest.mark.parametrize(("description", "moment"), [
        ("Format: YYYY-MM-DD HH:mm:ss.SSS", Moment("ymd", "-", " ", "hh:mm:ss.sss")),
        ("Format: YYYY-MM-DD", Moment("ymd", "-", None, "")),
        ("Use MM/DD/YYYY", Moment("mdy", "/", None, "")),
        ("in 24-hour format. e.g. 2025-03-23 12:30:00", Moment("ymd", "-", " ", "hh:mm:ss")),
        ("Start time, HH:MM", None),
    ])
    def test_a_template_or_a_dated_example_states_the_format(self, description: str, moment: Moment | None) -> None:
        """A date template or an example that is a date states how a value is written; a bare time does not."""
        assert stated_moment(description) == moment

    def test_a_value_is_written_the_stated_way(self) -> None:
        """The date and time are written in the stated order, dividers and precision."""
        assert moment_text(Moment("ymd", "-", " ", "hh:mm:ss.sss"), "2024-03-14", "10:30:00") == "2024-03-14 10:30:00.000"
        assert moment_text(Moment("dmy", ".", None, ""), "2024-03-14", "10:30:00") == "14.03.2024"

    def test_a_time_with_a_stated_date_format_is_a_date_and_time(self) -> None:
        """`time` described `Format: YYYY-MM-DD HH:mm:ss.SSS` gets a date and time in that format, not a time of day."""
        assert planned("time", "The time to get the timestamp. Format: YYYY-MM-DD HH:mm:ss.SSS") == (
            ArgKind.DATETIME, "2024-03-14 10:30:00.000")

    def test_a_time_without_a_stated_format_stays_a_time_of_day(self) -> None:
        """Without a stated date, the name decides as before."""
        assert planned("time", "The time, HH:MM")[0] is ArgKind.TIME_OF_DAY


class TestNotations:
    def test_a_path_in_a_document_notation_is_not_a_file(self) -> None:
        """A `path` described in dot/bracket notation takes the description's examples, not a file path."""
        assert names_a_notation("Dot/bracket notation path.") and names_a_notation("Dot-notation path to the array")
        assert not names_a_notation("Path to the file to read.")
        kind, value = planned("path", 'Dot/bracket notation path. Examples: "", "data.users", "items[0].tags".')
        assert kind is ArgKind.STRING and value == "data.users"


class TestQuotedExamples:
    def test_quoted_examples_lose_their_quotes(self) -> None:
        """Quoted examples are split at their quotes and kept without them, brackets and all."""
        assert description_values('Examples: "", "data.users", "items[0].tags".') == ([], ["data.users", "items[0].tags"])
        assert description_values('resolving to numbers (e.g. "$.orders[*].total").') == ([], ["$.orders[*].total"])


class TestDocumentKeys:
    def test_keys_an_answer_lists_are_pooled_as_keys(self) -> None:
        """The bulleted items under `... keys:` are a document's keys."""
        tool = ToolSpec(server="s", name="get_keys", description="Get keys.", input_schema={"type": "object", "properties": {}})
        pool = ValuePool()
        pool.harvest(tool, "Object with 2 keys:\n  - warehouse\n  - products", None, {}, "p1")
        assert [(r.value, r.context) for r in pool.values(ArgKind.IDENTIFIER)] == [("warehouse", "key"), ("products", "key")]

    def test_a_document_path_takes_a_listed_key_first(self) -> None:
        """A notation path takes a key an answer listed (its source recorded) before the description's examples."""
        lister = ToolSpec(server="s", name="get_keys", description="Get keys.", input_schema={"type": "object", "properties": {}})
        pool = ValuePool()
        pool.harvest(lister, "Object with 1 keys:\n  - products", None, {}, "p1")
        schema = {"type": "object", "properties": {"path": {"type": "string", "description": 'Dot-notation path, e.g. "data.users".'}},
                  "required": ["path"]}
        tool = ToolSpec(server="s", name="get_value", description="Get a value.", input_schema=schema)
        call = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0)).valid_arguments(tool, infer_arguments(tool), 0)
        assert call is not None and call.arguments == {"path": "products"} and call.used_values[0].tool == "get_keys"

    def test_a_document_path_is_probed_with_a_missing_key(self) -> None:
        """A notation path gets a boundary probe with a key the document lacks."""
        schema = {"type": "object", "properties": {"path": {"type": "string", "description": 'Dot-notation path, e.g. "data.users".'}},
                  "required": ["path"]}
        tool = ToolSpec(server="s", name="get_value", description="Get a value.", input_schema=schema)
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        found = boundary_mutations(tool, infer_arguments(tool), {"path": "data.users"}, synth, cap=40)
        assert any(m.name.value == "nonexistent_reference" and m.arguments["path"].startswith("no_such_key_") for m in found)


def test_example_calls_and_bulleted_arguments_of_a_description() -> None:
    """A docstring's call of the tool maps positional values onto the schema's order and keyword ones by name; a call
    with a name in it (no literal) or too many values is no example; ``- path: …`` bullets document an argument."""
    from toolatlas.offline.hints import documented_arguments, example_calls

    shown = 'Example:\n    >>> write_stl([[0,0,0]], [[0,0,1]], "out.stl", format="ascii")\n    "out.stl"'
    assert example_calls(shown, "write_stl", ["vertices", "normals", "output_path", "format"]) == [
        {"vertices": [[0, 0, 0]], "normals": [[0, 0, 1]], "output_path": "out.stl", "format": "ascii"}]
    assert example_calls("call write_stl(mesh, path) first", "write_stl", ["vertices", "output_path"]) == []
    assert example_calls("write_stl(1, 2, 3)", "write_stl", ["vertices"]) == []
    assert example_calls("rewrite_stl(1)", "write_stl", ["vertices"]) == []
    routed = 'solve(locations=[{"id": "depot", "coordinates": (0, 0)}], vehicles=[...])'
    assert example_calls(routed, "solve", ["locations", "vehicles"]) == [], "an elided value: no example"
    assert example_calls(routed.replace(", vehicles=[...]", ""), "solve", ["locations"]) == [
        {"locations": [{"id": "depot", "coordinates": [0, 0]}]}], "a tuple is an array"
    bullets = "Pass exactly one source:\n    - port: a live VM's gdbstub.\n      QEMU -s is 1234.\n    - path: a directory."
    assert documented_arguments(bullets) == {"port": "a live VM's gdbstub. QEMU -s is 1234.", "path": "a directory."}


DSL_TOOL = '''Filter entities using the Query DSL.

    Supports comparisons (==, !=, >, <), string ops (contains, like), logical ops (and, or, not).

    Examples:
        layer == "ARQ" and type in ("TEXT","MTEXT") and text contains "PORTA"
        type == "INSERT" and has_attribs == true

    Args:
        file_id: The file identifier.
        query: DSL query string.
    '''


def test_a_query_language_of_its_own_and_its_listed_examples() -> None:
    """A tool that names its own query language takes that language, not SQL, though an example holds ``INSERT``;
    the lines of its ``Examples:`` section are whole values of the one required string argument the description names
    before them (``query``, not ``file_id``), tried before any invented text; a tool that names SQL keeps SQL."""
    from toolatlas.offline.hints import example_section

    intro, lines = example_section(DSL_TOOL, "query_entities")
    assert lines == ['layer == "ARQ" and type in ("TEXT","MTEXT") and text contains "PORTA"',
                     'type == "INSERT" and has_attribs == true']
    assert "Query DSL" in intro and "Examples" not in intro
    schema = {"type": "object", "required": ["file_id", "query"],
              "properties": {"file_id": {"type": "string"}, "query": {"type": "string"}}}
    specs = {s.name: s for s in infer_arguments(ToolSpec(server="s", name="query_entities", description=DSL_TOOL,
                                                         input_schema=schema))}
    assert specs["query"].kind is ArgKind.SEARCH_QUERY and specs["query"].examples == lines
    assert specs["file_id"].examples == []
    call = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0)).valid_arguments(
        ToolSpec(server="s", name="query_entities", description=DSL_TOOL, input_schema=schema), list(specs.values()), 0)
    assert call is not None and call.arguments["query"] in lines
    sql = ToolSpec(server="s", name="run_query", description="Run a SQL query (SELECT or INSERT) on the database.",
                   input_schema={"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}})
    assert infer_arguments(sql)[0].kind in (ArgKind.SQL, ArgKind.SQL_QUERY_READ, ArgKind.SQL_QUERY_WRITE)


def test_an_output_path_and_a_labelled_set_said_in_an_arguments_own_description() -> None:
    """``file_path`` described "Output CSV file path." is where the call writes (a new path), whatever its name says;
    "What to export: invoices, customers, products" (or "Object type - …") lists the values the argument takes, where
    a list that says it goes on ("etc.") gives examples, and two items after a label, or a label before prose, list
    none."""
    schema = {"type": "object", "required": ["export_type", "file_path"], "properties": {
        "export_type": {"type": "string", "description": "What to export: invoices, customers, products, tax_summary."},
        "file_path": {"type": "string", "description": "Output CSV file path."}}}
    specs = {s.name: s for s in infer_arguments(ToolSpec(server="s", name="saft_export",
                                                         description="Export query results to a CSV file.",
                                                         input_schema=schema))}
    assert specs["file_path"].kind is ArgKind.NEW_PATH and specs["file_path"].fresh
    assert specs["export_type"].kind is ArgKind.ENUM
    assert specs["export_type"].enum == ["invoices", "customers", "products", "tax_summary"]
    assert description_values('Object type - "box", "sphere", "plane"') == (["box", "sphere", "plane"], [])
    assert description_values('Material preset - "metal-dark", "glass-blue", "plastic-white", etc.') == (
        [], ["metal-dark", "glass-blue", "plastic-white"]), "a list that goes on gives examples, not the set"
    assert description_values("Tags: draft, final") == ([], [])
    assert description_values("Optional: filter by object type (user, group, computer)") == ([], [])


def test_the_calls_a_description_shows_are_seeds_and_the_base_of_misuses() -> None:
    """A solver's docstring shows a whole call whose constraint names the variables it declares: it is tried as it is
    in the seed round, and once it worked, misuses are made of it (a constraint over a variable renamed), not only of
    an argument-by-argument plan whose values belong to nothing."""
    from toolatlas.config import ServerSpec
    from toolatlas.graph.inducer import Inducer
    from toolatlas.graph.state import ServerGraph
    from toolatlas.models import CallOutcome, OutcomeClass
    from toolatlas.offline.proposer import OfflineProposer
    from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict

    description = """Solve a schedule of tasks.

    Example:
        result = await solve_schedule(tasks=[{"id": "build", "duration": 10, "dependencies": []},
                                             {"id": "test", "duration": 5, "dependencies": ["build"]}])
    """
    task = {"type": "object", "required": ["id", "duration"], "properties": {
        "id": {"type": "string"}, "duration": {"type": "integer"},
        "dependencies": {"type": "array", "items": {"type": "string"}}}}
    tool = ToolSpec(server="s", name="solve_schedule", description=description, input_schema={
        "type": "object", "required": ["tasks"], "properties": {"tasks": {"type": "array", "items": task}}})
    proposer = OfflineProposer(ServerGraph("s", [tool]), None, ServerSpec(name="s", transport={"command": "x"}),
                               random.Random(0))
    shown = {"tasks": [{"id": "build", "duration": 10, "dependencies": []},
                       {"id": "test", "duration": 5, "dependencies": ["build"]}]}
    seeds = [p for p in proposer.seed_probes(3, 1) if "solve_schedule:shown:0" in p.coverage_keys]
    assert [s.arguments for p in seeds for s in p.steps] == [shown]
    step = ProbeStep(tool="solve_schedule", arguments=shown, expect="ok")
    probe = Probe(id="p1", server="s", round=0, direction=Direction.SEED, target="solve_schedule", task="t", steps=[step])
    outcome = CallOutcome(server="s", tool="solve_schedule", arguments=shown, outcome=OutcomeClass.OK,
                          excerpt='{"status": "optimal", "makespan": 15}')
    Inducer(proposer.graph).induce(
        Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
        Verdict(probe_id="p1", server="s", resolved=True,
                steps=[StepVerdict(index=0, tool="solve_schedule", outcome=OutcomeClass.OK, failed=False)]))
    misuses = [p.steps[-1].arguments for p in proposer.candidates(1, ["solve_schedule"])["solve_schedule"]
               if p.direction is Direction.BOUNDARY]
    assert any(isinstance(m.get("tasks"), list) and len(m["tasks"]) == 2 and m["tasks"][1].get("dependencies") == ["build"]
               for m in misuses)
