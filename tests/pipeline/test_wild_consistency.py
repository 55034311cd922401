"""What a build serves on real third-party servers nobody tuned for is consistent (the wild catalogue).

A fast subset of ``configs/wild.toml`` — the three servers ``make test-servers`` installs (``units``:
no state; ``eslint``: a directory; ``taskmanager``: a JSON file) — is built offline in-process into
a throwaway store. The build's own consistency check (``consistency.json``) must find no
contradiction and no served entry without evidence. The whole catalogue is measured by
``benchmarks/atlas_precision.py``.
"""

from __future__ import annotations

import json

import pytest

from toolatlas.graph.consistency import check_consistency
from toolatlas.graph.families import SCHEMA_SUMMARY, is_schema_validation
from toolatlas.graph.models import EntryStatus
from toolatlas.store.paths import AtlasPaths
from toolatlas.testing.wild import FAST_SUBSET

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def wild(wild_fast_subset):  # type: ignore[no-untyped-def]
    return wild_fast_subset.catalogue, wild_fast_subset.report, wild_fast_subset.entries


class TestWildConsistency:
    def test_the_subset_builds(self, wild) -> None:
        """The three servers complete every round."""
        _catalogue, report, _entries = wild
        assert report.servers == {name: "ok" for name in FAST_SUBSET}

    def test_no_contradiction_is_served(self, wild) -> None:
        """The build's consistency check finds no contradiction and no entry without evidence, and says so
        in consistency.json beside the atlas."""
        catalogue, _report, entries = wild
        written = json.loads(AtlasPaths(catalogue).consistency.read_text())
        report = check_consistency(entries)
        assert written["contradictions"] == [] and written["without_evidence"] == []
        assert report.ok, [c.detail for c in report.contradictions] + report.without_evidence

    def test_schema_violations_are_summarised(self, wild) -> None:
        """Only schema summaries are served among schema-only boundaries, at most one per tool."""
        _catalogue, _report, entries = wild
        served = [e for e in entries if e.status is EntryStatus.ACTIVE and is_schema_validation(e)]
        assert all(e.family == SCHEMA_SUMMARY for e in served)
        assert len({(e.server, e.tool) for e in served}) == len(served)
