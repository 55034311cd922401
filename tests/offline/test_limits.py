"""Limits a description states, read from its words, and the calls just past them."""

from __future__ import annotations

import random
from typing import Any

import pytest

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.limits import StatedCap, stated_cap, states_single_statement
from toolatlas.offline.mutations import boundary_mutations
from toolatlas.offline.values import ValueSynth


def tool(description: str, properties: dict[str, Any]) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return ToolSpec(server="s", name="run_query", description=description, input_schema=schema)


def past_limit(spec: ToolSpec, arguments: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
    found = boundary_mutations(spec, infer_arguments(spec), arguments, synth, cap=64)
    return [(m.arguments, m.condition) for m in found if m.name.value == "past_stated_limit"]


class TestStatedWords:
    @pytest.mark.parametrize(("text", "cap"), [
        ("Results are capped at 25 rows.", StatedCap(25, "rows")),
        ("Returns at most 10 items", StatedCap(10, "items")),
        ("up to 50 results per page", StatedCap(50, "results")),
        ("Returns all rows.", None),
        ("Wait up to 30 seconds", None),
    ])
    def test_a_cap_is_a_number_of_things(self, text: str, cap: StatedCap | None) -> None:
        """A cap names a number of rows, items, results… (not of seconds)."""
        assert stated_cap(text) == cap

    @pytest.mark.parametrize(("text", "single"), [
        ("A single SQL statement", True),
        ("Run one statement per call.", True),
        ("one query", True),
        ("One or more statements separated by semicolons", False),
        ("A SQL statement", False),
    ])
    def test_a_single_statement_is_stated(self, text: str, single: bool) -> None:
        """`single`/`one` statement is a limit; `one or more` is not."""
        assert states_single_statement(text) is single


class TestCallsPastTheLimit:
    def test_two_statements_where_one_is_said(self) -> None:
        """An SQL argument described as a single statement is probed with the valid one twice."""
        spec = tool("Run a query.", {"sql": {"type": "string", "description": "A single SQL statement"}})
        found = past_limit(spec, {"sql": "SELECT 1;"})
        assert ({"sql": "SELECT 1; SELECT 1"}, "`sql` holds two statements joined by `;` where the description says a single one") in found

    def test_one_row_more_than_the_cap(self) -> None:
        """A tool capping results at N rows is asked for N + 1 (no table known: a counting query)."""
        spec = tool("Run a SELECT. Results are capped at 25 rows.", {"sql": {"type": "string", "description": "SQL query"}})
        found = past_limit(spec, {"sql": "SELECT 1"})
        assert len(found) == 1 and "i < 26" in found[0][0]["sql"] and "26 rows" in found[0][1]

    def test_one_item_more_than_the_cap(self) -> None:
        """An array described as at most N items gets N + 1, the valid items repeated."""
        spec = tool("Tag notes.", {"tags": {"type": "array", "items": {"type": "string"},
                                            "description": "At most 3 items."}})
        found = past_limit(spec, {"tags": ["a", "b"]})
        assert found == [({"tags": ["a", "b", "a", "b"]}, "`tags` has 4 items, one more than the 3 its description allows")]

    def test_two_records_where_one_is_said(self) -> None:
        """A text argument described as one record, given a record under a header line, is probed with two of them;
        a value with no header (raw letters, which a line break only continues) is not — two lines of it are one."""
        spec = tool("Summarize a sequence.", {"sequence": {
            "type": "string", "description": "Raw nucleotide sequence or one FASTA record; IUPAC codes accepted."}})
        found = past_limit(spec, {"sequence": ">primer_fwd\nATGGTGAGCAAG"})
        assert found == [({"sequence": ">primer_fwd\nATGGTGAGCAAG\n>primer_fwd\nATGGTGAGCAAG"},
                          "`sequence` holds two records, one after the other, where its description says one")]
        assert past_limit(spec, {"sequence": "ATGGTGAGCAAG"}) == []
        many = tool("Summarize sequences.", {"sequence": {"type": "string", "description": "One record per line."}})
        assert past_limit(many, {"sequence": ">primer_fwd\nATGGTGAGCAAG"}) == []

    def test_nothing_stated_nothing_probed(self) -> None:
        """Without a stated limit there is no such call."""
        assert past_limit(tool("Run a query.", {"sql": {"type": "string", "description": "SQL"}}), {"sql": "SELECT 1"}) == []
