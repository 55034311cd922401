"""Identifiers a server mints in its answers: learned from answers, and the calls that take them bound to a minting call."""

from __future__ import annotations

from typing import Any

from toolatlas.models import ToolSpec
from toolatlas.offline.minted import MintedIds
from toolatlas.probing.models import ProbeStep


def make(name: str, properties: dict[str, Any]) -> ToolSpec:
    schema = {"type": "object", "properties": {p: {"type": "string"} for p in properties}, "required": []}
    return ToolSpec(server="s", name=name, description=f"{name} tool", input_schema=schema)


SPECS = {t.name: t for t in [make("load", {"path": 1, "session_id": 1}), make("count", {"session_id": 1}),
                             make("info", {"sessionId": 1, "column": 1})]}


def learned(*answers: dict[str, Any], tool: str = "load") -> MintedIds:
    minted = MintedIds(SPECS)
    for n, answer in enumerate(answers):
        minted.observe(tool, {"path": "${root}/a.csv", "session_id": "example"}, answer, f"p{n}")
    return minted


class TestLearning:
    def test_ids_that_differ_between_calls_are_minted(self) -> None:
        """The same call answering two values where other tools take an argument of that name: the tool mints it."""
        minted = learned({"session_id": "a1"}, {"session_id": "b2"})
        assert [(m.tool, m.path) for m in minted.minters("session_id")] == [("load", "session_id")]
        assert [m.tool for m in minted.minters("sessionId")] == ["load"]  # the same words, another spelling

    def test_an_id_drawn_at_random_is_minted_at_its_first_sighting(self) -> None:
        """``Ave513wLxeFC`` or a UUID can be in no snapshot: one answer shows the tool made it; a counter such as
        ``task-9`` needs a second, different one."""
        assert [m.tool for m in learned({"session_id": "Ave513wLxeFC"}).minters("session_id")] == ["load"]
        assert learned({"session_id": "550e8400-e29b-41d4-a716-446655440000"}).minters("session_id")
        assert learned({"session_id": "task-9"}).minters("session_id") == []

    def test_nested_ids_are_found(self) -> None:
        """An id under a nested key is minted at its dotted path."""
        minted = learned({"data": {"session_id": "83b7-1"}}, {"data": {"session_id": "83b7-2"}})
        assert [m.path for m in minted.minters("session_id")] == ["data.session_id"]

    def test_the_same_value_every_time_is_not_minted(self) -> None:
        """An id the same call answers every time (a counter on a fresh state) is not bound, even when
        other calls answer others."""
        minted = learned({"session_id": "req-1"}, {"session_id": "req-1"})
        minted.observe("load", {"path": "${root}/b.csv"}, {"session_id": "req-2"}, "p9")
        assert minted.minters("session_id") == []

    def test_an_echo_of_the_call_mints_nothing(self) -> None:
        """An answer repeating the call's own argument value is an echo, not a new id."""
        assert learned({"session_id": "example"}, {"session_id": "example"}).minters("session_id") == []


class TestBinding:
    def test_a_consumer_gets_the_minting_call_first(self) -> None:
        """`count(session_id=example)` becomes `load`, then `count` with the id `load` answered, its source noted."""
        minted = learned({"session_id": "a1"}, {"session_id": "b2"})
        steps = minted.bind([ProbeStep(tool="count", arguments={"session_id": "example"}, expect="ok")])
        assert [s.tool for s in steps] == ["load", "count"]
        assert steps[0].arguments == {"path": "${root}/a.csv", "session_id": "example"}
        assert steps[1].arguments == {"session_id": "${step0.session_id}"}
        assert [(h.tool, h.value) for h in steps[1].harvested] == [("load", "${step0.session_id}")]

    def test_steps_pointing_back_move_with_the_chain(self) -> None:
        """Indices of earlier steps (observes, compares…) shift by the inserted call."""
        minted = learned({"session_id": "a1"}, {"session_id": "b2"})
        steps = minted.bind([ProbeStep(tool="count", arguments={"session_id": "x"}),
                             ProbeStep(tool="count", arguments={"session_id": "x"}, compares=0)])
        assert steps[2].compares == 1 and steps[2].arguments == {"session_id": "${step0.session_id}"}

    def test_references_to_earlier_answers_move_with_the_chain(self) -> None:
        """A step already taking an earlier step's answer (`${step0...}`) points to that step once a call is put first."""
        minted = learned({"session_id": "a1"}, {"session_id": "b2"})
        steps = minted.bind([ProbeStep(tool="count", arguments={"session_id": "x"}),
                             ProbeStep(tool="info", arguments={"sessionId": "x", "column": "${step0.rows}"})])
        assert steps[2].arguments["column"] == "${step1.rows}"

    def test_a_reference_copied_from_another_chain_is_left_alone(self) -> None:
        """A failed call copied out of its run keeps `${step0...}`: with the minting call put first, it names that call."""
        minted = learned({"session_id": "a1"}, {"session_id": "b2"})
        steps = minted.bind([ProbeStep(tool="count", arguments={"session_id": "${step0.session_id}"}, expect="error"),
                             ProbeStep(tool="count", arguments={"session_id": "x"}, retry_of=0)])
        assert [s.tool for s in steps] == ["load", "count", "count"]
        assert steps[1].arguments == steps[2].arguments == {"session_id": "${step0.session_id}"}

    def test_a_minting_call_in_the_chain_is_used(self) -> None:
        """When the chain already calls the minting tool, the consumer takes that call's answer."""
        minted = learned({"session_id": "a1"}, {"session_id": "b2"})
        steps = minted.bind([ProbeStep(tool="load", arguments={"path": "x"}),
                             ProbeStep(tool="info", arguments={"sessionId": "x", "column": "c"})])
        assert [s.tool for s in steps] == ["load", "info"]
        assert steps[1].arguments["sessionId"] == "${step0.session_id}"

    def test_a_misuse_of_the_id_itself_is_left_alone(self) -> None:
        """A boundary probe that breaks the id keeps its broken value, and the minting tool's own argument is never bound."""
        minted = learned({"session_id": "a1"}, {"session_id": "b2"})
        broken = ProbeStep(tool="count", arguments={"session_id": ""}, mutation="empty_value",
                           condition="`session_id` is an empty string")
        assert minted.bind([broken]) == [broken]
        own = ProbeStep(tool="load", arguments={"path": "x", "session_id": "mine"})
        assert minted.bind([own]) == [own]


def wrapped(name: str, fields: dict[str, Any], required: list[str]) -> ToolSpec:
    """A tool whose arguments all sit under one ``params`` object, described in ``$defs``."""
    model = f"{name.title()}Input"
    schema = {"type": "object", "properties": {"params": {"$ref": f"#/$defs/{model}"}}, "required": ["params"],
              "$defs": {model: {"type": "object", "properties": fields, "required": required}}}
    return ToolSpec(server="s", name=name, description=f"{name} tool", input_schema=schema)


class TestArgumentsUnderOneObject:
    SPECS = {t.name: t for t in [
        wrapped("run", {"code": {"type": "string"}, "session_id": {"type": ["string", "null"], "maxLength": 20}},
                ["code"]),
        wrapped("peek", {"session_id": {"type": "string", "maxLength": 20}, "var_name": {"type": "string"}},
                ["session_id", "var_name"]),
    ]}

    def test_a_field_of_the_one_object_argument_takes_the_minted_id(self) -> None:
        """`peek(params={session_id, var_name})` is planned after `run`, its `params.session_id` bound to the id
        `run` answered; the other fields are kept."""
        minted = MintedIds(self.SPECS)
        for n, answer in enumerate(({"status": "ok", "session_id": "a1b2c3"}, {"status": "ok", "session_id": "d4e5f6"})):
            minted.observe("run", {"params": {"code": "x = 1"}}, answer, f"p{n}")
        steps = minted.bind([ProbeStep(tool="peek", arguments={"params": {"session_id": "sample", "var_name": "x"}})])
        assert [s.tool for s in steps] == ["run", "peek"]
        assert steps[1].arguments == {"params": {"session_id": "${step0.session_id}", "var_name": "x"}}

    def test_a_misuse_of_the_field_itself_is_left_alone(self) -> None:
        """A probe that breaks `params.session_id` (an id past its 20 characters) keeps its own value."""
        minted = MintedIds(self.SPECS)
        for n, answer in enumerate(({"session_id": "a1b2c3"}, {"session_id": "d4e5f6"})):
            minted.observe("run", {"params": {"code": "x = 1"}}, answer, f"p{n}")
        long = {"params": {"session_id": "s" * 21, "var_name": "x"}}
        step = ProbeStep(tool="peek", arguments=long, mutation="oversized_value",
                         condition="`params.session_id` is 21 characters long")
        assert minted.bind([step]) == [step]
