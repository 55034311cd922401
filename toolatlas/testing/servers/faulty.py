"""A small MCP server that misbehaves on request: the honest counterpart for fault tests.

Run: ``python -m toolatlas.testing.servers.faulty [--http PORT] [--crash-on-start] [--hang-on-start]
[--banner]``. Tools: ``echo``, ``add`` (with an output schema), ``misshapen`` (breaks that
schema), ``fail`` (isError), ``crash`` (exits mid-call), ``hang`` (never answers), ``garbage``
(writes a non-JSON line to stdout), ``flood`` (answers with a huge result), ``chatty`` (floods
stderr, then answers).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("faulty", version="1.0.0")

# The SDK diverts fd 1 to stderr once it serves stdio (stdout hygiene); keep a handle on the
# real wire so that ``garbage`` can break the protocol the way a careless server does.
WIRE_FD = os.dup(1)


class Sum(BaseModel):
    total: int


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


@server.tool(description="Add two integers.")
def add(a: int, b: int) -> Sum:
    return Sum(total=a + b)


@server.tool(description="Claim to add two integers, but answer with a result its output schema forbids.")
def misshapen(a: int, b: int) -> Sum:
    return Sum.model_construct(total=f"{a} plus {b}")  # type: ignore[arg-type]  # unvalidated on purpose: `total` must be an integer


@server.tool(description="Always fails with a tool error.")
def fail(reason: str = "requested failure") -> str:
    raise ValueError(reason)


@server.tool(description="Exit the server process in the middle of the call.")
def crash(code: int = 3) -> str:
    sys.stderr.write("faulty: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(code)


@server.tool(description="Never answer.")
def hang(seconds: float = 3600.0) -> str:
    time.sleep(seconds)
    return "woke up"


@server.tool(description="Write a line that is not JSON-RPC to stdout, then answer normally.")
def garbage() -> str:
    os.write(WIRE_FD, b"this is not json-rpc\n")
    time.sleep(0.2)
    return "garbage sent"


@server.tool(description="Answer with a result of the given size in megabytes.")
def flood(megabytes: float = 32.0) -> str:
    return "x" * int(megabytes * 1024 * 1024)


@server.tool(description="Write many lines to stderr, then answer.")
def chatty(lines: int = 200_000) -> str:
    chunk = "faulty: chatter " * 8 + "\n"
    for _ in range(lines):
        sys.stderr.write(chunk)
    sys.stderr.flush()
    return f"wrote {lines} lines to stderr"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=None, help="serve streamable HTTP on this port")
    parser.add_argument("--crash-on-start", action="store_true")
    parser.add_argument("--hang-on-start", action="store_true")
    parser.add_argument("--banner", action="store_true", help="print a non-JSON banner on stdout at start")
    args = parser.parse_args()
    if args.crash_on_start:
        sys.stderr.write("faulty: refusing to start\n")
        raise SystemExit(2)
    if args.hang_on_start:
        time.sleep(3600)
    if args.banner:
        os.write(1, b"faulty server v1 starting\n")
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
