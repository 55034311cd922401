"""The smoke check: start every server in a sandbox, list its tools, make one real call, reset.

What ``toolatlas servers check`` (and the README's demo command, until the build exists) runs:
it proves each server of a catalogue is provisioned, starts against a private instance of its
snapshot, answers, and that reset restores the snapshot exactly.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

import structlog

from toolatlas.config import ServerSpec
from toolatlas.environments import render_value
from toolatlas.errors import ToolAtlasError
from toolatlas.models import CallOutcome, Frozen, ToolSpec
from toolatlas.workspace import Workspace

__all__ = ["SmokeReport", "pick_smoke_call", "smoke_check", "smoke_check_all"]

log = structlog.get_logger(__name__)


class SmokeReport(Frozen):
    """What the smoke check of one server found."""

    server: str
    runtime: str
    environment: str
    ok: bool
    tools: int = 0
    protocol: str = ""
    call: str = ""
    outcome: str = ""
    latency_ms: float | None = None
    state_change: str = ""
    reset_exact: bool | None = None
    seconds: float = 0.0
    detail: str = ""


def pick_smoke_call(spec: ServerSpec, tools: Sequence[ToolSpec]) -> tuple[str, dict] | None:
    """The configured smoke call, else a read-only tool without required arguments, else any such tool."""
    if spec.smoke is not None:
        return spec.smoke.tool, dict(spec.smoke.arguments)
    no_args = [t for t in tools if not t.required]
    read_only = [t for t in no_args if t.annotations.read_only]
    candidates = read_only or no_args
    return (candidates[0].name, {}) if candidates else None


async def smoke_check(workspace: Workspace, spec: ServerSpec) -> SmokeReport:
    t0 = time.perf_counter()
    base = {"server": spec.name, "runtime": spec.runtime.kind, "environment": spec.environment.kind}
    try:
        sandbox = workspace.sandbox(spec)
        async with sandbox:
            assert sandbox.connection is not None
            tools = sandbox.tools
            chosen = pick_smoke_call(spec, tools)
            outcome: CallOutcome | None = None
            if chosen is not None:
                name, arguments = chosen
                arguments = render_value(arguments, sandbox.variables(), field=f"servers[{spec.name}].smoke.arguments")
                outcome = await sandbox.call(name, arguments)
            snapshot_digest = await sandbox.digest(sandbox.snapshot)
            frozen = await sandbox.freeze_and_reset()
            post = await sandbox.digest(frozen)
            after_reset = await sandbox.digest()
            await sandbox.discard(frozen)
            change = snapshot_digest.diff(post)
            ok = outcome is None or outcome.ok
            return SmokeReport(
                **base,
                ok=ok and after_reset == snapshot_digest,
                tools=len(tools),
                protocol=sandbox.connection.protocol_version or "",
                call=f"{chosen[0]}" if chosen else "(no argument-free tool)",
                outcome=outcome.outcome.value if outcome else "",
                latency_ms=round(outcome.latency_ms, 1) if outcome else None,
                state_change=change.summary(limit=2),
                reset_exact=after_reset == snapshot_digest,
                seconds=round(time.perf_counter() - t0, 2),
                detail="" if ok else (outcome.excerpt[:200] if outcome else ""),
            )
    except ToolAtlasError as exc:
        log.warning("smoke_check_failed", server=spec.name, error=str(exc))
        return SmokeReport(**base, ok=False, seconds=round(time.perf_counter() - t0, 2), detail=str(exc))


async def smoke_check_all(
    workspace: Workspace,
    servers: Sequence[ServerSpec],
    *,
    concurrency: int = 2,
    progress: Callable[[SmokeReport], None] | None = None,
) -> list[SmokeReport]:
    """Check servers concurrently (bounded); one server's failure never stops the others."""
    gate = asyncio.Semaphore(concurrency)

    async def one(spec: ServerSpec) -> SmokeReport:
        async with gate:
            report = await smoke_check(workspace, spec)
        if progress is not None:
            progress(report)
        return report

    return list(await asyncio.gather(*(one(s) for s in servers)))
