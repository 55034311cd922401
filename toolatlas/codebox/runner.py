"""The parent side of one code-box run: start the confined child, serve its side channel, judge the end.

The child is this venv's interpreter in isolated mode (``-I -B``) running :mod:`._child`, in its
own session (so the whole process group can be killed), with a fresh working directory, a
scrubbed environment and two inherited pipes: *events* (child → parent: ``ready``,
``violation``, ``call``, ``result``) and *replies* (parent → child: tool results). The job goes
in on stdin. stdout and stderr are captured with a byte budget. The run ends at the child's exit
or at the wall-clock deadline, whichever comes first; the process group is killed either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
import sys
import sysconfig
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

import structlog

from toolatlas.codebox._channel import EXIT_TAMPER
from toolatlas.codebox.models import Isolation, RunPolicy, RunResult, RunStatus, Violation, ViolationRule
from toolatlas.environments.base import remove_tree
from toolatlas.errors import CodeSandboxError

__all__ = ["CallHandler", "run_child"]

log = structlog.get_logger(__name__)

CHILD_SCRIPT = Path(__file__).with_name("_child.py")
MAX_EVENT_BYTES = 8 << 20
"""Largest side-channel message (a tool call's arguments) the parent accepts."""
DRAIN_TIMEOUT_S = 2.0
"""How long to wait for the rest of stdout/stderr after the child is gone."""
DEVICE_FILES = ("/dev/null",)
_SYSTEM_READ_ROOTS = (
    "/usr/lib", "/usr/lib64", "/usr/local/lib", "/lib", "/lib64", "/usr/share/zoneinfo",
    "/etc/ld.so.cache", "/etc/localtime", "/dev/urandom",
)  # fmt: skip

CallHandler = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""Answers one tool call from the child with ``{"result": {...}}`` or ``{"refused": reason}``."""


@functools.cache
def interpreter_read_roots() -> tuple[str, ...]:
    """What any child must be able to read: the Python installation, this package, system libraries."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, str(CHILD_SCRIPT.parent)}
    paths |= {
        p for key, p in sysconfig.get_paths().items() if key in ("stdlib", "platstdlib", "purelib", "platlib")
    }
    roots = {os.path.realpath(p) for p in paths} | paths | set(_SYSTEM_READ_ROOTS)
    roots.add(os.path.realpath("/etc/localtime"))
    return tuple(sorted(r for r in roots if os.path.exists(r)))


class _Capture:
    """Keeps the head and the tail of a stream within a byte budget, and counts everything."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.limit // 2 - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            del self.tail[: max(0, len(self.tail) - self.limit // 2)]

    def text(self) -> str:
        omitted = self.total - len(self.head) - len(self.tail)
        middle = f"\n[... {omitted} bytes omitted ...]\n".encode() if omitted else b""
        return (bytes(self.head) + middle + bytes(self.tail)).decode("utf-8", errors="replace")

    async def read_from(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(1 << 16):
            self.feed(chunk)


class _Session:
    """What the parent learns from one child over the side channel."""

    def __init__(self) -> None:
        self.isolation: Isolation | None = None
        self.violations: list[Violation] = []
        self.result: dict[str, Any] | None = None

    def tamper(self, detail: str) -> None:
        self.violations.append(Violation(rule=ViolationRule.TAMPER, detail=detail))


async def run_child(
    mode: Literal["verify", "code"],
    source: str,
    payload: dict[str, Any],
    policy: RunPolicy,
    *,
    read_roots: list[str] | tuple[str, ...] = (),
    on_call: CallHandler | None = None,
) -> RunResult:
    """Run ``source`` in a confined child; ``payload`` is merged into the job (state, answer, tools)."""
    workdir = Path(tempfile.mkdtemp(prefix="codebox-"))
    try:
        (workdir / "tmp").mkdir()
        job = {
            "mode": mode,
            "source": source,
            **payload,
            "read_roots": [*interpreter_read_roots(), *read_roots, *policy.extra_read_roots],
            "write_roots": [str(workdir)],
            "device_files": list(DEVICE_FILES),
            "limits": {
                "cpu_s": policy.cpu_limit_s,
                "memory_bytes": policy.memory_mb << 20,
                "file_size_bytes": policy.file_size_mb << 20,
                "open_files": policy.open_files,
                "disk_quota_bytes": policy.disk_quota_mb << 20,
            },
            "kernel_isolation": policy.kernel_isolation,
            "audit_hook": policy.audit_hook,
        }
        return await _supervise(job, workdir, policy, on_call)
    finally:
        await asyncio.shield(asyncio.to_thread(remove_tree, workdir))


async def _supervise(
    job: dict[str, Any], workdir: Path, policy: RunPolicy, on_call: CallHandler | None
) -> RunResult:
    events_r, events_w = os.pipe()
    replies_r, replies_w = os.pipe()
    job |= {"events_fd": events_w, "replies_fd": replies_r}
    env = {"PATH": "/usr/bin:/bin", "HOME": str(workdir), "TMPDIR": str(workdir / "tmp"), "LANG": "C.UTF-8"}
    started = time.perf_counter()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-B", "-X", "utf8", str(CHILD_SCRIPT),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            pass_fds=(events_w, replies_r),
            cwd=workdir,
            env=env,
            start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        os.close(events_r)
        os.close(replies_w)
        raise CodeSandboxError(f"cannot start the code-box interpreter {sys.executable}: {exc}") from exc
    finally:
        os.close(events_w)  # the child holds its own copies
        os.close(replies_r)
    stdout, stderr = _Capture(policy.max_output_bytes), _Capture(max(1024, policy.max_output_bytes // 4))
    readers = [
        asyncio.create_task(stdout.read_from(process.stdout)),  # type: ignore[arg-type]
        asyncio.create_task(stderr.read_from(process.stderr)),  # type: ignore[arg-type]
    ]
    session = _Session()
    loop = asyncio.get_running_loop()
    events = asyncio.StreamReader(limit=MAX_EVENT_BYTES, loop=loop)
    events_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(events, loop=loop), os.fdopen(events_r, "rb", buffering=0)
    )
    replies_transport, replies_protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop),
        os.fdopen(replies_w, "wb", buffering=0),
    )
    replies = asyncio.StreamWriter(replies_transport, replies_protocol, None, loop)
    timed_out = False

    async def release() -> None:
        _kill_group(process)
        await process.wait()
        events_transport.close()
        replies_transport.close()
        await _drain(readers)

    try:
        await asyncio.wait_for(_serve(process, job, events, replies, session, on_call), policy.timeout_s)
    except TimeoutError:
        timed_out = True
    finally:
        await asyncio.shield(release())  # a cancelled caller still leaves no process behind
    duration_ms = (time.perf_counter() - started) * 1000
    if session.isolation is None and not timed_out:
        raise CodeSandboxError(
            f"the code-box child exited (status {process.returncode}) before running any code:\n"
            + stderr.text()[-2000:]
        )
    run = _judge(session, process.returncode, timed_out, policy)
    log.debug("codebox_run", mode=job["mode"], status=run["status"], duration_ms=round(duration_ms, 1))
    return RunResult(
        **run,
        violations=session.violations,
        stdout=stdout.text(),
        stderr=stderr.text(),
        stdout_bytes=stdout.total,
        stderr_bytes=stderr.total,
        exit_code=process.returncode,
        duration_ms=duration_ms,
        isolation=session.isolation or Isolation(),
    )


async def _serve(
    process: asyncio.subprocess.Process,
    job: dict[str, Any],
    events: asyncio.StreamReader,
    replies: asyncio.StreamWriter,
    session: _Session,
    on_call: CallHandler | None,
) -> None:
    """Send the job, handle the child's messages until its side channel closes, wait for its exit."""
    assert process.stdin is not None
    process.stdin.write(json.dumps(job).encode())
    with contextlib.suppress(ConnectionError):
        await process.stdin.drain()
    process.stdin.close()
    while True:
        try:
            line = await events.readline()
        except (ValueError, asyncio.LimitOverrunError):
            session.tamper(f"a side-channel message over {MAX_EVENT_BYTES} bytes")
            break
        if not line:
            break
        if not line.endswith(b"\n"):
            session.tamper("an unterminated side-channel message")
            break
        try:
            message = json.loads(line)
            kind = message["event"]
        except (ValueError, TypeError, KeyError):
            session.tamper(f"a malformed side-channel message: {line[:120]!r}")
            break
        if not await _handle(message, kind, session, replies, on_call):
            break
    if session.violations and session.violations[-1].rule is ViolationRule.TAMPER:
        _kill_group(process)
    await process.wait()


async def _handle(
    message: dict[str, Any],
    kind: str,
    session: _Session,
    replies: asyncio.StreamWriter,
    on_call: CallHandler | None,
) -> bool:
    """Apply one message; ``False`` when the channel can no longer be trusted."""
    if kind == "ready" and session.isolation is None:
        session.isolation = Isolation.model_validate(message.get("isolation"))
        return True
    if session.isolation is None:
        session.tamper(f"a {kind!r} message before the child was confined")
        return False
    if kind == "violation" and message.get("rule") in ViolationRule.__members__.values():
        session.violations.append(
            Violation(rule=message["rule"], detail=str(message.get("detail", ""))[:500])
        )
        return True
    if kind == "result" and session.result is None:
        session.result = message
        return True
    if kind == "call" and on_call is not None and session.result is None:
        arguments = message.get("arguments")
        if not isinstance(message.get("tool"), str) or not isinstance(arguments, dict):
            reply: dict[str, Any] = {"refused": "a call needs a tool name and a dict of arguments"}
        else:
            reply = await on_call(message["tool"], arguments)
        replies.write(json.dumps(reply, default=str).encode() + b"\n")
        with contextlib.suppress(ConnectionError):
            await replies.drain()
        return True
    session.tamper(f"an unexpected side-channel message: {kind!r}")
    return False


def _judge(session: _Session, returncode: int | None, timed_out: bool, policy: RunPolicy) -> dict[str, Any]:
    """Status, detail and traceback of a finished run (violations first: they cannot be hidden)."""
    result = session.result or {}
    traceback = str(result.get("traceback", ""))
    if returncode == EXIT_TAMPER:
        session.tamper("the side channel was closed or replaced by the code")
    if session.violations:
        first = session.violations[0]
        return {
            "status": RunStatus.VIOLATION,
            "detail": f"{first.rule.value}: {first.detail}",
            "traceback": traceback,
        }
    if timed_out:
        return {"status": RunStatus.TIMEOUT, "detail": f"wall-clock limit of {policy.timeout_s:g}s reached"}
    if returncode is not None and returncode < 0:
        name = signal.Signals(-returncode).name if -returncode in signal.valid_signals() else str(-returncode)
        if -returncode == signal.SIGXCPU:
            return {"status": RunStatus.TIMEOUT, "detail": f"CPU limit of {policy.cpu_limit_s}s reached"}
        return {"status": RunStatus.CRASHED, "detail": f"killed by {name}"}
    if not result:
        return {"status": RunStatus.CRASHED, "detail": f"exited with status {returncode} without a result"}
    status = result.get("status")
    if status not in ("ok", "failed", "error", "crashed"):
        session.tamper(f"a result with status {status!r}")
        return _judge(session, returncode, timed_out, policy)
    return {"status": RunStatus(status), "detail": str(result.get("detail", "")), "traceback": traceback}


def _kill_group(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()


async def _drain(readers: list[asyncio.Task[None]]) -> None:
    _done, pending = await asyncio.wait(readers, timeout=DRAIN_TIMEOUT_S)
    for task in pending:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
