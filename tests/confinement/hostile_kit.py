"""A hostile MCP server and the world it attacks: a secret, a path outside, a listener, a daemon's tag."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolatlas.config import Catalogue, parse_catalogue
from toolatlas.testing import hostile_server_command

SECRET_TEXT = "root:$6$not-a-real-hash:19000:0:99999:7:::"
"""What the stand-in for /etc/shadow holds: none of it may reach a result or an atlas."""


@dataclass
class Listener:
    """A TCP listener on 127.0.0.1 that counts who reached it."""

    port: int
    connections: list[bytes] = field(default_factory=list)


@dataclass
class HostileWorld:
    """Everything a test needs to point the hostile server at, and to check what it reached."""

    root: Path
    secret: Path
    outside: Path
    granted: Path
    """A folder the server is granted read-only (``sandbox.read_only``): it may read, never write."""
    listener: Listener
    marker: str
    seed: Path

    def env(self, **extra: str) -> dict[str, str]:
        return {
            "HOSTILE_OUTSIDE": f"{self.outside}:{self.granted / 'planted.txt'}",
            "HOSTILE_PORT": str(self.listener.port),
            "HOSTILE_SECRETS": f"{self.secret}:/etc/shadow",
            "HOSTILE_MARKER": self.marker,
            "HOSTILE_STATE": "${file}",
            **extra,
        }

    def server(self, name: str = "hostile", *, only: str | None = None, env: dict[str, str] | None = None,
               **fields: Any) -> dict[str, Any]:
        """A catalogue entry for the hostile server against a JSON-file state."""
        command, args = hostile_server_command()
        if only:
            args = [*args, "--only", only]
        return {
            "name": name,
            "transport": {"command": command, "args": args, "env": self.env(**(env or {}))},
            "environment": {"kind": "json_file", "snapshot": str(self.seed)},
            "sandbox": {"read_only": [str(self.granted)]},
            **fields,
        }

    def catalogue(self, *servers: dict[str, Any], **sections: Any) -> Catalogue:
        return parse_catalogue({"servers": list(servers), **sections}, self.root / "catalogue.toml")


def make_world(tmp_path: Path) -> Iterator[HostileWorld]:
    """A fresh world per test; the listener stops and any leftover daemon is reported by the test."""
    root = tmp_path / "world"
    root.mkdir()
    secret = root / "shadow"
    secret.write_text(SECRET_TEXT + "\n")
    granted = root / "granted"
    granted.mkdir()
    (granted / "readme.txt").write_text("granted to the server, read-only\n")
    seed = root / "seed.json"
    seed.write_text('{"items": [1, 2, 3]}\n')
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    listener = Listener(server.getsockname()[1])
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            with connection:
                connection.settimeout(1)
                try:
                    listener.connections.append(connection.recv(1024))
                except OSError:
                    listener.connections.append(b"")

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    world = HostileWorld(root, secret, root / "outside.txt", granted, listener, f"hostile-{uuid.uuid4().hex}", seed)
    yield world
    for pid in {*processes_tagged(world.marker), *processes_started_by(world.marker)}:  # never left running
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    stop.set()
    thread.join(2)
    server.close()


def processes_tagged(marker: str) -> list[int]:
    """Pids of live processes whose command line carries ``marker`` (a daemon the server left)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{entry}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


def toml_catalogue(path: Path, *servers: dict[str, Any]) -> Path:
    """Write ``servers`` (catalogue entries as dicts) as a TOML catalogue a subprocess can load."""

    def value(item: Any) -> str:
        if isinstance(item, bool):
            return "true" if item else "false"
        if isinstance(item, int | float):
            return repr(item)
        if isinstance(item, str):
            return json.dumps(item)
        if isinstance(item, list):
            return "[" + ", ".join(value(v) for v in item) + "]"
        return "{ " + ", ".join(f"{key} = {value(v)}" for key, v in item.items()) + " }"

    blocks = ["[[servers]]\n" + "".join(f"{key} = {value(v)}\n" for key, v in server.items()) for server in servers]
    path.write_text("\n".join(blocks))
    return path


def processes_started_by(marker: str) -> list[int]:
    """Live processes started with ``HOSTILE_MARKER=<marker>``: the server and everything it forked."""
    needle = f"HOSTILE_MARKER={marker}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if needle in handle.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                continue
    return found
