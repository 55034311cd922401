"""Recall of maintainer facts on real third-party servers nobody tuned for (the wild catalogue).

A fast subset — three wild servers of different kinds (``units``: no state, PyPI; ``eslint``: a
directory, npm; ``taskmanager``: a JSON file, npm) — is built offline in-process into a throwaway
store, and its atlas is checked against the servers' maintainer facts (``benchmarks/facts/wild/``)
with the strict matcher. The facts the engine recalls today must stay recalled; the issue's target
(every fact of these servers, every tool with a verified use) is marked ``xfail(strict=True)``, so
it turns into a failure to act on the day the engine reaches it. The whole catalogue's build is
slow-marked (``benchmarks/atlas_recall.py`` reports it with its figures).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from toolatlas.evaluation.facts import FactOutcome, load_facts, recall_facts
from toolatlas.graph.models import EntryKind, EntryStatus
from toolatlas.testing.wild import FAST_SUBSET, WildBuild, build_wild
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
RECALLED_TODAY = {
    ("units", "non-conformable"),
    ("units", "undefined-unit"),
    ("units", "define-is-not-an-evaluator"),
    ("units", "compound-to-si"),
    ("units", "find-units-triage"),
    ("eslint", "no-matching-files"),
    ("eslint", "ignored-file-warning"),
    ("eslint", "at-least-one-path"),
    ("taskmanager", "plan-gives-request-id"),
    ("taskmanager", "approve-needs-done"),
    ("taskmanager", "request-needs-all-done"),
    ("taskmanager", "unknown-request"),
    ("taskmanager", "mark-then-approve"),
}
"""Facts of the fast subset the offline engine recalls (a floor: 13 of 16; 7 when the catalogue was made)."""
WITHOUT_A_USE_TODAY = 1
"""Tools of the subset with no verified use (a ceiling): a request's final approval, valid only once every
one of its tasks is done and approved — a chain of four steps the engine does not plan yet."""

pytestmark = pytest.mark.servers


def judged(built: WildBuild) -> tuple[list[FactOutcome], dict[str, set[str]], dict]:
    """The fact outcomes of a wild build, each server's tools without an active affordance, and each
    server's build status."""
    chosen = [s for s in built.catalogue.enabled_servers if s.name in built.report.servers]
    fact_sets = [
        s for s in load_facts(REPO / "benchmarks" / "facts" / "wild") if s.server in {c.name for c in chosen}
    ]
    afforded = {
        (e.server, e.tool)
        for e in built.entries
        if e.kind is EntryKind.AFFORDANCE and e.status is EntryStatus.ACTIVE
    }
    missing = {spec.name: asyncio.run(listed_tools(built.workspace, spec)) for spec in chosen}
    for spec in chosen:
        missing[spec.name] -= {tool for server, tool in afforded if server == spec.name}
    return recall_facts(fact_sets, built.entries), missing, built.report.servers


async def listed_tools(workspace: Workspace, spec) -> set[str]:
    """The tools the live server lists (a tool the atlas holds no node for still counts)."""
    async with workspace.sandbox(spec) as sandbox:
        return {tool.name for tool in sandbox.tools}


@pytest.fixture(scope="module")
def fast_subset(wild_fast_subset: WildBuild):
    return judged(wild_fast_subset)


class TestFastSubset:
    def test_every_server_builds(self, fast_subset):
        """The three servers start in their sandboxes and complete every round."""
        _outcomes, _missing, statuses = fast_subset
        assert statuses == {name: "ok" for name in FAST_SUBSET}

    def test_every_fact_is_judged(self, fast_subset):
        """Each fact of the subset gets an outcome; a miss says what the atlas holds instead."""
        outcomes, _missing, _statuses = fast_subset
        assert {o.server for o in outcomes} == set(FAST_SUBSET)
        assert len(outcomes) == sum(
            len(s.facts)
            for s in load_facts(REPO / "benchmarks" / "facts" / "wild")
            if s.server in FAST_SUBSET
        )
        assert all(o.reason for o in outcomes if not o.recalled)

    def test_facts_recalled_today_stay_recalled(self, fast_subset):
        """The engine's recall on these servers does not fall below what it recalled when they were added."""
        outcomes, _missing, _statuses = fast_subset
        recalled = {(o.server, o.fact) for o in outcomes if o.recalled}
        assert RECALLED_TODAY <= recalled, sorted(RECALLED_TODAY - recalled)

    @pytest.mark.xfail(
        strict=True, reason="issue 14 target: the engine does not yet recall every maintainer fact"
    )
    def test_target_every_fact_recalled(self, fast_subset):
        """Target: every maintainer fact of the subset is recalled."""
        outcomes, _missing, _statuses = fast_subset
        assert [f"{o.server}.{o.fact}: {o.reason}" for o in outcomes if not o.recalled] == []

    def test_tools_without_a_use_do_not_grow(self, fast_subset):
        """No more tools of the subset lack a verified use than today (an error in an ok result is no use)."""
        _outcomes, missing, _statuses = fast_subset
        assert sum(len(tools) for tools in missing.values()) <= WITHOUT_A_USE_TODAY, missing

    @pytest.mark.xfail(
        strict=True, reason="issue 14 target: a use that needs a four-step workflow first is not planned yet"
    )
    def test_target_every_tool_has_a_verified_use(self, fast_subset):
        """Target: every tool of the subset has at least one active verified affordance (issue 14: ≥ 95%)."""
        _outcomes, missing, _statuses = fast_subset
        assert missing == {name: set() for name in FAST_SUBSET}


@pytest.mark.slow
def test_whole_wild_catalogue(tmp_path):
    """Every wild server builds, and the atlas recalls at least the share of facts it recalls today (0.37
    when the catalogue was made, 0.8 now; the issue's target is 0.9 — benchmarks/atlas_recall.py reports it)."""
    outcomes, _missing, statuses = judged(build_wild(tmp_path / "atlas"))
    assert all(status == "ok" for status in statuses.values()), statuses
    assert sum(o.recalled for o in outcomes) / len(outcomes) >= 0.75
