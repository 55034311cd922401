"""The ``inventory`` template: items with a quantity in stock, stock added and removed.

Boundaries: unknown SKU → not found; a second item with the same SKU → already exists; SKUs have
a pattern; a quantity can never go negative (removing more than is in stock is refused) nor
above a per-item maximum; one movement is bounded; an item with stock cannot be deleted.
Data flow: ``list`` returns SKUs that the other tools take.
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
    Refusal,
    ToolDef,
    Variant,
    check_length,
    limit_arg,
    optional,
    record,
    records,
    text_arg,
)

__all__ = ["seed", "smoke", "tools"]

TYPE = "item"


class Item(BaseModel):
    sku: str
    name: str
    quantity: int
    unit_price: float


class ItemList(BaseModel):
    items: list[Item]
    total: int = Field(description="matching items before the limit was applied")


def _shape(v: Variant) -> tuple[str, str, str, bool]:
    """``(noun, plural, SKU pattern, dashed SKUs?)``."""
    noun, plural = v.pick("noun", (("item", "items"), ("product", "products"), ("article", "articles")))
    dashed = v.flag("dashed_sku")
    return noun, plural, r"^[A-Z]{3}-\d{4}$" if dashed else r"^[A-Z]{2}\d{5}$", dashed


def _sku(stem: str, number: int, dashed: bool) -> str:
    return f"{stem[:3].upper()}-{number:04d}" if dashed else f"{stem[:2].upper()}{number:05d}"


def _limits(v: Variant) -> tuple[int, int]:
    """``(max quantity per item, max units per movement)``."""
    return v.pick("quantity_max", (999, 5000, 10000)), v.pick("step_max", (100, 500, 1000))


def tools(v: Variant) -> list[ToolDef]:
    noun, plural, pattern, dashed = _shape(v)
    quantity_max, step_max = _limits(v)
    sku_name = v.pick("sku_arg", ("sku", f"{noun}_code"))

    def sku_type(examples: list[str]) -> Any:
        description = f"Stock-keeping unit of the {noun}, e.g. {examples[0]}."
        return Annotated[str, Field(pattern=pattern, description=description, examples=examples)]

    sku = Arg(
        "sku", sku_name, sku_type([_sku(stem, n, dashed) for n, (stem, *_) in enumerate(_STAPLES, start=1)])
    )
    name_type = text_arg(v, f"Display name of the {noun}", 60)
    quantity_type = Annotated[
        int, Field(ge=0, le=quantity_max, description=f"Units in stock (0-{quantity_max}).")
    ]
    amount_type = Annotated[
        int, Field(ge=1, le=step_max, description=f"Number of units to move (1-{step_max}).")
    ]
    price_type = Annotated[float, Field(ge=0, le=100_000, description="Price of one unit (0-100000).")]
    below_type = Annotated[
        int, Field(ge=0, le=quantity_max, description=f"Only {plural} with fewer units in stock than this.")
    ]
    limit_type, limit_default = limit_arg(v, plural)
    verb_in = v.pick("verb_in", ("add_stock", "restock", "receive"))
    verb_out = v.pick("verb_out", ("remove_stock", "ship", "withdraw"))

    def add(state: dict[str, Any], sku: str, name: str, quantity: int, unit_price: float) -> Item:
        check_length("name", name, 60)
        if f"{TYPE}:{sku}" in state:
            raise AlreadyExists(f"{noun} {sku!r} already exists")
        state[f"{TYPE}:{sku}"] = {"name": name, "quantity": quantity, "unit_price": unit_price}
        return Item(sku=sku, **state[f"{TYPE}:{sku}"])

    def get(state: dict[str, Any], sku: str) -> Item:
        return Item(sku=sku, **record(state, TYPE, sku, noun))

    def stock_in(state: dict[str, Any], sku: str, amount: int) -> Item:
        found = record(state, TYPE, sku, noun)
        after = found["quantity"] + amount
        if after > quantity_max:
            raise OutOfRange(
                f"quantity of {sku!r} would be {after}, above the maximum of {quantity_max} units per {noun}"
            )
        found["quantity"] = after
        return Item(sku=sku, **found)

    def stock_out(state: dict[str, Any], sku: str, amount: int) -> Item:
        found = record(state, TYPE, sku, noun)
        if amount > found["quantity"]:
            raise OutOfRange(
                f"insufficient stock of {sku!r}: {found['quantity']} on hand, cannot remove {amount} "
                "(quantity cannot go negative)"
            )
        found["quantity"] -= amount
        return Item(sku=sku, **found)

    def list_(state: dict[str, Any], below: int | None, limit: int) -> ItemList:
        found = [
            Item(sku=s, **i)
            for s, i in records(state, TYPE).items()
            if below is None or i["quantity"] < below
        ]
        return ItemList(items=found[:limit], total=len(found))

    def delete(state: dict[str, Any], sku: str) -> Deleted:
        found = record(state, TYPE, sku, noun)
        if found["quantity"]:
            raise Refusal(
                f"cannot delete {noun} {sku!r} while {found['quantity']} units are in stock; "
                "remove them first"
            )
        del state[f"{TYPE}:{sku}"]
        return Deleted(id=sku)

    made = [
        ToolDef(
            v.tool_name("add", noun),
            f"Register a new {noun} under its SKU with a name, an initial quantity and a unit price.",
            (
                Arg("sku", sku_name, sku_type([_sku("Torch", 90, dashed), _sku("Ladder", 91, dashed)])),
                Arg("name", "name", name_type),
                Arg("quantity", "quantity", quantity_type, 0),
                Arg("unit_price", v.pick("price_arg", ("unit_price", "price")), price_type, 0.0),
            ),
            body=add,
            returns=Item,
            action="add",
            read_only=False,
        ),
        ToolDef(
            v.tool_name("get", noun),
            f"Read one {noun}: name, quantity in stock and unit price.",
            (sku,),
            body=get,
            returns=Item,
            action="get",
            read_only=True,
        ),
        ToolDef(
            verb_in,
            f"Add units to the stock of one {noun}; the quantity may not exceed {quantity_max}.",
            (sku, Arg("amount", "amount", amount_type)),
            body=stock_in,
            returns=Item,
            action="stock_in",
            read_only=False,
        ),
        ToolDef(
            verb_out,
            f"Take units out of the stock of one {noun}; the quantity cannot go below zero.",
            (sku, Arg("amount", "amount", amount_type)),
            body=stock_out,
            returns=Item,
            action="stock_out",
            read_only=False,
        ),
        ToolDef(
            v.tool_name("list", plural),
            f"List {plural} in SKU order, optionally only those running low.",
            (
                Arg("below", v.pick("below_arg", ("below", "low_stock_below")), optional(below_type), None),
                Arg("limit", "limit", limit_type, limit_default),
            ),
            body=list_,
            returns=ItemList,
            action="list",
            read_only=True,
        ),
    ]
    if v.flag("has_delete"):
        made.append(
            ToolDef(
                v.tool_name("delete", noun),
                f"Delete one {noun} that has no stock left.",
                (sku,),
                body=delete,
                returns=Deleted,
                action="delete",
                read_only=False,
                destructive=True,
            )
        )
    return made


def smoke(v: Variant) -> tuple[str, dict[str, Any]]:
    return v.tool_name("list", _shape(v)[1]), {}


_STAPLES = (("Cordless drill", 89.0, 40), ("Box of screws", 6.5, 3))
"""Items every seed state holds (the schemas' examples name them): one well stocked, one nearly out."""
_GOODS = (
    ("Claw hammer", 19.9),
    ("Measuring tape", 8.0),
    ("Safety goggles", 12.5),
    ("Paint roller", 7.25),
    ("Spirit level", 24.0),
    ("Work gloves", 9.99),
)


def seed(v: Variant, rng: random.Random) -> dict[str, Any]:
    dashed = _shape(v)[3]
    quantity_max, _ = _limits(v)
    state: dict[str, Any] = {}
    for number, (name, price, quantity) in enumerate(_STAPLES, start=1):
        state[f"{TYPE}:{_sku(name, number, dashed)}"] = {
            "name": name,
            "quantity": quantity,
            "unit_price": price,
        }
    for number, (name, price) in enumerate(rng.sample(_GOODS, rng.randint(1, 4)), start=len(_STAPLES) + 1):
        quantity = rng.choice((0, 12, 150, min(quantity_max, 900)))
        state[f"{TYPE}:{_sku(name, number, dashed)}"] = {
            "name": name,
            "quantity": quantity,
            "unit_price": price,
        }
    return state
