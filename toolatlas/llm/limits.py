"""One concurrency limit per LLM endpoint, shared by every role and client in the process.

An endpoint's capacity (a vLLM server's batch, a provider's rate limit) does not grow because
several roles call it, so the limit is keyed by base URL, not by client. asyncio semaphores
belong to one event loop, hence one table per running loop (tests and ``asyncio.run`` create
several loops in one process).
"""

from __future__ import annotations

import asyncio
import weakref

import structlog

__all__ = ["endpoint_limit"]

log = structlog.get_logger(__name__)

_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, tuple[int, asyncio.Semaphore]]] = (
    weakref.WeakKeyDictionary()
)


def endpoint_limit(base_url: str, max_concurrency: int) -> asyncio.Semaphore:
    """The semaphore bounding requests in flight to ``base_url`` on the running loop.

    The first caller for an endpoint sets its size; a later caller asking for another size
    gets the same semaphore (and a warning), because two limits on one endpoint cannot both hold.
    """
    table = _limits.setdefault(asyncio.get_running_loop(), {})
    key = base_url.rstrip("/")
    if key not in table:
        table[key] = (max_concurrency, asyncio.Semaphore(max_concurrency))
    size, semaphore = table[key]
    if size != max_concurrency:
        log.warning("llm_concurrency_limit_conflict", base_url=key, kept=size, asked=max_concurrency)
    return semaphore
