"""Typed messages shared across the pipeline: tools as a server describes them, call outcomes, the effect a
call had, and the content-derived ids of every record.

Every model that crosses a process boundary is frozen with ``extra="forbid"``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CallOutcome",
    "Effect",
    "Frozen",
    "OutcomeClass",
    "ToolAnnotations",
    "ToolSpec",
    "canonical_json",
    "derived",
    "per_tool",
    "stable_id",
    "utcnow",
]


_FIRST_SENTENCE = re.compile(r"^(.{12,140}?[.!?])(?:\s|$)", re.S)


class Frozen(BaseModel):
    """Base for immutable messages: frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: the input of every content-derived id."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def stable_id(*parts: Any) -> str:
    """A 24-hex id derived from content: the same finding always gets the same id."""
    return hashlib.sha256(canonical_json(parts).encode()).hexdigest()[:24]


def utcnow() -> datetime:
    return datetime.now(UTC)


class ToolAnnotations(Frozen):
    """The behaviour hints a server declares for a tool (MCP ``ToolAnnotations``); all optional."""

    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


T = TypeVar("T")

_DERIVED: dict[int, tuple[ToolSpec, dict[str, Any]]] = {}
_DERIVED_SIZE = 4096


def derived(tool: ToolSpec) -> dict[str, Any]:
    """A memo of what is derived from one tool spec (its schema hash, its effect, its arguments' kinds…).

    By identity: a spec is immutable, and the planner and the inducer ask for the same ones for every
    candidate probe and every rollout. The spec is kept alive with its memo, so its id is not reused."""
    known = _DERIVED.get(id(tool))
    if known is not None and known[0] is tool:
        return known[1]
    if len(_DERIVED) >= _DERIVED_SIZE:
        _DERIVED.clear()
    memo: dict[str, Any] = {}
    _DERIVED[id(tool)] = (tool, memo)
    return memo


def per_tool(compute: Callable[[ToolSpec], T]) -> Callable[[ToolSpec], T]:
    """Memoise a function of one tool spec in its :func:`derived` memo (for immutable results)."""
    key = f"{compute.__module__}.{compute.__qualname__}"

    @functools.wraps(compute)
    def memoised(tool: ToolSpec) -> T:
        memo = derived(tool)
        if key not in memo:
            memo[key] = compute(tool)
        return memo[key]

    return memoised


class ToolSpec(Frozen):
    """One tool as its server lists it, with a stable hash of its interface."""

    server: str
    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations = ToolAnnotations()

    @property
    def schema_hash(self) -> str:
        """16 hex digits over name + input schema + output schema: a changed interface is a new tool node."""
        memo = derived(self)
        if "schema_hash" not in memo:
            payload = canonical_json({"name": self.name, "in": self.input_schema, "out": self.output_schema})
            memo["schema_hash"] = hashlib.sha256(payload.encode()).hexdigest()[:16]
        return memo["schema_hash"]

    @property
    def purpose(self) -> str:
        """What calling the tool is for, in a few words: its description's first sentence, or its name."""
        text = " ".join(self.description.split())
        match = _FIRST_SENTENCE.match(text)
        sentence = (match.group(1) if match else text[:140]).rstrip(".!? ")
        return (sentence[0].lower() + sentence[1:]) if sentence else self.name.replace("_", " ")

    def argument_hint(self, name: str, limit: int = 70) -> str:
        """The first sentence of an argument's description, shortened (empty when it has none)."""
        schema = self.properties.get(name)
        text = " ".join(str(schema.get("description", "")).split()) if isinstance(schema, dict) else ""
        match = _FIRST_SENTENCE.match(text)
        hint = (match.group(1) if match else text).rstrip(".!? ")
        return hint if len(hint) <= limit else hint[: limit - 1].rstrip() + "…"

    @property
    def required(self) -> list[str]:
        return list(self.input_schema.get("required", []))

    @property
    def properties(self) -> dict[str, Any]:
        return dict(self.input_schema.get("properties", {}))


class OutcomeClass(StrEnum):
    """How a call ended, from the caller's side of the wire."""

    OK = "ok"
    """The server answered with a result that is not flagged as an error."""
    TOOL_ERROR = "tool_error"
    """The server answered with ``isError: true``: the tool ran and reported a failure."""
    PROTOCOL_ERROR = "protocol_error"
    """A JSON-RPC error, a malformed or oversized message, or a result that violates the protocol."""
    TIMEOUT = "timeout"
    """No answer within the call timeout; the server was killed and will be restarted."""
    CRASH = "crash"
    """The server process exited or closed its pipes while the call was in flight."""


class CallOutcome(Frozen):
    """The normalised result of one ``tools/call``: what happened, bounded in size."""

    server: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    outcome: OutcomeClass
    excerpt: str = ""
    """Text content of the result (or the error message), truncated to the server's ``max_output_bytes``."""
    output_bytes: int = 0
    """Size of the full text content before truncation."""
    truncated: bool = False
    structured: dict[str, Any] | None = None
    """``structuredContent`` of the result, when the tool returned one (dropped when over the byte limit)."""
    error_code: int | None = None
    """JSON-RPC error code for protocol errors."""
    latency_ms: float = 0.0
    started_at: datetime = Field(default_factory=utcnow)
    stderr_tail: str = ""
    """The last lines the server wrote to stderr, attached when the call crashed, timed out or broke the protocol."""

    @property
    def ok(self) -> bool:
        return self.outcome is OutcomeClass.OK


class Effect(StrEnum):
    """What a call did to the state it ran on, as the verifier observed it (and the graph records)."""

    READ_ONLY = "read_only"
    MUTATING = "mutating"
    UNKNOWN = "unknown"
