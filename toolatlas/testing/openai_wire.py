"""The OpenAI chat-completions wire format, as the scripted server reads and writes it.

:class:`ChatRequest` is a validated ``POST /v1/chat/completions`` body: the checks are the ones
the real API makes and an agent loop most easily violates (a ``tool`` message that answers no
call, an assistant's tool calls left unanswered, a forced tool that is not offered), so a bug
in a ToolAtlas agent fails against the scripted server as it would against a real endpoint.
The builders produce response bodies in the real shapes; token counts are a deterministic
approximation (words and punctuation marks), good for accounting tests, not for any tokenizer.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
from dataclasses import dataclass, field
from typing import Any

from toolatlas.errors import ToolAtlasError
from toolatlas.llm.client import ROLE_HEADER
from toolatlas.llm.roles import RoleTag, parse_role_tag

__all__ = [
    "ChatRequest",
    "WireError",
    "completion_body",
    "count_tokens",
    "embeddings_body",
    "error_body",
    "hashed_embedding",
    "invalid_instance",
]

_MESSAGE_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_TOKEN = re.compile(r"\w+|[^\w\s]")
DEFAULT_EMBEDDING_DIM = 64


class WireError(ToolAtlasError):
    """A request the real API would reject; the server answers it with this status and error body."""

    def __init__(
        self, message: str, *, param: str | None = None, status: int = 400, code: str | None = None
    ) -> None:
        self.message, self.param, self.status, self.code = message, param, status, code
        super().__init__(message)

    def body(self) -> dict[str, Any]:
        return error_body(self.message, param=self.param, code=self.code)


@dataclass(frozen=True)
class ChatRequest:
    """A validated chat-completions request, with the views scripts match on."""

    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, body: Any, headers: dict[str, str] | None = None) -> ChatRequest:
        """Validate ``body``; :class:`WireError` names the offending parameter as the real API does."""
        if not isinstance(body, dict):
            raise WireError("the request body must be a JSON object")
        if not isinstance(body.get("model"), str) or not body["model"]:
            raise WireError("you must provide a model parameter", param="model")
        if body.get("stream"):
            raise WireError("the scripted server does not stream", param="stream")
        if body.get("n", 1) != 1:
            raise WireError("the scripted server answers with one choice (n = 1)", param="n")
        request = cls(body, {name.lower(): value for name, value in (headers or {}).items()})
        _check_messages(body.get("messages"))
        _check_tools(body.get("tools"), body.get("tool_choice"))
        _check_response_format(body.get("response_format"))
        return request

    @property
    def model(self) -> str:
        return self.body["model"]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body["messages"]

    @property
    def tools(self) -> list[dict[str, Any]]:
        return self.body.get("tools") or []

    @property
    def tool_names(self) -> list[str]:
        return [tool["function"]["name"] for tool in self.tools]

    @property
    def response_format(self) -> dict[str, Any] | None:
        return self.body.get("response_format")

    @property
    def json_schema(self) -> dict[str, Any] | None:
        """The requested structured-output schema, if any."""
        fmt = self.response_format or {}
        return fmt.get("json_schema", {}).get("schema") if fmt.get("type") == "json_schema" else None

    @property
    def schema_name(self) -> str | None:
        fmt = self.response_format or {}
        return fmt.get("json_schema", {}).get("name") if fmt.get("type") == "json_schema" else None

    @property
    def system_text(self) -> str:
        """The first system (or developer) message's text."""
        for message in self.messages:
            if message["role"] in ("system", "developer"):
                return text_of(message.get("content"))
        return ""

    @property
    def role_tag(self) -> RoleTag | None:
        return parse_role_tag(self.system_text)

    @property
    def role(self) -> str | None:
        """The ToolAtlas role: from the system prompt's role tag, else the client's role header."""
        tag = self.role_tag
        return tag.role if tag else self.headers.get(ROLE_HEADER.lower())

    @property
    def last_user_text(self) -> str:
        for message in reversed(self.messages):
            if message["role"] == "user":
                return text_of(message.get("content"))
        return ""

    @property
    def tool_results(self) -> list[dict[str, Any]]:
        """The ``tool`` messages, oldest first."""
        return [message for message in self.messages if message["role"] == "tool"]

    def prompt_tokens(self) -> int:
        """Approximate prompt size: every message's text and tool calls, plus the tool definitions."""
        total = 0
        for message in self.messages:
            total += 3 + count_tokens(text_of(message.get("content")))
            for call in message.get("tool_calls") or ():
                total += count_tokens(call["function"]["name"]) + count_tokens(
                    call["function"].get("arguments", "")
                )
        if self.tools:
            total += count_tokens(json.dumps(self.tools))
        return total


def text_of(content: Any) -> str:
    """The text of a message's ``content``: a string, or a list of parts of which the text ones count."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def count_tokens(text: str) -> int:
    """Words and punctuation marks: a deterministic stand-in for a tokenizer."""
    return len(_TOKEN.findall(text))


def _check_messages(messages: Any) -> None:
    if not isinstance(messages, list) or not messages:
        raise WireError("messages must be a non-empty array", param="messages")
    unanswered: set[str] = set()
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict) or message.get("role") not in _MESSAGE_ROLES:
            raise WireError(f"{where}.role must be one of {sorted(_MESSAGE_ROLES)}", param=f"{where}.role")
        if message["role"] == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in unanswered:
                raise WireError(
                    "messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
                    param=where,
                )
            unanswered.discard(call_id)
            continue
        if unanswered:
            raise WireError(
                "an assistant message with 'tool_calls' must be followed by tool messages responding to each "
                f"'tool_call_id'; unanswered: {', '.join(sorted(unanswered))}",
                param=where,
            )
        if message["role"] == "assistant":
            unanswered = {call.get("id") for call in message.get("tool_calls") or ()}
    if unanswered:
        raise WireError(f"tool calls left unanswered: {', '.join(sorted(unanswered))}", param="messages")


def _check_tools(tools: Any, tool_choice: Any) -> None:
    names: list[str] = []
    if tools is not None:
        if not isinstance(tools, list):
            raise WireError("tools must be an array", param="tools")
        for index, tool in enumerate(tools):
            function = tool.get("function") if isinstance(tool, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            if not isinstance(name, str) or not _TOOL_NAME.match(name) or tool.get("type") != "function":
                raise WireError(
                    "each tool needs type 'function' and a valid function.name", param=f"tools[{index}]"
                )
            names.append(name)
    if tool_choice is None or tool_choice in ("auto", "none"):
        return
    if tool_choice == "required" or isinstance(tool_choice, dict):
        if not names:
            raise WireError("tool_choice is only allowed when tools are specified", param="tool_choice")
        forced = tool_choice.get("function", {}).get("name") if isinstance(tool_choice, dict) else None
        if isinstance(tool_choice, dict) and forced not in names:
            raise WireError(f"tool_choice names {forced!r}, which is not in tools", param="tool_choice")
        return
    raise WireError(f"invalid tool_choice {tool_choice!r}", param="tool_choice")


def _check_response_format(fmt: Any) -> None:
    if fmt is None:
        return
    kind = fmt.get("type") if isinstance(fmt, dict) else None
    if kind in ("text", "json_object"):
        return
    if kind != "json_schema":
        raise WireError(
            "response_format.type must be text, json_object or json_schema", param="response_format"
        )
    spec = fmt.get("json_schema")
    if (
        not isinstance(spec, dict)
        or not isinstance(spec.get("name"), str)
        or not isinstance(spec.get("schema"), dict)
    ):
        raise WireError("json_schema needs a name and a schema object", param="response_format.json_schema")


def completion_body(
    request: ChatRequest,
    *,
    number: int,
    content: str | None,
    tool_calls: list[dict[str, Any]],
    finish_reason: str,
    completion_tokens: int,
    prompt_tokens: int,
) -> dict[str, Any]:
    """A ``chat.completion`` object with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": request.model,
        "system_fingerprint": "toolatlas-scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def error_body(
    message: str, *, kind: str = "invalid_request_error", param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """The ``{"error": {...}}`` body the OpenAI API answers failures with."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def invalid_instance(schema: dict[str, Any] | None) -> dict[str, Any]:
    """A JSON object that violates ``schema``: every declared property gets an unexpected object.

    Invalid for any schema whose properties are not free-form (a string, number, array or closed
    object cannot be ``{"unexpected": true}`` with nothing else).
    """
    properties = (schema or {}).get("properties") or {"answer": {}}
    return {name: {"unexpected": True} for name in properties}


def hashed_embedding(text: str, dim: int = DEFAULT_EMBEDDING_DIM) -> list[float]:
    """A unit vector from hashed words: deterministic, and texts sharing words point the same way."""
    vector = [0.0] * dim
    for token in _TOKEN.findall(text.lower()):
        digest = hashlib.sha256(token.encode()).digest()
        vector[int.from_bytes(digest[:4], "little") % dim] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(value * value for value in vector))
    if norm == 0:
        return [1.0] + [0.0] * (dim - 1)
    return [value / norm for value in vector]


def embeddings_body(body: Any) -> dict[str, Any]:
    """Answer a ``POST /v1/embeddings`` body (float or base64 encoding, optional ``dimensions``)."""
    if not isinstance(body, dict) or not isinstance(body.get("model"), str):
        raise WireError("you must provide a model parameter", param="model")
    texts = body.get("input")
    texts = [texts] if isinstance(texts, str) else texts
    if not isinstance(texts, list) or not texts or not all(isinstance(text, str) for text in texts):
        raise WireError("input must be a string or a non-empty array of strings", param="input")
    dim = body.get("dimensions") or DEFAULT_EMBEDDING_DIM
    encoding = body.get("encoding_format", "float")
    data = []
    for index, text in enumerate(texts):
        vector = hashed_embedding(text, dim)
        encoded: Any = vector
        if encoding == "base64":
            encoded = base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode()
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    tokens = sum(count_tokens(text) for text in texts)
    return {
        "object": "list",
        "data": data,
        "model": body["model"],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
