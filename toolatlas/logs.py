"""Structured logging: one structlog configuration per process.

Call :func:`configure_logging` once at the top of a process (the CLI, a Ray worker's actor
constructor). Library modules only do ``log = structlog.get_logger(__name__)`` and emit
snake_case events with keyword fields.
"""

from __future__ import annotations

import logging
import os
import sys

import structlog

_configured = False


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
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(level=max(numeric, logging.WARNING), stream=sys.stderr, force=True)
    _configured = True
