"""``ServiceProcess``: ``toolatlas serve --transport http`` in a child process, started and stopped cleanly.

For tests, benchmarks and supervisors: the service on a free port, ready once ``/v1/health``
answers, stopped as Ctrl-C would stop it, with what it logged kept for reading::

    with ServiceProcess("--atlas", "atlas.json", token="s3cret") as service:
        requests.post(f"{service.url}/v1/guidance", json={"task": "..."}, headers=service.headers)
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from toolatlas.serve.reader import ServeError

__all__ = ["START_TIMEOUT_S", "STOP_TIMEOUT_S", "ServiceProcess", "free_port"]

START_TIMEOUT_S = 60.0
"""How long the service may take to answer ``/v1/health`` (loading a large atlas included)."""
STOP_TIMEOUT_S = 10.0
"""How long the service may take to stop after the interrupt before it is killed."""
POLL_S = 0.1


PORT_ATTEMPTS = 100


def free_port(host: str = "127.0.0.1", *, outside: Sequence[range] = ()) -> int:
    """A TCP port nothing listens on right now, in none of the ranges ``outside``."""
    for _ in range(PORT_ATTEMPTS):
        with socket.socket() as sock:
            sock.bind((host, 0))
            port = sock.getsockname()[1]
        if not any(port in taken for taken in outside):
            return port
    raise ServeError(f"no free port outside {', '.join(f'{r.start}-{r.stop - 1}' for r in outside)} "
                         f"after {PORT_ATTEMPTS} tries")


class ServiceProcess:
    """``toolatlas [options] serve [args] --transport http --port P`` as a child process."""

    def __init__(
        self,
        *args: str,
        options: Sequence[str] = (),
        token: str | None = None,
        port: int | None = None,
        cwd: str | Path | None = None,
        start_timeout: float = START_TIMEOUT_S,
    ) -> None:
        self.port = port or free_port()
        self.token = token
        self.url = f"http://127.0.0.1:{self.port}"
        self.command = [sys.executable, "-m", "toolatlas.cli", *options, "serve", *args, "--transport", "http",
                        "--port", str(self.port)]
        self.env = {**os.environ, "TOOLATLAS_TOKEN": token} if token else {
            k: v for k, v in os.environ.items() if k != "TOOLATLAS_TOKEN"}
        """The token travels in the environment (not the command line, where `ps` shows it)."""
        self.cwd = cwd
        self.start_timeout = start_timeout
        self.process: subprocess.Popen | None = None
        self._stderr = tempfile.TemporaryFile("w+")

    @property
    def headers(self) -> dict[str, str]:
        """The ``Authorization`` header the service wants (none without a token)."""
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    @property
    def pid(self) -> int:
        if self.process is None:
            raise ServeError("the service has not been started")
        return self.process.pid

    def start(self) -> Self:
        """Start the service and return once it answers ``/v1/health``."""
        self.process = subprocess.Popen(self.command, cwd=self.cwd, stdout=subprocess.DEVNULL, stderr=self._stderr,
                                        text=True, env=self.env)
        try:
            self._wait_until_healthy(self.process)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> str:
        """Interrupt the service as Ctrl-C would, wait for it (kill it if it hangs); what it logged."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._stderr.seek(0)
        return self._stderr.read()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _wait_until_healthy(self, process: subprocess.Popen) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise ServeError(f"toolatlas serve exited with {process.returncode}: {self.stop().strip()}")
            try:
                with urllib.request.urlopen(f"{self.url}/v1/health", timeout=1.0) as answer:
                    if answer.status == 200:
                        return
            except OSError:  # not listening yet (URLError, connection refused or reset, timeout)
                pass
            time.sleep(POLL_S)
        raise ServeError(f"toolatlas serve did not answer {self.url}/v1/health within {self.start_timeout:.0f}s")
