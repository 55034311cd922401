"""A planned misuse refused for another argument keeps no condition it did not show."""

from __future__ import annotations

from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict

PLAN = ToolSpec(server="s", name="calculate_subnet", description="Plan a subnet.", input_schema={
    "type": "object", "required": ["network_base", "hosts_needed"],
    "properties": {"network_base": {"type": "string"}, "hosts_needed": {"type": "integer"}}})
REFUSED = ("Error executing tool calculate_subnet: 2 validation errors for SubnetCalculationRequest\nnetwork_base\n"
           "  Input is not a valid IPv4 address [type=ip_v4_address, input_value='192.168.1.0/24', input_type=str]\n"
           "hosts_needed\n  Input should be greater than or equal to 0 [type=greater_than_equal]")


def refuse(condition: str, arguments: dict) -> str:
    graph = ServerGraph("s", [PLAN])
    step = ProbeStep(tool=PLAN.name, arguments=arguments, expect="error", mutation="negative_number", condition=condition)
    probe = Probe(id="p1", server="s", round=1, direction=Direction.BOUNDARY, target=PLAN.name, task="t", steps=[step])
    outcome = CallOutcome(server="s", tool=PLAN.name, arguments=arguments, outcome=OutcomeClass.TOOL_ERROR,
                          excerpt=REFUSED)
    verdict = StepVerdict(index=0, tool=PLAN.name, outcome=OutcomeClass.TOOL_ERROR, failed=True, error_text=REFUSED)
    Inducer(graph).induce(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                          Verdict(probe_id="p1", server="s", resolved=False, steps=[verdict]))
    [entry] = graph.entries_of(PLAN.name, EntryKind.BOUNDARY)
    return entry.condition or ""


def test_a_misuse_refused_for_another_argument_is_said_by_what_the_error_names() -> None:
    arguments = {"network_base": "192.168.1.0/24", "hosts_needed": -3}
    condition = refuse("`hosts_needed` is negative (-3)", arguments)
    assert condition.startswith("called with `network_base` = \"192.168.1.0/24\"") and "negative" not in condition


def test_a_misuse_the_error_names_keeps_its_condition() -> None:
    condition = refuse("`network_base` has a prefix length over 32", {"network_base": "10.0.0.0/33", "hosts_needed": 3})
    assert condition == "`network_base` has a prefix length over 32"


def test_an_answer_that_reads_as_a_success_keeps_the_misuse_it_was_probed_for() -> None:
    """A linter's answer to SQL that does not parse opens with its `dialect` field: an answer's fields are not an error
    naming another argument, and the planned misuse stays the condition."""
    lint = ToolSpec(server="s", name="lint_sql", description="Lint SQL.", input_schema={
        "type": "object", "required": ["sql", "dialect"],
        "properties": {"sql": {"type": "string"}, "dialect": {"type": "string"}}})
    graph = ServerGraph("s", [lint])
    arguments = {"sql": "SELEC id FROM t", "dialect": "ansi"}
    answer = ('{\n  "dialect": "ansi",\n  "violation_count": 1,\n  "violations": [{"code": "PRS", "description": '
              '"Found unparsable section: \'SELEC id FROM t\'"}]\n}')
    step = ProbeStep(tool="lint_sql", arguments=arguments, expect="error", mutation="sql_syntax_error",
                     condition="`sql` is not valid SQL (misspelled `SELECT`)")
    probe = Probe(id="p1", server="s", round=1, direction=Direction.BOUNDARY, target="lint_sql", task="t", steps=[step])
    outcome = CallOutcome(server="s", tool="lint_sql", arguments=arguments, outcome=OutcomeClass.OK, excerpt=answer)
    verdict = StepVerdict(index=0, tool="lint_sql", outcome=OutcomeClass.OK, failed=True, reported_as_success=True,
                          hidden_failure="it reports the value it could not read as a finding, not as an error")
    Inducer(graph).induce(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                          Verdict(probe_id="p1", server="s", resolved=False, steps=[verdict]))
    [entry] = graph.entries_of("lint_sql", EntryKind.BOUNDARY)
    assert entry.condition == "`sql` is not valid SQL (misspelled `SELECT`)"


def test_a_failure_only_its_misuse_tells_is_not_contradicted_by_the_same_call_made_unknowing() -> None:
    """SQL that does not parse, answered with a finding, failed when the probe knew it sent bad SQL; the same call
    made again without that knowledge reads as a success — neither counts against the other."""
    lint = ToolSpec(server="s", name="lint_sql", description="Lint SQL.", input_schema={
        "type": "object", "required": ["sql"], "properties": {"sql": {"type": "string"}}})
    graph = ServerGraph("s", [lint])
    inducer = Inducer(graph)
    arguments = {"sql": "SELEC id FROM t"}
    answer = '{\n  "violation_count": 1,\n  "violations": [{"description": "Found unparsable section: \'SELEC id FROM t\'"}]\n}'
    outcome = CallOutcome(server="s", tool="lint_sql", arguments=arguments, outcome=OutcomeClass.OK, excerpt=answer)
    for n, (mutation, failed) in enumerate([("sql_syntax_error", True), (None, False)]):
        step = ProbeStep(tool="lint_sql", arguments=arguments, expect="any", mutation=mutation,
                         condition="`sql` is not valid SQL (misspelled `SELECT`)" if mutation else None)
        probe = Probe(id=f"p{n}", server="s", round=1, direction=Direction.BOUNDARY if mutation else Direction.AFFORDANCE,
                      target="lint_sql", task="t", steps=[step])
        verdict = StepVerdict(index=0, tool="lint_sql", outcome=OutcomeClass.OK, failed=failed, reported_as_success=failed,
                              hidden_failure="it reports the value it could not read as a finding, not as an error"
                              if failed else "")
        inducer.induce(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                       Verdict(probe_id=probe.id, server="s", resolved=not failed, steps=[verdict]))
    [boundary] = graph.entries_of("lint_sql", EntryKind.BOUNDARY)
    assert boundary.status.value == "active" and boundary.contradictions == 0
    from toolatlas.graph.consistency import check_consistency

    assert check_consistency(graph.entries.values()).contradictions == []  # the build's own check agrees
