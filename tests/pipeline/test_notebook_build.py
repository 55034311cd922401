"""A build of a server of notes in a folder: a header grammar only its refusal states, a writer that makes no
folders, a remover that answers "removed" for what is not there, a folder remover no folder of the snapshot suits.

The real :mod:`toolatlas.testing.servers.notebook` server over stdio, on a folder of three notes in two
folders; one build for the module (bootstrap, one rollout of one seed task a tool, + 2 rounds).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from small_builds import server_entries, uses

from toolatlas.graph.models import Entry, EntryKind
from toolatlas.testing.opaque import folder_catalogue

pytestmark = pytest.mark.servers

NOTES = {
    "inbox/groceries.md": "~~~\ntitle: groceries\n~~~\nmilk, eggs\n",
    "inbox/call-back.md": "~~~\ntitle: call back\n~~~\nthe plumber, Tuesday\n",
    "projects/shed.md": "~~~\ntitle: shed\n~~~\nnew roof before winter\n",
}


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    folder: Path = tmp_path_factory.mktemp("notebook")
    catalogue = folder_catalogue(folder, "notebook", NOTES, rounds=2, description="Notes in a folder.")
    return server_entries(folder, catalogue, "notebook", seed_tasks_per_tool=1, rollouts_per_task=1)


class TestQuotedPatterns:
    def test_a_value_is_made_from_the_pattern_a_refusal_quotes(self, entries: list[Entry]) -> None:
        """`write_note` refuses a plain header quoting the pattern it checks; a header made from that pattern
        (its shortest match) is a verified use."""
        headers = [ev.arguments["header"] for e in uses(entries, "write_note") for ev in e.evidence]
        assert headers and all(h.startswith("~~~\n") and h.endswith("\n~~~") for h in headers)


class TestMissingFolders:
    def test_a_writer_is_tried_in_a_folder_that_does_not_exist(self, entries: list[Entry]) -> None:
        """A note written into a folder nobody made meets the server's refusal, recorded as a boundary."""
        assert any(e.tool == "write_note" and e.family == "missing_parent" and e.kind is EntryKind.BOUNDARY
                   and "No such file or directory" in (e.error_signature or "") for e in entries)


class TestClaimedRemovals:
    def test_removing_a_note_that_is_not_there_is_a_boundary_reported_as_success(self, entries: list[Entry]) -> None:
        """`remove_note` of a path that names nothing answers `Note removed` and changes nothing: a failure the
        server reports as a success — while removing a note that exists stays a verified use."""
        claimed = [e for e in entries if e.tool == "remove_note" and e.kind is EntryKind.BOUNDARY
                   and "Note removed" in (e.error_signature or "")]
        assert claimed and all(e.reported_as_success for e in claimed)
        assert any(ev.state_change for e in uses(entries, "remove_note") for ev in e.evidence)


class TestMadeToBeRemoved:
    def test_a_folder_remover_is_verified_on_a_folder_just_made(self, entries: list[Entry]) -> None:
        """Every folder of the snapshot holds notes, so `rmdir` is tried on a folder `mkdir` has just made."""
        [use] = uses(entries, "rmdir")
        assert use.evidence[0].prefix[0]["tool"] == "mkdir"
        assert "removed" in use.evidence[0].state_change
