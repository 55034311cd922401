"""A server's fingerprint: what identifies the build of its knowledge.

Everything an entry's truth can depend on outside the entry itself: the installed release of the
server (runtime), how it is started (transport, limits, network), the starting state it was probed
against (the snapshot's content hash), the tools it listed with their interfaces (schema hashes), the
ToolAtlas version and the method's settings. ``toolatlas refresh`` compares the stored fingerprint
with today's to decide what must be probed again; ``toolatlas verify`` replays what the fingerprint
cannot see (a release that changed behaviour behind an unchanged interface).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from toolatlas.config import BuildSettings, ServerSpec
from toolatlas.config.servers import NpmRuntime, PypiRuntime
from toolatlas.graph.models import Fingerprint
from toolatlas.models import ToolSpec, canonical_json

__all__ = ["fingerprint", "runtime_label"]


def _digest(value: object) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:16]


def runtime_label(spec: ServerSpec) -> str:
    """The installed release in words: ``npm pkg@1.2.3``, ``pypi pkg==1.2.3 + mcp<2`` or ``command``."""
    runtime = spec.runtime
    if isinstance(runtime, NpmRuntime):
        return f"npm {runtime.package}@{runtime.version}"
    if isinstance(runtime, PypiRuntime):
        extra = "".join(f" + {r}" for r in sorted(runtime.requirements))
        python = f" (python {runtime.python})" if runtime.python else ""
        return f"pypi {runtime.package}=={runtime.version}{extra}{python}"
    return "command"


def fingerprint(spec: ServerSpec, tools: Iterable[ToolSpec], settings: BuildSettings, snapshot_hash: str) -> Fingerprint:
    """The fingerprint of building ``spec``'s knowledge from ``tools`` (as the server listed them)."""
    from toolatlas import __version__

    started = {
        "transport": spec.transport.model_dump(mode="json"),
        "limits": spec.limits.model_dump(mode="json"),
        "network": spec.network,
        "sandbox": spec.sandbox.model_dump(mode="json"),
        "environment": spec.environment.model_dump(mode="json"),
    }
    return Fingerprint(
        runtime=runtime_label(spec),
        transport=_digest(started),
        snapshot=snapshot_hash,
        tools={tool.name: tool.schema_hash for tool in sorted(tools, key=lambda t: t.name)},
        toolatlas=__version__,
        method=_digest(settings.model_dump(mode="json")),
    )
