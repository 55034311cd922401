"""Mistakes on the command line end in one clean line naming what is wrong, exit 2 — no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.testing.releases import release_catalogue

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, built_release) -> Path:  # type: ignore[no-untyped-def]
    """Release 1's catalogue with its atlas built (bootstrap only, each seed task run once)."""
    return built_release(tmp_path_factory.mktemp("built"), rounds=0, rollouts=1)


def error_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolatlas: error: ") and err.count("\n") == 1, err
    return err


class TestInspect:
    def test_a_server_the_catalogue_does_not_have(self, built: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A mistyped server in `inspect` is a one-line error naming the catalogue's servers."""
        assert "no server 'nope' (servers: versioned)" in error_of(capsys, "inspect", str(built), "--server", "nope")

    def test_a_tool_the_server_does_not_have(self, built: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A mistyped tool in `inspect` is a one-line error naming the server's tools."""
        err = error_of(capsys, "inspect", str(built), "--server", "versioned", "--tool", "nope")
        assert "no tool 'nope' on server 'versioned' (tools: add_note, count_notes, export_all, get_note, shout)" in err

    @pytest.mark.parametrize("command", [["inspect"], ["export"], ["report"], ["guide", "add a note", "--config"]])
    def test_a_catalogue_never_built(self, command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """inspect, export, report and guide on an atlas never built: an error, and no store made."""
        config = release_catalogue(tmp_path, 1)
        assert "no atlas built yet" in error_of(capsys, *command, str(config))
        assert not (tmp_path / "atlas").exists()

    def test_a_right_selection_is_a_table(self, built: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A server and tool that exist are shown as a table of the tool's entries (exit 0)."""
        assert main(["inspect", str(built), "--server", "versioned", "--tool", "shout"]) == 0
        out = capsys.readouterr().out
        assert "versioned  shout" in out and "affordance:" in out


class TestGuide:
    def test_an_export_that_is_not_there(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`guide --atlas` of a missing file is a one-line error naming the file."""
        missing = tmp_path / "missing.json"
        assert f"cannot read the atlas export {missing}" in error_of(capsys, "guide", "a task", "--atlas", str(missing))

    def test_a_server_the_atlas_does_not_know(self, built: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`guide --server` of a server the atlas does not hold is an error naming the ones it does."""
        err = error_of(capsys, "guide", "add a note", "--config", str(built), "--server", "nope")
        assert "knows nothing of server(s) nope (it has: versioned)" in err


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """`toolatlas export --schema | head -1`: the pipe is closed under the writer (here: before it writes)."""
    import os

    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "toolatlas", "export", "--schema"], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert done.returncode == 1 and done.stderr == ""


class TestServiceToken:
    """Where the guidance service's token comes from, and the warnings that keep it from leaking."""

    @staticmethod
    def token(capsys: pytest.CaptureFixture[str], env: str | None = None, **given: object) -> tuple[str | None, str]:
        import argparse

        from toolatlas.serve.commands import _service_token

        fields = {"token": None, "token_file": None, "host": "127.0.0.1"} | given
        found = _service_token(argparse.Namespace(**fields), env)
        return found, capsys.readouterr().err

    def test_a_file_keeps_it_out_of_ps(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`--token-file` gives the token without a warning (it never shows in `ps`)."""
        secret = tmp_path / "token"
        secret.write_text("from-a-file\n")
        assert self.token(capsys, token_file=secret) == ("from-a-file", "")

    def test_the_command_line_is_warned_about(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`--token` works but warns that every local user sees it in `ps`."""
        found, err = self.token(capsys, token="visible")
        assert found == "visible" and "visible to every local user in `ps`" in err

    def test_the_environment(self, capsys: pytest.CaptureFixture[str]) -> None:
        """$TOOLATLAS_TOKEN gives the token without a warning."""
        assert self.token(capsys, env="from-env") == ("from-env", "")

    def test_an_open_address_without_a_token_is_warned_about(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A non-loopback bind without a token is warned about; a loopback one is not."""
        found, err = self.token(capsys, host="0.0.0.0")
        assert found is None and "serving on 0.0.0.0 without a token" in err
        assert self.token(capsys, host="::1") == (None, "")

    def test_an_empty_or_missing_file_is_an_error(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A token file that is empty or cannot be read is an error, not an open service."""
        from toolatlas.errors import ToolAtlasError

        (tmp_path / "empty").write_text("  \n")
        with pytest.raises(ToolAtlasError, match="is empty"):
            self.token(capsys, token_file=tmp_path / "empty")
        with pytest.raises(ToolAtlasError, match="cannot read it"):
            self.token(capsys, token_file=tmp_path / "absent")
