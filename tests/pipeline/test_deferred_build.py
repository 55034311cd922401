"""A build of a server whose edits stay in its process until a save writes them out, which its answer says
(``Remember to call save_drafts to persist changes``): the edit changes no file, and the save changes the folder
either way (a backup), so only ``save, save, edit, save`` shows what the edit left for the save to write.

The real :mod:`toolatlas.testing.servers.drafts` server over stdio, on a folder holding one drafts file; one build
for the module (bootstrap, one rollout of one seed task a tool, + 1 round).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from small_builds import server_entries, uses

from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind
from toolatlas.testing.opaque import folder_catalogue

pytestmark = pytest.mark.servers

DRAFTS = {"drafts.json": json.dumps({"intro": "Welcome aboard.", "outro": "See you on the quay."}, indent=2)}


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    folder: Path = tmp_path_factory.mktemp("drafts")
    catalogue = folder_catalogue(folder, "drafts", DRAFTS, rounds=1, description="Drafts saved to a folder.")
    return server_entries(folder, catalogue, "drafts", seed_tasks_per_tool=1, rollouts_per_task=1)


class TestDeferredEffects:
    def test_an_edit_reaches_the_folder_only_through_the_save_its_answer_names(self, entries: list[Entry]) -> None:
        """The edit has a verified use; the co-usage ``edit_draft`` → ``save_drafts`` holds the save
        that, after the edit, changed the drafts file where right after itself it changed only the backup."""
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
