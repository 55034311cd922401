"""ToolAtlas: a provider-side memory for MCP tool servers.

Probe every tool of a catalogue of MCP servers inside resettable sandboxes, verify what really
happened, and build a typed graph of what each tool can do, where it fails and how tools
compose; then serve task-conditioned guidance to any agent.

This package imports without Ray; the distributed build lives in :mod:`toolatlas.actors` (the repository's
``actors/`` folder), which only the command modules import, inside the command's function.

The exception tree is imported at once, the other names on first use (PEP 562): a process that
needs one submodule (a generated test server runs ``toolatlas.testing.servers.stateful``) does not
import the configuration models at every start (~20 ms of CPU each).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolatlas import errors
from toolatlas.errors import *  # the whole exception tree (a module without imports)

if TYPE_CHECKING:
    from toolatlas.config import Catalogue, ServerSpec, load_catalogue
    from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec

__version__ = "0.1.0"

__all__ = ["CallOutcome", "Catalogue", "OutcomeClass", "ServerSpec", "ToolSpec", "__version__", "load_catalogue"]
__all__ += errors.__all__

_MODULE_OF = {
    **dict.fromkeys(("Catalogue", "ServerSpec", "load_catalogue"), "toolatlas.config"),
    **dict.fromkeys(("CallOutcome", "OutcomeClass", "ToolSpec"), "toolatlas.models"),
}
"""Where each name imported on first use lives."""


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'toolatlas' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once imported, found directly
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
