"""Typed values of one LLM call: the reply, its tool calls, its token usage and a failed structured answer.

Messages themselves stay plain OpenAI chat dicts (``{"role": "user", "content": "..."}``): every
OpenAI-compatible endpoint speaks them and an agent loop appends to them as they are. The
helpers here build the few dicts callers write by hand.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from toolatlas.errors import LlmOutputError

__all__ = [
    "Message",
    "LlmReply",
    "StructuredOutputFailure",
    "TokenUsage",
    "ToolCall",
    "function_tool",
    "tool_result_message",
]

Message = Mapping[str, Any]
"""One chat message in the OpenAI format (``role``, ``content``, and ``tool_calls`` / ``tool_call_id``)."""

T = TypeVar("T", bound=BaseModel)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TokenUsage(_Frozen):
    """Tokens an endpoint reported, summed over every request one call made."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )


class ToolCall(_Frozen):
    """A function call the model asked for.

    ``arguments`` is the decoded JSON object, or None when the model wrote something that is not
    a JSON object; then ``arguments_error`` says why, and an agent can show it to the model.
    """

    id: str
    name: str
    arguments_json: str
    arguments: dict[str, Any] | None = None
    arguments_error: str | None = None

    @classmethod
    def decode(cls, id: str, name: str, arguments_json: str) -> ToolCall:
        """Parse the JSON arguments string the wire carries; a bad one is recorded, not raised."""
        try:
            decoded = json.loads(arguments_json or "{}")
        except json.JSONDecodeError as exc:
            return cls(
                id=id, name=name, arguments_json=arguments_json, arguments_error=f"not valid JSON: {exc}"
            )
        if not isinstance(decoded, dict):
            error = f"arguments must be a JSON object, got {type(decoded).__name__}"
            return cls(id=id, name=name, arguments_json=arguments_json, arguments_error=error)
        return cls(id=id, name=name, arguments_json=arguments_json, arguments=decoded)

    def as_wire(self) -> dict[str, Any]:
        """The call as it appears in an assistant message's ``tool_calls``."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_json},
        }


class StructuredOutputFailure(_Frozen):
    """The model never produced an answer that validates against the requested schema.

    ``attempts`` answers were tried (the first plus the repairs); ``error`` is the last validation
    error and ``last_text`` the last answer, kept verbatim for the build report.
    """

    schema_name: str
    attempts: int
    error: str
    last_text: str | None


class LlmReply(BaseModel, Generic[T]):
    """What one :meth:`LlmClient.complete` call returns.

    With a ``response_model``, ``parsed`` holds the validated object, or ``failure`` says why
    there is none: a malformed answer is a value, not an exception (``parsed_or_raise`` turns it
    into :class:`~toolatlas.errors.LlmOutputError` for callers that prefer one).
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    role: str
    model: str
    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    parsed: T | None = None
    failure: StructuredOutputFailure | None = None
    finish_reason: str | None = None
    usage: TokenUsage = TokenUsage()
    cost: float = Field(0.0, description="from the configured prices; 0 when the model has none")
    latency_ms: float = 0.0
    requests: int = Field(1, description="HTTP requests made: 1 + retries + repairs")
    retries: int = Field(0, description="requests repeated after 429, 5xx, timeouts or connection errors")
    repairs: int = Field(0, description="re-asks after a malformed structured answer")

    @property
    def ok(self) -> bool:
        """False when a structured answer was asked for and never validated."""
        return self.failure is None

    def parsed_or_raise(self) -> T:
        """The validated object; :class:`LlmOutputError` when there is none."""
        if self.parsed is None:
            reason = self.failure.error if self.failure else "no structured output was requested"
            raise LlmOutputError(f"{self.role} ({self.model}): {reason}", attempts=self.requests)
        return self.parsed

    def as_message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation (with its tool calls)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            message["tool_calls"] = [call.as_wire() for call in self.tool_calls]
        return message


def tool_result_message(call_id: str, content: str) -> dict[str, Any]:
    """The ``tool`` message answering one tool call."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def function_tool(name: str, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """A ``tools`` entry offering one function; ``parameters`` is its JSON Schema (an MCP inputSchema)."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": dict(parameters)},
    }
