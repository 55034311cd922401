"""Honest test doubles shipped with the library: real MCP servers that misbehave on request."""

import sys

__all__ = ["faulty_server_command"]


def faulty_server_command(*flags: str) -> tuple[str, list[str]]:
    """``(command, args)`` that start the fault-injecting MCP server over stdio with our interpreter."""
    return sys.executable, ["-m", "toolatlas.testing.servers.faulty", *flags]

