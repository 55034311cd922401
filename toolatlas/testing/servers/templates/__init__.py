"""Templates of stateful MCP servers, one module per kind; each exposes ``tools``, ``seed`` and ``smoke``.

``tools(variant)`` lists the :class:`~toolatlas.testing.servers.templates.base.ToolDef` s of one
variant, ``seed(variant, rng)`` a realistic initial state document, ``smoke(variant)`` a
known-good ``(tool, arguments)`` call. Nothing here imports the MCP SDK.
"""

KINDS = ("notes", "kv", "todo", "inventory", "counter")
"""Every template kind, in the order generated catalogues cycle through them."""
