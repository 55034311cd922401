"""A validator's negative verdict is a boundary of its own kind: quoted in the answer's words, one entry for the same
verdict met with other values."""

from __future__ import annotations

from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.hidden import hidden_failure
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict

VALIDATE = ToolSpec(server="s", name="validate_ip_in_subnet", description="Validate that an address is in a network.",
                    input_schema={"type": "object", "required": ["ip_address", "network"],
                                  "properties": {"ip_address": {"type": "string"}, "network": {"type": "string"}}})


def judge(inducer: Inducer, ip: str, network: str, n: int, direction: Direction = Direction.AFFORDANCE) -> None:
    arguments = {"ip_address": ip, "network": network}
    answer = f'{{\n  "ip_address": "{ip}",\n  "network": "{network}",\n  "is_valid": false\n}}'
    outcome = CallOutcome(server="s", tool=VALIDATE.name, arguments=arguments, outcome=OutcomeClass.OK, excerpt=answer)
    reason = hidden_failure(outcome, VALIDATE, mutation=None, changed=None, arguments=arguments)
    assert reason is not None
    step = ProbeStep(tool=VALIDATE.name, arguments=arguments, expect="ok")
    probe = Probe(id=f"p{n}", server="s", round=1, direction=direction, target=VALIDATE.name, task="t", steps=[step])
    verdict = StepVerdict(index=0, tool=VALIDATE.name, outcome=OutcomeClass.OK, failed=True, reported_as_success=True,
                          hidden_failure=reason)
    inducer.induce(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                   Verdict(probe_id=probe.id, server="s", resolved=False, steps=[verdict]))


def test_the_same_negative_verdict_on_other_values_is_one_entry_quoted_in_its_words() -> None:
    graph = ServerGraph("s", [VALIDATE])
    inducer = Inducer(graph)
    judge(inducer, "8.8.8.8", "172.16.0.0/12", 1)
    judge(inducer, "10.0.0.1", "192.168.0.0/16", 2)
    [entry] = graph.entries_of(VALIDATE.name, EntryKind.BOUNDARY)
    assert entry.reported_as_success and entry.support == 2
    assert entry.text.startswith("`validate_ip_in_subnet` gives a negative verdict when called with")
    assert entry.text.endswith('“"is_valid": false”.') and '"is_valid": false' in entry.evidence[0].excerpt


def test_a_verdict_met_by_a_planned_misuse_joins_the_same_verdict() -> None:
    """The verdict of a call with a string for a boolean is the verdict the plain call met: one entry, whose condition
    names the call's values (the verdict names none of them)."""
    graph = ServerGraph("s", [VALIDATE])
    inducer = Inducer(graph)
    judge(inducer, "8.8.8.8", "172.16.0.0/12", 1)
    arguments = {"ip_address": "8.8.8.8", "network": "172.16.0.0/12", "return_gateway": "yes"}
    answer = '{\n  "ip_address": "8.8.8.8",\n  "is_valid": false\n}'
    outcome = CallOutcome(server="s", tool=VALIDATE.name, arguments=arguments, outcome=OutcomeClass.OK, excerpt=answer)
    step = ProbeStep(tool=VALIDATE.name, arguments=arguments, expect="any", mutation="wrong_type",
                     condition="`return_gateway` is a string instead of a boolean")
    probe = Probe(id="p9", server="s", round=1, direction=Direction.BOUNDARY, target=VALIDATE.name, task="t", steps=[step])
    reason = hidden_failure(outcome, VALIDATE, mutation="wrong_type", changed=None, arguments=arguments)
    verdict = StepVerdict(index=0, tool=VALIDATE.name, outcome=OutcomeClass.OK, failed=True, reported_as_success=True,
                          hidden_failure=reason or "")
    inducer.induce(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                   Verdict(probe_id=probe.id, server="s", resolved=False, steps=[verdict]))
    [entry] = graph.entries_of(VALIDATE.name, EntryKind.BOUNDARY)
    assert entry.support == 2
    assert entry.condition == "called with `ip_address` = \"8.8.8.8\", `network` = \"172.16.0.0/12\""


def test_a_trace_tip_quotes_the_verdict_the_entry_quotes() -> None:
    """The tip a run leaves says the tool can say no, in the words its boundary quotes (a tip quoting the answer's
    first fields would quote what no served entry says)."""
    graph = ServerGraph("s", [VALIDATE])
    judge(Inducer(graph), "8.8.8.8", "172.16.0.0/12", 1, Direction.SEED)
    tips = [tip for trace in graph.traces.values() for tip in trace.tips]
    assert tips == ['`validate_ip_in_subnet` can say no here (“"is_valid": false”): read its verdict, not only its '
                    'success.']
