"""Boundary probes: one valid call changed in one place, each with the condition it tests.

:func:`boundary_mutations` walks the arguments of a valid call and, for each argument, applies
only the mutations that make sense for its kind: a path escapes the sandbox or names a missing
file, an SQL query gets the wrong statement kind or breaks a constraint, a branch starts with
``-``, a time zone is not an IANA name... Every :class:`Mutation` keeps a stable ``name`` (the
boundary family), the mutated ``arguments``, the argument it touched, and a one-sentence
``condition`` that an atlas entry can quote. Choices are deterministic for a given rng; the
result is diversified across families (round robin) and capped.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from toolatlas.models import Frozen, ToolSpec
from toolatlas.offline.kinds import SQL_KINDS, ArgSpec, sql_statement_kind, tool_effect
from toolatlas.offline.limits import limit_mutations
from toolatlas.offline.mutators import SCALAR_MUTATORS, Found, MutationContext
from toolatlas.offline.operations import described_operations
from toolatlas.offline.scalars import LOWER_BOUNDS, UPPER_BOUNDS, bound_words
from toolatlas.offline.schemas import inline_refs
from toolatlas.offline.sqlgen import quote_ident
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.bindings import bound_references, output_ref
from toolatlas.probing.values import ArgKind

if TYPE_CHECKING:  # probing.models imports offline.harvest: the step's model is imported where it is made
    from toolatlas.probing.models import ProbeStep

__all__ = ["EXCLUSIVE_WORDS", "SEMANTIC_FAMILIES", "Mutation", "MutationKind", "boundary_mutations"]


class MutationKind(StrEnum):
    """Families of boundary probes, most informative first (the order the cap keeps)."""

    PATH_ESCAPE = "path_escape"
    NONEXISTENT_REFERENCE = "nonexistent_reference"
    LOCKED_TARGET = "locked_target"
    """A change of a record the server's own listing marks locked (``"locked": true``)."""
    NEAR_NAME = "near_name"
    """A name the server gave, with a suffix no name has: refused, or taken for the closest name it knows."""
    CHECK_DIGIT = "check_digit"
    """A code of eight digits or more with its last digit changed: refused or judged invalid where a check digit
    guards it, taken as another code where none does."""
    UNCONFIRMED = "unconfirmed"
    """A confirming flag (``confirm``, ``force``) sent false: refused, or the action done without it."""
    QUERY_SYNTAX = "query_syntax"
    """A search query with a hyphen between two words (``widget-based``): a search engine's syntax reads it as more
    than a word (a column, a negation), a plain one finds the text."""
    QUERY_OPERATOR = "query_operator"
    """A search query ending on an operator word in capitals (``widget OR``): a syntax error, or a plain word."""
    WORD_FRAGMENT = "word_fragment"
    """Part of a word of a working query (``idget`` of ``widget``): found by a substring search, not by a search of
    whole words or stems."""
    INFLECTED_FORM = "inflected_form"
    """A word a lookup knows, inflected (``started`` for ``start``): found by a lookup of stems, not of entries."""
    OTHER_FIELD = "other_field"
    """A search query that is another field of the record a working query is in (a contact's tag): found by a
    search of every field, not by one of names."""
    NAME_PART = "name_part"
    """One word two or more known names hold (``Dawson`` of ``Claire Dawson`` and ``Claire Dawson (admin)``): refused,
    answered for all of them, or for one alone."""
    NAME_FOR_CODE = "name_for_code"
    """A code in digits sent as the name its description says it stands for (``Software Developers`` for
    ``151252``)."""
    STRIPPED_PREFIX = "stripped_prefix"
    """A code the server gave without the letters it starts with (``1.1`` for ``R1.1``, ``1.5.0`` for ``v1.5.0``)."""
    NO_MATCH_EDIT = "no_match_edit"
    MISSING_PARENT = "missing_parent"
    WRONG_OBJECT_KIND = "wrong_object_kind"
    SQL_WRONG_STATEMENT = "sql_wrong_statement"
    CONSTRAINT_VIOLATION = "constraint_violation"
    SQL_SYNTAX_ERROR = "sql_syntax_error"
    SQL_UNKNOWN_TABLE = "sql_unknown_table"
    PAST_STATED_LIMIT = "past_stated_limit"
    """One step past a limit the description states (two statements, a row more than the cap)."""
    NO_ARGUMENTS = "no_arguments"
    """A tool whose every argument is optional called with none: it acts on everything, on nothing, or asks for
    one — what the schema does not tell."""
    WIDE_SPAN = "wide_span"
    """A span of dates (``start_date`` to ``end_date``) of more than a year: refused past the longest a server takes
    (``window cannot exceed 90 days``), or answered whole."""
    REVERSED_SPAN = "reversed_span"
    """The two ends of a span of dates swapped (its end before its start)."""
    ALREADY_EXISTS = "already_exists"
    STORED_SEPARATOR = "stored_separator"
    """Text a writing tool keeps, holding a column bar and a line break: what a store of lines or of table rows
    cannot hold in one field."""
    INVALID_TIMEZONE = "invalid_timezone"
    INVALID_TIME_FORMAT = "invalid_time_format"
    MALFORMED_VALUE = "malformed_value"
    """A value of the argument's kind that looks right but is not (a cron minute 61, ``1 / 0``)."""
    INCOMPATIBLE_VALUE = "incompatible_value"
    """A well-formed value that cannot go with the call's others (a unit of another dimension)."""
    LEADING_DASH = "leading_dash"
    INVALID_ENUM = "invalid_enum"
    MISSING_REQUIRED = "missing_required"
    UNWRAPPED_ARGUMENTS = "unwrapped_arguments"
    """The fields of a call's one wrapping object (``params``) passed at the top level beside it, as a caller
    who reads the fields and not the wrapper sends them."""
    WRONG_TYPE = "wrong_type"
    PATH_IS_DIRECTORY = "path_is_directory"
    PATH_IS_FILE = "path_is_file"
    MISSING_EXTENSION = "missing_extension"
    """An existing file named without its extension (some tools add it, others fail)."""
    RELATIVE_PATH = "relative_path"
    """An existing file named relative to the root (``notes/todo.txt``): some servers resolve it against
    their working folder, others refuse anything but an absolute path."""
    OUT_OF_RANGE = "out_of_range"
    AT_LIMIT = "at_limit"
    """A number at the very minimum or maximum its schema allows (a deposit of 100%): valid, and where a computation
    divides by what is left or takes a logarithm of zero."""
    NEGATIVE_NUMBER = "negative_number"
    FRACTIONAL_COUNT = "fractional_count"
    """A count typed as any number sent as a fraction (``max_results`` = 2.5): rounded, refused, or a crash of the
    code that slices by it — what the schema does not tell."""
    CONFLICTING_ARGUMENTS = "conflicting_arguments"
    EMPTY_VALUE = "empty_value"
    NULL_VALUE = "null_value"
    OVERSIZED_VALUE = "oversized_value"
    UNICODE_VALUE = "unicode_value"
    EXTRA_ARGUMENT = "extra_argument"
    CASE_CHANGED = "case_changed"
    """A name or symbol written in capitals or in lower case (``NACL`` for ``NaCl``): matched whatever its case, or
    refused — last, with what the cap leaves."""


SEMANTIC_FAMILIES = frozenset(
    {
        "path_escape",
        "nonexistent_reference",
        "locked_target",
        "near_name",
        "check_digit",
        "unconfirmed",
        "name_part",
        "no_match_edit",
        "sql_wrong_statement",
        "constraint_violation",
        "sql_unknown_table",
        "past_stated_limit",
        "no_arguments",
        "wide_span",
        "reversed_span",
        "wrong_object_kind",
        "missing_parent",
        "already_exists",
        "stored_separator",
        "duplicate_create",
        "repeated_change",
        "invalid_timezone",
        "invalid_time_format",
        "malformed_value",
        "query_syntax",
        "query_operator",
        "word_fragment",
        "inflected_form",
        "stripped_prefix",
        "name_for_code",
        "other_field",
        "incompatible_value",
        "leading_dash",
        "path_is_directory",
        "path_is_file",
        "missing_extension",
        "relative_path",
        "conflicting_arguments",
        "invalid_enum",
        "out_of_range",
        "fractional_count",
        "at_limit",
    }
)
"""Families whose answer the JSON Schema does not tell (or tells without the server's words): the
frontier probes them first (:func:`toolatlas.pipeline.frontier.priority`)."""


class Mutation(Frozen):
    """A boundary probe: the arguments of a valid call with one thing broken."""

    name: MutationKind
    arguments: dict[str, Any]
    condition: str
    """The triggering condition in one sentence (what an atlas boundary entry quotes)."""
    target_arg: str | None = None
    """Where the change is: ``path``, ``paths[0]``, ``relations[0].from``; ``None`` for the whole call."""
    expected_failure: bool = True
    """Whether a careful server should refuse the call (``False``: either outcome is informative)."""

    def step(self, tool: str) -> ProbeStep:
        """The probe step that makes this call of ``tool``."""
        from toolatlas.probing.models import ProbeStep

        return ProbeStep(
            tool=tool,
            arguments=self.arguments,
            intent=f"check how `{tool}` handles {self.condition}",
            expect="error" if self.expected_failure else "any",
            mutation=self.name.value,
            condition=self.condition,
        )


def boundary_mutations(
    tool: ToolSpec, specs: list[ArgSpec], valid_args: dict[str, Any], synth: ValueSynth, *, cap: int = 12
) -> list[Mutation]:
    """Mutations of ``valid_args`` that make sense for each argument's kind, diversified and capped."""
    found: list[Found] = []
    leaves = _leaves(specs, valid_args, "")
    in_call = frozenset(v for _s, _l, v in leaves if isinstance(v, str))
    ctx = MutationContext(synth, tool_effect(tool), f"{tool.name} {tool.description}".lower(), in_call)
    for spec, locator, value in leaves:
        if spec.unreachable:  # each misuse of it is another wait on a network the sandbox does not have
            continue
        for mutate in SCALAR_MUTATORS:
            found.extend(mutate(spec, locator, value, ctx))
        found.extend(limit_mutations(spec, locator, value, ctx))
        if spec.kind in SQL_KINDS and isinstance(value, str):
            found.extend(_sql_mutations(spec, locator, value, synth))
    found.extend(_call_mutations(tool, specs, valid_args, synth))
    references = {output_ref(step, path) for step, path in bound_references(valid_args)}
    by_family: dict[MutationKind, list[tuple[dict[str, Any], str, str | None, bool]]] = {}
    for name, where, new_value, condition, expected in found:
        arguments = _replace(valid_args, where, new_value) if where else new_value
        if arguments == valid_args or _rewrites_a_reference(new_value, references):
            continue
        by_family.setdefault(MutationKind(name), []).append((arguments, condition, where, expected))
    required = {locator for spec, locator, _value in leaves if spec.required}
    for group in by_family.values():  # within a family, a misuse of what every call gives comes first
        group.sort(key=lambda found: found[2] not in required)
    ordered = [(f, by_family[f]) for f in _FAMILIES if f in by_family]
    result: list[Mutation] = []
    depth = 0
    while len(result) < cap and any(depth < len(group) for _, group in ordered):
        for family, group in ordered:
            if depth < len(group) and len(result) < cap:
                # only the mutations kept become models (most found are cut by the cap)
                arguments, condition, where, expected = group[depth]
                result.append(Mutation(name=family, arguments=arguments, condition=condition,
                                       target_arg=where, expected_failure=expected))
        depth += 1
    return result


def _rewrites_a_reference(value: Any, references: set[str]) -> bool:
    """Whether a mutated value holds the text of a reference to an earlier step's answer that the valid
    call did not hold (``${step0.id}`` with its digits changed is ``${step9.id}``): what the planner
    knows of such a value is the reference, never its text — the server would be sent the
    placeholder itself, and the condition ("shaped like a real id") would not be what was tried."""
    if isinstance(value, str):
        return "${step" in value and value not in references
    if isinstance(value, dict):
        return any(_rewrites_a_reference(v, references) for v in value.values())
    if isinstance(value, list):
        return any(_rewrites_a_reference(v, references) for v in value)
    return False


_FAMILIES = tuple(MutationKind)
"""Every family in declaration order (iterating an enum class anew costs more than the lookups)."""

_DELETE = object()
"""Marks a key to drop (a missing argument) in :func:`_replace`."""


def _leaves(specs: list[ArgSpec], values: dict[str, Any], prefix: str) -> list[tuple[ArgSpec, str, Any]]:
    """Every argument in ``values`` with its locator; arrays give themselves and their first item."""
    out: list[tuple[ArgSpec, str, Any]] = []
    for spec in specs:
        if spec.name not in values:
            continue
        locator = f"{prefix}.{spec.name}" if prefix else spec.name
        value = values[spec.name]
        out.append((spec, locator, value))
        if spec.kind is ArgKind.ARRAY and isinstance(value, list) and value and spec.items is not None:
            item_locator = f"{locator}[0]"
            if spec.items.kind is ArgKind.OBJECT and isinstance(value[0], dict):
                out.extend(_leaves(spec.items.properties, value[0], item_locator))
            else:
                out.append((spec.items, item_locator, value[0]))
        elif spec.kind is ArgKind.OBJECT and isinstance(value, dict):
            out.extend(_leaves(spec.properties, value, locator))
    return out


def _replace(arguments: dict[str, Any], locator: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``arguments`` with the value at ``locator`` replaced (removed with :data:`_DELETE`)."""
    result = copy.deepcopy(arguments)
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", locator)
    node: Any = result
    for part in parts[:-1]:
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    last = parts[-1]
    key: Any = int(last[1:-1]) if last.startswith("[") else last
    if value is _DELETE:
        del node[key]
    else:
        node[key] = value
    return result


def _sql_mutations(spec: ArgSpec, locator: str, valid: str, synth: ValueSynth) -> list[Found]:
    out: list[Found] = []
    arg = f"`{spec.name}`"
    statement = sql_statement_kind(valid)
    tag = synth.tag()
    writer = synth.sql
    if writer is not None:
        if spec.kind is ArgKind.SQL_QUERY_READ:
            wrong = writer.update(0) or writer.insert(0, tag)
            if wrong:
                out.append(
                    (
                        "sql_wrong_statement",
                        locator,
                        wrong,
                        f"{arg} is a write statement ({sql_statement_kind(wrong).upper()}) "
                        "where only SELECT is accepted",
                        True,
                    )
                )
        elif spec.kind in (ArgKind.SQL_QUERY_WRITE, ArgKind.SQL_DDL):
            allowed = "INSERT/UPDATE/DELETE" if spec.kind is ArgKind.SQL_QUERY_WRITE else "CREATE TABLE"
            out.append(
                (
                    "sql_wrong_statement",
                    locator,
                    writer.select(0),
                    f"{arg} is a SELECT where only {allowed} is accepted",
                    True,
                )
            )
        if spec.kind in (ArgKind.SQL_QUERY_WRITE, ArgKind.SQL):
            for constraint, condition, sql in writer.violations(tag):
                out.append(
                    (
                        "constraint_violation",
                        locator,
                        sql,
                        f"{arg} inserts a row where {condition} ({constraint.replace('_', ' ')})",
                        True,
                    )
                )
        database = synth.facts.database
        if spec.kind in (ArgKind.SQL_QUERY_WRITE, ArgKind.SQL) and database is not None and database.views:
            view = database.views[0]
            out.append(
                (
                    "wrong_object_kind",
                    locator,
                    f"DELETE FROM {quote_ident(view)} WHERE 1 = 0",
                    f"{arg} deletes from `{view}`, which is a view, not a table",
                    database.dialect == "sqlite",  # PostgreSQL updates simple views through to their table
                )
            )
        if spec.kind is ArgKind.SQL_DDL and synth.facts.database and synth.facts.database.tables:
            existing = synth.facts.database.tables[0].name
            out.append(
                (
                    "already_exists",
                    locator,
                    f"CREATE TABLE {existing} (id INTEGER PRIMARY KEY)",
                    f"{arg} creates table `{existing}`, which already exists",
                    True,
                )
            )
    first = valid.split(None, 1)
    if first:
        broken = valid.replace(first[0], first[0][:-1], 1)
        out.append(
            (
                "sql_syntax_error",
                locator,
                broken,
                f"{arg} is not valid SQL (misspelled `{first[0].upper()}`)",
                True,
            )
        )
    missing = f"no_such_table_{tag}"
    unknown = {
        "select": f"SELECT * FROM {missing}",
        "insert": f"INSERT INTO {missing} (id) VALUES (1)",
        "update": f"UPDATE {missing} SET id = 1 WHERE id = 1",
        "delete": f"DELETE FROM {missing} WHERE id = 1",
    }.get(statement)
    if unknown:
        out.append(
            ("sql_unknown_table", locator, unknown, f"{arg} refers to a table that does not exist", True)
        )
    return out


EXCLUSIVE_WORDS = re.compile(
    r"mutually exclusive|cannot be (?:used|combined|given|specified|passed) (?:together )?with|"
    r"not (?:be )?(?:used |given |specified )?together|(?:but )?not both|only one of|exactly one of|"
    r"either\b.{0,60}\bor\b|instead of|do not (?:use|pass|combine) (?:it )?with|conflicts? with|overrides?",
    re.IGNORECASE,
)


def exclusive_pairs(tool: ToolSpec, specs: list[ArgSpec]) -> set[frozenset[str]]:
    """Pairs of optional arguments the words around them say must not be given together: a sentence
    of the tool's or one argument's description naming both with "mutually exclusive", "not both",
    "cannot be used with", "either … or", "instead of"…"""
    optional = [s for s in specs if not s.required]
    pairs: set[frozenset[str]] = set()
    texts = [tool.description, *(s.description for s in specs)]
    sentences = [part for text in texts for part in re.split(r"(?<=[.;!?])\s+|\n", text or "") if part]
    for sentence in sentences:
        if not EXCLUSIVE_WORDS.search(sentence):
            continue
        named = [s.name for s in optional if re.search(rf"(?<![\w-]){re.escape(s.name)}(?![\w-])", sentence)]
        for i, first in enumerate(named):
            for second in named[i + 1 :]:
                pairs.add(frozenset((first, second)))
        owner = next((s for s in optional if s.description == sentence or sentence in s.description), None)
        if owner is not None:  # "cannot be combined with `tail`" in the description of `head`
            for other in named:
                if other != owner.name:
                    pairs.add(frozenset((owner.name, other)))
    return pairs


def _call_mutations(
    tool: ToolSpec, specs: list[ArgSpec], valid: dict[str, Any], synth: ValueSynth
) -> list[Found]:
    """Mutations of the whole call: a missing required argument, alternatives together, an unknown one."""
    out: list[Found] = []
    for spec in specs:
        if spec.required and spec.name in valid:
            out.append(
                ("missing_required", spec.name, _DELETE, f"required argument `{spec.name}` is missing", True)
            )
    done: set[frozenset[str]] = set()
    stated = exclusive_pairs(tool, specs)
    for spec in specs:
        for other in (s for s in specs if s.name in spec.excludes or frozenset((spec.name, s.name)) in stated):
            pair = frozenset((spec.name, other.name))
            if pair in done:
                continue
            done.add(pair)
            both = dict(valid)
            for member in (spec, other):
                if member.name not in both:
                    both[member.name] = synth.value_for(tool, member, variant=1)
            if None not in (both[spec.name], both[other.name]):
                out.append(
                    (
                        "conflicting_arguments",
                        None,
                        both,
                        f"`{spec.name}` and `{other.name}` are given together",
                        True,
                    )
                )
    out.extend(_operation_mutations(tool, specs, valid))
    out.extend(_span_mutations(specs, valid))
    if valid and specs and not any(s.required for s in specs):
        out.append(("no_arguments", None, {}, "none of its arguments is given (every one is optional)", False))
    unknown = f"probe_unknown_{synth.tag()}"
    strict = tool.input_schema.get("additionalProperties") is False
    out.append(
        (
            "extra_argument",
            None,
            {**valid, unknown: "unexpected"},
            f"an argument the schema does not declare (`{unknown}`) is passed",
            strict,
        )
    )
    out.extend(_wrapper_mutations(tool, valid, unknown))
    return out


def _wrapper_mutations(tool: ToolSpec, valid: dict[str, Any], unknown: str) -> list[Found]:
    """Of a call whose arguments sit in one required object (``params``: a server that takes a model), its
    fields passed at the top level instead, and a field its object's schema does not declare."""
    required = tool.input_schema.get("required") or []
    wrappers = [name for name in required if isinstance(valid.get(name), dict) and valid[name]]
    if len(required) != 1 or len(wrappers) != 1:
        return []
    name = wrappers[0]
    inner = valid[name]
    out: list[Found] = []
    if not set(inner) & set(valid):
        out.append(("unwrapped_arguments", None, {**{k: v for k, v in valid.items() if k != name}, **inner},
                    f"the fields of `{name}` are passed at the top level, not inside `{name}`", True))
    schema = tool.input_schema
    declared = inline_refs((schema.get("properties") or {}).get(name) or {}, schema.get("$defs") or {})
    out.append(("extra_argument", name, {**inner, unknown: "unexpected"},
                f"`{name}` holds a field its schema does not declare (`{unknown}`)",
                isinstance(declared, dict) and declared.get("additionalProperties") is False))
    return out


WIDE_SPAN_DAYS = 400
"""Days a wide span of dates covers: past the month, quarter or year a server may cap a range at."""
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _span_mutations(specs: list[ArgSpec], valid: dict[str, Any]) -> list[Found]:
    """Of a call given both ends of a span of dates (``start_date`` and ``end_date``, ``from``/``to``: the same words
    but for the bound), the span made longer than a year, and its ends swapped."""
    dates = {s.name: valid[s.name] for s in specs
             if isinstance(valid.get(s.name), str) and _ISO_DATE.match(valid[s.name])}
    out: list[Found] = []
    for low, low_value in dates.items():
        low_words = bound_words(low)
        if low_words is None or low_words[0] not in LOWER_BOUNDS:
            continue
        for high, high_value in dates.items():
            high_words = bound_words(high)
            if high_words is None or high_words[0] not in UPPER_BOUNDS or high_words[1] != low_words[1]:
                continue
            try:
                start = dt.date.fromisoformat(low_value[:10])
            except ValueError:
                continue
            end = (start + dt.timedelta(days=WIDE_SPAN_DAYS)).isoformat() + high_value[10:]
            out.append(("wide_span", None, {**valid, high: end},
                        f"`{low}` to `{high}` spans {WIDE_SPAN_DAYS} days (`{low_value}` to `{end}`)", False))
            if low_value != high_value:
                out.append(("reversed_span", None, {**valid, low: high_value, high: low_value},
                            f"`{high}` comes before `{low}` (the two swapped)", True))
    return out


def _operation_mutations(tool: ToolSpec, specs: list[ArgSpec], valid: dict[str, Any]) -> list[Found]:
    """A batch of described operations (:mod:`.operations`) with an operation the description does not
    list, and with a value one parameter allows only for another operation."""
    described = described_operations(tool)
    if described is None:
        return []
    out: list[Found] = []
    key = described.selector
    for spec in specs:
        batch = valid.get(spec.name)
        if spec.kind is not ArgKind.ARRAY or not isinstance(batch, list) or not batch:
            continue
        if not all(isinstance(item, dict) and key in item for item in batch):
            continue
        shown = ", ".join(described.names()[:6])
        out.append(("invalid_enum", f"{spec.name}[0].{key}", "no_such_operation",
                    f"`{spec.name}[0].{key}` names an operation the description does not list ({shown})", True))
        for index, item in enumerate(batch):
            for parameter, (values, owner) in described.restricted.items():
                if item[key] != owner and parameter in item:
                    out.append(("incompatible_value", f"{spec.name}[{index}].{parameter}", values[0],
                                f"`{spec.name}[{index}].{parameter}` is `{values[0]}`, which the description "
                                f"allows only for `{owner}` (not `{item[key]}`)", True))
    return out
