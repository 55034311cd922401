"""``toolatlas proxy``: an MCP proxy that serves one server's tools with their atlas notes.

An unmodified agent connects to the proxy instead of the server and gets the same tools and the
same results, plus an ``Atlas:`` block in each tool description (uses that work, the exact
errors where it fails, compositions) and a guidance tool. :mod:`~toolatlas.proxy.server` is the
MCP server, :mod:`~toolatlas.proxy.notes` what it adds, :mod:`~toolatlas.proxy.upstream` where
the proxied server runs, :mod:`~toolatlas.proxy.stdio` its thread-free stdio, and
:mod:`~toolatlas.proxy.runner` the command.
"""

from toolatlas.proxy.notes import DESCRIPTION_BUDGET, GUIDANCE_TOOL, GuidanceTool, Placeholders, ToolNotes
from toolatlas.proxy.runner import ProxySettings, run_proxy, serve_proxy
from toolatlas.proxy.server import AtlasProxy
from toolatlas.proxy.upstream import Upstream, deployment_launch, deployment_variables, open_upstream

__all__ = [
    "DESCRIPTION_BUDGET",
    "GUIDANCE_TOOL",
    "AtlasProxy",
    "GuidanceTool",
    "Placeholders",
    "ProxySettings",
    "ToolNotes",
    "Upstream",
    "deployment_launch",
    "deployment_variables",
    "open_upstream",
    "run_proxy",
    "serve_proxy",
]
