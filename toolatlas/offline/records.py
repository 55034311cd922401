"""Calls filled from one record a read returned: the fields of a structured answer a later call takes back.

A read that describes things answers with records — a file with its hash and the hashes of the line
ranges read, a task with its id and its request's id — and a writer takes some of those fields back
to act on exactly that thing: the hash of *that* file, the range hash of *that* range, the start and
end lines of *that* range. Harvesting values one by one loses which belongs with which; here the
writer's argument tree is laid over the read's answer instead (:func:`aligned_arguments`):

- a scalar argument takes the value of the nearest field with the same words, in any order
  (``line_start`` ← ``start_line``, ``file_hash`` ← ``file_hash``), innermost record first;
- an array of objects takes the list of records whose fields share the most words with its items
  (``patches`` ← ``ranges``), and each item is laid over its record; an answer keyed by path
  (``{"/a.md": {...}}``) is such a list, each record knowing its key (the ``path`` of its item);
- only identifiers travel — numbers, flags and short strings without spaces (hashes, ids, paths,
  line numbers); prose is what the writer writes anew, never copied back.

:class:`ReadRecords` keeps the structured answers of reads that succeeded on the untouched
snapshot, with their calls, so the proposer can plan ``read → write`` where the write carries what
the read returned (a data composition that a value-by-value harvest cannot make).
"""

from __future__ import annotations

import copy
import json
from typing import Any, NamedTuple

from toolatlas.offline.kinds import PATH_KINDS, ArgSpec, parent_singular
from toolatlas.offline.words import tokens
from toolatlas.probing.bindings import document_of
from toolatlas.probing.values import ArgKind

__all__ = ["ReadRecord", "ReadRecords", "aligned_arguments", "document_of", "leaves", "merged_arguments"]

MAX_RECORDS_PER_TOOL = 3
MAX_IDENTIFIER_CHARS = 200
_ID_WORDS = frozenset({"id", "uuid", "key"})


class ReadRecord(NamedTuple):
    """The structured answer of one read call on the untouched snapshot (placeholders for paths)."""

    tool: str
    arguments: dict[str, Any]
    document: Any
    probe_id: str


class ReadRecords:
    """The latest structured answers of each read tool, one per distinct call, bounded."""

    def __init__(self) -> None:
        self._by_tool: dict[str, dict[str, ReadRecord]] = {}

    def add(self, record: ReadRecord) -> None:
        if not isinstance(record.document, dict | list):
            return
        kept = self._by_tool.setdefault(record.tool, {})
        kept[json.dumps(record.arguments, sort_keys=True, default=str)] = record
        while len(kept) > MAX_RECORDS_PER_TOOL:
            kept.pop(next(iter(kept)))

    def all(self) -> list[ReadRecord]:
        return [r for kept in self._by_tool.values() for r in kept.values()]


def _words(name: str) -> frozenset[str]:
    return frozenset(parent_singular(w) for w in tokens(name))


def _identifier(value: Any) -> bool:
    if isinstance(value, bool | int | float):
        return True
    return isinstance(value, str) and 0 < len(value) <= MAX_IDENTIFIER_CHARS and not any(c.isspace() for c in value)


class _Frame(NamedTuple):
    record: dict[str, Any]
    key: str | None
    """The key the record sits under in a keyed answer (``/a.md`` in ``{"/a.md": {...}}``)."""
    noun: str | None = None
    """What the record is, from the list it is an item of (``task`` in ``tasks: [...]``): its bare
    ``id`` is a ``taskId``."""


def _lists(frame: _Frame) -> list[tuple[str, list[_Frame]]]:
    """The lists of records a record holds (``ranges: [...]``), and the record itself when it is keyed
    records (``{"/a.md": {...}, "/b.md": {...}}``)."""
    found: list[tuple[str, list[_Frame]]] = []
    record = frame.record
    if record and all(isinstance(v, dict) for v in record.values()):
        found.append(("", [_Frame(v, k) for k, v in record.items()]))
    for key, value in record.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            found.append((key, [_Frame(v, None, parent_singular(key).lower()) for v in value]))
        elif isinstance(value, dict) and value:  # one nested record (``task: {...}``)
            found.append((key, [_Frame(value, None, key.lower())]))
    return found


def _fields(frames: list[_Frame]) -> set[frozenset[str]]:
    return {_words(k) for f in frames for k in f.record}


def _field(frame: _Frame, wanted: frozenset[str]) -> Any:
    """The value of the field of ``frame`` named ``wanted`` (the bare ``id`` of a task record is a
    ``taskId``), if it is an identifier."""
    for key, value in frame.record.items():
        words = _words(key)
        named = words == wanted or (words <= _ID_WORDS and frame.noun is not None and wanted == {frame.noun, *words})
        if named and _identifier(value):
            return value
    return None


def _scalar(spec: ArgSpec, chain: list[_Frame]) -> Any:
    """The nearest field named like ``spec``: in the records of the chain, innermost first, then the
    id of a record nested in the innermost one (a plan's first task, for a ``taskId``)."""
    wanted = _words(spec.name)
    for frame in reversed(chain):
        value = _field(frame, wanted)
        if value is not None:
            return value
        if spec.kind in PATH_KINDS and frame.key is not None and "/" in frame.key and _identifier(frame.key):
            return frame.key
    for _key, frames in _lists(chain[-1]):
        if frames[0].noun is not None and frames[0].noun in wanted:
            value = _field(frames[0], wanted)
            if value is not None:
                return value
    return None


def _align(specs: list[ArgSpec], chain: list[_Frame]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in specs:
        if spec.kind is ArgKind.OBJECT and spec.properties:
            inner = _align(spec.properties, chain)
            if inner:
                out[spec.name] = inner
        elif spec.kind is ArgKind.ARRAY and spec.items is not None and spec.items.properties:
            item_words = {_words(p.name) for p in spec.items.properties}
            best: tuple[int, list[_Frame]] | None = None
            for frame in reversed(chain):
                for _key, frames in _lists(frame):
                    keyed = any(f.key and "/" in f.key for f in frames) and any(
                        p.kind in PATH_KINDS for p in spec.items.properties
                    )  # records keyed by path, for items that name a path
                    score = len(item_words & _fields(frames)) + keyed
                    if score and (best is None or score > best[0]):
                        best = (score, frames)
            if best is not None:
                item = _align(spec.items.properties, [*chain, best[1][0]])
                if item:
                    out[spec.name] = [item]
        elif spec.kind not in (ArgKind.ARRAY, ArgKind.OBJECT):
            value = _scalar(spec, chain)
            if value is not None:
                out[spec.name] = value
    return out


def aligned_arguments(specs: list[ArgSpec], document: Any) -> dict[str, Any]:
    """The arguments of ``specs`` that the answer ``document`` holds, nested as the arguments are."""
    if isinstance(document, list):
        document = {"": document} if document and all(isinstance(d, dict) for d in document) else {}
    if not isinstance(document, dict):
        return {}
    return _align(specs, [_Frame(document, None)])


def leaves(value: Any) -> list[Any]:
    """The scalar values of a nested argument value."""
    if isinstance(value, dict):
        return [v for item in value.values() for v in leaves(item)]
    if isinstance(value, list):
        return [v for item in value for v in leaves(item)]
    return [value]


def merged_arguments(planned: dict[str, Any], aligned: dict[str, Any]) -> dict[str, Any]:
    """``planned`` with every aligned value in its place (the first item of an array is laid over)."""
    out = copy.deepcopy(planned)
    for name, value in aligned.items():
        current = out.get(name)
        if isinstance(value, dict) and isinstance(current, dict):
            out[name] = merged_arguments(current, value)
        elif isinstance(value, list) and isinstance(current, list) and current and isinstance(current[0], dict):
            out[name] = [merged_arguments(current[0], value[0])]
        else:
            out[name] = copy.deepcopy(value)
    return out
