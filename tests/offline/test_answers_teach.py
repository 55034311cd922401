"""What answers, refusals, the snapshot and the description teach the next calls: a refusal's format for the
arguments its subject names, an error asking for any of several arguments, a moment refused as past, the names of
listed records and of a table's rows, a map's keys and values, choices a docstring line states, the days a ledger
holds, a JSON answer cut short; and answers that hide a failure (a made-up key listed as matching nothing, a text
that says it was truncated)."""

from __future__ import annotations

import datetime as dt
import json
import random

from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.offline.alternatives import Alternatives, stated_alternatives, with_alternatives
from toolatlas.offline.answers import argument_takers
from toolatlas.offline.dbfacts import ColumnFact, DatabaseFacts, TableFact
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool, _json_head, answered_document
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.maps import map_shape
from toolatlas.offline.mutations import MutationKind, boundary_mutations
from toolatlas.offline.stated import stated_future, stated_kinds
from toolatlas.offline.taught import TaughtArguments
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.hidden import hidden_failure
from toolatlas.probing.values import ArgKind, names_made_up

COMPARE = ToolSpec(server="s", name="compare_periods", description="Compare two inclusive periods.", input_schema={
    "type": "object", "required": ["first_start", "first_end", "second_start", "second_end"],
    "properties": {name: {"type": "string"} for name in ("first_start", "first_end", "second_start", "second_end")}})
UPDATE = ToolSpec(server="s", name="update_recurring_payment", description="Update a tracked payment by label.",
                  input_schema={"type": "object", "required": ["label"], "properties": {
                      "label": {"type": "string"}, "active": {"type": "boolean"},
                      "expected_day": {"type": "integer"}, "cadence": {"type": "string"}}})
CATEGORISE = ToolSpec(
    server="s", name="set_merchant_categories",
    description="Categorize merchants. Keys are exact merchant_clean values (as returned by search_transactions). "
                "Values\n    must be from the fixed taxonomy: housing, utilities, groceries, dining, other.",
    input_schema={"type": "object", "required": ["assignments"], "properties": {
        "assignments": {"type": "object", "additionalProperties": {"type": "string"}}}})
SEARCH = ToolSpec(server="s", name="search_transactions", description="Search transactions.", annotations={
    "read_only": True}, input_schema={"type": "object", "properties": {"limit": {"type": "integer"}}})
CONTEXT = ToolSpec(server="s", name="set_account_context", description="Set an account's metadata.", input_schema={
    "type": "object", "required": ["account"], "properties": {"account": {"type": "string"}}})


def synth(pool: ValuePool | None = None, facts: EnvironmentFacts | None = None) -> ValueSynth:
    return ValueSynth(facts or EnvironmentFacts(kind="none"), pool or ValuePool(), random.Random(0))


class TestRefusalSubjects:
    def test_a_format_refused_under_an_internal_name_teaches_the_arguments_sharing_its_words(self) -> None:
        """``start_date must be YYYY-MM-DD`` is about ``first_start`` and ``second_start`` (the server's own name
        for them); the ends are taught by the refusal that follows."""
        specs = infer_arguments(COMPARE)
        sent = dict.fromkeys(("first_start", "first_end", "second_start", "second_end"), "example")
        assert stated_kinds(specs, sent, "Error: start_date must be YYYY-MM-DD") == [
            ("first_start", ArgKind.DATE), ("second_start", ArgKind.DATE)]
        assert stated_kinds(specs, sent, "end_date must be YYYY-MM-DDTHH:MM:SS") == [
            ("first_end", ArgKind.DATETIME), ("second_end", ArgKind.DATETIME)]
        assert stated_kinds(specs, sent, "start_date must be positive") == []  # no format named

    def test_a_deadline_is_a_day_and_an_isoformat_refusal_says_so(self) -> None:
        """``deadline`` names a day; Python's ``Invalid isoformat string: 'example'`` types the argument it repeats."""
        plan = ToolSpec(server="s", name="plan", description="Plan backward from a date.", input_schema={
            "type": "object", "required": ["deadline", "due"],
            "properties": {"deadline": {"type": "string"}, "due": {"type": "string"}}})
        specs = infer_arguments(plan)
        assert [s.kind for s in specs] == [ArgKind.DATE, ArgKind.STRING]
        refusal = "Error calling tool 'plan': Invalid isoformat string: 'someday'"
        assert stated_kinds(specs, {"deadline": "2027-03-01", "due": "someday"}, refusal) == [("due", ArgKind.DATE)]

    def test_any_of_several_is_needed_without_excluding_each_other(self) -> None:
        error = "Error executing tool update_recurring_payment: nothing to update: pass active, expected_day, or cadence"
        found = stated_alternatives(UPDATE, error)
        assert found == Alternatives(("active", "expected_day", "cadence"), True, False)
        specs = with_alternatives(infer_arguments(UPDATE), found)
        assert all(s.alternative_needed and not s.excludes for s in specs if s.name != "label")
        planned = synth().valid_arguments(UPDATE, specs, 0)
        assert planned is not None and set(planned.arguments) & {"active", "expected_day", "cadence"}

    def test_exactly_one_of_two_is_needed_and_excludes_the_other(self) -> None:
        """``pass exactly one of port= (live VM) or path= (directory of tables)``: one is given, never both."""
        load = ToolSpec(server="s", name="acpi_load", description="Load a set of tables.", input_schema={
            "type": "object", "required": ["name"],
            "properties": {"name": {"type": "string"}, "port": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                           "path": {"anyOf": [{"type": "string"}, {"type": "null"}]}}})
        error = ("Error executing tool acpi_load: pass exactly one of port= (live VM) or path= (directory of "
                 "tables)")
        assert stated_alternatives(load, error) == Alternatives(("port", "path"), True, True)

    def test_a_path_refused_as_not_a_file_or_not_a_directory_teaches_which(self) -> None:
        """``DBC path is not a file: ${root}`` makes a path a listing tool took for a folder a file path; ``not a
        directory: …/dsdt.dat`` makes a loader's path a folder; a refusal of the kind it already has teaches
        nothing, nor one that repeats no path of the call."""
        listing = ToolSpec(server="s", name="list_messages", description="List DBC messages.", input_schema={
            "type": "object", "required": ["dbc_path"], "properties": {"dbc_path": {"type": "string"}}})
        specs = infer_arguments(listing)
        assert specs[0].kind is ArgKind.DIR_PATH
        error = "Error executing tool list_messages: DBC path is not a file: ${root}"
        assert stated_kinds(specs, {"dbc_path": "${root}"}, error) == [("dbc_path", ArgKind.FILE_PATH)]
        assert stated_kinds(specs, {"dbc_path": "${root}/dbc"}, "DBC path is not a file: ${root}") == []
        load = ToolSpec(server="s", name="acpi_load", description="Load a set of tables.", input_schema={
            "type": "object", "properties": {"name": {"type": "string"}, "path": {"type": "string"}}})
        sent = {"name": "example", "path": "${root}/nx100/dsdt.dat"}
        assert stated_kinds(infer_arguments(load), sent, "not a directory: ${root}/nx100/dsdt.dat") == [
            ("path", ArgKind.DIR_PATH)]
        known = [specs[0].model_copy(update={"examples": ["${root}/dbc/powertrain.dbc"]})]  # a known call's value
        taught = TaughtArguments({"list_messages": known}, {"list_messages": listing})
        taught.learn(listing, {"dbc_path": "${root}"}, error)
        assert taught.args["list_messages"][0].kind is ArgKind.FILE_PATH
        assert taught.args["list_messages"][0].examples == ["${root}/dbc/powertrain.dbc"]  # what it knew stays

    def test_an_argument_pointing_at_a_service_out_of_reach_is_left_out_after(self, tmp_path) -> None:
        """``could not connect to gdbstub on 127.0.0.1:8080``: the `port` and `host` it repeats are left out of
        the calls planned after, so the other way in (a folder of the tables) is the one given; the lesson survives
        a checkpoint."""
        load = ToolSpec(server="s", name="acpi_load", description="Load a set of tables.", input_schema={
            "type": "object", "required": ["name"],
            "properties": {"name": {"type": "string"}, "port": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                           "host": {"type": "string", "default": "127.0.0.1"},
                           "path": {"anyOf": [{"type": "string"}, {"type": "null"}]}}})
        taught = TaughtArguments({"acpi_load": infer_arguments(load)}, {"acpi_load": load})
        taught.learn(load, {"name": "vm", "port": 8080, "path": "${root}/nx100"},
                     "pass exactly one of port= (live VM) or path= (directory of tables)")
        error = ("Error executing tool acpi_load: could not connect to gdbstub on 127.0.0.1:8080: [Errno 13] "
                 "Permission denied.")
        taught.learn(load, {"name": "vm", "port": 8080, "host": "127.0.0.1"}, error)
        assert taught.unreachable == {"acpi_load": {"port", "host"}}
        from toolatlas.offline.facts import extract_facts

        (tmp_path / "nx100").mkdir()
        (tmp_path / "nx100" / "apic.dat").write_bytes(b"APIC\x00\x01")
        tables = synth(facts=extract_facts("directory", tmp_path))
        for variant in range(4):
            planned = tables.valid_arguments(load, taught.args["acpi_load"], variant)
            assert planned is not None and "port" not in planned.arguments and "path" in planned.arguments
        again = TaughtArguments({"acpi_load": infer_arguments(load)}, {"acpi_load": load})
        again.load(taught.dump())
        assert [s.name for s in again.args["acpi_load"] if s.unreachable] == ["port", "host"]


class TestListedRecords:
    def test_records_listed_under_a_plural_name_what_its_singular_argument_takes(self) -> None:
        pool = ValuePool()
        answer = {"accounts": [{"name": "Joint Current", "currency": "GBP"}, {"name": "Everyday Card"}]}
        pool.harvest(SEARCH, json.dumps(answer), None, {}, "p1")
        planned = synth(pool).valid_arguments(CONTEXT, None, 0)
        assert planned is not None and planned.arguments["account"] in ("Joint Current", "Everyday Card")

    def test_records_with_ids_file_trees_and_a_databases_shape_name_nothing(self) -> None:
        pool = ValuePool()
        pool.harvest(SEARCH, json.dumps({"accounts": [{"id": 4, "name": "Joint Current"}]}), None, {}, "p1")
        pool.harvest(SEARCH, json.dumps({"children": [{"name": "a.txt", "type": "file"}]}), None, {}, "p2")
        pool.harvest(SEARCH, json.dumps({"tables": [{"name": "cities"}], "columns": [{"name": "id"}]}), None, {}, "p3")
        assert not [r for r in pool.values(ArgKind.IDENTIFIER) if (r.context or "").startswith("label:")]

    def test_a_file_tree_cut_short_is_read_up_to_its_last_whole_entry(self) -> None:
        """A large tree's answer cut inside an entry (``{"name": "utils", "ty``) leaves a child without its type: the
        entries before it are paths, it is none (it neither breaks the harvest nor passes for a file)."""
        tree = ToolSpec(server="s", name="directory_tree", description="A tree of files.", input_schema={
            "type": "object", "properties": {"path": {"type": "string"}}})
        pool = ValuePool()
        cut = ('[{"name": "threestudio", "type": "directory", "children": [{"name": "train.py", "type": "file"}, '
               '{"name": "utils", "ty')
        pool.harvest(tree, cut, None, {}, "p1", arguments={"path": "/data"})
        paths = {r.value for kind in (ArgKind.FILE_PATH, ArgKind.DIR_PATH) for r in pool.values(kind)}
        assert {"/data/threestudio", "/data/threestudio/train.py"} <= paths
        assert not any(p.endswith("utils") for p in paths)

    def test_a_json_answer_cut_short_is_read_up_to_its_last_complete_value(self) -> None:
        assert _json_head('{"rows": [{"a": 1, "b": "x,y"}, {"a": 2}, {"pos') == {"rows": [{"a": 1, "b": "x,y"}, {"a": 2}]}
        assert _json_head('["a", "b\\", c", "d') == ["a", 'b", c']
        assert _json_head('{"a') is None
        wrapped = {"result": json.dumps({"rows": [1, 2]})}
        assert answered_document(wrapped, wrapped["result"]) == {"rows": [1, 2]}  # the SDK's wrapping of its text


class TestMaps:
    def test_a_map_reads_its_keys_field_and_its_values_from_the_description(self) -> None:
        (spec,) = infer_arguments(CATEGORISE)
        shape = map_shape(spec, CATEGORISE.description)
        assert shape is not None and shape.key_field == "merchant_clean"
        assert shape.values == ["housing", "utilities", "groceries", "dining", "other"]
        (plain,) = infer_arguments(ToolSpec(server="s", name="t", description="", input_schema={
            "type": "object", "properties": {"options": {"type": "object"}}}))
        assert map_shape(plain, "") is None

    def test_a_map_holds_a_key_another_tools_answer_listed_and_a_listed_value(self) -> None:
        pool = ValuePool()
        assert synth(pool).valid_arguments(CATEGORISE, None, 0).arguments == {"assignments": {"example": "housing"}}
        takers = argument_takers({t.name: t for t in (CATEGORISE, SEARCH)})
        answer = {"result": json.dumps({"transactions": [{"merchant_clean": "Harbourside Coffee"}]})}
        pool.harvest_answered(SEARCH, answered_document(answer, answer["result"]), takers, "p1")
        planned = synth(pool).valid_arguments(CATEGORISE, None, 1)
        assert planned is not None and planned.arguments == {"assignments": {"Harbourside Coffee": "utilities"}}

    def test_a_maps_entry_is_misused_by_value_and_by_key(self) -> None:
        valid = {"assignments": {"Harbourside Coffee": "housing"}}
        mutated = {m.name.value: m for m in boundary_mutations(CATEGORISE, infer_arguments(CATEGORISE), valid, synth())}
        assert mutated["invalid_enum"].arguments["assignments"] == {"Harbourside Coffee": "not_a_valid_choice"}
        (key,) = mutated["nonexistent_reference"].arguments["assignments"]
        assert names_made_up(mutated["nonexistent_reference"].arguments) and key.startswith("no_such_merchant_clean_")


class TestHiddenMisses:
    def test_a_made_up_key_an_answer_lists_under_matching_nothing_is_a_failure(self) -> None:
        arguments = {"assignments": {"no_such_merchant_clean_3f2a": "housing"}}

        def judged(answer: dict) -> str | None:
            outcome = CallOutcome(server="s", tool=CATEGORISE.name, arguments=arguments, outcome=OutcomeClass.OK,
                                  excerpt=json.dumps(answer))
            return hidden_failure(outcome, CATEGORISE, mutation="nonexistent_reference", changed=False,
                                  arguments=arguments)

        assert judged({"recategorized": {"no_such_merchant_clean_3f2a": 0},
                       "merchants_with_zero_matches": ["no_such_merchant_clean_3f2a"]}) is not None
        assert judged({"recategorized": {"no_such_merchant_clean_3f2a": 0}, "merchants_with_zero_matches": []}) is None


class TestDataDates:
    def test_dates_come_from_the_database_and_the_answers_when_no_history_exists(self) -> None:
        table = TableFact(name="transactions", sample_rows=[{"posted_date": "2026-11-03", "amount": 5},
                                                            {"posted_date": "2026-06-01T09:00:00", "amount": 7}])
        facts = EnvironmentFacts(kind="sqlite", database=DatabaseFacts(dialect="sqlite", tables=[table]))
        pool = ValuePool()
        pool.harvest(SEARCH, json.dumps({"balance_date": "2026-12-05"}), None, {}, "p1")
        assert synth(pool, facts).targets.data_dates() == ["2026-06-01", "2026-11-03", "2026-12-05"]
        planned = synth(pool, facts).valid_arguments(COMPARE.model_copy(update={"input_schema": {
            "type": "object", "required": ["start_date", "end_date"],
            "properties": {"start_date": {"type": "string", "format": "date"},
                           "end_date": {"type": "string", "format": "date"}}}}), None, 0)
        assert planned is not None and planned.arguments == {"start_date": "2026-06-01", "end_date": "2026-12-05"}


class TestListedLookups:
    def test_a_message_to_look_up_is_one_the_answers_listed_not_prose(self) -> None:
        """``{"messages": [{"id": "0x120", "name": "INV_Status"}, …]}`` answered: a read tool's `message` names one
        of them; a tool that sends a message still writes prose."""
        listing = ToolSpec(server="s", name="list_messages", description="List DBC messages.", input_schema={})
        pool = ValuePool()
        answer = {"total": 2, "messages": [{"id": "0x120", "name": "INV_Status", "dlc": 8},
                                           {"id": "0x3B0", "name": "BMS_PackStatus", "dlc": 8}]}
        pool.harvest(listing, json.dumps(answer), None, {}, "p1")
        lookup = ToolSpec(server="s", name="get_message", description="Return one message and its signal layout.",
                          input_schema={"type": "object", "required": ["message"],
                                        "properties": {"message": {"type": "string"}}})
        assert infer_arguments(lookup)[0].kind is ArgKind.TEXT
        looked_up = {synth(pool).valid_arguments(lookup, None, v).arguments["message"] for v in range(2)}
        assert looked_up <= {"0x120", "0x3B0", "INV_Status", "BMS_PackStatus"} and looked_up
        send = lookup.model_copy(update={"name": "send_message", "description": "Send a message to the team."})
        sent = synth(pool).valid_arguments(send, None, 0).arguments["message"]
        assert sent not in {"0x120", "0x3B0", "INV_Status", "BMS_PackStatus"}


class TestSnapshotAndDescription:
    def test_an_argument_named_after_a_table_takes_what_its_rows_are_called(self) -> None:
        table = TableFact(name="exercises", columns=[ColumnFact(name="id", type="INTEGER"),
                                                     ColumnFact(name="name", type="TEXT")],
                          sample_rows=[{"id": 1, "name": "Bench Press"}, {"id": 2, "name": "Back Squat"}])
        facts = EnvironmentFacts(kind="sqlite", database=DatabaseFacts(dialect="sqlite", tables=[table]))
        history = ToolSpec(server="s", name="exercise_history", description="One exercise's sets.", input_schema={
            "type": "object", "required": ["exercise"], "properties": {"exercise": {"type": "string"}}})
        planned = synth(facts=facts).valid_arguments(history, None, 1)
        assert planned is not None and planned.arguments == {"exercise": "Back Squat"}
        assert synth(facts=facts).targets.named_rows("account") == []

    def test_a_search_is_probed_with_the_other_fields_of_the_record_its_query_is_in(self) -> None:
        """A contact found by a word of its name is searched for by its owner and its first tag (fields more rows
        share first); its key and its date never, nor the field that holds the query."""
        columns = [ColumnFact(name=n, type="TEXT", primary_key=n == "id")
                   for n in ("id", "name", "city", "owner", "tags", "created_at")]
        rows = [{"id": "C-1", "name": "Khalid Bin Thani", "city": "Dubai", "owner": "hamza", "tags": '["vip", "new"]',
                 "created_at": "2024-11-27"},
                {"id": "C-2", "name": "Reem Al Marzouqi", "city": "Sharjah", "owner": "hamza", "tags": "[]",
                 "created_at": "2025-03-11"}]
        notes = TableFact(name="notes", columns=[ColumnFact(name="text", type="TEXT")],
                          sample_rows=[{"text": "Khalid called back"}])
        contacts = TableFact(name="contacts", columns=columns, sample_rows=rows)
        facts = EnvironmentFacts(kind="sqlite", database=DatabaseFacts(dialect="sqlite", tables=[notes, contacts]))
        targets = synth(facts=facts).targets
        assert targets.other_fields("khalid", "search_contacts find contacts") == [
            ("owner", "hamza"), ("city", "Dubai"), ("tags", "vip")]
        assert targets.other_fields("Khalid", "search_notes") == []  # the note holds nothing else
        assert targets.other_fields("Olivia", "search_contacts") == []
        search = ToolSpec(server="s", name="search_contacts", description="Find contacts by name.", input_schema={
            "type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}})
        specs = infer_arguments(search)
        mutations = boundary_mutations(search, specs, {"query": "Khalid"}, synth(facts=facts), cap=60)
        assert [(m.arguments, m.expected_failure) for m in mutations if m.name is MutationKind.OTHER_FIELD] == [
            ({"query": "hamza"}, False), ({"query": "Dubai"}, False), ({"query": "vip"}, False)]

    def test_a_path_arguments_name_gives_the_kind_of_file_it_takes(self, tmp_path) -> None:
        """``dbc_path`` takes the .dbc definitions and ``log_path`` what the logs folder holds (a .log, an .asc),
        never each other's; a name that says only that it is a path takes any file."""
        from toolatlas.offline.facts import extract_facts

        for name in ("dbc/vehicle_v1.dbc", "dbc/supplier/cells.dbc", "logs/road.log", "logs/charge.asc",
                     "README.md"):
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text("BO_ 256 Status: 8 VCU\n")
        facts = extract_facts("directory", tmp_path)
        targets = synth(facts=facts).targets
        assert targets.named_extensions("dbc_path") == [".dbc"]
        assert sorted(targets.named_extensions("logPath")) == [".asc", ".log"]
        assert targets.named_extensions("file_path") == [] and targets.named_extensions("path") == []
        decode = ToolSpec(server="s", name="decode_log", description="Decode log frames through a DBC.",
                          input_schema={"type": "object", "required": ["dbc_path", "log_path"],
                                        "properties": {"dbc_path": {"type": "string"}, "log_path": {"type": "string"}}})
        for variant in range(3):
            planned = synth(facts=facts).valid_arguments(decode, None, variant)
            assert planned is not None and planned.arguments["dbc_path"].endswith(".dbc")
            assert planned.arguments["log_path"].endswith((".log", ".asc"))

    def test_a_docstring_line_saying_what_an_argument_is_lists_its_choices(self) -> None:
        tool = ToolSpec(server="s", name="log_set", description=(
            "Log a set.\n    weight/unit: 0 or omitted for bodyweight; unit is kg or lb (defaults to the last one)."),
            input_schema={"type": "object", "properties": {"unit": {"type": "string"}}})
        (unit,) = infer_arguments(tool)
        assert unit.enum == ["kg", "lb"]

    def test_a_moment_refused_as_past_is_planned_after_today(self) -> None:
        task = ToolSpec(server="s", name="create_task", description="Create a task.", input_schema={
            "type": "object", "required": ["title", "due_date"],
            "properties": {"title": {"type": "string"}, "due_date": {"type": "string", "format": "date"}}})
        specs = infer_arguments(task)
        sent = {"title": "Call back", "due_date": "2026-11-28"}
        assert stated_future(specs, sent, "Error executing tool create_task: due_date 2026-11-28 is in the past") == [
            "due_date"]
        assert stated_future(specs, sent, "due_date must be an ISO date") == []
        taught = TaughtArguments({"create_task": specs}, {"create_task": task})
        taught.learn(task, sent, "due_date 2026-11-28 is in the past")
        planned = synth().valid_arguments(task, taught.args["create_task"], 0)
        assert planned is not None and planned.arguments["due_date"] > dt.date.today().isoformat()
        restored = TaughtArguments({"create_task": infer_arguments(task)}, {"create_task": task})
        restored.load(taught.dump())
        assert restored.args["create_task"] == taught.args["create_task"]


class TestCutShort:
    def test_an_answer_that_says_it_is_truncated_holds_only_part(self) -> None:
        """A text answer saying it was cut is a failure reported as success — but for a call that asked past a
        limit the description states, whose cut is that limit (a tolerance)."""
        def judged(text: str, mutation: str | None = None) -> str | None:
            outcome = CallOutcome(server="s", tool="get_log_content", arguments={"filename": "api.log"},
                                  outcome=OutcomeClass.OK, excerpt=text)
            return hidden_failure(outcome, None, mutation=mutation, changed=False, arguments={"filename": "api.log"})

        assert judged("Content of api.log (TRUNCATED: showing ~3986 of ~5308 tokens)\n12:00 GET /") is not None
        assert judged("line one\n[OUTPUT TRUNCATED - Use read_log_paginated for full access]") is not None
        assert judged("id,name\n1,a\n(truncated to 5 rows)", mutation="past_stated_limit") is None
        assert judged('{"rows": [1, 2], "truncated": true}') is None  # a page the call's own limit asked for
        assert judged("12:00 GET / 200\n12:01 GET /health 200") is None


class TestLockedRecords:
    SEGMENTS = {"segments": [{"segment_id": "1", "locked": True, "target": "Ein/Aus"},
                             {"segment_id": "2", "locked": False, "target": "Akku"}]}
    UPDATE = ToolSpec(server="s", name="update_segment", description="Update a segment's target text.",
                      input_schema={"type": "object", "required": ["segment_id", "target_text"], "properties": {
                          "segment_id": {"type": "string"}, "target_text": {"type": "string"}}})

    def pool(self) -> ValuePool:
        pool = ValuePool()
        pool.harvest(SEARCH, json.dumps(self.SEGMENTS), None, {}, "p1")
        return pool

    def test_a_change_is_tried_on_the_record_a_listing_marks_locked(self) -> None:
        valid = {"segment_id": "2", "target_text": "Akku laden"}
        mutated = {m.name.value: m for m in boundary_mutations(self.UPDATE, infer_arguments(self.UPDATE), valid,
                                                               synth(self.pool()))}
        assert mutated["locked_target"].arguments == {"segment_id": "1", "target_text": "Akku laden"}
        assert mutated["locked_target"].condition == "`segment_id` names a segment its listing marks locked"
        read = SEARCH.model_copy(update={"name": "read_segment"})
        assert "locked_target" not in {m.name.value for m in boundary_mutations(read, infer_arguments(
            self.UPDATE), valid, synth(self.pool()))}  # a read of a locked record is no misuse

    def test_a_locked_record_changed_without_a_word_of_the_lock_is_a_failure(self) -> None:
        arguments = {"segment_id": "1", "target_text": "Akku laden"}

        def judged(text: str) -> str | None:
            outcome = CallOutcome(server="s", tool=self.UPDATE.name, arguments=arguments, outcome=OutcomeClass.OK,
                                  excerpt=text)
            return hidden_failure(outcome, self.UPDATE, mutation="locked_target", changed=False, arguments=arguments)

        assert judged('{"status": "success", "message": "Successfully updated segment \'1\'"}') is not None
        assert judged("Skipped: segment 1 is locked.") is None
