"""The fields of open array items: read from errors, written into the specs, built into calls, kept across checkpoints."""

from __future__ import annotations

import random

import pytest

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.items import ItemFields, missing_field, open_items, stated_fields
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.mutations import boundary_mutations
from toolatlas.offline.taught import TaughtArguments
from toolatlas.offline.values import ValueSynth

FILTER = ToolSpec(server="s", name="filter_rows", description="Filter rows based on conditions.", input_schema={
    "type": "object", "required": ["session_id", "conditions"],
    "properties": {"session_id": {"type": "string"},
                   "conditions": {"type": "array", "items": {"type": "object", "additionalProperties": True}}},
})


class TestMissingField:
    @pytest.mark.parametrize(("error", "field"), [
        ('{"success": false, "error": "Column \'None\' not found"}', "column"),
        ('{"success": false, "error": "Unknown operator: None"}', "operator"),
        ("'value'", "value"),
        ("KeyError: 'value'", "value"),
        ("TypeError: Cannot read properties of undefined (reading 'field')", "field"),
        ("conditions.0.column\n  Field required [type=missing]", "column"),
        ("Unknown op: null", "op"),
    ])
    def test_the_field_a_missing_key_reads_as(self, error: str, field: str) -> None:
        """Python's None and KeyError, JavaScript's undefined and a validator's location name the missing field."""
        assert missing_field(error, set()) == field

    @pytest.mark.parametrize("error", [
        "expected string, got None", "'NoneType' object has no attribute 'lower'", "value is None",
        "Session not found", "division by zero",
    ])
    def test_errors_that_name_no_field(self, error: str) -> None:
        """A None after a verb, a type name holding None and errors without a missing value name no field."""
        assert missing_field(error, set()) is None

    def test_a_field_the_item_holds_is_not_missing(self) -> None:
        """`Column 'None' not found` for an item that has a `column` (whose value is None) names nothing new."""
        assert missing_field("Column 'None' not found", {"column"}) is None

    def test_pydantics_echo_of_the_input_names_no_field(self) -> None:
        """``[type=value_error, input_value=None, input_type=NoneType]`` repeats the refused input: once the items hold
        a `column`, the error names nothing new (not an `input_value` field)."""
        error = ("1 validation error for call[match_rows]\nrules.0\n  Value error, Column None not found "
                 "[type=value_error, input_value=None, input_type=NoneType]")
        assert missing_field(error, set()) == "column"
        assert missing_field(error, {"column"}) is None


class TestItemFields:
    def test_a_learnt_field_is_written_into_the_items(self) -> None:
        """After `Column 'None'`, the items of `conditions` hold a required `column`; the schema said nothing."""
        specs = infer_arguments(FILTER)
        assert open_items(specs[1])
        fields = ItemFields()
        assert fields.learn(FILTER, specs, {"session_id": "s", "conditions": [{}]}, "Column 'None' not found")
        shaped = fields.apply(FILTER, specs)[1]
        assert [(p.name, p.required, p.path) for p in shaped.items.properties] == [("column", True, "conditions[].column")]

    def test_fields_add_up_to_a_bound(self) -> None:
        """A second error naming another field adds it; the same field twice is learnt once."""
        fields = ItemFields()
        specs = infer_arguments(FILTER)
        fields.learn(FILTER, specs, {"conditions": [{}]}, "Column 'None' not found")
        specs = fields.apply(FILTER, infer_arguments(FILTER))
        assert not fields.learn(FILTER, specs, {"conditions": [{"column": "id"}]}, "Column 'None' not found")
        assert fields.learn(FILTER, specs, {"conditions": [{"column": "id"}]}, "Unknown operator: None")
        assert fields.fields("filter_rows", "conditions") == ["column", "operator"]

    def test_an_argument_not_sent_as_items_learns_nothing(self) -> None:
        """An error of a call whose `conditions` is empty says nothing of its items."""
        assert not ItemFields().learn(FILTER, infer_arguments(FILTER), {"conditions": []}, "Unknown operator: None")

    def test_a_valid_call_builds_items_with_the_fields(self) -> None:
        """The planned call of the shaped specs sends one item (at least) holding the learnt field."""
        fields = ItemFields()
        fields.learn(FILTER, infer_arguments(FILTER), {"conditions": [{}]}, "Column 'None' not found")
        synth = ValueSynth(EnvironmentFacts(kind="none"), rng=random.Random(0))
        planned = synth.valid_arguments(FILTER, fields.apply(FILTER, infer_arguments(FILTER)), 0)
        assert planned is not None and planned.arguments["conditions"] and "column" in planned.arguments["conditions"][0]


class TestStatedFields:
    def test_fields_a_description_states_are_taken_at_once(self) -> None:
        """`Each condition is a dict with keys: field, operator, value.` gives the items their three fields."""
        stated = FILTER.model_copy(update={"description": "Filter rows.\n\n    Each condition is a dict with keys: "
                                                         "field, operator, value.\n"})
        assert stated_fields(stated, infer_arguments(stated)[1]) == ["field", "operator", "value"]
        args = {"filter_rows": infer_arguments(stated)}
        TaughtArguments(args, {"filter_rows": stated})
        assert [p.name for p in args["filter_rows"][1].items.properties] == ["field", "operator", "value"]
        assert stated_fields(FILTER, infer_arguments(FILTER)[1]) == []


class TestFirstItem:
    def test_an_open_array_is_probed_with_an_item_holding_nothing(self) -> None:
        """The boundary probes of `conditions: []` include `[{}]`, an outcome either way informative."""
        synth = ValueSynth(EnvironmentFacts(kind="none"), rng=random.Random(0))
        found = boundary_mutations(FILTER, infer_arguments(FILTER), {"session_id": "s", "conditions": []}, synth, cap=100)
        empty = [m for m in found if m.arguments.get("conditions") == [{}]]
        assert empty and not empty[0].expected_failure and "no fields" in empty[0].condition


class TestTaughtArguments:
    def test_what_was_taught_survives_a_checkpoint(self) -> None:
        """`dump` then `load` gives the same specs: alternatives and item fields alike."""
        specs = {"filter_rows": FILTER}
        args = {"filter_rows": infer_arguments(FILTER)}
        taught = TaughtArguments(args, specs)
        taught.learn(FILTER, {"session_id": "s", "conditions": [{}]}, "Column 'None' not found")
        restored_args = {"filter_rows": infer_arguments(FILTER)}
        TaughtArguments(restored_args, specs).load(taught.dump())
        assert restored_args == args and args["filter_rows"][1].items.properties
