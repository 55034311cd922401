"""The LLM client: one OpenAI-compatible endpoint, every role, with retries, limits and accounting.

:meth:`LlmClient.complete` makes one chat-completions call for a role and returns a typed
:class:`~toolatlas.llm.models.LlmReply`. Around the HTTP request it

- picks the role's model (``role_models`` over ``model``) and default temperature;
- bounds each request by ``timeout_s`` and the endpoint's concurrency limit (shared by all
  roles and clients of that base URL in the process, :mod:`toolatlas.llm.limits`);
- retries 429 / 5xx / timeouts / connection errors with backoff (:mod:`toolatlas.llm.retry`);
  the SDK's own retries are off so every retry is counted here;
- for structured outputs, sends a JSON schema built from the pydantic model, validates the
  answer, and re-asks with the validation error up to ``structured_output_retries`` times;
- records calls, requests, retries, repairs, failures, tokens, cost and latency in its
  :class:`~toolatlas.llm.ledger.UsageLedger` under (role, model, server, round).

Failure contract: an endpoint that stays unreachable, overloaded or refuses the request raises
:class:`~toolatlas.errors.LlmError`. A structured answer that never validates does **not**
raise: the reply carries a :class:`~toolatlas.llm.models.StructuredOutputFailure` in
``failure`` (``reply.parsed_or_raise()`` converts it to :class:`~toolatlas.errors.LlmOutputError`).
Both are counted as failures in the ledger. A client belongs to one event loop.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import openai
import structlog
from openai.types.chat import ChatCompletion, ChatCompletionMessage, ChatCompletionMessageFunctionToolCall
from pydantic import BaseModel

from toolatlas.config.catalogue import LlmSettings
from toolatlas.errors import LlmError
from toolatlas.llm.ledger import UsageLedger, UsageTally
from toolatlas.llm.limits import endpoint_limit
from toolatlas.llm.models import LlmReply, Message, StructuredOutputFailure, TokenUsage, ToolCall
from toolatlas.llm.retry import RetryPolicy, is_retryable_status, retry_after_s
from toolatlas.llm.roles import check_role
from toolatlas.llm.schema import response_format_for, validate_answer

__all__ = ["ROLE_HEADER", "BoundLlm", "LlmClient", "repair_prompt"]

log = structlog.get_logger(__name__)

T = TypeVar("T", bound=BaseModel)

ROLE_HEADER = "X-ToolAtlas-Role"
"""HTTP header naming the calling role (ignored by real endpoints; read by the scripted server)."""

_PLACEHOLDER_KEY = "not-needed"  # local servers (vLLM, Ollama, llama.cpp) accept any key


def repair_prompt(error: str) -> str:
    """The user message that asks the model to fix a structured answer that failed validation."""
    return (
        "Your previous answer is not valid for the required JSON schema: "
        f"{error}\nAnswer again with only one JSON object that matches the schema."
    )


@dataclass
class _CallState:
    """Counters of one complete() call, across its retries and repairs."""

    role: str
    model: str
    server: str | None
    round: int | None
    requests: int = 0
    retries: int = 0
    repairs: int = 0
    usage: TokenUsage = field(default_factory=TokenUsage)


@dataclass(frozen=True)
class _Answer:
    text: str | None
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None
    parsed: BaseModel | None = None
    failure: StructuredOutputFailure | None = None


@dataclass(frozen=True)
class _AttemptFailure:
    """Why one HTTP request failed, and whether another try may help."""

    detail: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None


class LlmClient:
    """Chat completions for every ToolAtlas role against one OpenAI-compatible endpoint."""

    def __init__(
        self,
        settings: LlmSettings,
        *,
        api_key: str | None = None,
        ledger: UsageLedger | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self.ledger = ledger if ledger is not None else UsageLedger()
        self._policy = RetryPolicy(settings.max_retries, settings.backoff_base_s, settings.backoff_cap_s)
        self._rng = rng or random.Random()
        self._openai = openai.AsyncOpenAI(
            base_url=settings.base_url,
            api_key=api_key or os.environ.get(settings.api_key_env) or _PLACEHOLDER_KEY,
            timeout=settings.timeout_s,
            max_retries=0,
        )

    async def __aenter__(self) -> LlmClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._openai.close()

    def model_for(self, role: str) -> str:
        """The model ``role`` uses (its ``role_models`` entry, else the default model)."""
        return self.settings.model_for(check_role(role))

    def bind(self, role: str, *, server: str | None = None, round: int | None = None) -> BoundLlm:
        """A handle that calls as ``role`` and books usage under ``server`` / ``round``."""
        return BoundLlm(self, check_role(role), server, round)

    async def complete(
        self,
        role: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        temperature: float | None = None,
        response_model: type[T] | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
        server: str | None = None,
        round: int | None = None,
    ) -> LlmReply[T]:
        """One chat completion for ``role``.

        ``tools`` are OpenAI tool dicts (see :func:`~toolatlas.llm.models.function_tool`);
        ``tool_choice`` is ``"auto"`` / ``"none"`` / ``"required"`` or a tool name.
        ``temperature`` overrides the role's default. With ``response_model`` the answer is
        validated (and repaired) into ``reply.parsed``, or ``reply.failure`` says why not.
        ``server`` and ``round`` only label the usage in the ledger.
        Raises :class:`LlmError` when the endpoint fails beyond the retries.
        """
        state = _CallState(
            role=check_role(role), model=self.settings.model_for(role), server=server, round=round
        )
        body = self._body(state, tools, tool_choice, temperature, response_model, seed, max_tokens)
        started = time.perf_counter()
        try:
            answer = await self._converse(state, list(messages), body, response_model)
        except LlmError as exc:
            latency_ms = (time.perf_counter() - started) * 1000
            self._account(state, latency_ms, failed=True)
            log.warning("llm_call_failed", **_fields(state), latency_ms=_ms(latency_ms), error=str(exc))
            raise
        latency_ms = (time.perf_counter() - started) * 1000
        cost = self._account(state, latency_ms, failed=answer.failure is not None)
        log.info(
            "llm_call",
            **_fields(state),
            prompt_tokens=state.usage.prompt_tokens,
            completion_tokens=state.usage.completion_tokens,
            latency_ms=_ms(latency_ms),
            ok=answer.failure is None,
        )
        return LlmReply(
            role=state.role,
            model=state.model,
            text=answer.text,
            tool_calls=answer.tool_calls,
            parsed=answer.parsed,
            failure=answer.failure,
            finish_reason=answer.finish_reason,
            usage=state.usage,
            cost=cost,
            latency_ms=latency_ms,
            requests=state.requests,
            retries=state.retries,
            repairs=state.repairs,
        )

    # --- one call: the request body, the repair loop, the retry loop ---------------------------

    def _body(
        self,
        state: _CallState,
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: str | Mapping[str, Any] | None,
        temperature: float | None,
        response_model: type[BaseModel] | None,
        seed: int | None,
        max_tokens: int | None,
    ) -> dict[str, Any]:
        if temperature is None:
            temperature = self.settings.role_temperatures.get(state.role)
        optional: dict[str, Any] = {
            "tools": [dict(tool) for tool in tools] if tools else None,
            "tool_choice": _wire_tool_choice(tool_choice),
            "temperature": temperature,
            "seed": seed,
            self.settings.max_tokens_param: max_tokens,
            "response_format": response_format_for(response_model) if response_model else None,
        }
        body = {"model": state.model, **{key: value for key, value in optional.items() if value is not None}}
        body["extra_headers"] = {ROLE_HEADER: state.role}
        if self.settings.extra_body:
            body["extra_body"] = dict(self.settings.extra_body)
        return body

    async def _converse(
        self,
        state: _CallState,
        conversation: list[Message],
        body: dict[str, Any],
        response_model: type[BaseModel] | None,
    ) -> _Answer:
        """Ask, and while a structured answer fails validation, show the error and ask again."""
        attempts = 1 + (self.settings.structured_output_retries if response_model else 0)
        error: str | None = None
        for attempt in range(attempts):
            completion = await self._request(state, {**body, "messages": conversation})
            answer = _answer_of(completion)
            if response_model is None:
                return answer
            parsed, error = validate_answer(response_model, answer.text)
            if parsed is not None:
                return _Answer(answer.text, answer.tool_calls, answer.finish_reason, parsed=parsed)
            log.info("llm_structured_output_invalid", **_fields(state), attempt=attempt + 1, error=error)
            if attempt + 1 < attempts:
                state.repairs += 1
                conversation = [
                    *conversation,
                    {"role": "assistant", "content": answer.text or ""},
                    {"role": "user", "content": repair_prompt(error or "")},
                ]
        failure = StructuredOutputFailure(
            schema_name=response_model.__name__ if response_model else "", attempts=attempts, error=error or "", last_text=answer.text
        )
        log.warning("llm_structured_output_failed", **_fields(state), attempts=attempts, error=error)
        return _Answer(answer.text, answer.tool_calls, answer.finish_reason, failure=failure)

    async def _request(self, state: _CallState, body: dict[str, Any]) -> ChatCompletion:
        """One request, retried on transient failures; LlmError when they persist."""
        limit = endpoint_limit(self.settings.base_url, self.settings.max_concurrency)
        retry = 0
        while True:
            state.requests += 1
            try:
                async with limit, asyncio.timeout(self.settings.timeout_s):
                    completion = await self._openai.chat.completions.create(**body)
            except (openai.OpenAIError, TimeoutError) as exc:
                failure = self._classify(exc)
            else:
                state.usage = state.usage + _usage_of(completion)
                return completion
            if not failure.retryable or retry >= self._policy.max_retries:
                raise LlmError(self._explain(state, failure), status=failure.status, attempts=state.requests)
            delay = self._policy.delay_s(retry, failure.retry_after, self._rng)
            log.info(
                "llm_retry", **_fields(state), retry=retry + 1, status=failure.status, delay_s=round(delay, 3)
            )
            state.retries += 1
            retry += 1
            await asyncio.sleep(delay)

    def _classify(self, exc: BaseException) -> _AttemptFailure:
        if isinstance(exc, openai.APIStatusError):
            return _AttemptFailure(
                detail=_status_detail(exc),
                retryable=is_retryable_status(exc.status_code),
                status=exc.status_code,
                retry_after=retry_after_s(exc.response.headers),
            )
        if isinstance(exc, openai.APITimeoutError | TimeoutError):
            return _AttemptFailure(detail=f"no answer within {self.settings.timeout_s:g} s", retryable=True)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            return _AttemptFailure(detail=f"connection failed: {cause}", retryable=True)
        return _AttemptFailure(detail=f"{type(exc).__name__}: {exc}", retryable=False)

    def _explain(self, state: _CallState, failure: _AttemptFailure) -> str:
        where = f"{self.settings.base_url} (model {state.model!r}, role {state.role})"
        if failure.status in (401, 403):
            hint = f"; check the key in ${self.settings.api_key_env}"
            return f"{where} refused the credentials (HTTP {failure.status}){hint}: {failure.detail}"
        tries = f"after {state.requests} request(s)" if failure.retryable else "(not retryable)"
        return f"{where} failed {tries}: {failure.detail}"

    def _account(self, state: _CallState, latency_ms: float, *, failed: bool) -> float:
        """Book the call in the ledger; returns its cost."""
        price = self.settings.prices.get(state.model)
        usage = state.usage
        cost = price.cost(usage.prompt_tokens, usage.completion_tokens) if price else 0.0
        tally = UsageTally(
            calls=1,
            requests=state.requests,
            retries=state.retries,
            repairs=state.repairs,
            failures=int(failed),
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cost=cost,
            unpriced_calls=int(price is None),
            latency_ms=latency_ms,
        )
        self.ledger.record(
            role=state.role, model=state.model, server=state.server, round=state.round, tally=tally
        )
        return cost


@dataclass(frozen=True)
class BoundLlm:
    """An :class:`LlmClient` bound to one role (and optionally a server and round), e.g. for an agent."""

    client: LlmClient
    role: str
    server: str | None = None
    round: int | None = None

    @property
    def model(self) -> str:
        return self.client.model_for(self.role)

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        temperature: float | None = None,
        response_model: type[T] | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
    ) -> LlmReply[T]:
        """:meth:`LlmClient.complete` as this role, booked under this server and round."""
        return await self.client.complete(
            self.role,
            messages,
            tools=tools,
            tool_choice=tool_choice,
            temperature=temperature,
            response_model=response_model,
            seed=seed,
            max_tokens=max_tokens,
            server=self.server,
            round=self.round,
        )


# --- wire helpers ------------------------------------------------------------------------------


def _wire_tool_choice(choice: str | Mapping[str, Any] | None) -> str | dict[str, Any] | None:
    """``"auto"`` / ``"none"`` / ``"required"`` pass through; a bare tool name forces that tool."""
    if choice is None or isinstance(choice, Mapping):
        return dict(choice) if choice is not None else None
    if choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _answer_of(completion: ChatCompletion) -> _Answer:
    """Text, tool calls and finish reason of the first choice (an answer without choices is empty)."""
    if not completion.choices:
        return _Answer(None, (), None)
    choice = completion.choices[0]
    message: ChatCompletionMessage = choice.message
    calls = tuple(
        ToolCall.decode(call.id, call.function.name, call.function.arguments)
        for call in message.tool_calls or ()
        if isinstance(call, ChatCompletionMessageFunctionToolCall)
    )
    return _Answer(message.content, calls, choice.finish_reason)


def _usage_of(completion: ChatCompletion) -> TokenUsage:
    usage = completion.usage
    if usage is None:
        return TokenUsage()
    return TokenUsage(prompt_tokens=usage.prompt_tokens or 0, completion_tokens=usage.completion_tokens or 0)


def _status_detail(exc: openai.APIStatusError) -> str:
    """``HTTP 503: the server's error message``."""
    body = exc.body
    message = body.get("message") if isinstance(body, dict) else None
    return f"HTTP {exc.status_code}: {message or exc.message}"


def _fields(state: _CallState) -> dict[str, Any]:
    """The log fields every LLM event carries."""
    return {
        "role": state.role,
        "model": state.model,
        "server": state.server,
        "round": state.round,
        "requests": state.requests,
        "retries": state.retries,
        "repairs": state.repairs,
    }


def _ms(value: float) -> float:
    return round(value, 1)
