"""Structured logging: one structlog configuration per process.

Call :func:`configure_logging` once at the top of a process (the CLI, a Ray worker's actor
constructor). Library modules only do ``log = structlog.get_logger(__name__)`` and emit
snake_case events with keyword fields.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import structlog

__all__ = ["RepeatLimiter", "configure_logging", "retire_stderr_log"]

_configured = False
REPEAT_WINDOW_S = 10.0
"""A repeated warning is shown at most :data:`REPEAT_BURST` times per window of this many seconds."""
REPEAT_BURST = 5
_LIMITED_LEVELS = frozenset({"warning", "error", "critical"})
STDERR_LOGS_KEPT = 8
"""Per server, how many of its servers' stderr logs (``<server>.<instance>.stderr.log``) are kept."""


class RepeatLimiter:
    """A structlog processor that keeps a flood of one warning from drowning the console.

    Warnings and errors are grouped by event name and ``server``: the first :data:`REPEAT_BURST`
    of a group in a window of :data:`REPEAT_WINDOW_S` pass, the rest are dropped and counted; the
    next one to pass after the window carries ``repeated=<count dropped>``, and counts still
    pending at exit are written as one ``repeated_warnings_dropped`` line per group.
    """

    def __init__(self, window_s: float = REPEAT_WINDOW_S, burst: int = REPEAT_BURST) -> None:
        self.window_s = window_s
        self.burst = burst
        self._groups: dict[tuple[str, str], list[float]] = {}
        """group → [window start, shown in the window, dropped since the last shown]"""
        self._lock = threading.Lock()

    def __call__(
        self, logger: Any, method: str, event_dict: MutableMapping[str, Any]
    ) -> MutableMapping[str, Any]:
        if event_dict.get("level", method) not in _LIMITED_LEVELS:
            return event_dict
        key = (str(event_dict.get("event")), str(event_dict.get("server", "")))
        now = time.monotonic()
        with self._lock:
            group = self._groups.setdefault(key, [now, 0, 0])
            if now - group[0] >= self.window_s:
                group[0], group[1] = now, 0
            if group[1] >= self.burst:
                group[2] += 1
                raise structlog.DropEvent
            group[1] += 1
            if group[2]:
                event_dict["repeated"] = int(group[2])
                group[2] = 0
        return event_dict

    def pending(self) -> dict[tuple[str, str], int]:
        """Dropped counts not yet reported, by (event, server)."""
        with self._lock:
            return {key: int(group[2]) for key, group in self._groups.items() if group[2]}

    def report_pending(self) -> None:
        pending = self.pending()
        with self._lock:
            for group in self._groups.values():
                group[2] = 0
        log = structlog.get_logger(__name__)
        for (event, server), count in pending.items():
            fields = {"server": server} if server else {}
            log.warning("repeated_warnings_dropped", of=event, dropped=count, **fields)


_repeats = RepeatLimiter()
atexit.register(_repeats.report_pending)


class _StderrLogger:
    """Writes each line to whatever ``sys.stderr`` is when the line is logged (not the stream of the
    moment logging was configured: a caller that swaps stderr, as test runners and embedding
    applications do, and closes its stream would otherwise make every later log line fail)."""

    def __init__(self, *args: Any) -> None:
        pass

    def msg(self, message: str) -> None:
        stream = sys.stderr
        if stream is None or stream.closed:
            return
        print(message, file=stream, flush=True)

    log = debug = info = warn = warning = error = err = critical = exception = fatal = failure = msg


def configure_logging(level: str | None = None, *, json: bool | None = None, force: bool = False) -> None:
    """Configure structlog and the stdlib root logger for this process.

    ``level`` defaults to ``$TOOLATLAS_LOG_LEVEL`` or ``warning`` (the CLI prints its own tables;
    logs are for diagnosis). ``json`` renders one JSON object per line (``$TOOLATLAS_LOG_JSON=1``),
    which is what a cluster's log collector wants; otherwise a console renderer is used.
    Logs go to stderr so that stdout stays clean for command output.
    """
    global _configured
    if _configured and not force:
        return
    level_name = (level or os.environ.get("TOOLATLAS_LOG_LEVEL") or "warning").upper()
    numeric = logging.getLevelNamesMapping().get(level_name, logging.WARNING)
    if json is None:
        json = os.environ.get("TOOLATLAS_LOG_JSON", "") not in ("", "0", "false")
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            _repeats,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=_StderrLogger,
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=max(numeric, logging.WARNING), stream=sys.stderr, force=True)
    _configured = True


def retire_stderr_log(path: Path, keep: int | None = None) -> None:
    """A server's stderr log once the server has exited: removed when it is empty, and of the
    logs of the same server (the same ``<server>.`` prefix in the folder) the newest ``keep``
    (:data:`STDERR_LOGS_KEPT`) stay. Every sandbox writes a log of its own, so without this the folder grows by one file
    per sandbox started; what a crash left behind is in the newest, which are kept."""
    try:
        if path.stat().st_size == 0:
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError:
        return
    prefix = path.name.split(".", 1)[0] + "."
    try:
        siblings = [
            (entry.stat().st_mtime, entry)
            for entry in path.parent.iterdir()
            if entry.name.startswith(prefix) and entry.name.endswith(".stderr.log")
        ]
    except OSError:
        return
    siblings.sort(key=lambda pair: pair[0], reverse=True)
    for _, old in siblings[STDERR_LOGS_KEPT if keep is None else keep :]:
        try:
            old.unlink()
        except OSError:
            continue
