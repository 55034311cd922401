"""A build of a server whose edits stay in its process until a save writes them out, which its answer says
(``Remember to call save_drafts to persist changes``), and whose listing flags some drafts: a pinned one it does
not edit (saying so in a successful answer), a locked one it edits all the same.

The real :mod:`toolatlas.testing.servers.drafts` server over stdio, on a folder holding one drafts file; one build
for the module (bootstrap, one rollout of one seed task a tool, + 2 rounds).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from small_builds import server_entries, uses

from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind
from toolatlas.testing.opaque import folder_catalogue

pytestmark = pytest.mark.servers

DRAFTS = {"drafts.json": json.dumps({
    "d1": {"title": "Welcome", "text": "Welcome aboard."},
    "d2": {"title": "Timetable", "text": "Sailings at nine and five.", "pinned": True},
    "d3": {"title": "Fares", "text": "Adults four pounds.", "locked": True},
    "d4": {"title": "Farewell", "text": "See you on the quay."},
}, indent=2)}


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    folder: Path = tmp_path_factory.mktemp("drafts")
    catalogue = folder_catalogue(folder, "drafts", DRAFTS, rounds=2, description="Drafts saved to a folder.")
    return server_entries(folder, catalogue, "drafts", seed_tasks_per_tool=1, rollouts_per_task=1)


def boundaries(entries: list[Entry], tool: str) -> list[Entry]:
    return [e for e in entries if e.tool == tool and e.kind is EntryKind.BOUNDARY]


class TestDeferredEffects:
    def test_an_edit_reaches_the_folder_only_through_the_save_its_answer_names(self, entries: list[Entry]) -> None:
        """The co-usage ``edit_draft`` → ``save_drafts`` holds the save that, after the edit, changed the drafts
        file where right after itself it changed only the backup."""
        [persisted] = [e for e in entries if e.kind is EntryKind.CO_USAGE and e.tool == "edit_draft"
                       and e.peer == "save_drafts"]
        assert persisted.relation is CoUsageRelation.STATE
        said = persisted.evidence[0].excerpt
        assert said.startswith("changed drafts.json only after `edit_draft`") and "drafts.json.bak" in said
        assert uses(entries, "edit_draft")

    def test_a_save_without_an_edit_carries_nothing(self, entries: list[Entry]) -> None:
        """No other tool is said to reach the folder through the save: reads name no tool and change nothing."""
        assert not [e for e in entries if e.kind is EntryKind.CO_USAGE and e.peer == "save_drafts"
                    and e.tool != "edit_draft"]


class TestFlaggedRecords:
    def test_an_edit_of_the_pinned_draft_is_a_refusal_reported_as_success(self, entries: list[Entry]) -> None:
        """The listing flags d2 `pinned`: the plain edit is tried on it, and its answer `"status": "error"` is a
        boundary reported as success, on that very draft."""
        [pinned] = [e for e in boundaries(entries, "edit_draft") if "is pinned" in e.signature]
        assert pinned.reported_as_success and pinned.evidence[0].arguments["draft_id"] == "d2"

    def test_an_edit_of_the_locked_draft_that_goes_through_is_a_failure(self, entries: list[Entry]) -> None:
        """The listing flags d3 `locked`: the edit of it went through without a word of the lock."""
        [locked] = [e for e in boundaries(entries, "edit_draft") if e.family == "locked_target"]
        assert locked.reported_as_success and locked.evidence[0].arguments["draft_id"] == "d3"
        assert "marks locked" in locked.condition
