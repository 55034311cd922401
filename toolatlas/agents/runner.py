"""Agent rollouts in a live sandbox: fresh state in, the post-state frozen for the judge, reset after.

:class:`AgentRunner` owns one started :class:`~toolatlas.sandbox.Sandbox` and runs rollouts in it
one at a time, like the probe executor (:mod:`toolatlas.probing.executor`):

1. the instance must hold the snapshot's state (it is reset first when it does not);
2. the agent runs against the live server (:func:`~toolatlas.agents.loop.run_agent`), the
   instance digested after every MCP call so each call's effect can be told apart later;
3. the final state is digested, frozen for the task judge and the instance restored
   (:meth:`Sandbox.freeze_and_reset`).

By default every rollout is frozen, so the judge always has a state to read (a PostgreSQL
snapshot, for one, is not readable as such). With ``skip_untouched=True`` a rollout that left the
state exactly as the snapshot (and crashed nothing) is not frozen, as the probe executor does:
``frozen`` is then None and the judge reads the snapshot.

:func:`rollout_plan` lays out the N rollouts of a task: rollout 0 is deterministic (temperature
0), the others sample at the exploratory temperatures of the contrastive-rollout paper
(``papers/004_…``: T_base = 0, T_exp ∈ {0.2, 0.5, 0.8} for N = 4), cycled when N > 4; a build
passes its own (``build.method.exploratory_temperatures``). :meth:`AgentLimits.from_method` takes
the turns and the rollout wall time from the same settings.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import structlog
from pydantic import Field

from toolatlas.agents.interface import OBSERVATION_CHARS
from toolatlas.agents.loop import (
    DEFAULT_MAX_TURNS,
    DEFAULT_TIMEOUT_S,
    SNIPPET_TIMEOUT_S,
    rollout_id,
    run_agent,
)
from toolatlas.codebox import RunPolicy
from toolatlas.config import MethodSettings
from toolatlas.environments import StateDigest
from toolatlas.errors import SandboxError, ServerStartError
from toolatlas.llm import BoundLlm, LlmClient
from toolatlas.models import Frozen, OutcomeClass
from toolatlas.sandbox import Sandbox
from toolatlas.tasks.models import AgentKind, AgentRollout, TaskSpec

__all__ = [
    "EXPLORATORY_TEMPERATURES",
    "AgentLimits",
    "AgentRunner",
    "PlannedRollout",
    "rollout_plan",
    "rollout_temperature",
    "run_rollout",
]

log = structlog.get_logger(__name__)

EXPLORATORY_TEMPERATURES: tuple[float, ...] = (0.2, 0.5, 0.8)
"""Temperatures of rollouts 1, 2, 3 (then again) of a task; rollout 0 runs at 0."""


class AgentLimits(Frozen):
    """The bounds of one rollout."""

    max_turns: int = Field(
        DEFAULT_MAX_TURNS, ge=1, description="LLM turns before the rollout stops unanswered"
    )
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0, description="wall clock of the whole rollout")
    snippet_timeout_s: float = Field(SNIPPET_TIMEOUT_S, gt=0, description="wall clock of one CodeAct snippet")
    observation_chars: int = Field(
        OBSERVATION_CHARS, ge=200, description="characters of one observation shown"
    )
    max_tokens: int | None = Field(None, ge=1, description="cap on one reply's tokens (None: the endpoint's)")

    @classmethod
    def from_method(cls, method: MethodSettings, **overrides: Any) -> AgentLimits:
        """The limits a build's ``[build.method]`` settings set (turns, rollout wall time)."""
        return cls(max_turns=method.max_turns, timeout_s=method.rollout_timeout_s, **overrides)


class PlannedRollout(Frozen):
    """One rollout to run: which agent, which index among the task's N, at which temperature."""

    task: TaskSpec
    kind: AgentKind
    rollout: int
    temperature: float


def rollout_temperature(index: int, temperatures: Sequence[float] = EXPLORATORY_TEMPERATURES) -> float:
    """0 for rollout 0 (deterministic), then ``temperatures`` in turn (0 throughout when there are none)."""
    if index == 0 or not temperatures:
        return 0.0
    return temperatures[(index - 1) % len(temperatures)]


def rollout_plan(
    task: TaskSpec,
    n: int,
    kinds: Sequence[AgentKind] = (AgentKind.SWITCHACT,),
    *,
    temperatures: Sequence[float] = EXPLORATORY_TEMPERATURES,
) -> list[PlannedRollout]:
    """The ``n`` rollouts of ``task`` for each agent kind (by default SwitchAct, the paper's default).

    ``temperatures`` are those of the exploratory rollouts (a build passes
    ``build.method.exploratory_temperatures``).
    """
    return [
        PlannedRollout(
            task=task, kind=kind, rollout=index, temperature=rollout_temperature(index, temperatures)
        )
        for kind in kinds
        for index in range(n)
    ]


class AgentRunner:
    """Runs agent rollouts in one started sandbox, one at a time, and freezes each post-state."""

    def __init__(
        self,
        sandbox: Sandbox,
        llm: LlmClient | BoundLlm,
        *,
        name: str = "",
        limits: AgentLimits | None = None,
        skip_untouched: bool = False,
    ) -> None:
        self.sandbox = sandbox
        self.llm = llm
        self.name = name or f"agents-{sandbox.spec.name}"
        self.limits = limits or AgentLimits()
        self.skip_untouched = skip_untouched
        self.rollouts_run = 0
        self.resets = 0
        self._snapshot_digest: StateDigest | None = None
        self._lock = asyncio.Lock()

    async def run(
        self,
        task: TaskSpec,
        kind: AgentKind,
        *,
        rollout: int = 0,
        temperature: float = 0.0,
        guidance: str | None = None,
    ) -> AgentRollout:
        """One rollout from the snapshot's state; returns it with its frozen post-state."""
        async with self._lock:
            started = time.perf_counter()
            try:
                await self._ensure_fresh()
            except (ServerStartError, SandboxError) as exc:
                return self._unstarted(task, kind, rollout, temperature, exc)
            result = await run_agent(
                task,
                kind,
                llm=self.llm,
                tools=self.sandbox.tools,
                call=self.sandbox.call,
                digest=self.sandbox.digest,
                variables=self.sandbox.variables(),
                rollout=rollout,
                temperature=temperature,
                max_turns=self.limits.max_turns,
                timeout_s=self.limits.timeout_s,
                guidance=guidance,
                snippet_policy=RunPolicy(timeout_s=self.limits.snippet_timeout_s),
                observation_chars=self.limits.observation_chars,
                max_tokens=self.limits.max_tokens,
                executor=self.name,
            )
            result = await self._freeze(result)
            self.rollouts_run += 1
            return result.model_copy(update={"duration_ms": (time.perf_counter() - started) * 1000})

    async def run_planned(self, planned: PlannedRollout, *, guidance: str | None = None) -> AgentRollout:
        return await self.run(
            planned.task,
            planned.kind,
            rollout=planned.rollout,
            temperature=planned.temperature,
            guidance=guidance,
        )

    async def _snapshot(self) -> StateDigest:
        if self._snapshot_digest is None:
            self._snapshot_digest = await self.sandbox.digest(self.sandbox.snapshot)
        return self._snapshot_digest

    async def _ensure_fresh(self) -> None:
        """Reset the instance when it does not hold the snapshot's state (someone used it before)."""
        if await self.sandbox.digest() != await self._snapshot():
            await self.sandbox.reset()
            self.resets += 1

    async def _freeze(self, result: AgentRollout) -> AgentRollout:
        """Digest and freeze the post-state, restore the instance; a sandbox failure is data."""
        try:
            final = await self.sandbox.digest()
            broke = any(call.outcome in (OutcomeClass.CRASH, OutcomeClass.TIMEOUT) for call in result.calls)
            frozen = None
            if not self.skip_untouched or broke or final != await self._snapshot():
                frozen = await self.sandbox.freeze_and_reset()
                self.resets += 1
        except (ServerStartError, SandboxError) as exc:
            log.warning(
                "agent_freeze_failed", server=result.task.server, rollout=result.id, error=str(exc)[:300]
            )
            detail = f"freezing the post-state failed: {exc}" + (
                f" (after: {result.detail})" if result.detail else ""
            )
            return result.model_copy(update={"stop": "infrastructure", "detail": detail})
        return result.model_copy(update={"frozen": frozen, "final_digest": final})

    def _unstarted(
        self, task: TaskSpec, kind: AgentKind, rollout: int, temperature: float, exc: Exception
    ) -> AgentRollout:
        log.warning("agent_sandbox_unusable", server=task.server, task=task.id, error=str(exc)[:300])
        return AgentRollout(
            id=rollout_id(task, kind, rollout),
            task=task,
            agent=kind,
            rollout=rollout,
            temperature=temperature,
            stop="infrastructure",
            detail=f"the sandbox could not be prepared: {exc}",
            executor=self.name,
        )


async def run_rollout(
    task: TaskSpec,
    kind: AgentKind,
    sandbox: Sandbox,
    *,
    llm: LlmClient | BoundLlm,
    rollout: int = 0,
    temperature: float = 0.0,
    guidance: str | None = None,
    limits: AgentLimits | None = None,
    executor: str = "",
) -> AgentRollout:
    """One rollout of ``kind`` on ``task`` in the started ``sandbox`` (see :class:`AgentRunner`)."""
    runner = AgentRunner(sandbox, llm, name=executor, limits=limits)
    return await runner.run(task, kind, rollout=rollout, temperature=temperature, guidance=guidance)
