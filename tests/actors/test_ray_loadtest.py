"""``toolatlas loadtest --ray``: a level's clients spread over Ray actors, their windows merged exactly,
against a real guidance service."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("ray")

from toolatlas.cli import main  # noqa: E402
from toolatlas.serve.process import ServiceProcess  # noqa: E402
from toolatlas.testing.releases import release_catalogue  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.servers


@pytest.mark.slow  # 20 s; the merging of counts and histograms is tested in process in tests/serve/test_loadtest.py (TestHistograms)
class TestLoadOnRay:
    def test_clients_on_two_actors(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        config = release_catalogue(tmp_path, 1, rounds=0)
        assert main(["build", str(config), "--engine", "asyncio"]) == 0
        monkeypatch.setenv("TOOLATLAS_HOME", str(REPO / ".toolatlas"))
        monkeypatch.delenv("TOOLATLAS_TOKEN", raising=False)
        with ServiceProcess(str(config), cwd=REPO) as service:
            assert main(["loadtest", service.url, "--ray", "--generators", "2", "--concurrency", "2,4",
                         "--duration", "1", "--windows", "2", "--warmup", "0.2", "-o", str(tmp_path / "r.html")]) == 0
        figures = json.loads((tmp_path / "r.json").read_text())
        assert figures["ray"] and [lv["generators"] for lv in figures["levels"]] == [2, 2]
        assert all(lv["rps"] > 0 and not lv["errors"] for lv in figures["levels"])
