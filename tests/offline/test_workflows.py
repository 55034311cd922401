"""Workflows the proposer plans from what failed: the enabler a failure points to, on the things the
steps before it made."""

from __future__ import annotations

import json
import random

from toolatlas.config import ServerSpec
from toolatlas.graph.state import ServerGraph
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.offline.proposer import OfflineProposer
from toolatlas.offline.workflows import named_tools, shared_arguments
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict

IDS = {"requestId": {"type": "string"}, "taskId": {"type": "string"}}


def make(name: str, properties: dict, required: list[str]) -> ToolSpec:
    return ToolSpec(server="s", name=name, description="", input_schema={
        "type": "object", "properties": properties, "required": required})


PLAN = make("request_planning", {"originalRequest": {"type": "string"}}, ["originalRequest"])
MARK = make("mark_task_done", IDS, ["requestId", "taskId"])
APPROVE = make("approve_request_completion", {"requestId": {"type": "string"}}, ["requestId"])


def observed(proposer: OfflineProposer, steps: list[ProbeStep], answers: list[tuple[bool, str]]) -> None:
    """Feed the proposer one rollout of ``steps`` whose calls answered ``(failed, text)``."""
    probe = Probe(id=f"p{len(steps)}", server="s", round=1, direction=Direction.AFFORDANCE, target=steps[-1].tool, task="t",
                  steps=steps)
    results = [StepResult(index=i, outcome=CallOutcome(server="s", tool=s.tool, arguments=s.arguments,
                                                       outcome=OutcomeClass.OK, excerpt=text))
               for i, (s, (_failed, text)) in enumerate(zip(steps, answers, strict=True))]
    verdicts = [StepVerdict(index=i, tool=s.tool, outcome=OutcomeClass.OK, failed=failed,
                            reported_as_success=failed, error_text=text if failed else "")
                for i, (s, (failed, text)) in enumerate(zip(steps, answers, strict=True))]
    proposer.observe(Rollout(probe=probe, steps=results),
                     Verdict(probe_id=probe.id, server="s", resolved=False, steps=verdicts))


def seed_failed(proposer: OfflineProposer, call: ProbeStep, error: str) -> None:
    """Induce a seed call of one step that failed with ``error`` on the untouched state."""
    from toolatlas.graph.inducer import Inducer

    probe = Probe(id="p1", server="s", round=0, direction=Direction.SEED, target=call.tool, task="t", steps=[call])
    outcome = CallOutcome(server="s", tool=call.tool, arguments=call.arguments, outcome=OutcomeClass.TOOL_ERROR,
                          excerpt=error)
    verdict = StepVerdict(index=0, tool=call.tool, outcome=OutcomeClass.TOOL_ERROR, failed=True, error_text=error)
    Inducer(proposer.graph).induce(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                                   Verdict(probe_id="p1", server="s", resolved=False, steps=[verdict]))


class TestChainedPreconditions:
    def test_the_enabler_acts_on_what_the_chain_made(self) -> None:
        """``plan → approve`` failed "Not all tasks are done.": the retry marks the very task the plan
        created done (its id from the plan's answer), on the request the failing call named."""
        proposer = OfflineProposer(ServerGraph("s", [PLAN, MARK, APPROVE]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        plan = ProbeStep(tool="request_planning", arguments={"originalRequest": "Write"}, expect="ok")
        approve = ProbeStep(tool="approve_request_completion", arguments={"requestId": "req-4"}, expect="ok")
        answer = json.dumps({"status": "planned", "requestId": "req-4", "tasks": [{"id": "task-9", "title": "Draft it"}]})
        error = json.dumps({"status": "error", "message": "Not all tasks are done."})
        listing = ProbeStep(tool="request_planning", arguments={"originalRequest": "List"}, expect="ok")
        observed(proposer, [listing], [(False, '{"requestId": "req-1", "tasks": [{"id": "task-1"}, {"id": "task-2"}]}')])
        observed(proposer, [plan, approve], [(False, answer), (True, error)])
        chains = proposer.composition_probes(2, "approve_request_completion")
        [retry] = [p for p in chains if [s.tool for s in p.steps] == ["request_planning", "mark_task_done",
                                                                     "approve_request_completion"]]
        assert retry.steps[1].arguments == {"requestId": "req-4", "taskId": "task-9"}
        assert retry.steps[2].arguments == approve.arguments and retry.steps[2].enabled_by == 1

    def test_the_lesson_survives_a_checkpoint(self) -> None:
        """The failure and the answers before it come back from the proposer's exploration state."""
        proposer = OfflineProposer(ServerGraph("s", [PLAN, MARK, APPROVE]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        plan = ProbeStep(tool="request_planning", arguments={"originalRequest": "Write"}, expect="ok")
        approve = ProbeStep(tool="approve_request_completion", arguments={"requestId": "req-4"}, expect="ok")
        observed(proposer, [plan, approve], [(False, '{"requestId": "req-4", "tasks": [{"id": "task-9"}]}'),
                                             (True, '{"status": "error", "message": "Not all tasks are done."}')])
        fresh = OfflineProposer(ServerGraph("s", [PLAN, MARK, APPROVE]), None,
                                ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        fresh.restore_exploration_state(json.loads(json.dumps(proposer.exploration_state())))
        assert fresh.unplanned_failures == proposer.unplanned_failures


class TestPreconditionsOnInProcessState:
    def test_the_failing_call_is_read_twice_before_its_enabler(self) -> None:
        """On a server whose state lives in its process, the call that failed runs twice before the enabler
        (failing, or answering the same from what earlier probes left) and once after it, compared: its
        changed answer witnesses the enabler whatever the process held."""
        test = make("test_regex", {"pattern": {"type": "string"}}, ["pattern"])
        add = make("add_test_case", {"input_string": {"type": "string"}}, ["input_string"])
        proposer = OfflineProposer(ServerGraph("s", [test, add]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        assert proposer.stateless
        call = ProbeStep(tool="test_regex", arguments={"pattern": "a+"}, expect="ok")
        needs = "No test cases defined. Please add test cases first using add_test_case."
        from toolatlas.graph.inducer import Inducer

        probe = Probe(id="p1", server="s", round=0, direction=Direction.SEED, target="test_regex", task="t", steps=[call])
        outcome = CallOutcome(server="s", tool="test_regex", arguments=call.arguments, outcome=OutcomeClass.OK,
                              excerpt=needs)
        verdict = StepVerdict(index=0, tool="test_regex", outcome=OutcomeClass.OK, failed=True, reported_as_success=True,
                              error_text=needs)
        Inducer(proposer.graph).induce(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                                       Verdict(probe_id="p1", server="s", resolved=False, steps=[verdict]))
        [probe] = [p for p in proposer.composition_probes(1, "test_regex") if "test_regex:after:add_test_case" in p.coverage_keys]
        before, again, enabler, after = probe.steps
        assert [s.tool for s in probe.steps] == ["test_regex", "test_regex", "add_test_case", "test_regex"]
        assert again.compares == 0 and after.compares == 1 and after.enabled_by == 2
        assert before.arguments == again.arguments == after.arguments == call.arguments


    def test_an_enabler_the_error_names_is_tried_between_two_calls_on_any_state(self) -> None:
        """On a folder server, a reader that answered "no table set named 'q35' - call tables_load first" runs once
        before the loader and once after it, compared: what the loader prepares may be the server's own memory,
        which the folder's digest does not show."""
        tables = make("tables_list", {"name": {"type": "string"}}, ["name"])
        load = make("tables_load", {"name": {"type": "string"}}, ["name"])
        spec = ServerSpec(name="s", transport={"command": "x"}, environment={"kind": "directory", "snapshot": "."})
        proposer = OfflineProposer(ServerGraph("s", [tables, load]), None, spec, random.Random(0))
        assert not proposer.stateless
        call = ProbeStep(tool="tables_list", arguments={"name": "q35"}, expect="ok")
        seed_failed(proposer, call, "no table set named 'q35' (loaded: none) - call tables_load first")
        [probe] = [p for p in proposer.composition_probes(1, "tables_list")
                   if "tables_list:after:tables_load" in p.coverage_keys]
        assert [s.tool for s in probe.steps] == ["tables_list", "tables_load", "tables_list"]
        before, enabler, after = probe.steps
        assert after.enabled_by == 1 and after.compares == 0 and before.expect == "any"
        assert enabler.arguments["name"] == "q35" and after.arguments == call.arguments


    def test_the_tool_an_error_names_is_tried_before_what_the_names_suggest(self) -> None:
        """"No presentation found. Create one first with pptx_create()": while ``pptx_create`` was not tried before
        the failing call, it is the only enabler planned (not the slide creators its object suggests); once tried,
        the others follow."""
        reorder = make("pptx_reorder_slides", {"slide_index": {"type": "integer"}}, ["slide_index"])
        create = make("pptx_create", {"name": {"type": "string"}}, ["name"])
        add = make("pptx_add_slide", {"title": {"type": "string"}}, ["title"])
        proposer = OfflineProposer(ServerGraph("s", [reorder, create, add]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        call = ProbeStep(tool="pptx_reorder_slides", arguments={"slide_index": 0}, expect="ok")
        seed_failed(proposer, call, '{"error":"No presentation found. Create one first with pptx_create()"}')

        def enablers() -> set[str]:
            return {k.split(":after:")[1] for p in proposer.composition_probes(1, "pptx_reorder_slides")
                    for k in p.coverage_keys if ":after:" in k}

        assert enablers() == {"pptx_create"}
        proposer.graph.covered.add("pptx_reorder_slides:after:pptx_create")
        assert "pptx_add_slide" in enablers()

    def test_what_the_failing_call_makes_is_not_what_its_enabler_prepares(self, tmp_path) -> None:
        """An export whose ``file_path`` is the CSV it writes ("Output CSV file path.") failed "No file loaded. Use
        load_file first.": the loader is called on a file to load, not on the export's output, which names nothing
        yet."""
        export = ToolSpec(server="s", name="export_rows", description="Export the loaded rows to a CSV file.",
                          input_schema={"type": "object", "required": ["file_path"], "properties": {
                              "file_path": {"type": "string", "description": "Output CSV file path."}}})
        load = ToolSpec(server="s", name="load_file", description="Load a data file into the server.",
                        input_schema={"type": "object", "required": ["file_path"], "properties": {
                            "file_path": {"type": "string", "description": "Path of the XML file to load."}}})
        from toolatlas.offline.facts import EnvironmentFacts, directory_facts
        from toolatlas.offline.values import ValueSynth

        (tmp_path / "2026-10.xml").write_text("<AuditFile/>")
        facts = EnvironmentFacts(kind="directory", root="${root}", tree=directory_facts(tmp_path))
        spec = ServerSpec(name="s", transport={"command": "x"}, environment={"kind": "none"})
        proposer = OfflineProposer(ServerGraph("s", [export, load]), None, spec, random.Random(0))
        proposer.facts, proposer.synth = facts, ValueSynth(facts, proposer.pool, proposer.rng)  # the folder's files
        assert proposer.args["export_rows"][0].fresh and not proposer.args["load_file"][0].fresh
        seed_failed(proposer, ProbeStep(tool="export_rows", arguments={"file_path": "${root}/probe_d049.csv"},
                                        expect="ok"), "No file loaded. Use load_file first.")
        probes = [p for p in proposer.composition_probes(1, "export_rows")
                  if "export_rows:after:load_file" in p.coverage_keys]
        assert probes
        for found in probes:
            loads = [s for s in found.steps if s.tool == "load_file"]
            assert loads and all(s.arguments.get("file_path") != "${root}/probe_d049.csv" for s in loads)


class TestSharedArguments:
    def test_one_of_a_pair_is_shared_under_its_plain_name(self) -> None:
        """`compare(alias_a=x)` and a loader taking `alias`: the loader is called with `alias` = x; a name
        the other tool has itself wins, and a value of the wrong type is not shared."""
        load = make("load_json", {"file_path": {"type": "string"}, "alias": {"type": "string"}}, ["file_path"])
        assert shared_arguments({"alias_a": "x", "path_a": ""}, load) == {"alias": "x"}
        assert shared_arguments({"alias": "y", "alias_a": "x"}, load) == {"alias": "y"}
        assert shared_arguments({"alias2": 3}, load) == {}


class TestNamedTools:
    def test_an_answer_names_the_other_tools_that_change_things(self) -> None:
        """``Remember to call save_drafts`` names the save; a read, the tool itself and a word inside another
        word name nothing."""
        specs = {name: ToolSpec(server="s", name=name, description=description, input_schema={"type": "object"})
                 for name, description in (("edit_draft", "Replace a draft's text."),
                                           ("save_drafts", "Write every draft to the drafts file."),
                                           ("read_draft", "Read one draft."))}
        answer = "Draft 'intro' edited. Remember to call save_drafts to persist changes (read_draft shows it)."
        assert named_tools(answer, "edit_draft", specs) == ["save_drafts"]
        assert named_tools("Saved. Call edit_draft again or autosave_drafts_now.", "save_drafts", specs) == [
            "edit_draft"]


class TestHandedBack:
    PREVIEWED = make("set_status", {"row": {"type": "integer"}, "status": {"type": "string"},
                                    "dry_run": {"type": "boolean", "default": False}, "confirm": {"type": "string"},
                                    "within_days": {"type": "integer", "default": 7}}, ["row", "status"])
    REFUSAL = ("Not written: this needs the user's confirmation. Call the tool with dry_run=true, show the user the "
               "changes, and after they agree repeat the call with confirm=<token from that preview>.")

    def test_a_refusal_that_sets_a_flag_is_retried_with_it(self) -> None:
        """``Call the tool with dry_run=true`` after a call without ``dry_run``: the same call with it set."""
        proposer = OfflineProposer(ServerGraph("s", [self.PREVIEWED]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        call = ProbeStep(tool="set_status", arguments={"row": 3, "status": "Rejected"}, expect="ok")
        observed(proposer, [call], [(True, self.REFUSAL)])
        retries = [p for p in proposer.composition_probes(1, "set_status") if any(":retry:named:" in k for k in p.coverage_keys)]
        assert [[s.arguments for s in p.steps] for p in retries] == [
            [call.arguments, {"row": 3, "status": "Rejected", "dry_run": True}]]

    def test_a_token_an_answer_hands_back_is_taken_by_the_same_call_without_its_preview_flag(self) -> None:
        """A preview answering ``"confirm": "5d2fb9182b1b"`` is followed by the same call taking that token, its
        ``dry_run`` left out; a default an answer echoes (``within_days``: 7) or a word is handed back for nothing."""
        proposer = OfflineProposer(ServerGraph("s", [self.PREVIEWED]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        preview = ProbeStep(tool="set_status", arguments={"row": 3, "status": "Rejected", "dry_run": True}, expect="ok")
        observed(proposer, [preview], [(False, json.dumps({"row": 3, "within_days": 7, "status": "Rejected",
                                                            "confirm": "5d2fb9182b1b"}))])
        [chain] = [p for p in proposer.composition_probes(1, "set_status") if "set_status:handed:confirm" in p.coverage_keys]
        first, then = chain.steps
        assert first.arguments == preview.arguments
        assert then.arguments == {"row": 3, "status": "Rejected", "confirm": "${step0.confirm}"}
        fresh = OfflineProposer(ServerGraph("s", [self.PREVIEWED]), None,
                                ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        fresh.restore_exploration_state(json.loads(json.dumps(proposer.exploration_state())))
        assert fresh.handed_back == proposer.handed_back
        echo = OfflineProposer(ServerGraph("s", [self.PREVIEWED]), None,
                               ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        observed(echo, [ProbeStep(tool="set_status", arguments={"row": 3, "status": "Rejected"}, expect="ok")],
                 [(False, json.dumps({"within_days": 7, "confirm": "pending"}))])
        assert echo.handed_back == {}

    def test_a_call_bound_to_its_own_preview_is_no_base_to_misuse_alone(self) -> None:
        """Verified only after other calls of its own tool (a refused call, then its preview), the confirmed call
        bound to the preview's token is no base for saturation's misuses: made without the preview, its
        ``${step0.confirm}`` would name nothing."""
        from toolatlas.graph.inducer import Inducer
        from toolatlas.offline.saturation import verified_bases

        proposer = OfflineProposer(ServerGraph("s", [self.PREVIEWED]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        refused = ProbeStep(tool="set_status", arguments={"row": 3, "status": "Rejected"}, expect="error")
        preview = ProbeStep(tool="set_status", arguments={"row": 3, "status": "Rejected", "dry_run": True}, expect="ok")
        confirm = ProbeStep(tool="set_status", arguments={"row": 3, "status": "Rejected", "confirm": "${step0.confirm}"},
                            expect="ok")
        answers = {0: json.dumps({"row": 3, "dry_run": True, "confirm": "5d2fb9182b1b"}),
                   1: json.dumps({"row": 3, "dry_run": False, "changes": [{"field": "status", "new": "Rejected"}]})}
        for number, (steps, texts) in enumerate([([refused, preview], [self.REFUSAL, answers[0]]),
                                                 ([preview, confirm], [answers[0], answers[1]])]):
            probe = Probe(id=f"p{number}", server="s", round=1, direction=Direction.AFFORDANCE, target="set_status",
                          task="t", steps=steps)
            failed = [s.expect == "error" for s in steps]
            results = [StepResult(index=i, outcome=CallOutcome(
                server="s", tool=s.tool, arguments=s.arguments, excerpt=text,
                outcome=OutcomeClass.TOOL_ERROR if bad else OutcomeClass.OK))
                for i, (s, text, bad) in enumerate(zip(steps, texts, failed, strict=True))]
            verdicts = [StepVerdict(index=i, tool=s.tool, failed=bad, error_text=texts[i] if bad else "",
                                    outcome=OutcomeClass.TOOL_ERROR if bad else OutcomeClass.OK)
                        for i, (s, bad) in enumerate(zip(steps, failed, strict=True))]
            Inducer(proposer.graph).induce(Rollout(probe=probe, steps=results),
                                           Verdict(probe_id=probe.id, server="s", resolved=True, steps=verdicts))
        bases = verified_bases(proposer, "set_status")
        assert bases and not any("${step" in json.dumps(base.arguments) for base in bases)
