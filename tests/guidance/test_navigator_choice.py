"""``toolatlas guide --navigator``: the offline traversal by default; the catalogue's LLM endpoint when
asked, over real HTTP (the scripted server) — and when that endpoint fails, the offline traversal's
guidance with a warning that says so, never guidance without tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.testing.openai_script import Fault, Script
from toolatlas.testing.openai_server import ScriptedOpenAIServer

pytestmark = pytest.mark.servers

TASK = "shout a greeting in capitals"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, built_release) -> Path:  # type: ignore[no-untyped-def]
    return built_release(tmp_path_factory.mktemp("navigators"))


def with_llm(config: Path, base_url: str) -> Path:
    config.write_text(config.read_text().split("\n[llm]")[0] + f'\n[llm]\nbase_url = "{base_url}"\n'
                      'model = "scripted-model"\ntimeout_s = 5\nmax_retries = 1\nbackoff_base_s = 0.005\n')
    return config


class TestNavigatorChoice:
    def test_offline_by_default_and_it_says_so(self, built: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`guide` walks with the offline navigator by default and the guidance names it."""
        assert main(["guide", TASK, "--config", str(built), "--json"]) == 0
        guidance = json.loads(capsys.readouterr().out)
        assert guidance["navigator"] == "offline" and guidance["tools"]

    def test_an_unreachable_llm_gives_the_offline_guidance_with_a_warning(
        self, built: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`--navigator llm` with a failing endpoint gives the offline traversal's tools, says so in the guidance and warns."""
        with ScriptedOpenAIServer(Script()) as endpoint:
            endpoint.script.add(Fault.server_error())
            with_llm(built, endpoint.base_url)
            assert main(["guide", TASK, "--config", str(built), "--navigator", "llm", "--json"]) == 0
            assert endpoint.chat_requests, "the endpoint was asked"
        captured = capsys.readouterr()
        guidance = json.loads(captured.out)
        assert guidance["tools"] and guidance["navigator"].startswith("offline (the LLM navigator failed")
        assert "warning: the guidance is by offline" in captured.err

    def test_llm_without_an_endpoint_is_a_usage_error(self, tmp_path: Path, built: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
        """`--navigator llm` on a catalogue without an [llm] block is a usage error (exit 2)."""
        built.write_text(built.read_text().split("\n[llm]")[0])
        assert main(["guide", TASK, "--config", str(built), "--navigator", "llm"]) == 2
        assert "needs an [llm] endpoint" in capsys.readouterr().err
