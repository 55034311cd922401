"""What a load test sends: guidance requests over the HTTP API or MCP tool calls, from a task mix."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from toolatlas.errors import ToolAtlasError
from toolatlas.loadtest.generator import Target

__all__ = ["MCP_PROTOCOL", "atlas_tasks", "http_target", "mcp_target", "read_tasks"]

MCP_PROTOCOL = "2026-07-28"
_MCP_META = {
    "io.modelcontextprotocol/protocolVersion": MCP_PROTOCOL,
    "io.modelcontextprotocol/clientInfo": {"name": "toolatlas-loadtest", "version": "0.1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def http_target(url: str, tasks: list[str], headers: dict[str, str] | None = None) -> Target:
    """``POST /v1/guidance`` with each task."""
    bodies = [json.dumps({"task": task}).encode() for task in tasks]
    return Target(url=f"{url}/v1/guidance", bodies=bodies,
                  headers={"content-type": "application/json", **(headers or {})}, good_prefix=b'{"task":')


def mcp_target(url: str, tasks: list[str], headers: dict[str, str] | None = None) -> Target:
    """``tools/call get_guidance`` on ``/mcp`` as the MCP SDK client (2.x) puts it on the wire."""
    bodies = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "get_guidance", "arguments": {"task": task}, "_meta": _MCP_META}}).encode()
        for task in tasks
    ]
    return Target(url=f"{url}/mcp", bodies=bodies,
                  headers={"content-type": "application/json", "accept": "application/json, text/event-stream",
                           "mcp-protocol-version": MCP_PROTOCOL, "mcp-method": "tools/call",
                           "mcp-name": "get_guidance", **(headers or {})},
                  good_prefix=b'{"jsonrpc":"2.0","id":1,"result":', bad_marker=b'"isError":true')


def read_tasks(path: Path) -> list[str]:
    """Tasks from a file: one per line (``#`` comments and blank lines skipped), or a JSON list."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise ToolAtlasError(f"--tasks {path}: cannot read it ({exc.strerror})") from None
    if text.lstrip().startswith("["):
        tasks = [str(task) for task in json.loads(text)]
    else:
        tasks = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not tasks:
        raise ToolAtlasError(f"--tasks {path} holds no task")
    return tasks


def atlas_tasks(url: str, headers: dict[str, str] | None = None, limit: int = 200) -> list[str]:
    """The tasks of the served atlas's own traces: found through its traces search, by each tool's name."""
    with httpx.Client(base_url=url, headers=headers or {}, timeout=10.0) as http:
        answer = http.get("/v1/servers")
        if answer.status_code != 200:
            raise ToolAtlasError(f"{url}/v1/servers answered {answer.status_code}: {answer.text[:200]}")
        tasks: dict[str, None] = {}
        for server in answer.json()["servers"]:
            for tool in server.get("tools", []):
                found = http.get("/v1/traces", params={"task": tool.replace("_", " "), "k": 5,
                                                       "server": server["name"]})
                if found.status_code == 200:
                    tasks.update(dict.fromkeys(trace["task"] for trace in found.json()["traces"]))
                if len(tasks) >= limit:
                    return list(tasks)[:limit]
    if not tasks:
        raise ToolAtlasError(f"the atlas at {url} has no traces to take tasks from: give --tasks FILE")
    return list(tasks)
