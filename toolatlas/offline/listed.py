"""Names an answer lists, fed to the later calls of the same run that take such names.

A loader that answers ``{"session_id": "83b7…", "columns": ["id", "name", "salary"]}`` has said
which columns the thing it made holds. That thing lives in the server's process, under the id the
same call minted (:mod:`toolatlas.offline.minted`): its names are sure only in that process, and
a name made up or copied from another run's answer names nothing there (``Column 'x' not found``).
So a later call of the same run takes them the way it takes the id — by reference,
``${step0.columns.1}``: the second name step 0 listed — and the executor fills them just before
the call (:mod:`toolatlas.probing.bindings`).

:class:`ListedNames` learns, from successful answers, where a tool lists names of a part of what
it holds: a list of strings (or of records with a ``name``) under a key whose words name such a
part (``columns``, ``column_names``, ``fields``, ``sheets``, ``keys``, ``headers``…).
:meth:`ListedNames.bind` then points each argument of a later step whose name (or its own
description's first word) names the same part — or a field of its items that does
(``conditions[0].column``) — at such a listing: the listing of the step it already takes an id
from, else of the nearest earlier step that lists those names. A step bound to no earlier answer
is left alone (its state is not known to live in the server's process: values from the snapshot or
the pool serve it), as are a misuse of the argument itself and an argument that names something
the call creates.

:class:`AnswerBindings` applies both kinds of binding, ids first, then writes paths into documents
for the documents the steps read (:mod:`toolatlas.offline.documents`).
"""

from __future__ import annotations

import copy
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolatlas.models import ToolSpec
from toolatlas.offline.answers import noun_kind
from toolatlas.offline.documents import adapted_paths
from toolatlas.offline.kinds import ArgSpec, infer_arguments, parent_singular
from toolatlas.offline.minted import MintedIds, breaks_argument
from toolatlas.offline.words import tokens
from toolatlas.probing.bindings import bound_references, output_ref
from toolatlas.probing.models import ProbeStep
from toolatlas.probing.values import ArgKind, HarvestRef

if TYPE_CHECKING:
    from toolatlas.offline.facts import EnvironmentFacts

__all__ = ["PART_NOUNS", "AnswerBindings", "ListedNames"]

PART_NOUNS = frozenset({
    "column", "field", "key", "sheet", "worksheet", "table", "header", "attribute", "property", "variable",
})
"""Nouns of the named parts of data: what a listing of names and an argument taking one may both name."""
MAX_DEPTH = 3
"""How deep in an answer's objects a listing is looked for."""
MAX_NAME_CHARS = 200
_LEADING = frozenset({"the", "a", "an", "one", "or", "more", "list", "of", "names", "name", "optional"})


class ListedNames:
    """Where the server's answers list names of parts other tools' arguments take, learned from successful calls."""

    def __init__(self, specs: Mapping[str, ToolSpec]) -> None:
        self.specs = specs
        self._takers: dict[str, list[tuple[ArgSpec, str]]] = {
            name: found for name, spec in specs.items() if (found := _takers(spec))
        }
        self._seen: dict[tuple[str, str], dict[str, Any]] = {}
        """(tool, path of a listing) → its noun, the fewest names it held, the first probe that showed it,
        and the key naming each record (``name``) or None for a list of strings."""

    def observe(self, tool: str, document: Any, probe_id: str) -> None:
        """Note the listings of names other tools take in a successful answer of ``tool``."""
        if not isinstance(document, Mapping):
            return
        for path, noun, size, field in _listings(document, "", 0):
            seen = self._seen.setdefault((tool, path), {"noun": noun, "size": size, "probe_id": probe_id,
                                                        "field": field})
            seen["size"] = min(seen["size"], size)

    def listers(self, noun: str) -> dict[str, tuple[str, int, str | None, str]]:
        """Tool → (path, fewest names, record key, probe id) of its listing of ``noun`` names (its first one)."""
        found: dict[str, tuple[str, int, str | None, str]] = {}
        for (tool, path), seen in self._seen.items():
            if seen["noun"] == noun and tool not in found:
                found[tool] = (path, seen["size"], seen["field"], seen["probe_id"])
        return found

    def bind(self, steps: list[ProbeStep]) -> list[ProbeStep]:
        """``steps`` with each argument that takes listed names bound to an earlier step's listing."""
        if not self._seen:
            return steps
        bound = list(steps)
        for index, step in enumerate(steps):
            sources = sorted({ref[0] for ref in bound_references(step.arguments) if ref[0] < index}, reverse=True)
            if not sources:
                continue
            arguments = copy.deepcopy(step.arguments)
            harvested = list(step.harvested)
            for position, (where, noun, value) in enumerate(self._slots(step)):
                listers = self.listers(noun)
                earlier = [j for j in range(index - 1, -1, -1) if bound[j].tool in listers and bound[j].tool != step.tool]
                source = next((j for j in sources if j in earlier), earlier[0] if earlier else None)
                if source is None:
                    continue
                path, size, field, probe_id = listers[bound[source].tool]
                start = zlib.crc32(f"{where}={value!r}".encode()) + position
                picks = [(start + k) % size for k in range(min(len(value), size) if isinstance(value, list) else 1)]
                references = [output_ref(source, ".".join(p for p in (path, str(i), field) if p)) for i in picks]
                _put(arguments, where, references if isinstance(value, list) else references[0])
                kind = noun_kind([noun]) or ArgKind.IDENTIFIER
                harvested.append(HarvestRef(kind=kind, value=references[0], tool=bound[source].tool, probe_id=probe_id))
            if arguments != step.arguments:
                bound[index] = step.model_copy(update={"arguments": arguments, "harvested": harvested})
        return bound

    def _slots(self, step: ProbeStep) -> list[tuple[tuple[str | int, ...], str, Any]]:
        """Where ``step`` takes names of a part (an argument, or a field of its items), the part, and the
        value planned there; not what the step breaks, nor what is bound already."""
        described = {spec.path: noun for spec, noun in self._takers.get(step.tool, [])}
        found: list[tuple[tuple[str | int, ...], str, Any]] = []
        for name, value in step.arguments.items():
            if name in described:
                found.append(((name,), described[name], value))
            elif isinstance(value, Mapping):  # the fields of one object argument (``params.var_name``)
                found.extend(((name, key), described[f"{name}.{key}"], inner) for key, inner in value.items()
                             if f"{name}.{key}" in described)
            elif isinstance(value, list) and all(isinstance(item, Mapping) for item in value):
                found.extend(((name, i, key), noun, inner) for i, item in enumerate(value) for key, inner in item.items()
                             if (noun := _noun(tokens(key))) is not None and isinstance(inner, str | list))
        return [(where, noun, value) for where, noun, value in found
                if value not in (None, "", []) and not bound_references(value) and not breaks_argument(step, _locator(where))
                and (not isinstance(value, list) or all(isinstance(v, str) for v in value))]

    def dump(self) -> list[list[Any]]:
        """What was seen, JSON-able (for checkpoints)."""
        return [[tool, path, seen] for (tool, path), seen in self._seen.items()]

    def load(self, saved: list[list[Any]]) -> None:
        """Continue from :meth:`dump`."""
        self._seen = {(tool, path): dict(seen) for tool, path, seen in saved}


class AnswerBindings:
    """Arguments bound to earlier steps of the same run: identifiers a server mints, then the names
    those answers list, then paths written for the document a step names."""

    def __init__(self, specs: Mapping[str, ToolSpec]) -> None:
        self.specs = specs
        self.minted = MintedIds(specs)
        self.listed = ListedNames(specs)

    def observe(self, tool: str, arguments: dict[str, Any], document: Any, probe_id: str) -> None:
        """Learn from one successful answer of ``tool`` (called with ``arguments``)."""
        self.minted.observe(tool, arguments, document, probe_id)
        self.listed.observe(tool, document, probe_id)

    def bind(self, steps: list[ProbeStep], facts: EnvironmentFacts | None = None,
             args: Mapping[str, list[ArgSpec]] | None = None) -> list[ProbeStep]:
        """``steps`` bound to the ids, then the names, earlier answers of the run give; their paths into
        documents written for the snapshot's documents they read (``facts``; ``args``: the specs as planned)."""
        return adapted_paths(self.listed.bind(self.minted.bind(steps)), self.specs, facts, args)

    def dump(self) -> dict[str, Any]:
        """What was learned, JSON-able (for checkpoints)."""
        return {"minted": self.minted.dump(), "listed": self.listed.dump()}

    def load(self, saved: dict[str, Any]) -> None:
        """Continue from :meth:`dump`."""
        self.minted.load(saved.get("minted", []))
        self.listed.load(saved.get("listed", []))


def _locator(where: tuple[str | int, ...]) -> str:
    """``("conditions", 0, "column")`` → ``conditions[0].column``."""
    text = str(where[0])
    for part in where[1:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _put(arguments: dict[str, Any], where: tuple[str | int, ...], value: Any) -> None:
    node: Any = arguments
    for part in where[:-1]:
        node = node[part]
    node[where[-1]] = value


def _noun(words: list[str]) -> str | None:
    """The part a name's words name (``columns_affected`` → ``column``), if one."""
    return next((n for n in (parent_singular(w) for w in words) if n in PART_NOUNS), None)


def _takers(tool: ToolSpec) -> list[tuple[ArgSpec, str]]:
    """The arguments of ``tool`` that take names of a part, with the part's noun: strings (or arrays of
    them) named after it, or described starting with it (``Columns to sort by``)."""
    found = []
    arguments = infer_arguments(tool)
    fields = [field for spec in arguments if spec.kind is ArgKind.OBJECT for field in spec.properties]
    for spec in [*arguments, *fields]:
        item = spec.items if spec.kind is ArgKind.ARRAY else spec
        if item is None or item.json_type not in ("string", "any") or spec.fresh or "new" in tokens(spec.name):
            continue
        described = [w for w in tokens(spec.description) if w not in _LEADING][:1]
        noun = _noun(tokens(spec.name)) or _noun(described)
        if noun is not None:
            found.append((spec, noun))
    return found


def _listings(node: Mapping[str, Any], prefix: str, depth: int):
    """``(path, noun, size, record key)`` of every list of names under a key naming a part."""
    for key, value in node.items():
        path = f"{prefix}{key}"
        noun = _noun(tokens(str(key)))
        if isinstance(value, list) and value and noun is not None:
            if all(isinstance(v, str) and 0 < len(v) <= MAX_NAME_CHARS for v in value):
                yield path, noun, len(value), None
            elif all(isinstance(v, Mapping) and isinstance(v.get("name"), str) and v["name"] for v in value):
                yield path, noun, len(value), "name"
        elif isinstance(value, Mapping) and depth < MAX_DEPTH:
            yield from _listings(value, path + ".", depth + 1)
