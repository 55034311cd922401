"""The code-box child: confine this process, then run one verifier or one CodeAct snippet. Stdlib only.

Started by :mod:`toolatlas.codebox.runner` as ``python -I -B -X utf8 _child.py`` with the job
(JSON) on stdin, in a fresh working directory and a scrubbed environment. Sequence: read the
job → :func:`_confine.confine` (kernel layers, rlimits) → ``ready`` on the side channel →
compile the code → install the audit hook (:mod:`_guard`) → run → ``result`` on the side
channel → ``os._exit`` (no atexit handlers of the code run after the verdict).
"""

from __future__ import annotations

import errno
import json
import linecache
import os
import sys
import traceback
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
_TRACEBACK_CHARS = 4000


def main() -> None:
    # Siblings are imported here, not at module level: nothing of the confinement machinery is
    # left as an attribute of ``__main__`` for the code to pick up.
    sys.path.insert(0, _HERE)
    import _channel
    import _confine
    import _guard

    sys.path.remove(_HERE)
    job = json.loads(sys.stdin.buffer.read())
    channel = _channel.Channel(job["events_fd"], job["replies_fd"])
    limits = job["limits"]
    isolation = _confine.confine(
        read_roots=job["read_roots"],
        write_roots=job["write_roots"],
        device_files=job["device_files"],
        cpu_s=limits["cpu_s"],
        memory_bytes=limits["memory_bytes"],
        file_size_bytes=limits["file_size_bytes"],
        open_files=limits["open_files"],
        kernel=job["kernel_isolation"],
        quota_dir=job["write_roots"][0],
        quota_bytes=limits["disk_quota_bytes"],
    )
    _forget_native_modules()
    isolation["audit_hook"] = bool(job["audit_hook"])
    channel.send({"event": "ready", "isolation": isolation})

    statvfs = os.statvfs  # taken before the code runs: what it does to `os` cannot hide a full disk
    filename = "<verifier>" if job["mode"] == "verify" else "<snippet>"
    namespace, state = _prepare(job, channel)
    try:
        code = compile(job["source"], filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        _finish(channel, {"status": "error", "detail": f"{type(exc).__name__}: {exc}"})
    linecache.cache[filename] = (len(job["source"]), None, job["source"].splitlines(True), filename)
    if job["audit_hook"]:
        _guard.install(channel.send, job["write_roots"], job["device_files"], job["read_roots"])
    outcome = _run(job, code, namespace, state)
    if isolation["disk_quota_mb"] and _full(job["write_roots"][0], statvfs):
        used_up = f"the work dir's {isolation['disk_quota_mb']} MiB are used up"
        channel.send({"event": "violation", "rule": "disk_quota", "detail": used_up})
    _finish(channel, outcome)


def _full(folder: str, statvfs: Any) -> bool:
    """Whether the work dir's tmpfs has (next to) no free block left."""
    try:
        info = statvfs(folder)
    except OSError:
        return False
    return info.f_bavail * info.f_frsize < 64 * 1024


def _forget_native_modules() -> None:
    """Drop ctypes (used for confinement) so that the code must import it again, which the hook sees."""
    for name in [n for n in sys.modules if n in ("ctypes", "_ctypes") or n.startswith("ctypes.")]:
        del sys.modules[name]
    for name in ("_confine", "_guard", "_channel"):
        sys.modules.pop(name, None)


def _prepare(job: dict[str, Any], channel: Any) -> tuple[dict[str, Any], Any]:
    """The code's global namespace, and for a verifier the ``state`` it will be given."""
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
    if job["mode"] == "verify":
        return namespace, _sibling("stateview").StateView(**job["state"])
    toolproxy = _sibling("toolproxy")
    call_tool = toolproxy.make_call_tool(channel.send, channel.receive)
    namespace.update(
        call_tool=call_tool,
        tools=toolproxy.Tools(job["tools"], call_tool),
        ToolCallRefused=toolproxy.ToolCallRefused,
    )
    return namespace, None


def _run(job: dict[str, Any], code: Any, namespace: dict[str, Any], state: Any) -> dict[str, Any]:
    limits = job["limits"]
    try:
        exec(code, namespace)  # noqa: S102 - running this code, confined, is the point
        if job["mode"] != "verify":
            return {"status": "ok"}
        verify = namespace.get("verify")
        if not callable(verify):
            return {"status": "error", "detail": "the verifier defines no function verify(state, answer)"}
        return _verdict(verify(state, job["answer"]))
    except AssertionError as exc:
        if job["mode"] != "verify":
            return _error(exc)
        return {"status": "failed", "detail": str(exc) or _assert_line(exc), "traceback": _traceback(exc)}
    except MemoryError as exc:
        mib = limits["memory_bytes"] >> 20
        return {
            "status": "crashed",
            "detail": f"memory limit ({mib} MiB) exceeded",
            "traceback": _traceback(exc),
        }
    except BaseException as exc:  # noqa: BLE001 - every way the code can end is a result
        return _error(exc)


def _error(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:  # RLIMIT_FSIZE
        return {
            "status": "crashed",
            "detail": f"file size limit exceeded: {exc}",
            "traceback": _traceback(exc),
        }
    detail = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SystemExit):
        detail = f"the code called sys.exit({exc.code!r})"
    return {"status": "error", "detail": detail, "traceback": _traceback(exc)}


def _verdict(value: Any) -> dict[str, Any]:
    """``True``/``False`` or ``(passed, reason)``; anything else is an error in the verifier."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bool):
        passed, reason = value
        return {"status": "ok" if passed else "failed", "detail": str(reason)}
    if isinstance(value, bool):
        return {"status": "ok" if value else "failed", "detail": "" if value else "verify() returned False"}
    shown = repr(value) if len(repr(value)) <= 200 else repr(value)[:199] + "…"
    return {
        "status": "error",
        "detail": f"verify() returned {shown}; it must return True/False or (passed, reason)",
    }


def _assert_line(exc: AssertionError) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<")]
    if not frames:
        return "assertion failed"
    frame = frames[-1]
    return f"assertion failed at line {frame.lineno}: {frame.line or ''}".rstrip(": ")


def _traceback(exc: BaseException) -> str:
    """The traceback without the bootstrap's own frames, cut to its last few thousand characters."""
    summary = traceback.TracebackException.from_exception(exc)
    summary.stack = traceback.StackSummary.from_list(
        [frame for frame in summary.stack if frame.filename != __file__]
    )
    text = "".join(summary.format())
    return text if len(text) <= _TRACEBACK_CHARS else "…" + text[-_TRACEBACK_CHARS:]


def _sibling(name: str) -> Any:
    """Import a module of the helpers the code uses (``stateview``, ``toolproxy``) from this folder."""
    sys.path.insert(0, _HERE)
    try:
        return __import__(name)
    finally:
        sys.path.remove(_HERE)


def _finish(channel: Any, outcome: dict[str, Any]) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 - the code may have closed or replaced its streams
            pass
    channel.send({"event": "result", **outcome})
    os._exit(0)


if __name__ == "__main__":
    main()
