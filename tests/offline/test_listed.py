"""Names an answer lists: learned from answers, and the later calls of the same run that take them bound to that answer."""

from __future__ import annotations

from typing import Any

from toolatlas.models import ToolSpec
from toolatlas.offline.listed import AnswerBindings, ListedNames
from toolatlas.probing.bindings import bind_outputs
from toolatlas.probing.models import ProbeStep
from toolatlas.probing.values import ArgKind


def make(name: str, properties: dict[str, Any]) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": []}
    return ToolSpec(server="s", name=name, description=f"{name} tool", input_schema=schema)


TEXT = {"type": "string"}
SPECS = {t.name: t for t in [
    make("load", {"path": TEXT, "session_id": TEXT}),
    make("stats", {"session_id": TEXT, "column": TEXT}),
    make("sort", {"session_id": TEXT, "columns": {"type": "array", "items": TEXT}}),
    make("group", {"session_id": TEXT, "by": {"type": "array", "items": TEXT, "description": "Columns to group by"}}),
    make("add", {"session_id": TEXT, "new_column": TEXT}),
]}
LOADED = {"session_id": "83b7", "columns_affected": ["id", "name", "salary"], "rows": 3}


def learned(*answers: dict[str, Any], tool: str = "load") -> ListedNames:
    listed = ListedNames(SPECS)
    for n, answer in enumerate(answers):
        listed.observe(tool, answer, f"p{n}")
    return listed


def after_load(tool: str, arguments: dict[str, Any], **fields: Any) -> list[ProbeStep]:
    return [ProbeStep(tool="load", arguments={"path": "${root}/a.csv"}),
            ProbeStep(tool=tool, arguments={"session_id": "${step0.session_id}", **arguments}, **fields)]


class TestLearning:
    def test_a_list_of_names_under_a_part_noun_is_a_listing(self) -> None:
        """`columns_affected: [...]` is a listing of column names at that path."""
        assert learned(LOADED).listers("column") == {"load": ("columns_affected", 3, None, "p0")}

    def test_records_with_a_name_are_a_listing(self) -> None:
        """`{"data": {"columns": [{"name": ...}]}}` lists names at the records' `name`."""
        answer = {"data": {"columns": [{"name": "id", "type": "int"}, {"name": "city", "type": "str"}]}}
        assert learned(answer).listers("column") == {"load": ("data.columns", 2, "name", "p0")}

    def test_the_shortest_listing_seen_bounds_the_names_taken(self) -> None:
        """Two answers of the same tool list three and two names: two are taken at most."""
        assert learned(LOADED, {"columns_affected": ["a", "b"]}).listers("column")["load"][1] == 2

    def test_lists_under_other_keys_are_not_listings(self) -> None:
        """Values (`rows`, `tags`) and numbers are not names of parts."""
        assert learned({"rows": ["a", "b"], "columns": [1, 2]}).listers("column") == {}


class TestBinding:
    def test_a_name_argument_takes_a_listed_name_of_the_same_step(self) -> None:
        """`stats(column=example)` after `load` takes one of the columns `load` listed, its source noted."""
        steps = learned(LOADED).bind(after_load("stats", {"column": "example"}))
        reference = steps[1].arguments["column"]
        assert reference.startswith("${step0.columns_affected.")
        assert bind_outputs(steps[1].arguments, {0: LOADED})["column"] in LOADED["columns_affected"]
        assert [(h.kind, h.tool) for h in steps[1].harvested] == [(ArgKind.COLUMN_NAME, "load")]

    def test_an_array_of_names_takes_distinct_listed_names(self) -> None:
        """`sort(columns=[a, b])` takes two different listed columns."""
        steps = learned(LOADED).bind(after_load("sort", {"columns": ["example", "sample"]}))
        values = bind_outputs(steps[1].arguments, {0: LOADED})["columns"]
        assert len(set(values)) == 2 and set(values) <= set(LOADED["columns_affected"])

    def test_an_argument_described_by_the_part_takes_its_names(self) -> None:
        """`by`, described "Columns to group by", takes column names."""
        steps = learned(LOADED).bind(after_load("group", {"by": ["example"]}))
        assert steps[1].arguments["by"][0].startswith("${step0.columns_affected.")

    def test_a_step_bound_to_no_earlier_answer_is_left_alone(self) -> None:
        """Without an id taken from an earlier step, the state is not known to be the run's own: no binding."""
        steps = [ProbeStep(tool="load", arguments={"path": "x"}),
                 ProbeStep(tool="stats", arguments={"session_id": "s", "column": "example"})]
        assert learned(LOADED).bind(steps) == steps

    def test_a_misuse_of_the_name_and_a_new_name_are_left_alone(self) -> None:
        """A boundary probe breaking `column` keeps its value; `new_column` names what the call creates."""
        listed = learned(LOADED)
        broken = after_load("stats", {"column": "no_such_column"}, mutation="nonexistent_reference",
                            condition="`column` names nothing")
        assert listed.bind(broken) == broken
        item = after_load("sort", {"columns": [""]}, mutation="empty_value", condition="`columns[0]` is an empty string")
        assert listed.bind(item) == item
        fresh = after_load("add", {"new_column": "probe_1"})
        assert listed.bind(fresh) == fresh

    def test_nothing_learned_changes_nothing(self) -> None:
        """With no listing seen, the steps are returned as they are."""
        steps = after_load("stats", {"column": "example"})
        assert ListedNames(SPECS).bind(steps) == steps


class TestAnswerBindings:
    def test_ids_then_names(self) -> None:
        """A consumer planned alone gets the minting call first, then a listed name of that call's answer."""
        bindings = AnswerBindings(SPECS)
        for n, session in enumerate(("a1", "b2")):
            bindings.observe("load", {"path": "${root}/a.csv"}, {**LOADED, "session_id": session}, f"p{n}")
        steps = bindings.bind([ProbeStep(tool="stats", arguments={"session_id": "example", "column": "example"})])
        assert [s.tool for s in steps] == ["load", "stats"]
        assert steps[1].arguments["session_id"] == "${step0.session_id}"
        assert steps[1].arguments["column"].startswith("${step0.columns_affected.")

    def test_what_was_learned_survives_a_checkpoint(self) -> None:
        """`dump` then `load` binds the same way."""
        bindings = AnswerBindings(SPECS)
        for n, session in enumerate(("a1", "b2")):
            bindings.observe("load", {"path": "${root}/a.csv"}, {**LOADED, "session_id": session}, f"p{n}")
        restored = AnswerBindings(SPECS)
        restored.load(bindings.dump())
        planned = [ProbeStep(tool="stats", arguments={"session_id": "example", "column": "example"})]
        assert restored.bind(planned) == bindings.bind(planned)


class TestFieldsOfOneObjectArgument:
    def test_a_field_naming_a_part_takes_the_listed_name(self) -> None:
        """`peek(params={session_id, var_name})` after `run`: `params.var_name` ("Variable name.") takes a
        variable `run` listed (`namespace.variables`), as its session id takes the id `run` answered."""
        model = {"type": "object", "required": ["session_id", "var_name"], "properties": {
            "session_id": TEXT, "var_name": {"type": "string", "description": "Variable name."}}}
        peek = ToolSpec(server="s", name="peek", description="peek tool", input_schema={
            "type": "object", "properties": {"params": {"$ref": "#/$defs/PeekInput"}}, "required": ["params"],
            "$defs": {"PeekInput": model}})
        run = make("run", {"code": TEXT})
        listed = ListedNames({"peek": peek, "run": run})
        listed.observe("run", {"session_id": "a1", "namespace": {"total": 2, "variables": ["x", "y"]}}, "p0")
        steps = listed.bind([ProbeStep(tool="run", arguments={"code": "x = 1"}),
                             ProbeStep(tool="peek", arguments={"params": {"session_id": "${step0.session_id}",
                                                                          "var_name": "sample"}})])
        assert steps[1].arguments["params"]["var_name"].startswith("${step0.namespace.variables.")
        assert steps[1].arguments["params"]["session_id"] == "${step0.session_id}"
