"""The OS sandbox every probed server runs in: what it may read, write, reach and spend.

A build executes strangers' code thousands of times, so a stdio server never runs as a plain
child process. :func:`confiner_for` picks the mechanism for a server — :class:`BubblewrapConfiner`
(the default for every build, ``servers check``, the sandbox proxy and the proxy's deployment
servers) or :class:`Unconfined` for a server its catalogue explicitly opted out of it — and the
mechanism turns the server's :class:`~toolatlas.client.StdioLaunch` into a confined one for a
:class:`Grant`: read-only system and runtime, the instance (or the paths a deployment names) the
only writable place, its own PID namespace, no network unless granted, kernel limits. A machine
that cannot confine raises :class:`~toolatlas.errors.ConfinementError` instead of running a server
unconfined. HTTP servers reached by URL run wherever they run: nothing here applies to them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from toolatlas.config.servers import ServerSpec, StdioTransport
from toolatlas.confinement.base import Confiner, Grant, ResourceLimits, Unconfined, grant_for

__all__ = [
    "Confiner",
    "Grant",
    "ResourceLimits",
    "Unconfined",
    "confiner_for",
    "default_confiner",
    "grant_for",
    "unconfined_servers",
]


def confiner_for(spec: ServerSpec, *, confine: bool = True) -> Confiner:
    """The mechanism for ``spec``: bubblewrap unless the catalogue (or a caller measuring the
    sandbox's cost, ``confine=False``) opts the server out; nothing for an HTTP server (it runs
    wherever it runs)."""
    if not isinstance(spec.transport, StdioTransport) or not spec.sandbox.enabled or not confine:
        return Unconfined()
    return default_confiner()


@functools.cache
def default_confiner() -> Confiner:
    """The process's bubblewrap mechanism (checked once: raises ConfinementError if it cannot work here)."""
    from toolatlas.confinement.bubblewrap import BubblewrapConfiner

    return BubblewrapConfiner()


def unconfined_servers(servers: Iterable[ServerSpec]) -> list[str]:
    """Names of the stdio servers their catalogue opted out of the sandbox (a build warns about each)."""
    return [s.name for s in servers if isinstance(s.transport, StdioTransport) and not s.sandbox.enabled]
