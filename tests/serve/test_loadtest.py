"""``toolatlas loadtest`` against the real guidance service over real HTTP: levels of closed-loop
clients, the table, the JSON and the plot; tasks from the atlas's own traces; only local services
unless allowed; histograms that merge exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from service_process import TOKEN

from toolatlas.cli import main
from toolatlas.loadtest import LatencyHistogram, WindowCounts, summarise
from toolatlas.serve.process import ServiceProcess


@pytest.fixture()
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


class TestTheCommand:
    @pytest.mark.parametrize("mcp", [False, True], ids=["http", "mcp"])
    def test_levels_table_json_and_plot(self, service: ServiceProcess, token_file: Path, tmp_path: Path,
                                        mcp: bool, capsys: pytest.CaptureFixture[str]) -> None:
        """`loadtest` over HTTP and MCP measures each level without errors and writes a table, its JSON and an SVG plot."""
        page = tmp_path / "load.html"
        argv = ["loadtest", service.url, "--concurrency", "1,3", "--duration", "1", "--windows", "2",
                "--warmup", "0.2", "--token-file", str(token_file), "-o", str(page), *(["--mcp"] if mcp else [])]
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "clients" in out and "p99 ms" in out
        figures = json.loads(page.with_suffix(".json").read_text())
        assert [lv["clients"] for lv in figures["levels"]] == [1, 3] and figures["tasks"] > 0
        assert all(lv["rps"] > 0 and not lv["errors"] and lv["p50_ms"] <= lv["p99_ms"] for lv in figures["levels"])
        assert "<svg" in page.read_text() and "concurrent clients" in page.read_text()

    def test_a_wrong_token_shows_as_errors_by_kind(self, service: ServiceProcess, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
        """Requests refused for a wrong token are counted as `status 401` and the command exits 1."""
        wrong = tmp_path / "wrong"
        wrong.write_text("not-the-token")
        tasks = tmp_path / "tasks.txt"
        tasks.write_text("# a comment\nWhat time is it in Tokyo?\n")
        assert main(["loadtest", service.url, "--concurrency", "1", "--duration", "0.5", "--windows", "1",
                     "--tasks", str(tasks), "--token-file", str(wrong), "-o", str(tmp_path / "l.html")]) == 1
        figures = json.loads((tmp_path / "l.json").read_text())
        assert set(figures["levels"][0]["errors"]) == {"status 401"}

    def test_a_service_elsewhere_needs_to_be_allowed(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A service on another machine is refused unless `--allow-remote` says it is the user's own."""
        assert main(["loadtest", "http://192.0.2.10:8600"]) == 2
        assert "not this machine" in capsys.readouterr().err


class TestHistograms:
    def test_windows_of_several_generators_merge_exactly(self) -> None:
        """Counts add up bucket by bucket; percentiles come from the merged histogram."""
        fast = WindowCounts(latencies=LatencyHistogram.of([0.001] * 90))
        slow = WindowCounts(latencies=LatencyHistogram.of([0.100] * 10), errors={"timeout": 2})
        level = summarise(4, 1.0, [[fast], [slow]])
        assert level.requests == 100 and level.rps == 100.0 and level.errors == {"timeout": 2}
        assert 1.0 <= level.p50_ms <= 1.05 and 100.0 <= level.p99_ms <= 105.0
        assert level.generators == 2
