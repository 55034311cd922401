"""Semantic argument kinds: what a tool argument *means*, inferred from its schema, name and words.

JSON Schema says ``path`` is a string; a prober needs to know it is an existing file to read,
a new file to create, or the directory to search in. :func:`infer_arguments` turns a tool's
input schema into :class:`ArgSpec` s with an :class:`ArgKind`, read from (in this order) the
schema's ``enum``/``format``/bounds, the property name split into words (``repo_path``,
``entityName``), its description, and the tool's own name and description. :func:`tool_effect`
and :func:`tool_object` say what a tool does to what, for planning chains.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from pydantic import Field

from toolatlas.models import Frozen, ToolSpec, derived, per_tool
from toolatlas.offline.words import (
    EFFECT_VERBS,
    OBJECT_WORDS,
    antonyms,
    implicit_choices,
    kind_for_string,
    sql_statements_in,
    tokens,
    tool_tokens,
)

__all__ = [
    "ArgKind",
    "ArgSpec",
    "ToolEffect",
    "ToolObject",
    "infer_arguments",
    "sql_statement_kind",
    "tool_effect",
    "tool_object",
]


class ArgKind(StrEnum):
    """What an argument's value means (one value per argument, the most specific that fits)."""

    FILE_PATH = "file_path"
    DIR_PATH = "dir_path"
    PATH = "path"
    """An existing file or directory."""
    NEW_PATH = "new_path"
    """A path the call creates (or overwrites)."""
    REPO_PATH = "repo_path"
    SQL = "sql"
    """Any statement."""
    SQL_QUERY_READ = "sql_query_read"
    SQL_QUERY_WRITE = "sql_query_write"
    SQL_DDL = "sql_ddl"
    TIMEZONE = "timezone"
    TIME_OF_DAY = "time_of_day"
    DATETIME = "datetime"
    DATE = "date"
    URL = "url"
    EMAIL = "email"
    UUID = "uuid"
    IDENTIFIER = "identifier"
    """The name or id of some existing (or, with ``fresh``, new) thing."""
    BRANCH = "branch"
    REVISION = "revision"
    ENTITY_NAME = "entity_name"
    ENTITY_TYPE = "entity_type"
    RELATION_TYPE = "relation_type"
    OBSERVATION = "observation"
    TABLE_NAME = "table_name"
    COLUMN_NAME = "column_name"
    SCHEMA_NAME = "schema_name"
    TEXT = "text"
    """Free content: a file body, a message, a note."""
    EXISTING_TEXT = "existing_text"
    """A verbatim excerpt of existing content (the "old" text of a search-and-replace)."""
    SEARCH_QUERY = "search_query"
    GLOB = "glob"
    REGEX = "regex"
    ENUM = "enum"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    STRING = "string"
    ARRAY = "array"
    OBJECT = "object"
    JSON = "json"
    ANY = "any"


SQL_KINDS = frozenset({ArgKind.SQL, ArgKind.SQL_QUERY_READ, ArgKind.SQL_QUERY_WRITE, ArgKind.SQL_DDL})
PATH_KINDS = frozenset(
    {ArgKind.FILE_PATH, ArgKind.DIR_PATH, ArgKind.PATH, ArgKind.NEW_PATH, ArgKind.REPO_PATH}
)


class ToolEffect(StrEnum):
    READ = "read"
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"
    UNKNOWN = "unknown"


class ToolObject(StrEnum):
    """The kind of thing a tool acts on."""

    FILE = "file"
    DIRECTORY = "directory"
    TABLE = "table"
    ROW = "row"
    SCHEMA = "schema"
    DATABASE = "database"
    QUERY = "query"
    INDEX = "index"
    BRANCH = "branch"
    COMMIT = "commit"
    TAG = "tag"
    DIFF = "diff"
    REPOSITORY = "repository"
    ENTITY = "entity"
    RELATION = "relation"
    OBSERVATION = "observation"
    GRAPH = "graph"
    TIME = "time"
    NOTE = "note"
    UNKNOWN = "unknown"


class ArgSpec(Frozen):
    """One argument (or array item / object property) with its inferred meaning and constraints."""

    name: str
    path: str
    """Where it sits in the arguments: ``edits[].oldText``."""
    json_type: str
    kind: ArgKind
    required: bool = False
    nullable: bool = False
    fresh: bool = False
    """The value names something the call creates (a new branch, entity, table, file)."""
    target: ToolObject | None = None
    """What a path or name refers to."""
    enum: list[Any] = Field(default_factory=list)
    enum_from_description: bool = False
    """The choices were read from the description ("'local', 'remote' or 'all'"), not the schema."""
    examples: list[Any] = Field(default_factory=list)
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    exclusive_maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    has_default: bool = False
    default: Any = None
    format: str | None = None
    description: str = ""
    count_like: bool = False
    """A non-negative count or size (lines, limit, max_count)."""
    sql_statements: list[str] = Field(default_factory=list)
    """Statement kinds an SQL argument accepts: ``select``, ``insert``, ``update``, ``delete``, ``ddl``."""
    excludes: list[str] = Field(default_factory=list)
    """Sibling arguments that must not be given together with this one."""
    additional_properties: bool = True
    items: ArgSpec | None = None
    properties: list[ArgSpec] = Field(default_factory=list)

    def prop(self, name: str) -> ArgSpec | None:
        return next((p for p in self.properties if p.name == name), None)


def sql_statement_kind(text: str) -> str:
    """``select``, ``insert``, ``update``, ``delete``, ``ddl`` or ``other`` for one SQL statement."""
    body = re.sub(r"--[^\n]*|/\*.*?\*/", " ", text, flags=re.DOTALL).strip().lstrip("(").lower()
    first = body.split(None, 1)[0] if body else ""
    if first == "with":  # a CTE: the statement kind is the first top-level verb after it
        verbs = re.findall(r"\)\s*(select|insert|update|delete)\b", body)
        return verbs[0] if verbs else "select"
    if first in ("select", "values", "table", "explain", "show", "pragma"):
        return "select"
    if first in ("insert", "replace", "upsert"):
        return "insert"
    if first in ("update", "delete"):
        return first
    if first in ("create", "alter", "drop", "truncate", "rename", "comment"):
        return "ddl"
    return "other"


# -- tools ------------------------------------------------------------------------------------

_ARG_OBJECTS: dict[ArgKind, ToolObject] = {
    ArgKind.BRANCH: ToolObject.BRANCH,
    ArgKind.REVISION: ToolObject.COMMIT,
    ArgKind.FILE_PATH: ToolObject.FILE,
    ArgKind.DIR_PATH: ToolObject.DIRECTORY,
    ArgKind.TABLE_NAME: ToolObject.TABLE,
    ArgKind.ENTITY_NAME: ToolObject.ENTITY,
    ArgKind.REPO_PATH: ToolObject.REPOSITORY,
}


@per_tool
def tool_effect(tool: ToolSpec) -> ToolEffect:
    """Whether a tool reads, creates, updates or deletes, from its annotations and the verb in its name."""
    if tool.annotations.read_only:
        return ToolEffect.READ
    for word in tool_tokens(tool):
        effect = EFFECT_VERBS.get(word)
        if effect is None:
            continue
        if word == "write":
            return ToolEffect.CREATE if tool.description.lower().startswith("create") else ToolEffect.UPDATE
        return ToolEffect(effect)
    if tool.annotations.destructive:
        return ToolEffect.UPDATE
    if tool.annotations.read_only is False:
        return ToolEffect.UPDATE
    return ToolEffect.UNKNOWN


@per_tool
def tool_object(tool: ToolSpec) -> ToolObject:
    """The kind of thing a tool acts on: from its name, else from its arguments."""
    named = named_object(tool)
    if named is not None:
        return named
    found: list[ToolObject] = []
    for spec in infer_arguments(tool, _with_object=ToolObject.UNKNOWN):
        kind = spec.items.kind if spec.items is not None else spec.kind
        if kind in _ARG_OBJECTS:
            found.append(_ARG_OBJECTS[kind])
        elif kind in SQL_KINDS:
            found.append(ToolObject.ROW)
    # the repository an argument lives in is the object only when nothing more specific is named
    specific = [o for o in found if o is not ToolObject.REPOSITORY]
    return (specific or found or [ToolObject.UNKNOWN])[0]


@per_tool
def named_object(tool: ToolSpec) -> ToolObject | None:
    """The object a tool's name mentions (``create_branch`` → branch), if any."""
    words = tool_tokens(tool)
    for word in words:
        found = ToolObject(OBJECT_WORDS[word]) if word in OBJECT_WORDS else None
        if found is ToolObject.QUERY and any(w in ("read", "write", "execute", "run") for w in words):
            return ToolObject.ROW  # read_query / write_query / execute_sql act on rows
        if found is not None:
            return found
    return None


# -- arguments ----------------------------------------------------------------------------------


class _Context:
    """What the tool as a whole says about its arguments."""

    def __init__(self, tool: ToolSpec, obj: ToolObject | None) -> None:
        self.tool = tool
        self.words = tool_tokens(tool)
        self.text = f"{tool.name} {tool.description}".lower()
        self.effect = tool_effect(tool)
        self.object = obj if obj is not None else tool_object(tool)
        named = named_object(tool)
        self.named_object = named.value if named is not None else None
        self.defs = dict(tool.input_schema.get("$defs") or tool.input_schema.get("definitions") or {})
        self.sql = bool(
            re.search(
                r"\bsql\b|\bselect\b|\binsert\b|create table|\bdatabase\b|\bquer(y|ies)\b.*\btable", self.text
            )
        )
        self.git = bool(re.search(r"\bgit\b|\bcommit|\bbranch", self.text)) or any(
            "repo" in tokens(p) or "repository" in tokens(p) for p in tool.properties
        )


_CACHE: dict[tuple[str, ...], list[ArgSpec]] = {}
_CACHE_SIZE = 4096


def infer_arguments(tool: ToolSpec, *, _with_object: ToolObject | None = None) -> list[ArgSpec]:
    """One :class:`ArgSpec` per top-level argument, in schema order, with nested items and properties."""
    memo = derived(tool)
    known = memo.get(f"arguments:{_with_object}")
    if known is not None:
        return list(known)
    key = (
        tool.server,
        tool.schema_hash,
        tool.description,
        *(repr(v) for v in tool.annotations.__dict__.values()),
        _with_object.value if _with_object else "",
    )
    cached = _CACHE.get(key)
    if cached is not None:
        memo[f"arguments:{_with_object}"] = cached
        return list(cached)
    ctx = _Context(tool, _with_object)
    required = set(tool.required)
    specs = [_infer(name, prop, name in required, ctx, name, None) for name, prop in tool.properties.items()]
    specs = _mark_alternatives(specs, ctx)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = memo[f"arguments:{_with_object}"] = specs
    return list(specs)


def _resolve(schema: Any, ctx: _Context) -> tuple[dict[str, Any], bool]:
    """Inline ``$ref``, unwrap ``anyOf``/``oneOf`` with ``null``: the schema and whether null is allowed."""
    if not isinstance(schema, dict):
        return {}, False
    if "$ref" in schema:
        ref = str(schema["$ref"]).rsplit("/", 1)[-1]
        merged = {**ctx.defs.get(ref, {}), **{k: v for k, v in schema.items() if k != "$ref"}}
        return _resolve(merged, ctx)
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            if len(non_null) == 1:
                inner, _ = _resolve(non_null[0], ctx)
                outer = {k: v for k, v in schema.items() if k != key}
                return {**inner, **outer}, len(non_null) < len(options)
    kind = schema.get("type")
    if isinstance(kind, list):
        non_null = [t for t in kind if t != "null"]
        return {**schema, "type": non_null[0] if non_null else "null"}, "null" in kind
    return schema, False


def _infer(name: str, raw: Any, required: bool, ctx: _Context, path: str, parent: str | None) -> ArgSpec:
    schema, nullable = _resolve(raw, ctx)
    json_type = str(schema.get("type") or ("object" if "properties" in schema else "any"))
    description = str(schema.get("description") or schema.get("title") or "")
    words = tokens(name)
    common: dict[str, Any] = {
        "name": name,
        "path": path,
        "json_type": json_type,
        "required": required,
        "nullable": nullable,
        "description": description,
        "format": schema.get("format"),
        "has_default": "default" in schema,
        "default": schema.get("default"),
        "minimum": schema.get("minimum"),
        "maximum": schema.get("maximum"),
        "exclusive_minimum": _bound(schema.get("exclusiveMinimum"), schema.get("minimum")),
        "exclusive_maximum": _bound(schema.get("exclusiveMaximum"), schema.get("maximum")),
        "min_length": schema.get("minLength"),
        "max_length": schema.get("maxLength"),
        "min_items": schema.get("minItems"),
        "max_items": schema.get("maxItems"),
        "examples": list(schema.get("examples") or []),
    }
    if "const" in schema:
        return ArgSpec(**common, kind=ArgKind.ENUM, enum=[schema["const"]])
    if isinstance(schema.get("enum"), list):
        return ArgSpec(**common, kind=ArgKind.ENUM, enum=list(schema["enum"]))
    if json_type == "boolean":
        return ArgSpec(**common, kind=ArgKind.BOOLEAN)
    if json_type in ("integer", "number"):
        kind = ArgKind.INTEGER if json_type == "integer" else ArgKind.NUMBER
        return ArgSpec(**common, kind=kind, count_like=_count_like(words, description))
    if json_type == "array":
        item_schema, _ = _resolve(schema.get("items") or {}, ctx)
        if not item_schema.get("description") and description:
            item_schema = {**item_schema, "description": description}  # "An array of entity names"
        item = _infer(parent_singular(name), item_schema, True, ctx, f"{path}[]", name)
        return ArgSpec(**common, kind=ArgKind.ARRAY, items=item, target=item.target, fresh=item.fresh)
    if json_type == "object":
        props = schema.get("properties") or {}
        needed = set(schema.get("required") or [])
        children = [_infer(k, v, k in needed, ctx, f"{path}.{k}", name) for k, v in props.items()]
        extra = schema.get("additionalProperties", True) is not False
        return ArgSpec(
            **common,
            kind=ArgKind.OBJECT,
            properties=_mark_alternatives(children, ctx),
            additional_properties=extra,
        )
    if json_type not in ("string", "any"):
        return ArgSpec(**common, kind=ArgKind.ANY)
    choices, examples = implicit_choices(description)
    meaning = kind_for_string(
        words,
        description,
        schema.get("format"),
        ctx.words,
        ctx.text,
        ctx.effect.value,
        ctx.object.value,
        sql=ctx.sql,
        git=ctx.git,
        parent=tokens(parent) if parent else [],
        named_object=ctx.named_object,
    )
    kind = ArgKind(meaning.kind)
    if choices and kind in (ArgKind.STRING, ArgKind.IDENTIFIER, ArgKind.ENUM):
        return ArgSpec(
            **common | {"examples": examples}, kind=ArgKind.ENUM, enum=choices, enum_from_description=True
        )
    statements = sql_statements_in(description, ctx.text, ctx.words) if kind in SQL_KINDS else []
    if kind in SQL_KINDS:
        kind = _sql_kind(statements)
    target = ToolObject(meaning.target) if meaning.target else None
    return ArgSpec(
        **common | {"examples": common["examples"] or examples},
        kind=kind,
        fresh=meaning.fresh,
        target=target,
        sql_statements=statements,
    )


def parent_singular(name: str) -> str:
    """The name an array's items go by: ``paths`` → ``path``, ``entityNames`` → ``entityName``."""
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("s", "")):
        if name.endswith(suffix) and len(name) > len(suffix) + 1:
            return name[: -len(suffix)] + replacement
    return name


def _bound(exclusive: Any, inclusive: Any) -> float | None:
    if isinstance(exclusive, bool):  # draft-04: exclusiveMinimum is a flag on minimum
        return inclusive if exclusive else None
    return exclusive


def _count_like(words: list[str], description: str) -> bool:
    counting = {
        "count",
        "limit",
        "max",
        "min",
        "head",
        "tail",
        "lines",
        "n",
        "num",
        "size",
        "top",
        "depth",
        "offset",
        "page",
        "context",
        "retries",
        "length",
        "width",
        "height",
        "k",
        "mb",
        "kb",
        "seconds",
    }
    text = description.lower()
    return (
        bool(counting.intersection(words))
        or "number of" in text
        or bool(re.search(r"\b(first|last) n\b", text))
    )


def _sql_kind(statements: list[str]) -> ArgKind:
    kinds = set(statements)
    if not kinds or kinds >= {"select", "insert", "update", "delete"}:
        return ArgKind.SQL
    if kinds == {"select"}:
        return ArgKind.SQL_QUERY_READ
    if kinds <= {"insert", "update", "delete"}:
        return ArgKind.SQL_QUERY_WRITE
    if kinds == {"ddl"}:
        return ArgKind.SQL_DDL
    return ArgKind.SQL


def _mark_alternatives(specs: list[ArgSpec], ctx: _Context) -> list[ArgSpec]:
    """Optional siblings that are alternatives (``head`` / ``tail``) exclude each other."""
    optional = [s for s in specs if not s.required]
    excludes: dict[str, list[str]] = {}
    for i, first in enumerate(optional):
        for second in optional[i + 1 :]:
            if antonyms(first.name, second.name, first.description, second.description, ctx.tool.description):
                excludes.setdefault(first.name, []).append(second.name)
                excludes.setdefault(second.name, []).append(first.name)
    return [s.model_copy(update={"excludes": excludes[s.name]}) if s.name in excludes else s for s in specs]
