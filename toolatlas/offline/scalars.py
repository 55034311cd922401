"""One valid scalar per argument kind: paths, names, refs, times, text, numbers, enums.

Called by :class:`toolatlas.offline.values.ValueSynth` for every argument that is neither an
object, an array nor SQL. A kind whose real targets are all used up (or absent from the
environment) raises :class:`Unsatisfiable`; an optional argument is then simply left out.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import posixpath
import re
import uuid
from typing import TYPE_CHECKING, Any

from toolatlas.models import ToolSpec
from toolatlas.offline.answers import GROUP_CONTEXT, KEY_CONTEXT, LABEL_CONTEXT
from toolatlas.offline.formats import moment_text, names_a_notation, stated_moment
from toolatlas.offline.harvest import id_like, id_noun
from toolatlas.offline.jsonpaths import is_jsonpath, says_jsonpath
from toolatlas.offline.kinds import (
    PATH_KINDS,
    SEMANTIC_KINDS,
    SQL_KINDS,
    ArgSpec,
    ToolEffect,
    ToolObject,
    parent_singular,
    typed_text,
)
from toolatlas.offline.schemas import Unsatisfiable, conforms
from toolatlas.offline.semantic import semantic_value
from toolatlas.offline.targets import Candidate, described_fields, described_words, likeness, names_format
from toolatlas.offline.words import tokens
from toolatlas.probing.values import ArgKind

if TYPE_CHECKING:
    from toolatlas.offline.values import CallDraft, ValueSynth

__all__ = ["LOWER_BOUNDS", "UPPER_BOUNDS", "Unsatisfiable", "bound_words", "reads_media", "scalar_value"]


_TIMES = ("14:30", "09:05", "23:45", "00:00")
FUTURE_DAYS = 30
"""How far after today a moment the server wants in the future is put."""
_COUNTS = (3, 1, 10, 5)
_MEDIA = re.compile(r"\b(image|media|audio|video|binary|base64)\b")


def reads_media(tool: ToolSpec) -> bool:
    """Whether a tool's name or description says it works on images, audio or other binary files."""
    return bool(_MEDIA.search(f"{tool.name.replace('_', ' ')} {tool.description}".lower()))


def scalar_value(synth: ValueSynth, spec: ArgSpec, draft: CallDraft) -> Any:
    kind, v, targets = spec.kind, draft.variant, synth.targets
    hinted = _hinted(synth, spec, draft) if spec.kind not in PATH_KINDS else None
    if hinted is not None:
        return hinted
    stored = _stored(synth, spec, draft)
    if stored is not None:
        return stored
    if spec.kind in PATH_KINDS:
        return _path(synth, spec, draft)
    if spec.kind in SEMANTIC_KINDS:
        return semantic_value(synth, spec, draft)
    match kind:
        case ArgKind.ENUM:
            allowed = _satisfiable_types(spec, synth, draft)
            earlier = draft.chosen.get(spec.path, [])
            if earlier:  # another item of the same array: the next member not chosen yet
                fresh = [m for m in spec.enum if m not in earlier and (allowed is None or m in allowed)]
                if fresh:
                    return fresh[0]
            twins = [  # a sibling over the same set (``from_unit``/``to_unit``): another member
                value
                for name, value in draft.scope.items()
                if name != spec.name
                and name in draft.scope_specs
                and draft.scope_specs[name].enum == spec.enum
            ]
            if twins and len(spec.enum) > len(twins):
                allowed = [m for m in (allowed or spec.enum) if m not in twins] or allowed
            return _enum(spec, v, allowed)
        case ArgKind.BOOLEAN:
            default = bool(spec.default) if spec.has_default else False
            return (not default) if v % 2 == 1 or not spec.has_default else default
        case ArgKind.INTEGER | ArgKind.NUMBER:
            listed = _numeric_ids(synth, spec) if spec.kind is ArgKind.INTEGER else []
            if listed:  # ``note_id``: one of the ids an answer listed (``"note_ids": [1796622027790, …]``)
                return int(draft.pick(ArgKind.IDENTIFIER, listed))
            return _ordered_bound(spec, _number(spec, v), draft)
        case ArgKind.BRANCH:
            if spec.fresh:
                return synth.fresh_value(ArgKind.BRANCH)
            return draft.pick(kind, targets.branches(switch=draft.effect is ToolEffect.UPDATE))
        case ArgKind.REVISION:
            with_path = ":<path>" in draft.text or "revision>:" in draft.text
            return draft.pick(
                kind, targets.revisions(sha_only="sha" in spec.description.lower(), with_path=with_path)
            )
        case ArgKind.ENTITY_NAME:
            if spec.fresh:
                return synth.fresh_value(kind)
            needs = any(
                s.kind is ArgKind.OBSERVATION or (s.items and s.items.kind is ArgKind.OBSERVATION)
                for s in draft.scope_specs.values()
                if not s.fresh
            )
            draft.entity = draft.pick(kind, targets.entities(with_observations=needs))
            return draft.entity
        case ArgKind.ENTITY_TYPE:
            return draft.pick(kind, targets.entity_types() or [Candidate("concept")])
        case ArgKind.RELATION_TYPE:
            return draft.pick(kind, targets.relation_types() or [Candidate("relates_to")])
        case ArgKind.OBSERVATION:
            if spec.fresh:
                return synth.fresh_value(kind)
            if draft.entity is None:
                raise Unsatisfiable("an existing observation needs its entity")
            return draft.pick(kind, targets.observations(draft.entity))
        case ArgKind.TABLE_NAME:
            if spec.fresh:
                return synth.fresh_value(kind)
            views = any(value == "view" for value in draft.scope.values())
            draft.table = draft.pick(kind, targets.tables(views=views))
            return draft.table
        case ArgKind.COLUMN_NAME:
            columns = targets.columns(draft.table)
            if not columns and synth.facts.database is None:  # no table known: a plain word a run may rewrite
                return _string(spec, synth, v)
            return draft.pick(kind, columns)
        case ArgKind.SCHEMA_NAME:
            return targets.schemas()[0].value
        case ArgKind.TIMEZONE:
            return draft.pick(kind, targets.timezones([str(e) for e in spec.examples]))
        case ArgKind.TIME_OF_DAY:
            time = _TIMES[v % len(_TIMES)]
            return f"{time}:00" if "ss" in spec.description.lower() else time
        case ArgKind.DATETIME | ArgKind.DATE:
            return _moment(spec, synth, kind)
        case ArgKind.URL:
            return draft.pick(kind, [*targets.pooled(kind), Candidate("https://example.com/")], offset=-v)
        case ArgKind.EMAIL:
            return draft.pick(kind, [*targets.pooled(kind), Candidate(synth.fresh_value(kind))], offset=-v)
        case ArgKind.UUID:
            return str(uuid.UUID(int=synth.rng.getrandbits(128), version=4))
        case ArgKind.SEARCH_QUERY:
            words = targets.vocabulary()
            if len(words) == 1 and words[0].ref is None and words[0].value == "probe":
                words = [Candidate(w) for w in domain_words(draft.text)] or words  # no data: the tool's domain
            stated = [Candidate(str(e)) for e in _by_shape([e for e in spec.examples if str(e)[:1].isalnum()])]
            return draft.pick(kind, [*stated, *(w for w in words if w.value not in spec.examples)])
        case ArgKind.GLOB:
            return _glob(spec, synth, draft)
        case ArgKind.REGEX:
            if spec.examples:
                return str(spec.examples[v % len(spec.examples)])
            words = [c for c in targets.vocabulary() if c.ref is not None or c.value != "probe"]
            if not words:  # no data to search: patterns any text-handling tool accepts
                return draft.pick(kind, [Candidate(p) for p in (r"\d+", r"[A-Z][a-z]+", r"\b\w+@\w+\.\w+\b")])
            word = draft.pick(ArgKind.SEARCH_QUERY, words)
            return rf"\b{re.escape(word)}\b"
        case ArgKind.EXISTING_TEXT:
            if draft.file is None:
                raise Unsatisfiable("existing text needs the file it comes from")
            return draft.pick(kind, targets.line_candidates(draft.file))
        case ArgKind.TEXT:
            return _text(spec, synth, draft)
        case ArgKind.JSON:
            if spec.examples:
                return str(spec.examples[v % len(spec.examples)])
            documents = ({"name": "Ada Lovelace", "born": 1815, "fields": ["mathematics", "computing"]},
                         {"id": 1042, "status": "shipped", "items": [{"sku": "A-1", "qty": 2}]})
            return json.dumps(documents[v % len(documents)])
        case ArgKind.IDENTIFIER:
            if spec.fresh:
                return synth.fresh_value(kind)
            pooled = targets.pooled(kind)
            named = _named_as(synth, spec)
            if named:  # ``block_name``: a name an answer listed as a block's
                return draft.pick(kind, named)
            noun = id_noun(spec.name)
            if noun is not None:  # a task id for ``taskId``: of its own kind, else of no known kind
                pooled = [c for c in pooled if c.ref is not None and c.ref.context == noun] or [
                    c for c in pooled if c.ref is None or c.ref.context is None
                ] or pooled
            else:  # a bare ``key``/``id`` (or the items of ``keys``): what answers labelled so, first
                pooled = _labelled(synth, spec) or pooled
            if pooled:
                return draft.pick(kind, pooled)
            return _string(spec, synth, v)
    if names_a_notation(spec.description):
        return _document_path(spec, synth, draft)
    return _string(spec, synth, v)


_TOP_KEY = re.compile(r"^\$\.([A-Za-z_][A-Za-z0-9_]*)")


def _document_path(spec: ArgSpec, synth: ValueSynth, draft: CallDraft) -> str:
    """A path into a document: keys an answer listed, else the description's examples, else the top-level
    keys of the snapshot's JSON documents; none known, the argument is left out (a path made up names
    no key). A JSONPath is written from the root (``$.key``), the description's examples first, the root
    itself last. The probe then writes either for the document it reads (:mod:`toolatlas.offline.documents`)."""
    keys = [c for c in synth.targets.pooled(ArgKind.IDENTIFIER) if c.ref is not None and c.ref.context == KEY_CONTEXT]
    files = synth.facts.tree.files if synth.facts.tree else []
    stored = dict.fromkeys(m.group(1) for f in files for leaf in f.leaves if (m := _TOP_KEY.match(leaf)))
    candidates = keys or [Candidate(str(e)) for e in spec.examples] or [Candidate(k) for k in stored]
    if says_jsonpath(spec.description):
        examples = [Candidate(str(e)) for e in spec.examples if is_jsonpath(e)]
        candidates = [*examples, *(Candidate(f"$.{c.value}", c.ref) for c in keys), Candidate("$")]
    if not candidates:
        raise Unsatisfiable("no key of a document is known")
    return draft.pick(ArgKind.STRING, candidates)


CHEAP_NUMBER = 1000
"""The largest number an error named that a valid call is planned with: a count or a size past it can make every call
of the tool slow (an error's ``must be between 1 and 10000`` names the cheap end too)."""


def _hinted(synth: ValueSynth, spec: ArgSpec, draft: CallDraft) -> Any:
    """A value an error of this tool named for this very argument (``Available sheets: ...``), if any."""
    argument = f"{draft.tool.name}:{spec.path}"
    refs = synth.pool.named_for(argument)
    refs = [r for r in refs if conforms(typed_text(r.value, spec), spec.json_schema)]
    if spec.json_type in ("integer", "number"):  # a stated range's far end (10000 entries a batch) costs every call
        refs = [r for r in refs if not isinstance(v := typed_text(r.value, spec), int | float) or abs(v) <= CHEAP_NUMBER]
    taken = draft.taken.get(spec.kind, set())
    if not refs or all(r.value in taken for r in refs):
        return None
    value = draft.pick(spec.kind, [Candidate(r.value, r) for r in refs])
    return typed_text(value, spec)


_NOT_STORED = frozenset({ArgKind.TEXT, ArgKind.EXISTING_TEXT, ArgKind.OBSERVATION, ArgKind.ENUM, ArgKind.BOOLEAN,
                         ArgKind.JSON, ArgKind.REGEX, ArgKind.GLOB, ArgKind.TABLE_NAME, ArgKind.COLUMN_NAME,
                         ArgKind.SCHEMA_NAME, *PATH_KINDS, *SQL_KINDS})
"""Kinds an argument named like a stored field still does not take its values for: prose is written anew, a
choice is the schema's, a path, a statement or a table has its own planner."""


_NOT_ALIGNED = _NOT_STORED - {ArgKind.ENUM, ArgKind.BOOLEAN}
"""Kinds that take a record's value beside other fields of that record: a choice too (the order's currency)."""


def _stored(synth: ValueSynth, spec: ArgSpec, draft: CallDraft) -> Any:
    """A value of the field the state's records name like this argument (``po_number`` → ``PO-3300``, ``vendor_id``
    → ``V-2001``, ``entity_id`` → a row's ``hive_clover``): what the argument refers to in the data the server
    keeps, until an answer listed ids of its kind. None for a new value or another kind."""
    if spec.fresh or spec.kind in _NOT_STORED or not synth.targets.records():
        return None
    noun = id_noun(spec.name)
    if noun is not None and any(c.ref is not None and c.ref.context == noun for c in synth.targets.pooled(spec.kind)):
        return None  # an id an answer gave goes first: its use witnesses where ids come from (plan → its requestId)
    records = synth.targets.records()
    fields = [tuple(tokens(spec.name))]
    if not any(fields[0] in r for r in records):  # "username (sAMAccountName)": the fields its description names,
        fields = [f for f in described_fields(spec.description) if any(f in r for r in records)]
        said = described_words(f"{draft.tool.name} {spec.description}")  # of the records most like it
        records = sorted(records, key=lambda r: -likeness(r, said))
    values = dict.fromkeys(r[f] for f in fields for r in records if f in r)
    typed = [value for value in values if conforms(value, spec.json_schema)]
    if not typed:
        return None
    return typed_text(draft.pick(spec.kind, [Candidate(str(value)) for value in typed]), spec)


def from_one_record(synth: ValueSynth, chosen: list[ArgSpec], draft: CallDraft) -> None:
    """Arguments named like the fields of one stored record take that record's values together (``vendor_id``,
    ``po_number``, ``total`` and ``currency`` of one purchase order), so a call refers to something the data holds
    and not to a vendor of one record with the order of another. Of the records naming the most of them (two at
    least), the variant's (by a stride, so variants reach records far apart); a value a harvest gave (a data
    composition) stays, and only records that agree with it are taken. A field an update's name says it sets
    (``stage`` of ``update_deal_stage``) is not taken from the record: the record has the value the update changes."""
    records = synth.targets.records()
    if not records:
        return
    harvested = {r.value for r in draft.used}
    named_by_tool = set(tokens(draft.tool.name)) if draft.effect is ToolEffect.UPDATE else set()
    alignable = [s for s in chosen if s.name in draft.scope and not s.fresh and s.kind not in _NOT_ALIGNED
                 and not set(tokens(s.name)) <= named_by_tool]  # ``stage`` of ``update_deal_stage``: what it sets
    fixed = {tuple(tokens(s.name)): str(draft.scope[s.name]) for s in alignable
             if str(draft.scope[s.name]) in harvested}
    named = {s.name: (tuple(tokens(s.name)), s) for s in alignable if str(draft.scope[s.name]) not in harvested}
    if len(named) + len(fixed) < 2:
        return
    scored = []
    for fields in records:
        if any(words in fields and str(fields[words]) != value for words, value in fixed.items()):
            continue  # another vendor's order than the vendor an answer gave
        hits = {name: fields[words] for name, (words, spec) in named.items()
                if words in fields and conforms(fields[words], spec.json_schema)}
        if len(hits) + sum(words in fields for words in fixed) >= 2 and hits:
            scored.append(hits)
    best = max((len(h) for h in scored), default=0)
    top = [h for h in scored if len(h) == best]
    if top:
        draft.scope.update(top[(draft.variant * 7) % len(top)])  # a stride: the next variant, another vendor


def _path(synth: ValueSynth, spec: ArgSpec, draft: CallDraft) -> str:
    targets = synth.targets
    mutating = draft.effect in (ToolEffect.UPDATE, ToolEffect.DELETE, ToolEffect.CREATE)
    if spec.kind is ArgKind.REPO_PATH:
        return targets.facts.repository.root if targets.facts.repository else targets.root
    if spec.kind is ArgKind.FILE_PATH or (
        spec.kind is ArgKind.PATH and spec.target is not ToolObject.DIRECTORY
    ):
        binary = reads_media(draft.tool)
        files = targets.files(writable=mutating, with_lines=draft.needs_lines, binary=binary)
        named = _extensions(spec, draft, synth)
        if named:  # "Path to a .xlsx, .ods or .csv file": the files of those formats come first, while any is free
            taken = draft.taken.get(ArgKind.FILE_PATH, set())
            files = [f for f in files if _suffix(f.value) in named and f.value not in taken] or files
        if spec.kind is ArgKind.PATH and not named:  # a path to a file of a named kind is no folder
            files = files + targets.folders(include_root=False)
        if not files and spec.examples and targets.facts.tree is None:
            return str(spec.examples[0])  # no files to name (no folder state): the description's example
        draft.file = draft.pick(ArgKind.FILE_PATH, files)
        return draft.file
    if spec.kind in (ArgKind.DIR_PATH, ArgKind.PATH):
        return draft.pick(
            ArgKind.DIR_PATH, targets.folders(include_root=draft.effect is not ToolEffect.DELETE)
        )
    # a new path: next to the source of a move/copy, else in an existing folder
    source = next(
        (
            value
            for name, value in draft.scope.items()
            if name in draft.scope_specs and draft.scope_specs[name].kind in (ArgKind.FILE_PATH, ArgKind.PATH)
        ),
        None,
    )
    tag = synth.tag()
    if source is not None and spec.target is None:
        folder, name = posixpath.split(source)
        stem, dot, suffix = name.rpartition(".")
        if spec.elsewhere:  # refused beside its source: in another folder of the state, one holding no files first
            others = [c.value for c in targets.folders(include_root=False) if c.value != folder]
            folder = others[draft.variant % len(others)] if others else targets.root
        return f"{folder}/{stem}_moved_{tag}.{suffix}" if dot and stem else f"{folder}/{name}_moved_{tag}"
    folders = targets.folders()
    parent = folders[draft.variant % len(folders)].value if folders else targets.root
    if spec.target is ToolObject.DIRECTORY:
        return f"{parent}/probe_{tag}/nested" if draft.variant >= 2 else f"{parent}/probe_{tag}"
    named = _extensions(spec, draft, synth)
    if named:
        return f"{parent}/probe_{tag}{named[draft.variant % len(named)]}"
    return f"{parent}/probe_{tag}{('.txt', '.md', '.txt')[draft.variant % 3]}"


_EXTENSION = re.compile(r"(?<![\w/.])\.([a-z][a-z0-9]{1,4})\b")


_FORMAT_EXTENSIONS = {
    "sql": (".sql",), "csv": (".csv",), "tsv": (".tsv",), "json": (".json",), "jsonl": (".jsonl",),
    "yaml": (".yaml", ".yml"), "yml": (".yml", ".yaml"), "toml": (".toml",), "ini": (".ini",),
    "xml": (".xml",), "html": (".html", ".htm"), "markdown": (".md",), "python": (".py",),
    "javascript": (".js", ".mjs"), "typescript": (".ts",), "bibtex": (".bib",), "latex": (".tex",),
    "excel": (".xlsx", ".xls"), "spreadsheet": (".xlsx", ".ods", ".csv"), "word": (".docx",), "docx": (".docx",),
    "pdf": (".pdf",), "image": (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"),
    "notebook": (".ipynb",), "jupyter": (".ipynb",), "log": (".log",), "text": (".txt",), "zip": (".zip",),
}
"""What a format's name says a file's extension is ("a SQL file", "an image file")."""
_FORMAT_FILE = re.compile(rf"\b({'|'.join(_FORMAT_EXTENSIONS)})\s+(?:file|files|document|documents|script|scripts)\b")


def _extensions(spec: ArgSpec, draft: CallDraft, synth: ValueSynth | None = None) -> list[str]:
    """File extensions an error named for the argument, else its description names — written out (``.sql``), or as
    the format a file is of ("Fix a SQL file on disk") — else its name gives (:meth:`~toolatlas.offline.targets.Targets.named_extensions`), else the
    tool's description names."""
    if synth is not None:
        refs = synth.pool.named_for(f"{draft.tool.name}:{spec.path}")
        named = [r.value for r in refs if r.value.startswith(".")]
        if named:
            return list(dict.fromkeys(named))
    held = synth.targets.extensions() if synth is not None else []
    for own, text in ((True, spec.description.lower()), (False, draft.text.lower())):
        found = list(dict.fromkeys([*(f".{e}" for e in _EXTENSION.findall(text)),  # ".mxl"; "MusicXML" of .musicxml
                                    *(e for e in held if names_format(text, e))]))
        if found:
            return found
        found = list(dict.fromkeys(e for name in _FORMAT_FILE.findall(text) for e in _FORMAT_EXTENSIONS[name]))
        if found:
            return found
        if own and synth is not None:  # before the tool's words: the argument's own name
            found = synth.targets.named_extensions(spec.name)
            if found:
                return found
    return []


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""


def _satisfiable_types(spec: ArgSpec, synth: ValueSynth, draft: CallDraft) -> list[Any] | None:
    """For a type selector beside an object name ("table"/"view"), the types that have instances here."""
    names_a_table = any(s.kind is ArgKind.TABLE_NAME and not s.fresh for s in draft.scope_specs.values())
    if not names_a_table or "table" not in spec.enum:
        return None
    return ["table", "view"] if synth.targets.tables(views=True) and "view" in spec.enum else ["table"]


def _enum(spec: ArgSpec, variant: int, allowed: list[Any] | None = None) -> Any:
    members = [m for m in spec.enum if allowed is None or m in allowed]
    if not members:
        raise Unsatisfiable("an empty enum")
    if spec.has_default and spec.default in members:
        if variant == 0:
            return spec.default
        others = [m for m in members if m != spec.default] or members
        return others[(variant - 1) % len(others)]
    return members[variant % len(members)]


_NAMED_NUMBERS: tuple[tuple[frozenset[str], tuple[int | float, ...]], ...] = (
    (frozenset({"base", "radix"}), (16, 2, 8, 10)),
    (frozenset({"year"}), (2024, 2023, 2025, 2000)),
    (frozenset({"month"}), (3, 12, 1, 7)),
    (frozenset({"day"}), (14, 1, 28, 5)),
    (frozenset({"hour", "hours"}), (14, 9, 0, 23)),
    (frozenset({"minute", "minutes", "second", "seconds"}), (30, 5, 0, 45)),
    (frozenset({"port"}), (8080, 443, 5432, 3000)),
    (frozenset({"percent", "percentage"}), (25, 50, 10, 75)),
    (frozenset({"latitude", "lat"}), (48.8566, 35.6762, 40.7128, -33.8688)),
    (frozenset({"longitude", "lon", "lng"}), (2.3522, 139.6503, -74.006, 151.2093)),
    (frozenset({"precision", "decimals", "digits", "places"}), (2, 4, 0, 6)),
    (frozenset({"row", "column", "col", "line", "page"}), (1, 2, 1, 2)),
    (frozenset({"dpi", "ppi"}), (300, 150, 600, 72)),
    (frozenset({"gsm"}), (130, 90, 170, 300)),
)
_LENGTHS: dict[str, tuple[int | float, ...]] = {
    "mm": (148, 105, 210, 90), "cm": (15, 10, 21, 9), "px": (800, 300, 1024, 64), "inch": (6, 4, 8.5, 3),
}
"""A length in a unit its name gives (``piece_width_mm``): what a thing of that size measures — a card, a
leaflet, an image — not a count."""
_HOLDERS = frozenset({"sheet", "page", "paper", "canvas", "board", "roll", "stock", "substrate", "container", "frame",
                      "screen", "viewport", "press"})
"""Words of a length that holds the others (``sheet_width_mm``): three times the size of what goes on it."""
_SPACINGS = frozenset({"bleed", "margin", "gap", "gutter", "padding", "border", "spacing", "indent", "inset"})
_SPACING: dict[str, tuple[int | float, ...]] = {
    "mm": (3, 5, 2, 10), "cm": (0.5, 1, 0.3, 2), "px": (8, 16, 4, 32), "inch": (0.125, 0.25, 0.1, 0.5),
}
"""A length between or around things (``bleed_mm``, ``gap_px``): a small one."""
_UNIT_SPELLINGS = {"inches": "inch"}
"""Other spellings of a unit of ``_LENGTHS`` in a name (``width_inches``)."""
_POSITIONS = frozenset({"index", "idx", "row", "column", "col", "line", "page", "position", "offset"})
_ZERO_BASED = re.compile(r"\b(?:0|zero)[- ]?(?:based|indexed)\b|\bstart(?:s|ing)? (?:at|from) 0\b", re.IGNORECASE)
_ONE_BASED = re.compile(r"\b(?:1|one)[- ]?(?:based|indexed)\b|\bstart(?:s|ing)? (?:at|from) 1\b", re.IGNORECASE)


def _position_base(words: set[str], description: str) -> int | None:
    """Where a position argument counts from: what its description says (``1-based``, ``zero-based``),
    else 0 for an index (``table_index``: the first item of a list is item 0), else None."""
    if not words & _POSITIONS:
        return None
    if _ONE_BASED.search(description):
        return 1
    if _ZERO_BASED.search(description) or words & {"index", "idx", "offset"}:
        return 0
    return None


def _number(spec: ArgSpec, variant: int) -> int | float:
    value: float = _COUNTS[variant % len(_COUNTS)] if spec.count_like or spec.json_type == "integer" else 7
    words = set(re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", spec.name).lower()))
    named = next((values for names, values in _NAMED_NUMBERS if names & words), None)
    unit = next((u for w in sorted(words) if (u := _UNIT_SPELLINGS.get(w, w)) in _LENGTHS), None)
    if unit is not None:  # a length in a unit: a size a thing of it has, what holds things three times as large
        named = (_SPACING[unit] if words & _SPACINGS else tuple(v * 3 for v in _LENGTHS[unit]) if words & _HOLDERS
                 else _LENGTHS[unit])
    base = _position_base(words, spec.description)
    if base is not None:  # the first items: every list that has any has them (a larger one is a boundary)
        named = (base, base + 1, base, base + 1)
    if named is not None:
        value = named[variant % len(named)]
    if spec.examples and all(isinstance(e, int | float) and not isinstance(e, bool) for e in spec.examples):
        value = spec.examples[variant % len(spec.examples)]
    elif spec.has_default and isinstance(spec.default, int | float) and not isinstance(spec.default, bool):
        if spec.default > 100 and named is None:
            value = int(spec.default // (2 + variant))
        elif value == spec.default:
            value = (named or _COUNTS)[(variant + 1) % len(named or _COUNTS)]
    integer = spec.json_type == "integer"
    low = spec.minimum if spec.minimum is not None else None
    if spec.exclusive_minimum is not None:
        low = spec.exclusive_minimum + (1 if integer else 0.5)
    high = spec.maximum
    if spec.exclusive_maximum is not None:
        high = spec.exclusive_maximum - (1 if integer else 0.5)
    if low is not None and value < low:
        value = low
    if high is not None and value > high:
        value = high
    step = spec.multiple_of
    if step and step > 0 and not float(value / step).is_integer():
        value = math.ceil(value / step) * step
        if high is not None and value > high:
            value -= step
        value = round(value, 10)
    return int(value) if integer or float(value).is_integer() else value


LOWER_BOUNDS = ("start", "from", "first", "begin", "min", "lower", "low")
UPPER_BOUNDS = ("end", "to", "last", "stop", "max", "upper", "high", "until")


def bound_words(name: str) -> tuple[str, tuple[str, ...]] | None:
    """``("end", ("col",))`` for ``end_col``/``endCol``: which bound of a span a name is, and of what."""
    words = re.findall(r"[a-z]+|\d+", re.sub(r"([a-z])([A-Z])", r"\1 \2", name).lower())
    for word in words:
        if word in LOWER_BOUNDS or word in UPPER_BOUNDS:
            return word, tuple(w for w in words if w != word)
    return None


def _ordered_bound(spec: ArgSpec, value: int | float, draft: CallDraft) -> int | float:
    """A bound of a span past its sibling bound chosen already (``end_col`` after ``start_col``): an
    empty or reversed span is no valid use (``cannot merge a single cell with itself``)."""
    own = bound_words(spec.name)
    if own is None:
        return value
    upper = own[0] in UPPER_BOUNDS
    for name, other in draft.scope.items():
        sibling = bound_words(name)
        if (
            name == spec.name
            or sibling is None
            or sibling[1] != own[1]
            or (sibling[0] in UPPER_BOUNDS) == upper
            or not isinstance(other, int | float)
            or isinstance(other, bool)
        ):
            continue
        if upper and value <= other and (spec.maximum is None or other + 1 <= spec.maximum):
            return other + 1
        if not upper and value >= other and (spec.minimum is None or other - 1 >= spec.minimum):
            return other - 1
    return value


def _moment(spec: ArgSpec, synth: ValueSynth, kind: ArgKind) -> str:
    words = set(re.findall(r"[a-z]+", spec.name.lower()))
    dates = synth.targets.data_dates()
    low, high = (dates[0], dates[-1]) if dates else ("2024-03-01", "2024-03-31")
    if words & {"start", "since", "from", "after", "begin", "min"}:
        day, clock = low, "00:00:00"
    elif words & {"end", "until", "to", "before", "max"}:
        day, clock = high, "23:59:59"
    else:
        day, clock = (dates[len(dates) // 2] if dates else "2024-03-14"), "10:30:00"
    if spec.future:  # the server refused a moment in the past: a month after today (or after the data's last day)
        last = max(dt.date.today(), dt.date.fromisoformat(dates[-1])) if dates else dt.date.today()
        day = (last + dt.timedelta(days=FUTURE_DAYS)).isoformat()
    elif spec.past and day > dt.date.today().isoformat():  # the server refused a moment in the future: today
        day = dt.date.today().isoformat()
    stated = stated_moment(spec.description)
    if stated is not None:  # written the way the description states
        return moment_text(stated, day, clock)
    return day if kind is ArgKind.DATE else f"{day}T{clock}"


def _glob(spec: ArgSpec, synth: ValueSynth, draft: CallDraft) -> str:
    folder = next(
        (value for name, value in draft.scope.items() if draft.scope_specs[name].kind is ArgKind.DIR_PATH),
        None,
    )
    extensions = synth.targets.extensions(folder) or synth.targets.extensions() or [".txt"]
    if "exclude" in spec.name.lower() or "ignore" in spec.name.lower():
        patterns = [f"*{extensions[-1]}", "**/node_modules", f"*{extensions[len(extensions) // 2]}"]
    else:
        patterns = [
            f"**/*{extensions[0]}",
            f"*{extensions[0]}",
            f"**/*{extensions[min(1, len(extensions) - 1)]}",
        ]
    return draft.pick(ArgKind.GLOB, [Candidate(p) for p in patterns])


_PROSE = (
    "The quick brown fox jumps over the lazy dog.",
    "Alice sent Bob 3 apples on Monday; Bob returned 2 of them on Friday.",
    "Hello world! This is a short paragraph of plain English text, written to be read.",
    "Rain is expected in Paris tomorrow, with temperatures between 12 and 18 degrees.",
)
_NOTES = (
    "Meeting moved to Thursday at 10:00",
    "Remember to renew the certificate before March",
    "The quarterly report is ready for review",
    "Order 1042 shipped to the Lyon warehouse",
)


def _text(spec: ArgSpec, synth: ValueSynth, draft: CallDraft) -> str:
    """A file body or commit message carries a probe tag (a later read finds it); other text reads as text."""
    words = set(re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", spec.name).lower()))
    old = next(
        (
            value
            for name, value in draft.scope.items()
            if draft.scope_specs.get(name) and draft.scope_specs[name].kind is ArgKind.EXISTING_TEXT
        ),
        None,
    )
    if spec.examples:
        return _clamp(str(spec.examples[draft.variant % len(spec.examples)]), spec)
    if old is not None:
        return f"{old} (edited by probe {synth.tag()})"
    stored = draft.effect in (ToolEffect.CREATE, ToolEffect.UPDATE)
    if words & {"message", "commit"} and (stored or "commit" in draft.text):
        return f"Probe commit {synth.tag()}: record a small change"
    if words & {"title", "name", "label", "subject", "heading"}:
        listed = [] if spec.fresh or draft.effect is ToolEffect.CREATE else _grouped(synth, spec)
        if listed:  # "the exact title of the task currently in DOING": one a listing grouped there
            return _clamp(draft.pick(ArgKind.IDENTIFIER, listed), spec)
        return _clamp(f"Probe title {synth.tag()}" if stored else _NOTES[draft.variant % len(_NOTES)], spec)
    listed = _listed_as(synth, spec) if draft.effect is ToolEffect.READ and not spec.fresh else []
    if listed:  # "messages": [{"id": "0x120", "name": "INV_Status"}] answered: a `message` to look up is one of them
        return _clamp(draft.pick(ArgKind.IDENTIFIER, listed), spec)
    if not stored:  # text to analyse, count, translate or format: ordinary prose
        return _clamp(_PROSE[draft.variant % len(_PROSE)], spec)
    noted = words & {"insight", "note", "notes", "comment", "summary", "reason", "description"}
    if noted or not _writes_file(draft):
        note = _NOTES[draft.variant % len(_NOTES)]
        return _clamp(f"{note} (probe note {synth.tag()}).", spec)
    text = f"# Probe note {synth.tag()}\n\nWritten by a ToolAtlas probe to check that content round-trips.\n"
    return _clamp(text, spec)


def _writes_file(draft: CallDraft) -> bool:
    """The call writes a file: the body is a document a later read shows."""
    return draft.object in (ToolObject.FILE, ToolObject.DIRECTORY) or any(
        s.kind in PATH_KINDS for s in draft.scope_specs.values()
    )


def _by_shape(examples: list[Any]) -> list[Any]:
    """``examples`` with one of each shape first — a name, a phrase, a formula or code with digits — so that the
    first calls try each way the description says a value may be written ('aspirin', 'acetylsalicylic acid',
    'C9H8O4')."""
    def shape(value: Any) -> tuple[bool, bool]:
        text = str(value)
        return any(c.isdigit() for c in text), " " in text.strip()

    first: dict[tuple[bool, bool], Any] = {}
    for example in examples:
        first.setdefault(shape(example), example)
    return [*first.values(), *(e for e in examples if e not in first.values())]


_WORDS = ("example", "sample", "demo", "test")


def _numeric_ids(synth: ValueSynth, spec: ArgSpec) -> list[Candidate]:
    """The ids of an integer argument named for what it identifies (``note_id``): the whole numbers answers gave
    as such ids (harvested with that noun), none for any other number."""
    noun = id_noun(spec.name) if id_like(spec.name) else None
    if noun is None:
        return []
    return [c for c in synth.targets.pooled(ArgKind.IDENTIFIER)
            if c.ref is not None and c.ref.context == noun and c.value.isdigit() and conforms(int(c.value), spec.json_schema)]


_NAME_ENDS = frozenset({"name", "names", "title", "label"})


def _named_as(synth: ValueSynth, spec: ArgSpec) -> list[Candidate]:
    """For ``<thing>_name`` (``block_name``), the names answers listed as things of that kind (records listed as
    ``blocks``: :func:`_labelled` by the thing), those a user gave first (a name opening with a symbol marks an
    anonymous or internal one); none for a bare ``name``."""
    words = tokens(spec.name)
    if len(words) < 2 or words[-1] not in _NAME_ENDS:
        return []
    named = _labelled(synth, spec, noun=parent_singular(words[-2]))
    return sorted(named, key=lambda c: not c.value[:1].isalnum())  # ``*D1``, ``_ARCHTICK``: anonymous, internal


def _labelled(synth: ValueSynth, spec: ArgSpec, noun: str | None = None) -> list[Candidate]:
    """The identities answers labelled with this argument's name (``Key: x`` for ``key``, ``{"lemmas": […]}`` for
    ``lemma``: :data:`~toolatlas.offline.answers.LABEL_CONTEXT`), or with ``noun``."""
    label = LABEL_CONTEXT + (noun or parent_singular(spec.name.lower()))
    return [c for c in synth.targets.pooled(ArgKind.IDENTIFIER) if c.ref is not None and c.ref.context == label]


def _listed_as(synth: ValueSynth, spec: ArgSpec) -> list[Candidate]:
    """What answers listed as the thing an argument is named after: the names they labelled so (:func:`_labelled`),
    else the ids of the records they listed under its plural (``{"messages": [{"id": "0x120", …}]}`` for
    ``message``)."""
    noun = parent_singular(spec.name.lower())
    return _labelled(synth, spec) or [c for c in synth.targets.pooled(ArgKind.IDENTIFIER)
                                      if c.ref is not None and c.ref.context == noun]


_REFERS = re.compile(r"\b(?:exact|existing|current(?:ly)?)\b", re.IGNORECASE)
"""Words of an argument's description that make a title name a thing that exists ("Exact title of the task")."""


def _grouped(synth: ValueSynth, spec: ArgSpec) -> list[Candidate]:
    """The names a listing grouped under labels (:data:`~toolatlas.offline.answers.GROUP_CONTEXT`), for a title that
    names a thing that exists — its description says so (``exact``, ``existing``, ``currently``) or names a group —:
    those of the groups the description names first ("currently in *DOING*")."""
    pooled = synth.targets.pooled(ArgKind.IDENTIFIER)
    groups = {c.value: c.ref.context.removeprefix(GROUP_CONTEXT) for c in pooled
              if c.ref is not None and c.ref.context and c.ref.context.startswith(GROUP_CONTEXT)}
    grouped = [c for c in pooled if c.value in groups]
    said = set(re.findall(r"[a-z0-9]+", spec.description.lower()))
    named = [c for c in grouped if groups[c.value].lower() in said]
    if named:
        return named
    return grouped if _REFERS.search(spec.description) else []


def _string(spec: ArgSpec, synth: ValueSynth, variant: int) -> str:
    """An argument of unknown meaning: what answers listed under its name (``lemmas`` for a ``lemma``) or the table
    named after it holds (``exercises`` for an ``exercise``), the schema's and description's own words, else a plain
    word."""
    listed = [] if spec.fresh else _labelled(synth, spec) or synth.targets.named_rows(spec.name)
    if listed:  # what answers listed under its name, else the rows of the table it is named after
        return _clamp(listed[variant % len(listed)].value, spec)
    texts = [] if spec.fresh else synth.targets.named_texts(spec.name)
    if texts:  # ``adif_string``: the text of a logbook the state holds
        return _clamp(texts[variant % len(texts)].value, spec)
    if spec.examples:
        return _clamp(str(spec.examples[variant % len(spec.examples)]), spec)
    if spec.has_default and isinstance(spec.default, str) and spec.default:
        return spec.default
    if spec.fresh:
        return _clamp(f"probe-{synth.tag()}", spec)
    return _clamp(_WORDS[variant % len(_WORDS)], spec)


def _clamp(text: str, spec: ArgSpec) -> str:
    if spec.max_length is not None and len(text) > spec.max_length:
        text = text[: spec.max_length]
    if spec.min_length is not None and len(text) < spec.min_length:
        text = text + "x" * (spec.min_length - len(text))
    return text


_DOMAINS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\bunits?\b|\bmeasure"), ("meter", "gram", "second", "liter")),
    (re.compile(r"\bcolou?rs?\b"), ("red", "blue", "green")),
    (re.compile(r"\bcurrenc"), ("dollar", "euro", "yen")),
    (re.compile(r"\bcountr"), ("France", "Japan", "Brazil")),
    (re.compile(r"\blanguages?\b"), ("English", "French", "Spanish")),
    (re.compile(r"\btime ?zones?\b"), ("Europe", "America", "Tokyo")),
    (re.compile(r"\belements?\b|\bchemi"), ("hydrogen", "carbon", "oxygen")),
)
"""Per domain a tool's words name, what a person searches it for (when the state holds no words)."""


def domain_words(text: str) -> list[str]:
    """Realistic search terms for the domains named in ``text`` (a tool's name and description)."""
    return [w for pattern, words in _DOMAINS if pattern.search(text.lower()) for w in words]
