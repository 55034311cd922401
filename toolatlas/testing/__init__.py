"""Honest test doubles shipped with the library: real MCP servers that misbehave on request."""

import sys

__all__ = ["faulty_server_command", "hostile_server_command", "reporting_server_command"]


def faulty_server_command(*flags: str) -> tuple[str, list[str]]:
    """``(command, args)`` that start the fault-injecting MCP server over stdio with our interpreter."""
    return sys.executable, ["-m", "toolatlas.testing.servers.faulty", *flags]



def hostile_server_command() -> tuple[str, list[str]]:
    """``(command, args)`` that start the MCP server attacking its machine (confinement tests) over stdio."""
    return sys.executable, ["-m", "toolatlas.testing.servers.hostile"]


def reporting_server_command(*flags: str) -> tuple[str, list[str]]:
    """``(command, args)`` that start the MCP server reporting errors in text, as isError and not at
    all (echoes), over stdio with our interpreter."""
    return sys.executable, ["-m", "toolatlas.testing.servers.reporting", *flags]
