"""Loading the atlas for serving, and running the service over stdio or HTTP (``toolatlas serve``).

A serving process never holds the store: the atlas is read from an export (``atlas.json``) or,
once, from the catalogue's store with :meth:`Atlas.open` (which releases it at once). Several
serving processes (uvicorn workers, Ray Serve replicas) share one *snapshot*: the parent writes
the loaded atlas as an export once, and every replica builds its app from
:class:`ReplicaSettings` naming that file (:func:`shared_snapshot`) — so N replicas never contend for
the store's lock, and one worker or many serve exactly the same atlas.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import structlog
from pydantic import ValidationError
from starlette.types import ASGIApp

from toolatlas.guidance import Atlas
from toolatlas.guidance.atlas import CACHE_SIZE
from toolatlas.serve.http_api import create_app
from toolatlas.serve.mcp_server import create_mcp_server
from toolatlas.serve.models import ReplicaSettings
from toolatlas.serve.reader import AtlasReader, AtlasUnavailable, ServeError
from toolatlas.trust.outcomes import OutcomeQueue, WriteBack

__all__ = [
    "SETTINGS_ENV",
    "TOKEN_ENV",
    "app_from_environment",
    "app_from_settings",
    "load_atlas",
    "serve_http",
    "serve_stdio",
    "shared_snapshot",
    "write_snapshot",
]

log = structlog.get_logger(__name__)

SETTINGS_ENV = "TOOLATLAS_SERVE_SETTINGS"
""":class:`ReplicaSettings` as JSON, for uvicorn worker processes."""
TOKEN_ENV = "TOOLATLAS_TOKEN"
"""Bearer token the HTTP service requires when ``--token`` is not given (unset: no token)."""
GRACEFUL_SHUTDOWN_S = 5
"""Seconds open HTTP connections get to finish when the service stops."""
KEEP_ALIVE_S = 30
"""Seconds an idle keep-alive connection stays open (agents ask again and again)."""


def load_atlas(config: str | Path | None = None, atlas: str | Path | None = None, *,
               cache_size: int = CACHE_SIZE, trusted: Iterable[str | Path] = (),
               include_conflicted: bool = False) -> Atlas:
    """The atlas of an export file when given (signed by one of ``trusted`` when any is given; of a
    merged export, without the entries its builders disagree on unless ``include_conflicted``),
    else of the catalogue's store (read once, released)."""
    if atlas is not None:
        try:
            return Atlas.from_export(atlas, cache_size=cache_size, trusted=trusted,
                                     include_conflicted=include_conflicted)
        except (OSError, json.JSONDecodeError, ValidationError, KeyError) as exc:
            raise AtlasUnavailable(f"cannot read the atlas export {atlas}: {exc}") from exc
    if config is None:
        raise AtlasUnavailable("nothing to serve: give a catalogue config or an atlas export")
    return Atlas.open(config, cache_size=cache_size)


def write_snapshot(atlas: Atlas, path: str | Path) -> Path:
    """Write the loaded ``atlas`` as an export at ``path``: what every replica loads."""
    from toolatlas.export import assemble

    view = atlas.view
    export = assemble(atlas.name, list(view.tool_nodes.values()), list(view.entries.values()),
                      list(view.traces.values()), list(view.strategies.values()), [],
                      nodes=list(view.server_nodes.values()))
    path = Path(path)
    path.write_text(export.model_dump_json(by_alias=True))
    return path


@contextmanager
def shared_snapshot(
    config: str | Path | None = None, atlas: str | Path | None = None, *, trusted: Iterable[str | Path] = ()
) -> Iterator[Path]:
    """The one atlas source every serving process loads: the export given (checked once here), or
    the catalogue's store read once into a temporary export that lives as long as the block. A
    signed export checked against ``trusted`` keys is copied as it was verified, so a change to the
    file afterwards reaches no replica."""
    keys = list(trusted)
    if atlas is not None and not keys:
        load_atlas(atlas=atlas, cache_size=0)
        yield Path(atlas).resolve()
        return
    loaded = load_atlas(config, atlas, cache_size=0, trusted=keys)
    with tempfile.TemporaryDirectory(prefix="toolatlas-serve-") as scratch:
        yield write_snapshot(loaded, Path(scratch) / "atlas.json")


def app_from_settings(settings: ReplicaSettings) -> ASGIApp:
    """The HTTP app (API + MCP endpoint) of one serving process, over the snapshot of ``settings``."""
    from toolatlas.logs import configure_logging

    configure_logging(settings.log_level, json=settings.log_json)
    reader = AtlasReader(load_atlas(atlas=settings.snapshot, cache_size=settings.cache_size))
    writeback = None
    if settings.write_tokens:
        if settings.outcomes is None:
            raise ServeError("write tokens need a queue file for the reports (outcomes)")
        writeback = WriteBack(OutcomeQueue(Path(settings.outcomes)), settings.write_tokens, settings.reports_per_minute)
    return create_app(reader, token=settings.token, host=settings.host, writeback=writeback,
                      mcp_sessions=settings.mcp_sessions)


def app_from_environment() -> ASGIApp:
    """The app of one uvicorn worker process, from :data:`SETTINGS_ENV` (a uvicorn factory)."""
    return app_from_settings(ReplicaSettings.model_validate_json(os.environ[SETTINGS_ENV]))


def serve_stdio(atlas: Atlas, writeback: WriteBack | None = None) -> None:
    """Serve the atlas as an MCP server over this process's stdin/stdout until the client leaves (with
    ``writeback``, its ``report_outcome`` tool queues agents' reports)."""
    create_mcp_server(AtlasReader(atlas), writeback=writeback).run("stdio")


def serve_http(settings: ReplicaSettings, *, port: int = 8600, workers: int = 1) -> None:
    """Serve the HTTP API and the MCP endpoint with uvicorn on ``settings.host:port`` until interrupted.

    With several workers each process loads the snapshot itself (they share the listening socket).
    """
    import uvicorn

    if workers < 1:
        raise ServeError("--workers must be at least 1")
    if settings.mcp_sessions and workers != 1:
        raise ServeError("--mcp-sessions needs --workers 1: an MCP session lives in the process that opened it")
    options: dict[str, Any] = dict(host=settings.host, port=port, log_level="warning", access_log=False, http="auto",
                                   loop="auto", timeout_keep_alive=KEEP_ALIVE_S,
                                   timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S)
    log.info("serving_http", snapshot=settings.snapshot, host=settings.host, port=port, workers=workers)
    if workers == 1:
        uvicorn.run(app_from_settings(settings), **options)
        return
    os.environ[SETTINGS_ENV] = settings.model_dump_json()
    uvicorn.run("toolatlas.serve.runner:app_from_environment", factory=True, workers=workers, **options)
