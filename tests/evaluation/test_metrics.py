"""Metrics on hand-made answers with known values, and the two kinds of system on a small atlas."""

from __future__ import annotations

from toolatlas.evaluation import (
    Answer,
    AtlasGuidance,
    DocsOnly,
    EvalTask,
    boundary_included,
    complete_at,
    evaluate,
    recall_at,
    summarise,
    warnings,
)
from toolatlas.graph.models import Entry, EntryKind, Evidence, ToolNode
from toolatlas.guidance import (
    Atlas,
    AtlasView,
    BoundaryNote,
    DocumentedNote,
    GapNote,
    Guidance,
    ServerNote,
    ToolGuidance,
)
from toolatlas.models import OutcomeClass


def need(*tools: str) -> tuple[str, ...]:
    return tools


class TestRecall:
    def test_share_of_needs_in_the_top_k(self) -> None:
        """Each need counts once; only the first k tools count."""
        ranked = ["a", "b", "c", "d", "e", "f"]
        assert recall_at(ranked, [need("a"), need("z")]) == 0.5
        assert recall_at(ranked, [need("f")]) == 0.0
        assert recall_at(ranked, [need("f")], k=6) == 1.0
        assert recall_at(ranked, [need("b"), need("c"), need("e"), need("q")]) == 0.75

    def test_an_alternative_meets_a_need(self) -> None:
        """A need of interchangeable tools is met by any of them, and only once."""
        assert recall_at(["x", "read_file"], [need("read_text_file", "read_file")]) == 1.0
        assert recall_at(["read_text_file", "read_file"], [need("read_text_file", "read_file"), need("edit")]) == 0.5

    def test_no_needs_and_no_answer(self) -> None:
        """A task with no needs is met; an empty answer meets nothing."""
        assert recall_at([], []) == 1.0
        assert recall_at([], [need("a")]) == 0.0

    def test_complete_needs_every_need(self) -> None:
        """complete@k holds only when all needs are in the top k."""
        assert complete_at(["a", "b"], [need("a"), need("b", "c")])
        assert not complete_at(["a", "x", "y", "z", "w", "b"], [need("a"), need("b")])


def guidance_with(condition: str, error: str) -> Guidance:
    note = BoundaryNote(condition=condition, error=error, outcome="tool_error", entry_id="e1")
    return Guidance(task="t", tools=[ToolGuidance(server="fs", tool="list"), ToolGuidance(server="fs", tool="stat", when_not=[note])])


class TestBoundaryInclusion:
    def test_hint_found_in_error_or_condition_any_case(self) -> None:
        """The hint may be in the condition or in the server's error, in any letter case."""
        guidance = guidance_with("`path` is an absolute path outside the allowed directory",
                                 "Access denied - path outside allowed directories: /etc not in /srv")
        assert boundary_included(guidance, "OUTSIDE ALLOWED DIRECTORIES")
        assert boundary_included(guidance, "absolute path outside")

    def test_absent_hint_or_no_hint(self) -> None:
        """A boundary that is not served, or a task without a hint, is not an inclusion."""
        guidance = guidance_with("`path` is null", "Invalid arguments")
        assert not boundary_included(guidance, "no such file")
        assert not boundary_included(guidance, None)
        assert not boundary_included(Guidance(task="t"), "anything")


class Scripted:
    """A system that serves canned answers (the Retriever protocol), to check the aggregation."""

    name = "scripted"

    def __init__(self, answers: dict[str, list[Answer]]) -> None:
        self.answers = {task: list(found) for task, found in answers.items()}

    def answer(self, task: EvalTask) -> Answer:
        return self.answers[task.id].pop(0)


class TestAggregation:
    def test_evaluate_and_summarise(self) -> None:
        """Recall, missed needs, complete@5, boundary share over hinted tasks only, median latency."""
        tasks = [
            EvalTask(id="one", split="dev", text="x", needed=(need("a"), need("b", "c"))),
            EvalTask(id="two", split="dev", text="y", needed=(need("d"),), boundary_hint="denied"),
            EvalTask(id="three", split="held", text="z", needed=(need("e"),), boundary_hint="missing"),
        ]
        system = Scripted({
            "one": [Answer(["a", "c"], False, 10, 0.001)] * 3,
            "two": [Answer(["x", "y", "z", "w", "v", "d"], True, 30, s) for s in (0.004, 0.002, 0.003)],
            "three": [Answer(["e"], False, 20, 0.002)] * 3,
        })
        results = evaluate(system, tasks, repeat=3)
        assert [(r.task, r.recall, r.boundary, r.missed) for r in results] == [
            ("one", 1.0, None, []), ("two", 0.0, True, ["d"]), ("three", 1.0, False, []),
        ]
        assert results[1].top == ["x", "y", "z", "w", "v"] and results[1].seconds == 0.003
        summary = summarise("s", results)
        assert (summary.tasks, summary.recall_at_5, summary.complete_at_5) == (3, 0.6667, 0.6667)
        assert (summary.boundary_tasks, summary.boundary_inclusion) == (2, 0.5)
        assert (summary.mean_tokens, summary.p50_ms) == (20.0, 2.0)

    def test_empty_results(self) -> None:
        """No tasks summarise to zeros, not a division error."""
        assert summarise("s", []).recall_at_5 == 0.0


def tool(server: str, name: str, description: str) -> ToolNode:
    return ToolNode(id=f"{server}.{name}", server=server, tool=name, schema_hash="h", description=description)


def small_view() -> AtlasView:
    tools = [
        tool("fs", "list_directory", "Get a listing of the files in a directory. Only works within allowed directories."),
        tool("fs", "get_file_info", "Retrieve metadata about a file: size and modification time."),
        tool("time", "convert_time", "Convert time between timezones."),
        tool("git", "git_log", "Shows the commit logs."),
    ]
    evidence = Evidence(probe_id="p1", tool="get_file_info", outcome=OutcomeClass.TOOL_ERROR,
                        excerpt="ENOENT: no such file or directory, stat '/srv/x'")
    missing = Entry(id="b1", kind=EntryKind.BOUNDARY, server="fs", tool="get_file_info", schema_hash="h",
                    signature="missing", text="get_file_info fails on a missing file",
                    condition="`path` names a file that does not exist", outcome=OutcomeClass.TOOL_ERROR,
                    evidence=[evidence], probe_ids=["p1"])
    return AtlasView(tools, [missing], [], [])


class TestSystems:
    def test_docs_only_ranks_by_description(self) -> None:
        """The tool whose description matches the request comes first, at most five are served."""
        task = EvalTask(id="t", split="dev", text="When was this file last modified and how big is it?",
                        needed=(need("fs.get_file_info"),), boundary_hint="no such file")
        answer = DocsOnly(small_view()).answer(task)
        assert answer.ranked[0] == "fs.get_file_info" and len(answer.ranked) <= 5
        assert "time.convert_time" not in answer.ranked
        assert not answer.boundary  # the raw description does not state it

    def test_docs_only_boundary_only_when_the_description_states_it(self) -> None:
        """A boundary the raw description happens to state counts for docs-only too."""
        task = EvalTask(id="t", split="dev", text="list the files in a directory", needed=(need("fs.list_directory"),),
                        boundary_hint="within allowed directories")
        assert DocsOnly(small_view()).answer(task).boundary

    def test_atlas_guidance_serves_the_verified_boundary(self) -> None:
        """The atlas system ranks as Atlas.guide does and carries the boundary the build verified."""
        atlas = Atlas(small_view())
        task = EvalTask(id="t", split="dev", text="When was this file last modified and how big is it?",
                        needed=(need("fs.get_file_info"),), boundary_hint="no such file")
        answer = AtlasGuidance(atlas).answer(task)
        assert answer.ranked == [f"{t.server}.{t.tool}" for t in atlas.guide(task.text).tools]
        assert answer.ranked[0] == "fs.get_file_info" and answer.boundary
        assert answer.tokens == atlas.guide(task.text).tokens


class TestWarnings:
    def test_a_warning_counts_only_about_the_named_tools(self) -> None:
        """A phrase in a warning about another tool does not count when the task names the tool to warn about."""
        guidance = guidance_with("`path` names a file that does not exist", "ENOENT: no such file or directory")
        assert boundary_included(guidance, ["parent", "does not exist"], ["fs.stat"])
        assert not boundary_included(guidance, ["parent", "does not exist"], ["fs.write"])
        assert not boundary_included(guidance, ["no such file"], ["fs.list"])

    def test_documented_clauses_gaps_and_server_notes_are_warnings(self) -> None:
        """An operative clause, a gap note and a server note each warn, about their own tools."""
        guidance = Guidance(
            task="t",
            tools=[ToolGuidance(server="fs", tool="search", documented=[DocumentedNote(text="Patterns match paths.")])],
            gaps=[GapNote(operation="copy", text="No tool copies: `read`, then `write`.", tools=["fs.read", "fs.write"])],
            notes=[ServerNote(server="fs", text="Only works within allowed directories.")],
        )
        assert boundary_included(guidance, "match paths", ["fs.search"])
        assert boundary_included(guidance, "no tool copies", ["fs.write"])
        assert boundary_included(guidance, "within allowed", ["fs.move"])
        assert not boundary_included(guidance, "match paths", ["fs.read"])
        assert {frozenset({"fs.search"}), frozenset({"fs.*"})} <= {about for about, _ in warnings(guidance)}

    def test_docs_only_warns_only_through_the_named_tools(self) -> None:
        """Docs-only is credited with a failure only when the description of a tool the task names states it."""
        view = small_view()
        named = EvalTask(id="t", split="dev", text="list the files in a directory", needed=(need("fs.list_directory"),),
                         boundary_hint="within allowed directories", boundary_tools=("fs.list_directory",))
        other = EvalTask(id="t", split="dev", text="list the files in a directory", needed=(need("fs.list_directory"),),
                         boundary_hint="within allowed directories", boundary_tools=("fs.get_file_info",))
        assert DocsOnly(view).answer(named).boundary and not DocsOnly(view).answer(other).boundary
