"""``toolatlas refresh`` on a real server at two releases, and the whole release pipeline a provider runs:
build → refresh → verify → diff. Only what changed is probed; what it finds is what a rebuild finds."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.config import load_catalogue
from toolatlas.graph.models import EntryKind, EntryStatus, Fingerprint, ToolNode
from toolatlas.lifecycle import diff_atlases, load_export
from toolatlas.lifecycle.refresh import ToolFate, plan_refresh
from toolatlas.pipeline.server import ServerBuild
from toolatlas.pipeline.shard import ServerShard
from toolatlas.store.paths import open_store
from toolatlas.testing.releases import RELEASE_2_CHANGES, release_catalogue
from toolatlas.workspace import Workspace

pytestmark = pytest.mark.servers


def probes_of(output: str) -> int:
    (line,) = [line for line in output.splitlines() if " probes over " in line]
    return int(line.split()[0])


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory, built_release) -> dict:  # type: ignore[no-untyped-def]
    """Release 1 built and exported; refreshed unchanged; the catalogue moved to release 2, refreshed,
    verified and exported, each seed task run once as in release 1's build. What each step printed and
    returned."""
    folder = tmp_path_factory.mktemp("pipeline")
    config = built_release(folder)
    found: dict = {"config": config}

    def run(name: str, *argv: str) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            found[f"{name}_status"] = main(list(argv))
        found[name] = out.getvalue()

    found["v1"] = folder / "v1.json"
    run("export1", "export", str(config), "-o", str(found["v1"]))
    run("unchanged", "refresh", str(config))
    release_catalogue(folder, 2, rollouts=1, executors=2)  # as built_release built release 1
    run("refresh", "refresh", str(config))
    run("verify", "verify", str(config))
    found["v2"] = folder / "v2.json"
    run("export2", "export", str(config), "-o", str(found["v2"]))
    return found


class TestRefresh:
    def test_an_unchanged_server_spends_no_probe(self, pipeline: dict) -> None:
        assert pipeline["unchanged_status"] == 0
        assert "nothing changed" in pipeline["unchanged"] and probes_of(pipeline["unchanged"]) == 0

    def test_each_tool_gets_the_fate_its_change_asks_for(self, pipeline: dict) -> None:
        """The schema change is probed again, the new tool onboarded, the removed one retired; the
        release changed the start-up, so the unchanged tools are replayed and those whose replays
        disagreed (shout now refuses long texts) are probed again."""
        assert pipeline["refresh_status"] == 0
        lines = {tuple(line.split()) for line in pipeline["refresh"].splitlines() if line.startswith("  ")}
        assert {("add_note", "reprobed"), ("search_notes", "onboarded"), ("export_all", "retired"),
                ("shout", "revised")} <= lines
        assert "tool export_all removed" in pipeline["refresh"] and "tool search_notes added" in pipeline["refresh"]

    def test_a_focused_build_probes_only_its_focus(self, tmp_path: Path) -> None:
        """The probes a refresh spends target only the tools it must probe (calls to others inside them
        are the compositions being checked)."""
        catalogue = load_catalogue(release_catalogue(tmp_path, 2))
        targets: list[str] = []
        build = ServerBuild(Workspace(catalogue), catalogue.server("versioned"), catalogue.build, rounds=1,
                            focus=frozenset({"shout", "search_notes"}),
                            on_probe=lambda rollout, verdict, delta: targets.append(rollout.probe.target))
        coverage = asyncio.run(build.run())
        assert [row.status for row in coverage] == ["ok", "ok"] and len(targets) > 10
        assert set(targets) == {"shout", "search_notes"}
        checkpoint = build.shard.checkpoint()  # a resumed (or reopened) focused build stays focused
        assert checkpoint.focus == ["search_notes", "shout"]
        again = ServerShard(build.workspace, build.spec, build.settings)
        again.open(list(build.shard.graph.specs.values()), None, checkpoint)
        assert again.focus == {"search_notes", "shout"}

    def test_the_store_says_what_changed(self, pipeline: dict) -> None:
        store = open_store(load_catalogue(pipeline["config"]))
        try:
            entries, nodes = store.all("entries"), store.all("tools")
            (server,) = store.all("servers")
        finally:
            store.close()
        assert {e.status for e in entries if e.tool == "export_all"} == {EntryStatus.RETIRED}
        assert {n.status for n in nodes if n.tool == "export_all"} == {EntryStatus.RETIRED}
        add_note = {n.schema_hash: n.status for n in nodes if n.tool == "add_note"}
        assert sorted(add_note.values()) == [EntryStatus.ACTIVE, EntryStatus.STALE]
        assert any(e.tool == "search_notes" and e.kind is EntryKind.AFFORDANCE and e.status is EntryStatus.ACTIVE
                   for e in entries)
        assert any(e.tool == "search_notes" and e.peer == "add_note" or e.tool == "add_note" and e.peer == "search_notes"
                   for e in entries if e.kind is EntryKind.CO_USAGE), "the new tool is linked into the graph"
        assert set(server.fingerprint.tools) == {"add_note", "count_notes", "get_note", "search_notes", "shout"}


class TestThePipeline:
    def test_what_refresh_left_verifies(self, pipeline: dict) -> None:
        assert pipeline["verify_status"] == 0, pipeline["verify"]

    def test_the_diff_reports_the_release_as_a_rebuild_would(self, pipeline: dict) -> None:
        diff = diff_atlases(load_export(pipeline["v1"]), load_export(pipeline["v2"]))
        assert RELEASE_2_CHANGES <= {(change.kind.value, change.tool) for change in diff.changes}
        assert [c for c in diff.changes if c.tool == "count_notes" and c.regression] == []
        exported = json.loads(pipeline["v2"].read_text())
        (server,) = exported["servers"]
        assert server["fingerprint"]["tools"].keys() >= {"search_notes"} and server["verified_at"]


def _fingerprint(tools: dict[str, str], runtime: str = "npm x@1") -> Fingerprint:
    return Fingerprint(runtime=runtime, transport="t", snapshot="s", tools=tools, toolatlas="0", method="m")


def _node(tool: str, schema_hash: str, neighbours: dict[str, float] | None = None) -> ToolNode:
    return ToolNode(id=ToolNode.make_id("s", tool, schema_hash), server="s", tool=tool, schema_hash=schema_hash,
                    neighbours=neighbours or {})


class TestPlanning:
    def test_a_changed_tools_neighbours_are_probed_with_it_and_the_rest_kept(self) -> None:
        before = _fingerprint({"a": "1", "b": "1", "c": "1"})
        nodes = [_node("a", "1", {"b": 0.5}), _node("b", "1"), _node("c", "1")]
        plan = plan_refresh("s", _fingerprint({"a": "2", "b": "1", "c": "1"}), before, nodes)
        assert plan.fates == {"a": ToolFate.REPROBED, "b": ToolFate.NEIGHBOUR, "c": ToolFate.KEPT}
        assert plan.focus == {"a", "b"} and not plan.replayed

    def test_a_new_release_with_the_same_interfaces_replays_them(self) -> None:
        before = _fingerprint({"a": "1"})
        plan = plan_refresh("s", _fingerprint({"a": "1"}, runtime="npm x@2"), before, [_node("a", "1")])
        assert plan.fates == {"a": ToolFate.REPLAYED} and plan.changes == ["runtime 'npm x@1' → 'npm x@2'"]

    def test_an_atlas_without_a_fingerprint_is_compared_by_its_tool_nodes(self) -> None:
        plan = plan_refresh("s", _fingerprint({"a": "1", "b": "1"}), None, [_node("a", "1")])
        assert plan.fates == {"a": ToolFate.REPLAYED, "b": ToolFate.ONBOARDED}

    def test_a_server_never_built_is_built_whole(self) -> None:
        plan = plan_refresh("s", _fingerprint({"a": "1"}), None, [])
        assert plan.previous is None and plan.focus == {"a"}
