"""The MCP client layer: a bounded stdio transport, restartable sessions, and typed results."""

from toolatlas.client.connection import HttpEndpoint, RawReply, ServerConnection
from toolatlas.client.results import bounded_text, outcome_from_result, tool_spec_from_mcp
from toolatlas.client.stdio import ProcessHooks, StdioLaunch, StdioServerProcess, TransportFault

__all__ = [
    "HttpEndpoint",
    "ProcessHooks",
    "RawReply",
    "ServerConnection",
    "StdioLaunch",
    "StdioServerProcess",
    "TransportFault",
    "bounded_text",
    "outcome_from_result",
    "tool_spec_from_mcp",
]
