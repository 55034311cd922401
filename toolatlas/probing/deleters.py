"""Undoing what a probe added to a server's memory with the server's own deleting tools.

A server that keeps named collections in memory (graphs, sessions, shelves) often makes one on first
use — a read of the default graph makes the default graph — and lists them all in one reader
(``list_graphs``). A restart undoes such a change, at the price of a server start (seconds for a
Python server) after nearly every probe. The server usually says how to undo it itself: a tool that
deletes one collection by its name (``delete_graph(graph)``, ``close_session(session_id)``). So:

- a **deleter** of a listing reader is a tool that says it deletes, removes, drops or closes (its
  name's or description's first word), takes the name in one string argument (its one required
  argument, or its only one), and names the same kind of thing as the listing (``graph`` in
  ``list_graphs`` and ``delete_graph``);
- the **new names** a listing shows are the strings its JSON answer now holds under a naming key
  (``name``, ``id``, ``*_id``, the deleter's own argument) that its fresh answer did not hold;
- each new name is given to the deleter, once. Whether that brought the server back is not assumed:
  the caller asks every reader again, and restarts the server unless all answer as fresh.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from toolatlas.models import ToolSpec

__all__ = ["MAX_DELETIONS", "Deleter", "find_deleters", "new_names"]

MAX_DELETIONS = 8
"""Names given to deleters after one probe at most (more: a restart is as quick)."""

_DELETE_VERBS = frozenset("delete remove drop close destroy discard unload".split())
_LIST_VERBS = frozenset("list enumerate get show".split())
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_NAMING_KEYS = frozenset({"name", "id"})


class Deleter:
    """A tool that deletes one of a listing's collections by name, and the argument it takes the name in."""

    def __init__(self, tool: str, argument: str) -> None:
        self.tool = tool
        self.argument = argument


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "")]


def _singulars(word: str) -> set[str]:
    """What ``word`` may be the plural of, and itself (``shelves`` → ``shelf``, ``entries`` → ``entry``)."""
    found = {word}
    if word.endswith("s"):
        found |= {word[:-1], word[:-2]}
    if word.endswith("ies"):
        found.add(word[:-3] + "y")
    if word.endswith("ves"):
        found |= {word[:-3] + "f", word[:-3] + "fe"}
    return found


def _nouns(name: str, verbs: frozenset[str]) -> set[str]:
    """The nouns a tool's name holds besides its verbs, in every form they may have (``list_graphs``
    → ``graphs``, ``graph``)."""
    return {form for w in _words(name) if w not in verbs and len(w) >= 3 for form in _singulars(w)}


def find_deleters(tools: Iterable[ToolSpec], readers: Iterable[str]) -> dict[str, Deleter]:
    """Reader name → the deleter of what it lists (see the module docstring), for readers that have one."""
    specs = list(tools)
    found: dict[str, Deleter] = {}
    for reader in readers:
        nouns = _nouns(reader, _LIST_VERBS)
        for spec in sorted(specs, key=lambda t: t.name):
            first = (_words(spec.name)[:1] or [""])[0]
            said = (_words(spec.description)[:1] or [""])[0]
            named = list(spec.required) or (list(spec.properties) if len(spec.properties) == 1 else [])
            if spec.name in readers or not ({first, said} & _DELETE_VERBS) or len(named) != 1:
                continue
            argument = named[0]
            schema = spec.properties.get(argument)
            if isinstance(schema, dict) and schema.get("type", "string") != "string":
                continue
            if nouns & _nouns(spec.name, _DELETE_VERBS):
                found[reader] = Deleter(spec.name, argument)
                break
    return found


def _names(document: Any, argument: str) -> list[str]:
    """The strings a listing holds under a naming key (or as the items of a plain list of names)."""
    found: list[str] = []
    frontier = [document]
    while frontier:
        item = frontier.pop(0)
        if isinstance(item, dict):
            for key, value in item.items():
                naming = key in _NAMING_KEYS or key == argument or key.endswith(("_id", "Id", "_name"))
                if isinstance(value, str) and naming and value not in found:
                    found.append(value)
                elif isinstance(value, dict | list):
                    frontier.append(value)
        elif isinstance(item, list):
            for value in item:
                if isinstance(value, str) and value not in found:
                    found.append(value)
                elif isinstance(value, dict | list):
                    frontier.append(value)
    return found


def new_names(fresh: Any, now: Any, argument: str) -> list[str]:
    """The names a listing's answer ``now`` holds that its ``fresh`` answer did not (both JSON)."""
    known = set(_names(fresh, argument))
    return [name for name in _names(now, argument) if name not in known][:MAX_DELETIONS]
