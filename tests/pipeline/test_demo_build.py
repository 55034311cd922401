"""A real offline build of the demo catalogue: what the atlas must know, and that it is true.

One build (bootstrap + 2 rounds, the session's ``demo_build``) runs once against the real demo
servers; the tests read the atlas it stored. This is the product's main job, end to end, with no LLM.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator

import pytest

from toolatlas.config import Catalogue
from toolatlas.environments import render_value
from toolatlas.graph.consistency import check_consistency
from toolatlas.graph.families import SCHEMA_SUMMARY, is_schema_validation
from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind, EntryStatus
from toolatlas.models import Effect
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.pipeline.persistence import read_coverage
from toolatlas.probing.hidden import hidden_failure
from toolatlas.probing.verifier import step_failed
from toolatlas.store.paths import AtlasPaths, open_store
from toolatlas.workspace import Workspace


@pytest.fixture(scope="module")
def built(demo_build) -> Iterator[tuple[Catalogue, dict]]:  # type: ignore[no-untyped-def]
    """The session's demo build, then a second build of ``time`` alone (bootstrap only) into its store."""
    catalogue, workspace = demo_build.catalogue, demo_build.workspace
    store = open_store(catalogue)
    try:
        second = asyncio.run(build_catalogue(workspace, store, servers=[catalogue.server("time")], rounds=0))
        after_second = store.records()
    finally:
        store.close()
    yield catalogue, {"first": demo_build.report, "rounds": demo_build.rounds, "records": demo_build.records,
                      "second": second, "after_second": after_second, "workspace": workspace}


def entries(built, server: str, tool: str | None = None, kind: EntryKind | None = None) -> list[Entry]:
    _catalogue, state = built
    return [
        e for e in state["records"]["entries"]
        if e.server == server and (tool is None or e.tool == tool) and (kind is None or e.kind is kind)
    ]


def texts(found: list[Entry]) -> str:
    return "\n".join(e.text + " " + " ".join(ev.excerpt for ev in e.evidence) for e in found)


class TestBuildRuns:
    def test_every_server_completes_every_round(self, built) -> None:
        """All five demo servers finish bootstrap and both rounds, and the coverage log has every row."""
        catalogue, state = built
        report = state["first"]
        assert report.servers == {s.name: "ok" for s in catalogue.servers}
        expected = {(s.name, r) for s in catalogue.servers for r in range(state["rounds"] + 1)}
        assert {(r.server, r.round) for r in report.coverage} == expected
        rows = read_coverage(AtlasPaths(catalogue).coverage)  # the later time-only build restarted its rows
        assert {(r.server, r.round) for r in rows} == {k for k in expected if k[0] != "time"} | {("time", 0)}
        assert (AtlasPaths(catalogue).build_report).exists()

    def test_every_tool_has_a_verified_affordance(self, built) -> None:
        """Each tool of each demo server has at least one affordance backed by a successful call."""
        _catalogue, state = built
        for node in state["records"]["tools"]:
            assert node.affordances, f"{node.server}.{node.tool} has no affordance"

    def test_no_entry_without_evidence(self, built) -> None:
        """Every entry keeps the verbatim calls that verified it."""
        _catalogue, state = built
        for entry in state["records"]["entries"]:
            assert entry.evidence, entry.text
            assert entry.support >= 1 and entry.probe_ids


    def test_its_export_loads_whole(self, built) -> None:
        """The integrity check a loaded export passes drops nothing of a genuine atlas."""
        from toolatlas.export import assemble
        from toolatlas.trust import admit

        _catalogue, state = built
        records = state["records"]
        export = assemble("demo", records["tools"], records["entries"], records["traces"], records["strategies"], [])
        _kept, report = admit(export)
        assert report.dropped == [] and report.kept > 0


class TestKnownBoundaries:
    def test_filesystem_refuses_paths_outside_the_allowed_directory(self, built) -> None:
        """The filesystem server's sandbox boundary is recorded with its exact error."""
        found = texts(entries(built, "filesystem", kind=EntryKind.BOUNDARY))
        assert "outside allowed directories" in found

    def test_sqlite_statement_kind_restrictions(self, built) -> None:
        """read_query only takes SELECT (and write_query refuses SELECT), as the server says."""
        found = texts(entries(built, "sqlite", kind=EntryKind.BOUNDARY))
        assert "Only SELECT queries are allowed for read_query" in found or "SELECT queries are not allowed" in found

    def test_time_invalid_timezone(self, built) -> None:
        """An unknown IANA time zone is a boundary of the time server."""
        found = texts(entries(built, "time", kind=EntryKind.BOUNDARY))
        assert "Invalid timezone" in found

    def test_git_commit_with_nothing_staged(self, built) -> None:
        """Committing on a snapshot with nothing staged fails, and the atlas says so."""
        found = entries(built, "git", "git_commit", EntryKind.BOUNDARY)
        assert any("No changes staged for commit" in texts([e]) for e in found)

    def test_soft_errors_are_marked(self, built) -> None:
        """A server that reports an error inside a successful result (sqlite) is recorded as such."""
        soft = [e for e in entries(built, "sqlite", kind=EntryKind.BOUNDARY) if e.reported_as_success]
        assert soft and all(e.outcome and e.outcome.value == "ok" for e in soft)


class TestKnownCompositions:
    def test_git_add_then_git_commit(self, built) -> None:
        """git_add → git_commit is a verified state composition."""
        found = [e for e in entries(built, "git", "git_add", EntryKind.CO_USAGE) if e.peer == "git_commit"]
        assert found and found[0].relation is CoUsageRelation.STATE and 0 < (found[0].weight or 0) <= 1

    def test_a_proven_enabler_comes_before_the_step_it_enables(self, built) -> None:
        """git_commit failed on the snapshot and succeeded once git_add had changed the state: that
        boundary names git_add, and a plan that commits stages first."""
        from toolatlas.graph.models import CoUsageRelation
        from toolatlas.guidance import Atlas, AtlasView

        proven = [e for e in entries(built, "git", "git_commit", EntryKind.BOUNDARY) if e.relation is CoUsageRelation.STATE]
        assert [e.peer for e in proven] == ["git_add"]
        records = built[1]["records"]
        atlas = Atlas(AtlasView(records["tools"], records["entries"], records["traces"], records["strategies"]))
        plan = [step.tool.split(".")[1] for step in atlas.guide("Commit my pending changes with a short message").plan]
        assert "git_add" in plan and plan.index("git_add") < plan.index("git_commit")

    def test_listing_feeds_the_filesystem_tools(self, built) -> None:
        """Values a filesystem listing returns are verified inputs of other filesystem tools (data edges)."""
        data = [e for e in entries(built, "filesystem", kind=EntryKind.CO_USAGE) if e.relation is CoUsageRelation.DATA]
        sources = {e.tool for e in data}
        assert sources & {"list_allowed_directories", "list_directory", "list_directory_with_sizes", "directory_tree", "search_files"}

    def test_writes_are_read_back_on_the_writer(self, built) -> None:
        """write_file → a read showing the new text, create_entities → a read naming the new entity,
        write_query → a SELECT finding the inserted row: state edges recorded on the tool that writes."""
        state = {
            (e.server, e.tool) for e in entries(built, "filesystem") + entries(built, "memory") + entries(built, "sqlite")
            if e.kind is EntryKind.CO_USAGE and e.relation is CoUsageRelation.STATE
        }
        assert {("filesystem", "write_file"), ("memory", "create_entities"), ("sqlite", "write_query")} <= state

    def test_weights_are_witnessed_ratios(self, built) -> None:
        """Co-usage weights are N_ij / N_i: in (0, 1], and a tool's outgoing weights never sum past its transitions."""
        _catalogue, state = built
        for entry in state["records"]["entries"]:
            if entry.kind is EntryKind.CO_USAGE:
                assert entry.transitions >= 1 and 0 < (entry.weight or 0) <= 1


class TestRebuild:
    def test_second_build_adds_support_without_duplicates(self, built) -> None:
        """Building the same server again upserts the same ids and raises their support."""
        _catalogue, state = built
        before = {e.id: e for e in state["records"]["entries"] if e.server == "time"}
        after = {e.id: e for e in state["after_second"]["entries"] if e.server == "time"}
        assert set(before) <= set(after)
        reobserved = [i for i in before if after[i].support > before[i].support]
        assert reobserved, "the seed round should have re-observed known entries"
        ids = [e.id for e in state["after_second"]["entries"]]
        assert len(ids) == len(set(ids))


class TestEvidenceIsTrue:
    async def test_replayed_evidence_gives_the_same_outcome(self, built) -> None:
        """A sample of entries' evidence, replayed in a fresh sandbox, gives the outcome class the entry claims."""
        catalogue, state = built
        workspace: Workspace = state["workspace"]
        rng = random.Random(7)
        checked = 0
        for server in ("filesystem", "sqlite", "git", "memory", "time"):
            candidates = [
                (e, ev) for e in entries(built, server) if e.kind is not EntryKind.CO_USAGE
                for ev in e.evidence[:1] if ev.step == 0
            ]
            sample = rng.sample(candidates, min(8, len(candidates)))
            async with workspace.sandbox(server) as sandbox:
                specs = {spec.name: spec for spec in sandbox.tools}
                for entry, evidence in sample:
                    before = await sandbox.digest() if sandbox.environment.kind != "none" else None
                    outcome = await sandbox.call(evidence.tool, render_value(evidence.arguments, sandbox.variables()))
                    # whether the call changed the state, as the build saw it (a refusal that also acts is a tolerance)
                    changed = None if before is None else not before.diff(await sandbox.digest()).empty
                    await sandbox.reset()
                    failed, _soft = step_failed(outcome)
                    # an answer that reads as a success and is not: judged, as the build judges it, by what the call broke
                    failed = failed or hidden_failure(outcome, specs.get(evidence.tool), mutation=entry.family,
                                                      changed=changed, arguments=evidence.arguments) is not None
                    assert failed == (entry.kind is EntryKind.BOUNDARY), (entry.text, outcome.excerpt[:200])
                    assert outcome.outcome is evidence.outcome, (entry.text, outcome.excerpt[:200])
                    checked += 1
        assert checked >= 30


class TestServedIsConsistent:
    def test_the_build_checks_its_atlas(self, built) -> None:
        """The build writes its consistency check beside the atlas; it finds no contradiction and no
        entry without evidence, and agrees with a check run on the stored records."""
        catalogue, state = built
        written = json.loads(AtlasPaths(catalogue).consistency.read_text())
        assert written["contradictions"] == [] and written["without_evidence"] == []
        report = check_consistency(state["after_second"]["entries"])
        assert report.ok, [c.detail for c in report.contradictions] + report.without_evidence
        assert written["served"] == report.served

    def test_a_use_that_changes_state_only_sometimes_says_when(self, built) -> None:
        """Every served affordance observed both changing and not changing the environment is one entry
        whose observations each carry the pre-state condition they were made under."""
        _catalogue, state = built
        mixed = [e for e in state["records"]["entries"] if e.status is EntryStatus.ACTIVE
                 and {o.effect for o in e.effects} >= {Effect.READ_ONLY, Effect.MUTATING}]
        assert mixed, "the demo's writers are replayed: some use must have been seen doing nothing the second time"
        for entry in mixed:
            assert all(o.condition for o in entry.effects), entry.text
            assert "changes nothing when" in entry.text and "changes the environment" in entry.text

    def test_schema_only_boundaries_are_served_once_per_tool(self, built) -> None:
        """No individual schema-only boundary is served; each tool serves at most one schema summary,
        which stands for boundaries kept in the atlas."""
        _catalogue, state = built
        served = [e for e in state["records"]["entries"] if e.status is EntryStatus.ACTIVE and is_schema_validation(e)]
        assert served and all(e.family == SCHEMA_SUMMARY for e in served)
        tools = [(e.server, e.tool) for e in served]
        assert len(tools) == len(set(tools))
        by_id = {e.id: e for e in state["records"]["entries"]}
        for summary in served:
            assert summary.summarises and all(by_id[i].status is EntryStatus.SUMMARISED for i in summary.summarises)
