"""``toolatlas serve``: the shared snapshot, several worker processes, the answer cache, logs, bad input."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
import httpx
import pytest
from service_process import TASKS, BuiltAtlas, pids_answering, start_service

from toolatlas.cli import main
from toolatlas.graph.families import is_schema_validation
from toolatlas.graph.models import EntryKind, EntryStatus
from toolatlas.guidance import Atlas, AtlasView, Guidance, StaticNavigator
from toolatlas.serve import AtlasReader, GuidanceRequest, ServeError, write_snapshot
from toolatlas.serve.process import ServiceProcess, free_port

pytestmark = pytest.mark.servers

class TestSnapshot:
    def test_snapshot_serves_what_the_store_serves(self, built: BuiltAtlas, tmp_path: Path) -> None:
        """The export every replica loads gives the same guidance and operations as the store it was read from."""
        snapshot = Atlas.from_export(write_snapshot(built.atlas, tmp_path / "atlas.json"))
        for task in TASKS:
            assert snapshot.guide(task) == built.atlas.guide(task)
        assert snapshot.view.traces.keys() == built.atlas.view.traces.keys()
        assert snapshot.read_tool("git", "git_add") == built.atlas.read_tool("git", "git_add")


    def test_stale_entries_never_reach_a_snapshot(self, built: BuiltAtlas, tmp_path: Path) -> None:
        """An entry gone stale is left out of the served atlas and of the snapshot replicas load."""
        view = built.atlas.view
        boundaries = [e for e in view.entries.values() if e.kind is EntryKind.BOUNDARY and e.server == "time"]
        stale = max(boundaries, key=lambda e: (not is_schema_validation(e), e.support, e.id))  # best established
        entries = [e.model_copy(update={"status": EntryStatus.STALE}) if e.id == stale.id else e
                   for e in view.entries.values()]
        served = Atlas(AtlasView(view.tool_nodes.values(), entries, view.traces.values(), view.strategies.values()))
        snapshot = Atlas.from_export(write_snapshot(served, tmp_path / "atlas.json"), include_stale=True)
        assert stale.id in view.entries and stale.id not in snapshot.view.entries
        task = f"{stale.condition} {stale.text}"
        assert stale.id in built.atlas.guide(task, servers=["time"]).model_dump_json()  # served while active
        guidance = served.guide(task, servers=["time"])
        assert guidance.tools and stale.id not in guidance.model_dump_json()


class TestReader:
    def test_offloaded_guidance_equals_inline(self, built: BuiltAtlas) -> None:
        """On a worker thread (as for an LLM navigator) the reader answers what it answers inline."""
        inline, offloaded = AtlasReader(built.atlas), AtlasReader(built.atlas, offload=True)
        assert not inline.offload
        for task in TASKS:
            request = GuidanceRequest(task=task)
            assert anyio.run(offloaded.guide_async, request) == anyio.run(inline.guide_async, request)

    def test_a_navigator_that_is_not_the_offline_one_is_offloaded(self, built: BuiltAtlas) -> None:
        """Any other navigator may wait (an LLM), so its walks leave the event loop by default."""
        assert AtlasReader(Atlas(built.atlas.view, navigator=StaticNavigator())).offload


class TestWorkers:
    def test_workers_share_one_snapshot_and_answer_alike(self, built: BuiltAtlas, tmp_path: Path) -> None:
        """With --workers 2 and no answer cache, both processes answer, each what the library answers."""
        export = write_snapshot(built.atlas, tmp_path / "atlas.json")
        service = start_service("--atlas", str(export), "--workers", "2", "--cache-size", "0")
        try:
            assert len(asyncio.run(pids_answering(service.url, 2))) == 2
            for task in TASKS:
                answer = httpx.post(f"{service.url}/v1/guidance", json={"task": task}, timeout=10.0)
                assert Guidance.model_validate_json(answer.content) == built.atlas.guide(task)
        finally:
            service.stop()


class TestRequestLog:
    def test_debug_level_logs_one_structured_line_per_request(self, built: BuiltAtlas) -> None:
        """At debug level every request is logged with its path, status and duration; not otherwise."""
        quiet = start_service(str(built.config))
        try:
            httpx.post(f"{quiet.url}/v1/guidance", json={"task": TASKS[0]})
        finally:
            quiet_log = quiet.stop()
        chatty = start_service(str(built.config), options=("--log-level", "debug", "--log-json"))
        try:
            httpx.post(f"{chatty.url}/v1/guidance", json={"task": TASKS[0]})
            httpx.get(f"{chatty.url}/v1/traces/nope")
        finally:
            chatty_log = chatty.stop()
        assert "http_request" not in quiet_log
        lines = [line for line in chatty_log.splitlines() if '"http_request"' in line]
        assert any('"path": "/v1/guidance"' in line and '"status": 200' in line and '"ms":' in line for line in lines)
        assert any('"path": "/v1/traces/nope"' in line and '"status": 404' in line for line in lines)


class TestServiceProcess:
    def test_a_service_that_cannot_start_says_why(self, tmp_path: Path) -> None:
        """A child that exits instead of serving is reported with what it printed."""
        with pytest.raises(ServeError, match=r"exited with 2: .*cannot read the atlas export"):
            ServiceProcess("--atlas", str(tmp_path / "missing.json")).start()

    def test_a_free_port_avoids_the_ranges_it_is_told(self) -> None:
        """A free port is outside every range it must avoid, and none is found when every port is taken."""
        taken = [range(1, 40000)]
        assert all(free_port(outside=taken) >= 40000 for _ in range(5))
        with pytest.raises(ServeError, match="no free port outside 1-65535"):
            free_port(outside=[range(1, 65536)])


class TestCommandLine:
    def test_needs_something_to_serve(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Without a catalogue or an export, serve says what it needs."""
        assert main(["serve", "--transport", "http"]) == 2
        assert "serve needs a CONFIG or --atlas" in capsys.readouterr().err

    def test_unreadable_export_is_a_clear_error(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A missing or malformed export is refused at start-up, naming the file."""
        broken = tmp_path / "broken.json"
        broken.write_text("{not json")
        for path in (tmp_path / "missing.json", broken):
            assert main(["serve", "--atlas", str(path), "--transport", "stdio"]) == 2
            assert f"cannot read the atlas export {path}" in capsys.readouterr().err

    @pytest.mark.parametrize(
        ("arguments", "message"),
        [
            (["--engine", "ray-serve"], "--engine ray-serve serves over HTTP"),
            (["--transport", "http", "--replicas", "2"], "--replicas is for --engine ray-serve"),
            (["--transport", "http", "--workers", "0"], "--workers must be at least 1"),
            (["--cache-size", "-1"], "--cache-size must be 0"),
        ],
    )
    def test_inconsistent_options_are_refused(
        self, built: BuiltAtlas, arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Options that do not go together are refused with the reason."""
        assert main(["serve", str(built.config), *arguments]) == 2
        assert message in capsys.readouterr().err
