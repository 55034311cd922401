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
