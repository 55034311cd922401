"""The serving tests' shared parts: their atlas, ``toolatlas serve`` in a subprocess, and MCP client
sessions with it over stdio or streamable HTTP."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from toolatlas.guidance import Atlas
from toolatlas.serve.process import ServiceProcess

REPO = Path(__file__).resolve().parents[2]
SERVERS = ("time", "git")
ROUNDS = 2
TOKEN = "s3cret-token"
TASKS = (
    "What time is it in Tokyo right now?",
    "Convert 9:30 in New York to Paris time.",
    "Commit my staged changes with a message.",
    "Show me the last commits of the repository.",
    "Create a branch called feature and switch to it.",
)
"""Tasks the equality tests ask every transport."""
PID_BURSTS = 20
"""Bursts of fresh connections sent until every serving process has answered one."""


@dataclass(frozen=True)
class BuiltAtlas:
    """A catalogue whose store holds a real atlas, and that atlas as the library loads it."""

    config: Path
    atlas: Atlas


def demo_copy(directory: Path) -> Path:
    """``configs/demo.toml`` with its store in ``directory`` and each seed task run once (serving reads
    what an atlas holds, whatever its entries' support)."""
    text = (REPO / "configs" / "demo.toml").read_text()
    text = text.replace('path = "../.toolatlas/atlas/demo"', f'path = "{directory / "atlas"}"')
    text = text.replace("rollouts_per_task = 4", "rollouts_per_task = 1")
    assert str(directory / "atlas") in text and "rollouts_per_task = 1" in text, (
        "configs/demo.toml's store path or rollouts moved: update this helper (it must not build into the demo's store)")
    path = directory / "demo.toml"
    path.write_text(text)
    return path


def start_service(*args: str, options: tuple[str, ...] = (), token: str | None = None) -> ServiceProcess:
    """``toolatlas [options] serve [args] --transport http`` on a free port, once it answers."""
    return ServiceProcess(*args, options=options, token=token, cwd=REPO).start()


def mcp_over_stdio(config: Path) -> Client:
    """An MCP client session with ``toolatlas serve CONFIG --transport stdio`` (no client-side cache)."""
    command = StdioServerParameters(command=sys.executable, cwd=str(REPO),
                                    args=["-m", "toolatlas.cli", "serve", str(config), "--transport", "stdio"])
    return Client(command, cache=None)


@asynccontextmanager
async def mcp_over_http(url: str, headers: dict[str, str]) -> AsyncIterator[Client]:
    """An MCP client session with ``{url}/mcp`` over streamable HTTP, sending ``headers``."""
    async with httpx2.AsyncClient(headers=headers, timeout=10.0) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http), cache=None) as client:
            yield client


async def pids_answering(url: str, processes: int) -> set[int]:
    """The serving processes (workers, replicas) seen answering /v1/health over bursts of new connections."""
    seen: set[int] = set()
    for _ in range(PID_BURSTS):
        async with httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0)) as client:
            answers = await asyncio.gather(*(client.get(f"{url}/v1/health") for _ in range(16)))
        seen |= {answer.json()["pid"] for answer in answers}
        if len(seen) >= processes:
            break
    return seen
