"""Per-argument boundary mutators: given one argument's spec and valid value, the broken values worth trying.

Each mutator returns :data:`Found` tuples ``(family, locator, new value, condition, expected
failure)`` and only for the kinds it understands; :func:`toolatlas.offline.mutations.boundary_mutations`
runs them all over every argument of a valid call.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from toolatlas.environments.base import GENERATED_VALUES
from toolatlas.offline.formats import names_a_notation
from toolatlas.offline.harvest import LOCKED_CONTEXT, id_noun
from toolatlas.offline.items import open_items
from toolatlas.offline.kinds import PATH_KINDS, SQL_KINDS, ArgSpec, ToolEffect, ToolObject
from toolatlas.offline.maps import map_shape
from toolatlas.offline.semantic import dimension_of, incompatible_unit, near_misses
from toolatlas.offline.targets import described_fields, described_words
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.values import ArgKind

__all__ = ["SCALAR_MUTATORS", "Found", "MutationContext"]

Found = tuple[str, str | None, Any, str, bool]
"""``(family, locator, new value, condition, expected failure)``."""


class MutationContext(NamedTuple):
    """What every mutator may consult besides the argument itself."""

    synth: ValueSynth
    effect: ToolEffect
    text: str
    """The tool's name and description, lower-cased."""
    in_call: frozenset[str]
    """Every string value of the valid call (a replacement must differ from all of them)."""


Mutator = Callable[[ArgSpec, str, Any, MutationContext], list[Found]]

UNICODE_TEXT = "Zoë ✓ 日本語 🚀"
_OVERSIZED = "oversized_text"
OVERSIZED_TEXT = f"${{{_OVERSIZED}}}"
"""A 100 KB string, carried as its placeholder and made when the call is rendered (:data:`GENERATED_VALUES`)."""
OVERSIZED_TEXT_CHARS = len(GENERATED_VALUES[_OVERSIZED])
LONG_NAME_CHARS = 300
"""Longer than the 255 bytes most file systems allow per name."""

_REFERENCE_WORDS = {
    ArgKind.BRANCH: "branch",
    ArgKind.REVISION: "revision",
    ArgKind.ENTITY_NAME: "entity",
    ArgKind.TABLE_NAME: "table",
    ArgKind.COLUMN_NAME: "column",
    ArgKind.SCHEMA_NAME: "schema",
    ArgKind.OBSERVATION: "observation",
    ArgKind.IDENTIFIER: "object",
}


def _arg(locator: str) -> str:
    return f"`{locator}`"


def _a(noun: str) -> str:
    """``noun`` with its indefinite article ("an object", "a file")."""
    return f"{'an' if noun[:1].lower() in 'aeio' else 'a'} {noun}"


def _root_of(value: str, synth: ValueSynth) -> str:
    match = re.match(r"\$\{\w+\}", value)
    return match.group(0) if match else synth.targets.root


def _other_format(synth: ValueSynth, value: str) -> tuple[str, str] | None:
    """An existing file of another format than ``value``'s, of its nature (text or not) first, with its extension;
    None when ``value`` names no file of the snapshot or the folder holds no other format."""
    fact = synth.targets.file_fact(value)
    if fact is None or not fact.extension:
        return None
    for binary in (not fact.text, fact.text):
        for candidate in synth.targets.files(binary=binary):
            other = synth.targets.file_fact(candidate.value)
            if other is not None and other.extension and other.extension.lower() != fact.extension.lower():
                return candidate.value, other.extension
    return None


def path_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    synth, effect, text = ctx.synth, ctx.effect, ctx.text
    if spec.kind not in PATH_KINDS or not isinstance(value, str):
        return []
    out: list[Found] = []
    arg, tag, root = _arg(loc), synth.tag(), _root_of(value, synth)
    folder_like = spec.kind in (ArgKind.DIR_PATH, ArgKind.REPO_PATH)
    stem, dot, extension = value.rpartition(".")
    if spec.kind in (ArgKind.FILE_PATH, ArgKind.PATH) and dot and stem and "/" not in extension and 1 <= len(extension) <= 5:
        out.append(("missing_extension", loc, stem,
                    f"{arg} names an existing file without its extension (`.{extension}`)", False))
    relative = value.removeprefix(f"{root}/")
    if (spec.kind in (ArgKind.FILE_PATH, ArgKind.PATH) and relative != value and relative and "${" not in relative
            and effect in (ToolEffect.READ, ToolEffect.UNKNOWN)):  # never a write where a relative path may land
        out.append(("relative_path", loc, relative, f"{arg} is given relative to the root (`{relative}`)", False))
    out.append(
        (
            "path_escape",
            loc,
            f"{root}/.." if folder_like else f"{root}/../outside_{tag}.txt",
            f"{arg} climbs out of the allowed directory with `..`",
            True,
        )
    )
    if effect is ToolEffect.READ:
        outside = "/etc" if folder_like else "/etc/hostname"
    else:  # never point a write at the host: the instance's home is outside the root but still disposable
        outside = "${home}" if folder_like else f"${{home}}/escape_{tag}.txt"
    out.append(
        ("path_escape", loc, outside, f"{arg} is an absolute path outside the allowed directory", True)
    )
    folder, name = posixpath.split(value)
    if spec.kind in (ArgKind.FILE_PATH, ArgKind.PATH):
        suffix = posixpath.splitext(name)[1]
        out.append(
            (
                "nonexistent_reference",
                loc,
                f"{folder}/missing_{tag}{suffix}",
                f"{arg} names a file that does not exist",
                True,
            )
        )
        if effect in (ToolEffect.CREATE, ToolEffect.UPDATE) and name:  # a write: does it make the folders on the way?
            out.append(
                (
                    "missing_parent",
                    loc,
                    f"{root}/missing_{tag}/{name}",
                    f"the folder that should contain {arg} does not exist",
                    not re.search(r"nested|parent|recursive", text),
                )
            )
        other = _other_format(synth, value) if effect in (ToolEffect.READ, ToolEffect.UNKNOWN) else None
        if other is not None:  # a photo straight off a phone (.HEIC) where the others are .png
            out.append(("wrong_object_kind", loc, other[0], f"{arg} names a file of another format (`{other[1]}`)",
                        False))
        dirs = synth.targets.folders(include_root=False)
        if dirs and spec.kind is ArgKind.FILE_PATH:
            out.append(
                (
                    "path_is_directory",
                    loc,
                    dirs[0].value,
                    f"{arg} names a directory where a file is expected",
                    True,
                )
            )
    elif spec.kind is ArgKind.DIR_PATH:
        out.append(
            (
                "nonexistent_reference",
                loc,
                f"{root}/missing_{tag}",
                f"{arg} names a directory that does not exist",
                True,
            )
        )
        files = synth.targets.files()
        if files:
            out.append(
                (
                    "path_is_file",
                    loc,
                    files[0].value,
                    f"{arg} names a file where a directory is expected",
                    True,
                )
            )
    elif spec.kind is ArgKind.NEW_PATH:
        creates_parents = bool(re.search(r"nested|parent|recursive", text))
        out.append(
            (
                "missing_parent",
                loc,
                f"{root}/missing_{tag}/{name}",
                f"the folder that should contain {arg} does not exist",
                not creates_parents,
            )
        )
        makes_folder = spec.target is ToolObject.DIRECTORY
        if not makes_folder:
            taken = [c.value for c in synth.targets.folders(include_root=False) if c.value not in ctx.in_call]
            if taken:  # a file to be written where a folder already is
                out.append(("path_is_directory", loc, taken[0], f"{arg} names an existing directory", True))
        existing = [c.value for c in synth.targets.files() if c.value not in ctx.in_call]
        if existing:  # an existing file where a folder should be on the way
            out.append(
                (
                    "path_is_file",
                    loc,
                    f"{existing[0]}/{name or 'probe'}",
                    f"the parent of {arg} is a file, not a directory",
                    True,
                )
            )
        tolerant = bool(re.search(r"overwrit|succeed silently|already exists.{0,40}succe", text))
        pool = (
            synth.targets.folders(include_root=False)
            if spec.target and spec.target.value == "directory"
            else synth.targets.files()
        )
        existing = [c.value for c in pool if c.value not in ctx.in_call]
        if existing:
            out.append(
                (
                    "already_exists",
                    loc,
                    existing[0],
                    f"{arg} names something that already exists",
                    not tolerant,
                )
            )
        out.append(
            (
                "unicode_value",
                loc,
                f"{folder}/{UNICODE_TEXT} {tag}.txt",
                f"{arg} has non-ASCII characters and spaces",
                False,
            )
        )
    if spec.kind is not ArgKind.REPO_PATH:
        out.append(
            (
                "oversized_value",
                loc,
                f"{root}/{'a' * LONG_NAME_CHARS}.txt",
                f"{arg} has a {LONG_NAME_CHARS}-character file name (over the 255-byte limit)",
                True,
            )
        )
    return out


_FILE_WORD = re.compile(r"\bfiles?\b")
_NEW_NAME = re.compile(r"^(?:new|target|dest(?:ination)?)_?name$", re.IGNORECASE)
"""An argument that gives the name a tool's file gets (``new_name`` of a rename)."""


def _file_name_mutations(loc: str, value: str, ctx: MutationContext) -> list[Found]:
    """A new name a file tool gives (``new_name`` of a rename) set to a file the folder holds (by its name, or its
    stem when the valid name has no extension) and put in a folder that does not exist: refused, overwritten, or
    moved — what a caller choosing a name meets."""
    arg, tag = _arg(loc), ctx.synth.tag()
    names = [posixpath.basename(c.value) for c in ctx.synth.targets.files()]
    if "." not in value:
        names = [n.rsplit(".", 1)[0] if "." in n.lstrip(".") else n for n in names]
    taken = [n for n in names if n and n != value and not any(n in v for v in ctx.in_call)]
    out: list[Found] = []
    if taken:
        out.append(("already_exists", loc, taken[0], f"{arg} names a file that already exists (`{taken[0]}`)", True))
    out.append(("missing_parent", loc, f"no_such_folder_{tag}/{value}",
                f"{arg} puts the file in a folder that does not exist", True))
    return out


def reference_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    synth = ctx.synth
    what = _REFERENCE_WORDS.get(spec.kind)
    if spec.kind is ArgKind.EXISTING_TEXT:
        return [
            (
                "no_match_edit",
                loc,
                f"Text that is not in the file ({synth.tag()})",
                f"{_arg(loc)} does not occur in the file",
                True,
            )
        ]
    if spec.kind is ArgKind.SEARCH_QUERY and ctx.effect is ToolEffect.UPDATE and isinstance(value, str):
        return [("no_match_edit", loc, f"Text that occurs nowhere {synth.tag()}",
                 f"{_arg(loc)} is text that occurs nowhere (nothing to replace)", True)]
    if spec.kind is ArgKind.STRING and isinstance(value, str) and names_a_notation(spec.description):
        return [("nonexistent_reference", loc, f"no_such_key_{synth.tag()}",
                 f"{_arg(loc)} names a key the document does not have", True)]
    if what is None or not isinstance(value, str):
        return []
    arg, tag, targets = _arg(loc), synth.tag(), synth.targets
    out: list[Found] = []
    if spec.kind is ArgKind.IDENTIFIER and _FILE_WORD.search(ctx.text) and (spec.fresh or _NEW_NAME.search(spec.name)):
        out.extend(_file_name_mutations(loc, value, ctx))
    if spec.fresh:
        existing = {
            ArgKind.BRANCH: targets.branches(),
            ArgKind.ENTITY_NAME: targets.entities(),
            ArgKind.TABLE_NAME: targets.tables(),
        }.get(spec.kind, [])
        existing = [c for c in existing if c.value not in ctx.in_call]
        if existing:
            out.append(
                ("already_exists", loc, existing[0].value, f"{arg} names {_a(what)} that already exists", True)
            )
        if spec.kind in (ArgKind.BRANCH, ArgKind.ENTITY_NAME, ArgKind.IDENTIFIER):
            unicode_name = f"probe-ünïcødé-{tag}" if spec.kind is ArgKind.BRANCH else f"{UNICODE_TEXT} {tag}"
            out.append(("unicode_value", loc, unicode_name, f"{arg} has non-ASCII characters", False))
    else:
        missing = {
            ArgKind.REVISION: "".join(f"{synth.rng.getrandbits(4):x}" for _ in range(40)),
            ArgKind.ENTITY_NAME: f"No Such Entity {tag}",
            ArgKind.OBSERVATION: f"No such observation {tag}",
            ArgKind.BRANCH: f"no-such-branch-{tag}",
        }.get(spec.kind, f"no-such-{what}-{tag}" if _kebab(value) else f"no_such_{what}_{tag}")
        out.append(("nonexistent_reference", loc, missing, f"{arg} names {_a(what)} that does not exist", True))
    if spec.kind in (ArgKind.BRANCH, ArgKind.REVISION):
        out.append(
            (
                "leading_dash",
                loc,
                f"--output=${{home}}/injected_{tag}.txt",
                f"{arg} starts with `-` and could be parsed as a command-line option",
                True,
            )
        )
    if spec.fresh:
        out.append(
            (
                "oversized_value",
                loc,
                "a" * LONG_NAME_CHARS * 20,
                f"{arg} is {LONG_NAME_CHARS * 20} characters long",
                spec.kind in (ArgKind.BRANCH, ArgKind.TABLE_NAME),
            )
        )
    return out


_ID_NAME = re.compile(r"(^|_)(id|key|index)$|[a-z](Id|ID|Index|Key)$")


def _id_like(name: str) -> bool:
    """``id``, ``task_id``, ``noteId``, ``row_index``: an argument naming one existing record."""
    return bool(_ID_NAME.search(name))


def identity_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """References by number or by a code shaped like the real ones (``nt-0003`` → ``nt-9999``) that name nothing,
    and — for a tool that changes or deletes — the id of a record a listing marks locked."""
    arg = _arg(loc)
    if spec.kind in (ArgKind.INTEGER, ArgKind.NUMBER) and _id_like(spec.name) and not spec.count_like:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return []
        missing = 999_999 if spec.maximum is None or spec.maximum >= 999_999 else int(spec.maximum)
        if missing == value:
            return []
        return [("nonexistent_reference", loc, missing, f"{arg} is an id no record has", True)]
    if spec.kind is ArgKind.UUID and isinstance(value, str):
        return [("nonexistent_reference", loc, "00000000-0000-4000-8000-000000000000",
                 f"{arg} is a well-formed UUID no record has", True)]
    out: list[Found] = []
    if ctx.effect in (ToolEffect.UPDATE, ToolEffect.DELETE) and isinstance(value, str | int) and _id_like(spec.name):
        noun = id_noun(spec.name)
        locked = [r.value for r in ctx.synth.pool.values(ArgKind.IDENTIFIER)
                  if (r.context or "").startswith(LOCKED_CONTEXT) and r.context in (LOCKED_CONTEXT + (noun or ""),
                                                                                     LOCKED_CONTEXT)]
        locked = [v for v in locked if v != str(value) and v not in ctx.in_call]
        if locked:  # the id as the argument takes it (a number for an integer id)
            target: Any = int(locked[0]) if isinstance(value, int) and locked[0].isdigit() else locked[0]
            out.append(("locked_target", loc, target, f"{arg} names a {noun or 'record'} its listing marks locked", True))
    if spec.kind is ArgKind.IDENTIFIER and not spec.fresh and isinstance(value, str) and re.search(r"\d", value):
        shaped = re.sub(r"\d", "9", value)
        if shaped != value and shaped not in ctx.in_call and not ctx.synth.pool.holds(shaped):  # '9' may be real
            out.append(("nonexistent_reference", loc, shaped, f"{arg} is shaped like a real id but names nothing", True))
    return out


def format_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    arg = _arg(loc)
    match spec.kind:
        case ArgKind.TIMEZONE:
            return [
                ("invalid_timezone", loc, "Mars/Olympus_Mons", f"{arg} is not an IANA time zone name", True)
            ]
        case ArgKind.TIME_OF_DAY:
            return [
                ("invalid_time_format", loc, "25:61", f"{arg} is not a valid 24-hour time (HH:MM)", True),
                ("invalid_time_format", loc, "2:30 PM", f"{arg} uses a 12-hour clock instead of HH:MM", True),
            ]
        case ArgKind.DATETIME:
            return [
                (
                    "invalid_time_format",
                    loc,
                    "2024-13-45T25:61:00",
                    f"{arg} is not a valid date and time",
                    True,
                ),
                ("malformed_value", loc, "not a date", f"{arg} is a word, not a date and time", True),
            ]
        case ArgKind.DATE:
            return [("invalid_time_format", loc, "2024-13-45", f"{arg} is not a valid date", True),
                    ("malformed_value", loc, "not a date", f"{arg} is a word, not a date", True)]
        case ArgKind.UNIT if isinstance(value, str) and incompatible_unit(value):
            paired = any(dimension_of(v) for v in ctx.in_call if v != value)  # from/to: a conversion to break
            other = incompatible_unit(value)
            if paired:
                why = f"{arg} is `{other}`, a unit of another dimension"
                return [("incompatible_value", loc, other, why, True)]
        case ArgKind.ENUM:
            shown = ", ".join(str(m) for m in spec.enum[:6])
            return [("invalid_enum", loc, "not_a_valid_choice", f"{arg} is not one of: {shown}", True)]
    return []


def number_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    if spec.kind not in (ArgKind.INTEGER, ArgKind.NUMBER):
        return []
    arg = _arg(loc)
    out: list[Found] = []
    high = spec.exclusive_maximum if spec.exclusive_maximum is not None else _shift(spec.maximum, 1)
    if high is not None:
        out.append(("out_of_range", loc, high, f"{arg} is above its maximum", True))
    low = spec.exclusive_minimum if spec.exclusive_minimum is not None else _shift(spec.minimum, -1)
    if low is not None:
        out.append(("out_of_range", loc, low, f"{arg} is below its minimum", True))
    for bound, side in ((spec.maximum, "maximum"), (spec.minimum, "minimum")):  # allowed, and where sums break:
        if bound is not None and bound != value and abs(bound) < 10**6:  # a 100% deposit leaves no loan to divide
            edge = int(bound) if spec.json_type == "integer" or float(bound).is_integer() else bound
            out.append(("at_limit", loc, edge, f"{arg} is at its {side} ({edge})", False))
    if spec.count_like or (spec.minimum is not None and spec.minimum >= 0):
        out.append(("negative_number", loc, -1, f"{arg} is negative", True))
        out.append(("oversized_value", loc, 10**9, f"{arg} is huge (10^9)", False))
    elif spec.minimum is None and spec.exclusive_minimum is None and not _id_like(spec.name):
        # nothing bounds it below: an amount, a reading — whether a negative one is refused, garbled
        # or converted is what the description rarely says
        negative = -abs(value) if isinstance(value, int | float) and not isinstance(value, bool) and value else -5
        out.append(("negative_number", loc, negative, f"{arg} is negative ({negative})", False))
        if spec.json_type == "integer":  # a position or a count past what there is: refused, capped or taken
            out.append(("out_of_range", loc, 10**9, f"{arg} is huge (10^9), past any count", False))
    out.append(("wrong_type", loc, "three", f"{arg} is a string instead of a number", True))
    if spec.json_type == "integer":
        out.append(("wrong_type", loc, 2.5, f"{arg} is fractional where an integer is expected", True))
    elif spec.count_like:  # a count the schema types as any number: the fraction it allows is no count
        out.append(("fractional_count", loc, 2.5, f"{arg} is fractional (2.5) where it counts things", False))
    return out


def _shift(bound: float | None, step: int) -> float | None:
    return None if bound is None else bound + step


MAX_STATED_LENGTH = 10_000
"""A ``maxLength`` up to this is probed one character past (a longer one is what the 100 KB value tries)."""


def _one_past(value: Any, limit: int) -> str:
    """A string one character longer than ``limit``, made of the valid value's own text (``my-session-…``)."""
    seed = value if isinstance(value, str) and value and "${" not in value else "value-"
    return (seed * (limit // len(seed) + 2))[: limit + 1]


def shape_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """Type, null, emptiness and size: the mutations every argument admits."""
    synth = ctx.synth
    arg = _arg(loc)
    out: list[Found] = []
    if spec.json_type == "string" and spec.kind is not ArgKind.ENUM:
        out.append(("wrong_type", loc, 12345, f"{arg} is a number instead of a string", True))
        if spec.max_length is not None and 0 < spec.max_length < MAX_STATED_LENGTH:
            out.append(("out_of_range", loc, _one_past(value, spec.max_length),
                        f"{arg} is {spec.max_length + 1} characters, one past the {spec.max_length} its schema allows",
                        True))
        if spec.min_length is not None and 1 < spec.min_length < MAX_STATED_LENGTH:
            out.append(("out_of_range", loc, _one_past(value, spec.min_length - 2),
                        f"{arg} is {spec.min_length - 1} characters, one short of the {spec.min_length} it takes",
                        True))
        out.append(("empty_value", loc, "", f"{arg} is an empty string", spec.kind is not ArgKind.TEXT))
        if spec.kind in (
            ArgKind.TEXT,
            ArgKind.SEARCH_QUERY,
            ArgKind.STRING,
            ArgKind.JSON,
            ArgKind.OBSERVATION,
        ) or (spec.kind in SQL_KINDS):
            out.append(
                (
                    "oversized_value",
                    loc,
                    OVERSIZED_TEXT,
                    f"{arg} is {OVERSIZED_TEXT_CHARS // 1000} KB long",
                    False,
                )
            )
        if spec.kind in (ArgKind.TEXT, ArgKind.SEARCH_QUERY, ArgKind.OBSERVATION):
            out.append(
                (
                    "unicode_value",
                    loc,
                    f"{UNICODE_TEXT} {synth.tag()}",
                    f"{arg} has non-ASCII characters and emoji",
                    False,
                )
            )
    elif spec.kind is ArgKind.BOOLEAN:
        out.append(("wrong_type", loc, "yes", f"{arg} is a string instead of a boolean", True))
    elif spec.kind is ArgKind.ARRAY and isinstance(value, list):
        first = value[0] if value else "x"
        out.append(("wrong_type", loc, first, f"{arg} is a single value instead of an array", True))
        if value:
            out.append(
                ("empty_value", loc, [], f"{arg} is an empty array", bool(spec.min_items) or spec.required)
            )
        if open_items(spec):  # what its items hold, the server says of an item holding nothing (.items)
            out.append(("empty_value", loc, [{}], f"{arg} holds one item with no fields", False))
        if spec.max_items is not None:
            out.append(
                (
                    "out_of_range",
                    loc,
                    [first] * (spec.max_items + 1),
                    f"{arg} has more than {spec.max_items} items",
                    True,
                )
            )
        elif value:
            out.append(("oversized_value", loc, [first] * 500, f"{arg} has 500 items", False))
    elif spec.kind is ArgKind.OBJECT and isinstance(value, dict):
        out.append(("wrong_type", loc, "not an object", f"{arg} is a string instead of an object", True))
        if any(p.required for p in spec.properties):
            out.append(("empty_value", loc, {}, f"{arg} is an empty object", True))
    if not spec.nullable and (spec.required or "[" in loc):
        out.append(("null_value", loc, None, f"{arg} is null", True))
    return out


_LETTER = re.compile(r"\b(?:single|one)\s+(?:uppercase\s+|capital\s+)?letter\b|\(\s*A\s*-\s*Z\s*\)|\bletters? A\s*-\s*Z\b")


def semantic_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """Near-misses of a value with a known syntax (:func:`toolatlas.offline.semantic.near_misses`), and
    for a value the description says is one letter (``A-Z``), a lower-case letter and two letters."""
    if not isinstance(value, str):
        return []
    misses = near_misses(spec, value)
    found: list[Found] = [("malformed_value", loc, wrong, f"{_arg(loc)} {why}", True) for wrong, why in misses]
    if len(value) == 1 and value.isalpha() and _LETTER.search(spec.description or ""):
        found.append(("malformed_value", loc, value.lower() if value.isupper() else "aa",
                      f"{_arg(loc)} is not the one upper-case letter its description asks for", True))
        found.append(("malformed_value", loc, value.upper() * 2, f"{_arg(loc)} is two letters, not one", True))
    return found


_QUERY_WORD = re.compile(r"[A-Za-z]{4,}")


def query_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A search query's longest word joined to another by a hyphen, followed by an operator word in capitals, and
    cut to its inner part (``idget`` of ``widget``): what a full-text engine's syntax and matching rules do to a
    query a person writes, which the description rarely says (a short word loses its last letter: ``ide`` of
    ``idea``). Either outcome is knowledge."""
    if spec.kind is not ArgKind.SEARCH_QUERY or spec.fresh or not isinstance(value, str) or spec.enum:
        return []
    words = _QUERY_WORD.findall(value)
    if not words:
        return []
    word = max(words, key=len)
    arg = _arg(loc)
    inner = word[1:-1] if len(word) >= 6 else word[:-1]  # ``idget`` of ``widget``, ``ide`` of ``idea``
    return [
        ("query_syntax", loc, f"{word}-based", f"{arg} joins two words with a hyphen (`{word}-based`)", False),
        ("query_operator", loc, f"{word} OR", f"{arg} ends on the operator word OR (`{word} OR`)", False),
        ("word_fragment", loc, inner, f"{arg} is part of a word (`{inner}` of `{word}`)", False),
    ]


def other_field_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A search query set to another field of the record its working query is in (the ``tags`` value ``vip`` of the
    contact whose name holds ``Khalid``): a search over some fields answers nothing, one over every field finds the
    record — which fields a search reads, what a description seldom lists. Either outcome is knowledge."""
    if (ctx.effect is not ToolEffect.READ or spec.kind is not ArgKind.SEARCH_QUERY or spec.fresh or spec.enum
            or not isinstance(value, str) or "${" in value):
        return []
    return [("other_field", loc, item, f"{_arg(loc)} is the {field} of a record holding `{value}` (`{item}`)", False)
            for field, item in ctx.synth.targets.other_fields(value, ctx.text) if item not in ctx.in_call]


_FILTER_NAME = re.compile(r"(?:^|_)(?:tags?|labels?|categor(?:y|ies)|kinds?|types?|status|topics?|genres?|authors?"
                          r"|owners?|groups?|folders?|projects?)$", re.IGNORECASE)
"""Names of an argument a listing narrows its answer by (``tag``, ``status``, ``project``)."""
_FILTER_KINDS = frozenset({ArgKind.STRING, ArgKind.IDENTIFIER, ArgKind.ENTITY_NAME})
_VALUE_PARTS = re.compile(r"[-_./: ]+")


def filter_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A value a listing filters by, known to the server (:func:`_known`), cut to its first part (``rate`` of
    ``rate-limit``) or short of its last letter (``aut`` of ``auth``): a filter that matches whole values answers
    with nothing, one that matches inside them finds the entries — what a caller who half-remembers a tag meets."""
    if (ctx.effect is not ToolEffect.READ or spec.kind not in _FILTER_KINDS or spec.enum or spec.fresh
            or not isinstance(value, str) or _id_like(spec.name) or "${" in value):
        return []
    if not (_FILTER_NAME.search(spec.name) or "filter" in (spec.description or "").lower()):
        return []
    if sum(c.isalpha() for c in value) < 4 or not _known(spec, value, ctx):
        return []
    first = _VALUE_PARTS.split(value.strip())[0]
    part = first if len(first) >= 3 and first != value.strip() else value.strip()[:-1]
    return [("word_fragment", loc, part, f"{_arg(loc)} is part of a value (`{part}` of `{value}`)", False)]


_WORD_NAME = re.compile(r"(?:^|_)(?:terms?|words?|lemmas?|keywords?|headwords?)$", re.IGNORECASE)
"""Names of an argument a lookup of words takes (``term``, ``word``)."""
_PLAIN_WORD = re.compile(r"[A-Za-z]{3,14}")
_WORD_KINDS = _FILTER_KINDS | {ArgKind.SEARCH_QUERY}


def inflected_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A word a lookup of words knows (:func:`_known`), inflected (``started`` for ``start``): a dictionary of base
    forms answers nothing, a lookup of stems finds the word — what a caller who copies a word from a sentence
    meets."""
    if (ctx.effect is not ToolEffect.READ or spec.kind not in _WORD_KINDS or spec.enum or spec.fresh
            or not isinstance(value, str) or not _WORD_NAME.search(spec.name) or not _PLAIN_WORD.fullmatch(value)):
        return []
    if not _known(spec, value, ctx):
        return []
    ending = "d" if value.lower().endswith("e") else "ed"
    form = value + (ending.upper() if value.isupper() else ending)
    return [("inflected_form", loc, form, f"{_arg(loc)} is an inflected form (`{form}` for `{value}`)", False)]


_PREFIXED = re.compile(r"(?P<letters>[A-Za-z]{1,4})[-_ ]?(?P<rest>\d[\w.-]*)")


def prefix_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A code the server gave (:func:`_known`) without the letters it starts with (``1.1`` for ``R1.1``, ``8`` for
    ``GR-8``, ``1.5.0`` for ``v1.5.0``): matched by its number, or answered with nothing — what a caller who retypes
    the number of a rule, an issue or a release sends."""
    if spec.kind not in _FILTER_KINDS or spec.enum or spec.fresh or not isinstance(value, str):
        return []
    match = _PREFIXED.fullmatch(value.strip())
    if match is not None and _known(spec, value, ctx):
        bare = match.group("rest")
        return [("stripped_prefix", loc, bare,
                 f"{_arg(loc)} drops the letters it starts with (`{bare}` for `{value}`)", False)]
    prefix = _namespace(value, ctx.synth.pool.siblings(value))
    if prefix is None:
        return []
    short = value[len(prefix):]
    lister = ctx.synth.pool.lister(value)
    listed = f"`{lister}` lists" if lister else "it is listed with"
    return [("stripped_prefix", loc, short,
             f"{_arg(loc)} drops the prefix the names {listed} share (`{short}` for `{value}`)", False)]


_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[-_.:/])(?=\w)")
NAMESPACE_PEERS = 3
"""Names that must share a prefix with a value for it to be their namespace (``HKQuantityTypeIdentifier``)."""


def _namespace(value: str, siblings: list[str]) -> str | None:
    """The prefix ``value`` shares with at least :data:`NAMESPACE_PEERS` of the names listed with it, cut back to
    where a word starts (``HKQuantityTypeIdentifier`` of ``HKQuantityTypeIdentifierStepCount``), when at least four
    characters long and leaving three; None otherwise."""
    shared = sorted((len(posixpath.commonprefix([value, s])) for s in siblings if s != value), reverse=True)
    if len(shared) < NAMESPACE_PEERS:
        return None
    reach = shared[NAMESPACE_PEERS - 1]
    cut = max((m.start() for m in _WORD_START.finditer(value) if m.start() <= reach), default=0)
    return value[:cut] if cut >= 4 and len(value) - cut >= 3 else None


_STORED_TEXT_KINDS = frozenset({ArgKind.TEXT, ArgKind.STRING, ArgKind.OBSERVATION})


def separator_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """Text a tool stores holding a column bar and a line break (``dry | wet`` over two lines): what a store kept as
    lines, or as a markdown table's rows, cannot hold in one field — refused (``must not contain '|'``), or written
    into a row that breaks the file. Either outcome is knowledge; only text a writing tool keeps is tried."""
    if (ctx.effect not in (ToolEffect.CREATE, ToolEffect.UPDATE) or spec.kind not in _STORED_TEXT_KINDS
            or spec.enum or not isinstance(value, str) or not value.strip() or "${" in value):
        return []
    first = value.strip().splitlines()[0][:40].rstrip()
    return [("stored_separator", loc, f"{first} | {ctx.synth.tag()}\nsecond line",
             f"{_arg(loc)} holds a column bar (`|`) and a line break", False)]


def _kebab(value: Any) -> bool:
    """Whether a name is written with hyphens and no underscore (``fare-rules``): a name made up beside it is written
    so too, or a server that takes only such names refuses its form, not its absence."""
    return isinstance(value, str) and "-" in value and "_" not in value and not value.startswith("-")


_CASED_KINDS = frozenset({
    ArgKind.IDENTIFIER, ArgKind.ENTITY_NAME, ArgKind.STRING, ArgKind.EXPRESSION, ArgKind.UNIT, ArgKind.CURRENCY,
    ArgKind.COUNTRY_CODE, ArgKind.LANGUAGE_CODE, ArgKind.LOCALE, ArgKind.SHEET_NAME, ArgKind.TIMEZONE,
    ArgKind.TABLE_NAME, ArgKind.COLUMN_NAME,
})
"""Kinds of names and symbols whose letters' case may or may not matter to a server (``NaCl`` and ``NACL``, a key,
a unit, a sheet): what a caller who retypes a value gets wrong. Paths, free text, code and record ids are left
out."""


_NEAR_KINDS = frozenset({ArgKind.IDENTIFIER, ArgKind.ENTITY_NAME, ArgKind.STRING, ArgKind.SHEET_NAME})
"""Kinds of names a server may look up loosely (the closest name it knows for one it does not)."""


def _known(spec: ArgSpec, value: str, ctx: MutationContext) -> bool:
    """Whether ``value`` is a name the server knows: one its answers gave or its state's records hold, or the
    schema's or description's own example or default (not a placeholder word the build filled in)."""
    return (ctx.synth.pool.holds(value) or value in ctx.synth.targets.stored_values() or value in spec.examples
            or (spec.has_default and value == spec.default))


def name_part_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """One word that two or more names of the state hold (``Dawson`` of ``Claire Dawson`` and ``Claire Dawson
    (admin)``: :meth:`~toolatlas.offline.targets.Targets.shared_word`), for a name a lookup takes: refused, answered
    for every name holding it, or for one of them alone — the lookup matches part of a name and picks for the caller
    (:func:`~toolatlas.probing.hidden.hidden_failure` tells)."""
    if (ctx.effect is not ToolEffect.READ or spec.kind not in _NEAR_KINDS or spec.enum or spec.fresh
            or not isinstance(value, str) or "${" in value or not _known(spec, value, ctx)):
        return []
    said = described_words(f"{ctx.text} {spec.description}")
    shared = ctx.synth.targets.shared_word(value, said, described_fields(spec.description))
    if shared is None or shared[0] in ctx.in_call:
        return []
    word, names = shared
    shown = ", ".join(f"`{n}`" for n in names[:2])
    return [("name_part", loc, word, f"{_arg(loc)} is one word (`{word}`) of {len(names)} names ({shown})", False)]


def near_name_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A name the server knows (:func:`_known`), with a suffix no name has (``Two Sum_3f2a``): refused as unknown, or
    taken for the closest name the server knows — an answer about ``Two Sum`` is an action on what the caller did
    not name (:func:`~toolatlas.probing.hidden.hidden_failure` tells)."""
    if spec.fresh or spec.kind not in _NEAR_KINDS or not isinstance(value, str) or spec.enum or _id_like(loc):
        return []
    if sum(c.isalpha() for c in value) < 3 or "${" in value or not _known(spec, value, ctx):
        return []
    near = f"{value}_{ctx.synth.tag()}"
    return [("near_name", loc, near, f"{_arg(loc)} names `{value}` with a suffix no name has", True)]


_DIGIT_CODE = re.compile(r"\d[\d .\-/]*\d")
"""A code written in digits and the separators of its mask (``529.982.247-25``, ``4111 1111 1111 1111``)."""
_CODE_DIGITS = 8
"""Digits a code needs to be taken for one a check digit may guard (tax ids, card, account and slip numbers)."""
_CODE_KINDS = frozenset({ArgKind.STRING, ArgKind.IDENTIFIER, ArgKind.TEXT})
_DATE_LIKE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}")


def check_digit_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A code of eight digits or more, as the call gave it, with its last digit changed (``529.982.247-26`` for
    ``…-25``): many such codes end in a check digit (a tax id, a card or bank account number, a barcode), so the
    server refuses it, or judges it invalid — what a caller who mistypes one digit meets; a server that answers as for
    any other code shows no check is made."""
    if spec.fresh or spec.enum or spec.kind not in _CODE_KINDS or not isinstance(value, str):
        return []
    code = value.strip()
    if not _DIGIT_CODE.fullmatch(code) or sum(c.isdigit() for c in code) < _CODE_DIGITS or _DATE_LIKE.fullmatch(code):
        return []
    changed = code[:-1] + str((int(code[-1]) + 1) % 10)
    if changed in ctx.in_call:
        return []
    return [("check_digit", loc, changed, f"{_arg(loc)} is the code given with its last digit changed (`{changed}`)",
             True)]


_CONFIRMING = re.compile(r"(?:confirm(?:ed|ation)?|force|forced|yes|approved?|acknowledged?|i_?understand\w*)",
                         re.IGNORECASE)
"""Names of a flag a caller sets to say "yes, do it" (``confirm``, ``force``)."""
_MUST_BE_TRUE = re.compile(r"\b(?:must|has to|needs? to) be (?:set to )?true\b|\bset (?:it )?to true to\b"
                           r"|\btrue to (?:confirm|proceed|delete|remove|overwrite)\b", re.IGNORECASE)
"""A flag's description saying it has to be true for the action to happen."""


def unconfirmed_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A confirming flag (``confirm``, ``force``, or one its description says must be true) the call set true, sent
    false: what a caller who has not confirmed sends — refused, often as a successful answer (``Error: You must set
    confirm=true to delete a profile.``), or done anyway (the flag guards nothing)."""
    if spec.kind is not ArgKind.BOOLEAN or value is not True:
        return []
    if not _CONFIRMING.fullmatch(loc.rsplit(".", 1)[-1]) and not _MUST_BE_TRUE.search(spec.description):
        return []
    return [("unconfirmed", loc, False, f"{_arg(loc)} is false: the action is not confirmed", True)]


_CODE_VALUE = re.compile(r"\d[\d.\-]*")
_CODE_NAMED = re.compile(r"['\"`]?(\d[\d.\-]*)['\"`]?\s+(?:for|=|is|means)\s+(?:the\s+)?"
                         r"([A-Z][\w'&/-]*(?:\s+(?:[A-Z][\w'&/-]*|and|of|in|&)){0,5})")
"""A code and what it stands for in a description (``'151252' for Software Developers``, ``'51' for VA``)."""


def code_name_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A code in digits sent as the name its description says it stands for (``Software Developers`` for
    ``151252``): what a caller who knows the thing, not its code, sends — refused (``must be a SOC code``), or
    looked up by name."""
    if (spec.kind not in _FILTER_KINDS or spec.enum or spec.fresh or not isinstance(value, str)
            or not _CODE_VALUE.fullmatch(value.strip())):
        return []
    named = dict((code, name.strip()) for code, name in _CODE_NAMED.findall(spec.description))
    name = named.get(value.strip()) or next(iter(named.values()), None)
    if name is None or name in ctx.in_call:
        return []
    return [("name_for_code", loc, name, f"{_arg(loc)} is the name a code stands for (`{name}`), not the code", False)]


def path_for_text_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A document's text argument given the path of the file the text was read from (``${root}/hymn.musicxml`` where
    its MusicXML is expected): what a caller who has the file, not its contents, sends — refused (``does not appear
    to be MusicXML``), or read as the document's text."""
    if spec.kind in PATH_KINDS or not isinstance(value, str) or len(value) < 2:
        return []
    path = ctx.synth.targets.file_of_text(value)
    if path is None or path in ctx.in_call:
        return []
    return [("wrong_object_kind", loc, path, f"{_arg(loc)} is the path of a file (`{path}`) where its text is expected",
             True)]


def case_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A name the server knows (:func:`_known`) written in capitals and in lower case (whichever differ from it),
    capitals first (a build probes one misuse per argument: the first): whether the server matches names whatever
    their case, or refuses (``unknown element 'A'`` for ``NACL``). A member of a set the description lists is
    written capitalised (``Sana`` for ``sana``), as a request names a person or a status."""
    if spec.enum and spec.enum_from_description and value in spec.enum and isinstance(value, str) and not spec.fresh:
        return _member_case(spec, loc, value, ctx)
    if spec.fresh or spec.kind not in _CASED_KINDS or not isinstance(value, str) or spec.enum or _id_like(loc):
        return []
    if sum(c.isalpha() for c in value) < 2 or "${" in value or not _known(spec, value, ctx):
        return []
    found: list[Found] = []
    if value.upper() == value:  # nothing to capitalise (``H2O``): a documented example that has (``Ca(OH)2``)
        mixed = next((e for e in spec.examples if isinstance(e, str) and e.upper() != e and e.lower() != e
                      and sum(c.isalpha() for c in e) >= 2 and e.upper() not in ctx.in_call), None)
        if mixed is not None:
            found.append(("case_changed", loc, mixed.upper(),
                          f"{_arg(loc)} is written in capitals (`{mixed.upper()}` for `{mixed}`)", False))
    for changed, how in ((value.upper(), "in capitals"), (value.lower(), "in lower case")):
        if changed != value and changed not in ctx.in_call:
            found.append(("case_changed", loc, changed, f"{_arg(loc)} is written {how} (`{changed}` for `{value}`)",
                          False))
    return found


def _member_case(spec: ArgSpec, loc: str, value: str, ctx: MutationContext) -> list[Found]:
    """A listed member in lower case written capitalised, one in capitals written in lower case, unless the set
    holds that form too."""
    changed = value.capitalize() if value.islower() else value.lower() if value.isupper() else None
    if changed is None or changed == value or changed in spec.enum or changed in ctx.in_call:
        return []
    return [("case_changed", loc, changed, f"{_arg(loc)} is a listed value written otherwise (`{changed}` for "
             f"`{value}`)", False)]


def map_mutations(spec: ArgSpec, loc: str, value: Any, ctx: MutationContext) -> list[Found]:
    """A map argument's entry misused (:mod:`.maps`): its value outside the set the description lists, its key
    naming nothing of the field the description says the keys come from."""
    shape = map_shape(spec, ctx.text)
    if shape is None or not isinstance(value, dict) or not value:
        return []
    key, entry = next(iter(value.items()))
    arg, out = _arg(loc), list[Found]()
    if shape.values:
        out.append(("invalid_enum", loc, {key: "not_a_valid_choice"},
                     f"{arg} maps `{key}` to a value outside the set its description lists", True))
    if shape.key_field:
        made_up = f"no_such_{shape.key_field}_{ctx.synth.tag()}"
        out.append(("nonexistent_reference", loc, {made_up: entry},
                    f"{arg} has a key that is no {shape.key_field.replace('_', ' ')} the answers list", True))
    return out


SCALAR_MUTATORS: tuple[Mutator, ...] = (
    path_mutations,
    reference_mutations,
    identity_mutations,
    format_mutations,
    semantic_mutations,
    query_mutations,
    other_field_mutations,
    filter_mutations,
    inflected_mutations,
    prefix_mutations,
    code_name_mutations,
    path_for_text_mutations,
    separator_mutations,
    near_name_mutations,
    check_digit_mutations,
    unconfirmed_mutations,
    name_part_mutations,
    case_mutations,
    number_mutations,
    map_mutations,
    shape_mutations,
)
