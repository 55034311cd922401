"""Serving an atlas to any agent: an MCP server (stdio, streamable HTTP) and an HTTP JSON API.

Both transports answer from one :class:`AtlasReader` over a read-only, in-memory :class:`Atlas`;
no serving process ever holds the store. ``actors/serve.py`` runs the same app as a Ray Serve
deployment whose replicas all load one snapshot (:class:`ReplicaSettings`).
"""

from toolatlas.serve.http_api import BearerToken, RequestLog, create_app
from toolatlas.serve.mcp_server import create_mcp_server
from toolatlas.serve.models import (
    GuidanceRequest,
    Health,
    ReplicaSettings,
    ServerList,
    ServerSummary,
    StrategyList,
    TraceList,
)
from toolatlas.serve.reader import AtlasReader, AtlasUnavailable, InvalidRequest, ServeError, UnknownRecord
from toolatlas.serve.runner import (
    app_from_environment,
    app_from_settings,
    load_atlas,
    serve_http,
    serve_stdio,
    shared_snapshot,
    write_snapshot,
)

__all__ = [
    "AtlasReader",
    "AtlasUnavailable",
    "BearerToken",
    "GuidanceRequest",
    "Health",
    "InvalidRequest",
    "ReplicaSettings",
    "RequestLog",
    "ServeError",
    "ServerList",
    "ServerSummary",
    "StrategyList",
    "TraceList",
    "UnknownRecord",
    "app_from_environment",
    "app_from_settings",
    "create_app",
    "create_mcp_server",
    "load_atlas",
    "serve_http",
    "serve_stdio",
    "shared_snapshot",
    "write_snapshot",
]
