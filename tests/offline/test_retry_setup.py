"""A retry makes first what its failing call was made after: a duplicate create repeats the create it
follows, so the retry's failing call meets the thing it duplicates and not a fresh sandbox."""

from __future__ import annotations

import random

from toolatlas.config import ServerSpec
from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.offline.proposer import OfflineProposer
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict

QUERY = {"query": "CREATE TABLE probe_30a1 (id INTEGER PRIMARY KEY, label TEXT)"}
EXISTS = "Database error: table probe_30a1 already exists"


def duplicate_create(inducer: Inducer) -> None:
    """The build's duplicate-create probe: the create, then the same create, answered with an error."""
    steps = [ProbeStep(tool="create_table", arguments=QUERY, expect="ok"),
             ProbeStep(tool="create_table", arguments=QUERY, expect="any", mutation="duplicate_create",
                       condition="the thing to create already exists (created just before)")]
    probe = Probe(id="p1", server="sqlite", round=1, direction=Direction.BOUNDARY, target="create_table", task="t",
                  steps=steps)
    answers = ["Table created successfully", EXISTS]
    results = [StepResult(index=i, outcome=CallOutcome(server="sqlite", tool="create_table", arguments=QUERY,
                                                       outcome=OutcomeClass.OK, excerpt=a)) for i, a in enumerate(answers)]
    verdicts = [StepVerdict(index=0, tool="create_table", outcome=OutcomeClass.OK, failed=False),
                StepVerdict(index=1, tool="create_table", outcome=OutcomeClass.OK, failed=True, reported_as_success=True,
                            error_text=EXISTS)]
    inducer.induce(Rollout(probe=probe, steps=results), Verdict(probe_id="p1", server="sqlite", resolved=False, steps=verdicts))


def test_a_retry_repeats_the_calls_its_failing_call_followed(demo_tools) -> None:  # type: ignore[no-untyped-def]
    graph = ServerGraph("sqlite", demo_tools.all("sqlite"))
    duplicate_create(Inducer(graph))
    [boundary] = [e for e in graph.entries_of("create_table", EntryKind.BOUNDARY) if e.family == "duplicate_create"]
    assert boundary.evidence[0].prefix == [{"tool": "create_table", "arguments": QUERY}]
    proposer = OfflineProposer(graph, None, ServerSpec(name="sqlite", transport={"command": "x"}), random.Random(0))
    [retry] = [p for p in proposer.candidates(2, ["create_table"])["create_table"]
               if f"create_table:retry:{boundary.id}" in p.coverage_keys]
    setup, failing, fixed = retry.steps
    assert setup.arguments == failing.arguments == QUERY and setup.expect == "ok"
    assert failing.mutation == "duplicate_create" and failing.expect == "error"
    assert fixed.retry_of == 1 and fixed.expect == "ok"


def test_a_change_verified_after_its_setup_is_made_again_after_it(demo_tools) -> None:  # type: ignore[no-untyped-def]
    """A write that changed the state, verified after a create, is planned again right after itself, behind the same
    create: a change made twice is refused ("already …") or changes nothing, and the setup gives it what to change."""
    graph = ServerGraph("sqlite", demo_tools.all("sqlite"))
    write = {"query": "UPDATE probe_30a1 SET label = 'closed' WHERE id = 1"}
    steps = [ProbeStep(tool="create_table", arguments=QUERY, expect="ok"),
             ProbeStep(tool="write_query", arguments=write, expect="ok")]
    probe = Probe(id="p2", server="sqlite", round=1, direction=Direction.AFFORDANCE, target="write_query", task="t",
                  steps=steps)
    results = [StepResult(index=i, outcome=CallOutcome(server="sqlite", tool=s.tool, arguments=s.arguments,
                                                       outcome=OutcomeClass.OK, excerpt=a))
               for i, (s, a) in enumerate(zip(steps, ["Table created successfully", "1 row affected"], strict=True))]
    from toolatlas.environments.base import StateDiff

    verdicts = [StepVerdict(index=0, tool="create_table", outcome=OutcomeClass.OK, failed=False),
                StepVerdict(index=1, tool="write_query", outcome=OutcomeClass.OK, failed=False,
                            change=StateDiff(changed=["probe_30a1#1"]))]
    Inducer(graph).induce(Rollout(probe=probe, steps=results), Verdict(probe_id="p2", server="sqlite", resolved=True,
                                                                       steps=verdicts))
    proposer = OfflineProposer(graph, None, ServerSpec(name="sqlite", transport={"command": "x"}), random.Random(0))
    [again] = [p for p in proposer.candidates(2, ["write_query"])["write_query"]
               if "write_query:mut:repeated_change" in p.coverage_keys]
    setup, first, second = again.steps
    assert setup.tool == "create_table" and setup.arguments == QUERY
    assert first.arguments == second.arguments == write and first.expect == "ok"
    assert second.mutation == "repeated_change" and second.condition == "the same change was made just before"
    assert not [p for p in proposer.candidates(2, ["read_query"])["read_query"]
                if "read_query:mut:repeated_change" in p.coverage_keys]  # a read is never a change made twice
