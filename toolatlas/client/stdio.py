"""A bounded stdio transport for MCP servers we do not trust.

The SDK's stdio client reads lines of any length and has no notion of a misbehaving server.
This transport, built on the same streams the SDK's ``ClientSession`` consumes, adds what a
prober of third-party servers needs:

- a cap on the size of one JSON-RPC line (a flooding server cannot exhaust our memory);
- every non-JSON line and every oversized line is reported as a :class:`TransportFault`;
- the end of the server's stdout (a crash) is reported as a fault with the exit code;
- stderr is drained continuously into a bounded tail (and optionally a capped log file), so a
  chatty server can never block on a full pipe;
- the server runs in its own process group and the whole group is killed on close;
- a launch may carry :class:`ProcessHooks` (an OS sandbox's): told when the process started, when a
  call is about to reach it and when it has exited.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import anyio
import mcp_types as types
import structlog
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

__all__ = ["ProcessHooks", "StdioLaunch", "StdioServerProcess", "TransportFault"]

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
"""What an MCP client session reads from and writes to (the shape of an MCP transport's streams)."""

log = structlog.get_logger(__name__)

READ_CHUNK_BYTES = 256 * 1024
"""Bytes read from the server's stdout per receive."""
STDERR_TAIL_BYTES = 16 * 1024
"""Bytes of the server's most recent stderr kept in memory for error reports."""
STDERR_LOG_MAX_BYTES = 8 * 1024 * 1024
"""Bytes a stderr log file may hold, counted over every process that appends to it (a restarted
server continues its predecessor's file); past it, the file stops growing."""
GRACEFUL_EXIT_TIMEOUT = 0.5
"""Seconds the server gets to exit by itself after its stdin closes."""
TERMINATE_TIMEOUT = 1.0
"""Seconds between SIGTERM and SIGKILL of the process group."""


@dataclass(frozen=True)
class TransportFault:
    """Something the server did on the wire that breaks the protocol, or its exit."""

    kind: str
    """``malformed`` (a line that is not JSON-RPC), ``oversized`` (a line over the cap) or ``exited``."""
    detail: str


class ProcessHooks(Protocol):
    """What the mechanism confining a server does around each of its processes (all quick, never blocking)."""

    def started(self, pid: int) -> None:
        """The process ``pid`` was just started."""
        ...

    def working(self, pid: int) -> None:
        """A call is about to be sent to the process (a CPU budget renews here)."""
        ...

    def stopped(self, pid: int) -> None:
        """The process has exited and been reaped."""
        ...


@dataclass(frozen=True)
class StdioLaunch:
    """How to start one server process."""

    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    batch: bool = False
    """Schedule the process as batch work (Linux ``SCHED_BATCH``): a request written to it then
    does not preempt the writer — a client feeding many servers on few cores keeps feeding them
    instead of running each one's turn first. Sandboxes set it; an agent's live servers do not."""
    hooks: ProcessHooks | None = field(default=None, compare=False)
    """Set by an OS sandbox that wraps the launch (:mod:`toolatlas.confinement`)."""
    confinement: str = "none"
    """The mechanism confining the process (``bubblewrap``), or ``none``."""


def _schedule_as_batch(pid: int) -> None:
    """Put a child process under ``SCHED_BATCH`` where the OS has it (what it starts from then on
    inherits it; a launcher's child started before is left as it is); where it cannot (another
    OS, a container forbidding it), the server runs as it would have."""
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is None:
        return
    try:
        os.sched_setscheduler(pid, policy, os.sched_param(0))
    except OSError as exc:  # exited already, or not permitted here
        log.debug("batch_scheduling_unavailable", pid=pid, error=str(exc))


class StdioServerProcess:
    """One server process and the MCP streams over its stdio, as an async context manager.

    ``on_fault`` is called (synchronously, from the reader task) for every :class:`TransportFault`.
    """

    def __init__(
        self,
        launch: StdioLaunch,
        *,
        max_message_bytes: int,
        on_fault: Callable[[TransportFault], None],
        stderr_log: Path | None = None,
    ) -> None:
        self.launch = launch
        self.max_message_bytes = max_message_bytes
        self.on_fault = on_fault
        self.stderr_log = stderr_log
        self.process: Process | None = None
        self.graceful = True
        """Stop by closing stdin and letting the server exit on its own first (the MCP way); when
        false, the process group is sent SIGTERM at once (see :meth:`ServerConnection.close`)."""
        self._stderr_tail: deque[bytes] = deque()
        self._stderr_tail_size = 0

    # -- observation ---------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def returncode(self) -> int | None:
        return self.process.returncode if self.process else None

    def stderr_tail(self, max_bytes: int = 4096) -> str:
        data = b"".join(self._stderr_tail)[-min(max_bytes, STDERR_TAIL_BYTES) :]
        return data.decode("utf-8", errors="replace")

    def working(self) -> None:
        """A call is about to be sent (the confinement's hook: e.g. the CPU window renews)."""
        if self.launch.hooks is not None and self.process is not None and self.process.returncode is None:
            self.launch.hooks.working(self.process.pid)

    def kill(self) -> None:
        """SIGKILL the whole process group now (used on a hang; idempotent)."""
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)

    # -- the transport -------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[Streams]:
        env = {**_inherited_environment(), **self.launch.env}
        self.process = await anyio.open_process(
            [self.launch.command, *self.launch.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=self.launch.cwd,
            start_new_session=True,
        )
        if self.launch.batch:
            _schedule_as_batch(self.process.pid)
        if self.launch.hooks is not None:
            self.launch.hooks.started(self.process.pid)
        process = self.process
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](32)
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](32)

        async with anyio.create_task_group() as tg:
            tg.start_soon(self._read_stdout, process, read_writer)
            tg.start_soon(self._write_stdin, process, write_reader)
            tg.start_soon(self._drain_stderr, process)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    await self._stop(process)
                    for stream in (read_stream, write_stream, read_writer, write_reader):
                        await stream.aclose()
                tg.cancel_scope.cancel()

    async def _read_stdout(self, process: Process, sink: anyio.abc.ObjectSendStream) -> None:
        assert process.stdout is not None
        buffer = bytearray()
        discarding = False  # inside an oversized line: drop bytes until its newline
        async with sink:
            try:
                while True:
                    try:
                        chunk = await process.stdout.receive(READ_CHUNK_BYTES)
                    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                        break
                    start = 0
                    while True:
                        newline = chunk.find(b"\n", start)
                        if newline < 0:
                            if not discarding:
                                buffer += chunk[start:]
                                if len(buffer) > self.max_message_bytes:
                                    self._fault("oversized", f"a message exceeded {self.max_message_bytes} bytes")
                                    buffer.clear()
                                    discarding = True
                            break
                        if discarding:
                            discarding = False
                        else:
                            buffer += chunk[start:newline]
                            if len(buffer) > self.max_message_bytes:
                                self._fault("oversized", f"a message of {len(buffer)} bytes exceeded the limit")
                            elif buffer.strip():
                                await self._deliver(bytes(buffer), sink)
                        buffer.clear()
                        start = newline + 1
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the session went away first
            # Report the exit before the stream closes, so in-flight calls are classified as crashes.
            with anyio.CancelScope(shield=True), anyio.move_on_after(GRACEFUL_EXIT_TIMEOUT):
                await process.wait()
            self._fault("exited", f"the server closed its stdout (exit code {process.returncode})")

    async def _deliver(self, line: bytes, sink: anyio.abc.ObjectSendStream) -> None:
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError as exc:
            excerpt = line[:200].decode("utf-8", errors="replace")
            self._fault("malformed", f"not a JSON-RPC message: {excerpt!r}")
            await sink.send(exc)
            return
        await sink.send(SessionMessage(message))

    async def _write_stdin(self, process: Process, source: anyio.abc.ObjectReceiveStream) -> None:
        assert process.stdin is not None
        try:
            async with source:
                async for session_message in source:
                    data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((data + "\n").encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass  # the server is gone; the reader reports it

    async def _drain_stderr(self, process: Process) -> None:
        assert process.stderr is not None
        logfile = None
        written = 0
        if self.stderr_log is not None:
            self.stderr_log.parent.mkdir(parents=True, exist_ok=True)
            logfile = self.stderr_log.open("ab")
            written = os.fstat(logfile.fileno()).st_size
            if written >= STDERR_LOG_MAX_BYTES:
                logfile.close()
                logfile = None
        try:
            while True:
                try:
                    chunk = await process.stderr.receive(READ_CHUNK_BYTES)
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
                self._stderr_tail.append(chunk)
                self._stderr_tail_size += len(chunk)
                while self._stderr_tail_size - len(self._stderr_tail[0]) >= STDERR_TAIL_BYTES:
                    self._stderr_tail_size -= len(self._stderr_tail.popleft())
                if logfile is not None and written < STDERR_LOG_MAX_BYTES:
                    logfile.write(chunk[: STDERR_LOG_MAX_BYTES - written])
                    written += len(chunk)
                    if written >= STDERR_LOG_MAX_BYTES:
                        logfile.write(b"\n[toolatlas: stderr log capped here]\n")
                    logfile.flush()
        finally:
            if logfile is not None:
                logfile.close()

    async def _stop(self, process: Process) -> None:
        """Close stdin, give the server a moment (unless not :attr:`graceful`), then TERM and KILL its
        process group."""
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                await process.stdin.aclose()
        stages = ((None, GRACEFUL_EXIT_TIMEOUT),) if self.graceful else ()
        for sig, wait in (*stages, (signal.SIGTERM, TERMINATE_TIMEOUT), (signal.SIGKILL, 1.0)):
            if sig is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, sig)
            if process.returncode is not None:
                break
            with anyio.move_on_after(wait):
                await process.wait()
            if process.returncode is not None:
                break
        # The group may outlive its leader (a wrapper script's children): make sure it is gone.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await process.aclose()
        if self.launch.hooks is not None and process.returncode is not None:
            self.launch.hooks.stopped(process.pid)

    def _fault(self, kind: str, detail: str) -> None:
        log.debug("transport_fault", command=self.launch.command, kind=kind, detail=detail)
        self.on_fault(TransportFault(kind, detail))


_INHERITED = ("PATH", "LANG", "LC_ALL", "TZ", "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "USER", "LOGNAME", "SHELL", "TERM")


def _inherited_environment() -> dict[str, str]:
    """The variables a server process inherits from us; everything else it gets is explicit."""
    return {key: os.environ[key] for key in _INHERITED if key in os.environ}
