"""The agent loop: ReAct, CodeAct and SwitchAct on one OpenAI-compatible model and one MCP server.

One turn is one chat completion and at most one action:

=========  ======================================  ============================================
kind       functions offered                       an action is
=========  ======================================  ============================================
react      the server's tools                      one function call = one MCP call
codeact    ``run_python``                          one snippet, any number of MCP calls
switchact  the server's tools and ``run_python``   either; the model chooses at every turn
=========  ======================================  ============================================

A reply with text and no function call is the final answer. When a reply asks for several
functions at once only the first runs; the others are answered "not executed" (the API wants
every call answered), so the model can ask again. A call the model got wrong (unknown function,
arguments that are not a JSON object, ``run_python`` without code) is answered with the reason
and kept as a step without calls. Snippets run in the code box (:func:`toolatlas.codebox.run_code`)
whose bridge is the same ``call`` as ReAct's, so every MCP call of every kind is recorded once,
in order, with the state it left when a ``digest`` is given.

How a rollout stops (``AgentRollout.stop``; none of these raise): ``answer``; ``max_turns``;
``timeout`` (one wall-clock deadline around the whole loop; an action cut short is kept with the
calls it made); ``llm_failure`` (the endpoint failed beyond its retries, or replied with neither
text nor a call); ``infrastructure`` (the sandbox or the code box failed).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import structlog

from toolatlas.agents.interface import (
    OBSERVATION_CHARS,
    RUN_PYTHON,
    ToolMenu,
    bounded,
    render_outcome,
    run_python_tool,
    tool_catalogue,
)
from toolatlas.codebox import RunPolicy, run_code
from toolatlas.environments import StateDigest, render_template
from toolatlas.errors import ConfigError, LlmError, SandboxError, ServerStartError
from toolatlas.llm import BoundLlm, LlmClient, LlmReply, ToolCall, tool_result_message
from toolatlas.models import CallOutcome, ToolSpec, stable_id
from toolatlas.prompts import load_prompt
from toolatlas.tasks.models import AgentAction, AgentKind, AgentRollout, AgentStep, RolloutStop, TaskSpec

__all__ = [
    "AGENT_ROLE",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_TIMEOUT_S",
    "NOT_EXECUTED",
    "SNIPPET_TIMEOUT_S",
    "CallTool",
    "DigestState",
    "prompt_name",
    "rollout_id",
    "run_agent",
]

log = structlog.get_logger(__name__)

AGENT_ROLE = "agent"
"""The LLM role every agent kind calls as (its model, temperature default and usage row)."""
DEFAULT_MAX_TURNS = 20
DEFAULT_TIMEOUT_S = 300.0
"""Wall clock for one rollout, LLM calls, tool calls and snippets included."""
SNIPPET_TIMEOUT_S = 30.0
"""Wall clock for one CodeAct snippet, its tool calls included."""
NOT_EXECUTED = (
    "Not executed: one action per turn, and only the first function call of a reply runs. "
    "Ask for it again in your next turn if you still need it."
)

CallTool = Callable[[str, dict[str, Any]], Awaitable[CallOutcome]]
"""Calls one MCP tool on the live server (``Sandbox.call`` is one)."""
DigestState = Callable[[], Awaitable[StateDigest]]
"""Describes the live instance's current state (``Sandbox.digest`` is one)."""

_FUNCTIONS = {AgentKind.REACT: True, AgentKind.CODEACT: False, AgentKind.SWITCHACT: True}
_CODE = {AgentKind.REACT: False, AgentKind.CODEACT: True, AgentKind.SWITCHACT: True}


def prompt_name(kind: AgentKind) -> str:
    """The prompt file a kind runs (``toolatlas/prompts/agent_<kind>.md``, all as role ``agent``)."""
    return f"agent_{kind.value}"


def rollout_id(task: TaskSpec, kind: AgentKind, rollout: int) -> str:
    """Content-derived: rollout ``rollout`` of ``kind`` on ``task`` (also the id of its probe view)."""
    return "r" + stable_id("rollout", task.id, task.round, kind.value, rollout)[:15]


async def run_agent(
    task: TaskSpec,
    kind: AgentKind,
    *,
    llm: LlmClient | BoundLlm,
    tools: Sequence[ToolSpec],
    call: CallTool,
    rollout: int = 0,
    temperature: float = 0.0,
    max_turns: int = DEFAULT_MAX_TURNS,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    guidance: str | None = None,
    digest: DigestState | None = None,
    variables: dict[str, str] | None = None,
    server: str | None = None,
    round: int | None = None,
    snippet_policy: RunPolicy | None = None,
    observation_chars: int = OBSERVATION_CHARS,
    max_tokens: int | None = None,
    executor: str = "",
) -> AgentRollout:
    """One rollout of ``kind`` on ``task``; ``frozen`` stays None (the caller freezes the state).

    ``llm`` is a client (bound here as role ``agent``, usage booked under ``server`` / ``round``,
    by default the task's) or a handle already bound to role ``agent``. ``guidance`` fills the
    prompt's memory slot. ``digest``, when given, is awaited after every MCP call and its result
    kept in ``AgentStep.digests_after``. ``variables`` fill ``${name}`` placeholders in the task
    text and are kept on the rollout, to map concrete paths back to placeholders later.
    """
    bound = _bind(llm, task.server if server is None else server, task.round if round is None else round)
    episode = _Episode(
        kind,
        bound,
        ToolMenu(tools),
        _CallRecorder(call, digest),
        temperature=temperature,
        snippet_policy=snippet_policy or RunPolicy(timeout_s=SNIPPET_TIMEOUT_S),
        observation_chars=observation_chars,
        max_tokens=max_tokens,
    )
    episode.open(task, _fill(task.text, variables or {}), guidance)
    started = time.perf_counter()
    await episode.run(max_turns, timeout_s)
    result = AgentRollout(
        id=rollout_id(task, kind, rollout),
        task=task,
        agent=kind,
        rollout=rollout,
        temperature=temperature,
        model=bound.model,
        steps=episode.steps,
        final_answer=episode.final_answer,
        stop=episode.stop,
        detail=episode.detail,
        variables=dict(variables or {}),
        duration_ms=(time.perf_counter() - started) * 1000,
        executor=executor,
    )
    log.info(
        "agent_rollout_finished",
        server=task.server,
        task=task.id,
        agent=kind.value,
        rollout=rollout,
        stop=result.stop,
        turns=len(result.steps),
        calls=len(result.calls),
        duration_ms=int(result.duration_ms),
    )
    return result


class _CallRecorder:
    """Calls tools for the action under way and keeps every outcome (and the state it left)."""

    def __init__(self, call: CallTool, digest: DigestState | None) -> None:
        self._call = call
        self._digest = digest
        self._calls: list[CallOutcome] = []
        self._digests: list[StateDigest] = []

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        outcome = await self._call(tool, arguments)
        self._calls.append(outcome)
        if self._digest is not None:
            self._digests.append(await self._digest())
        return outcome

    def take(self) -> tuple[list[CallOutcome], list[StateDigest]]:
        """The calls since the last take, and their digests (none unless every call has one)."""
        calls, digests = self._calls, self._digests
        self._calls, self._digests = [], []
        return calls, digests if len(digests) == len(calls) else []


class _Episode:
    """The conversation and trajectory of one rollout."""

    def __init__(
        self,
        kind: AgentKind,
        llm: BoundLlm,
        menu: ToolMenu,
        recorder: _CallRecorder,
        *,
        temperature: float,
        snippet_policy: RunPolicy,
        observation_chars: int,
        max_tokens: int | None,
    ) -> None:
        self.kind, self.llm, self.menu, self.recorder = kind, llm, menu, recorder
        self.temperature, self.snippet_policy = temperature, snippet_policy
        self.observation_chars, self.max_tokens = observation_chars, max_tokens
        self.functions = _FUNCTIONS[kind]
        self.code = _CODE[kind]
        offered = menu.functions() if self.functions else []
        self.offered = offered + ([run_python_tool(menu.names)] if self.code else [])
        self.messages: list[dict[str, Any]] = []
        self.steps: list[AgentStep] = []
        self.final_answer = ""
        self.stop: RolloutStop = "max_turns"
        self.detail = ""
        self._current: tuple[int, AgentAction] | None = None

    def open(self, task: TaskSpec, text: str, guidance: str | None) -> None:
        catalogue = tool_catalogue(self.menu, functions=self.functions, code=self.code)
        memory = guidance.strip() if guidance and guidance.strip() else "(none)"
        prompt = load_prompt(prompt_name(self.kind))
        self.messages = prompt.messages(server=task.server, tools=catalogue, memory=memory, task=text)

    async def run(self, max_turns: int, timeout_s: float) -> None:
        deadline = asyncio.timeout(timeout_s)
        try:
            async with deadline:
                await self._turns(max_turns)
        except TimeoutError:
            if not deadline.expired():
                raise
            self._keep_interrupted("the rollout's time ran out during this action")
            self._end("timeout", f"no final answer within {timeout_s:g} s")
        except (ServerStartError, SandboxError) as exc:
            self._keep_interrupted(f"the sandbox failed: {exc}")
            self._end("infrastructure", str(exc))

    async def _turns(self, max_turns: int) -> None:
        for index in range(max_turns):
            reply: LlmReply[Any]
            try:
                reply = await self.llm.complete(
                    self.messages,
                    tools=self.offered or None,
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                )
            except LlmError as exc:
                self._end("llm_failure", str(exc))
                return
            self.messages.append(reply.as_message())
            if not reply.tool_calls:
                self._answer(index, reply)
                return
            self.steps.append(await self._act(index, reply))
        self._end("max_turns", f"no final answer after {max_turns} turns")

    def _answer(self, index: int, reply: LlmReply[Any]) -> None:
        text = (reply.text or "").strip()
        if not text:
            self._end(
                "llm_failure",
                f"the model replied with neither text nor a function call (finish: {reply.finish_reason})",
            )
            return
        self.steps.append(AgentStep(index=index, action=AgentAction(kind="answer", answer=text)))
        self.final_answer = text
        self._end("answer")

    async def _act(self, index: int, reply: LlmReply[Any]) -> AgentStep:
        """Run the first function call of the reply; answer every call of it."""
        first, *rest = reply.tool_calls
        step = await self._step(index, first, (reply.text or "").strip())
        self.messages.append(tool_result_message(first.id, step.observation))
        self.messages.extend(tool_result_message(extra.id, NOT_EXECUTED) for extra in rest)
        if rest:
            log.info("agent_calls_not_executed", agent=self.kind.value, turn=index, count=len(rest))
        return step

    async def _step(self, index: int, call: ToolCall, thought: str) -> AgentStep:
        if call.name == RUN_PYTHON and self.code:
            code = (call.arguments or {}).get("code")
            action = AgentAction(kind="code", thought=thought, code=code if isinstance(code, str) else None)
            if not isinstance(code, str) or not code.strip():
                reason = call.arguments_error or 'run_python needs {"code": "<python source>"}'
                return self._refused(index, action, f"{reason}; nothing was run")
            return await self._run_snippet(index, action)
        tool = self.menu.resolve(call.name) if self.functions else None
        action = AgentAction(
            kind="call",
            thought=thought,
            tool=tool.name if tool else call.name,
            arguments=call.arguments or {},
        )
        if tool is None:
            offered = ", ".join(f["function"]["name"] for f in self.offered) or "none"
            return self._refused(index, action, f"there is no function {call.name!r} (offered: {offered})")
        if call.arguments is None:
            return self._refused(
                index, action, f"the arguments are not a JSON object: {call.arguments_error}"
            )
        return await self._call_tool(index, action)

    async def _call_tool(self, index: int, action: AgentAction) -> AgentStep:
        assert action.tool is not None
        self._current = (index, action)
        outcome = await self.recorder(action.tool, action.arguments)
        return self._finish(render_outcome(outcome))

    async def _run_snippet(self, index: int, action: AgentAction) -> AgentStep:
        assert action.code is not None
        self._current = (index, action)
        result = await run_code(action.code, self.recorder, self.menu.names, policy=self.snippet_policy)
        return self._finish(result.observation, code_status=result.status.value)

    def _finish(self, observation: str, *, code_status: str | None = None) -> AgentStep:
        """The step of the action under way, with the calls it made."""
        assert self._current is not None
        (index, action), self._current = self._current, None
        calls, digests = self.recorder.take()
        return AgentStep(
            index=index,
            action=action,
            calls=calls,
            digests_after=digests,
            observation=bounded(observation, self.observation_chars),
            code_status=code_status,
        )

    def _refused(self, index: int, action: AgentAction, reason: str) -> AgentStep:
        return AgentStep(index=index, action=action, observation=f"[not executed] {reason}")

    def _keep_interrupted(self, why: str) -> None:
        """Keep the action cut short (and the calls it made, which did happen) as a step."""
        if self._current is None:
            return
        status = "interrupted" if self._current[1].kind == "code" else None
        self.steps.append(self._finish(f"[interrupted] {why}", code_status=status))

    def _end(self, stop: RolloutStop, detail: str = "") -> None:
        self.stop, self.detail = stop, detail


def _bind(llm: LlmClient | BoundLlm, server: str | None, round: int | None) -> BoundLlm:
    if isinstance(llm, BoundLlm):
        if llm.role != AGENT_ROLE:
            raise ConfigError(None, [("llm", f"agents call as role {AGENT_ROLE!r}, not {llm.role!r}")])
        return llm
    return llm.bind(AGENT_ROLE, server=server, round=round)


def _fill(text: str, variables: dict[str, str]) -> str:
    """The task text with ``${name}`` placeholders filled; left as written if one is unknown."""
    try:
        return render_template(text, variables)
    except ConfigError:
        return text
