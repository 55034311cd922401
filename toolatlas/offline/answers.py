"""What a server's answers name, typed by kind: listings that name sheets or units, errors that name the fix.

Two sources feed the :class:`~toolatlas.offline.harvest.ValuePool` here:

- **listings** — a list of strings (or of ``{"name": ...}`` records) under a key or from a tool
  whose name (or description: ``available hash algorithms``) says what it lists (``sheets``,
  ``units``, ``currencies``), one per line or on one line between commas, and ``Noun: a, b, c``
  lines in text, give values of the kind the noun means (:func:`typed_listing`,
  :func:`listed_kind`);
- **fields named like an argument** — a record's ``"projects": ["house"]`` holds values another tool's
  ``project`` argument takes (:func:`answered_values`): the server's own names for what it holds, where
  an invented value ("example") matches nothing; tied to that argument only;
- **errors** — the values an error names as the way out (:func:`toolatlas.offline.hints.error_values`)
  are tied to the argument they are for: the one the error names (zod's ``path``, pydantic's
  location), else the one whose refused value it quotes, else the one its noun matches, else the
  call's only argument; nothing when the evidence is split (:func:`named_fixes`). About a path, an
  error names formats (``Supported: .csv, .xlsx``), kept as the formats the path may have. A fix
  keeps the failed call and where the value goes, so the proposer can retry the call corrected.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from toolatlas.models import ToolSpec
from toolatlas.offline.hints import NamedValues, error_values, listed_items
from toolatlas.offline.kinds import (
    GENERIC_KINDS,
    PATH_KINDS,
    SEMANTIC_KINDS,
    SQL_KINDS,
    ArgSpec,
    infer_arguments,
    parent_singular,
    typed_text,
)
from toolatlas.offline.lexicon import semantic_kind
from toolatlas.offline.maps import map_key_spec, map_shape
from toolatlas.offline.schemas import conforms
from toolatlas.offline.words import EFFECT_VERBS, tokens, tool_tokens
from toolatlas.probing.values import ArgKind

__all__ = ["Fix", "answered_values", "argument_takers", "listed_kind", "named_fixes", "noun_kind", "typed_listing"]

MAX_LISTED = 64
_NOUNS = {
    "table": ArgKind.TABLE_NAME,
    "branch": ArgKind.BRANCH,
    "timezone": ArgKind.TIMEZONE,
    "zone": ArgKind.TIMEZONE,
    "entity": ArgKind.ENTITY_NAME,
    "column": ArgKind.COLUMN_NAME,
    "schema": ArgKind.SCHEMA_NAME,
}
_FILE_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}")
_LISTING_WORDS = frozenset({"list", "enumerate", "supported", "available", "all", "known"})
_LABELLED = re.compile(r"^\s*(?:[-*•]\s*)?([A-Za-z][A-Za-z _]{0,30}?)\s*:\s*(\S.*)$")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*([^\s:,;]{1,40})\s*$")

Found = tuple[ArgKind, str, str | None, bool]
"""``(kind, value, context, created)`` as :class:`~toolatlas.offline.harvest.ValuePool` collects them."""


class Fix(NamedTuple):
    """A value an error named for one argument of the failed call."""

    kind: ArgKind
    value: str
    argument: str
    """``tool:path`` of the argument."""
    locator: str
    """Where the value goes in the failed call's arguments (``sheet``, ``ranges[0]``)."""


def noun_kind(words: list[str]) -> ArgKind | None:
    """The kind of value a noun names (``sheets`` → sheet name, ``units`` → unit), if a specific one."""
    singular = [parent_singular(w) for w in words]
    for word in reversed(singular):
        if word in _NOUNS:
            return _NOUNS[word]
    found = semantic_kind(singular, "", " ".join(singular), parent=[]) or semantic_kind(
        words, "", " ".join(words), parent=[]
    )
    return ArgKind(found) if found else None


def _listing_noun(tool: ToolSpec) -> ArgKind | None:
    """What a listing tool lists, from the nouns of its name (``list_sheets``, ``get_supported_units``), else
    from a plural its description says are available (``Get information about available hash algorithms``)."""
    words = tool_tokens(tool)
    nouns = [w for w in words if w not in EFFECT_VERBS and w not in _LISTING_WORDS]
    lists = bool(set(words) & _LISTING_WORDS) or any(parent_singular(w) != w for w in nouns)
    named = noun_kind(nouns) if nouns and lists else None
    said = _DESCRIBED_LISTING.search(tool.description or "") if named is None else None
    if said is None:
        return named  # ``read_cell`` shows one value, not a listing
    return noun_kind(tokens(said.group(1)))


_DESCRIBED_LISTING = re.compile(
    r"\b(?:available|supported|allowed|accepted|known|valid)\s+((?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*s)\b", re.IGNORECASE)
"""A description's plural noun phrase after a word saying what exists: ``available hash algorithms``."""
_COMMA_LINE = re.compile(r"[^\s,;:]{1,40}(?:,\s*[^\s,;:]{1,40}){2,}")
"""A one-line answer that is a list: ``blake2b, md5, sha256``."""


def typed_listing(node: list[Any], key: str | None, tool: ToolSpec) -> list[Found]:
    """Values of a specific kind in a JSON list: its key (or the tool's name, for a whole output) says."""
    if key is None:  # a list inside a list (the rows of a table): nothing says what it holds
        return []
    kind = noun_kind(tokens(key)) if key else _listing_noun(tool)
    if kind is None and key and parent_singular(key) != key and node and all(isinstance(n, str) for n in node):
        # ``{"lemmas": ["aqueduct", …]}``: what an argument named ``lemma`` takes (:data:`LABEL_CONTEXT`)
        label = LABEL_CONTEXT + parent_singular(key).lower()
        return [(ArgKind.IDENTIFIER, n, label, False) for n in node[:MAX_LISTED] if 0 < len(n) <= 80]
    if kind is None or not node:
        return []
    if all(isinstance(n, str) for n in node):
        return [(kind, n, None, False) for n in node[:MAX_LISTED] if 0 < len(n) <= 80]
    if kind in SEMANTIC_KINDS and all(isinstance(n, dict) for n in node):
        names = [n.get("name") or n.get("title") or n.get("id") for n in node]
        return [
            (kind, str(v), None, False) for v in names[:MAX_LISTED] if isinstance(v, str | int) and str(v)
        ]
    return []


RECORD_NAMES = ("name", "label", "title")
"""The fields a record is called by, in the order one is taken."""


_SCHEMA_NOUNS = frozenset({"table", "column", "database", "schema", "view", "index", "field", "property", "key"})
"""What a listing of a database's or a document's shape names: kinds of their own (a table, a column), no record."""


def named_records(node: list[Any], key: str | None) -> list[Found]:
    """What the records of a list under a plural key are called — ``{"accounts": [{"name": "Joint Current", …}]}``
    — when every record has a ``name``, ``label`` or ``title``: what an argument named ``account`` takes
    (:data:`LABEL_CONTEXT`). Files and folders of a tree are paths, not names; tables and columns are the
    database's shape (:data:`_SCHEMA_NOUNS`)."""
    if not key or parent_singular(key) == key or not node or not all(isinstance(n, Mapping) for n in node):
        return []
    if parent_singular(key).lower() in _SCHEMA_NOUNS or any(n.get("type") in ("file", "directory") for n in node):
        return []
    names = [next((r[f] for f in RECORD_NAMES if isinstance(r.get(f), str) and r[f]), None) for r in node]
    if not all(names):
        return []
    label = LABEL_CONTEXT + parent_singular(key).lower()
    return [(ArgKind.IDENTIFIER, n, label, False) for n in names[:MAX_LISTED] if n and len(n) <= 80 and "\n" not in n]


GROUP_CONTEXT = "group:"
"""The context of an item a listing groups under a label (``group:DOING`` for ``{"DOING": ["Fix login"]}``)."""
MAX_GROUP_KEY = 40


def grouped_listing(node: Mapping[str, Any], arguments: Mapping[str, Any], tool: ToolSpec) -> list[Found]:
    """The items of a listing grouped under labels — ``{"TODO": [...], "DOING": [...]}``, or the one group a filter
    asked for (``{"DOING": [...]}`` answering ``column="DOING"``): names of things that exist, each in the context
    of its group (:data:`GROUP_CONTEXT`), which an argument described as "the task currently in DOING" takes. A key
    that says what its items are (``files``, ``lemmas``) is a typed listing instead."""
    if not node or not all(isinstance(v, list) and all(isinstance(i, str) for i in v) for v in node.values()):
        return []
    asked = {str(v) for v in arguments.values() if isinstance(v, str)}
    if len(node) < 2 and not set(node) & asked:
        return []
    if any(len(k) > MAX_GROUP_KEY or "/" in k or typed_listing(v, k, tool) for k, v in node.items()):
        return []
    return [(ArgKind.IDENTIFIER, item, GROUP_CONTEXT + key, False)
            for key, items in node.items() for item in items[:MAX_LISTED] if 0 < len(item) <= 80]


_KEYS_HEADER = re.compile(r"\b(keys|fields|properties|attributes)\s*:\s*$", re.IGNORECASE)
_KEY_ITEM = re.compile(r"^\s*[-*•]\s+([^\s:,;]{1,60})\s*$")
KEY_CONTEXT = "key"
"""The context of a value listed as a key of a document (what a path into it may name)."""


def _keys_listed(lines: list[str]) -> list[Found]:
    """The bulleted items under a line that announces keys (``Object with 4 keys:``): the names of a
    document's keys, identifiers in the :data:`KEY_CONTEXT`."""
    found: list[Found] = []
    under = False
    for line in lines[:MAX_LISTED]:
        if _KEYS_HEADER.search(line):
            under = True
            continue
        item = _KEY_ITEM.match(line) if under else None
        if item is None:
            under = False
            continue
        found.append((ArgKind.IDENTIFIER, item.group(1), KEY_CONTEXT, False))
    return found


IDENTITY_WORDS = ("id", "key", "sku", "uuid", "slug", "code", "handle")
"""Names a record's identity goes by (a key ``id``, a label ``Key:``)."""
_ID_LABEL = re.compile(rf"^\s*(?:[-*•]\s*|\d+[.)]\s*)?({'|'.join(IDENTITY_WORDS)})\s*:\s*([^\s,;:]{{1,60}})\s*$",
                       re.IGNORECASE)
"""A record's identity on a line of its own (``1. Key: vaswani2017attention``, ``- id: 42``)."""
LABEL_CONTEXT = "label:"
"""The context of an identity an answer labels (``label:key``): what an argument of that name takes."""


_ID_HEADER = re.compile(rf"(?<![A-Za-z])({'|'.join(IDENTITY_WORDS)})s?\s*[:：]\s*$", re.IGNORECASE)
_BARE_ID = re.compile(r"^\s*([^\s:,;]{1,60})\s*$")


def _identities_listed(lines: list[str]) -> list[Found]:
    """The bare lines under a line that announces records' identities (``All keys:``, ``所有条目的key:``), up to the
    first line that is not one: identities labelled by that word, like ``Key: …`` lines."""
    found: list[Found] = []
    label = None
    for line in lines:
        bare = _BARE_ID.match(line)
        if label is not None and bare:
            found.append((ArgKind.IDENTIFIER, bare.group(1), label, False))
            continue
        header = _ID_HEADER.search(line)
        label = LABEL_CONTEXT + header.group(1).lower() if header else None
    return found[:MAX_LISTED]


def listed_kind(text: str, tool: ToolSpec) -> list[Found]:
    """Values in text: ``Sheets: Sales, Targets`` lines, records' identities labelled ``Key: …`` / ``ID: …``, and
    the bare lines of a listing tool's output."""
    found: list[Found] = []
    lines = text.splitlines()
    for line in lines:
        identity = _ID_LABEL.match(line)
        if identity:
            found.append((ArgKind.IDENTIFIER, identity.group(2), LABEL_CONTEXT + identity.group(1).lower(), False))
            continue
        labelled = _LABELLED.match(line)
        if labelled:
            kind = noun_kind(tokens(labelled.group(1)))
            if kind is not None and kind not in GENERIC_KINDS:
                found.extend((kind, v, None, False) for v in listed_items(labelled.group(2)))
    found.extend(_keys_listed(lines))
    found.extend(_identities_listed(lines))
    listing = _listing_noun(tool)
    if listing in SEMANTIC_KINDS and len(lines) <= MAX_LISTED:
        bare = [_BULLET.match(line) for line in lines if line.strip()]
        if bare and all(bare):
            found.extend((listing, m.group(1), None, False) for m in bare if m)
        elif len(lines) == 1 and _COMMA_LINE.fullmatch(text.strip()):
            found.extend((listing, v.strip(), None, False) for v in text.split(",")[:MAX_LISTED] if v.strip())
    return found


# -- errors -----------------------------------------------------------------------------------------


def _leaves(specs: list[ArgSpec], values: dict[str, Any], prefix: str = "") -> list[tuple[ArgSpec, str, Any]]:
    out: list[tuple[ArgSpec, str, Any]] = []
    for spec in specs:
        if spec.name not in values:
            continue
        locator = f"{prefix}.{spec.name}" if prefix else spec.name
        value = values[spec.name]
        if isinstance(value, dict):
            out.extend(_leaves(spec.properties, value, locator))
        elif isinstance(value, list) and spec.items is not None:
            for index, item in enumerate(value[:8]):
                if isinstance(item, dict):
                    out.extend(_leaves(spec.items.properties, item, f"{locator}[{index}]"))
                else:
                    out.append((spec.items, f"{locator}[{index}]", item))
        else:
            out.append((spec, locator, value))
    return out


def _quoted(value: Any, text: str) -> bool:
    shown = str(value)
    if not shown:
        return "''" in text or '""' in text
    if any(f"{q}{shown}{q}" in text for q in ("'", '"', "`")):
        return True
    return len(shown) >= 4 and re.search(rf"(?<![\w-]){re.escape(shown)}(?![\w-])", text) is not None


def _names_part_of_path(spec: ArgSpec, sent: Any, text: str) -> bool:
    """The error quotes a path argument's file name or extension (``Unsupported file format: '.txt'``)."""
    if spec.kind not in PATH_KINDS or not isinstance(sent, str) or "/" not in sent:
        return False
    name = sent.rstrip("/").rsplit("/", 1)[-1]
    suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    return _quoted(name, text) or (bool(suffix) and _quoted(suffix, text))


def _is_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _suffix(path: Any) -> str:
    name = str(path).rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""


def _names_the_argument(name: str, said: set[str]) -> bool:
    """Whether an error's words (besides the values it offers) name the argument, every word of it."""
    words = {parent_singular(w) for w in tokens(name)}
    return bool(words) and words <= said


_JSON_KEY = re.compile(r'"[\w-]+"\s*:')
"""The keys of a JSON error (``"code":``, ``"hint":``): its shape, not words it says about an argument."""


_SETTING = re.compile(r"(?<![\w-])([A-Za-z_]\w*)\s*=\s*(true|false|-?\d+)\b", re.IGNORECASE)
"""An argument set to a value in an error's words: ``Call the tool with dry_run=true``."""
_NOW = r"(?:now|current(?:ly)?(?:\s+is)?|latest(?:\s+is)?|expected)\s*[:=]?\s*"
_HAD = r"(?:you\s+(?:had|sent|gave|passed)|got|received|given)\s*[:=]?\s*"
_TOKEN = r"['\"`]?(?P<{}>[\w.:/-]{{0,63}}\w)['\"`]?"
_CURRENT = re.compile(
    _NOW + _TOKEN.format("value") + r"\s*[,;]\s*(?:but\s+)?" + _HAD + _TOKEN.format("sent") + r"(?=[\s)\].,;]|$)"
    + "|" + _HAD + _TOKEN.format("sent2") + r"\s*[,;]\s*(?:but\s+)?" + _NOW + _TOKEN.format("value2") + r"(?=[\s)\].,;]|$)",
    re.IGNORECASE,
)
"""A value an error says is the current one beside the one the call sent: ``now f890255f19e1e979, you had 2.0.0``,
``expected 7, got 2``, ``got 2, expected 7``."""


def named_fixes(tool: ToolSpec, text: str, arguments: dict[str, Any]) -> list[Fix]:
    """The values ``text`` (a failed call's error) names, each tied to the argument it is for; an optional argument
    the call left out that the text sets to a flag or a number (``Call the tool with dry_run=true``); and the current
    value it gives beside the stale one an argument sent (``now f890255f19e1e979, you had 2.0.0``)."""
    specs = infer_arguments(tool)
    leaves = [leaf for leaf in _leaves(specs, arguments) if not isinstance(leaf[2], bool)]
    fixes: list[Fix] = []
    for match in _SETTING.finditer(text):
        spec = next((s for s in specs if s.name == match.group(1) and not s.required and s.name not in arguments), None)
        if spec is not None and conforms(typed_text(match.group(2), spec), spec.json_schema):
            fixes.append(Fix(spec.kind, match.group(2).lower(), f"{tool.name}:{spec.path}", spec.name))
    for match in _CURRENT.finditer(text):  # the current value, for the argument that sent the stale one
        value, stale = match.group("value") or match.group("value2"), match.group("sent") or match.group("sent2")
        for spec, locator, sent in leaves:
            if str(sent) == stale != value and conforms(typed_text(value, spec), spec.json_schema):
                fixes.append(Fix(spec.kind, value, f"{tool.name}:{spec.path}", locator))
    for spec, locator, sent in leaves:  # "Document a/notes.txt.docx does not exist": it adds `.docx`
        if spec.kind in PATH_KINDS and isinstance(sent, str) and sent:
            added = re.search(re.escape(sent) + r"(\.[A-Za-z][A-Za-z0-9]{1,4})\b", text)
            if added and added.group(1).lower() != _suffix(sent):
                fixes.append(Fix(spec.kind, added.group(1).lower(), f"{tool.name}:{spec.path}", locator))
    for named in error_values(text):
        noun = {parent_singular(w) for w in tokens(named.noun)} - {
            "available",
            "supported",
            "valid",
            "allowed",
        }
        said = {parent_singular(w) for w in tokens(_JSON_KEY.sub(" ", text))} - {parent_singular(v) for v in named.values}
        scored = []
        for spec, locator, sent in leaves:
            if (spec.kind not in PATH_KINDS and named.argument not in (spec.name, locator)
                    and not any(conforms(typed_text(v, spec), spec.json_schema) for v in named.values)):
                continue  # values its schema refuses are not for it (``'51'`` is no `scope` of national/state/metro)
            own = {parent_singular(w) for w in tokens(spec.name)} | set(spec.kind.value.split("_"))
            score = 4 * (named.argument in (spec.name, locator)) if named.argument else 0
            score += 2 * _names_the_argument(spec.name, said)  # "Invalid unit. Valid options: points"
            refused = str(sent) not in named.values and (
                _quoted(sent, text) or _names_part_of_path(spec, sent, text)
            )
            score += 3 * refused + 2 * bool(
                noun & own
            )  # a value among the offered ones was not the refused one
            score += bool({str(v) for v in spec.enum} & set(named.values))
            scored.append((score, spec, locator, sent))
        scored.sort(key=lambda s: -s[0])
        if not scored:
            continue
        best = scored[0]
        if best[0] == 0 and len(scored) > 1:
            continue  # nothing says which argument the values are for
        tied = [s for s in scored if s[0] == best[0]]
        if len(tied) > 1 and len({str(s[3]) for s in tied}) > 1:
            continue  # two arguments it may be about, given different values: which one is not said
        for _score, spec, locator, sent in tied:  # the same refused value in each (`start`, `end`): each takes them
            fixes.extend(_fixes_for(tool, spec, locator, sent, named, noun))
    return fixes


def _fixes_for(tool: ToolSpec, spec: ArgSpec, locator: str, sent: Any, named: NamedValues, noun: set[str]) -> list[Fix]:
    """The fixes ``named`` gives the argument it is about."""
    fixes: list[Fix] = []
    if spec.kind in PATH_KINDS:  # "Supported: .csv, .ods, .xlsx": the formats a path may have
        refused_suffix = _suffix(sent)
        extensions = [
            v.lower() for v in named.values if _FILE_EXTENSION.fullmatch(v) and v.lower() != refused_suffix
        ]
        return [Fix(spec.kind, e, f"{tool.name}:{spec.path}", locator) for e in extensions]
    if spec.kind in SQL_KINDS:
        return []  # about a statement: nothing to substitute
    kind = spec.kind
    if kind in GENERIC_KINDS and spec.json_type not in ("integer", "number"):  # a count is no name
        kind = noun_kind(sorted(noun)) or kind
    for value in named.values:
        if value == str(sent) or not conforms(typed_text(value, spec), spec.json_schema):
            continue
        if kind is ArgKind.TIMEZONE and not _is_zone(value):
            continue
        fixes.append(Fix(kind, value, f"{tool.name}:{spec.path}", locator))
    return fixes


MAX_ANSWERED = 8
"""Values one answer gives one argument by its field's name (a long listing says nothing more)."""
ANSWERED_CHARS = 64
"""A longer value (a todo's whole text, a description) is a record's content, not a name an argument takes."""
MAX_ANSWERED_DEPTH = 4
MAX_TAKERS = 4
"""An argument name more tools take is the server's handle of what it holds (a document's ``alias``, a
``path``): the values its answers mint or list reach those tools by their own means, and a pooled copy per
taker would crowd out the values errors named."""


def argument_takers(specs: Mapping[str, ToolSpec]) -> dict[str, list[tuple[str, ArgSpec]]]:
    """Field name → ``(tool, spec)`` of the plain string arguments named so (``project`` also under its
    plural ``projects``): arguments whose values nothing else types (no path, id, enum or semantic kind),
    of names at most :data:`MAX_TAKERS` tools take."""
    takers: dict[str, list[tuple[str, ArgSpec]]] = {}
    for name, tool in specs.items():
        for spec in infer_arguments(tool):
            if spec.kind is ArgKind.STRING and spec.json_type == "string" and not spec.fresh:
                takers.setdefault(spec.name.lower(), []).append((name, spec))
            elif (shape := map_shape(spec, tool.description)) is not None and shape.key_field:
                keys = map_key_spec(spec, shape)  # a map keyed by an answer field: ``merchant_clean`` feeds its keys
                takers.setdefault(keys.name.lower(), []).append((name, keys))
    return {field: found for field, found in takers.items() if len(found) <= MAX_TAKERS}


def answered_values(
    document: Any, tool: str, takers: Mapping[str, list[tuple[str, ArgSpec]]], sent: set[str]
) -> list[tuple[str, ArgSpec, str]]:
    """``(taker tool, its argument, value)`` for the short strings ``tool``'s answer holds under a field
    named like another tool's argument; not what the call itself sent (an echo of an invented value)."""
    found: dict[tuple[str, str], list[str]] = {}
    specs: dict[tuple[str, str], ArgSpec] = {}

    def walk(node: Any, depth: int) -> None:
        if depth > MAX_ANSWERED_DEPTH:
            return
        if isinstance(node, list):
            for item in node[:MAX_LISTED]:
                walk(item, depth + 1)
            return
        if not isinstance(node, Mapping):
            return
        for key, value in node.items():
            if not _names(value):
                walk(value, depth + 1)
                continue
            field = str(key).lower()
            texts = [value] if isinstance(value, str) else value
            for taker, spec in takers.get(field, []) or takers.get(parent_singular(field), []):
                if taker == tool:
                    continue
                values = found.setdefault((taker, spec.path), [])
                specs[taker, spec.path] = spec
                for text in texts:
                    if (0 < len(text) <= ANSWERED_CHARS and "\n" not in text and text not in sent
                            and text not in values and len(values) < MAX_ANSWERED):
                        values.append(text)

    walk(document, 0)
    return [(taker, specs[taker, path], value) for (taker, path), values in found.items() for value in values]


def _names(value: Any) -> bool:
    """Whether ``value`` is a text or a list of texts (what a field naming things holds)."""
    return isinstance(value, str) or (isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value))
