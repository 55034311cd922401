"""Runtime provisioning against the real npm registry and PyPI (no mocks).

The slow installs happen once per test run in a session-scoped home; tests that must see an
install happen from scratch use a fresh home of their own.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from toolatlas.config import Catalogue, ServerSpec, load_catalogue
from toolatlas.errors import RuntimeInstallError
from toolatlas.home import Home
from toolatlas.runtimes import (
    MARKER_NAME,
    InstallResult,
    ResolvedRuntime,
    choose_bin,
    install,
    install_all,
    npm_prefix,
    read_marker,
    resolve,
    venv_dir,
)

pytestmark = pytest.mark.timeout(900)

REPO = Path(__file__).resolve().parents[2]

MEMORY = {"kind": "npm", "package": "@modelcontextprotocol/server-memory", "version": "2026.8.31"}
TIME = {"kind": "pypi", "package": "mcp-server-time", "version": "2026.10.19"}
SQLITE = {"kind": "pypi", "package": "mcp-server-sqlite", "version": "2025.4.25", "requirements": ["mcp<2"]}
POSTGRES_MCP = {
    "kind": "pypi",
    "package": "postgres-mcp",
    "version": "0.3.0",
    "python": "3.12",
    "no_deps": True,
    "requirements": [
        "attrs>=25.3.0",
        "humanize>=4.8.0",
        "instructor>=1.7.9",
        "mcp[cli]>=1.5.0,<2",
        "pglast>=7.20,<8",
        "psycopg-pool>=3.2.6",
        "psycopg[binary]>=3.2.6",
    ],
}


def server(name: str, runtime: dict, **extra) -> ServerSpec:
    return ServerSpec.model_validate({"name": name, "runtime": runtime, **extra})


@dataclass(frozen=True)
class Installed:
    """A runtime installed by a session fixture, with how long the first install took."""

    spec: ServerSpec
    runtime: ResolvedRuntime
    seconds: float


def _timed_install(spec: ServerSpec, home: Home) -> Installed:
    started = time.monotonic()
    runtime = install(spec, home)
    return Installed(spec, runtime, time.monotonic() - started)


@pytest.fixture(scope="session")
def runtime_home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    return Home(tmp_path_factory.mktemp("runtime-home")).ensure()


@pytest.fixture(scope="session")
def memory(runtime_home: Home) -> Installed:
    return _timed_install(server("memory", MEMORY), runtime_home)


@pytest.fixture(scope="session")
def time_server(runtime_home: Home) -> Installed:
    return _timed_install(server("time", TIME), runtime_home)


@pytest.fixture(scope="session")
def sqlite() -> Installed:
    """The demo's SQLite server, in the repository's home: installed there by ``make servers`` (a fresh
    install of ~10 s that this finds), else here. What its requirements gave is read from its venv."""
    spec = server("sqlite", SQLITE)
    assert load_catalogue(REPO / "configs" / "demo.toml").server("sqlite").runtime == spec.runtime
    return _timed_install(spec, Home(REPO / ".toolatlas"))


@pytest.fixture
def fresh_home(tmp_path: Path) -> Home:
    return Home(tmp_path / "home").ensure()


def _no_op_reinstall(installed: Installed, home: Home) -> float:
    marker = Path(installed.runtime.location) / MARKER_NAME
    mtime = marker.stat().st_mtime_ns
    started = time.monotonic()
    again = install(installed.spec, home)
    seconds = time.monotonic() - started
    assert again == installed.runtime
    assert marker.stat().st_mtime_ns == mtime
    return seconds


class TestNpmRuntime:
    def test_installs_into_its_own_prefix_with_the_only_bin(
        self, memory: Installed, runtime_home: Home
    ) -> None:
        """An npm package lands in runtimes/npm/<package>@<version>/ and its only bin is the command."""
        prefix = runtime_home.runtimes / "npm" / "modelcontextprotocol+server-memory@2026.8.31"
        assert memory.runtime.location == str(prefix) == str(npm_prefix(memory.spec.runtime, runtime_home))
        assert memory.runtime.command == str(prefix / "node_modules" / ".bin" / "mcp-server-memory")
        assert os.access(memory.runtime.command, os.X_OK)
        assert memory.runtime.kind == "npm" and memory.runtime.version == "2026.8.31"
        assert read_marker(prefix)["identity"] == {
            "kind": "npm",
            "package": MEMORY["package"],
            "version": MEMORY["version"],
        }
        assert not list(prefix.parent.glob("*.tmp-*"))

    def test_node_is_on_the_servers_path(self, memory: Installed) -> None:
        """The resolved env puts the node it was installed with on PATH (npm bins run `env node`)."""
        marker = read_marker(Path(memory.runtime.location))
        assert str(Path(marker["node"]).parent) in memory.runtime.env["PATH"].split(os.pathsep)

    def test_second_install_is_a_no_op(self, memory: Installed, runtime_home: Home) -> None:
        """Installing an installed runtime again leaves the marker untouched and takes no real time."""
        seconds = _no_op_reinstall(memory, runtime_home)
        assert seconds < memory.seconds / 10

    def test_missing_node_names_what_to_install(
        self, fresh_home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without node/npm on PATH the error says to install Node.js >= 18 with npm; nothing is left."""
        empty = tmp_path / "empty-bin"
        empty.mkdir()
        monkeypatch.setenv("PATH", str(empty))
        with pytest.raises(
            RuntimeInstallError, match=r"node and npm are not on PATH.*Node\.js >= 18 with npm"
        ):
            install(server("memory", MEMORY), fresh_home)
        assert list((fresh_home.runtimes / "npm").glob("modelcontextprotocol*")) == []

    def test_old_node_is_refused(
        self, fresh_home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A node older than 18 on PATH is refused with its version in the message."""
        bin_dir = tmp_path / "old-node"
        bin_dir.mkdir()
        for name, text in (("node", "echo v16.20.0"), ("npm", "exit 0")):
            (bin_dir / name).write_text(f"#!/bin/sh\n{text}\n")
            (bin_dir / name).chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}:/bin")
        with pytest.raises(RuntimeInstallError, match=r"node 16\.20\.0 .* too old \(need >= 18\)"):
            install(server("memory", MEMORY), fresh_home)

    def test_half_finished_install_is_redone(self, fresh_home: Home) -> None:
        """A temp dir and a final dir without a marker (a crashed install) are wiped and done properly."""
        spec = server("memory", MEMORY)
        final = npm_prefix(spec.runtime, fresh_home)
        leftover = final.with_name(final.name + ".tmp-999-abcdef")
        for folder in (final, leftover):
            (folder / "node_modules").mkdir(parents=True)
            (folder / "node_modules" / "junk").write_text("half")
        with pytest.raises(
            RuntimeInstallError, match="not installed; run `toolatlas servers install CONFIG`"
        ):
            resolve(spec, fresh_home)
        with capture_logs() as logs:
            runtime = install(spec, fresh_home)
        assert Path(runtime.command).exists()
        assert read_marker(final) is not None
        assert not (final / "node_modules" / "junk").exists()
        assert not leftover.exists()
        done = [e for e in logs if e["event"] == "runtime_installed"]
        assert done and done[0]["server"] == "memory" and done[0]["kind"] == "npm" and done[0]["seconds"] > 0

    def test_npm_failure_carries_npms_output(self, fresh_home: Home) -> None:
        """A version npm cannot find fails with npm's own message in the error."""
        spec = server("memory", {**MEMORY, "version": "0.0.1-no-such-version"})
        with pytest.raises(
            RuntimeInstallError, match=r"(?s)npm install .*failed.*(ETARGET|No matching version)"
        ):
            install(spec, fresh_home)
        assert not list((fresh_home.runtimes / "npm").glob("modelcontextprotocol*"))


class TestBinChoice:
    def test_single_bin_entry_is_chosen(self) -> None:
        """A package with one bin entry runs that entry."""
        assert choose_bin({"bin": {"only-one": "x.js"}}, "@s/pkg", None) == "only-one"

    def test_string_bin_is_named_after_the_package(self) -> None:
        """A string ``bin`` is installed under the unscoped package name."""
        assert choose_bin({"bin": "cli.js"}, "@scope/tool", None) == "tool"

    def test_several_bins_need_a_choice(self) -> None:
        """Several bin entries and no configured one is an error listing the choices."""
        with pytest.raises(RuntimeInstallError, match=r"several executables \(a, b\).*runtime\.bin"):
            choose_bin({"bin": {"b": "b.js", "a": "a.js"}}, "pkg", None)

    def test_configured_bin_wins(self) -> None:
        """A configured bin is used even when the package declares several."""
        assert choose_bin({"bin": {"a": "a.js", "b": "b.js"}}, "pkg", "b") == "b"


class TestPypiRuntime:
    def test_installs_into_its_own_venv(self, time_server: Installed, runtime_home: Home) -> None:
        """A PyPI package gets runtimes/py/<package>-<version>-<hash8>/ and its console script runs."""
        venv = Path(time_server.runtime.location)
        assert venv == venv_dir(time_server.spec.runtime, runtime_home)
        assert venv.parent == runtime_home.runtimes / "py"
        assert venv.name.startswith("mcp-server-time-2026.10.19-") and len(venv.name.rsplit("-", 1)[1]) == 8
        assert time_server.runtime.command == str(venv / "bin" / "mcp-server-time")
        done = subprocess.run([time_server.runtime.command, "--help"], capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr

    def test_second_install_is_a_no_op(self, time_server: Installed, runtime_home: Home) -> None:
        """Installing an installed venv again leaves the marker untouched and takes no real time."""
        seconds = _no_op_reinstall(time_server, runtime_home)
        assert seconds < time_server.seconds / 10

    def test_requirements_constrain_the_resolution(self, sqlite: Installed) -> None:
        """``requirements = ["mcp<2"]`` gives the server's venv mcp 1.x (ours has mcp 2)."""
        python = Path(sqlite.runtime.location) / "bin" / "python"
        version = subprocess.run(
            [python, "-c", "import mcp, importlib.metadata; print(importlib.metadata.version('mcp'))"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
        assert version.startswith("1."), version
        assert Path(sqlite.runtime.command).name == "mcp-server-sqlite"

    def test_spec_changes_change_the_venv(self, runtime_home: Home) -> None:
        """Another Python, other requirements or no_deps each give another venv folder."""
        base = server("t", TIME).runtime
        variants = [
            server("t", {**TIME, "python": "3.12"}).runtime,
            server("t", {**TIME, "requirements": ["mcp<2"]}).runtime,
            server("t", {**TIME, "no_deps": True}).runtime,
        ]
        folders = {venv_dir(r, runtime_home) for r in [base, *variants]}
        assert len(folders) == 4

    def test_unknown_python_lists_what_was_tried(self, fresh_home: Home) -> None:
        """``python = "3.99"`` fails with the places searched, and leaves no venv folder behind."""
        spec = server("time", {**TIME, "python": "3.99"})
        with pytest.raises(RuntimeInstallError, match=r"(?s)no working Python 3\.99 found.*tried:") as err:
            install(spec, fresh_home)
        message = str(err.value)
        assert "python3.99 on PATH (not found)" in message and "/usr/bin/python3.99 (missing)" in message
        assert "versions/3.99.*" in message and "TOOLATLAS_PYTHON_3_99" in message
        assert not venv_dir(spec.runtime, fresh_home).exists()

    def test_unknown_package_carries_pips_message(self, fresh_home: Home) -> None:
        """A package PyPI does not have fails with the tail of pip's output in the error."""
        spec = server(
            "ghost", {"kind": "pypi", "package": "toolatlas-no-such-package-zz9", "version": "1.0.0"}
        )
        with pytest.raises(
            RuntimeInstallError, match=r"(?s)pip install toolatlas-no-such-package-zz9==1\.0\.0 failed"
        ) as err:
            install(spec, fresh_home)
        assert "No matching distribution found for toolatlas-no-such-package-zz9" in str(err.value)
        assert not venv_dir(spec.runtime, fresh_home).exists()

    def test_missing_entry_names_the_console_scripts(
        self, time_server: Installed, runtime_home: Home
    ) -> None:
        """A configured entry the package does not provide is an error naming the scripts that exist."""
        spec = server("time", {**TIME, "entry": "no-such-script"})
        with pytest.raises(
            RuntimeInstallError, match=r"no console script named 'no-such-script'.*mcp-server-time"
        ):
            resolve(spec, runtime_home)

    def test_postgres_mcp_on_python_312_with_explicit_deps(self) -> None:
        """postgres-mcp 0.3.0 installs on Python 3.12 with no_deps and explicit requirements; its CLI runs.
        The runtime is the one the PostgreSQL tests run, in the repository's home: installed there by
        ``make test-servers`` (a fresh install of ~25 s of CPU that this test then finds), else here."""
        spec = server("postgres", POSTGRES_MCP)
        assert load_catalogue(REPO / "configs" / "postgres.toml").server("postgres").runtime == spec.runtime
        runtime = install(spec, Home(REPO / ".toolatlas"))
        venv = Path(runtime.location)
        version = subprocess.run(
            [venv / "bin" / "python", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
        assert version == "3.12"
        done = subprocess.run([runtime.command, "--help"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert read_marker(venv)["python_version"].startswith("3.12.")


class TestCommandRuntime:
    def test_command_is_resolved_on_path(self, runtime_home: Home) -> None:
        """A ``command`` runtime installs nothing and resolves the transport command to an absolute path."""
        spec = server("shell", {"kind": "command"}, transport={"command": "sh"})
        runtime = install(spec, runtime_home)
        assert runtime.kind == "command" and runtime.location is None and runtime.version is None
        assert Path(runtime.command).is_absolute() and Path(runtime.command).name == "sh"

    def test_missing_command_is_an_error(self, runtime_home: Home) -> None:
        """A command that is not on PATH is an error at resolve time."""
        spec = server("ghost", {"kind": "command"}, transport={"command": "toolatlas-no-such-command"})
        with pytest.raises(RuntimeInstallError, match="'toolatlas-no-such-command' is not found on PATH"):
            resolve(spec, runtime_home)

    def test_http_transport_has_no_command(self, runtime_home: Home) -> None:
        """An http server is already running: nothing to launch."""
        spec = server(
            "remote", {"kind": "command"}, transport={"kind": "http", "url": "http://127.0.0.1:9/mcp"}
        )
        assert resolve(spec, runtime_home).command is None


class TestResolve:
    def test_uninstalled_runtime_says_how_to_install(self, fresh_home: Home) -> None:
        """Resolving a runtime that was never installed tells the user to run `toolatlas servers install`."""
        for runtime in (MEMORY, TIME):
            with pytest.raises(
                RuntimeInstallError, match="not installed; run `toolatlas servers install CONFIG`"
            ):
                resolve(server("x", runtime), fresh_home)

    def test_resolve_after_install_is_the_same_runtime(self, memory: Installed, runtime_home: Home) -> None:
        """resolve() finds exactly what install() returned."""
        assert resolve(memory.spec, runtime_home) == memory.runtime


class TestInstallAll:
    def test_installs_concurrently_and_never_stops_at_a_failure(self, fresh_home: Home) -> None:
        """Two servers sharing an npm runtime share one install; a broken server is reported, not raised."""
        catalogue = Catalogue.model_validate(
            {
                "servers": [
                    {"name": "memory-a", "runtime": MEMORY},
                    {
                        "name": "broken",
                        "runtime": {"kind": "command"},
                        "transport": {"command": "toolatlas-no-such-command"},
                    },
                    {"name": "memory-b", "runtime": MEMORY},
                    {"name": "off", "runtime": MEMORY, "enabled": False},
                ]
            }
        )
        seen: list[InstallResult] = []
        lock = threading.Lock()

        def progress(result: InstallResult) -> None:
            with lock:
                seen.append(result)

        results = install_all(catalogue, fresh_home, jobs=3, progress=progress)
        assert list(results) == ["memory-a", "broken", "memory-b"]
        assert sorted(r.server for r in seen) == ["broken", "memory-a", "memory-b"]
        assert results["memory-a"].ok and results["memory-b"].ok
        assert results["memory-a"].runtime.command == results["memory-b"].runtime.command
        assert not results["broken"].ok and "toolatlas-no-such-command" in results["broken"].error
        prefix = Path(results["memory-a"].runtime.location)
        assert read_marker(prefix)["installed_by"] in {"memory-a", "memory-b"}
        assert not list(prefix.parent.glob("*.tmp-*"))
