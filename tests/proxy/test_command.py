"""``toolatlas proxy`` as a command: bad input is a clear error before anything starts; stdio that is no pipe."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.home import Home

from .conftest import BuiltAtlas, proxy_command

pytestmark = pytest.mark.servers


class TestCommandLine:
    def test_unknown_server(self, demo_atlas: BuiltAtlas, capsys: pytest.CaptureFixture[str]) -> None:
        """A server the catalogue does not have is a clear error listing the ones it has."""
        assert main(["proxy", str(demo_atlas.config), "--server", "nope", "--atlas", str(demo_atlas.export)]) == 2
        assert "no server 'nope' in the catalogue (it has: filesystem, memory" in capsys.readouterr().err

    def test_placeholder_without_value(self, demo_atlas: BuiltAtlas, capsys: pytest.CaptureFixture[str]) -> None:
        """In front of a real deployment, a launch placeholder without a value names the --var to give."""
        assert main(["proxy", str(demo_atlas.config), "--server", "filesystem", "--atlas", str(demo_atlas.export)]) == 2
        err = capsys.readouterr().err
        assert "servers[filesystem].transport.args[0]" in err and "--var root=VALUE" in err

    def test_bad_var_and_missing_atlas(self, demo_atlas: BuiltAtlas, capsys: pytest.CaptureFixture[str]) -> None:
        """A --var without '=' and an --atlas that does not exist are clear errors."""
        assert main(["proxy", str(demo_atlas.config), "--server", "memory", "--var", "root"]) == 2
        assert "expected NAME=VALUE" in capsys.readouterr().err
        assert main(["proxy", str(demo_atlas.config), "--server", "memory", "--atlas", "/nonexistent/atlas.json"]) == 2
        assert "no such file" in capsys.readouterr().err



class TestStdioTransport:
    def test_stdin_that_is_not_a_pipe(self, demo_atlas: BuiltAtlas, tmp_path: Path) -> None:
        """With stdin a file (not a pipe) the SDK's own stdio transport serves: the handshake is answered."""
        requests = tmp_path / "requests.jsonl"
        requests.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}) + "\n")
        launch = proxy_command(str(demo_atlas.config), "--server", "memory", "--sandbox", "--atlas", str(demo_atlas.export))
        with requests.open() as stdin:
            done = subprocess.run([launch.command, *launch.args], stdin=stdin, capture_output=True, text=True,
                                  env={**os.environ, **launch.env}, cwd=launch.cwd, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout.splitlines()[0])
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "memory-server"
        assert "atlas_guidance" in answer["result"]["instructions"]

    def test_sigterm_stops_the_server_and_removes_its_instance(self, demo_atlas: BuiltAtlas) -> None:
        """A proxy stopped with SIGTERM (a supervisor's stop) exits 0 and leaves no instance folder behind."""
        import signal
        import time

        from .conftest import HOME

        instances = Home(HOME).instances_root
        before = set(instances.glob("*/proxy-memory-*"))
        launch = proxy_command(str(demo_atlas.config), "--server", "memory", "--sandbox", "--atlas", str(demo_atlas.export))
        proxy = subprocess.Popen([launch.command, *launch.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env={**os.environ, **launch.env}, cwd=launch.cwd)
        try:
            assert proxy.stdin is not None and proxy.stdout is not None
            proxy.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}}) + "\n").encode())
            proxy.stdin.flush()
            assert json.loads(proxy.stdout.readline())["id"] == 1
            serving = set(instances.glob("*/proxy-memory-*")) - before
            assert len(serving) == 1 and next(iter(serving)).is_dir()
            proxy.send_signal(signal.SIGTERM)
            assert proxy.wait(60) == 0, proxy.stderr.read().decode() if proxy.stderr else ""
        finally:
            proxy.kill()
            proxy.wait()
        deadline = time.monotonic() + 5
        while set(instances.glob("*/proxy-memory-*")) - before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert set(instances.glob("*/proxy-memory-*")) - before == set()
