"""A build of a server whose answers are text: an id minted in a ``Search ID:`` line, a slow minting call, a
malformed pattern answered as if nothing matched.

The real :mod:`toolatlas.testing.servers.searches` server over stdio; one build for the module (bootstrap
of one seed task a tool run twice — two answers of one call show an id minted anew —, then 1 round, where
the ids learnt from them are bound). The server keeps its searches in memory, so it restarts after most
probes, and each search sleeps: two executors share the probes so that those waits overlap; the atlas is
the one executor's (tests/pipeline/test_resume.py, TestDeterminism).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from small_builds import library_server_entries, uses

from toolatlas.config import load_catalogue
from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind
from toolatlas.home import Home
from toolatlas.lifecycle.verify import agreement, replay_probe
from toolatlas.probing.executor import Executor
from toolatlas.testing.opaque import server_catalogue
from toolatlas.workspace import Workspace

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    return library_server_entries(tmp_path_factory, "searches", rounds=1, description="Paged searches over meeting notes.",
                                  seed_tasks_per_tool=1, rollouts_per_task=2, executors_per_server=2)


class TestIdsInText:
    def test_a_pager_is_verified_on_the_id_a_text_answer_minted(self, entries: list[Entry]) -> None:
        """`next_page` works on the id `search_lines` printed as `Search ID: …` just before, in the same run."""
        [use] = uses(entries, "next_page")
        assert use.example_arguments == {"search_id": "${step0.search_id}"}
        assert use.evidence[0].prefix[0]["tool"] == "search_lines"
        assert "not found" not in use.evidence[0].excerpt

    def test_the_search_feeds_every_tool_that_takes_its_id(self, entries: list[Entry]) -> None:
        """Data compositions `search_lines` → `next_page` and → `search_info` are recorded."""
        fed = {e.peer for e in entries if e.kind is EntryKind.CO_USAGE and e.tool == "search_lines"
               and e.relation is CoUsageRelation.DATA}
        assert {"next_page", "search_info"} <= fed


class TestCostlyMinter:
    def test_the_slow_search_does_not_keep_its_consumers_from_their_uses(self, entries: list[Entry]) -> None:
        """`search_lines` costs far more than the paging calls, yet both tools that take its id have a use:
        a call that feeds another is charged to the tool that takes its answer."""
        assert uses(entries, "next_page") and uses(entries, "search_info")


class TestSwallowedErrors:
    def test_a_pattern_that_does_not_compile_is_a_boundary_reported_as_success(self, entries: list[Entry]) -> None:
        """A malformed regular expression answered `No matches found` is a failure the server hides, not a
        misuse it tolerates."""
        found = [e for e in entries if e.tool == "count_matches" and e.kind is EntryKind.BOUNDARY
                 and e.family == "malformed_value"]
        assert found and found[0].reported_as_success
        assert "No matches found for pattern" in found[0].evidence[0].excerpt
        assert not any(e.tool == "count_matches" and e.signature.startswith("tolerates:malformed_value")
                       for e in entries)

    async def test_a_replay_judges_the_malformed_pattern_as_the_build_did(self, entries: list[Entry], tmp_path: Path) -> None:
        """Replayed as the misuse it was (its family), the call on a fresh server is again a failure reported as
        success: the boundary's evidence agrees."""
        [entry] = [e for e in entries if e.tool == "count_matches" and e.kind is EntryKind.BOUNDARY
                   and e.family == "malformed_value"][:1]
        catalogue = load_catalogue(server_catalogue(tmp_path, "searches"))
        executor = Executor(Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("searches")), "test")
        await executor.start()
        try:
            rollout, verdict = await executor.run_verified(replay_probe("searches", entry.evidence[0], 0, entry.family))
        finally:
            await executor.close()
        assert agreement(entry, entry.evidence[0], rollout, verdict) == (True, "")
