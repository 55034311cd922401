"""What the atlas serves stays true: effects under their pre-state conditions, schema-only boundaries
summarised per tool, and the consistency check that finds contradictions."""

from __future__ import annotations

from toolatlas.environments import StateDiff, StateDigest
from toolatlas.graph.consistency import check_consistency
from toolatlas.graph.families import SCHEMA_SUMMARY, error_shape, is_schema_validation
from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import EffectObservation, Entry, EntryKind, EntryStatus, Evidence
from toolatlas.graph.state import ServerGraph
from toolatlas.models import CallOutcome, Effect, OutcomeClass, ToolSpec
from toolatlas.pipeline.shard import state_references
from toolatlas.probing.conditions import joined, precondition, precondition_parts
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict

WRITE = ToolSpec(server="s", name="write_file", description="Write a file.", input_schema={
    "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"]})
READ = ToolSpec(server="s", name="read_file", description="Read a file.", input_schema={
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})

SNAPSHOT = StateDigest(kind="directory", items={"docs/": "dir", "docs/a.md": "h1"})
WRITTEN = StateDigest(kind="directory", items={**SNAPSHOT.items, "notes.txt": "h2"})


def induce(inducer: Inducer, steps: list[tuple[ProbeStep, OutcomeClass, str, StateDiff, str]], n: int) -> None:
    """Induce one probe whose steps come with (outcome, excerpt, change, precondition)."""
    probe = Probe(id=f"p{n}", server="s", round=1, direction=Direction.REPLAY, target=steps[0][0].tool, task="t",
                  steps=[s for s, *_ in steps])
    results = [StepResult(index=i, outcome=CallOutcome(server="s", tool=s.tool, arguments=s.arguments, outcome=o, excerpt=x))
               for i, (s, o, x, _c, _p) in enumerate(steps)]
    verdicts = [StepVerdict(index=i, tool=s.tool, outcome=o, failed=o is not OutcomeClass.OK,
                            error_text=x if o is not OutcomeClass.OK else "", change=c, precondition=p,
                            effect=Effect.MUTATING if not c.empty else Effect.READ_ONLY)
                for i, (s, o, x, c, p) in enumerate(steps)]
    inducer.induce(Rollout(probe=probe, steps=results), Verdict(probe_id=probe.id, server="s", resolved=True, steps=verdicts))


class TestPrecondition:
    def test_a_target_that_does_not_exist_yet(self) -> None:
        """A path argument naming no item of the pre-state is recorded as naming nothing that exists yet."""
        condition = precondition({"path": "${root}/notes.txt", "content": "hi\nthere"}, SNAPSHOT, None, "write_file", SNAPSHOT)
        assert condition == "`path` names nothing that exists yet"

    def test_a_repeat_on_the_state_the_first_call_made(self) -> None:
        """The same call right after itself names the item the first call made, changed by that call."""
        args = {"path": "${root}/notes.txt", "content": "hi\nthere"}
        condition = precondition(args, WRITTEN, ("write_file", args), "write_file", SNAPSHOT)
        assert condition == "repeating the call just made and `path` names an existing item, changed by an earlier call"

    def test_names_are_masked_into_item_kinds(self) -> None:
        """An object's scalar fields designate one item; its kind is the key with the names masked."""
        graph = StateDigest(kind="json_file", items={"entity:Ada": "1", "relation:Ada>leads>Atlas": "2", "entity:Atlas": "3"})
        relation = {"relations": [{"from": "Ada", "to": "Atlas", "relationType": "leads"}]}
        assert precondition(relation, graph, None, "t") == "`relations` names existing relation:…>…>…"
        assert precondition({"names": ["Ada"]}, graph, None, "t") == "`names` names existing entity:…"

    def test_an_item_holding_the_name_is_said(self) -> None:
        """An item whose value is the argument (a HEAD on that branch) is part of the condition."""
        repo = StateDigest(kind="git", items={"HEAD": "refs/heads/main", "ref:refs/heads/main": "a1", "ref:refs/heads/dev": "b2"})
        assert precondition({"branch": "main"}, repo, None, "t").endswith("already what HEAD holds")
        assert "already" not in precondition({"branch": "dev"}, repo, None, "t")

    def test_no_digest_no_condition(self) -> None:
        """A stateless environment has no pre-state: nothing is claimed about it."""
        assert precondition({"path": "x.txt"}, None, None, "t") == ""


class TestConditionsSpeakOfReferences:
    COMMIT = ToolSpec(server="s", name="commit", description="Record staged changes.", input_schema={
        "type": "object", "properties": {"repo_path": {"type": "string"}, "message": {"type": "string"}},
        "required": ["repo_path", "message"]})

    def test_the_arguments_that_name_state_objects(self) -> None:
        """Paths, branches, entities and tables are references; a message, a SQL text or a glob is not."""
        assert state_references(WRITE) == {"path"}
        assert state_references(self.COMMIT) == {"repo_path"}

    def test_a_served_condition_leaves_out_other_arguments(self) -> None:
        """A call's condition as served speaks of its reference arguments only: "`content` names nothing
        that exists yet" is recorded with the call's verdict but neither in the evidence nor the effect."""
        parts = precondition_parts({"path": "${root}/notes.txt", "content": "a note"}, SNAPSHOT, None, "write_file", SNAPSHOT)
        assert [a for a, _ in parts] == ["content", "path"]
        assert joined(parts, {"path"}) == "`path` names nothing that exists yet"
        graph = ServerGraph("s", [WRITE])
        graph.references = {"write_file": frozenset({"path"})}
        step = ProbeStep(tool="write_file", arguments={"path": "${root}/notes.txt", "content": "a note"})
        probe = Probe(id="p1", server="s", round=1, direction=Direction.SEED, target="write_file", task="t", steps=[step])
        outcome = CallOutcome(server="s", tool="write_file", arguments=step.arguments, outcome=OutcomeClass.OK, excerpt="Wrote")
        verdict = StepVerdict(index=0, tool="write_file", outcome=OutcomeClass.OK, failed=False, effect=Effect.MUTATING,
                              change=StateDiff(added=["notes.txt"]), precondition=joined(parts), precondition_parts=parts)
        Inducer(graph).induce(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                              Verdict(probe_id="p1", server="s", resolved=True, steps=[verdict]))
        [use] = graph.entries_of("write_file", EntryKind.AFFORDANCE)
        assert [o.condition for o in use.effects] == ["`path` names nothing that exists yet"]
        assert use.evidence[0].condition == "`path` names nothing that exists yet" and "`content` names" not in use.text


class TestConditionedEffects:
    def test_two_effects_of_one_use_are_one_entry_with_both_conditions(self) -> None:
        """A write that adds a file, then the same write again that changes nothing, is one affordance
        stating both outcomes with their conditions — never a "changes nothing" entry beside it."""
        graph = ServerGraph("s", [WRITE])
        inducer = Inducer(graph)
        step = ProbeStep(tool="write_file", arguments={"path": "${root}/notes.txt", "content": "hi"})
        absent = "`path` names nothing that exists yet"
        again = "repeating the call just made and `path` names an existing item"
        for n in range(3):
            induce(inducer, [(step, OutcomeClass.OK, "Wrote", StateDiff(added=["notes.txt"]), absent),
                             (step, OutcomeClass.OK, "Wrote", StateDiff(), again)], n)
        uses = graph.entries_of("write_file", EntryKind.AFFORDANCE, served=True)
        assert len(uses) == 1
        entry = uses[0]
        assert {(o.effect, o.condition, o.support) for o in entry.effects} == {
            (Effect.MUTATING, absent, 3), (Effect.READ_ONLY, again, 3)}
        assert entry.effect is Effect.MUTATING
        assert f"changes the environment (added: `path`) when {absent}" in entry.text
        assert f"changes nothing when {again}" in entry.text and "no recorded condition" not in entry.text
        kinds = {(bool(e.state_change), e.condition) for e in entry.evidence}
        assert kinds == {(True, absent), (False, again)}, "each outcome keeps its own evidence"
        assert check_consistency(graph.entries.values()).ok
        assert check_consistency(graph.entries.values()).unconditioned == []

    def test_effects_no_condition_separates_are_said_to_be_unseparated(self) -> None:
        """Two effects seen under the same recorded condition are stated as such and counted unconditioned."""
        graph = ServerGraph("s", [WRITE])
        inducer = Inducer(graph)
        step = ProbeStep(tool="write_file", arguments={"path": "${root}/docs/a.md", "content": "hi"})
        same = "`path` names an existing item"
        induce(inducer, [(step, OutcomeClass.OK, "Wrote", StateDiff(changed=["docs/a.md"]), same)], 1)
        induce(inducer, [(step, OutcomeClass.OK, "Wrote", StateDiff(), same)], 2)
        entry = graph.entries_of("write_file", EntryKind.AFFORDANCE)[0]
        assert "no recorded condition separates these outcomes" in entry.text
        report = check_consistency(graph.entries.values())
        assert report.unconditioned == [entry.id] and report.contradictions == []


class TestSchemaSummary:
    def test_schema_only_boundaries_are_served_as_one_summary(self) -> None:
        """Three schema violations of one tool are served as one summary with the answer's shape, the
        count and examples; the violations stay as its evidence, a real boundary stays served."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        violations = [
            ("wrong_type", {"path": 5}, "`path` is a number instead of a string", "Input validation error: 5 is not of type 'string'"),
            ("null_value", {"path": None}, "`path` is null", "Input validation error: None is not of type 'string'"),
            ("missing_required", {}, "required argument `path` is missing", "Input validation error: 'path' is a required property"),
        ]
        for n, (family, args, condition, error) in enumerate(violations):
            step = ProbeStep(tool="read_file", arguments=args, mutation=family, condition=condition, expect="error")
            induce(inducer, [(step, OutcomeClass.TOOL_ERROR, error, StateDiff(), "")], n)
        step = ProbeStep(tool="read_file", arguments={"path": "/etc/passwd"}, mutation="path_escape",
                         condition="`path` is outside the root", expect="error")
        induce(inducer, [(step, OutcomeClass.TOOL_ERROR, "Access denied", StateDiff(), "")], 9)
        served = graph.entries_of("read_file", EntryKind.BOUNDARY, served=True)
        assert sorted(e.family for e in served) == ["path_escape", SCHEMA_SUMMARY]
        explored = graph.entries_of("read_file", EntryKind.BOUNDARY)
        assert sorted(e.family for e in explored) == ["missing_required", "null_value", "path_escape", "wrong_type"], \
            "exploration still sees each violation"
        summary = next(e for e in served if e.family == SCHEMA_SUMMARY)
        assert summary.text.startswith("`read_file` validates its arguments against its input schema; a violation "
                                       "answers with tool_error “Input validation error: …” (3 violation(s) tried")
        assert "`path` is null" in summary.text and is_schema_validation(summary)
        kept = [e for e in graph.entries_of("read_file", EntryKind.BOUNDARY, active_only=False)
                if e.status is EntryStatus.SUMMARISED]
        assert sorted(summary.summarises) == sorted(e.id for e in kept) and len(kept) == 3
        assert len(summary.evidence) == 3 and summary.support == 3
        report = check_consistency(graph.entries.values())
        assert (report.boundaries_served, report.schema_only_served) == (2, 1)

    def test_a_summary_states_each_violation_once(self) -> None:
        """Two violations answered alike (one boundary stating both) and a third: the summary's condition names
        each violation once."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        violations = [("null_value", {"path": None}, "`path` is null", "Input validation error: 'path': bad value"),
                      ("wrong_type", {"path": 5}, "`path` is a number instead of a string",
                       "Input validation error: 'path': bad value"),
                      ("missing_required", {}, "required argument `path` is missing",
                       "Input validation error: 'path' is a required property")]
        for n, (family, args, condition, error) in enumerate(violations):
            step = ProbeStep(tool="read_file", arguments=args, mutation=family, condition=condition, expect="error")
            induce(inducer, [(step, OutcomeClass.TOOL_ERROR, error, StateDiff(), "")], n)
        [summary] = [e for e in graph.entries_of("read_file", EntryKind.BOUNDARY, served=True)]
        stated = summary.condition.split(" or ")
        assert len(stated) == len(set(stated)) and "`path` is a number instead of a string" in stated

    def test_a_summarised_boundary_seen_again_stays_summarised(self) -> None:
        """Re-observing a violation adds support to the summary; the member is not served again."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        step = ProbeStep(tool="read_file", arguments={"path": 5}, mutation="wrong_type", condition="`path` is a number", expect="error")
        for n in range(2):
            induce(inducer, [(step, OutcomeClass.TOOL_ERROR, "bad type", StateDiff(), "")], n)
        served = graph.entries_of("read_file", EntryKind.BOUNDARY, served=True)
        assert [e.family for e in served] == [SCHEMA_SUMMARY] and served[0].support == 2

    def test_a_value_made_when_rendered_is_checked_as_the_server_saw_it(self) -> None:
        """A 100 KB value, carried as its placeholder, meets the answer a 101-character one got ("String should have
        at most <n> characters": one signature): the placeholder's 17 characters satisfy the schema, the value sent
        does not, so the violation stays summarised and the summary stays served."""
        capped = ToolSpec(server="s", name="search", description="Search.", input_schema={
            "type": "object", "properties": {"query": {"type": "string", "maxLength": 100}}, "required": ["query"]})
        graph = ServerGraph("s", [capped])
        inducer = Inducer(graph)
        error = "1 validation error for searchArguments\nquery\n  String should have at most 100 characters"
        past = ProbeStep(tool="search", arguments={"query": "q" * 101}, mutation="out_of_range",
                         condition="`query` is 101 characters, one past the 100 its schema allows", expect="error")
        induce(inducer, [(past, OutcomeClass.TOOL_ERROR, error, StateDiff(), "")], 0)
        huge = ProbeStep(tool="search", arguments={"query": "${oversized_text}"}, mutation="oversized_value",
                         condition="`query` is 100 KB long", expect="error")
        induce(inducer, [(huge, OutcomeClass.TOOL_ERROR, error, StateDiff(), "")], 1)
        served = graph.entries_of("search", EntryKind.BOUNDARY, served=True)
        assert [e.family for e in served] == [SCHEMA_SUMMARY] and served[0].status is EntryStatus.ACTIVE

    def test_error_shape_is_the_shared_beginning(self) -> None:
        """The shape of several errors is what they share, cut at a word; one error is its own shape."""
        assert error_shape(["Invalid arguments: x is required", "Invalid arguments: y must be int"]) == "Invalid arguments: …"
        assert error_shape(["boom", "boom"]) == "boom"
        assert error_shape(["alpha", "beta", "beta"]) == "beta"


def _affordance(n: int, effect: Effect, signature: str = "uses:path") -> Entry:
    evidence = Evidence(probe_id=f"p{n}", tool="read_file", arguments={"path": "a"}, outcome=OutcomeClass.OK)
    return Entry(id=f"e{n}", kind=EntryKind.AFFORDANCE, server="s", tool="read_file", schema_hash="h", signature=signature,
                 text="t", effect=effect, effects=[EffectObservation(effect=effect)], evidence=[evidence])


class TestConsistency:
    def test_two_entries_of_one_use_with_different_effects_contradict(self) -> None:
        """A "changes nothing" and a "changes the environment" entry for one use is a contradiction."""
        report = check_consistency([_affordance(1, Effect.READ_ONLY, "uses:path|read_only"),
                                    _affordance(2, Effect.MUTATING, "uses:path|mutating")])
        assert [c.kind for c in report.contradictions] == ["effect"] and not report.ok

    def test_one_call_working_and_failing_on_the_snapshot_contradicts(self) -> None:
        """The same call on the unchanged snapshot served as a use and as a boundary is a contradiction."""
        use = _affordance(1, Effect.READ_ONLY)
        wall = Entry(id="b1", kind=EntryKind.BOUNDARY, server="s", tool="read_file", schema_hash="h", signature="x",
                     text="t", evidence=[Evidence(probe_id="p9", tool="read_file", arguments={"path": "a"},
                                                  outcome=OutcomeClass.TOOL_ERROR)])
        assert [c.kind for c in check_consistency([use, wall]).contradictions] == ["outcome"]
        stale = wall.model_copy(update={"status": EntryStatus.STALE})
        assert check_consistency([use, stale]).ok, "only served entries are checked"

    def test_an_entry_without_evidence_fails_the_check(self) -> None:
        """A served entry with no evidence makes the atlas inconsistent."""
        bare = _affordance(1, Effect.READ_ONLY).model_copy(update={"evidence": []})
        assert check_consistency([bare]).without_evidence == ["e1"]


class TestPreconditionAfterAChain:
    def test_a_state_changed_by_earlier_calls_is_said(self) -> None:
        """A call whose names match nothing, made after earlier calls changed the state, says so; on the
        snapshot it does not."""
        store = StateDigest(kind="json_file", items={"key:requests": "h1"})
        changed = StateDigest(kind="json_file", items={"key:requests": "h2"})
        args = {"requestId": "req-1"}
        assert precondition(args, store, None, "t", store) == "`requestId` names nothing that exists yet"
        assert precondition(args, changed, ("plan", {}), "t", store) == (
            "`requestId` names nothing that exists yet and after an earlier call changed the state")


class TestOpposedObservations:
    def test_the_same_call_on_the_snapshot_working_and_failing_is_never_served_twice(self) -> None:
        """A call that worked three times on the unchanged snapshot and then failed once keeps its
        affordance (with a contradiction counted) and the single failure is not served beside it."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        step = ProbeStep(tool="read_file", arguments={"path": "${root}/docs/a.md"})
        for n in range(3):
            induce(inducer, [(step, OutcomeClass.OK, "hello", StateDiff(), "`path` names an existing item")], n)
        induce(inducer, [(step, OutcomeClass.TOOL_ERROR, "Error: busy", StateDiff(), "`path` names an existing item")], 9)
        (use,) = graph.entries_of("read_file", EntryKind.AFFORDANCE, served=True)
        assert use.contradictions == 1 and use.confidence < 0.8
        assert graph.entries_of("read_file", EntryKind.BOUNDARY, served=True) == []
        failure = next(e for e in graph.entries.values() if e.kind is EntryKind.BOUNDARY)
        assert failure.status is EntryStatus.STALE
        assert check_consistency(graph.entries.values()).ok

    def test_the_outcome_seen_more_often_is_the_one_served(self) -> None:
        """Once the failures outnumber the successes, the boundary is served and the affordance is not."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        step = ProbeStep(tool="read_file", arguments={"path": "${root}/docs/a.md"})
        induce(inducer, [(step, OutcomeClass.OK, "hello", StateDiff(), "")], 0)
        for n in range(1, 4):
            induce(inducer, [(step, OutcomeClass.TOOL_ERROR, "Error: busy", StateDiff(), "")], n)
        assert [e.kind for e in graph.entries.values() if e.status is EntryStatus.ACTIVE] == [EntryKind.BOUNDARY]
        assert check_consistency(graph.entries.values()).ok


COPY = ToolSpec(server="s", name="copy_range", description="Copy a range.", input_schema={
    "type": "object", "properties": {"file": {"type": "string"}, "dest_start": {"type": "string"}},
    "required": ["file", "dest_start"]})


class TestMisuseAcceptedAndRejected:
    ROW_ZERO = "`dest_start` names row 0, which does not exist"

    def misuse(self, inducer: Inducer, file: str, outcome: OutcomeClass, n: int, **more: str) -> None:
        step = ProbeStep(tool="copy_range", arguments={"file": file, "dest_start": "A0", **more}, mutation="malformed_value",
                         condition=self.ROW_ZERO, expect="error")
        excerpt = "Row or column values must be at least 1" if outcome is not OutcomeClass.OK else "Copied"
        induce(inducer, [(step, outcome, excerpt, StateDiff(), "")], n)

    def test_the_arguments_that_separate_the_outcomes_are_stated(self) -> None:
        """One misuse refused on one file and tolerated on another is served under the file each was
        seen with, so the check finds no contradiction; the planned condition stays in when/when_not."""
        graph = ServerGraph("s", [COPY])
        inducer = Inducer(graph)
        self.misuse(inducer, "${root}/sales.xlsx", OutcomeClass.TOOL_ERROR, 1)
        self.misuse(inducer, "${root}/sales.xlsx", OutcomeClass.TOOL_ERROR, 2)
        self.misuse(inducer, "${root}/prices.csv", OutcomeClass.OK, 3)
        [refused] = graph.entries_of("copy_range", EntryKind.BOUNDARY)
        [tolerated] = graph.entries_of("copy_range", EntryKind.AFFORDANCE)
        assert refused.condition == f'{self.ROW_ZERO}, with `file` = "${{root}}/sales.xlsx"'
        assert tolerated.condition == f'{self.ROW_ZERO}, with `file` = "${{root}}/prices.csv"'
        assert refused.when_not == self.ROW_ZERO and tolerated.when == f"{self.ROW_ZERO} (accepted)"
        assert "sales.xlsx" in refused.text and refused.text.endswith("“Row or column values must be at least 1”.")
        assert check_consistency(graph.entries.values()).contradictions == []

    def test_outcomes_no_argument_separates_stay_a_contradiction(self) -> None:
        """When the accepted and the refused calls overlap in every argument, nothing is qualified
        (a qualifier made earlier is withdrawn) and the check reports the pair."""
        graph = ServerGraph("s", [COPY])
        inducer = Inducer(graph)
        self.misuse(inducer, "${root}/sales.xlsx", OutcomeClass.TOOL_ERROR, 1)
        self.misuse(inducer, "${root}/prices.csv", OutcomeClass.OK, 2)
        self.misuse(inducer, "${root}/prices.csv", OutcomeClass.TOOL_ERROR, 3, sheet="Sheet1")
        [refused] = graph.entries_of("copy_range", EntryKind.BOUNDARY)
        [tolerated] = graph.entries_of("copy_range", EntryKind.AFFORDANCE)
        assert refused.condition == self.ROW_ZERO and tolerated.condition is None
        assert [c.kind for c in check_consistency(graph.entries.values()).contradictions] == ["outcome"]


DELETE = ToolSpec(server="s", name="delete_items", description="Delete items.", input_schema={
    "type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}, "required": ["items"]})


DELETE_FROM = ToolSpec(server="s", name="delete_items", description="Delete items of an owner.", input_schema={
    "type": "object", "properties": {"owner": {"type": "string"}, "items": {"type": "array", "items": {"type": "string"}}},
    "required": ["owner", "items"]})


class TestMisusePassedOver:
    MADE_UP = "`items[0]` names an item that does not exist"
    MADE_UP_OWNER = "`owner` names an owner that does not exist"

    def delete(self, inducer: Inducer, items: list[str], change: StateDiff, n: int, *, hidden: bool = True) -> None:
        """A call of ``delete_items`` whose first item is made up, answered as a success (a hidden failure
        when ``hidden`` and nothing changed)."""
        step = ProbeStep(tool="delete_items", arguments={"items": items}, mutation="nonexistent_reference",
                         condition=self.MADE_UP, expect="error")
        probe = Probe(id=f"p{n}", server="s", round=1, direction=Direction.BOUNDARY, target="delete_items", task="t",
                      steps=[step])
        result = StepResult(index=0, outcome=CallOutcome(server="s", tool="delete_items", arguments=step.arguments,
                                                         outcome=OutcomeClass.OK, excerpt="Items deleted successfully"))
        hidden = "it claims its action on what does not exist, and nothing changed" if hidden and change.empty else ""
        verdict = StepVerdict(index=0, tool="delete_items", outcome=OutcomeClass.OK, failed=bool(hidden),
                              reported_as_success=bool(hidden), hidden_failure=hidden,
                              error_text="Items deleted successfully" if hidden else "", change=change,
                              effect=Effect.MUTATING if not change.empty else Effect.READ_ONLY)
        inducer.induce(Rollout(probe=probe, steps=[result]),
                       Verdict(probe_id=probe.id, server="s", resolved=True, steps=[verdict]))

    def test_a_made_up_item_alone_and_among_real_ones_is_told_by_what_the_rest_did(self) -> None:
        """A made-up item alone is a failure answered as success (nothing changed); beside real items the
        call is accepted and the real ones go. Both are served, each under what the rest of the call did,
        and the check finds no contradiction."""
        graph = ServerGraph("s", [DELETE])
        inducer = Inducer(graph)
        gone = StateDiff(removed=["item:b"])
        for n in range(2):  # few enough values for the argument to separate the outcomes too
            self.delete(inducer, [f"no_such_item_{n}a1{n}"], StateDiff(), n)
        self.delete(inducer, ["no_such_item_5a15", "b"], gone, 5)
        [passed_over] = graph.entries_of("delete_items", EntryKind.BOUNDARY)
        [accepted] = [e for e in graph.entries_of("delete_items", EntryKind.AFFORDANCE) if e.signature.startswith("tolerates:")]
        assert passed_over.condition == f"{self.MADE_UP}, and nothing else in the call takes effect"
        assert accepted.condition == f"{self.MADE_UP}, while the rest of the call takes effect"
        assert "answers as if it succeeded" in passed_over.text and "nothing else in the call" in passed_over.text
        assert check_consistency(graph.entries.values()).contradictions == []

    def test_without_a_change_on_the_accepted_side_the_pair_stays_a_contradiction(self) -> None:
        """Among the accepted calls one changed nothing: what the rest of the call did separates nothing."""
        graph = ServerGraph("s", [DELETE])
        inducer = Inducer(graph)
        for n in range(4):
            self.delete(inducer, [f"no_such_item_{n}a1{n}"], StateDiff(), n)
        self.delete(inducer, ["no_such_item_5a15", "b"], StateDiff(removed=["item:b"]), 5)
        self.delete(inducer, ["no_such_item_6a16", "c"], StateDiff(), 6, hidden=False)
        assert [c.kind for c in check_consistency(graph.entries.values()).contradictions] == ["outcome"]

    def test_two_made_up_arguments_answered_as_success_are_two_entries(self) -> None:
        """A success claimed on a made-up item and on a made-up owner reads the same; each misuse is its own
        boundary whose every evidence call is of that misuse."""
        graph = ServerGraph("s", [DELETE_FROM])
        inducer = Inducer(graph)
        for n, (argument, condition) in enumerate([("items", self.MADE_UP), ("owner", self.MADE_UP_OWNER)] * 2):
            made_up = f"no_such_{argument}_{n}a1{n}"
            arguments = {"owner": "ada", "items": ["b"], argument: [made_up] if argument == "items" else made_up}
            step = ProbeStep(tool="delete_items", arguments=arguments, mutation="nonexistent_reference",
                             condition=condition, expect="error")
            probe = Probe(id=f"p{n}", server="s", round=1, direction=Direction.BOUNDARY, target="delete_items",
                          task="t", steps=[step])
            result = StepResult(index=0, outcome=CallOutcome(server="s", tool="delete_items", arguments=arguments,
                                                             outcome=OutcomeClass.OK, excerpt="Items deleted successfully"))
            verdict = StepVerdict(index=0, tool="delete_items", outcome=OutcomeClass.OK, failed=True,
                                  reported_as_success=True, error_text="Items deleted successfully",
                                  hidden_failure="it claims its action on what does not exist, and nothing changed")
            inducer.induce(Rollout(probe=probe, steps=[result]),
                           Verdict(probe_id=probe.id, server="s", resolved=True, steps=[verdict]))
        boundaries = graph.entries_of("delete_items", EntryKind.BOUNDARY)
        assert sorted(b.condition for b in boundaries) == sorted([self.MADE_UP_OWNER, self.MADE_UP])
        for boundary in boundaries:
            argument = "owner" if "owner" in boundary.condition else "items"
            assert all("no_such" in str(item.arguments[argument]) for item in boundary.evidence)


class TestNearNames:
    """A known name with a suffix no name has: only an answer about another name is knowledge of its own."""

    LOG = ToolSpec(server="s", name="log_attempt", description="Record an attempt.", input_schema={
        "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})

    def induce_near(self, excerpt: str, *, failed: bool, hidden: str = "") -> ServerGraph:
        graph = ServerGraph("s", [self.LOG])
        step = ProbeStep(tool="log_attempt", arguments={"name": "Two Sum_3f2a"}, mutation="near_name",
                         condition="`name` names `Two Sum` with a suffix no name has", expect="error")
        probe = Probe(id="p1", server="s", round=1, direction=Direction.BOUNDARY, target="log_attempt", task="t",
                      steps=[step])
        outcome = OutcomeClass.TOOL_ERROR if failed and not hidden else OutcomeClass.OK
        result = StepResult(index=0, outcome=CallOutcome(server="s", tool="log_attempt", arguments=step.arguments,
                                                         outcome=outcome, excerpt=excerpt))
        verdict = StepVerdict(index=0, tool="log_attempt", outcome=outcome, failed=failed, hidden_failure=hidden,
                              reported_as_success=bool(hidden), error_text=excerpt if failed else "",
                              change=StateDiff(), effect=Effect.READ_ONLY)
        Inducer(graph).induce(Rollout(probe=probe, steps=[result]),
                              Verdict(probe_id="p1", server="s", resolved=True, steps=[verdict]))
        return graph

    def test_an_answer_about_another_name_is_a_boundary(self) -> None:
        graph = self.induce_near("Logged: Two Sum — solved", failed=True,
                                 hidden="it answered for `Two Sum`, the closest name it knows, not for the name given")
        [entry] = graph.entries_of("log_attempt", EntryKind.BOUNDARY)
        assert entry.family == "near_name" and entry.reported_as_success

    def test_a_refusal_is_a_boundary_and_an_acceptance_adds_nothing(self) -> None:
        """Refused as unknown: the server matches names exactly (a build whose time allows one slow refusal of the
        tool may have no other); accepted and answered about the name sent: nothing of the name it was made from."""
        [entry] = self.induce_near("Unknown problem: Two Sum_3f2a", failed=True).entries_of("log_attempt", EntryKind.BOUNDARY)
        assert entry.condition == "`name` names `Two Sum` with a suffix no name has"
        assert not self.induce_near("ok", failed=False).entries


class TestMisusesWithOneAnswer:
    """Misuses a server answers the same way are one boundary that states each of them, not the first alone."""

    WEIGH = ToolSpec(server="s", name="weigh", description="Molar mass of a chemical formula.", input_schema={
        "type": "object", "properties": {"formula": {"type": "string"}}, "required": ["formula"]})
    ANSWER = "Error executing tool weigh: expected element or '(' at pos 0"

    def induce_misuses(self, misuses: list[tuple[str, str | None]]) -> ServerGraph:
        graph = ServerGraph("s", [self.WEIGH])
        inducer = Inducer(graph)
        for n, (value, condition) in enumerate(misuses):
            step = ProbeStep(tool="weigh", arguments={"formula": value}, mutation="malformed_value" if condition else None,
                             condition=condition, expect="error" if condition else "ok")
            induce(inducer, [(step, OutcomeClass.TOOL_ERROR, self.ANSWER, StateDiff(), "")], n)
        return graph

    def test_each_misuse_is_stated_with_the_answer_they_share(self) -> None:
        graph = self.induce_misuses([("1 / 0", "`formula` divides by zero"),
                                     ("h2o", "`formula` is written in lower case (`h2o` for `H2O`)"),
                                     ("1 / 0", "`formula` divides by zero"),
                                     ("1 / 0", "`formula` divides by zero (with `unit` given)")])  # the same misuse
        [entry] = graph.entries_of("weigh", EntryKind.BOUNDARY)
        assert entry.support == 4
        assert entry.text == ("`weigh` fails (tool_error) when `formula` divides by zero; or when `formula` is written "
                              f"in lower case (`h2o` for `H2O`): “{self.ANSWER}”.")
        assert entry.when_not == "`formula` divides by zero"  # what the misuse is grouped by stays the first

    def test_at_most_three_are_stated(self) -> None:
        words = ["empty", "blank", "garbled", "reversed", "doubled"]
        graph = self.induce_misuses([(f"x{n}", f"`formula` is {word}") for n, word in enumerate(words)])
        [entry] = graph.entries_of("weigh", EntryKind.BOUNDARY)
        assert entry.support == 5
        assert entry.condition == "`formula` is empty; or when `formula` is blank; or when `formula` is garbled"

    def test_one_misuse_of_two_values_is_stated_once(self) -> None:
        """A hyphenated query refused for `middleware-based` and for `global-based` is one misuse."""
        graph = self.induce_misuses([("a-b", "`formula` joins two words with a hyphen (`middleware-based`)"),
                                     ("c-d", "`formula` joins two words with a hyphen (`global-based`) (with `x` given)")])
        [entry] = graph.entries_of("weigh", EntryKind.BOUNDARY)
        assert entry.condition == "`formula` joins two words with a hyphen (`middleware-based`)"

    def test_calls_nobody_planned_to_fail_stand_for_each_other(self) -> None:
        """Two valid-looking calls refused the same way are stated by the first's values, not each call's."""
        graph = self.induce_misuses([("C2H6", None), ("CH4", None), ("1 / 0", "`formula` divides by zero")])
        [entry] = graph.entries_of("weigh", EntryKind.BOUNDARY)
        assert entry.condition.count("called with") == 1 and entry.condition.endswith("`formula` divides by zero")


    def test_an_entry_merged_from_another_build_adds_only_what_is_new(self) -> None:
        """A boundary that states two misuses, merged into one that states one of them, states each once."""
        from toolatlas.graph.inducer import merge_entry

        first = self.induce_misuses([("1 / 0", "`formula` divides by zero")])
        other = self.induce_misuses([("1 / 0", "`formula` divides by zero"), ("h2o", "`formula` is in lower case")])
        [theirs] = other.entries_of("weigh", EntryKind.BOUNDARY)
        merge_entry(first, theirs, None)
        [entry] = first.entries_of("weigh", EntryKind.BOUNDARY)
        assert entry.condition == "`formula` divides by zero; or when `formula` is in lower case"


class TestPitfalls:
    def test_a_strategy_warns_of_what_the_atlas_serves(self) -> None:
        """A strategy's pitfalls are served boundaries other than schema validation: never a violation one by one (a
        load check drops a derived record quoting what no kept entry says)."""
        from toolatlas.graph.distil import _pitfalls

        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        violations = [("wrong_type", {"path": 5}, "`path` is a number instead of a string", "Input error: 5 is not a string"),
                      ("null_value", {"path": None}, "`path` is null", "Input error: None is not a string"),
                      ("missing_required", {}, "required argument `path` is missing", "Input error: 'path' is required")]
        for n, (family, args, condition, error) in enumerate(violations * 3):
            step = ProbeStep(tool="read_file", arguments=args, mutation=family, condition=condition, expect="error")
            induce(inducer, [(step, OutcomeClass.TOOL_ERROR, error, StateDiff(), "")], n)
        assert _pitfalls(graph, ["read_file"]) == []  # the schema says it
        step = ProbeStep(tool="read_file", arguments={"path": "/etc/passwd"}, mutation="path_escape",
                         condition="`path` is outside the root", expect="error")
        induce(inducer, [(step, OutcomeClass.TOOL_ERROR, "Access denied", StateDiff(), "")], 99)
        assert _pitfalls(graph, ["read_file"]) == [
            "`read_file` fails (tool_error) when `path` is outside the root: “Access denied”."]
