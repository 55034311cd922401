"""Values harvested from tool outputs, kept with their provenance for data-flow probes.

A listing names files, a log names commits, a graph read names entities: later probes that use
those values witness a *data* composition edge (an output of one tool feeds an input of another).
:class:`ValuePool` extracts such values from a call's text and structured output, rewrites
instance paths back to placeholders (``/…/state/root/docs`` → ``${root}/docs``) so they stay
valid in any instance, and keeps a bounded, insertion-ordered set per :class:`ArgKind`.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from toolatlas.models import ToolSpec
from toolatlas.offline.answers import (
    IDENTITY_WORDS,
    answered_values,
    grouped_listing,
    listed_kind,
    named_fixes,
    named_records,
    typed_listing,
)
from toolatlas.offline.kinds import (
    GENERIC_KINDS,
    ArgSpec,
    ToolEffect,
    ToolObject,
    infer_arguments,
    parent_singular,
    tool_effect,
    tool_object,
)
from toolatlas.offline.words import tokens
from toolatlas.probing.bindings import returned_text
from toolatlas.probing.text import MAX_PARSE_CHARS, looks_like_error, parse_answer, to_placeholders
from toolatlas.probing.values import ArgKind, HarvestRef

__all__ = ["ValuePool", "id_like", "id_noun", "is_zone", "looks_like_error", "normalise", "texts_in"]

MAX_PER_KIND = 64

_TOKEN_KEY = re.compile(r"hash|etag|checksum|digest", re.IGNORECASE)
_HEX_TOKEN = re.compile(r"[0-9a-fA-F]{8,128}")
LOCK_FLAGS = ("locked", "is_locked", "isLocked", "read_only", "readonly", "readOnly", "protected", "immutable",
              "frozen")
"""Keys of a record that, set to true, say it must not change."""
LOCKED_CONTEXT = "locked:"
"""The context of the id of a record a listing marks locked (``locked:segment``)."""
FLAG_CONTEXT = "flag:"
"""The context of the id of a record a listing flags otherwise (``flag:has_tags:segment``)."""
FLAGGED_IDS = 3
"""Ids kept per flag of one answer (a long listing flags many records alike)."""
_DATE_KEY = re.compile(r"(?:^|_|-|(?<=[a-z])(?=D))(?:[Dd]ate|[Dd]ay)(?:$|_|-)|^(?:DATE|DAY)$")
"""A key that holds a day: ``posted_date``, ``balance_date``, ``date``, ``dueDate``."""
ISO_DAY = re.compile(r"(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?!\d)")
"""A day written ISO 8601 (``2026-11-03``; at the start of ``2026-11-03T10:30:00`` too)."""


def normalise(text: str, variables: dict[str, str]) -> str:
    """Replace instance values by their placeholders, longest first (the kind's own name before ``root``)."""
    return to_placeholders(text, variables)


_PLACEHOLDER_PATH = re.compile(r"\$\{(root|repo|file|db_path)\}(?:/[^\s'\"`,;)\]}<>|]*)?")
_LISTING = re.compile(r"^\[(FILE|DIR)\]\s+(.+?)(?:\s{2,}.*)?$")
_SHA = re.compile(r"\b[0-9a-f]{40}\b")
_SHORT_SHA = re.compile(r"(?<![\w#-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,12}(?![\w-])")
"""An abbreviated commit name (``dda872b``), as logs and changelogs print them."""
_DIFFSTAT = re.compile(r"^\s*((?:[\w.@+-]+/)*[\w@+-][\w.@+-]*\.\w+)\s+\|\s+\d+")
"""A file a commit changed, as a diffstat prints it (``app/payments/fare.py | 10 ++++``): relative to the repository."""
_BLOBS = re.compile(r"^index\s|[0-9a-f]{7}\.\.[0-9a-f]{7}")
"""A diff's line of blob names (``index 076f1ee..e408e57 100644``): files' contents, not commits."""
_COMMITS = re.compile(r"\bcommits?\b|\bchangelog\b|\bgit\b", re.IGNORECASE)
_ON_BRANCH = re.compile(r"\bOn branch (\S+)")
_TIMEZONE = re.compile(
    r"\b(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)"
    r"/[A-Za-z_+\-0-9]+(?:/[A-Za-z_\-]+)?\b"
)
_URL = re.compile(r"https?://[^\s'\"<>)\]}]+")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_BRANCH_LINE = re.compile(r"^[* ] ([\w./-]+)$")
_PATH_LINE = re.compile(r"\$\{(root|repo|file|db_path)\}(/[^\t:]*)?")
_FAILED_LINE = re.compile(r"\b(error|enoent|eacces|denied|not found|no such|failed)\b", re.IGNORECASE)


class ValuePool:
    """Harvested values by kind, deduplicated, bounded (oldest dropped first), in a deterministic order."""

    def __init__(self, max_per_kind: int = MAX_PER_KIND) -> None:
        self.max_per_kind = max_per_kind
        self._refs: dict[ArgKind, OrderedDict[tuple[str, str | None, str | None], HarvestRef]] = {}

    def __len__(self) -> int:
        return sum(len(refs) for refs in self._refs.values())

    def add(self, ref: HarvestRef) -> bool:
        refs = self._refs.setdefault(ref.kind, OrderedDict())
        key = (ref.value, ref.context, ref.argument)
        if key in refs:
            return False
        refs[key] = ref
        while len(refs) > self.max_per_kind:
            refs.popitem(last=False)
        return True

    def holds(self, value: str) -> bool:
        """Whether ``value`` was harvested from an answer (as any kind), not made by a created name."""
        return any(key[0] == value and not ref.created for refs in self._refs.values() for key, ref in refs.items())

    def siblings(self, value: str) -> list[str]:
        """The values harvested beside ``value`` (not made by a created name): of its kind, context and argument, as
        the other items of the list it came in are."""
        ref = self._listed(value)
        if ref is None:
            return []
        return [r.value for r in self._refs[ref.kind].values()
                if r.context == ref.context and r.argument == ref.argument and not r.created]

    def lister(self, value: str) -> str | None:
        """The tool whose answer ``value`` was first harvested from (not made by a created name); None if none."""
        ref = self._listed(value)
        return ref.tool if ref is not None else None

    def _listed(self, value: str) -> HarvestRef | None:
        for refs in self._refs.values():
            ref = next((r for (v, _c, _a), r in refs.items() if v == value and not r.created), None)
            if ref is not None:
                return ref
        return None

    def dump(self) -> list[dict[str, Any]]:
        """Every ref in pool order, JSON-able (for checkpoints)."""
        return [ref.model_dump(mode="json") for refs in self._refs.values() for ref in refs.values()]

    @classmethod
    def load(cls, refs: list[dict[str, Any]], max_per_kind: int = MAX_PER_KIND) -> ValuePool:
        """The pool :meth:`dump` described, in the same order."""
        pool = cls(max_per_kind)
        for ref in refs:
            pool.add(HarvestRef.model_validate(ref))
        return pool

    def values(
        self,
        kind: ArgKind,
        *,
        context: str | None = None,
        include_created: bool = False,
        argument: str | None = None,
    ) -> list[HarvestRef]:
        """Refs of ``kind``; a generic-kind value an error named for one argument, only for that argument."""
        return [
            r
            for r in self._refs.get(kind, {}).values()
            if (context is None or r.context == context)
            and (include_created or not r.created)
            and (r.argument is None or r.argument == argument or kind not in GENERIC_KINDS)
        ]

    def hints(self) -> list[HarvestRef]:
        """Every value an error named for an argument, in pool order."""
        return [r for refs in self._refs.values() for r in refs.values() if r.argument is not None]

    def named_for(self, argument: str) -> list[HarvestRef]:
        """Every value an error named for ``argument`` (``tool:path``), in pool order."""
        return [r for refs in self._refs.values() for r in refs.values() if r.argument == argument]

    def harvest_error(
        self,
        tool: ToolSpec,
        excerpt: str,
        variables: dict[str, str],
        probe_id: str,
        *,
        arguments: dict[str, Any] | None = None,
        siblings: Mapping[str, ToolSpec] | None = None,
        after: list[dict[str, Any]] | None = None,
    ) -> list[HarvestRef]:
        """Values a failed call's error names as the way out, pooled for the argument they are for — and for the
        argument of the same name of each of ``siblings`` (the server's other tools) that declares it alike (one
        ``sequence`` five tools take): what one of them was told, the others take too (no retry of theirs).
        ``after`` are the calls the failed one was made after (see :attr:`HarvestRef.failed_after`)."""
        added = []
        args = arguments or {}
        for fix in named_fixes(tool, normalise(excerpt, variables), args):
            ref = HarvestRef(
                kind=fix.kind,
                value=fix.value,
                tool=tool.name,
                probe_id=probe_id,
                argument=fix.argument,
                failed_arguments=args,
                failed_after=after or None,
                locator=fix.locator,
            )
            if self.add(ref):
                added.append(ref)
            name = fix.argument.split(":", 1)[1] if fix.argument else ""
            declared = tool.properties.get(name)
            for other, spec in (siblings or {}).items():
                if other != tool.name and declared is not None and spec.properties.get(name) == declared:
                    self.add(ref.model_copy(update={"argument": f"{other}:{name}", "failed_arguments": None,
                                                    "failed_after": None, "locator": None}))
        return added

    def harvest_answered(
        self,
        tool: ToolSpec,
        document: Any,
        takers: Mapping[str, list[tuple[str, ArgSpec]]],
        probe_id: str,
        *,
        arguments: dict[str, Any] | None = None,
    ) -> list[HarvestRef]:
        """Values a successful answer holds under a field named like another tool's argument
        (:func:`~toolatlas.offline.answers.answered_values`), pooled for that argument only."""
        sent = set(texts_in(arguments or {}))
        added = []
        for taker, spec, value in answered_values(document, tool.name, takers, sent):
            ref = HarvestRef(kind=spec.kind, value=value, tool=tool.name, probe_id=probe_id,
                             argument=f"{taker}:{spec.path}")
            if self.add(ref):
                added.append(ref)
        return added

    def harvest(
        self,
        tool: ToolSpec,
        excerpt: str,
        structured: dict[str, Any] | None,
        variables: dict[str, str],
        probe_id: str,
        *,
        arguments: dict[str, Any] | None = None,
        ok: bool = True,
    ) -> list[HarvestRef]:
        """Extract values from one successful call's output (and what it created); returns the new ones.

        ``arguments`` are the call's arguments with placeholders; they give listings their base
        folder and, for a successful create, the names of what now exists.
        """
        if not ok or looks_like_error(excerpt):
            return []
        found: list[tuple[ArgKind, str, str | None, bool]] = []
        specs = infer_arguments(tool)
        args = arguments or {}
        base = next(
            (
                str(args[s.name])
                for s in specs
                if s.kind in (ArgKind.DIR_PATH, ArgKind.PATH) and s.name in args
            ),
            None,
        )
        text = normalise(excerpt, variables)
        document = _parse(text) if not structured or returned_text(structured, excerpt) else structured
        if isinstance(document, dict) and len(document) == 1 and set(document) & _WRAPPERS \
                and isinstance(next(iter(document.values())), list):
            document = next(iter(document.values()))  # ``{"result": [...]}``: a list a framework wrapped
        if document is not None:
            top = _listed_plural(tool) if isinstance(document, list) else ""
            self._walk(to_placeholders(document, variables), tool, args, base, found, key=top)
        self._scan_text(text, tool, base, found)
        if document is None and tool_effect(tool) is ToolEffect.READ:
            read = next((str(args[s.name]) for s in specs if s.kind in _FILE_KINDS and s.name in args), None)
            found.extend((ArgKind.EXISTING_TEXT, line, read, False) for line in _text_lines(text) if read)
        if tool_effect(tool) is ToolEffect.CREATE:
            for spec in specs:
                if spec.name in args:
                    _created(spec, args[spec.name], found, context=None)
        made = {value for _kind, value, _context, created in found if created}
        added = []
        for kind, value, context, created in found:
            created = created or value in made  # an echo of what the call created exists only in its instance
            ref = HarvestRef(
                kind=kind, value=value, tool=tool.name, probe_id=probe_id, context=context, created=created
            )
            if self.add(ref):
                added.append(ref)
        return added

    def _walk(
        self,
        node: Any,
        tool: ToolSpec,
        args: dict[str, Any],
        base: str | None,
        found: list,
        key: str | None = None,
        noun: str | None = None,
    ) -> None:
        """``key``: the key ``node`` sits under (``""`` for the whole output, ``None`` inside a list);
        ``noun``: what the records here are (``task`` under ``tasks``), the kind of a bare ``id``."""
        if isinstance(node, list):
            listed = typed_listing(node, key, tool)
            if listed:
                found.extend(listed)
                return
            if node and all(isinstance(n, dict) and set(n) == {"name"} for n in node):
                kind = ArgKind.TABLE_NAME if tool_object(tool) is ToolObject.TABLE else ArgKind.IDENTIFIER
                found.extend((kind, str(n["name"]), None, False) for n in node)
                return
            if not any(isinstance(n, dict) and any(id_like(k) for k in n) for n in node):  # else its ids name it
                found.extend(named_records(node, key))
            for item in node:
                self._walk(item, tool, args, base, found, noun=parent_singular(key).lower() if key else noun)
            return
        if not isinstance(node, dict):
            return
        found.extend(grouped_listing(node, args, tool))
        if "name" in node and ("entityType" in node or "entity_type" in node):
            name = str(node["name"])
            found.append((ArgKind.ENTITY_NAME, name, None, False))
            found.append(
                (ArgKind.ENTITY_TYPE, str(node.get("entityType") or node.get("entity_type")), None, False)
            )
            for observation in node.get("observations") or []:
                found.append((ArgKind.OBSERVATION, str(observation), name, False))
        elif {"from", "to"} <= set(node) and ("relationType" in node or "relation_type" in node):
            found.append(
                (
                    ArgKind.RELATION_TYPE,
                    str(node.get("relationType") or node.get("relation_type")),
                    None,
                    False,
                )
            )
        elif "name" in node and node.get("type") in ("file", "directory") and base:
            self._tree(node, base, found)
            return
        elif {"cid", "name", "type"} <= set(node):
            table = next((str(v) for k, v in args.items() if "table" in k), None)
            found.append((ArgKind.COLUMN_NAME, str(node["name"]), table, False))
        owner = key  # the key this object sits under: in ``{"/a.txt": {...}}``, the thing it describes
        flags = [k for k, v in node.items() if v is True and not id_like(k)]
        ids = [(k, str(v)) for k, v in node.items()
               if id_like(k) and isinstance(v, str | int) and not isinstance(v, bool)] if flags else []
        for flag in flags if ids else ():  # a record its listing flags (``"locked": true``): its id, a few per flag
            context = (LOCKED_CONTEXT if flag in LOCK_FLAGS else f"{FLAG_CONTEXT}{flag}:") + (id_noun(ids[0][0]) or noun or "")
            if sum(1 for f in found if f[2] == context) < FLAGGED_IDS:
                found.append((ArgKind.IDENTIFIER, ids[0][1], context, False))
        for key, value in node.items():
            if id_like(key) and isinstance(value, str | int) and not isinstance(value, bool) and str(value):
                found.append((ArgKind.IDENTIFIER, str(value), id_noun(key) or noun, False))
            elif _ids_like(key) and isinstance(value, list) and value and all(
                    isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)) for v in value):
                found.extend((ArgKind.IDENTIFIER, str(v), id_noun(key) or noun, False) for v in value if str(v))
            if isinstance(value, str) and key.lower() in ("timezone", "tz", "time_zone") and is_zone(value):
                found.append((ArgKind.TIMEZONE, value, None, False))
            elif isinstance(value, str) and key.lower() in ("datetime", "timestamp", "date_time"):
                found.append((ArgKind.DATETIME, value, None, False))
            elif isinstance(value, str) and _DATE_KEY.search(key) and ISO_DAY.fullmatch(value):
                found.append((ArgKind.DATE, value, None, False))  # ``"posted_date": "2026-11-03"``: a day the data holds
            elif isinstance(value, str) and _TOKEN_KEY.search(key) and _HEX_TOKEN.fullmatch(value):
                # a fingerprint of what was read: its context is the thing it describes (the path read)
                described = owner if owner and "/" in owner else next(
                    (str(v) for k, v in args.items() if isinstance(v, str) and "path" in k.lower()), None
                )
                found.append((ArgKind.HASH, value, described, False))
            elif isinstance(value, dict | list):
                self._walk(value, tool, args, base, found, key, noun=parent_singular(key).lower())

    def _tree(self, node: dict[str, Any], base: str, found: list) -> None:
        path = f"{base.rstrip('/')}/{node['name']}"
        found.append(
            (ArgKind.DIR_PATH if node["type"] == "directory" else ArgKind.FILE_PATH, path, None, False)
        )
        for child in node.get("children") or []:  # a child that says neither file nor folder is not read as one
            if isinstance(child, dict) and "name" in child and child.get("type") in ("file", "directory"):
                self._tree(child, path, found)

    def _scan_text(self, text: str, tool: ToolSpec, base: str | None, found: list) -> None:
        found.extend(listed_kind(text, tool))
        branch_tool = tool_object(tool) is ToolObject.BRANCH
        logs = tool_object(tool) in (ToolObject.COMMIT, ToolObject.REPOSITORY) or bool(_COMMITS.search(tool.description))
        for raw in text.splitlines():
            line = raw.rstrip()
            if _FAILED_LINE.search(line):
                continue  # "…/nope: Error - ENOENT" in a partly failed batch names nothing that exists
            listing = _LISTING.match(line.strip())
            if listing and base:
                kind = ArgKind.DIR_PATH if listing.group(1) == "DIR" else ArgKind.FILE_PATH
                found.append((kind, f"{base.rstrip('/')}/{listing.group(2).strip()}", None, False))
                continue
            whole = line.strip().removesuffix(":")
            if _PATH_LINE.fullmatch(whole):
                found.append((_path_kind(whole), whole, None, False))  # one path per line, spaces allowed
                continue
            if branch_tool and (match := _BRANCH_LINE.match(line)):
                found.append((ArgKind.BRANCH, match.group(1), None, False))
            # each pattern is tried only on lines holding what it cannot match without (most lines
            # hold none: this scan runs on every successful call's output)
            if "${" in line:
                for match in _PLACEHOLDER_PATH.finditer(line):
                    found.append((_path_kind(match.group(0)), match.group(0).rstrip("."), None, False))
            if "On branch " in line:
                for match in _ON_BRANCH.finditer(line):
                    found.append((ArgKind.BRANCH, match.group(1), None, False))
            full = _SHA.findall(line) if len(line) >= 40 else []
            found.extend((ArgKind.REVISION, sha, None, False) for sha in full)
            if logs and not full and not _BLOBS.search(line):  # a log's abbreviated commits, not a diff's blobs
                found.extend((ArgKind.REVISION, sha, None, False) for sha in _SHORT_SHA.findall(line))
            if logs and "|" in line and (changed := _DIFFSTAT.match(line)):
                found.append((ArgKind.FILE_PATH, changed.group(1), None, False))
            if "/" in line:
                found.extend((ArgKind.TIMEZONE, z, None, False) for z in _TIMEZONE.findall(line) if is_zone(z))
            if "://" in line:
                found.extend((ArgKind.URL, u.rstrip(".,"), None, False) for u in _URL.findall(line))
            if "@" in line:
                found.extend((ArgKind.EMAIL, e, None, False) for e in _EMAIL.findall(line))


_WRAPPERS = frozenset({"result", "results", "data", "items"})
"""The one key a framework wraps a returned list under (FastMCP's structured ``{"result": [...]}``)."""


def _listed_plural(tool: ToolSpec) -> str:
    """What a lister's answer that is a bare list holds, by the plural its name ends on (``list_blocks`` → ``blocks``),
    as the key such a list would sit under; "" for a name with no plural (``status``, ``analysis`` are none)."""
    plurals = [w for w in tokens(tool.name) if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is"))]
    return plurals[-1] if plurals else ""


_FILE_KINDS = (ArgKind.FILE_PATH, ArgKind.PATH)
READ_LINES = 8
"""Lines of a file's text kept from one read of it: what a search-and-replace of that file may look for."""
_PROSE = re.compile(r"[^\W\d_]{2,}\W+[^\W\d_]{2,}")


def _text_lines(text: str) -> list[str]:
    """The lines of a read file's text that an edit could look for: a few words each, no path, not too long."""
    lines = (line.strip() for line in text.splitlines())
    kept = [line for line in lines if 8 <= len(line) <= 200 and "${" not in line and _PROSE.search(line)]
    return list(dict.fromkeys(kept))[:READ_LINES]


def texts_in(value: Any) -> list[str]:
    """Every text inside ``value`` (a call's arguments), however deep."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in texts_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in texts_in(v)]
    return []


def _path_kind(path: str) -> ArgKind:
    if path in ("${file}", "${db_path}"):
        return ArgKind.FILE_PATH
    last = path.rstrip("/").rsplit("/", 1)[-1]
    if path.endswith("/") or last.startswith("${"):
        return ArgKind.DIR_PATH
    return ArgKind.FILE_PATH if re.search(r"\.\w{1,8}$", last) else ArgKind.PATH


def _created(spec: ArgSpec, value: Any, found: list, context: str | None) -> None:
    """Record what a successful create call brought into existence."""
    if isinstance(value, list) and spec.items is not None:
        for item in value:
            _created(spec.items, item, found, context)
        return
    if isinstance(value, dict):
        own = next(
            (
                str(value[p.name])
                for p in spec.properties
                if p.kind is ArgKind.ENTITY_NAME and p.name in value
            ),
            None,
        )
        for prop in spec.properties:
            if prop.name in value:
                _created(prop, value[prop.name], found, own)
        return
    if spec.kind is ArgKind.SQL_DDL and isinstance(value, str):
        if match := re.search(r"create\s+table\s+(?:if\s+not\s+exists\s+)?\"?([\w.]+)", value, re.IGNORECASE):
            found.append((ArgKind.TABLE_NAME, match.group(1), None, True))
        return
    if not isinstance(value, str) or not spec.fresh:
        return
    kinds = {
        ArgKind.NEW_PATH: ArgKind.DIR_PATH if spec.target is ToolObject.DIRECTORY else _path_kind(value),
        ArgKind.OBSERVATION: ArgKind.OBSERVATION,
    }
    found.append(
        (kinds.get(spec.kind, spec.kind), value, context if spec.kind is ArgKind.OBSERVATION else None, True)
    )


def _parse(text: str) -> Any:
    stripped = text.strip()
    if not stripped or len(stripped) > MAX_PARSE_CHARS or stripped[0] not in "[{":
        return None
    found = parse_answer(stripped)  # JSON, or the repr() of rows a Python server prints
    return found if found is not None else _json_head(stripped)


def _json_head(text: str) -> Any:
    """The complete values at the head of a JSON text cut short (an answer longer than the excerpt kept):
    ``{"transactions": [{…}, {…}, {"posted`` is read as ``{"transactions": [{…}, {…}]}``. None when no value
    inside it is complete."""
    stack: list[str] = []
    cut, closers = 0, ""
    quoted = escaped = False
    for at, char in enumerate(text):
        if quoted:
            escaped, quoted = (False, True) if escaped else (char == "\\", char != '"')
            continue
        if char == '"':
            quoted = True
        elif char in "[{":
            stack.append("]" if char == "[" else "}")
        elif char in "]}":
            if not stack:
                return None
            stack.pop()
            if stack:
                cut, closers = at + 1, "".join(reversed(stack))
        elif char == "," and stack:
            cut, closers = at, "".join(reversed(stack))
    if not cut:
        return None
    try:
        return json.loads(text[:cut] + closers)
    except json.JSONDecodeError:
        return None


def answered_document(structured: Any, excerpt: str) -> Any:
    """The JSON an answer holds, for harvesting: its structured content (the SDK's ``{"result": "<JSON>"}``
    unwrapped), else its text read as JSON — the complete head of a text cut short too."""
    return _parse(excerpt) if not structured or returned_text(structured, excerpt) else structured


_ID_KEYS = frozenset(IDENTITY_WORDS)


def id_like(key: str) -> bool:
    """A key naming a record's identity: ``id``, ``sku``, ``note_id``, ``taskId``…"""
    lowered = key.lower()
    return lowered in _ID_KEYS or lowered.endswith("_id") or (key.endswith("Id") and len(key) > 2)


def id_noun(name: str) -> str | None:
    """What an id names, from its key or argument name: ``taskId`` → ``task``, ``note_ids`` → ``note``;
    None for a bare ``id``."""
    words = [w for w in tokens(name) if w not in ("id", "ids", "uuid", "key", "keys")]
    return parent_singular(words[-1]) if words else None


def _ids_like(key: str) -> bool:
    """A key holding a list of identities: ``ids``, ``keys``, ``skus``, ``note_ids``…"""
    lowered = key.lower()
    return lowered in {k + "s" for k in _ID_KEYS} or lowered.endswith("_ids") or key.endswith("Ids")


def is_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True
