"""Valid calls built from real values: what a tool's maintainer would write to show it working.

:class:`ValueSynth` fills every argument from what really exists (the snapshot's facts and the
values harvested into a :class:`ValuePool`): existing files for reads, fresh unique names for
creates, real tables and columns in SQL, real branches and commits, real entities, IANA zones.
Variants widen coverage: variant 0 gives required arguments only, variant 1 adds the first half
of the optional ones, variant 2 all of them, and every variant moves to other targets and other
enum members. Paths use placeholders; the executor renders them for its instance.

Same facts, same pool, same ``rng`` seed and same sequence of requests → identical calls.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from pydantic import Field

from toolatlas.models import Frozen, ToolSpec
from toolatlas.offline.answers import GROUP_CONTEXT
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.hints import sql_examples
from toolatlas.offline.kinds import (
    GENERIC_KINDS,
    SEMANTIC_KINDS,
    SQL_KINDS,
    ArgSpec,
    ToolEffect,
    ToolObject,
    infer_arguments,
    sql_statement_kind,
    tool_effect,
    tool_object,
)
from toolatlas.offline.maps import KEY_SUFFIX, map_entry, map_shape
from toolatlas.offline.operations import described_operations
from toolatlas.offline.scalars import Unsatisfiable, from_one_record, scalar_value
from toolatlas.offline.schemas import NoExample, conforms, constrains, schema_example
from toolatlas.offline.sqlgen import SqlWriter
from toolatlas.offline.targets import Candidate, Targets
from toolatlas.offline.words import tokens
from toolatlas.probing.values import ArgKind, HarvestRef

__all__ = ["HarvestRef", "PlannedCall", "Unsatisfiable", "ValuePool", "ValueSynth", "selected_optional"]


class PlannedCall(Frozen):
    """A call to make, with the harvested values it uses (data flow) and the new names it introduces."""

    tool: str
    variant: int
    arguments: dict[str, Any]
    used_values: list[HarvestRef] = Field(default_factory=list)
    fresh_values: dict[str, list[Any]] = Field(default_factory=dict)
    """Argument path (``entities[].name``) → the new paths/names/tables the call creates there."""


class CallDraft:
    """The state of one call while its arguments are chosen."""

    def __init__(self, tool: ToolSpec, variant: int, specs: list[ArgSpec]) -> None:
        self.tool = tool
        self.variant = variant
        self.effect = tool_effect(tool)
        self.object = tool_object(tool)
        self.text = f"{tool.name} {tool.description}".lower()
        self.used: list[HarvestRef] = []
        self.fresh: dict[str, list[Any]] = {}
        self.taken: dict[ArgKind, set[str]] = {}
        self.needs_lines = _any_kind(specs, ArgKind.EXISTING_TEXT)
        self.file: str | None = None
        self.entity: str | None = None
        self.table: str | None = None
        self.scope: dict[str, Any] = {}
        """Values chosen so far in the innermost object (siblings may depend on them)."""
        self.scope_specs: dict[str, ArgSpec] = {}
        self.chosen: dict[str, list[Any]] = {}
        """Argument path → values chosen there so far (the items of one array differ)."""

    def pick(self, kind: ArgKind, candidates: list[Candidate], *, offset: int = 0) -> str:
        """The variant's candidate among those not yet used in this call; records provenance."""
        taken = self.taken.setdefault(kind, set())
        free = [c for c in candidates if c.value not in taken]
        if not free:
            raise Unsatisfiable(f"no {kind.value} left to use")
        chosen = free[(self.variant + offset) % len(free)]
        taken.add(chosen.value)
        if chosen.ref is not None and chosen.ref not in self.used:
            self.used.append(chosen.ref)
        return chosen.value


_VALUE_ITEMS = frozenset({ArgKind.ARRAY, ArgKind.NUMBER, ArgKind.INTEGER, ArgKind.BOOLEAN})
"""Items an array's example is taken whole for: values and tuples of them, never names of what may not exist."""
_NETWORK_KINDS = frozenset({ArgKind.URL, ArgKind.HOSTNAME, ArgKind.IP_ADDRESS})
_NETWORK_WORDS = frozenset("port host hostname url uri endpoint socket".split())


def _reaches_out(spec: ArgSpec) -> bool:
    """Whether an argument points the server at a network service (a URL, a host, a port): a sandbox has no network,
    so of alternatives one of which is needed, the way in that names local things (a folder of the same tables)
    is the one a seed call takes, and the network one is left to the variants that try every member."""
    return spec.kind in _NETWORK_KINDS or bool(set(tokens(spec.name)) & _NETWORK_WORDS)


def selected_optional(specs: list[ArgSpec], variant: int) -> list[ArgSpec]:
    """Required specs plus the variant's optional ones, never two alternatives of each other."""
    optional = [s for s in specs if not s.required and not s.unreachable and not s.handed_back]
    if variant <= 0:
        wanted: list[ArgSpec] = []
    elif variant == 1:
        wanted = optional[: math.ceil(len(optional) / 2)]
    else:
        wanted = optional
    order = wanted if variant % 2 else list(reversed(wanted))  # even variants let the later alternative win
    order = [
        s for s in optional if s.kind in SQL_KINDS and s not in order
    ] + order  # a statement is the point
    needed = sorted((s for s in optional if s.alternative_needed), key=_reaches_out)  # a local way in first
    if needed:  # one of a group the server needs: the variant's member first, before what it excludes
        first = needed[variant % len(needed)]
        order = [first, *(s for s in order if s is not first)]
    kept: list[str] = []
    for spec in order:
        if not any(other in kept for other in spec.excludes):
            kept.append(spec.name)
    return [s for s in specs if s.required or s.name in kept]


def _any_kind(specs: list[ArgSpec], kind: ArgKind) -> bool:
    for spec in specs:
        if (
            spec.kind is kind
            or _any_kind(spec.properties, kind)
            or (spec.items and _any_kind([spec.items], kind))
        ):
            return True
    return False


_ORDER = {
    ArgKind.EXISTING_TEXT: 3,
    ArgKind.OBSERVATION: 3,
    ArgKind.COLUMN_NAME: 3,
    ArgKind.TEXT: 4,
    ArgKind.NEW_PATH: 2,
    ArgKind.TABLE_NAME: 2,
    ArgKind.ARRAY: 2,
    ArgKind.OBJECT: 2,
    ArgKind.ENUM: 0,
    ArgKind.BOOLEAN: 0,
    ArgKind.INTEGER: 0,
    ArgKind.NUMBER: 0,
    ArgKind.STRING: 0,
}


class ValueSynth:
    """Builds valid calls from facts and harvested values; ``rng`` drives every free choice."""

    def __init__(
        self,
        facts: EnvironmentFacts,
        pool: ValuePool | None = None,
        rng: random.Random | None = None,
        *,
        use_created: bool = False,
    ) -> None:
        self.facts = facts
        self.pool = pool if pool is not None else ValuePool()
        self.rng = rng if rng is not None else random.Random(0)
        self.targets = Targets(facts, self.pool, use_created=use_created)
        self.sql = SqlWriter(facts.database, self.rng) if facts.database is not None else None
        self._schema_seed: int | None = None
        """Seed of the schema-driven draws, taken from ``rng`` the first time one is needed."""

    def tag(self) -> str:
        """Four hex digits from the rng: the mark of every name a probe invents."""
        return f"{self.rng.getrandbits(16):04x}"

    # -- public -----------------------------------------------------------------------------------

    def valid_arguments(
        self, tool: ToolSpec, specs: list[ArgSpec] | None = None, variant: int = 0
    ) -> PlannedCall | None:
        """A valid call of ``tool`` for ``variant``, or ``None`` when the environment cannot support one."""
        specs = specs if specs is not None else infer_arguments(tool)
        draft = CallDraft(tool, variant, specs)
        try:
            arguments = self.fill_object(specs, draft, variant)
        except Unsatisfiable:
            return None
        return PlannedCall(
            tool=tool.name,
            variant=variant,
            arguments=arguments,
            used_values=draft.used,
            fresh_values=draft.fresh,
        )

    def value_for(self, tool: ToolSpec, spec: ArgSpec, variant: int = 1) -> Any:
        """A valid value for one argument of ``tool`` on its own, or ``None`` when there is none."""
        draft = CallDraft(tool, variant, [spec])
        try:
            return self.value(spec, draft)
        except Unsatisfiable:
            return None

    def fresh_value(self, kind: ArgKind, *, target: ToolObject | None = None, near: str | None = None) -> str:
        """A new, unique name or path of ``kind`` (deterministic from the rng)."""
        tag = self.tag()
        match kind:
            case ArgKind.NEW_PATH | ArgKind.FILE_PATH | ArgKind.DIR_PATH | ArgKind.PATH:
                parent = near or self.targets.root
                return (
                    f"{parent}/probe_{tag}" if target is ToolObject.DIRECTORY else f"{parent}/probe_{tag}.txt"
                )
            case ArgKind.BRANCH:
                return f"probe-branch-{tag}"
            case ArgKind.ENTITY_NAME:
                return f"Probe Entity {tag}"
            case ArgKind.TABLE_NAME:
                return f"probe_{tag}"
            case ArgKind.OBSERVATION:
                return f"Observed by probe {tag}"
            case ArgKind.EMAIL:
                return f"probe.{tag}@example.com"
        return f"probe_{tag}"

    # -- objects and arrays -----------------------------------------------------------------------

    def fill_object(self, specs: list[ArgSpec], draft: CallDraft, variant: int) -> dict[str, Any]:
        chosen = selected_optional(specs, variant)
        outer_scope, outer_specs, outer_entity = draft.scope, draft.scope_specs, draft.entity
        draft.scope, draft.scope_specs = {}, {s.name: s for s in chosen}
        try:
            if self._relation_object(chosen, draft):
                return {s.name: draft.scope[s.name] for s in chosen if s.name in draft.scope}
            chosen, scoped = self._database_scope(chosen)
            draft.scope.update(scoped)
            for spec in sorted(chosen, key=lambda s: _ORDER.get(s.kind, 1)):
                if spec.name in scoped:
                    continue
                try:
                    draft.scope[spec.name] = self.value(spec, draft)
                except Unsatisfiable:
                    if spec.required:
                        raise
            from_one_record(self, chosen, draft)
            self._bind_parameters(chosen, draft)
            _located(chosen, draft)
            return {s.name: draft.scope[s.name] for s in chosen if s.name in draft.scope}
        finally:
            draft.scope, draft.scope_specs, draft.entity = outer_scope, outer_specs, outer_entity

    def _bind_parameters(self, chosen: list[ArgSpec], draft: CallDraft) -> None:
        """A statement given beside a parameters object, for a tool whose description shows bound
        parameters (``WHERE id = :id`` with ``params={'id': 123}``): its value passed as a parameter."""
        style = _placeholder_style(draft.tool.description)
        params = next((s for s in chosen if s.kind is ArgKind.OBJECT and not s.properties
                       and _PARAMETERS.fullmatch(s.name) and s.name in draft.scope), None)
        statement = next((s for s in chosen if s.kind in (ArgKind.SQL, ArgKind.SQL_QUERY_READ)
                          and isinstance(draft.scope.get(s.name), str)), None)
        if style is None or params is None or statement is None or self.sql is None:
            return
        bound = self.sql.bound_select(style)
        if bound is not None:
            draft.scope[statement.name], draft.scope[params.name] = bound

    def _database_scope(self, chosen: list[ArgSpec]) -> tuple[list[ArgSpec], dict[str, Any]]:
        """A statement written from database facts read through a scope (the file a query tool opened)
        goes with that scope's arguments, and with no other: another file holds other tables, and an
        optional argument may change what the tool shows of them (another header row). The arguments
        to fill, and the values the scope fixes."""
        database = self.facts.database
        if database is None or not database.scope or self.sql is None:
            return chosen, {}
        if not any(s.kind in SQL_KINDS for s in chosen):
            return chosen, {}
        kept = [s for s in chosen if s.required or s.kind in SQL_KINDS or s.name in database.scope]
        return kept, {s.name: database.scope[s.name] for s in kept if s.name in database.scope}

    def _relation_object(self, specs: list[ArgSpec], draft: CallDraft) -> bool:
        """``{from, to, relationType}``: an existing relation to delete or read, else a new one."""
        ends = [s for s in specs if s.kind is ArgKind.ENTITY_NAME and not s.fresh]
        kinds = [s for s in specs if s.kind is ArgKind.RELATION_TYPE]
        if len(ends) < 2 or not kinds:
            return False
        taken = draft.taken.setdefault(ArgKind.RELATION_TYPE, set())
        existing = self.targets.relations()
        options = self._new_relations(existing) if draft.effect is ToolEffect.CREATE else existing
        options = [o for o in options if _key(o) not in taken]
        if not options:
            raise Unsatisfiable("no relation to use")
        source, target, relation = options[(draft.variant * 7) % len(options)]
        taken.add(_key((source, target, relation)))
        draft.scope.update({ends[0].name: source, ends[1].name: target, kinds[0].name: relation})
        return True

    def _new_relations(self, existing: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
        """Relations that do not exist yet but look like existing ones (same entity types at both ends)."""
        graph = self.facts.graph
        types = {e.name: e.entity_type for e in graph.entities} if graph else {}
        names = [c.value for c in self.targets.entities()]
        signatures = list(dict.fromkeys((types.get(a), r, types.get(b)) for a, b, r in existing))
        options = [
            (a, b, relation)
            for source_type, relation, target_type in signatures
            for a in names
            if types.get(a) == source_type
            for b in names
            if b != a and types.get(b) == target_type
        ]
        if not options:  # no typed examples: any two entities, any known relation type
            relations = [c.value for c in self.targets.relation_types()] or ["relates_to"]
            options = [(a, b, relations[0]) for a in names for b in names if a != b]
        return [o for o in options if o not in existing]

    def fill_array(self, spec: ArgSpec, draft: CallDraft) -> list[Any]:
        item = spec.items
        if item is not None and item.kind is ArgKind.OBJECT and not item.properties:
            batch = self._operations(draft)
            if batch:
                return batch
        shown = [e for e in spec.examples if isinstance(e, list) and e]
        if shown and item is not None and item.kind in _VALUE_ITEMS:  # numbers, points: the documented value
            return list(shown[draft.variant % len(shown)])
        if item is None or (item.kind is ArgKind.OBJECT and not item.properties):
            if (spec.min_items or 0) > 0:
                raise Unsatisfiable(f"cannot build items of {spec.path}")
            return []
        count = max(spec.min_items or 1, 2 if draft.variant >= 1 else 1)
        if spec.max_items is not None:
            count = min(count, spec.max_items)
        values: list[Any] = []
        for _ in range(count + (2 if spec.unique_items else 0)):
            if len(values) >= count:
                break
            try:
                value = self.value(item, draft)
            except Unsatisfiable:
                break
            if spec.unique_items and value in values:
                continue
            values.append(value)
        if len(values) < max(spec.min_items or 0, 1 if spec.required else 0):
            raise Unsatisfiable(f"not enough values for {spec.path}")
        return values

    def _operations(self, draft: CallDraft) -> list[dict[str, Any]]:
        """A batch of the operations the tool's description spells out (:mod:`.operations`): the
        variant's one, and two more after it from variant 1 on."""
        described = described_operations(draft.tool)
        if described is None:
            return []
        ops = described.operations
        picked = dict.fromkeys((draft.variant + i) % len(ops) for i in range(1 if draft.variant == 0 else 3))
        batch = []
        for op in (ops[i] for i in picked):
            tool = op.as_tool(draft.tool, described.allowed)
            planned = self.valid_arguments(tool, infer_arguments(tool), draft.variant)
            if planned is not None:
                batch.append({described.selector: op.name, **planned.arguments})
        return batch

    def _map(self, spec: ArgSpec, draft: CallDraft) -> dict[str, Any]:
        """A map argument (:mod:`.maps`) holds one entry: a key the answers listed for it (else a plain word) and
        a value the description lists; an object the schema says nothing of stays empty."""
        shape = map_shape(spec, draft.tool.description)
        if shape is None:
            return {}
        keys = [Candidate(r.value, r) for r in self.pool.named_for(f"{draft.tool.name}:{spec.path}{KEY_SUFFIX}")]
        key = draft.pick(ArgKind.STRING, keys) if keys else "example"
        return map_entry(key, shape, draft.variant)

    # -- one value --------------------------------------------------------------------------------

    def value(self, spec: ArgSpec, draft: CallDraft) -> Any:
        if spec.kind is ArgKind.OBJECT:
            if not spec.properties:
                return self._map(spec, draft)
            return self.fill_object(spec.properties, draft, draft.variant)
        if spec.kind is ArgKind.ARRAY:
            return self.fill_array(spec, draft)
        if spec.kind in SQL_KINDS:
            return self._sql(spec, draft)
        try:
            value = scalar_value(self, spec, draft)
            if spec.relative and isinstance(value, str):  # the server refused absolute paths
                value = value.removeprefix(f"{self.targets.root}/")
        except Unsatisfiable:
            invented = spec.kind in SEMANTIC_KINDS or spec.kind in GENERIC_KINDS
            if not (invented and spec.json_schema and constrains(spec.json_schema)):
                raise
            value = self.schema_value(spec, draft)  # nothing the kind knows fits: the schema decides
        if spec.json_schema and constrains(spec.json_schema) and not conforms(value, spec.json_schema):
            value = self.schema_value(spec, draft, rejected=value)
        if spec.fresh or spec.kind is ArgKind.NEW_PATH:
            draft.fresh.setdefault(spec.path, []).append(value)
        draft.chosen.setdefault(spec.path, []).append(value)
        return value

    def _sql_without_facts(self, spec: ArgSpec, draft: CallDraft) -> str:
        candidates = _sql_candidates(self, spec)
        if not candidates:
            raise Unsatisfiable("no database facts to write SQL from")
        return draft.pick(spec.kind, candidates)

    def schema_value(self, spec: ArgSpec, draft: CallDraft, *, rejected: Any = None) -> Any:
        """A value drawn from the argument's schema alone (its pattern, bounds, formats...)."""
        if self._schema_seed is None:
            self._schema_seed = self.rng.getrandbits(32)
        taken = draft.taken.setdefault(spec.kind, set())
        for index in range(draft.variant, draft.variant + 4):
            try:
                value = schema_example(spec.json_schema, index, self._schema_seed)
            except NoExample:
                break
            if isinstance(value, str) and value in taken:
                continue
            if isinstance(value, str):
                taken.add(value)
            return value
        if rejected is None:
            raise Unsatisfiable(f"the schema of {spec.path} admits no value found")
        return rejected  # nothing better: the server's answer to it is still informative

    def _sql(self, spec: ArgSpec, draft: CallDraft) -> str:
        if self.sql is None:
            return self._sql_without_facts(spec, draft)
        orders: dict[ArgKind, list[str]] = {
            ArgKind.SQL_QUERY_READ: ["select"],
            ArgKind.SQL_QUERY_WRITE: [k for k in ("insert", "update", "delete") if k in spec.sql_statements],
            ArgKind.SQL_DDL: ["ddl"],
        }
        order = orders.get(spec.kind, ["select", "insert", "update", "delete", "ddl"]) or ["insert"]
        taken = draft.taken.setdefault(spec.kind, set())
        for offset in range(len(order) * 2):
            kind = order[(draft.variant + offset) % len(order)]
            tag = self.tag()
            statement = self.sql.statement(kind, draft.variant // len(order) + offset // len(order), tag)
            if statement and statement not in taken:
                taken.add(statement)
                if kind == "ddl":
                    draft.fresh.setdefault(spec.path, []).append(f"probe_{tag}")
                return statement
        raise Unsatisfiable(f"no valid {spec.kind.value} statement for these tables")


_STATEMENTS = {
    ArgKind.SQL_QUERY_READ: {"select"},
    ArgKind.SQL_QUERY_WRITE: {"insert", "update", "delete"},
    ArgKind.SQL_DDL: {"ddl"},
}
_SHEETS_ARE_TABLES = re.compile(r"\bsheets?\b[^.]*\btables?\b|\btables?\b[^.]*\bsheets?\b")


def _sql_candidates(synth: ValueSynth, spec: ArgSpec) -> list[Candidate]:
    """Statements for a database the snapshot says nothing about: the description's own examples, reads
    of the tables (or sheets, where the words say sheets are tables) the server named, then ``SELECT 1``."""
    allowed = _STATEMENTS.get(spec.kind, {"select", "insert", "update", "delete", "ddl"})
    found = [Candidate(e) for e in sql_examples(spec.description) if sql_statement_kind(e) in allowed]
    if "select" in allowed:
        tables = synth.targets.pooled(ArgKind.TABLE_NAME)
        if _SHEETS_ARE_TABLES.search(spec.description.lower()):
            tables += synth.targets.pooled(ArgKind.SHEET_NAME)
        found += [Candidate(f'SELECT * FROM "{c.value}" LIMIT 5', c.ref) for c in tables]
        found.append(Candidate("SELECT 1 AS probe"))
    return found


_WHERE = re.compile(r"^(?:from|source|src|current|old)(?:_|$)|\b(?:contain(?:s|ing)?|source|currently)\b", re.IGNORECASE)
"""An argument that says where the thing a call names is now (``from_column``, "Column containing the task")."""


def _located(chosen: list[ArgSpec], draft: CallDraft) -> None:
    """A name taken from a listing's group (:data:`~toolatlas.offline.answers.GROUP_CONTEXT`: the task listed under
    ``DOING``) is where that group says it is: an argument saying where the named thing is now (:data:`_WHERE`) gets
    the group's label — the call names the task where it really is."""
    named = {r.value: r.context[len(GROUP_CONTEXT):] for r in draft.used
             if r.context and r.context.startswith(GROUP_CONTEXT) and r.value in draft.scope.values()}
    if not named:
        return
    group = next(iter(named.values()))
    for spec in chosen:
        where = _WHERE.search(spec.name) or _WHERE.search(spec.description.split(".")[0])
        if where and spec.json_type == "string" and draft.scope.get(spec.name) not in (None, group, *named):
            draft.scope[spec.name] = group


_PARAMETERS = re.compile(r"(?i)params|parameters|bindings|binds|bind_params|query_params|variables")
_STYLES = (
    ("named", re.compile(r"(?<![\w:]):[A-Za-z_]\w*\b")),
    ("pyformat", re.compile(r"%\([A-Za-z_]\w*\)s")),
    ("qmark", re.compile(r"(?:=|IN \(|VALUES \()\s*\?")),
)


def _placeholder_style(description: str) -> str | None:
    """The bound-parameter style a description shows next to the word parameter (``:id``, ``%(id)s``, ``?``)."""
    if not re.search(r"(?i)\bparam", description):
        return None
    return next((style for style, pattern in _STYLES if pattern.search(description)), None)


def _key(relation: tuple[str, str, str]) -> str:
    return "\x1f".join(relation)
