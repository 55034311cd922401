"""CodeAct: run an agent's Python snippet whose only way to act is to call MCP tools through a bridge.

Each ``call_tool(...)`` / ``tools.name(...)`` in the snippet travels as one JSON line over the
side channel; the parent awaits the bridge (typically :meth:`toolatlas.sandbox.Sandbox.call` on
the live server), records the :class:`~toolatlas.models.CallOutcome` and sends the result back.
The snippet's printed output is the agent's observation. The snippet cannot read the
environment's state directly (with Landlock it reads only the Python installation), so every
effect it has on the environment is a recorded tool call. Each snippet is a fresh process:
variables do not survive from one snippet to the next.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from toolatlas.codebox.models import CodeResult, RunPolicy
from toolatlas.codebox.runner import run_child
from toolatlas.models import CallOutcome

__all__ = ["ToolBridge", "run_code"]

ToolBridge = Callable[[str, dict[str, Any]], Awaitable[CallOutcome]]
"""Calls one tool on the live server: ``await bridge(tool, arguments)`` (``Sandbox.call`` is one).

An exception from the bridge is an infrastructure failure: the snippet is killed and the
exception propagates to the caller of :func:`run_code`.
"""


async def run_code(
    source: str,
    bridge: ToolBridge,
    tool_names: Sequence[str],
    *,
    timeout: float | None = None,
    policy: RunPolicy | None = None,
) -> CodeResult:
    """Run one snippet with ``call_tool`` and ``tools`` bound to ``tool_names`` through ``bridge``."""
    policy = policy or RunPolicy()
    if timeout is not None:
        policy = policy.model_copy(update={"timeout_s": timeout})
    names = list(dict.fromkeys(tool_names))
    calls: list[CallOutcome] = []
    refused = 0

    async def on_call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        nonlocal refused
        if tool not in names:
            refused += 1
            return {"refused": f"no tool {tool!r}; tools: {', '.join(names)}"}
        if len(calls) >= policy.max_tool_calls:
            refused += 1
            return {"refused": f"the limit of {policy.max_tool_calls} tool calls per snippet is reached"}
        outcome = await bridge(tool, arguments)
        calls.append(outcome)
        return {"result": _result_for_snippet(outcome)}

    run = await run_child("code", source, {"tools": names}, policy, on_call=on_call)
    return CodeResult(**dict(run), calls=calls, refused_calls=refused)


def _result_for_snippet(outcome: CallOutcome) -> dict[str, Any]:
    return {
        "text": outcome.excerpt,
        "structured": outcome.structured,
        "is_error": not outcome.ok,
        "outcome": outcome.outcome.value,
    }
