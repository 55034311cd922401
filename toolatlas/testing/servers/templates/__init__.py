"""Templates of stateful MCP servers, one module per kind; each exposes ``tools``, ``seed`` and ``smoke``.

``tools(variant)`` lists the :class:`~toolatlas.testing.servers.templates.base.ToolDef` s of one
variant, ``seed(variant, rng)`` a realistic initial state document, ``smoke(variant)`` a
known-good ``(tool, arguments)`` call. Nothing here imports the MCP SDK.
"""

import importlib

from toolatlas.testing.servers.templates.base import ToolDef, Variant

__all__ = ["KINDS", "template_tools"]

KINDS = ("notes", "kv", "todo", "inventory", "counter")
"""Every template kind, in the order generated catalogues cycle through them."""


def template_tools(kind: str, variant: int) -> dict[str, ToolDef]:
    """The tools of one kind and variant by action (``create``, ``get``, ``list``...), whatever their name."""
    template = importlib.import_module(f"{__name__}.{kind}")
    return {tool.action: tool for tool in template.tools(Variant(kind, variant))}
