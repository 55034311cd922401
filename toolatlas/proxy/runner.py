"""Running the proxy (``toolatlas proxy``): load the atlas, start the server, serve over stdio or HTTP.

The atlas is read once — from an ``atlas.json`` export, or from the catalogue's store, which is
released at once — so a running proxy holds no store and a build can go on beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import structlog

from toolatlas.config import load_catalogue
from toolatlas.errors import ToolAtlasError
from toolatlas.guidance import Atlas
from toolatlas.home import Home
from toolatlas.proxy.notes import DESCRIPTION_BUDGET, GuidanceTool, Placeholders, ToolNotes
from toolatlas.proxy.server import AtlasProxy
from toolatlas.proxy.stdio import pipe_stdio
from toolatlas.proxy.upstream import open_upstream

__all__ = ["ProxySettings", "run_proxy", "serve_proxy"]

log = structlog.get_logger(__name__)

GRACEFUL_SHUTDOWN_S = 5
"""Seconds open HTTP connections get to finish when the proxy stops."""


@dataclass(frozen=True)
class ProxySettings:
    """Everything ``toolatlas proxy`` is told."""

    config: Path
    server: str
    atlas: Path | None = None
    """An exported ``atlas.json``; None: the catalogue's store."""
    transport: Literal["stdio", "http"] = "stdio"
    host: str = "127.0.0.1"
    port: int = 8700
    sandbox: bool = False
    variables: Mapping[str, str] = field(default_factory=dict)
    budget: int = DESCRIPTION_BUDGET
    home: Home | None = None
    trusted: tuple[Path, ...] = ()
    """Public keys one of which must have signed ``atlas`` (``--trust``); empty: any export."""


def run_proxy(settings: ProxySettings) -> None:
    """Serve until the client leaves (stdio) or the process is stopped (HTTP).

    SIGTERM — what a supervisor, a container runtime or ``kill`` sends — stops the proxy the way
    the end of its input does: the server is stopped and its sandbox instance removed before the
    process exits (status 0). Over HTTP, uvicorn's own handler does it (open requests finish first)."""
    serving = serve_proxy(settings)
    asyncio.run(_until_terminated(serving) if settings.transport == "stdio" else serving)


async def _until_terminated(serving: Coroutine[Any, Any, None]) -> None:
    task = asyncio.ensure_future(serving)
    terminated = asyncio.Event()

    def terminate() -> None:
        terminated.set()
        task.cancel()

    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread, or no signals
        loop.add_signal_handler(signal.SIGTERM, terminate)
    try:
        await task
    except asyncio.CancelledError:
        if not terminated.is_set():
            raise
        log.info("proxy_stopped", signal="SIGTERM")
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)


async def serve_proxy(settings: ProxySettings) -> None:
    catalogue = load_catalogue(settings.config)
    atlas = _load_atlas(settings)
    known = settings.server in atlas.servers
    if not known:
        log.warning("proxy_pass_through", server=settings.server, atlas=atlas.name, atlas_servers=sorted(atlas.servers),
                    reason="the atlas knows nothing of this server: its tools are served without notes or guidance")
    upstream_at = open_upstream(catalogue, settings.server, sandbox=settings.sandbox, variables=settings.variables,
                                home=settings.home)
    async with upstream_at as upstream:
        placeholders = Placeholders(upstream.variables)
        notes = ToolNotes(atlas, settings.server, placeholders, budget=settings.budget) if known else None
        taken = [tool.name for tool in upstream.connection.tools]
        guidance = GuidanceTool(atlas, settings.server, placeholders, taken) if known else None
        proxy = AtlasProxy(upstream.connection, notes, guidance)
        log.info("proxy_serving", server=settings.server, transport=settings.transport, where=upstream.where,
                 annotated=len(notes.blocks) if notes else 0, guidance_tool=guidance.name if guidance else None,
                 forwarded=sorted(proxy.forwarded))
        if settings.transport == "stdio":
            await _serve_stdio(proxy)
        else:
            await _serve_http(proxy, settings.host, settings.port)


def _load_atlas(settings: ProxySettings) -> Atlas:
    if settings.atlas is None:
        return Atlas.open(settings.config)
    if not settings.atlas.is_file():
        raise ToolAtlasError(f"--atlas {settings.atlas}: no such file (write one with `toolatlas export`)")
    try:
        return Atlas.from_export(settings.atlas, trusted=settings.trusted)
    except (ValueError, KeyError, TypeError) as exc:
        raise ToolAtlasError(f"--atlas {settings.atlas}: not an atlas export ({exc})") from exc


async def _serve_stdio(proxy: AtlasProxy) -> None:
    async with pipe_stdio() as (read, write):
        await proxy.server.run(read, write, proxy.server.create_initialization_options())


async def _serve_http(proxy: AtlasProxy, host: str, port: int) -> None:
    import uvicorn

    app = proxy.server.streamable_http_app(host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S)
    await uvicorn.Server(config).serve()
