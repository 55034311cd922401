"""Which tool shows the values another tool needs: suppliers found in the verified answers.

A tool that changes something takes arguments naming what it changes (the files to stage, the
entity to annotate). When a request does not name them ("commit my pending changes"), an agent
first looks at the state with a tool whose answer lists them. The atlas holds both halves of that
as evidence: the values a tool was verified to accept for an argument, and the verified answers
of the server's read-only tools. A read-only tool *supplies* the argument when one of its answers
contains such a value (``modified: src/core.py`` in a status, ``src/core.py`` staged by the adder)
and it can be called with what the consumer is called with (its required arguments are the
consumer's others: the repository, the database) — a data edge seen in the answers themselves,
whether or not a build witnessed the two calls in a row. Only *references* are supplied: arguments
the atlas verified to fail when they name something absent (not a payload such as a file's content).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from toolatlas.graph.models import Entry, EntryKind
from toolatlas.models import OutcomeClass

__all__ = ["REFERENCE_FAMILIES", "RANDOM_NAME", "accepted_values", "leaves", "references", "suppliers"]

ToolKey = tuple[str, str]

_PLACEHOLDER = re.compile(r"\$\{\w+\}/?")
RANDOM_NAME = re.compile(r"[\w.\-]*(?:_[0-9a-f]{4,}|[0-9a-f]{8,})[\w.\-]*"
                         r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{4,}\b")
"""A name a probe made up or harvested with a random part (``missing_3f2a.md``, a made-up hash, the
``b951`` of "No Such Entity b951")."""
MIN_CHARS, MAX_CHARS = 4, 200
"""A value shorter than this is found in any answer by chance; a longer one is a payload, not a name."""


def leaves(value: object, name: str) -> list[tuple[str, str]]:
    """(argument path, string) of every string inside an argument value (``files[0].path``)."""
    if isinstance(value, str):
        return [(name, value)]
    if isinstance(value, list):
        return [leaf for index, item in enumerate(value) for leaf in leaves(item, f"{name}[{index}]")]
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in leaves(item, f"{name}.{key}")]
    return []


def _distinctive(value: str) -> bool:
    """A value that names one thing: long enough, not a word any answer may hold, not invented by a probe."""
    if not MIN_CHARS <= len(value) <= MAX_CHARS or RANDOM_NAME.search(value):
        return False
    return len(value) >= 6 or not value.isalpha()


def accepted_values(entries: Mapping[EntryKind, list[Entry]]) -> dict[str, set[str]]:
    """Top-level argument → the values its verified successful calls passed in it (placeholders such as
    ``${repo}/`` stripped; only values that name one thing)."""
    values: dict[str, set[str]] = {}
    for entry in entries.get(EntryKind.AFFORDANCE, []):
        for evidence in entry.evidence:
            if evidence.outcome is not OutcomeClass.OK:
                continue
            for argument, item in evidence.arguments.items():
                for _, leaf in leaves(item, argument):
                    plain = _PLACEHOLDER.sub("", leaf).strip()
                    if _distinctive(plain):
                        values.setdefault(argument, set()).add(plain)
    return values


REFERENCE_FAMILIES = frozenset({"nonexistent_reference", "missing_extension", "sql_unknown_table"})
"""Boundary families of an argument naming something that is not there: what makes it a reference."""


def references(entries: Mapping[EntryKind, list[Entry]]) -> set[str]:
    """The top-level arguments the atlas verified to be references: naming something absent in them fails."""
    found = set()
    for entry in entries.get(EntryKind.BOUNDARY, []):
        if entry.family in REFERENCE_FAMILIES and entry.condition and entry.condition.startswith("`"):
            found.add(re.split(r"[`\[.]", entry.condition[1:], maxsplit=1)[0])
    return found


def _answers(entries: Mapping[EntryKind, list[Entry]]) -> str:
    """A tool's verified answers to plain uses (not to a misuse it survived), as one text."""
    return "\n".join(evidence.excerpt for entry in entries.get(EntryKind.AFFORDANCE, []) if entry.family is None
                     for evidence in entry.evidence if evidence.outcome is OutcomeClass.OK)


def suppliers(keys: list[ToolKey], required: Mapping[ToolKey, tuple[str, ...]], mutating: Mapping[ToolKey, bool],
              by_tool: Mapping[ToolKey, Mapping[EntryKind, list[Entry]]]) -> dict[str, dict[str, frozenset[str]]]:
    """Consumer tool → required reference argument → the read-only tools of the same server that supply it."""
    answers = {key: _answers(by_tool.get(key, {})) for key in keys if not mutating[key]}
    found: dict[str, dict[str, frozenset[str]]] = {}
    for key in keys:
        accepted = accepted_values(by_tool.get(key, {}))
        named = references(by_tool.get(key, {}))
        for argument in (a for a in required[key] if a in named):
            values = accepted.get(argument, set())
            context = set(required[key]) - {argument}
            supply = frozenset(other[1] for other, text in answers.items()
                               if other != key and set(required[other]) <= context and text
                               and any(value in text for value in values))
            if supply:
                found.setdefault(key[1], {})[argument] = supply
    return found
