"""ToolAtlas: a provider-side memory for MCP tool servers.

Probe every tool of a catalogue of MCP servers inside resettable sandboxes, verify what really
happened, and build a typed graph of what each tool can do, where it fails and how tools
compose; then serve task-conditioned guidance to any agent.

This package imports without Ray; the distributed build lives in ``actors/``.
"""

from toolatlas.config import Catalogue, ServerSpec, load_catalogue
from toolatlas.errors import (
    BackendError,
    ConfigError,
    RuntimeInstallError,
    SandboxError,
    ServerStartError,
    SnapshotError,
    StoreError,
    ToolAtlasError,
    VerificationError,
)
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec

__version__ = "0.1.0"

__all__ = [
    "BackendError",
    "CallOutcome",
    "Catalogue",
    "ConfigError",
    "OutcomeClass",
    "RuntimeInstallError",
    "SandboxError",
    "ServerSpec",
    "ServerStartError",
    "SnapshotError",
    "StoreError",
    "ToolAtlasError",
    "ToolSpec",
    "VerificationError",
    "__version__",
    "load_catalogue",
]
