"""The pre-state condition of a call: what its arguments name in the state it was made in.

The same tool with the same arguments can change the environment once and nothing the next time
(the file already had that content, the path was already staged, the relation already existed). An
effect is only true together with the state it was observed in, so every step verdict carries a
short condition derived from two sources and nothing else:

- the **pre-state digest** — for each argument, the state items whose keys contain the names the
  argument carries (a path relative to its placeholder, an entity name, the scalar fields of an
  object in a list); an argument *names existing items* when every name matches an item before the
  call, *names nothing that exists yet* when none does;
- the **calls before it** — a call repeating the one just made (same tool, same arguments) runs on
  the state that call produced; a call made after earlier calls of its chain changed the state (when
  none of the items it names shows it) says so.

Arguments that carry no names (free text, numbers, flags) say nothing about the state and are left
out. A stateless environment has no digest: its calls carry no condition.

The condition comes as parts, each tied to the argument it speaks of (or to none: a repeat, an
earlier change), so that what is served speaks only of the arguments that reference objects
(:func:`joined`): a commit message or a search query is matched against the state like any value,
and "`message` names nothing that exists yet" is true but says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

from toolatlas.environments import StateDiff, StateDigest
from toolatlas.probing.text import run_specific_masked

__all__ = [
    "MAX_NAMES", "ConditionPart", "Named", "joined", "named_items", "portable_change", "precondition", "precondition_parts",
]

ConditionPart = tuple[str, str]
"""``(argument, phrase)`` of a condition; the argument is ``""`` for a part about no argument."""

MAX_NAMES = 16
"""A name matching more state items than this names a collection, not a target: it is ignored."""
_PLACEHOLDER_PREFIX = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}/?")
_MIN_NAME, _MAX_NAME = 3, 120


def _name(value: str) -> str | None:
    """The part of a string value that could be a state item's name (``${root}/a/b.txt`` → ``a/b.txt``)."""
    text = _PLACEHOLDER_PREFIX.sub("", value.strip()).strip("/")
    if not (_MIN_NAME <= len(text) <= _MAX_NAME) or "\n" in text or "${" in text:
        return None
    return text


def _groups(value: Any, *, top: bool = True) -> Iterable[list[str]]:
    """Sets of names that together designate one item: a scalar alone, an object's scalar fields
    together, each element of a top-level list on its own (what an object nests is its content)."""
    if isinstance(value, str):
        name = _name(value)
        if name:
            yield [name]
    elif isinstance(value, list) and top:
        for item in value:
            yield from _groups(item, top=False)
    elif isinstance(value, dict):
        names = [n for v in value.values() if isinstance(v, str) and (n := _name(v))]
        if names:
            yield names


_KIND_ONLY = re.compile(r"^(?:[\w.-]+:)?[…>/:#.\s-]*$")


def _targets(keys: list[str], names: list[str]) -> list[tuple[str, str]]:
    """``(key, kind)`` of the items a group of names designates: those whose key is the names and
    at most a kind prefix (``entity:Ada``, ``index:a.md``), else the least decorated ones."""
    masked = []
    for key in keys:
        kind = key
        for name in sorted(names, key=len, reverse=True):
            kind = kind.replace(name, "…")
        masked.append((key, kind))
    plain = [(k, m) for k, m in masked if _KIND_ONLY.match(m)]
    if plain:
        return plain
    shortest = min((len(m) for _, m in masked), default=0)
    return [(k, m) for k, m in masked if len(m) == shortest]


class Named:
    """What one argument value names in a digest."""

    def __init__(self) -> None:
        self.kinds: list[str] = []
        """The matched items with the names masked (``index:…``, ``relation:…>…>…``), and what one run
        made of the rest of their keys (:func:`~toolatlas.probing.text.run_specific_masked`), so
        observations made with different random names compare equal."""
        self.targets: list[tuple[str, str]] = []
        """(key, kind) of every matched item."""
        self.holders: list[str] = []
        """Items whose value *is* the name (``HEAD`` holding ``refs/heads/main`` for ``main``)."""
        self.groups = 0
        self.found = 0

    @property
    def complete(self) -> bool:
        return self.groups > 0 and self.found == self.groups


def named_items(value: Any, digest: StateDigest) -> Named:
    """What ``value`` (one argument) names in ``digest``: the items whose keys carry its names."""
    named = Named()
    for names in _groups(value):
        hits = {k: sum(n in k for n in names) for k in digest.items}
        best = max(hits.values(), default=0)
        keys = [k for k, n in hits.items() if n == best] if best else []
        if len(keys) > MAX_NAMES:
            continue
        names = [n for n in names if any(n in k for k in keys)] or names
        named.groups += 1
        if len(names) == 1:
            named.holders += [k for k, v in digest.items.items()
                              if (v == names[0] or v.endswith("/" + names[0])) and k not in named.holders]
        if keys:
            named.found += 1
            for key, kind in _targets(sorted(keys), names):
                kind = run_specific_masked(kind)  # what one run named the item (a session's history file) is no kind
                named.targets.append((key, kind))
                if kind not in named.kinds:
                    named.kinds.append(kind)
    return named


def _shown(kinds: list[str]) -> str:
    if kinds == ["…"]:
        return "an existing item"
    listed = sorted(k for k in kinds if k != "…") or ["…"]
    return "existing " + ", ".join(listed[:3]) + (f" +{len(listed) - 3}" if len(listed) > 3 else "")


def condition_argument(condition: str | None) -> str | None:
    """The top-level argument a misuse's condition is about: its first quoted name, up to a field or an item
    (``observations`` of ```observations[0].entityName` names …``); None when it quotes none."""
    if not condition or "`" not in condition:
        return None
    return re.split(r"[.\[]", condition.split("`")[1])[0]


def precondition(arguments: dict[str, Any], before: StateDigest | None, previous: tuple[str, dict] | None,
                 tool: str, snapshot: StateDigest | None = None) -> str:
    """The condition a call was made under, as a short phrase ("" when nothing is known): every part
    of :func:`precondition_parts`."""
    return joined(precondition_parts(arguments, before, previous, tool, snapshot))


def joined(parts: Iterable[ConditionPart], references: Collection[str] | None = None) -> str:
    """The phrase of ``parts``, keeping of the parts about an argument only those whose argument is
    in ``references`` (all of them when None)."""
    return " and ".join(text for argument, text in parts if not argument or references is None or argument in references)


def precondition_parts(arguments: dict[str, Any], before: StateDigest | None, previous: tuple[str, dict] | None,
                       tool: str, snapshot: StateDigest | None = None) -> list[ConditionPart]:
    """The condition a call was made under, part by part (see :func:`precondition`).

    ``previous`` is the (tool, arguments) of the call just before it in the same chain, if any;
    ``snapshot`` the state the chain started from (named items that differ from it were changed by
    an earlier call of the chain).
    """
    parts: list[ConditionPart] = []
    if previous is not None and previous == (tool, arguments):
        parts.append(("", "repeating the call just made"))
    if before is None:
        return parts
    changed_earlier = False
    for argument in sorted(arguments):
        named = named_items(arguments[argument], before)
        if not named.groups:
            continue
        if named.complete:
            part = f"`{argument}` names {_shown(named.kinds)}"
        elif named.kinds:
            part = f"only part of `{argument}` exists ({_shown(named.kinds).removeprefix('existing ')})"
        else:
            part = f"`{argument}` names nothing that exists yet"
        if snapshot is not None and snapshot is not before:
            touched = [kind for key, kind in named.targets if snapshot.items.get(key) != before.items[key]]
            if touched:
                kinds = [k for k in dict.fromkeys(touched) if k != "…"]
                part += f", {', '.join(kinds[:3]) + ' ' if kinds else ''}changed by an earlier call"
                changed_earlier = True
        if named.holders:
            part += f", already what {', '.join(named.holders[:2])} holds"
        parts.append((argument, part))
    if snapshot is not None and before is not snapshot and not changed_earlier:
        if before.items != snapshot.items:
            parts.append(("", "after an earlier call changed the state"))
    return parts


def portable_change(change: StateDiff, arguments: dict[str, Any], limit: int = 2) -> str:
    """What a call changed, said so that it holds for every call of its use, not only for the run it
    was seen in (``added: `path`; changed: .history/history_<id>.json``): an item the call added under
    a name an argument gave is that argument's (the name is the caller's choice), and in every item
    what one run made of its name — a session's UUID, a name a probe made up, a Unix time — is
    masked (:func:`~toolatlas.probing.text.run_specific_masked`); items alike once masked are one."""
    given = sorted(((name, argument) for argument in sorted(arguments)
                    for names in _groups(arguments[argument]) for name in names), key=lambda p: -len(p[0]))
    parts = []
    for label, keys in (("added", change.added), ("removed", change.removed), ("changed", change.changed)):
        shown: list[str] = []
        for key in keys:
            for name, argument in given:
                if name in key and (label == "added" or run_specific_masked(name) != name):
                    key = key.replace(name, f"`{argument}`")
            key = run_specific_masked(key)
            if key not in shown:
                shown.append(key)
        if shown:
            more = f", +{len(shown) - limit} more" if len(shown) > limit else ""
            parts.append(f"{label}: {', '.join(shown[:limit])}{more}")
    return "; ".join(parts)
