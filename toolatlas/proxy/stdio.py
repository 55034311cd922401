"""Thread-free stdin/stdout for the proxy's stdio transport.

The SDK's ``stdio_server`` reads and writes the process's stdio through worker threads
(``anyio.wrap_file``): three thread hand-offs per proxied call, the largest cost a proxy adds
under load. When stdin and stdout are pipes or sockets — how MCP clients launch servers —
:func:`pipe_stdio` hands the SDK transport non-blocking asyncio pipe streams instead: the SDK
still frames and parses every message; only the file I/O changes (``benchmarks/proxy_overhead.py``
measured about +40% calls/s through the proxy with 8 calls in flight). Anything else (a terminal,
a file) gets the SDK's own transport.

While serving, fd 0 reads ``/dev/null`` and fd 1 writes to stderr, as with the SDK's transport,
so nothing else in the process (or a child) can read the client's messages or write on the wire.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.stdio import stdio_server

__all__ = ["MAX_MESSAGE_BYTES", "pipe_stdio"]

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""Largest JSON-RPC line accepted from the client."""


class _Lines:
    """The client's messages, one text line each (what the SDK transport iterates)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _Wire:
    """The client's side of stdout (what the SDK transport writes and flushes)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@asynccontextmanager
async def pipe_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` of the SDK's stdio transport over this process's stdin/stdout."""
    if not (_is_pipe(0) and _is_pipe(1)):
        async with stdio_server() as streams:
            yield streams
        return
    loop = asyncio.get_running_loop()
    wire_in = os.fdopen(os.dup(0), "rb", buffering=0)
    wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
    saved = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    writer: asyncio.StreamWriter | None = None
    try:
        reader = asyncio.StreamReader(limit=MAX_MESSAGE_BYTES)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), wire_in)
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, wire_out)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        async with stdio_server(_Lines(reader), _Wire(writer)) as streams:  # type: ignore[arg-type]
            yield streams
    finally:
        if writer is not None:
            writer.close()
        for fd, saved_fd in zip((0, 1), saved, strict=True):
            os.dup2(saved_fd, fd)
            os.close(saved_fd)
