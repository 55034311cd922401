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
