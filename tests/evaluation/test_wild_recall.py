"""Recall of maintainer facts on real third-party servers nobody tuned for (the wild catalogue).

A fast subset — three wild servers of different kinds (``units``: no state, PyPI; ``eslint``: a
directory, npm; ``taskmanager``: a JSON file, npm) — is built offline in-process into a throwaway
store, and its atlas is checked against the servers' maintainer facts (``benchmarks/facts/wild/``)
with the strict matcher: every fact is recalled, and every tool the servers list has a verified use
(the task manager's request approval only after a plan, its task marked done and approved — a
workflow of four calls). The whole catalogue's build is slow-marked (``benchmarks/atlas_recall.py``
reports it with its figures).
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

    def test_every_fact_is_recalled(self, fast_subset):
        """Every maintainer fact of the subset is recalled by an entry that shows it."""
        outcomes, _missing, _statuses = fast_subset
        assert [f"{o.server}.{o.fact}: {o.reason}" for o in outcomes if not o.recalled] == []

    def test_every_tool_has_a_verified_use(self, fast_subset):
        """Every tool the subset's servers list has at least one active verified affordance (an error in
        an ok result is no use), the request approval that needs a four-call workflow included."""
        _outcomes, missing, _statuses = fast_subset
        assert missing == {name: set() for name in FAST_SUBSET}


@pytest.mark.slow
def test_whole_wild_catalogue(tmp_path):
    """Every wild server builds; the atlas recalls at least 0.9 of the facts and 95% of the tools have a
    verified use (benchmarks/atlas_recall.py reports the figures)."""
    built = build_wild(tmp_path / "atlas")
    outcomes, missing, statuses = judged(built)
    assert all(status == "ok" for status in statuses.values()), statuses
    assert sum(o.recalled for o in outcomes) / len(outcomes) >= 0.9
    listed = sum(len(asyncio.run(listed_tools(built.workspace, spec))) for spec in built.catalogue.enabled_servers)
    assert sum(len(tools) for tools in missing.values()) <= 0.05 * listed, missing
