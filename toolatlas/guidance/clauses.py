"""The documentation as knowledge: the operative clauses of a tool's description.

A description mixes what a tool is for (its first sentence), what it *does* under which
conditions — limits, matching rules, failure conditions, side effects ("If the destination
exists, the operation will fail", "patterns … match paths", "overwrites existing files without
warning") — and advice that adds nothing ("Perfect for …", "Great for …"). Guidance keeps the
purpose and the operative clauses, drops the advice, and says once per server what most of its
tools' descriptions repeat ("Only works within allowed directories").

Each operative clause is checked against the atlas: a verified finding of the same tool that
speaks of the same thing (shared distinctive words) either agrees — a clause saying a call fails
and a boundary that failed, a clause saying a call goes through and a misuse that was accepted —
and the clause is marked ``verified``; or the clause says a call fails and the atlas saw the same
call accepted — marked ``contradicted`` with what was observed. A boundary never contradicts a
clause that says what a tool does: failing on some other condition does not disprove it.
Otherwise the clause stays ``documented``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from toolatlas.graph.families import is_schema_validation
from toolatlas.graph.models import Entry, EntryKind
from toolatlas.guidance.index import terms

__all__ = [
    "Clause",
    "agreement",
    "argument_clauses",
    "is_shared",
    "operative_clauses",
    "purpose",
    "schema_rule",
    "sentences",
    "shared_clauses",
    "vocabulary",
    "wrapped",
]

_SENTENCE = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bcf\.)(?<=[.!?])\s+(?=[A-Z'\"`(])")
"""A sentence ends at a stop before a capital or a quote — not after an abbreviation ("(e.g. 'WHERE…')")."""
_OPERATIVE = frozenset(terms(
    "only must cannot can't not never fail fails failure error errors exist exists overwrite overwrites "
    "without limit limits maximum max least most pattern patterns glob regex match matches matching exact exactly "
    "relative absolute recursive recursively silently sensitive require requires required deprecated instead "
    "both either per paginated "
    "truncated default defaults unless except won't don't doesn't ignore ignored allowed permitted"))
"""Words of limits, matching rules, conditions and outcomes (a clause with one of them is kept)."""
_ADVICE = re.compile(
    r"^(this (tool )?is )?(perfect|great|ideal|useful|essential|handy|more efficient)\b"
    r"|^use this( tool)? (when|to)\b",
    re.IGNORECASE)
"""Sentences that recommend rather than state (dropped)."""
_NEGATIVE = frozenset(terms("fail fails failure error errors cannot can't not never denied refuse refuses "
                            "reject "
                            "rejects invalid only must won't doesn't"))
"""Words saying a call does not go through."""
_GENERIC = frozenset(terms("tool tools call calls use uses used argument arguments value values operation "
                           "operations given return returns result results work works provided specified "
                           "no if when with each "
                           "any all this that these those"))
"""Words too common in entries and descriptions to tie a clause to an entry."""
CLAUSE_CHARS = 200
"""Longer clauses are cut (descriptions sometimes embed whole examples)."""


@dataclass(frozen=True)
class Clause:
    """An operative clause of a description and what the atlas says about it."""

    text: str
    status: str = "documented"
    """``documented``, ``verified`` (an entry agrees) or ``contradicted`` (an entry disagrees)."""
    entry_id: str | None = None
    note: str = ""
    """What the atlas observed, when it disagrees."""


def sentences(description: str) -> list[str]:
    """The sentences of a description, whitespace collapsed."""
    text = " ".join(description.split())
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()] if text else []


def purpose(description: str) -> str:
    """What the tool is for: the first sentence (cut at 160 characters)."""
    first = next(iter(sentences(description)), "")
    return first if len(first) <= 160 else first[:159].rstrip() + "…"


_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns?|Yields?|Examples?|Usage)\s*:\s*$",
                      re.IGNORECASE | re.MULTILINE)
"""A docstring's section of argument notes, of the answer's shape or of examples: each argument's own note is its
documentation (:func:`argument_clauses` says its rules), the rest no clause of what the tool does."""
_NEXT_SECTION = re.compile(r"^\s*[A-Z][A-Za-z ]{1,20}:\s*$", re.MULTILINE)


def _without_sections(description: str) -> str:
    """The description without its argument, answer and example sections (up to the next section heading, such as
    ``Raises:`` or ``Note:``, whose words are kept)."""
    while (section := _SECTION.search(description)) is not None:
        after = _NEXT_SECTION.search(description, section.end())
        description = description[:section.start()] + (description[after.start():] if after else "")
    return description


def operative_clauses(description: str) -> list[str]:
    """The sentences after the first that state a limit, a matching rule, a condition or an outcome (outside a
    docstring's argument, answer and example sections)."""
    kept = []
    for sentence in sentences(_without_sections(description))[1:]:
        if _ADVICE.search(sentence):
            continue
        if set(terms(sentence)) & _OPERATIVE or re.search(r"'[A-Za-z_]+'|`[A-Za-z_]+`", sentence):
            cut = sentence if len(sentence) <= CLAUSE_CHARS else sentence[:CLAUSE_CHARS - 1].rstrip() + "…"
            kept.append(cut)
    return kept


_LEFT_OUT = frozenset(terms("default defaults optional"))
_OMITTED = re.compile(r"\b(?:omitted|not (?:given|provided|specified|passed)|no \w+ (?:is )?specified)\b", re.IGNORECASE)
"""What an argument is when a call leaves it out: nothing a value the task gives there meets."""


def _readable(text: str) -> bool:
    """Whether most of a text's letters are of the script the operative vocabulary is written in (a name such as
    "ZIP" inside a sentence of another script does not make it readable)."""
    latin = sum(1 for c in text if c.isascii() and c.isalpha())
    return latin > sum(1 for c in text if c.isalpha()) - latin


def wrapped(schema: Mapping, spec: object) -> Mapping | None:
    """The object a top-level argument only wraps the real arguments in (``params`` pointing into ``$defs``, or
    an inline object with properties), or None."""
    if not isinstance(spec, Mapping):
        return None
    defs = schema.get("$defs") or schema.get("definitions") or {}
    ref = spec.get("$ref")
    inner = defs.get(ref.rsplit("/", 1)[-1]) if isinstance(ref, str) and isinstance(defs, Mapping) else spec
    return inner if isinstance(inner, Mapping) and isinstance(inner.get("properties"), Mapping) else None


def _arguments(schema: Mapping) -> dict[str, Mapping]:
    """Argument name → its schema: the top-level properties, and those of a top-level argument that only wraps
    the real ones in an object (:func:`wrapped`)."""
    found: dict[str, Mapping] = {}
    for name, spec in (schema.get("properties") or {}).items():
        if not isinstance(spec, Mapping):
            continue
        inner = wrapped(schema, spec)
        if inner is not None:
            found.update({n: s for n, s in inner["properties"].items() if isinstance(s, Mapping)})
        else:
            found[str(name)] = spec
    return found


def argument_clauses(schema: Mapping) -> list[tuple[str, str]]:
    """(argument, clause) for what an argument's own description states as a rule — a limit, a matching rule, a
    condition (its sentences with an operative word) — or, written in a script whose words the operative vocabulary
    cannot read, the whole description: it is the documentation of what a value given there meets."""
    found = []
    defs = schema.get("$defs") or schema.get("definitions") or {}
    for name, spec in _arguments(schema).items():
        description = " ".join(str(spec.get("description") or "").split())
        kept: list[str] = []
        if not _readable(description):
            kept.append(description[:CLAUSE_CHARS])
        else:
            for sentence in sentences(description):
                if not _ADVICE.search(sentence) and set(terms(sentence)) & _OPERATIVE - _LEFT_OUT \
                        and not _OMITTED.search(sentence):
                    kept.append(sentence if len(sentence) <= CLAUSE_CHARS else sentence[:CLAUSE_CHARS - 1].rstrip() + "…")
        options = _options(spec, defs)
        rule = schema_rule(options)
        if rule and not all(re.search(rf"(?<!\w)(?<!\d\.){re.escape(v)}(?!\w|\.\d)", " ".join(kept))
                            for v in _rule_values(options)):
            kept.insert(0, rule)
        found += [(name, clause) for clause in kept if clause]
    return found


MAX_SHOWN_MEMBERS = 12
"""Declared values a schema rule lists at most (a longer set is a vocabulary, not a rule a value meets)."""


def _number(value: object) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _options(spec: Mapping, defs: object) -> list[Mapping]:
    """An argument's schema and the alternatives it allows (``anyOf``: a value or null), each ``$ref`` followed
    into ``defs``."""
    def resolved(item: Mapping) -> Mapping:
        ref = item.get("$ref")
        target = defs.get(ref.rsplit("/", 1)[-1]) if isinstance(ref, str) and isinstance(defs, Mapping) else None
        return target if isinstance(target, Mapping) else item
    alternatives = [s for s in (spec.get("anyOf") or spec.get("oneOf") or []) if isinstance(s, Mapping)]
    return [resolved(item) for item in [spec, *alternatives]]


def _members(options: Sequence[Mapping]) -> list[str]:
    return list(dict.fromkeys(str(m) for o in options for m in (o.get("enum") or []) if m is not None))


def _bound(options: Sequence[Mapping], *keys: str) -> str | None:
    """The first of ``keys`` an option sets, written (``5``; ``5 (not included)`` for an exclusive bound)."""
    for option in options:
        for key in keys:
            value = option.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                return _number(value) + (" (not included)" if key.startswith("exclusive") else "")
    return None


def _rule_values(options: Sequence[Mapping]) -> list[str]:
    """The values a schema rule names: its members, or its bounds."""
    bounds = [_bound(options, key) for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                               "maxLength")]
    return _members(options) or [b.removesuffix(" (not included)") for b in bounds if b is not None]


def schema_rule(options: Sequence[Mapping]) -> str:
    """What an argument's schema allows (its options: :func:`_options`), as a rule a given value meets (``its
    schema allows 1 to 5``, ``its schema allows only g/mol, kg/mol or Da``, ``… at most 200 characters``): the
    bounds a value a task gives may be outside, which the description often leaves to the schema. Empty when the
    schema sets none (a lower bound alone is left out: what it refuses is rarely a value a task gives)."""
    members = _members(options)
    if 1 < len(members) <= MAX_SHOWN_MEMBERS:
        return f"its schema allows only {', '.join(members[:-1])} or {members[-1]}"
    low = _bound(options, "minimum", "exclusiveMinimum")
    high = _bound(options, "maximum", "exclusiveMaximum")
    if low is not None and high is not None:
        return f"its schema allows {low} to {high}"
    if high is not None:
        return f"its schema allows at most {high}"
    length = _bound(options, "maxLength")
    return f"its schema allows at most {length} characters" if length is not None else ""


def _key(sentence: str) -> str:
    return " ".join(terms(sentence))


def shared_clauses(descriptions: Sequence[str], *, share: float = 0.5, minimum: int = 3) -> set[str]:
    """Normalised clauses repeated by at least ``share`` of a server's descriptions (and ``minimum`` of them):
    said once for the server, not once per tool."""
    counts = Counter(key for d in descriptions for key in {_key(s) for s in operative_clauses(d)})
    needed = max(minimum, int(share * len(descriptions) + 0.999))
    return {key for key, n in counts.items() if n >= needed and key}


def is_shared(sentence: str, shared: set[str]) -> bool:
    return _key(sentence) in shared


def _content(text: str) -> set[str]:
    return {t for t in terms(text)
            if t not in _GENERIC and t not in _NEGATIVE and not t.isdigit() and "_" not in t}


VERIFIED_WEIGHT, CONTRADICTED_WEIGHT = 2.0, 3.0
CONTRADICTED_WORDS, VERIFIED_WORDS = 3, 2
"""How much distinctive vocabulary (summed IDF of shared words) a clause and an entry must share to be
taken as speaking of the same thing; an agreement also needs ``VERIFIED_WORDS`` shared words, argument names counted (one rare word — "required"
in "If SFTP is required" and in "missing required key" — ties a clause to an unrelated failure), a disagreement
``CONTRADICTED_WORDS``."""


def _speaks(entry: Entry) -> bool:
    """Entries a clause can be checked against: boundaries, and tolerances (a misuse that was accepted)."""
    if is_schema_validation(entry):
        return False
    return entry.kind is EntryKind.BOUNDARY or (
        entry.kind is EntryKind.AFFORDANCE and entry.family is not None)


def _said(entry: Entry) -> set[str]:
    """The words of a finding's condition (a tolerance keeps it in ``when``) and error."""
    condition = entry.condition or (entry.when or "").removesuffix(" (accepted)")
    return _content(" ".join(filter(None, (condition, entry.error_signature))))


def vocabulary(entries: Iterable[Entry]) -> dict[str, float]:
    """IDF of the words of a server's boundaries and tolerances: words every finding uses (``file``
    on a filesystem server) tie a clause to nothing."""
    said = [_said(e) for e in entries if _speaks(e)]
    counts = Counter(word for words in said for word in words)
    return {word: math.log(1 + len(said) / n) for word, n in counts.items()}


def agreement(
    clause: str, entries: Iterable[Entry], idf: dict[str, float], arguments: frozenset[str] = frozenset()
) -> Clause:
    """The clause marked against the tool's entries: the boundary or tolerance whose condition and error
    share the most distinctive words with it decides, by whether its outcome matches the clause's
    (failing vs going through). Plain uses are not compared: their text restates the description.
    The tool's argument names tie nothing (every finding names them)."""
    words = _content(clause) - arguments
    negative = sum(1 for t in terms(clause) if t in _NEGATIVE) % 2 == 1  # "failed reads won't stop it": fine
    best: tuple[float, Entry, int] | None = None
    for entry in entries:
        if not _speaks(entry) or (not negative and entry.kind is EntryKind.BOUNDARY):
            continue  # what a tool does is checked against what it accepted, not where it failed
        shared = words & _said(entry)
        weight = sum(idf.get(word, 0.0) for word in shared)
        if (weight >= VERIFIED_WEIGHT and len(_content(clause) & _said(entry)) >= VERIFIED_WORDS
                and (best is None or weight > best[0])):
            best = (weight, entry, len(shared))
    if best is None:
        return Clause(text=clause)
    weight, entry, shared_words = best
    fails = entry.kind is EntryKind.BOUNDARY
    if fails == negative:
        return Clause(text=clause, status="verified", entry_id=entry.id)
    if fails or weight < CONTRADICTED_WEIGHT or shared_words < CONTRADICTED_WORDS:
        return Clause(text=clause)
    condition = entry.condition or (entry.when or "").removesuffix(" (accepted)")
    observed = f"it failed when {condition}" if fails else f"it was accepted when {condition}"
    return Clause(text=clause, status="contradicted", entry_id=entry.id, note=observed)
