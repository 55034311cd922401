"""The package's public surface: importable without Ray, one exception tree."""

from __future__ import annotations

import subprocess
import sys

import toolatlas
from toolatlas import errors


class TestImport:
    def test_imports_without_ray(self) -> None:
        """Importing toolatlas and its main modules never imports Ray (actors/ is where Ray lives)."""
        code = (
            "import sys, toolatlas, toolatlas.client, toolatlas.environments, toolatlas.sandbox, "
            "toolatlas.workspace, toolatlas.smoke, toolatlas.cli, toolatlas.runtimes; "
            "sys.exit(1 if 'ray' in sys.modules else 0)"
        )
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr or "ray was imported"

    def test_cli_entry_point_runs(self) -> None:
        """``python -m toolatlas --help`` works (what `ray job submit` entry points call)."""
        result = subprocess.run([sys.executable, "-m", "toolatlas", "--help"], capture_output=True, text=True)
        assert result.returncode == 0
        assert "servers" in result.stdout


class TestErrors:
    def test_every_error_derives_from_the_root(self) -> None:
        """Every exception class ToolAtlas exports is a ToolAtlasError."""
        for name in errors.__all__:
            assert issubclass(getattr(errors, name), errors.ToolAtlasError), name

    def test_public_names_resolve(self) -> None:
        """Everything in toolatlas.__all__ exists."""
        for name in toolatlas.__all__:
            assert hasattr(toolatlas, name), name


class TestErrorsCrossProcesses:
    def test_errors_with_fields_pickle(self) -> None:
        """Errors carrying fields survive pickling (Ray ships them from actors to the driver)."""
        import pickle

        start = errors.ServerStartError("git", "no handshake", "stderr tail")
        again = pickle.loads(pickle.dumps(start))
        assert (again.server, again.reason, again.stderr_tail, str(again)) == ("git", "no handshake", "stderr tail", str(start))
        config = errors.ConfigError("c.toml", [("servers[x].runtime", "bad")])
        assert pickle.loads(pickle.dumps(config)).problems == [("servers[x].runtime", "bad")]
