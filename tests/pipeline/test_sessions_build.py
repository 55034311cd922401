"""A build of a server that mints session ids in memory, lists their columns, takes items of no stated
shape and states limits in its descriptions.

The real :mod:`toolatlas.testing.servers.sessions` server over stdio; one build for the module
(bootstrap + 2 rounds: an item field learnt in the first is used in the second), one boundary and one
affordance probe per tool a round: each behaviour below needs one probe of its kind, and the server,
which holds its sessions in memory, is restarted after most probes. Each seed task runs twice, not the
method's four times: the behaviours below need a second run of a seed task (with one, the session's own
boundaries and the fields of open items are not reached), not a third or a fourth. Two executors share
the probes, so that two restarts overlap; the atlas is the one executor's (tests/pipeline/test_resume.py,
TestDeterminism).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from small_builds import server_entries

from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind
from toolatlas.testing.opaque import sessions_catalogue

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    folder: Path = tmp_path_factory.mktemp("sessions")
    return server_entries(folder, sessions_catalogue(folder, rounds=3), "sessions",
                          boundary_probes_per_tool=1, affordance_probes_per_tool=1, executors_per_server=2,
                          rollouts_per_task=2)


class TestMintedSessions:
    def test_a_consumer_is_verified_on_the_minted_session(self, entries: list[Entry]) -> None:
        """`count_rows` has a verified use on the session `open_table` minted just before, in the same run."""
        uses = [e for e in entries if e.tool == "count_rows" and e.kind is EntryKind.AFFORDANCE
                and e.signature.startswith("uses:")]
        assert uses and uses[0].evidence[0].prefix[0]["tool"] == "open_table"
        assert uses[0].example_arguments == {"session_id": "${step0.session_id}"}
        assert '"rows": 3' in uses[0].evidence[0].excerpt

    def test_the_minting_tool_feeds_the_consumer(self, entries: list[Entry]) -> None:
        """A data composition `open_table` → `count_rows` is recorded."""
        assert any(e.kind is EntryKind.CO_USAGE and e.tool == "open_table" and e.peer == "count_rows"
                   and e.relation is CoUsageRelation.DATA for e in entries)

    def test_a_made_up_session_needs_the_minting_tool_first(self, entries: list[Entry]) -> None:
        """The failure with a made-up session is stated as needing `open_table` first, its peer."""
        unknown = [e for e in entries if e.tool == "count_rows" and e.kind is EntryKind.BOUNDARY
                   and "Session not found" in e.signature and e.family is None]
        assert unknown and unknown[0].peer == "open_table" and "open_table" in (unknown[0].condition or "")

    def test_a_session_unlocks_the_consumers_own_boundaries(self, entries: list[Entry]) -> None:
        """On a real session, `column_values` meets its own failure: a column the table lacks."""
        assert any(e.tool == "column_values" and e.kind is EntryKind.BOUNDARY
                   and any("Column '" in ev.excerpt and "' not found" in ev.excerpt for ev in e.evidence)
                   for e in entries)


class TestListedNames:
    def test_a_column_the_minting_call_listed_is_verified(self, entries: list[Entry]) -> None:
        """`column_values` works on a column `open_table` answered, taken from that answer in the same run."""
        uses = [e for e in entries if e.tool == "column_values" and e.kind is EntryKind.AFFORDANCE
                and e.signature.startswith("uses:")]
        assert uses and str(uses[0].example_arguments["column"]).startswith("${step0.columns.")
        assert '"success": true' in uses[0].evidence[0].excerpt.replace('":true', '": true')

    def test_an_array_of_listed_columns_is_verified(self, entries: list[Entry]) -> None:
        """`pick_columns` works on columns `open_table` answered."""
        uses = [e for e in entries if e.tool == "pick_columns" and e.kind is EntryKind.AFFORDANCE
                and e.signature.startswith("uses:")]
        assert uses and all(str(c).startswith("${step0.columns.") for c in uses[0].example_arguments["columns"])


class TestStatedLimits:
    def test_two_statements_meet_the_single_statement_rule(self, entries: list[Entry]) -> None:
        """`A single SQL statement` is probed with two: the server's refusal is recorded."""
        assert any(e.tool == "query" and e.kind is EntryKind.BOUNDARY and e.family == "past_stated_limit"
                   and "only a single SQL statement" in e.signature for e in entries)

    def test_a_result_past_the_row_cap_is_recorded_as_cut(self, entries: list[Entry]) -> None:
        """`capped at 5 rows` is probed with a query of 6 rows: the answer, cut to 5, is a verified tolerated call."""
        past = [e for e in entries if e.tool == "query" and e.kind is EntryKind.AFFORDANCE
                and e.family == "past_stated_limit"]
        assert past and "truncated to 5 rows" in past[0].evidence[0].excerpt


class TestItemFields:
    def test_the_fields_of_open_items_are_learnt_from_errors(self, entries: list[Entry]) -> None:
        """The field of `rules` items (none in the schema) is learnt from `Column None …`: a rule with a
        column `open_table` listed is a verified use."""
        rules = [ev.arguments["rules"] for e in entries if e.tool == "match_rows" and e.kind is EntryKind.AFFORDANCE
                 and e.signature.startswith("uses:") for ev in e.evidence if ev.arguments.get("rules")]
        assert rules, "no verified call with a rule"
        assert set(rules[0][0]) == {"column"} and str(rules[0][0]["column"]).startswith("${step0.columns.")

    def test_an_item_without_fields_is_a_recorded_boundary(self, entries: list[Entry]) -> None:
        """The item with no field at all meets the server's refusal, kept as a boundary."""
        assert any(e.tool == "match_rows" and e.kind is EntryKind.BOUNDARY and "Column None" in e.signature
                   for e in entries)
