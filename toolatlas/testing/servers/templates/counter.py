"""The ``counter`` template: named counters with bounds, incremented, decremented and reset.

Boundaries: unknown name → not found; a second counter with the same name → already exists;
names have a pattern; a counter never leaves its ``[minimum, maximum]`` (a step past a bound is
refused); ``minimum`` must lie below ``maximum`` and the initial value between them; one step
is bounded. Data flow: ``list`` returns names that the other tools take.
"""

from __future__ import annotations

import random
from typing import Annotated, Any

from pydantic import BaseModel, Field

from toolatlas.testing.servers.templates.base import (
    AlreadyExists,
    Arg,
    Deleted,
    OutOfRange,
    ToolDef,
    Variant,
    optional,
    record,
    records,
)

__all__ = ["seed", "smoke", "tools"]

TYPE = "counter"
NAME_PATTERN = r"^[a-z][a-z0-9_]{0,31}$"
BOUND = 1_000_000


class Counter(BaseModel):
    name: str
    value: int
    minimum: int
    maximum: int
    initial: int


class CounterList(BaseModel):
    counters: list[Counter]


def _noun(v: Variant) -> tuple[str, str]:
    return v.pick("noun", (("counter", "counters"), ("gauge", "gauges"), ("tally", "tallies")))


def tools(v: Variant) -> list[ToolDef]:
    noun, plural = _noun(v)
    step_max = v.pick("step_max", (10, 100, 1000))
    default_max = v.pick("default_max", (100, 1000, 10_000))

    def name_type(examples: list[str]) -> Any:
        description = f"Name of the {noun}: lower-case letters, digits and _ (max 32), e.g. {examples[0]}."
        return Annotated[str, Field(pattern=NAME_PATTERN, description=description, examples=examples)]

    name_arg = v.pick("name_arg", ("name", f"{noun}_name"))
    name = Arg("name", name_arg, name_type([n for n, *_ in _STAPLES]))
    low_type = Annotated[
        int,
        Field(ge=-BOUND, le=BOUND, description=f"Lowest value the {noun} may take (-{BOUND} to {BOUND})."),
    ]
    high_type = Annotated[
        int,
        Field(ge=-BOUND, le=BOUND, description=f"Highest value the {noun} may take (-{BOUND} to {BOUND})."),
    ]
    step_type = Annotated[
        int, Field(ge=1, le=step_max, description=f"How much to change the value by (1-{step_max}).")
    ]
    initial_type = Annotated[
        int, Field(description="Starting value, between minimum and maximum (default: minimum).")
    ]
    step = Arg("step", v.pick("step_arg", ("by", "amount", "step")), step_type, 1)

    def create(state: dict[str, Any], name: str, minimum: int, maximum: int, initial: int | None) -> Counter:
        if f"{TYPE}:{name}" in state:
            raise AlreadyExists(f"{noun} {name!r} already exists")
        if minimum >= maximum:
            raise OutOfRange(f"minimum ({minimum}) must be less than maximum ({maximum})")
        start = minimum if initial is None else initial
        if not minimum <= start <= maximum:
            raise OutOfRange(f"initial value {start} is out of range [{minimum}, {maximum}]")
        state[f"{TYPE}:{name}"] = {"value": start, "minimum": minimum, "maximum": maximum, "initial": start}
        return Counter(name=name, **state[f"{TYPE}:{name}"])

    def get(state: dict[str, Any], name: str) -> Counter:
        return Counter(name=name, **record(state, TYPE, name, noun))

    def move(sign: int) -> Any:
        def body(state: dict[str, Any], name: str, step: int) -> Counter:
            found = record(state, TYPE, name, noun)
            after = found["value"] + sign * step
            if after > found["maximum"]:
                raise OutOfRange(f"{noun} {name!r} would reach {after}, above its maximum {found['maximum']}")
            if after < found["minimum"]:
                raise OutOfRange(f"{noun} {name!r} would reach {after}, below its minimum {found['minimum']}")
            found["value"] = after
            return Counter(name=name, **found)

        return body

    def reset(state: dict[str, Any], name: str) -> Counter:
        found = record(state, TYPE, name, noun)
        found["value"] = found["initial"]
        return Counter(name=name, **found)

    def list_(state: dict[str, Any]) -> CounterList:
        return CounterList(counters=[Counter(name=n, **c) for n, c in records(state, TYPE).items()])

    def delete(state: dict[str, Any], name: str) -> Deleted:
        record(state, TYPE, name, noun)
        del state[f"{TYPE}:{name}"]
        return Deleted(id=name)

    made = [
        ToolDef(
            v.tool_name("create", noun),
            f"Create a {noun} that stays within [minimum, maximum] (default 0 to {default_max}).",
            (
                Arg("name", name_arg, name_type(["signups", "errors_today"])),
                Arg("minimum", "minimum", low_type, 0),
                Arg("maximum", "maximum", high_type, default_max),
                Arg("initial", "initial", optional(initial_type), None),
            ),
            body=create,
            returns=Counter,
            action="create",
            read_only=False,
        ),
        ToolDef(
            v.tool_name("get", noun),
            f"Read a {noun}'s value and bounds.",
            (name,),
            body=get,
            returns=Counter,
            action="get",
            read_only=True,
        ),
        ToolDef(
            v.tool_name("increment", noun),
            f"Increase a {noun}; a step past its maximum is refused.",
            (name, step),
            body=move(+1),
            returns=Counter,
            action="increment",
            read_only=False,
        ),
        ToolDef(
            v.tool_name("decrement", noun),
            f"Decrease a {noun}; a step past its minimum is refused.",
            (name, step),
            body=move(-1),
            returns=Counter,
            action="decrement",
            read_only=False,
        ),
        ToolDef(
            v.tool_name("reset", noun),
            f"Set a {noun} back to its initial value.",
            (name,),
            body=reset,
            returns=Counter,
            action="reset",
            read_only=False,
            idempotent=True,
        ),
        ToolDef(
            v.tool_name("list", plural),
            f"List all {plural} with values and bounds.",
            (),
            body=list_,
            returns=CounterList,
            action="list",
            read_only=True,
        ),
    ]
    if v.flag("has_delete"):
        made.append(
            ToolDef(
                v.tool_name("delete", noun),
                f"Delete a {noun}.",
                (name,),
                body=delete,
                returns=Deleted,
                action="delete",
                read_only=False,
                destructive=True,
            )
        )
    return made


def smoke(v: Variant) -> tuple[str, dict[str, Any]]:
    return v.tool_name("list", _noun(v)[1]), {}


_STAPLES = (("page_views", 0, 1_000_000), ("open_tickets", 0, 500))
"""Counters every seed state holds (the schemas' examples name them)."""
_COUNTERS = (
    ("retries", 0, 5),
    ("temperature", -40, 60),
    ("queue_depth", 0, 1000),
    ("seats_left", 0, 120),
    ("stock_level", 0, 250),
    ("score", -100, 100),
)


def seed(v: Variant, rng: random.Random) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for name, low, high in [*_STAPLES, *rng.sample(_COUNTERS, rng.randint(1, 3))]:
        value = rng.randint(low, min(high, low + 50))
        state[f"{TYPE}:{name}"] = {"value": value, "minimum": low, "maximum": high, "initial": low}
    return state
