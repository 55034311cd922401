"""Writes filled from the record a read returned: the fields that belong together travel together."""

from __future__ import annotations

import json
import random

from toolatlas.config import ServerSpec
from toolatlas.graph.state import ServerGraph
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.proposer import OfflineProposer
from toolatlas.offline.records import aligned_arguments, merged_arguments
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict

PATCHES = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "line_start": {"type": "integer"},
            "line_end": {"type": ["integer", "null"]},
            "contents": {"type": "string"},
            "range_hash": {"type": "string"},
        },
        "required": ["contents"],
    },
}
EDIT = ToolSpec(
    server="s",
    name="edit_text",
    description="Edit line ranges of text files. Read them first with read_text.",
    input_schema={
        "type": "object",
        "properties": {
            "files": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string", "description": "Path to the file"},
                                   "file_hash": {"type": "string"}, "patches": PATCHES},
                    "required": ["path", "file_hash", "patches"],
                },
            }
        },
        "required": ["files"],
    },
)
READ = ToolSpec(
    server="s",
    name="read_text",
    description="Read line ranges of text files, with hashes.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
ANSWER = {
    "${root}/CHANGELOG.md": {
        "ranges": [{"content": "## 0.3.0 - 2024-03-15\n- Reports.\n", "start_line": 3, "end_line": 4,
                    "range_hash": "24cf6a55", "total_lines": 11}],
        "file_hash": "40066af6",
    },
    "${root}/README.md": {"ranges": [], "file_hash": "e9ad0b3c"},
}


class TestAlignment:
    def test_fields_that_belong_together_are_taken_together(self) -> None:
        """The file's key, its hash and the read range's lines and hash fill the edit's item, words in any order."""
        aligned = aligned_arguments(infer_arguments(EDIT), ANSWER)
        assert aligned == {"files": [{"path": "${root}/CHANGELOG.md", "file_hash": "40066af6",
                                      "patches": [{"line_start": 3, "line_end": 4, "range_hash": "24cf6a55"}]}]}

    def test_prose_is_never_copied_back(self) -> None:
        """The content read is no value for the content to write (it has spaces; only identifiers travel)."""
        aligned = aligned_arguments(infer_arguments(EDIT), ANSWER)
        assert "contents" not in aligned["files"][0]["patches"][0]

    def test_the_plan_keeps_what_the_record_does_not_hold(self) -> None:
        """Merged over a planned call, the record's values replace the planned ones; the new text stays."""
        planned = {"files": [{"path": "${root}/a.md", "file_hash": "ffff", "patches": [{"contents": "new"}]}]}
        merged = merged_arguments(planned, aligned_arguments(infer_arguments(EDIT), ANSWER))
        assert merged["files"][0]["patches"][0] == {"contents": "new", "line_start": 3, "line_end": 4,
                                                    "range_hash": "24cf6a55"}
        assert merged["files"][0]["path"] == "${root}/CHANGELOG.md"

    def test_the_bare_id_of_a_nested_record_is_that_records_id(self) -> None:
        """A plan's answer ``{requestId, tasks: [{id}]}`` fills ``requestId`` and ``taskId`` of a task tool."""
        mark = ToolSpec(server="s", name="mark_task_done", description="", input_schema={
            "type": "object", "properties": {"requestId": {"type": "string"}, "taskId": {"type": "string"},
                                             "completedDetails": {"type": "string"}}})
        answer = {"status": "planned", "requestId": "req-4", "tasks": [{"id": "task-9", "title": "Write the draft"}]}
        assert aligned_arguments(infer_arguments(mark), answer) == {"requestId": "req-4", "taskId": "task-9"}
        assert aligned_arguments(infer_arguments(mark), {"task": {"id": "task-3"}, "requestId": "req-1"}) == {
            "requestId": "req-1", "taskId": "task-3"}

    def test_an_unrelated_answer_fills_nothing(self) -> None:
        """A record whose fields share no words with the arguments aligns to nothing."""
        assert aligned_arguments(infer_arguments(EDIT), {"status": "ok", "count": 3}) == {}


class TestRecordChains:
    def test_a_read_answer_plans_a_read_then_write(self) -> None:
        """Once a read answered on the snapshot, the writer is planned after that very read, carrying its
        fields, with the read as the source of its data."""
        graph = ServerGraph("s", [EDIT, READ])
        proposer = OfflineProposer(graph, None, ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        step = ProbeStep(tool="read_text", arguments={"path": "${root}/CHANGELOG.md"}, expect="ok")
        probe = Probe(id="p1", server="s", round=0, direction=Direction.SEED, target="read_text", task="t", steps=[step])
        outcome = CallOutcome(server="s", tool="read_text", arguments=step.arguments, outcome=OutcomeClass.OK,
                              excerpt=json.dumps(ANSWER))
        proposer.observe(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                         Verdict(probe_id="p1", server="s", resolved=True,
                                 steps=[StepVerdict(index=0, tool="read_text", outcome=OutcomeClass.OK, failed=False)]))
        chains = proposer.candidates(1, ["edit_text"])["edit_text"]
        [chain] = [p for p in chains if "edit_text:data<read_text:record" in p.coverage_keys]
        read, write = chain.steps
        assert read.tool == "read_text" and read.arguments == step.arguments
        assert write.arguments["files"][0]["file_hash"] == "40066af6"
        assert write.harvested and write.harvested[0].tool == "read_text"
