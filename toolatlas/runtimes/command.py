"""``command`` runtimes: the server is already on this machine, so there is nothing to install.

The transport's command is looked up on PATH when the runtime is resolved; an http transport
connects to a running server and has no command at all.
"""

from __future__ import annotations

from toolatlas.config.servers import ServerSpec, StdioTransport
from toolatlas.runtimes.base import ResolvedRuntime, locate_command

__all__ = ["resolve_command"]


def resolve_command(spec: ServerSpec) -> ResolvedRuntime:
    """The absolute path of the transport's command (None for http); raises if it is not on PATH.

    A command containing ``${placeholders}`` can only be known per environment instance, so it
    is left to the launcher (``command`` is None).
    """
    command = None
    if (
        isinstance(spec.transport, StdioTransport)
        and spec.transport.command
        and "${" not in spec.transport.command
    ):
        command = str(locate_command(spec.name, spec.transport.command))
    return ResolvedRuntime(server=spec.name, kind="command", command=command, location=None)
