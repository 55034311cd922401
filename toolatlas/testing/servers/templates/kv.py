"""The ``kv`` template: a key-value store without expiry: put, get, delete and list keys.

Boundaries: unknown key → not found; putting an existing key without ``overwrite`` → already
exists; keys have a pattern and a length limit; values have a size limit in UTF-8 *bytes* (so a
value of few but wide characters passes the schema and is still refused); the store holds a
bounded number of keys. Data flow: ``list`` returns keys that ``get``/``delete`` take.
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
    limit_arg,
    record,
    records,
)

__all__ = ["seed", "smoke", "tools"]

TYPE = "key"
KEY_PATTERN = r"^[A-Za-z0-9_.:/-]+$"
SEEDED = {"config/theme": "dark", "user:42:name": "Ada Lovelace"}
"""Keys every seed state holds (the schemas' examples name them)."""


class Entry(BaseModel):
    key: str
    value: str
    version: int = Field(description="how many times the key was written")
    size_bytes: int


class KeyList(BaseModel):
    keys: list[str]
    total: int = Field(description="matching keys before the limit was applied")


class KeyPresence(BaseModel):
    key: str
    exists: bool


def _limits(v: Variant) -> tuple[int, int, int]:
    """``(max key length, max value bytes, max keys)``."""
    return (
        v.pick("key_max", (32, 64, 128)),
        v.pick("value_max", (256, 1024, 4096)),
        v.pick("keys_max", (50, 100, 200)),
    )


def _noun(v: Variant) -> str:
    return v.pick("noun", ("key", "entry", "value"))


def tools(v: Variant) -> list[ToolDef]:
    key_max, value_max, keys_max = _limits(v)
    noun = _noun(v)

    def key_type(examples: list[str]) -> Any:
        return Annotated[
            str,
            Field(
                min_length=1,
                max_length=key_max,
                pattern=KEY_PATTERN,
                description=f"The key: letters, digits and _ . : / - (1-{key_max} characters), "
                f"e.g. {examples[0]}.",
                examples=examples,
            ),
        ]

    value_bounds = {"max_length": value_max} if v.strict_schema else {}
    value_type = Annotated[
        str,
        Field(
            description=f"The value to store, at most {value_max} bytes once UTF-8 encoded.", **value_bounds
        ),
    ]
    overwrite_name = v.pick("overwrite_arg", ("overwrite", "replace"))
    overwrite_type = Annotated[bool, Field(description="Replace the value when the key already exists.")]
    prefix_type = Annotated[
        str, Field(max_length=key_max, description="Only keys starting with this prefix.")
    ]
    limit_type, limit_default = limit_arg(v, "keys")
    verb_put = v.pick("verb_put", ("put", "set", "store"))
    verb_get = v.pick("verb_get", ("get", "fetch", "read"))

    def put(state: dict[str, Any], key: str, value: str, overwrite: bool) -> Entry:
        size = len(value.encode("utf-8"))
        if size > value_max:
            raise OutOfRange(f"value is {size} bytes; the maximum value size is {value_max} bytes")
        existing = state.get(f"{TYPE}:{key}")
        if existing is not None and not overwrite:
            raise AlreadyExists(
                f"key {key!r} already exists; pass {overwrite_name}=true to replace its value"
            )
        if existing is None and len(records(state, TYPE)) >= keys_max:
            raise OutOfRange(f"the store is full: it holds at most {keys_max} keys")
        version = existing["version"] + 1 if existing else 1
        state[f"{TYPE}:{key}"] = {"value": value, "version": version}
        return Entry(key=key, value=value, version=version, size_bytes=size)

    def get(state: dict[str, Any], key: str) -> Entry:
        found = record(state, TYPE, key, "key")
        return Entry(
            key=key, value=found["value"], version=found["version"], size_bytes=len(found["value"].encode())
        )

    def delete(state: dict[str, Any], key: str) -> Deleted:
        record(state, TYPE, key, "key")
        del state[f"{TYPE}:{key}"]
        return Deleted(id=key)

    def list_(state: dict[str, Any], prefix: str, limit: int) -> KeyList:
        keys = [k for k in records(state, TYPE) if k.startswith(prefix)]
        return KeyList(keys=keys[:limit], total=len(keys))

    def exists(state: dict[str, Any], key: str) -> KeyPresence:
        return KeyPresence(key=key, exists=f"{TYPE}:{key}" in state)

    key = Arg("key", "key", key_type(list(SEEDED)))
    made = [
        ToolDef(
            v.tool_name(verb_put, noun) if noun != "key" else verb_put,
            f"Store a value under a key. Values are at most {value_max} bytes; an existing key is only "
            f"replaced with {overwrite_name}=true. The store holds at most {keys_max} keys.",
            (
                Arg("key", "key", key_type(["config/timezone", "user:43:name"])),
                Arg("value", "value", value_type),
                Arg("overwrite", overwrite_name, overwrite_type, False),
            ),
            body=put,
            returns=Entry,
            action="put",
            read_only=False,
        ),
        ToolDef(
            v.tool_name(verb_get, noun) if noun != "key" else verb_get,
            "Read the value stored under a key, with its version and size.",
            (key,),
            body=get,
            returns=Entry,
            action="get",
            read_only=True,
        ),
        ToolDef(
            v.tool_name(v.pick("verb_delete", ("delete", "remove")), noun) if noun != "key" else "delete",
            "Delete a key and its value.",
            (key,),
            body=delete,
            returns=Deleted,
            action="delete",
            read_only=False,
            destructive=True,
        ),
        ToolDef(
            v.tool_name("list", "keys"),
            "List keys in sorted order, optionally only those with a prefix.",
            (Arg("prefix", "prefix", prefix_type, ""), Arg("limit", "limit", limit_type, limit_default)),
            body=list_,
            returns=KeyList,
            action="list",
            read_only=True,
        ),
    ]
    if v.flag("has_exists"):
        made.append(
            ToolDef(
                v.tool_name("has", "key"),
                "Check whether a key exists, without reading its value.",
                (key,),
                body=exists,
                returns=KeyPresence,
                action="exists",
                read_only=True,
            )
        )
    return made


def smoke(v: Variant) -> tuple[str, dict[str, Any]]:
    return v.tool_name("list", "keys"), {}


_PAIRS = (
    ("config/language", "en-GB"),
    ("user:42:email", "ada@example.org"),
    ("feature.flags", '{"beta_search": true, "new_editor": false}'),
    ("cache/homepage", "<h1>Welcome</h1>"),
    ("session_7f3a", "expires=2030-01-01"),
    ("build.version", "4.2.1"),
)


def seed(v: Variant, rng: random.Random) -> dict[str, Any]:
    pairs = [*SEEDED.items(), *rng.sample(_PAIRS, rng.randint(1, 4))]
    return {f"{TYPE}:{k}": {"value": val, "version": 1} for k, val in sorted(pairs)}
