"""The parts every stateful server template shares: variants, tool definitions, refusals, records.

A template is a function ``tools(variant) -> list[ToolDef]``. A :class:`ToolDef` is plain data
(public name, description, typed arguments, annotations) plus a ``body`` that works on the whole
JSON state document. It knows nothing of MCP: :mod:`toolatlas.testing.servers.stateful`
registers it with the SDK, reads the state before the call and writes it back after a mutating
one, and turns a :class:`Refusal` into the tool error the client sees.

The state document is one JSON object whose top-level keys are records, ``"<type>:<id>"``
(``"note:nt-0003"``), plus ``"meta"`` for id sequences — so a state digest says exactly which
record a call added, changed or removed.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, get_args

from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

__all__ = [
    "REQUIRED",
    "AlreadyExists",
    "Arg",
    "Deleted",
    "NotFound",
    "OutOfRange",
    "Refusal",
    "ToolDef",
    "Variant",
    "check_length",
    "limit_arg",
    "new_id",
    "optional",
    "record",
    "records",
    "text_arg",
]

REQUIRED: Any = inspect.Parameter.empty
"""Default of an argument the caller must give."""


# -- refusals: the tool errors a prober should find -------------------------------------------------


class Refusal(Exception):
    """A call the server refuses; its message is what the client reads in the tool error."""


class NotFound(Refusal):
    """The call names a record that does not exist."""


class AlreadyExists(Refusal):
    """The call would create a record that already exists."""


class OutOfRange(Refusal):
    """A value, or the state a call would produce, lies outside the allowed range."""


# -- variants ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One deterministic variation of a template: names, phrasing, argument sets and limits.

    Every knob is drawn independently from a hash of ``(kind, number, knob)``, so the same
    number always gives the same server and neighbouring numbers differ in several ways.
    """

    kind: str
    number: int

    def pick(self, knob: str, options: Sequence[Any]) -> Any:
        digest = hashlib.sha256(f"{self.kind}:{self.number}:{knob}".encode()).digest()
        return options[int.from_bytes(digest[:8], "big") % len(options)]

    def flag(self, knob: str) -> bool:
        return bool(self.pick(knob, (False, True)))

    @property
    def style(self) -> str:
        """How tool names are spelled: ``verb_noun``, ``noun_verb`` or ``verbNoun``."""
        return self.pick("style", ("verb_noun", "verb_noun", "noun_verb", "camel"))

    @property
    def strict_schema(self) -> bool:
        """String length limits are in the JSON Schema (else only in the description, checked by the body)."""
        return self.flag("strict_schema")

    def tool_name(self, verb: str, noun: str) -> str:
        match self.style:
            case "noun_verb":
                return f"{noun}_{verb}"
            case "camel":
                return verb + noun[:1].upper() + noun[1:]
        return f"{verb}_{noun}"


# -- tool definitions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Arg:
    """One tool argument: the public ``name`` a variant gives it, and the ``role`` the body receives."""

    role: str
    name: str
    type: Any
    """The annotation, usually ``Annotated[T, Field(description=..., bounds...)]``."""
    default: Any = REQUIRED


@dataclass(frozen=True)
class ToolDef:
    """One tool of a template, ready to register with any MCP server SDK."""

    action: str = field(kw_only=True)
    """What the tool does in the template, the same in every variant (``create``, ``get``, ``list``...)."""
    name: str
    description: str
    args: tuple[Arg, ...]
    body: Callable[..., BaseModel]
    """``body(state, **roles)``; mutates ``state`` in place; raises :class:`Refusal`."""
    returns: type[BaseModel]
    read_only: bool
    destructive: bool = False
    idempotent: bool = False


class Deleted(BaseModel):
    """What a delete reports."""

    id: str
    deleted: bool = True


# -- arguments shared by the templates ---------------------------------------------------------------


def text_arg(variant: Variant, description: str, max_length: int, *, min_length: int = 1) -> Any:
    """A string with a length range: in the schema when the variant is strict, else only described."""
    span = f"{min_length}-{max_length} characters" if min_length else f"at most {max_length} characters"
    bounds: dict[str, Any] = {"min_length": min_length, "max_length": max_length} if variant.strict_schema else {}
    return Annotated[str, Field(description=f"{description} ({span}).", **bounds)]


def optional(annotation: Any) -> Any:
    """``annotation | None`` with its description lifted to the top, where clients look for it."""
    description = next((m.description for m in get_args(annotation)[1:] if isinstance(m, FieldInfo)), None)
    return Annotated[annotation | None, Field(description=description)]


def limit_arg(variant: Variant, noun_plural: str) -> tuple[Any, int]:
    """``(annotation, default)`` of the usual page-size argument, with a variant maximum."""
    maximum = variant.pick("limit_max", (20, 50, 100))
    default = min(10, maximum)
    annotation = Annotated[
        int, Field(ge=1, le=maximum, description=f"Maximum number of {noun_plural} to return (1-{maximum}).")
    ]
    return annotation, default


def check_length(label: str, value: str, max_length: int, *, min_length: int = 1) -> str:
    """Refuse a string outside its length range with a message naming the limit."""
    if len(value) < min_length:
        raise OutOfRange(f"{label} must not be empty" if min_length == 1 else f"{label} is too short")
    if len(value) > max_length:
        raise OutOfRange(f"{label} is too long: {len(value)} characters, the maximum is {max_length}")
    return value


# -- records in the state document -------------------------------------------------------------------


def records(state: dict[str, Any], type_: str) -> dict[str, dict[str, Any]]:
    """``id → record`` of one record type, in id order."""
    prefix = f"{type_}:"
    return {key[len(prefix) :]: value for key, value in sorted(state.items()) if key.startswith(prefix)}


def record(state: dict[str, Any], type_: str, record_id: str, noun: str) -> dict[str, Any]:
    """The record, or :class:`NotFound` naming it."""
    found = state.get(f"{type_}:{record_id}")
    if not isinstance(found, dict):
        raise NotFound(f"{noun} {record_id!r} not found")
    return found


def new_id(state: dict[str, Any], prefix: str) -> str:
    """The next id of a sequence (``nt-0004``), deterministic for a given state."""
    meta = state.setdefault("meta", {})
    number = int(meta.get(prefix, 0)) + 1
    meta[prefix] = number
    return f"{prefix}-{number:04d}"
