"""A real MCP server of text digests whose listing names algorithms not every tool can use.

Run: ``python -m toolatlas.testing.servers.digests``. ``list_algorithms`` answers the hash algorithms
available, on one line between commas, as Python's ``hashlib`` names them. ``digest`` hashes a text
with any of them through ``hashlib.new(...).hexdigest()`` — which a variable-length algorithm
(``shake_128``) refuses: ``hexdigest() missing required argument 'length'``. ``sha256`` hashes with
that one alone. No state.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

from pydantic import Field

__all__ = ["ALGORITHMS", "build_server", "main"]

ALGORITHMS = ("blake2b", "md5", "sha1", "sha256", "sha512", "shake_128", "shake_256")


def build_server() -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("digests", version="1.0.0", instructions="Digests of text.")

    @server.tool(description="List the available hash algorithms.")
    def list_algorithms() -> str:
        return ", ".join(ALGORITHMS)

    @server.tool(description="Hash a text with a hash algorithm.")
    def digest(
        text: Annotated[str, Field(description="The text to hash.")],
        algorithm: Annotated[str, Field(description="The hash algorithm.")] = "sha256",
    ) -> str:
        try:
            return hashlib.new(algorithm, text.encode()).hexdigest()
        except (TypeError, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(description="Hash a text with SHA-256.")
    def sha256(text: Annotated[str, Field(description="The text to hash.")]) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    return server


def main() -> None:
    build_server().run("stdio")


if __name__ == "__main__":
    main()
