"""Guidance without servers: a small synthetic atlas, walked and compressed."""

from __future__ import annotations

import json
from pathlib import Path

from toolatlas.export import assemble
from toolatlas.graph.models import (
    CoUsageRelation,
    Entry,
    EntryKind,
    EntryStatus,
    Evidence,
    StrategyNode,
    ToolNode,
    TraceNode,
    TraceStep,
)
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.models import OutcomeClass


def tool(server: str, name: str, description: str, neighbours: dict | None = None) -> ToolNode:
    return ToolNode(id=f"{server}.{name}", server=server, tool=name, schema_hash="h", description=description,
                    neighbours=neighbours or {})


def entry(server: str, name: str, kind: EntryKind, text: str, **fields) -> Entry:
    evidence = [Evidence(probe_id=f"p-{name}-{kind.value}", tool=name, outcome=fields.get("outcome", OutcomeClass.OK),
                         excerpt=fields.pop("excerpt", "ok"))]
    return Entry(id=f"{server}.{name}.{kind.value}.{abs(hash(text)) % 10**6}", kind=kind, server=server, tool=name,
                 schema_hash="h", signature=text, text=text, evidence=evidence, probe_ids=[evidence[0].probe_id], **fields)


def small_atlas(*, stale_boundary: bool = False) -> AtlasView:
    tools = [
        tool("git", "git_commit", "Records changes to the repository."),
        tool("git", "git_add", "Adds file contents to the staging area.", {"git_commit": 0.5}),
        tool("git", "git_log", "Shows the commit logs."),
        tool("time", "convert_time", "Convert time between timezones."),
    ]
    entries = [
        entry("git", "git_commit", EntryKind.AFFORDANCE, "commit staged changes with a message", when="record changes"),
        entry("git", "git_commit", EntryKind.BOUNDARY, "git_commit fails when nothing is staged",
              condition="called with nothing staged", outcome=OutcomeClass.TOOL_ERROR,
              excerpt="No changes staged for commit. Use git_add first",
              status=EntryStatus.STALE if stale_boundary else EntryStatus.ACTIVE),
        entry("git", "git_add", EntryKind.AFFORDANCE, "stage files for the next commit", when="stage changes"),
        entry("git", "git_add", EntryKind.CO_USAGE, "git_commit depends on git_add", peer="git_commit",
              relation=CoUsageRelation.STATE, weight=0.5, transitions=1),
        entry("time", "convert_time", EntryKind.AFFORDANCE, "convert a time between zones", when="convert times"),
        entry("time", "convert_time", EntryKind.BOUNDARY, "convert_time fails on an unknown zone",
              condition="the timezone is not IANA", outcome=OutcomeClass.TOOL_ERROR, excerpt="Invalid timezone"),
    ]
    traces = [
        TraceNode(id="t-commit", server="git", task="stage the changed files, then commit them with a message",
                  steps=[TraceStep(tool="git_add", rationale="stage"), TraceStep(tool="git_commit", rationale="commit")],
                  tools=["git_add", "git_commit"], runs=2, resolved=2, strategies=["s-stage"], similar={"t-log": 0.4}),
        TraceNode(id="t-log", server="git", task="read the commit history",
                  steps=[TraceStep(tool="git_log", rationale="history")], tools=["git_log"], runs=1, resolved=1),
        TraceNode(id="t-time", server="time", task="convert a meeting time from Paris to Tokyo",
                  steps=[TraceStep(tool="convert_time", rationale="convert")], tools=["convert_time"], runs=1, resolved=1),
    ]
    strategies = [StrategyNode(id="s-stage", server="git", title="Stage before committing", when="committing",
                               plan=["Call git_add.", "Call git_commit."], tools=["git_add", "git_commit"],
                               traces=["t-commit"], support=2)]
    return AtlasView(tools, entries, traces, strategies)


class TestTraversal:
    def test_finds_the_tools_a_task_needs(self) -> None:
        """A commit task leads to git_commit and git_add, the strategy, and the exemplar trace."""
        guidance = Atlas(small_atlas()).guide("commit my staged changes with a message", docs_ratio=None)
        names = [t.tool for t in guidance.tools]
        assert {"git_commit", "git_add"} <= set(names[:3])
        assert guidance.strategies and guidance.strategies[0].title == "Stage before committing"
        assert guidance.exemplars and guidance.exemplars[0].id == "t-commit"
        assert guidance.trail[0].operation == "read_trace"

    def test_budget_bounds_the_reads(self) -> None:
        """The walk never reads more than the budget B."""
        for budget in (1, 2, 8):
            assert len(Atlas(small_atlas()).guide("commit my changes", budget=budget).trail) <= budget

    def test_server_filter(self) -> None:
        """Restricting to one server serves only that server's tools."""
        guidance = Atlas(small_atlas()).guide("convert a time and commit", servers=["time"])
        assert guidance.tools and {t.server for t in guidance.tools} == {"time"}

    def test_boundaries_carry_the_exact_error_and_their_entry(self) -> None:
        """when_not items quote the server's error and link to their entry and evidence."""
        guidance = Atlas(small_atlas()).guide("commit my changes")
        commit = next(t for t in guidance.tools if t.tool == "git_commit")
        assert commit.when_not[0].error.startswith("No changes staged")
        assert commit.when_not[0].entry_id.startswith("git.git_commit.boundary")
        assert commit.when_not[0].evidence == ["p-git_commit-boundary"]

    def test_stale_entries_are_not_served(self) -> None:
        """A stale boundary is left out by default."""
        guidance = Atlas(small_atlas(stale_boundary=True)).guide("commit my changes")
        commit = next(t for t in guidance.tools if t.tool == "git_commit")
        assert commit.when_not == []


class TestRendering:
    def test_token_budget_is_respected(self) -> None:
        """A small token budget trims the guidance but keeps the most relevant tool."""
        atlas = Atlas(small_atlas())
        full = atlas.guide("commit my staged changes", max_tokens=5000)
        small = atlas.guide("commit my staged changes", max_tokens=80)
        assert small.tokens <= max(80, small.tokens) and small.tokens < full.tokens
        assert small.tools and small.tools[0].tool == full.tools[0].tool

    def test_json_and_text_renderings(self) -> None:
        """The typed fields round-trip as JSON; the text rendering names tools, boundaries and steps."""
        guidance = Atlas(small_atlas()).guide("commit my staged changes")
        again = type(guidance).model_validate_json(guidance.model_dump_json())
        assert again == guidance
        text = guidance.to_text()
        assert "git.git_commit" in text and "No changes staged" in text and "1. Call git_add." in text


class TestLoading:
    def test_export_round_trip(self, tmp_path: Path) -> None:
        """An atlas exported to JSON and loaded back gives the same guidance."""
        view = small_atlas()
        export = assemble("demo", list(view.tool_nodes.values()), list(view.entries.values()),
                          list(view.traces.values()), list(view.strategies.values()), [])
        path = tmp_path / "atlas.json"
        path.write_text(export.model_dump_json(by_alias=True))
        loaded = Atlas.from_export(path)
        assert json.loads(path.read_text())["schema"] == "toolatlas.atlas/v1"
        task = "commit my staged changes"
        assert [t.tool for t in loaded.guide(task).tools] == [t.tool for t in Atlas(view).guide(task).tools]

    def test_traversal_operations(self) -> None:
        """The single-step operations read traces, neighbours, tools and strategies by id."""
        atlas = Atlas(small_atlas())
        assert atlas.search_traces("commit", k=1)[0].id == "t-commit"
        assert [t.id for t in atlas.expand("t-commit")] == ["t-log"]
        assert atlas.read_tool("git", "git_add").compositions[0].peer == "git_commit"
        assert atlas.read_strategy("t-commit")[0].steps == ["Call git_add.", "Call git_commit."]


class TestAnswerCache:
    def test_repeated_questions_are_answered_from_the_cache(self) -> None:
        """By default the same question gets the very same answer object back."""
        atlas = Atlas(small_atlas())
        assert atlas.guide("commit my changes") is atlas.guide("commit my changes")

    def test_cache_size_zero_computes_every_answer(self) -> None:
        """With cache_size=0 every answer is computed afresh, and equals the cached one."""
        uncached, cached = Atlas(small_atlas(), cache_size=0), Atlas(small_atlas())
        first, second = uncached.guide("commit my changes"), uncached.guide("commit my changes")
        assert first is not second and first == second == cached.guide("commit my changes")
