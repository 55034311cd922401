"""The child's side channel to the parent: JSON lines out (events), JSON lines in (replies). Stdlib only.

Events are violations, tool calls, the ``ready`` report and the final ``result``. The channel
is an inherited pipe, so code running in the child *could* write to it; the parent treats any
malformed, duplicated or unexpected message as a ``tamper`` violation, and a violation already
sent cannot be taken back. Before each write the channel checks that its descriptor is still
the pipe it was given; if the code closed or replaced it, the child exits with
:data:`EXIT_TAMPER` instead of reporting into the void.
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["EXIT_TAMPER", "Channel"]

EXIT_TAMPER = 86
"""Exit status of a child whose side channel was closed or replaced by the code it ran."""


class Channel:
    """JSON-lines messages over two inherited pipe descriptors."""

    def __init__(self, events_fd: int, replies_fd: int) -> None:
        self._events = events_fd
        self._replies = replies_fd
        # Bound now, so that code patching the os or json modules cannot silence the channel.
        self._write, self._read, self._fstat, self._exit = os.write, os.read, os.fstat, os._exit
        self._dumps, self._loads = json.dumps, json.loads
        status = os.fstat(events_fd)
        self._identity = (status.st_dev, status.st_ino)
        self._pending = b""

    def send(self, message: dict[str, Any]) -> None:
        data = (self._dumps(message, default=repr) + "\n").encode("utf-8")
        try:
            status = self._fstat(self._events)
            if (status.st_dev, status.st_ino) != self._identity:
                raise OSError("side channel replaced")
            while data:
                data = data[self._write(self._events, data) :]
        except OSError:
            self._exit(EXIT_TAMPER)

    def receive(self) -> dict[str, Any]:
        """The parent's next reply (blocks); a parent that went away ends the child."""
        while b"\n" not in self._pending:
            try:
                chunk = self._read(self._replies, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._exit(EXIT_TAMPER)
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        reply = self._loads(line)
        return reply if isinstance(reply, dict) else {}
