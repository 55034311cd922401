"""A build of a server whose listing names values not every tool accepts.

The real :mod:`toolatlas.testing.servers.digests` server over stdio; one build for the module (bootstrap,
one rollout of one seed task a tool, + 2 rounds: the listing's values are tried a few families a round).
"""

from __future__ import annotations

import pytest
from small_builds import library_server_entries

from toolatlas.graph.models import Entry, EntryKind

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    return library_server_entries(tmp_path_factory, "digests", rounds=2, description="Digests of text.",
                                  seed_tasks_per_tool=1, rollouts_per_task=1)


class TestListedValues:
    def test_a_listed_value_the_tool_refuses_is_a_boundary(self, entries: list[Entry]) -> None:
        """`digest` is tried with one algorithm of each family `list_algorithms` names: a SHAKE algorithm fails
        for want of a length, recorded with the algorithm it was called with."""
        refused = [e for e in entries if e.tool == "digest" and e.kind is EntryKind.BOUNDARY
                   and "missing required argument 'length'" in " ".join(ev.excerpt for ev in e.evidence)]
        assert refused and any(str(ev.arguments.get("algorithm", "")).startswith("shake")
                               for e in refused for ev in e.evidence)

    def test_the_listing_feeds_the_tool_with_the_values_it_accepts(self, entries: list[Entry]) -> None:
        """An algorithm of another family than the one first used works, and `list_algorithms` → `digest` is
        recorded as a data composition."""
        used = {ev.arguments.get("algorithm") for e in entries if e.tool == "digest"
                and e.kind is EntryKind.AFFORDANCE for ev in e.evidence}
        assert len({str(a)[:3] for a in used if a}) >= 2
        assert any(e.kind is EntryKind.CO_USAGE and e.tool == "list_algorithms" and e.peer == "digest" for e in entries)
