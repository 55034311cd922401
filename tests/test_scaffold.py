"""``toolatlas init``: a catalogue entry scaffolded from a real server — installed, started in its sandbox,
its tools listed — that ``validate`` accepts; a PyPI server written for the 1.x SDK gets the
requirement that makes it start; bad input is a clear usage error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.client import connection
from toolatlas.config import load_catalogue

pytestmark = pytest.mark.servers


class TestInit:
    def test_an_npm_server_gets_an_entry_that_validates(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`init --npm` lists the server's tools, proposes the environment its arguments point to (the memory
        server's entities: a JSON file) and an argument-free smoke call that answered, in an entry that validates."""
        catalogue = tmp_path / "mine.toml"
        assert main(["init", "--npm", "@modelcontextprotocol/server-memory@2026.8.31", "-o", str(catalogue)]) == 0
        (server,) = load_catalogue(catalogue).servers
        assert server.name == "memory" and server.runtime.kind == "npm"
        assert server.smoke is not None and server.smoke.tool == "read_graph"  # argument-free, and it answered
        text = catalogue.read_text()
        assert "# 9 tool(s):" in text and "#   create_entities:" in text
        assert '# then: environment = { kind = "json_file", snapshot = "…" }' in text
        assert main(["validate", str(catalogue)]) == 0

    def test_a_server_for_the_old_sdk_gets_the_requirement_that_starts_it(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """gnomon-mcp 0.1.2 does not start with mcp 2; with mcp<2 it does, and the entry says so."""
        monkeypatch.setattr(connection, "RESTART_BACKOFF_S", (0.0,))  # its starts with mcp 2 all fail alike: no wait
        assert main(["init", "--pypi", "gnomon-mcp==0.1.2"]) == 0
        entry = capsys.readouterr().out
        assert 'requirements = ["mcp<2"]' in entry and "does not start with the current mcp SDK" in entry

    def test_a_local_command_is_listed_and_appended_to_a_catalogue(self, tmp_path: Path) -> None:
        """`init --command` appends an entry to an existing catalogue, with the first argument-free read as its
        smoke call; a second entry of the same name is a usage error."""
        catalogue = tmp_path / "mine.toml"
        catalogue.write_text('version = 1\nname = "mine"\n')
        command = f"{sys.executable} -m toolatlas.testing.servers.versioned --version 1"
        assert main(["init", "--command", command, "--name", "notes", "-o", str(catalogue)]) == 0
        (server,) = load_catalogue(catalogue).servers
        assert server.name == "notes" and server.transport.args[-2:] == ["--version", "1"]
        assert server.smoke is not None and server.smoke.tool == "count_notes"
        assert main(["init", "--command", command, "--name", "notes", "-o", str(catalogue)]) == 2  # taken

    @pytest.mark.parametrize("argv", [["--npm", "@scope/pkg"], ["--pypi", "pkg>=1"], ["--command", " "]])
    def test_an_unpinned_or_empty_source_is_a_usage_error(self, argv: list[str],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
        """A package without an exact version, or an empty command, is a one-line usage error (exit 2)."""
        assert main(["init", *argv]) == 2
        assert "toolatlas: error:" in capsys.readouterr().err
