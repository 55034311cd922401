"""A build of a server whose answers claim what they did not do, whose reader takes an open filter, whose
schema refusals share one first line, whose second link between two shapes replaces the first, and whose
check fails only on what another tool filled.

The real :mod:`toolatlas.testing.servers.sketch` server over stdio; one build for the module (bootstrap +
2 rounds, one rollout of one seed task a tool, two executors so that the server's restarts overlap: the atlas
is the one executor's), and hand-planned probes on the same server for a boundary's cause.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from small_builds import library_server_entries

from toolatlas.config import load_catalogue
from toolatlas.graph.families import SCHEMA_SUMMARY
from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import Entry, EntryKind, EntryStatus
from toolatlas.graph.state import ServerGraph
from toolatlas.home import Home
from toolatlas.lifecycle.verify import agreement, replay_probe
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.testing.opaque import server_catalogue
from toolatlas.workspace import Workspace

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    return library_server_entries(tmp_path_factory, "sketch", rounds=2, description="Shapes on a canvas.",
                                  seed_tasks_per_tool=1, rollouts_per_task=1, executors_per_server=2)


class TestClaimedActions:
    def test_an_action_claimed_on_ids_that_do_not_exist_is_a_boundary(self, entries: list[Entry]) -> None:
        """`align_shapes` answering `"aligned": true` for an id nobody made is a failure reported as success,
        not a misuse it tolerates."""
        claimed = [e for e in entries if e.tool == "align_shapes" and e.kind is EntryKind.BOUNDARY
                   and e.family == "nonexistent_reference"]
        assert claimed and all(e.reported_as_success for e in claimed)
        assert '"aligned": true' in claimed[0].evidence[0].excerpt
        assert "answers as if it succeeded" in claimed[0].text and "aligned: true" in claimed[0].text
        assert not any(e.tool == "align_shapes" and e.signature.startswith("tolerates:nonexistent_reference")
                       for e in entries)

    def test_a_refusal_of_an_unknown_id_stays_a_plain_error(self, entries: list[Entry]) -> None:
        """`erase_shape` refuses an unknown id itself: its boundary is an error result, not a hidden one."""
        refused = [e for e in entries if e.tool == "erase_shape" and e.kind is EntryKind.BOUNDARY
                   and "not found" in (e.error_signature or "")]
        assert refused and not any(e.reported_as_success for e in refused)


class TestOpenFilters:
    def test_a_reader_asks_for_what_was_just_written_by_its_own_field(self, entries: list[Entry]) -> None:
        """`list_shapes`' open `filter` takes a field of the shape `add_shape` just added, and its answer shows it."""
        shown = [ev for e in entries if e.tool == "list_shapes" and e.kind is EntryKind.AFFORDANCE
                 for ev in e.evidence if isinstance(ev.arguments.get("filter"), dict) and ev.arguments["filter"]
                 and '"id"' in ev.excerpt]
        assert shown and set(shown[0].arguments["filter"]) == {"kind"}


class TestSchemaSummary:
    def test_a_refusal_of_the_input_model_is_said_by_its_field(self, entries: list[Entry]) -> None:
        """A pydantic refusal's first line is the same for every violation ("1 validation error for
        add_shapeArguments"); the summary names each violation tried (a kind not in the enum among them), and its evidence
        keeps the field and the server's list of kinds."""
        [summary] = [e for e in entries if e.tool == "add_shape" and e.family == SCHEMA_SUMMARY]
        answers = " ".join(ev.excerpt for ev in summary.evidence)
        assert "Input should be 'circle', 'square' or 'triangle'" in answers
        assert "validation error for add_shapeArguments" in summary.text
        assert "`kind` is not one of: circle, square, triangle" in summary.text
        assert "add_shapeArguments\nkind\n  Input should be" in answers  # the field under the head, then why


class TestSecondWrites:
    def test_a_second_link_between_the_same_shapes_replaces_the_first(self, entries: list[Entry]) -> None:
        """`add_links` of the same link with another `kind`, read by `list_boards` after each write, no longer
        shows the first: a boundary reported as success, with the second write's answer."""
        replaced = [e for e in entries if e.tool == "add_links" and e.kind is EntryKind.BOUNDARY
                    and e.family == "second_write"]
        assert replaced and all(e.reported_as_success for e in replaced)
        assert any(".kind`" in (e.condition or "") and '"links_existed": 1' in e.evidence[0].excerpt for e in replaced)
        assert "replaced what the call before it wrote" in replaced[0].text

    def test_a_link_from_another_shape_is_added_beside_the_first(self, entries: list[Entry]) -> None:
        """The same link from another shape is a second record, not a replacement: no boundary names `from`."""
        assert not any(e.tool == "add_links" and e.family == "second_write" and e.kind is EntryKind.BOUNDARY
                       and ".from`" in (e.condition or "") for e in entries)


    async def test_a_replay_of_the_second_write_shows_the_replacement_again(self, entries: list[Entry], tmp_path: Path) -> None:
        """The boundary's evidence carries the reads that proved it: replayed on a fresh server, they show the
        first link gone again (what `toolatlas verify` and the precision benchmark replay)."""
        [entry] = [e for e in entries if e.tool == "add_links" and e.kind is EntryKind.BOUNDARY
                   and e.family == "second_write" and ".kind`" in (e.condition or "")][:1]
        evidence = entry.evidence[0]
        assert evidence.after and evidence.marker
        catalogue = load_catalogue(server_catalogue(tmp_path, "sketch"))
        executor = Executor(Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("sketch")), "test")
        await executor.start()
        try:
            rollout, verdict = await executor.run_verified(replay_probe("sketch", evidence, 0, entry.family))
        finally:
            await executor.close()
        assert agreement(entry, evidence, rollout, verdict) == (True, "")


class TestAfterChange:
    def test_a_check_is_made_right_after_what_fills_its_board(self, entries: list[Entry]) -> None:
        """`check_board` (whose own call names no board) is called on the board `add_links` just filled: the
        loop it then refuses is recorded with that cause."""
        found = [e for e in entries if e.tool == "check_board" and e.kind is EntryKind.BOUNDARY
                 and "Board check failed" in (e.error_signature or "")]
        assert found and found[0].family == "after_change" and "`add_links`" in (found[0].condition or "")


def hand_probe(*steps: ProbeStep) -> Probe:
    listed = list(steps)
    return Probe(id=Probe.make_id("sketch", 1, Direction.BOUNDARY, listed), server="sketch", round=1,
                 direction=Direction.BOUNDARY, target=listed[-1].tool, task="test", steps=listed)


class TestBoundaryCause:
    async def test_a_boundary_met_again_without_any_misuse_is_served_on_its_own(self, tmp_path: Path) -> None:
        """An error first met with an undeclared argument, then by the plain call (two shapes overlap), was
        not caused by the argument: the boundary is restated, served again, and leaves the schema summary."""
        catalogue = load_catalogue(server_catalogue(tmp_path, "sketch"))
        workspace = Workspace(catalogue, Home(tmp_path / "home"))
        executor = Executor(workspace.sandbox(catalogue.server("sketch")), "test")
        await executor.start()
        try:
            graph = ServerGraph("sketch", executor.sandbox.tools)
            overlap = [ProbeStep(tool="add_shape", arguments={"kind": "circle", "x": 1, "y": 1}, expect="ok"),
                       ProbeStep(tool="add_shape", arguments={"kind": "square", "x": 1, "y": 1}, expect="ok")]
            extra = ProbeStep(tool="order_shapes", arguments={"probe_unknown": "unexpected"}, expect="error",
                              mutation="extra_argument",
                              condition="an argument the schema does not declare (`probe_unknown`) is passed")
            Inducer(graph).induce(*await executor.run_verified(hand_probe(*overlap, extra)))
            [met] = [e for e in graph.entries_of("order_shapes", EntryKind.BOUNDARY, active_only=False)
                     if "overlap" in (e.error_signature or "") and e.family != SCHEMA_SUMMARY]
            assert met.status is EntryStatus.SUMMARISED
            plain = ProbeStep(tool="order_shapes", arguments={}, expect="any")
            Inducer(graph).induce(*await executor.run_verified(hand_probe(*overlap, plain)))
        finally:
            await executor.close()
        restated = graph.entries[met.id]
        assert restated.status is EntryStatus.ACTIVE and restated.family is None and restated.reported_as_success
        assert "does not declare" not in (restated.condition or "")
        summaries = [e for e in graph.entries_of("order_shapes", EntryKind.BOUNDARY, active_only=False)
                     if e.family == SCHEMA_SUMMARY]
        assert all(e.status is not EntryStatus.ACTIVE for e in summaries)
