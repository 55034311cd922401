"""Boundary mutations of valid calls: the right families for each kind, one change each, deterministic."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from toolatlas.environments import render_value
from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.mutations import Mutation, MutationKind, boundary_mutations
from toolatlas.offline.mutators import OVERSIZED_TEXT, OVERSIZED_TEXT_CHARS
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.values import names_made_up

if TYPE_CHECKING:
    from conftest import DemoTools


def mutate(
    facts: EnvironmentFacts, spec: ToolSpec, *, cap: int = 40, seed: int = 0
) -> tuple[dict, list[Mutation]]:
    synth = ValueSynth(facts, ValuePool(), random.Random(seed))
    specs = infer_arguments(spec)
    call = synth.valid_arguments(spec, specs, 0)
    assert call is not None
    return call.arguments, boundary_mutations(spec, specs, call.arguments, synth, cap=cap)


def families(mutations: list[Mutation]) -> set[MutationKind]:
    return {m.name for m in mutations}


class TestFamiliesByKind:
    def test_paths(self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """A file read is probed with escapes, a missing file, a directory, and the generic shape changes."""
        _valid, mutations = mutate(seed_facts["filesystem"], demo_tools("filesystem", "read_text_file"))
        assert {
            MutationKind.PATH_ESCAPE,
            MutationKind.NONEXISTENT_REFERENCE,
            MutationKind.PATH_IS_DIRECTORY,
            MutationKind.MISSING_REQUIRED,
            MutationKind.WRONG_TYPE,
            MutationKind.CONFLICTING_ARGUMENTS,
        } <= families(mutations)
        escapes = [m.arguments["path"] for m in mutations if m.name is MutationKind.PATH_ESCAPE]
        assert escapes == ["${root}/../outside_" + escapes[0].rsplit("_", 1)[1], "/etc/hostname"]

    def test_writes_never_aim_at_the_host(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """An escaping write targets the disposable instance home, not a system path."""
        _valid, mutations = mutate(seed_facts["filesystem"], demo_tools("filesystem", "write_file"))
        for mutation in mutations:
            path = mutation.arguments.get("path")
            if isinstance(path, str) and path.startswith("/"):
                pytest.fail(f"absolute host path in a write probe: {path}")
        assert any(str(m.arguments.get("path", "")).startswith("${home}/") for m in mutations)

    def test_a_read_is_also_given_its_file_relative_to_the_root(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """``notes/todo.txt`` for ``${root}/notes/todo.txt``: either answer is informative (resolved against the
        server's working folder, or refused as not absolute); a write never gets one (it could land anywhere)."""
        valid, mutations = mutate(seed_facts["filesystem"], demo_tools("filesystem", "read_text_file"))
        [relative] = [m for m in mutations if m.name is MutationKind.RELATIVE_PATH]
        assert "${root}/" + relative.arguments["path"] == valid["path"] and not relative.expected_failure
        assert relative.condition == f"`path` is given relative to the root (`{relative.arguments['path']}`)"
        _valid, writes = mutate(seed_facts["filesystem"], demo_tools("filesystem", "write_file"))
        assert MutationKind.RELATIVE_PATH not in families(writes)

    def test_overwriting_an_existing_file_is_not_expected_to_fail(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """``write_file`` documents overwriting; its already-exists probe expects either outcome."""
        _valid, mutations = mutate(seed_facts["filesystem"], demo_tools("filesystem", "write_file"))
        exists = next(m for m in mutations if m.name is MutationKind.ALREADY_EXISTS)
        assert not exists.expected_failure
        _valid, moves = mutate(seed_facts["filesystem"], demo_tools("filesystem", "move_file"))
        onto = next(m for m in moves if m.name is MutationKind.ALREADY_EXISTS)
        assert onto.expected_failure and onto.arguments["destination"] != onto.arguments["source"]

    def test_sql(self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """SQL tools get the wrong statement kind, syntax errors, unknown tables and constraint violations."""
        _valid, reads = mutate(seed_facts["sqlite"], demo_tools("sqlite", "read_query"))
        wrong = next(m for m in reads if m.name is MutationKind.SQL_WRONG_STATEMENT)
        assert wrong.arguments["query"].split()[0] in ("UPDATE", "INSERT")
        assert {MutationKind.SQL_SYNTAX_ERROR, MutationKind.SQL_UNKNOWN_TABLE} <= families(reads)
        _valid, writes = mutate(seed_facts["sqlite"], demo_tools("sqlite", "write_query"))
        violations = [m for m in writes if m.name is MutationKind.CONSTRAINT_VIOLATION]
        assert len(violations) == 4 and all("inserts a row where" in m.condition for m in violations)
        _valid, ddl = mutate(seed_facts["sqlite"], demo_tools("sqlite", "create_table"))
        assert MutationKind.ALREADY_EXISTS in families(ddl)

    def test_git_refs(self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """Branches and revisions get option injection, missing refs and, when new, an existing name."""
        _valid, checkout = mutate(seed_facts["git"], demo_tools("git", "git_checkout"))
        dash = next(m for m in checkout if m.name is MutationKind.LEADING_DASH)
        assert dash.arguments["branch_name"].startswith("--") and dash.target_arg == "branch_name"
        assert MutationKind.NONEXISTENT_REFERENCE in families(checkout)
        _valid, create = mutate(seed_facts["git"], demo_tools("git", "git_create_branch"))
        taken = next(m for m in create if m.name is MutationKind.ALREADY_EXISTS)
        assert taken.arguments["branch_name"] in ("main", "bugfix/typo", "feature/search")

    def test_time(self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """Time tools get a non-IANA zone and malformed times, and no path probes."""
        _valid, mutations = mutate(seed_facts["time"], demo_tools("time", "convert_time"))
        assert {MutationKind.INVALID_TIMEZONE, MutationKind.INVALID_TIME_FORMAT} <= families(mutations)
        assert MutationKind.PATH_ESCAPE not in families(mutations)

    def test_enums_and_nested_references(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Enums get an invalid member; nested references are changed in place (``relations[0].from``)."""
        _valid, branch = mutate(seed_facts["git"], demo_tools("git", "git_branch"))
        assert any(
            m.name is MutationKind.INVALID_ENUM and m.arguments["branch_type"] == "not_a_valid_choice"
            for m in branch
        )
        valid, relations = mutate(seed_facts["memory"], demo_tools("memory", "delete_relations"))
        nested = next(
            m
            for m in relations
            if m.target_arg == "relations[0].from" and m.name is MutationKind.NONEXISTENT_REFERENCE
        )
        assert nested.arguments["relations"][0]["to"] == valid["relations"][0]["to"]
        assert nested.arguments["relations"][0]["from"].startswith("No Such Entity")


class TestDates:
    def test_a_date_is_also_given_a_word(self) -> None:
        """A date argument is probed with a word that is no date at all, beside an impossible date."""
        schema = {"type": "object", "properties": {"date": {"type": "string", "description": "Format: YYYY-MM-DD"}},
                  "required": ["date"]}
        _valid, mutations = mutate(EnvironmentFacts(kind="none"), ToolSpec(server="s", name="days_in_month",
                                                                         description="Days in a month.", input_schema=schema))
        assert {"not a date", "2024-13-45"} <= {m.arguments.get("date") for m in mutations}


class TestCounts:
    def test_a_count_typed_as_any_number_is_given_a_fraction(self) -> None:
        """``max_results`` typed ``number`` gets 2.5, not expected to fail (rounded, refused or a crash: the schema does
        not tell); an ``integer`` count gets it as a schema violation, and a number that counts nothing none."""
        def tool(name: str, json_type: str, description: str) -> ToolSpec:
            schema = {"type": "object", "required": ["query", name], "properties": {
                "query": {"type": "string", "description": "Search text."},
                name: {"type": json_type, "description": description}}}
            return ToolSpec(server="s", name="search_ad", description="Search objects.", input_schema=schema)

        _valid, found = mutate(EnvironmentFacts(kind="none"), tool("max_results", "number", "Maximum number of results"))
        fractions = [m for m in found if m.name is MutationKind.FRACTIONAL_COUNT]
        assert [(m.arguments["max_results"], m.expected_failure) for m in fractions] == [(2.5, False)]
        _valid, typed = mutate(EnvironmentFacts(kind="none"), tool("max_results", "integer", "Maximum number of results"))
        assert MutationKind.FRACTIONAL_COUNT not in families(typed)
        assert any(m.arguments.get("max_results") == 2.5 and m.expected_failure for m in typed)
        _valid, scale = mutate(EnvironmentFacts(kind="none"), tool("ratio", "number", "Scale factor"))
        assert MutationKind.FRACTIONAL_COUNT not in families(scale)


class TestReferences:
    def test_a_reference_to_an_answer_is_never_rewritten(self) -> None:
        """An id carried by reference to an earlier step's answer (``${step0.id}``) is mutated as a value
        (missing, empty, wrong type…), never by rewriting the reference's text (``${step9.id}`` would be
        sent to the server as it is, and names no step)."""
        schema = {"type": "object", "properties": {"id": {"type": "string", "description": "The element's id."}},
                  "required": ["id"]}
        tool = ToolSpec(server="s", name="delete_element", description="Delete an element by its id.", input_schema=schema)
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        mutations = boundary_mutations(tool, infer_arguments(tool), {"id": "${step0.id}"}, synth, cap=40)
        assert mutations and MutationKind.EMPTY_VALUE in families(mutations)
        sent = [v for m in mutations for v in m.arguments.values() if isinstance(v, str) and "${step" in v]
        assert set(sent) <= {"${step0.id}"}


class TestNumbersAtTheirLimits:
    def test_a_number_is_tried_at_each_end_its_schema_allows(self) -> None:
        """A deposit of 0–100 % is sent as 100 and as 0 (allowed: either outcome is knowledge, a 100 % deposit
        leaves no loan to divide by), besides 101 and -1, which it refuses; a number with no bounds gets none."""
        spec = ToolSpec(server="s", name="mortgage_calculator", description="Monthly payment of a mortgage.",
                        input_schema={"type": "object", "required": ["home_price", "down_payment_pct"], "properties": {
                            "home_price": {"type": "number", "exclusiveMinimum": 0},
                            "down_payment_pct": {"type": "number", "minimum": 0, "maximum": 100}}})
        _valid, mutations = mutate(EnvironmentFacts(kind="none"), spec, cap=60)
        edges = {m.condition: m.arguments["down_payment_pct"] for m in mutations if m.name is MutationKind.AT_LIMIT}
        assert edges == {"`down_payment_pct` is at its maximum (100)": 100, "`down_payment_pct` is at its minimum (0)": 0}
        assert all(not m.expected_failure for m in mutations if m.name is MutationKind.AT_LIMIT)


class TestStatedLengths:
    def test_a_string_is_tried_one_past_its_max_length(self) -> None:
        """`session_id` with `maxLength: 20` (also as a field of a tool's one object argument) gets a 21-character
        value, expected to be refused; a string with no stated length gets none."""
        model = {"type": "object", "required": ["session_id"],
                 "properties": {"session_id": {"type": "string", "maxLength": 20, "description": "Session ID."}}}
        spec = ToolSpec(server="s", name="history", description="Show a session's history.", input_schema={
            "type": "object", "properties": {"params": {"$ref": "#/$defs/In"}}, "required": ["params"],
            "$defs": {"In": model}})
        _valid, mutations = mutate(EnvironmentFacts(kind="none"), spec)
        past = [m for m in mutations if m.name is MutationKind.OUT_OF_RANGE]
        assert [len(m.arguments["params"]["session_id"]) for m in past] == [21]
        assert past[0].expected_failure and "one past the 20" in past[0].condition
        free = ToolSpec(server="s", name="history", description="Show a session's history.", input_schema={
            "type": "object", "properties": {"session_id": {"type": "string"}}, "required": ["session_id"]})
        assert not [m for m in mutate(EnvironmentFacts(kind="none"), free)[1] if m.name is MutationKind.OUT_OF_RANGE]


class TestShape:
    def test_each_mutation_changes_one_thing(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Every mutation differs from the valid call, names its argument, and drops at most one key."""
        for server in ("filesystem", "git", "memory", "sqlite", "time"):
            for spec in demo_tools.all(server):
                valid, mutations = mutate(seed_facts[server], spec)
                for mutation in mutations:
                    assert mutation.arguments != valid
                    assert len(set(valid) - set(mutation.arguments)) <= 1
                    if mutation.target_arg:
                        assert (
                            f"`{mutation.target_arg}`" in mutation.condition
                            or mutation.target_arg in mutation.condition
                        )

    def test_cap_keeps_the_families_diverse(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Under a cap, the first mutations all come from different families."""
        _valid, mutations = mutate(seed_facts["filesystem"], demo_tools("filesystem", "edit_file"), cap=8)
        assert len(mutations) == 8 and len(families(mutations)) == 8

    def test_missing_required_removes_the_argument(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """``missing_required`` drops exactly the required argument it names."""
        valid, mutations = mutate(seed_facts["git"], demo_tools("git", "git_diff"))
        dropped = {
            m.target_arg: set(valid) - set(m.arguments)
            for m in mutations
            if m.name is MutationKind.MISSING_REQUIRED
        }
        assert dropped == {"repo_path": {"repo_path"}, "target": {"target"}}

    def test_oversized_text_travels_as_its_placeholder(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """The 100 KB value is ``${oversized_text}`` in the probe (its id, its entries, checkpoints);
        only rendering the call makes the string."""
        _valid, mutations = mutate(seed_facts["filesystem"], demo_tools("filesystem", "write_file"))
        oversized = [m.arguments["content"] for m in mutations
                     if m.name is MutationKind.OVERSIZED_VALUE and m.target_arg == "content"]
        assert oversized == [OVERSIZED_TEXT]
        assert render_value(oversized[0], {"root": "/r"}) == "x" * OVERSIZED_TEXT_CHARS

    def test_deterministic(self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """The same seed gives the same mutations."""
        first = mutate(seed_facts["memory"], demo_tools("memory", "create_entities"), seed=5)[1]
        second = mutate(seed_facts["memory"], demo_tools("memory", "create_entities"), seed=5)[1]
        assert first == second


class TestMadeUpNames:
    @pytest.mark.parametrize(("server", "tool"), [("filesystem", "read_text_file"), ("memory", "delete_observations"),
                                                  ("memory", "delete_relations"), ("sqlite", "describe_table")])
    def test_every_name_invented_to_name_nothing_is_recognised(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts], server: str, tool: str
    ) -> None:
        """A nonexistent reference carries a name the verifier recognises as invented (`names_made_up`), so the
        same call is judged the same wherever it is made."""
        _valid, mutations = mutate(seed_facts[server], demo_tools(server, tool))
        missing = [m for m in mutations if m.name is MutationKind.NONEXISTENT_REFERENCE]
        assert missing and all(names_made_up(m.step(tool).arguments) for m in missing)


class TestWrappedArguments:
    """A server that takes one model (``params``) as its only argument, as FastMCP servers with a pydantic input do."""

    SCHEMA = {
        "type": "object",
        "properties": {"params": {"$ref": "#/$defs/LogInput"}},
        "required": ["params"],
        "$defs": {"LogInput": {"type": "object", "additionalProperties": False, "required": ["name", "status"],
                               "properties": {"name": {"type": "string", "description": "The problem's name."},
                                              "status": {"type": "string", "enum": ["solved", "struggled"]}}}},
    }

    def wrapped(self, schema: dict) -> tuple[dict, list[Mutation]]:
        tool = ToolSpec(server="s", name="log_attempt", description="Record an attempt at a problem.",
                        input_schema=schema)
        return mutate(EnvironmentFacts(kind="none"), tool)

    def test_its_fields_at_the_top_level_and_a_field_it_does_not_declare(self) -> None:
        """The fields sent beside the wrapper instead of inside it (what a caller who reads the fields sends), and
        an undeclared field inside it, expected to fail where the model forbids extra fields."""
        valid, mutations = self.wrapped(self.SCHEMA)
        [flat] = [m for m in mutations if m.name is MutationKind.UNWRAPPED_ARGUMENTS]
        assert flat.arguments == valid["params"] and "params" not in flat.arguments and flat.expected_failure
        assert flat.condition == "the fields of `params` are passed at the top level, not inside `params`"
        [extra] = [m for m in mutations if m.name is MutationKind.EXTRA_ARGUMENT and m.target_arg == "params"]
        assert set(extra.arguments) == {"params"} and set(extra.arguments["params"]) - set(valid["params"])
        assert extra.expected_failure and "`params` holds a field its schema does not declare" in extra.condition

    def test_an_open_model_is_not_expected_to_refuse_an_extra_field(self) -> None:
        schema = {**self.SCHEMA, "$defs": {"LogInput": {**self.SCHEMA["$defs"]["LogInput"],
                                                        "additionalProperties": True}}}
        _, mutations = self.wrapped(schema)
        [extra] = [m for m in mutations if m.name is MutationKind.EXTRA_ARGUMENT and m.target_arg == "params"]
        assert not extra.expected_failure

    def test_a_call_of_several_arguments_is_no_wrapper(self) -> None:
        """Two required arguments, one of them an object: the object is an argument, not a wrapper."""
        schema = {"type": "object", "required": ["name", "options"],
                  "properties": {"name": {"type": "string"},
                                 "options": {"type": "object", "properties": {"depth": {"type": "integer"}},
                                             "required": ["depth"]}}}
        _, mutations = self.wrapped(schema)
        assert not [m for m in mutations if m.name is MutationKind.UNWRAPPED_ARGUMENTS]
        assert not [m for m in mutations if m.name is MutationKind.EXTRA_ARGUMENT and m.target_arg == "options"]


class TestCase:
    def test_a_symbol_is_retyped_in_capitals_and_in_lower_case(self) -> None:
        """A formula written ``NaCl`` is also sent as ``NACL`` and ``nacl`` (a server that reads symbols case by case
        refuses one of them); free text is never retyped."""
        schema = {"type": "object", "required": ["formula", "note"],
                  "properties": {"formula": {"type": "string", "description": "A chemical formula.",
                                             "examples": ["NaCl"]},
                                 "note": {"type": "string", "description": "Free text content of the note."}}}
        tool = ToolSpec(server="s", name="weigh", description="Compute the molecular weight of a formula.",
                        input_schema=schema)
        valid, mutations = mutate(EnvironmentFacts(kind="none"), tool)
        assert valid["formula"] == "NaCl"
        cased = [m for m in mutations if m.name is MutationKind.CASE_CHANGED]
        assert sorted(m.arguments["formula"] for m in cased) == ["NACL", "nacl"]
        assert {m.target_arg for m in cased} == {"formula"} and not any(m.expected_failure for m in cased)
        assert "`formula` is written in capitals (`NACL` for `NaCl`)" in {m.condition for m in cased}

    def test_a_value_with_nothing_to_capitalise_lends_the_capitals_to_an_example_that_has(self) -> None:
        """``H2O`` in capitals is ``H2O``: the documented example ``Ca(OH)2`` is sent as ``CA(OH)2`` instead, first
        (a build probes the first misuse of a family per argument)."""
        schema = {"type": "object", "required": ["formula"],
                  "properties": {"formula": {"type": "string", "description": "A chemical formula.",
                                             "examples": ["H2O", "Ca(OH)2"]}}}
        tool = ToolSpec(server="s", name="weigh", description="Compute the molecular weight of a formula.",
                        input_schema=schema)
        valid, mutations = mutate(EnvironmentFacts(kind="none"), tool)
        assert valid["formula"] == "H2O"
        cased = [(m.arguments["formula"], m.condition) for m in mutations if m.name is MutationKind.CASE_CHANGED]
        assert cased == [("CA(OH)2", "`formula` is written in capitals (`CA(OH)2` for `Ca(OH)2`)"),  # probed first
                         ("h2o", "`formula` is written in lower case (`h2o` for `H2O`)")]

    def test_a_member_of_a_set_the_description_lists_is_written_capitalised(self) -> None:
        """``sana`` of "one of hamza, sana, ali" is sent as ``Sana``, as a request names a person; a set the schema
        declares is left to its validator."""
        described = {"type": "object", "required": ["assignee"],
                     "properties": {"assignee": {"type": "string", "description": "Assignee, one of: hamza, sana, ali."}}}
        tool = ToolSpec(server="s", name="assign_task", description="Assign a task.", input_schema=described)
        valid, mutations = mutate(EnvironmentFacts(kind="none"), tool)
        cased = [(m.arguments["assignee"], m.condition) for m in mutations if m.name is MutationKind.CASE_CHANGED]
        member = valid["assignee"]
        assert cased == [(member.capitalize(), f"`assignee` is a listed value written otherwise (`{member.capitalize()}`"
                                               f" for `{member}`)")]
        declared = {"type": "object", "required": ["assignee"],
                    "properties": {"assignee": {"type": "string", "enum": ["hamza", "sana", "ali"]}}}
        _valid, mutations = mutate(EnvironmentFacts(kind="none"), tool.model_copy(update={"input_schema": declared}))
        assert MutationKind.CASE_CHANGED not in families(mutations)

    def test_a_listed_name_is_sent_without_the_prefix_its_list_shares(self) -> None:
        """``HKQuantityTypeIdentifierStepCount`` listed beside three more ``HKQuantityTypeIdentifier…`` names is sent
        as ``StepCount``, as a caller who writes the metric's own name does — the condition names the tool that lists
        them; a name listed with fewer sharing it is not."""
        from toolatlas.offline.answers import argument_takers
        from toolatlas.offline.harvest import ValuePool

        listing = ToolSpec(server="s", name="list_types", description="List the metrics present.", input_schema={})
        types = ["HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierRestingHeartRate",
                 "HKQuantityTypeIdentifierBodyMass", "HKQuantityTypeIdentifierDistanceWalkingRunning",
                 "HKCategoryTypeIdentifierSleepAnalysis"]
        schema = {"type": "object", "required": ["type"],
                  "properties": {"type": {"type": "string", "description": "The metric's type, as list_types gives it"}}}
        tool = ToolSpec(server="s", name="get_quantity", description="Sum or average a metric.", input_schema=schema)
        pool = ValuePool()
        pool.harvest_answered(listing, [{"type": t, "n": 10} for t in types], argument_takers({"get_quantity": tool}),
                              "p1")
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        specs = infer_arguments(tool)
        stripped = {m.arguments["type"]: m.condition for m in boundary_mutations(
            tool, specs, {"type": "HKQuantityTypeIdentifierStepCount"}, synth, cap=60)
            if m.name is MutationKind.STRIPPED_PREFIX}
        assert stripped == {"StepCount": "`type` drops the prefix the names `list_types` lists share (`StepCount` for "
                                         "`HKQuantityTypeIdentifierStepCount`)"}
        assert not [m for m in boundary_mutations(tool, specs, {"type": "HKCategoryTypeIdentifierSleepAnalysis"},
                                                  synth, cap=60) if m.name is MutationKind.STRIPPED_PREFIX]

    def test_a_code_is_sent_as_the_name_its_description_pairs_it_with(self) -> None:
        """``occ_code`` described "6-digit SOC code (e.g., '151252' for Software Developers)" and called with
        ``151252`` is also sent ``Software Developers``, what a caller who knows the job, not its code, sends; a code
        the description pairs with no name is left alone."""
        schema = {"type": "object", "required": ["occ_code"], "properties": {"occ_code": {
            "type": "string", "description": "6-digit SOC code (e.g., '151252' for Software Developers, '131082' for "
                                             "Project Management Specialists)."}}}
        tool = ToolSpec(server="s", name="get_wage_data", description="Wages of an occupation.", input_schema=schema)
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        named = [(m.arguments, m.condition) for m in boundary_mutations(
            tool, infer_arguments(tool), {"occ_code": "151252"}, synth, cap=60) if m.name is MutationKind.NAME_FOR_CODE]
        assert named == [({"occ_code": "Software Developers"},
                          "`occ_code` is the name a code stands for (`Software Developers`), not the code")]
        bare = tool.model_copy(update={"input_schema": {"type": "object", "properties": {
            "occ_code": {"type": "string", "description": "6-digit SOC code"}}}})
        assert not [m for m in boundary_mutations(bare, infer_arguments(bare), {"occ_code": "151252"}, synth, cap=60)
                    if m.name is MutationKind.NAME_FOR_CODE]

    def test_a_long_digit_code_is_sent_with_its_last_digit_changed(self) -> None:
        """A tax id as given (``529.982.247-25``) is also sent with its last digit changed, where a check digit would
        refuse it; a date, a short number and a word are not codes."""
        schema = {"type": "object", "required": ["value"], "properties": {"value": {"type": "string"}}}
        tool = ToolSpec(server="s", name="validate_cpf", description="Validate a CPF.", input_schema=schema)
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))

        def changed(value: str) -> list[tuple[dict, str]]:
            return [(m.arguments, m.condition) for m in boundary_mutations(
                tool, infer_arguments(tool), {"value": value}, synth, cap=60) if m.name is MutationKind.CHECK_DIGIT]

        assert changed("529.982.247-25") == [({"value": "529.982.247-26"},
                                              "`value` is the code given with its last digit changed (`529.982.247-26`)")]
        assert changed("4111 1111 1111 1119") == [({"value": "4111 1111 1111 1110"}, "`value` is the code given with "
                                                   "its last digit changed (`4111 1111 1111 1110`)")]
        for other in ("2026-12-15", "1234567", "probe value", "12/11/2026"):
            assert changed(other) == [], other

    def test_a_confirming_flag_set_true_is_also_sent_false(self) -> None:
        """``confirm`` (or a flag its description says must be true) given true is also sent false, what a caller who
        has not confirmed sends; a flag of another meaning, or one given false, is not."""
        schema = {"type": "object", "required": ["profile_id", "confirm"], "properties": {
            "profile_id": {"type": "integer"}, "confirm": {"type": "boolean"},
            "purge": {"type": "boolean", "description": "Must be set to true to remove the files too."},
            "verbose": {"type": "boolean"}}}
        tool = ToolSpec(server="s", name="delete_profile", description="Delete a profile.", input_schema=schema)
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        call = {"profile_id": 3, "confirm": True, "purge": True, "verbose": True}
        unconfirmed = sorted((m.target_arg, m.arguments[m.target_arg], m.condition) for m in boundary_mutations(
            tool, infer_arguments(tool), call, synth, cap=80) if m.name is MutationKind.UNCONFIRMED)
        assert unconfirmed == [("confirm", False, "`confirm` is false: the action is not confirmed"),
                               ("purge", False, "`purge` is false: the action is not confirmed")]
        assert not [m for m in boundary_mutations(tool, infer_arguments(tool), {**call, "confirm": False, "purge": False},
                                                  synth, cap=80) if m.name is MutationKind.UNCONFIRMED]

    def test_a_span_of_dates_is_sent_over_a_year_long_and_reversed(self) -> None:
        """``start_date``/``end_date`` (and ``from_time``/``to_time`` with a clock) become a span of 400 days, where a
        server caps a range, and the two swapped; a lone date, or ends of different things, are no span."""
        schema = {"type": "object", "properties": {
            "start_date": {"type": "string"}, "end_date": {"type": "string"}, "from_time": {"type": "string"},
            "to_time": {"type": "string"}, "birth_date": {"type": "string"}, "end_col": {"type": "string"}}}
        tool = ToolSpec(server="s", name="find_windows", description="Scan a window of time.", input_schema=schema)
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))

        def spans(call: dict) -> list[tuple[str, dict, str]]:
            return [(m.name.value, m.arguments, m.condition) for m in boundary_mutations(
                tool, infer_arguments(tool), call, synth, cap=80) if m.name in (MutationKind.WIDE_SPAN,
                                                                                MutationKind.REVERSED_SPAN)]

        call = {"start_date": "2026-12-01", "end_date": "2026-12-31", "birth_date": "1988-03-14"}
        assert spans(call) == [
            ("wide_span", {**call, "end_date": "2028-01-05"},
             "`start_date` to `end_date` spans 400 days (`2026-12-01` to `2028-01-05`)"),
            ("reversed_span", {**call, "start_date": "2026-12-31", "end_date": "2026-12-01"},
             "`end_date` comes before `start_date` (the two swapped)")]
        timed = {"from_time": "2024-03-01T00:00:00", "to_time": "2024-03-31T23:59:59"}
        assert [a["to_time"] for name, a, _ in spans(timed) if name == "wide_span"] == ["2025-04-05T23:59:59"]
        assert spans({"birth_date": "1988-03-14", "end_col": "2026-01-01"}) == []

    def test_a_tool_of_optional_arguments_is_also_called_with_none(self) -> None:
        """Every argument optional: the call is also made bare; a tool with a required argument is not."""
        schema = {"type": "object", "properties": {"entry_id": {"type": "integer"}, "all_entries": {"type": "boolean"}}}
        tool = ToolSpec(server="s", name="mark_read", description="Mark entries read.", input_schema=schema)
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        bare = [(m.arguments, m.condition) for m in boundary_mutations(tool, infer_arguments(tool), {"entry_id": 3},
                                                                      synth, cap=80) if m.name is MutationKind.NO_ARGUMENTS]
        assert bare == [({}, "none of its arguments is given (every one is optional)")]
        required = tool.model_copy(update={"input_schema": {**schema, "required": ["entry_id"]}})
        assert not [m for m in boundary_mutations(required, infer_arguments(required), {"entry_id": 3}, synth, cap=80)
                    if m.name is MutationKind.NO_ARGUMENTS]

    def test_a_documents_text_is_sent_as_the_path_of_its_file(self, tmp_path) -> None:
        """``reference_xml`` given a score's text is also given the path of the file that text came from, what a
        caller who has the file sends; a text no file holds is not."""
        from toolatlas.offline.facts import directory_facts

        score = '<?xml version="1.0"?>\n<score-partwise><part id="P1"/></score-partwise>\n'
        (tmp_path / "hymn.musicxml").write_text(score)
        facts = EnvironmentFacts(kind="directory", root="${root}", tree=directory_facts(tmp_path))
        synth = ValueSynth(facts, ValuePool(), random.Random(0))
        tool = ToolSpec(server="s", name="quick_similarity", description="Similarity of two MusicXML strings.",
                        input_schema={"type": "object", "required": ["reference_xml"],
                                      "properties": {"reference_xml": {"type": "string"}}})
        paths = [(m.arguments, m.condition) for m in boundary_mutations(
            tool, infer_arguments(tool), {"reference_xml": score}, synth, cap=60) if m.arguments.get("reference_xml")
            == "${root}/hymn.musicxml"]
        assert paths == [({"reference_xml": "${root}/hymn.musicxml"},
                          "`reference_xml` is the path of a file (`${root}/hymn.musicxml`) where its text is expected")]
        assert not [m for m in boundary_mutations(tool, infer_arguments(tool), {"reference_xml": "<score/>"}, synth,
                                                  cap=60) if str(m.arguments.get("reference_xml")).startswith("${root}/")]

    def test_a_reader_is_handed_a_file_of_another_format(self, tmp_path) -> None:
        """A photo reader called with a ``.png`` is also handed the folder's ``.HEIC`` (a photo straight off a phone),
        a file of its nature in another format, before any text file."""
        from toolatlas.offline.facts import directory_facts

        (tmp_path / "corgi.png").write_bytes(b"\x89PNG\r\n\x1a\nbinary")
        (tmp_path / "IMG_2041.HEIC").write_bytes(b"\x00\x00\x00\x18ftypheic")
        (tmp_path / "README.txt").write_text("Photos of the commissions.\n")
        facts = EnvironmentFacts(kind="directory", root="${root}", tree=directory_facts(tmp_path))
        synth = ValueSynth(facts, ValuePool(), random.Random(0))
        tool = ToolSpec(server="s", name="photo_to_chart", description="Turn a photo into a crochet chart.",
                        input_schema={"type": "object", "required": ["image_path"],
                                      "properties": {"image_path": {"type": "string",
                                                                    "description": "Path to the photo file"}}})
        other = [(m.arguments["image_path"], m.condition) for m in boundary_mutations(
            tool, infer_arguments(tool), {"image_path": "${root}/corgi.png"}, synth, cap=60)
            if "another format" in m.condition]
        assert other == [("${root}/IMG_2041.HEIC", "`image_path` names a file of another format (`.heic`)")]

    def test_a_name_the_server_gave_is_sent_with_a_suffix(self) -> None:
        """A problem name harvested from an answer is sent as `Two Sum_<tag>` (a server that looks names up loosely
        takes the closest); a name the build invented is not."""
        from toolatlas.offline.harvest import ValuePool
        from toolatlas.probing.values import HarvestRef

        schema = {"type": "object", "required": ["problem_name"],
                  "properties": {"problem_name": {"type": "string", "description": "Name of the problem to log."}}}
        tool = ToolSpec(server="s", name="log_attempt", description="Record an attempt at a problem.",
                        input_schema=schema)
        specs = infer_arguments(tool)
        pool = ValuePool()
        pool.add(HarvestRef(kind=specs[0].kind, value="Two Sum", tool="list_problems", probe_id="p0"))
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        near = [m for m in boundary_mutations(tool, specs, {"problem_name": "Two Sum"}, synth, cap=40)
                if m.name is MutationKind.NEAR_NAME]
        assert len(near) == 1 and near[0].arguments["problem_name"].startswith("Two Sum_")
        assert near[0].condition == "`problem_name` names `Two Sum` with a suffix no name has"
        invented = boundary_mutations(tool, specs, {"problem_name": "example"}, synth, cap=40)
        assert not [m for m in invented if m.name is MutationKind.NEAR_NAME]


    def test_a_word_two_known_names_hold_is_sent_to_a_lookup_of_names(self) -> None:
        """``Dawson``, which ``Claire Dawson`` and ``Claire Dawson (admin)`` both hold, is sent for a user that exists
        (a lookup by part of a name picks one of them); with no word two names share, nothing is sent."""
        records = [{"cn": "Claire Dawson", "sAMAccountName": "cdawson"},
                   {"cn": "Claire Dawson (admin)", "sAMAccountName": "itadmin.cdawson"},
                   {"cn": "Owen Griffiths", "sAMAccountName": "ogriffiths"}]
        schema = {"type": "object", "required": ["identifier"], "properties": {"identifier": {
            "type": "string", "description": "User identifier: username (sAMAccountName) or common name (CN)"}}}
        tool = ToolSpec(server="s", name="get_user_details", description="Get details of one user.",
                        input_schema=schema)
        specs = infer_arguments(tool)
        synth = ValueSynth(EnvironmentFacts(kind="json_file", root="${file}", records=records), ValuePool(),
                           random.Random(0))
        parts = [m for m in boundary_mutations(tool, specs, {"identifier": "ogriffiths"}, synth, cap=60)
                 if m.name is MutationKind.NAME_PART]
        assert [(m.arguments["identifier"], m.condition) for m in parts] == [
            ("Dawson", "`identifier` is one word (`Dawson`) of 2 names (`Claire Dawson`, `Claire Dawson (admin)`)")]
        alone = ValueSynth(EnvironmentFacts(kind="json_file", root="${file}", records=records[1:]), ValuePool(),
                           random.Random(0))
        assert not [m for m in boundary_mutations(tool, specs, {"identifier": "ogriffiths"}, alone, cap=60)
                    if m.name is MutationKind.NAME_PART]


class TestSearchQueries:
    def test_a_query_is_probed_with_a_hyphen_an_operator_and_part_of_its_word(self) -> None:
        """``widgets`` is also sent as ``widgets-based``, ``widgets OR`` and ``idget``; none is expected to fail."""
        schema = {"type": "object", "required": ["query"],
                  "properties": {"query": {"type": "string", "description": "Search query.", "examples": ["widgets"]}}}
        tool = ToolSpec(server="s", name="search_notes", description="Full-text search over the notes.",
                        input_schema=schema)
        valid, mutations = mutate(EnvironmentFacts(kind="none"), tool)
        assert valid["query"] == "widgets"
        found = {m.name: (m.arguments["query"], m.expected_failure) for m in mutations
                 if m.name in (MutationKind.QUERY_SYNTAX, MutationKind.QUERY_OPERATOR, MutationKind.WORD_FRAGMENT)}
        assert found == {MutationKind.QUERY_SYNTAX: ("widgets-based", False),
                         MutationKind.QUERY_OPERATOR: ("widgets OR", False),
                         MutationKind.WORD_FRAGMENT: ("idget", False)}


class TestStoredSeparators:
    def test_text_a_writing_tool_keeps_is_sent_with_a_column_bar_and_a_line_break(self) -> None:
        """A definition a tool adds to a glossary is also sent holding ``|`` and a line break (a store of lines or of
        markdown table rows cannot keep them in one field); a reading tool's text is not."""
        schema = {"type": "object", "required": ["term", "definition"],
                  "properties": {"term": {"type": "string", "description": "The term to define."},
                                 "definition": {"type": "string", "description": "The definition text."}}}
        add = ToolSpec(server="s", name="add_term", description="Add a term and its definition to the glossary.",
                       input_schema=schema)
        valid, mutations = mutate(EnvironmentFacts(kind="none"), add)
        split = [m for m in mutations if m.name is MutationKind.STORED_SEPARATOR]
        assert "definition" in {m.target_arg for m in split}
        changed = next(m for m in split if m.target_arg == "definition")
        assert "|" in changed.arguments["definition"] and "\n" in changed.arguments["definition"]
        assert changed.arguments["definition"].startswith(valid["definition"].strip().splitlines()[0][:10])
        assert not changed.expected_failure and "column bar (`|`) and a line break" in changed.condition
        look = ToolSpec(server="s", name="lookup_term", description="Look up the definition of a term.",
                        input_schema={"type": "object", "required": ["term"],
                                      "properties": {"term": {"type": "string", "description": "The term."}}})
        assert not [m for m in mutate(EnvironmentFacts(kind="none"), look)[1]
                    if m.name is MutationKind.STORED_SEPARATOR]


class TestFilterFragments:
    def test_a_known_tag_a_listing_filters_by_is_cut_to_its_first_part(self) -> None:
        """`tag` given the documented `rate-limit` is also sent as `rate`, `auth` as `aut`; a tool that writes, or a
        value the build made up, is not cut."""
        def listing(example: str, name: str = "mem_list", description: str = "List entries, optionally filtered by tag."):
            schema = {"type": "object", "properties": {"tag": {"type": "string", "description": "Tag to filter by.",
                                                               "examples": [example]}}, "required": ["tag"]}
            return ToolSpec(server="s", name=name, description=description, input_schema=schema)

        for example, part in (("rate-limit", "rate"), ("auth", "aut")):
            _valid, mutations = mutate(EnvironmentFacts(kind="none"), listing(example))
            cut = [m for m in mutations if m.name is MutationKind.WORD_FRAGMENT]
            assert [m.arguments["tag"] for m in cut] == [part]
            assert cut[0].condition == f"`tag` is part of a value (`{part}` of `{example}`)"
        tagger = listing("auth", "tag_entry", "Add a tag to an entry.")
        assert not [m for m in mutate(EnvironmentFacts(kind="none"), tagger)[1] if m.name is MutationKind.WORD_FRAGMENT]


class TestLookupsOfWords:
    @staticmethod
    def lookup(name: str, argument: str, example: str) -> ToolSpec:
        schema = {"type": "object", "required": [argument], "properties": {
            argument: {"type": "string", "description": "What to look up.", "examples": [example]}}}
        return ToolSpec(server="s", name=name, description="Look a word or a rule up.", input_schema=schema)

    def test_a_known_word_is_also_sent_inflected(self) -> None:
        """A dictionary's ``term`` given the documented ``start`` is also sent as ``started``; ``USE`` as ``USED``."""
        for example, form in (("start", "started"), ("USE", "USED")):
            inflected = [m for m in mutate(EnvironmentFacts(kind="none"), self.lookup("word_find", "term", example))[1]
                         if m.name is MutationKind.INFLECTED_FORM]
            assert [m.arguments["term"] for m in inflected] == [form]
            assert inflected[0].condition == f"`term` is an inflected form (`{form}` for `{example}`)"

    def test_a_known_code_is_also_sent_without_its_letters(self) -> None:
        """A rule id ``R1.1`` is also sent as ``1.1``, a tag ``v1.5.0`` as ``1.5.0``; a plain word keeps its letters."""
        for example, bare in (("R1.1", "1.1"), ("v1.5.0", "1.5.0"), ("GR-8", "8")):
            stripped = [m for m in mutate(EnvironmentFacts(kind="none"), self.lookup("rules_find", "id", example))[1]
                        if m.name is MutationKind.STRIPPED_PREFIX]
            assert [m.arguments["id"] for m in stripped] == [bare]
        plain = mutate(EnvironmentFacts(kind="none"), self.lookup("rules_find", "id", "passive"))[1]
        assert MutationKind.STRIPPED_PREFIX not in families(plain)

    def test_a_name_made_up_beside_hyphenated_names_is_hyphenated(self) -> None:
        """A page slug ``fare-rules`` that does not exist is ``no-such-…-3f2a``: a server that takes only hyphenated
        names refuses its absence, not its form — and it is still a made-up name."""
        reader = ToolSpec(server="s", name="read_page", description="Read a wiki page by its slug.", input_schema={
            "type": "object", "required": ["slug"], "properties": {"slug": {"type": "string", "examples": ["fare-rules"]}}})
        absent = [m for m in mutate(EnvironmentFacts(kind="none"), reader)[1]
                  if m.name is MutationKind.NONEXISTENT_REFERENCE]
        assert absent and all(m.arguments["slug"].startswith("no-such-") for m in absent)
        assert all(names_made_up(m.arguments) for m in absent)


class TestNewFileNames:
    def test_a_new_file_name_is_tried_taken_and_in_a_missing_folder(self, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """The new name a rename gives is also a name a file of the folder has (its stem, as the valid name has no
        extension) and the name inside a folder that does not exist."""
        schema = {"type": "object", "required": ["file_name", "new_name"],
                  "properties": {"file_name": {"type": "string", "description": "Path of the file to rename."},
                                 "new_name": {"type": "string", "description": "The new name."}}}
        rename = ToolSpec(server="s", name="rename_file", description="Rename a file.", input_schema=schema)
        valid, mutations = mutate(seed_facts["filesystem"], rename)
        assert "." not in valid["new_name"]
        taken = [m for m in mutations if m.name is MutationKind.ALREADY_EXISTS and m.target_arg == "new_name"]
        assert len(taken) == 1 and "." not in taken[0].arguments["new_name"] and taken[0].expected_failure
        assert taken[0].arguments["new_name"] not in valid["file_name"]
        nested = [m for m in mutations if m.name is MutationKind.MISSING_PARENT and m.target_arg == "new_name"]
        assert [m.arguments["new_name"].split("/", 1)[1] for m in nested] == [valid["new_name"]]


class TestRequiredFirst:
    def test_within_a_family_a_required_arguments_misuse_comes_first(self) -> None:
        """A wrongly typed ``hosts_needed`` (required) is kept before a wrongly typed ``return_format`` (optional,
        declared first) of the same family: the cap keeps the misuse every call can make."""
        schema = {"type": "object", "required": ["hosts_needed"],
                  "properties": {"return_format": {"type": "string", "description": "Output format."},
                                 "hosts_needed": {"type": "integer", "description": "Hosts the range must hold."}}}
        tool = ToolSpec(server="s", name="plan_range", description="Plan an address range.", input_schema=schema)
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        specs = infer_arguments(tool)
        call = synth.valid_arguments(tool, specs, 2)  # every optional argument given
        assert call is not None and "return_format" in call.arguments
        mutations = boundary_mutations(tool, specs, call.arguments, synth, cap=40)
        typed = [m.target_arg for m in mutations if m.name is MutationKind.WRONG_TYPE]
        assert typed[0] == "hosts_needed" and "return_format" in typed
        huge = [m for m in mutations if m.arguments.get("hosts_needed") == 10**9]
        assert [m.name for m in huge] == [MutationKind.OUT_OF_RANGE]  # a count past what there is: not contrived


class TestMirroredValues:
    @staticmethod
    def proposer(tool: ToolSpec):
        from toolatlas.config import ServerSpec
        from toolatlas.graph.state import ServerGraph
        from toolatlas.offline.proposer import OfflineProposer

        return OfflineProposer(ServerGraph("s", [tool]), None, ServerSpec(name="s", transport={"command": "x"}),
                               random.Random(0))

    def test_a_value_outside_the_set_is_sent_after_the_same_call_without_it(self) -> None:
        """A reading tool's optional ``frequency`` outside its listed set: the probe makes the same call without it
        first, which the misuse mirrors (an answer that is the same shows the value was ignored); a tool that writes
        gets no such call before its misuse."""
        schema = {"type": "object", "required": ["principal"], "properties": {
            "principal": {"type": "number"},
            "frequency": {"type": "string", "description": "How often interest compounds: 'monthly', 'quarterly', "
                                                           "'annually'"}}}
        grow = ToolSpec(server="s", name="compound_interest", description="Project investment growth.",
                        input_schema=schema)
        proposer = self.proposer(grow)
        call = {"principal": 7, "frequency": "annually"}
        outside = next(m for m in boundary_mutations(grow, proposer.args[grow.name], call, proposer.synth, cap=40)
                       if m.name is MutationKind.INVALID_ENUM)
        mirror, misuse = proposer.mirrored([], grow, call, outside, outside.step(grow.name))
        assert mirror.arguments == {"principal": 7} and mirror.mutation is None and mirror.expect == "ok"
        assert misuse.mirrors == 0 and misuse.arguments["frequency"] == "not_a_valid_choice"
        store = grow.model_copy(update={"name": "create_plan", "description": "Create and save a savings plan."})
        writer = self.proposer(store)
        assert writer.mirrored([], store, call, outside, outside.step(store.name)) == [outside.step(store.name)]
