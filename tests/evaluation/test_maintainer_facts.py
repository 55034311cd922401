"""Maintainer facts and their matcher: a fact is recalled only by an entry that shows what it states."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from pydantic import ValidationError

from toolatlas.config import load_catalogue
from toolatlas.errors import ConfigError
from toolatlas.evaluation.facts import Fact, FactSet, load_facts, matches, recall_facts
from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind, EntryStatus, Evidence
from toolatlas.models import Effect, OutcomeClass

REPO = Path(__file__).resolve().parents[2]
FACTS = REPO / "benchmarks" / "facts"


def entry(kind: EntryKind, tool: str, *, evidence: list[Evidence] = (), **fields) -> Entry:
    return Entry(
        id=f"{kind.value}-{tool}",
        kind=kind,
        server="taskmanager",
        tool=tool,
        schema_hash="0" * 16,
        signature="s",
        text=fields.pop("text", "an entry"),
        evidence=list(evidence),
        **fields,
    )


def call(tool: str, excerpt: str, outcome: OutcomeClass = OutcomeClass.OK, **arguments) -> Evidence:
    return Evidence(probe_id="p1", tool=tool, arguments=arguments, outcome=outcome, excerpt=excerpt)


def fact(kind: str, tools: list[str], **match) -> Fact:
    return Fact(id="f", kind=kind, tools=tools, statement="s", source="x.js:1", match=match)


APPROVE = fact("boundary", ["approve_task_completion"], error="Task not done yet")
NOT_DONE = '{"status": "error", "message": "Task not done yet."}'


class TestBoundaryFacts:
    def test_the_entry_with_the_error_recalls_it(self):
        """A boundary on the tool whose error signature carries the fact's message recalls the fact."""
        hit = entry(EntryKind.BOUNDARY, "approve_task_completion", error_signature=NOT_DONE)
        assert matches(APPROVE, hit)

    def test_the_error_may_be_only_in_the_evidence(self):
        """The server's verbatim message in an evidence excerpt counts as well as the normalised signature."""
        hit = entry(
            EntryKind.BOUNDARY,
            "approve_task_completion",
            error_signature="<s>",
            evidence=[call("approve_task_completion", NOT_DONE, OutcomeClass.OK)],
        )
        assert matches(APPROVE, hit)

    def test_another_error_on_the_same_tool_does_not(self):
        """A schema-validation boundary of the same tool is a near miss: its error is not the fact's."""
        near = entry(
            EntryKind.BOUNDARY, "approve_task_completion", error_signature="Error: Invalid arguments: ["
        )
        assert not matches(APPROVE, near)

    def test_the_same_error_on_another_tool_or_kind_does_not(self):
        """The message on another tool, or recorded as an affordance, is not the fact."""
        assert not matches(APPROVE, entry(EntryKind.BOUNDARY, "mark_task_done", error_signature=NOT_DONE))
        assert not matches(
            APPROVE,
            entry(
                EntryKind.AFFORDANCE,
                "approve_task_completion",
                evidence=[call("approve_task_completion", NOT_DONE)],
            ),
        )

    def test_a_stale_entry_does_not(self):
        """Only active entries are served, so only they recall facts."""
        stale = entry(
            EntryKind.BOUNDARY, "approve_task_completion", error_signature=NOT_DONE, status=EntryStatus.STALE
        )
        assert not matches(APPROVE, stale)
        [outcome] = recall_facts([FactSet(server="taskmanager", package="p", facts=[APPROVE])], [stale])
        assert not outcome.recalled and "stale" in outcome.reason

    def test_a_summarised_schema_violation_does_and_is_marked(self):
        """A schema-only boundary the tool's schema summary stands for is in the atlas with its own evidence: it
        recalls the fact, marked as recalled through the summary; an active entry of the same fact is preferred."""
        schema_fact = fact("boundary", ["log_attempt"], error="Extra inputs are not permitted")
        member = entry(EntryKind.BOUNDARY, "log_attempt", status=EntryStatus.SUMMARISED, family="extra_argument",
                       error_signature="<n> validation error for log_attemptArguments: params.x: Extra inputs are "
                                       "not permitted")
        facts = [FactSet(server="taskmanager", package="p", facts=[schema_fact])]
        [outcome] = recall_facts(facts, [member])
        assert outcome.recalled and outcome.summarised and outcome.entry == member.id
        served = member.model_copy(update={"id": "served", "status": EntryStatus.ACTIVE, "family": None})
        [outcome] = recall_facts(facts, [member, served])
        assert outcome.recalled and not outcome.summarised and outcome.entry == "served"

    def test_reported_as_success_is_checked_when_the_fact_says(self):
        """A fact that the error hides in a successful result needs an entry that saw it so."""
        hidden = fact(
            "boundary", ["approve_task_completion"], error="Task not done yet", reported_as_success=True
        )
        as_error = entry(EntryKind.BOUNDARY, "approve_task_completion", error_signature=NOT_DONE)
        assert not matches(hidden, as_error)
        assert matches(hidden, as_error.model_copy(update={"reported_as_success": True}))


class TestAffordanceFacts:
    CARET = fact("affordance", ["calculate"], arguments={"expression": r"\^"}, output=r"^\s*\d+\s*$")

    def test_one_call_must_show_every_evidence_field(self):
        """The arguments and the output must come from the same evidence call."""
        split = entry(
            EntryKind.AFFORDANCE,
            "calculate",
            evidence=[
                call("calculate", "Unknown identifier", expression="2^x"),
                call("calculate", "5", expression="2 + 3"),
            ],
        )
        joined = entry(
            EntryKind.AFFORDANCE, "calculate", evidence=[call("calculate", "1024", expression="2^10")]
        )
        assert not matches(self.CARET, split)
        assert matches(self.CARET, joined)

    def test_a_failed_call_proves_no_valid_use(self):
        """An affordance whose evidence call ended in a tool error does not recall a valid use."""
        failed = entry(
            EntryKind.AFFORDANCE,
            "calculate",
            evidence=[call("calculate", "1024", OutcomeClass.TOOL_ERROR, expression="2^10")],
        )
        assert not matches(self.CARET, failed)

    def test_effect_is_checked(self):
        """A fact about a write needs the entry to have seen the state change."""
        write = fact("affordance", ["execute_query"], output=r"Success: \d+ rows affected", effect="mutating")
        seen = [call("execute_query", "Success: 1 rows affected", query="INSERT ...")]
        assert matches(
            write, entry(EntryKind.AFFORDANCE, "execute_query", evidence=seen, effect=Effect.MUTATING)
        )
        assert not matches(
            write, entry(EntryKind.AFFORDANCE, "execute_query", evidence=seen, effect=Effect.READ_ONLY)
        )

    def test_non_string_arguments_are_matched_as_json(self):
        """A list or number argument is matched against its JSON text."""
        batch = fact("affordance", ["calendar"], arguments={"ops": r"\}, \{"})
        two = entry(
            EntryKind.AFFORDANCE,
            "calendar",
            evidence=[call("calendar", "Friday", ops=[{"op": "weekday"}, {"op": "add"}])],
        )
        one = entry(
            EntryKind.AFFORDANCE, "calendar", evidence=[call("calendar", "Friday", ops=[{"op": "weekday"}])]
        )
        assert matches(batch, two) and not matches(batch, one)


class TestCompositionFacts:
    MARK_THEN_APPROVE = fact("co_usage", ["mark_task_done"], peer="approve_task_completion", relation="state")

    def test_the_pair_is_matched_in_either_direction(self):
        """A state edge may sit on the tool that needs the state: the pair and relation are what count."""
        forward = entry(
            EntryKind.CO_USAGE,
            "mark_task_done",
            peer="approve_task_completion",
            relation=CoUsageRelation.STATE,
        )
        backward = entry(
            EntryKind.CO_USAGE,
            "approve_task_completion",
            peer="mark_task_done",
            relation=CoUsageRelation.STATE,
        )
        assert matches(self.MARK_THEN_APPROVE, forward) and matches(self.MARK_THEN_APPROVE, backward)

    def test_another_relation_or_peer_does_not(self):
        """A retry of the tool with itself, or a data edge of the same pair, is not the state dependency."""
        retry = entry(
            EntryKind.CO_USAGE, "mark_task_done", peer="mark_task_done", relation=CoUsageRelation.RETRY
        )
        data = entry(
            EntryKind.CO_USAGE,
            "mark_task_done",
            peer="approve_task_completion",
            relation=CoUsageRelation.DATA,
        )
        assert not matches(self.MARK_THEN_APPROVE, retry) and not matches(self.MARK_THEN_APPROVE, data)


class TestStrictness:
    @pytest.mark.parametrize(
        "kind,match",
        [
            ("boundary", {}),
            ("boundary", {"reported_as_success": True}),
            ("affordance", {}),
            ("affordance", {"effect": "read_only"}),
            ("co_usage", {"peer": "read_graph"}),
            ("boundary", {"error": "x", "peer": "y", "relation": "data"}),
        ],
    )
    def test_generic_matchers_are_rejected(self, kind, match):
        """A matcher any entry of the tool would satisfy is refused when the fact is made."""
        with pytest.raises(ValidationError):
            fact(kind, ["t"], **match)

    def test_a_bad_regex_is_rejected(self):
        with pytest.raises(ValidationError):
            fact("boundary", ["t"], error="(unclosed")

    def test_a_malformed_file_names_the_field(self, tmp_path):
        """load_facts reports the file and the broken field."""
        bad = tmp_path / "x.toml"
        bad.write_text(
            'server = "x"\npackage = "p"\n[[facts]]\nid = "a"\nkind = "boundary"\ntools = ["t"]\n'
            'statement = "s"\nsource = "f:1"\nmatch = {}\n'
        )
        with pytest.raises(ConfigError, match="x.toml.*facts.0"):
            load_facts(bad)


class TestFactData:
    @pytest.mark.parametrize("catalogue", ["wild", "demo", "unseen", "heldout", "heldout2", "heldout3", "heldout4",
                                           "heldout5", "heldout6", "heldout7", "heldout8", "heldout9",
                                           "heldout10", "heldout11", "heldout12", "heldout13",
                                           "heldout14", "heldout15"])
    def test_every_server_has_three_to_six_sourced_facts(self, catalogue):
        """Each server of the catalogue has a fact file with 3–6 facts, each citing a file and line."""
        sets = load_facts(FACTS / catalogue)
        servers = {s.name for s in load_catalogue(REPO / "configs" / f"{catalogue}.toml").servers}
        assert {s.server for s in sets} == servers
        for fact_set in sets:
            assert 3 <= len(fact_set.facts) <= 6, fact_set.server
            assert all(re.search(r":\d", f.source) for f in fact_set.facts), fact_set.server

    @pytest.mark.parametrize("name", ["wild", "unseen", "heldout", "heldout2", "heldout3", "heldout4", "heldout5",
                                      "heldout6", "heldout7", "heldout8", "heldout9", "heldout10",
                                      "heldout11", "heldout12", "heldout13", "heldout14", "heldout15"])
    def test_packages_are_the_pinned_ones(self, name):
        """A fact file names the exact package version the catalogue pins (the facts were read there)."""
        catalogue = tomllib.loads((REPO / "configs" / f"{name}.toml").read_text())
        pinned = {s["name"]: (s["runtime"]["package"], s["runtime"]["version"]) for s in catalogue["servers"]}
        for fact_set in load_facts(FACTS / name):
            package, version = pinned[fact_set.server]
            assert fact_set.package in (f"{package}=={version}", f"{package}@{version}")
