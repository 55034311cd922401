"""Maintainer facts: what a server's maintainer would write in its docs, checked against an atlas.

A fact is read from a server's source (cited by file and line) and states one behaviour: a valid
use (*affordance*), a failure with its real error (*boundary*), or a composition with a peer
tool (*co_usage*). Each fact carries a :class:`FactMatch` — regexes and typed fields an atlas
entry must satisfy — so recall is computed automatically and strictly:

* the entry is of the fact's kind, active, and on one of the fact's tools (a composition: it joins
  the fact's tool and its peer, recorded on either) — or a schema-only boundary its tool's schema summary
  stands for (status ``summarised``: in the atlas with its own evidence, served through the summary; such
  a recall is marked :attr:`FactOutcome.summarised`, so that recall is reported both ways);
* every field the matcher sets holds: ``error`` over the entry's error signature or a verbatim
  excerpt of its evidence, ``condition`` over its condition or text, ``peer``/``relation`` of a
  composition, ``effect``, ``reported_as_success``; and the *evidence* fields (``arguments``,
  ``output``, ``state_change``) all hold for one and the same evidence call of the fact's tools —
  the call that proves the behaviour, which for a valid use must have succeeded (outcome ``ok``).

A matcher must say more than "some entry on the tool": a boundary names its error (or the
argument values that trigger it), an affordance names arguments, an output or a state change,
a composition names its peer and relation. Such a matcher is rejected when the fact is loaded,
so a generic or unrelated entry can never satisfy a fact. Patterns are case-insensitive
(:func:`re.search`).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator

from toolatlas.errors import ConfigError
from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind, EntryStatus, Evidence
from toolatlas.models import Effect, Frozen, OutcomeClass

__all__ = [
    "Fact",
    "FactMatch",
    "FactOutcome",
    "FactSet",
    "explain_miss",
    "load_facts",
    "matches",
    "recall_facts",
]


def _search(pattern: str | None, *texts: str | None) -> bool:
    if pattern is None:
        return True
    return any(text is not None and re.search(pattern, text, re.IGNORECASE) for text in texts)


def _compile(pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression ({exc}): {pattern!r}") from exc


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


class FactMatch(Frozen):
    """What an atlas entry must show to recall a fact (every field set must hold)."""

    error: str | None = None
    """Regex over the entry's error signature or a verbatim evidence excerpt (the server's message)."""
    condition: str | None = None
    """Regex over the entry's triggering condition or its sentence."""
    arguments: dict[str, str] = Field(default_factory=dict)
    """Argument name → regex over that argument's value (JSON text unless a string) in one evidence call."""
    output: str | None = None
    """Regex over that evidence call's output excerpt."""
    state_change: str | None = None
    """Regex over that evidence call's recorded state change."""
    peer: str | None = None
    """Co-usage: the other tool of the composition."""
    relation: CoUsageRelation | None = None
    effect: Effect | None = None
    reported_as_success: bool | None = None
    """Boundary: whether the server reports the error in a successful result."""

    @field_validator("error", "condition", "output", "state_change")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            _compile(value)
        return value

    @field_validator("arguments")
    @classmethod
    def _argument_patterns_compile(cls, value: dict[str, str]) -> dict[str, str]:
        for pattern in value.values():
            _compile(pattern)
        return value

    @property
    def needs_evidence(self) -> bool:
        return bool(self.arguments or self.output is not None or self.state_change is not None)

    def evidence_holds(self, item: Evidence) -> bool:
        """Whether one evidence call satisfies every evidence field."""
        for name, pattern in self.arguments.items():
            if name not in item.arguments or not _search(pattern, _as_text(item.arguments[name])):
                return False
        return _search(self.output, item.excerpt) and _search(self.state_change, item.state_change)


class Fact(Frozen):
    """One behaviour of one server, as its maintainer would document it, with its matcher and source."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    kind: EntryKind
    tools: list[str] = Field(min_length=1)
    statement: str = Field(min_length=1)
    source: str = Field(min_length=1, description="where it was read: file:line in the package")
    match: FactMatch

    @model_validator(mode="after")
    def _strict(self) -> Fact:
        m = self.match
        if self.kind is EntryKind.BOUNDARY and m.error is None and not m.arguments:
            raise ValueError("a boundary fact's matcher names its error, or the arguments that trigger it")
        if self.kind is EntryKind.AFFORDANCE and not (m.needs_evidence or m.condition):
            raise ValueError(
                "an affordance fact's matcher names arguments, an output, a state change or a condition"
            )
        if self.kind is EntryKind.CO_USAGE and (m.peer is None or m.relation is None):
            raise ValueError("a co_usage fact's matcher names its peer and relation")
        if self.kind is not EntryKind.CO_USAGE and (m.peer is not None or m.relation is not None):
            raise ValueError("only a co_usage fact has a peer and a relation")
        return self


class FactSet(Frozen):
    """The maintainer facts of one server (one data file)."""

    server: str
    package: str = Field(description="the package and version the facts were read from, e.g. mcpgex==0.1.4")
    facts: list[Fact] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> FactSet:
        ids = [f.id for f in self.facts]
        if len(ids) != len(set(ids)):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"duplicate fact ids in {self.server}: {twice}")
        return self


HELD = frozenset({EntryStatus.ACTIVE, EntryStatus.SUMMARISED})
"""The statuses of an entry that recalls a fact (see the module docstring)."""


def matches(fact: Fact, entry: Entry) -> bool:
    """Whether ``entry`` recalls ``fact`` (see the module docstring for the rules)."""
    m = fact.match
    if entry.kind is not fact.kind or entry.status not in HELD or not _on_pair(fact, entry):
        return False
    if m.relation is not None and entry.relation is not m.relation:
        return False
    if m.effect is not None and entry.effect is not m.effect:
        return False
    if m.reported_as_success is not None and entry.reported_as_success != m.reported_as_success:
        return False
    if not _search(m.condition, entry.condition, entry.text):
        return False
    if not _error_holds(fact, entry):
        return False
    return not m.needs_evidence or any(_proves(fact, e) for e in entry.evidence)


def _proves(fact: Fact, item: Evidence) -> bool:
    """Whether one evidence call is a call of the fact's tools showing every evidence field; a valid use
    (affordance) must also have succeeded."""
    failed = fact.kind is EntryKind.AFFORDANCE and item.outcome is not OutcomeClass.OK
    if item.tool not in _tools(fact) or failed:
        return False
    return fact.match.evidence_holds(item)


def _error_holds(fact: Fact, entry: Entry) -> bool:
    """The fact's error occurs in the entry's error signature or in a verbatim evidence excerpt."""
    pattern = fact.match.error
    return pattern is None or _search(pattern, entry.error_signature, *(e.excerpt for e in entry.evidence))


def _tools(fact: Fact) -> set[str]:
    return {*fact.tools, *([fact.match.peer] if fact.match.peer else [])}


def _on_pair(fact: Fact, entry: Entry) -> bool:
    """The entry is on one of the fact's tools; a composition joins the fact's tool and peer, recorded on
    either of the two (a data edge sits on the producer, a state edge on the tool that needs the state)."""
    if fact.match.peer is None:
        return entry.tool in fact.tools
    return (entry.tool in fact.tools and entry.peer == fact.match.peer) or (
        entry.tool == fact.match.peer and entry.peer in fact.tools
    )


class FactOutcome(Frozen):
    """Whether one fact was recalled, by which entry, or why not."""

    server: str
    fact: str
    kind: EntryKind
    recalled: bool
    entry: str | None = None
    """The id of the first matching entry (an active one when there is one)."""
    summarised: bool = False
    """Recalled only by a schema-only boundary its tool's schema summary stands for."""
    reason: str = ""
    """For a miss: what the atlas holds on the fact's tools and what it lacks."""


def explain_miss(fact: Fact, entries: Sequence[Entry]) -> str:
    """Why no entry recalls ``fact``: the nearest candidates and the first matcher field they fail."""
    inactive = [e for e in entries if e.status not in HELD]
    revived = next(
        (e for e in inactive if matches(fact, e.model_copy(update={"status": EntryStatus.ACTIVE}))), None
    )
    if revived is not None:
        return f"only a {revived.status.value} entry matches ({revived.id})"
    on_tools = [e for e in entries if e.tool in _tools(fact) and e.status is EntryStatus.ACTIVE]
    same_kind = [e for e in on_tools if e.kind is fact.kind]
    if not on_tools:
        return f"no entry on {', '.join(fact.tools)}"
    if not same_kind:
        return f"no {fact.kind.value} on {', '.join(fact.tools)} ({len(on_tools)} other entries)"
    failed: dict[str, int] = {}
    m = fact.match
    checks = {
        "peer": lambda e: _on_pair(fact, e),
        "relation": lambda e: m.relation is None or e.relation is m.relation,
        "error": lambda e: _error_holds(fact, e),
        "condition": lambda e: _search(m.condition, e.condition, e.text),
        "evidence": lambda e: not m.needs_evidence or any(_proves(fact, x) for x in e.evidence),
        "effect": lambda e: m.effect is None or e.effect is m.effect,
        "reported_as_success": lambda e: m.reported_as_success in (None, e.reported_as_success),
    }
    for entry in same_kind:
        for name, check in checks.items():
            if not check(entry):
                failed[name] = failed.get(name, 0) + 1
                break
    worst = ", ".join(f"{name} ({count})" for name, count in sorted(failed.items(), key=lambda kv: -kv[1]))
    return f"{len(same_kind)} {fact.kind.value} entries on the tool(s), none matches: {worst}"


def recall_facts(fact_sets: Iterable[FactSet], entries: Iterable[Entry]) -> list[FactOutcome]:
    """One outcome per fact, in file order, against the entries of an atlas (any servers)."""
    by_server: dict[str, list[Entry]] = {}
    for entry in entries:
        by_server.setdefault(entry.server, []).append(entry)
    outcomes = []
    for fact_set in fact_sets:
        pool = by_server.get(fact_set.server, [])
        for fact in fact_set.facts:
            hits = [e for e in pool if matches(fact, e)]
            hit = next((e for e in hits if e.status is EntryStatus.ACTIVE), hits[0] if hits else None)
            outcomes.append(
                FactOutcome(
                    server=fact_set.server,
                    fact=fact.id,
                    kind=fact.kind,
                    recalled=hit is not None,
                    summarised=hit is not None and hit.status is EntryStatus.SUMMARISED,
                    entry=hit.id if hit is not None else None,
                    reason="" if hit is not None else explain_miss(fact, pool),
                )
            )
    return outcomes


def load_facts(path: str | Path) -> list[FactSet]:
    """The fact sets of one ``.toml`` file, or of every ``*.toml`` directly in a folder (sorted by name).

    A malformed file is a :class:`~toolatlas.errors.ConfigError` naming every problem with its location.
    """
    path = Path(path)
    files = sorted(path.glob("*.toml")) if path.is_dir() else [path]
    if not files:
        raise ConfigError(str(path), [("", "no fact files (*.toml) here")])
    sets = []
    for file in files:
        try:
            sets.append(FactSet.model_validate(tomllib.loads(file.read_text(encoding="utf-8"))))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(str(file), [("", f"cannot read the fact file: {exc}")]) from exc
        except ValidationError as exc:
            problems = [(".".join(str(p) for p in err["loc"]), err["msg"]) for err in exc.errors()]
            raise ConfigError(str(file), problems) from exc
    return sets
