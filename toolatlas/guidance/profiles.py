"""What guidance knows of each tool and server, computed once when an atlas is loaded.

A :class:`ToolProfile` holds what a request is matched against and what is served from it: the
purpose and operative clauses of the description (marked against the atlas, see
:mod:`toolatlas.guidance.clauses`), the operations the tool performs, its verified uses folded
into one note, and its boundaries and tolerances *deduplicated*: two findings whose condition and
error differ only in harvested or random names (``missing_b200`` / ``missing_d9b9``, a probe's
file name, a number) are one. A :class:`ServerProfile` holds what its tools' descriptions all
repeat, and its *discovery* tools: tools that need no argument, change nothing, and whose output
was verified to feed other tools' arguments (the allowed root, the list of tables) — the first
step of a task that names nothing exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

from toolatlas.graph.families import OR_WHEN, SCHEMA_FAMILIES, is_schema_validation, verdict_quote
from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind, ToolNode
from toolatlas.guidance.clauses import (
    Clause,
    agreement,
    argument_clauses,
    is_shared,
    operative_clauses,
    purpose,
    shared_clauses,
    vocabulary,
)
from toolatlas.guidance.implied import (
    FILE_KIND,
    LIMIT_FAMILY,
    declared_sets,
    error_cap_of,
    given_can_meet,
    stated_cap_of,
    states_cap,
    subjects,
)
from toolatlas.guidance.index import LexicalIndex, terms
from toolatlas.guidance.minting import minters, required_arguments
from toolatlas.guidance.models import UseNote
from toolatlas.guidance.operations import OPERATIONS, namespaces, tool_operations
from toolatlas.guidance.shapes import changes_data, value_shapes
from toolatlas.guidance.supply import RANDOM_NAME, leaves, suppliers
from toolatlas.models import Effect, OutcomeClass
from toolatlas.probing.text import is_validation_head, message_line, says_absent, tally_failure

__all__ = ["Finding", "ServerProfile", "ToolProfile", "answer_line", "condition_line", "first_said", "masked", "server_profiles", "tolerance", "tool_profile"]

ToolKey = tuple[str, str]

_RANDOM = RANDOM_NAME
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”")
_PATH = re.compile(r"(?:\$\{\w+\}|<path>)?(?:/[^\s'\":,]+)+/?")
_NUMBER = re.compile(r"\d+")
_DEPRECATED = terms("deprecated")[0]


_PLACEHOLDER = re.compile(r"<\w+>")
"""A value the build already masked in an error signature (``<s>``, ``<n>``)."""
_LISTED = re.compile(r"_(?:\s*,\s*_)+")
"""A listing of masked values (``['Sales', 'Targets']`` and ``['Sales', 'Targets', 'Sheet']`` are one)."""


def masked(text: str) -> str:
    """``text`` with harvested and random names, quoted values (a quoted sentence is no value: a JSON
    answer's message stays), paths and numbers replaced by ``_``, and a listing of such values by one
    ``_`` (what the state held when it was said is no part of the finding)."""
    text = _QUOTED.sub(lambda m: "_" if m.group().count(" ") < 2 else m.group(), text)
    for pattern in (_PATH, _RANDOM, _NUMBER, _PLACEHOLDER):
        text = pattern.sub("_", text)
    return " ".join(_LISTED.sub("_", text).lower().split())


_WORDY = re.compile(r"[A-Za-z]{3,}")


_FRAMED = re.compile(r"^Error (?:executing|calling) tool '?[\w.-]+'?:\s*")
"""The frame an MCP framework puts around a tool's error, naming the tool: the same error of two tools is one."""


def first_said(text: str) -> str:
    """The first line of ``text`` that says something, on one line with what it opens: an answer whose
    first line is only a brace (JSON), or ends by opening one (``Error calling tool 'x': {`` and a JSON
    body that says what went wrong), is said whole."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first and is_validation_head(first):  # every violation's head is the same: the field and why say it
        return message_line(text.strip())
    return " ".join(text.split()) if first and _opens(first) else first


def _opens(line: str) -> bool:
    """Whether a line only opens what follows it: a brace alone, or a prefix ending in ``{`` or ``[``."""
    return not _WORDY.search(line) or line[-1] in "{["


_REPR = re.compile(r"<([A-Z]\w*) [^<>]{20,}>")
"""An object as Python prints it inside a message (``<ZipInfo filename='a.csv' compress_type=99 …>``)."""


def answer_line(text: str, arguments: Mapping[str, object] | None = None, limit: int = 240) -> str:
    """A server's answer as guidance quotes it: its first line that says something (:func:`first_said`) — of a
    batch's tally where nothing went through, the reason it gives (``Error: … is encrypted, password required``) —
    with the names a probe invented (random or harvested-and-altered: ``missing_3f2a.md``, a made-up hash)
    never carried into guidance — a value of the call's ``arguments`` is named by its argument
    (``<path>``), any other such name becomes ``…``."""
    first = tally_failure(text) or first_said(text)  # a batch of which nothing went through: the reason it gives
    first = _REPR.sub(r"<\1 …>", first)  # an object's printed fields say nothing of the failure
    for name, value in sorted(((n, v) for key, item in (arguments or {}).items() for n, v in leaves(item, key)),
                              key=lambda pair: -len(pair[1])):
        if len(value) >= 4 and _RANDOM.search(value) and value in first:
            first = first.replace(value, f"<{name}>")
    return _RANDOM.sub("…", first)[:limit]


def condition_line(text: str) -> str:
    """A finding's condition as guidance says it: a name the probe invented becomes ``…``, and a
    parenthesis that only named it goes; of several misuses answered alike (:data:`~toolatlas.graph.families.OR_WHEN`),
    the first and how many more."""
    first, *more = text.split(OR_WHEN)
    first = _called_with(first)
    said = f"{first} (or {len(more)} more)" if more else first
    return _RANDOM.sub("…", said).replace(" (`…`)", "")


CALLED_CHARS = 120
"""Characters of a whole call a condition quotes (``called with `a` = …, `b` = …``) before its other arguments are
left out: the first ones and what the error named say which call it was."""
_CALLED = re.compile(r"^called with (?P<arguments>`.*?)(?P<tail>(?: \((?:the error names it|[^()]*given)\))*)$")


def _called_with(condition: str) -> str:
    """A condition that quotes a whole call, cut after the arguments that fit in :data:`CALLED_CHARS` (``, …``),
    with what follows them kept (``(the error names it)``)."""
    match = _CALLED.match(condition)
    if match is None or len(condition) <= CALLED_CHARS:
        return condition
    parts = match.group("arguments").split(", `")
    kept = parts[0]
    for part in parts[1:]:
        if len(kept) + len(part) + 3 > CALLED_CHARS:
            return f"called with {kept}, …{match.group('tail')}"
        kept += ", `" + part
    return condition


CONTRIVED = frozenset({"empty_value", "oversized_value", "unicode_value", "leading_dash"})
"""Boundary families of values no task hands a tool (an empty string, 100 KB, a leading dash): a
tool's answer to them is served when a task's words point there, never by default."""
MIN_PASSED = 3
"""Shortest value of a call that an error naming it is told apart by (shorter ones occur by chance)."""
NATURAL_LEAD, STATE_LEAD, SOFT_LEAD = 1.5, 1.0, 1.0
"""What a finding weighs for any task that uses its tool, before its words are matched: a valid call
that failed on the real state, a failure until another tool changes the state or mints the identifier
passed (an ordering, proven), and an error the server passes off as success."""


@dataclass(frozen=True)
class Finding:
    """A boundary (or a tolerance: a misuse the tool accepted; or an answer cut at a stated limit) as guidance
    serves it."""

    entry: Entry
    text: str
    """Its condition: what a task is matched against (the error counts less, see ``error``)."""
    error: str
    schema: bool
    """Provoked only by violating the input schema (served at most once per tool)."""
    cut: bool = False
    """A call past a limit the description states that went through, its answer cut at the limit (the
    server said so: "truncated to 25 rows"), or a verified use whose answer says how much more there is
    (:func:`says_more`): what a task asking for more gets (:func:`cut_at_limit`)."""
    said: str = ""
    """The line of the answer guidance quotes, when it is not the answer's first (:func:`says_more`)."""
    verdict: bool = False
    """A judging tool's negative verdict (:func:`~toolatlas.graph.families.verdict_quote`), quoted by ``said``."""

    @cached_property
    def changes(self) -> bool:
        """Whether its call passed a statement that changes data (an ``INSERT``: :func:`takes_change`)."""
        return takes_change(self.entry)

    @cached_property
    def cap(self) -> int | None:
        """The count a stated limit allows, for a finding one step past it, or the one its refusal states (``the
        limit is 50000``: a task giving 120,000 characters meets it); None otherwise."""
        if self.entry.family == LIMIT_FAMILY:
            return stated_cap_of(self.text)
        if self.schema or not self.entry.evidence or self.entry.outcome == "ok":
            return None
        return error_cap_of(self.entry.evidence[0].excerpt)  # the refusal as written (the error masks its numbers)

    @cached_property
    def subjects(self) -> frozenset[str]:
        """What its value went to: the words of the names its condition quotes
        (:func:`~toolatlas.guidance.implied.subjects`)."""
        return subjects(self.text)

    @cached_property
    def file_kinds(self) -> frozenset[str]:
        """The kinds of file its call named, when it failed on the real state (a natural failure: the file was
        there, its kind was not what the tool takes)."""
        return file_kinds([self.entry], ok=False) if self.entry.family is None else frozenset()

    @cached_property
    def contrived(self) -> bool:
        """Provoked by a value no task hands a tool (:data:`CONTRIVED`) — unless its answer says the thing the value
        named is not there (a pin numbered 10^9 "not found on ESP32"): a lookup's miss, which a task's own value meets
        as well."""
        return self.entry.family in CONTRIVED and not says_absent(self.error or "")

    @cached_property
    def lead(self) -> float:
        """How much the finding weighs for any task that uses its tool (see :data:`NATURAL_LEAD`)."""
        e = self.entry
        if e.kind is not EntryKind.BOUNDARY or self.schema:
            return 0.0
        lead = NATURAL_LEAD if e.family is None else 0.0
        if e.relation in (CoUsageRelation.STATE, CoUsageRelation.DATA) and e.peer:  # a proven cause and its fix
            lead += STATE_LEAD
        if e.reported_as_success and not self.contrived:
            lead += SOFT_LEAD
        return lead

    @cached_property
    def signature(self) -> str:
        """Its error's first line with harvested and random names masked, and the values its call passed
        (an error that names the value it refused: "Unsupported dtype: demo" and "…: example" are one) — its
        condition without an error: findings with one signature are said once in a guidance."""
        said = _FRAMED.sub("", next((line.strip() for line in (self.error or "").splitlines() if line.strip()), ""))
        if said and self.entry.evidence:
            values = (v for key, item in self.entry.evidence[0].arguments.items() for _, v in leaves(item, key))
            for value in sorted({v for v in values if len(v) >= MIN_PASSED}, key=len, reverse=True):
                said = said.replace(value, "_")
        return "error: " + masked(said) if said else "condition: " + masked(self.text)

    @cached_property
    def quoted(self) -> str:
        """The server's answer behind it, as guidance quotes it (:func:`answer_line`)."""
        e = self.entry
        if self.said:
            return answer_line(self.said, e.evidence[0].arguments if e.evidence else None)
        if e.evidence:
            return answer_line(e.evidence[0].excerpt, e.evidence[0].arguments)
        return answer_line(e.error_signature or "")


@dataclass(frozen=True)
class ToolProfile:
    key: ToolKey
    purpose: str
    clauses: tuple[Clause, ...]
    """Operative clauses of its description that are not said for the whole server."""
    operations: Mapping[str, float]
    mutating: bool
    """Declared or verified to change state."""
    deprecated: bool
    batch: bool
    """Takes a list of names in one required argument (reads many things in one call)."""
    required: tuple[str, ...]
    findings: tuple[Finding, ...]
    tolerances: tuple[Finding, ...]
    findings_index: LexicalIndex
    """The findings' conditions, to rank them against a task."""
    errors_index: LexicalIndex
    """The findings' errors (a weaker signal: a server's words, not the condition's)."""
    tolerances_index: LexicalIndex
    clauses_index: LexicalIndex
    """Its operative clauses, to rank them against a task."""
    use: UseNote | None
    feeds: Mapping[str, float]
    """Peers its output was verified to feed (data co-usage), with the edge weight."""
    objects: frozenset[str] = frozenset()
    """What its name says it acts on: the words of its name that are no operation and not its server's
    name (``create_directory`` → directory, ``insert_rows`` → rows)."""
    declared: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Argument → the values its schema declares (an enum): what a task's value is checked against."""
    files: bool = False
    """Verified to work on a named file (a successful call passed a file name with its extension)."""
    file_kinds: frozenset[str] = frozenset()
    """The kinds of file (``shape:ext_txt``…) its successful calls were passed."""
    executes: bool = False
    """Verified to take statements that change data (an ``INSERT``), whether they went through or were
    refused: the server's executor, also when it changes nothing (a read-only connection refuses them)."""
    arguments: tuple[tuple[frozenset[str], Clause], ...] = ()
    """What its arguments' own descriptions state as rules (:func:`~toolatlas.guidance.clauses.argument_clauses`),
    each with the stems of its argument's name and marked against the atlas like the description's clauses."""


    @cached_property
    def by_subject(self) -> Mapping[str, tuple[int, ...]]:
        """Subject word → the findings a value given to it can meet (:func:`~toolatlas.guidance.implied.task_leads`):
        not schema validation, a contrived value, a cut answer, a value left out or which thing a value names."""
        found: dict[str, list[int]] = {}
        for index, finding in enumerate(self.findings):
            if given_can_meet(finding):
                for word in finding.subjects:
                    found.setdefault(word, []).append(index)
        return {word: tuple(indices) for word, indices in found.items()}


@dataclass(frozen=True)
class ServerProfile:
    name: str
    notes: tuple[Clause, ...] = ()
    """Clauses most of its tools' descriptions repeat, said once."""
    discovery: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Discovery tool → the argument names its output supplies to the tools it feeds."""
    suppliers: Mapping[str, Mapping[str, frozenset[str]]] = field(default_factory=dict)
    """Tool → required argument → the read-only tools whose verified answers hold values it was verified
    to accept there (:mod:`toolatlas.guidance.supply`)."""
    minters: Mapping[str, Mapping[str, frozenset[str]]] = field(default_factory=dict)
    """Tool → required identifier argument → the tools whose verified answers carry a field of that name, for an
    identifier it refused when made up (:mod:`toolatlas.guidance.minting`)."""


def _dedup(entries: Iterable[Entry]) -> list[Entry]:
    """One entry per (family, masked condition, masked error), the best supported first (input order)."""
    seen: set[tuple] = set()
    kept = []
    for entry in entries:
        key = (entry.family, masked(entry.condition or entry.when or ""), masked(entry.error_signature or ""))
        if key not in seen:
            seen.add(key)
            kept.append(entry)
    return kept


def tolerance(entry: Entry) -> bool:
    """Whether an affordance says what a tool survives (a misuse it took, a tolerance), not what it is for."""
    return entry.family is not None or entry.signature.startswith("tolerates:")


def cut_at_limit(entry: Entry) -> bool:
    """Whether an accepted call one step past a stated count was answered cut at that count, the server's
    answer stating it ("truncated to 25 rows"): a boundary of what one call can do, not a misuse tolerated."""
    if entry.family != LIMIT_FAMILY or not entry.evidence:
        return False
    cap = stated_cap_of(entry.condition or entry.when or "")
    return cap is not None and states_cap(first_said(entry.evidence[0].excerpt), cap)


_MORE = re.compile(
    r"^\s*(?:(?:\.\.\.|…)\s*)?(?:and\s+)?\d[\d,]*\s+more\b.*$"  # "... and 9 more entries"
    r"|^\s*(?:(?:\.\.\.|…)\s*)?还有\s*\d+\s*(?:个|条|项|件).*$"  # "... 还有 9 个条目"
    r"|^\s*(?:showing|displaying|listing)\s+(?:the\s+)?(?:first\s+)?\d+\s+of\s+\d[\d,]*\b.*$",  # "Showing 5 of 14"
    re.IGNORECASE | re.MULTILINE,
)
"""A line of an answer that says it shows only part of what there is, and how much more there is."""


_INDUCER_WORDS = re.compile(r"\bcalled with\b|\(the error names it\)|\bcalled right after\b")
"""How the inducer says a condition nobody planned (``called with `x` = …``): its words, not the server's — a task's
"a folder called trees" says nothing of them."""


def says_more(entry: Entry) -> str | None:
    """The line by which a verified use's answer says it shows only part of what there is (``... 还有 9 个条目``,
    ``... and 9 more``), or None: what a task asking for all of it gets from one call."""
    if entry.kind is not EntryKind.AFFORDANCE or not entry.evidence:
        return None
    found = _MORE.search(entry.evidence[0].excerpt)
    return found.group(0).strip() if found else None


def _finding(entry: Entry, *, cut: bool = False) -> Finding:
    """``entry`` as a finding; an error that only opens a structure (``Error calling tool 'x': {``) is
    said by the answer behind it, which holds what went wrong, and so is an answer ``cut`` at a limit."""
    verdict = verdict_quote(entry)
    if verdict is not None:  # the answer's words of its verdict, not its first line
        return Finding(entry=entry, text=entry.condition or "", error=verdict, schema=False, said=verdict, verdict=True)
    error = entry.error_signature or ""
    first = next((line.strip() for line in error.splitlines() if line.strip()), "")
    if (cut or (first and _opens(first))) and entry.evidence:
        error = answer_line(entry.evidence[0].excerpt, entry.evidence[0].arguments)
    return Finding(entry=entry, text=(entry.condition or entry.when or "").removesuffix(" (accepted)"),
                   error=error, schema=is_schema_validation(entry), cut=cut)


def _partial(entry: Entry, said: str) -> Finding:
    """A verified use whose answer shows only part of what there is (``said``: the line that says how much more), as
    a finding of what one call can do."""
    return Finding(entry=entry, text="one call's answer shows only part of what there is and says how much more",
                   error=said, schema=False, cut=True, said=said)


def _scalar(value: object, spec: Mapping) -> bool:
    """A value worth showing: a flag, or a member of a declared set (never a harvested name or a number)."""
    return isinstance(value, bool) or (isinstance(value, str) and value in (spec.get("enum") or ()))


def _covering(names: list[str], calls: list[set[str]]) -> list[str]:
    """Few of ``names`` such that every call gave one of them, the most often given first (alternatives a server
    needs one of: ``path`` or ``capture_file``)."""
    chosen: list[str] = []
    left = [c for c in calls if c]
    while left:
        best = max(names, key=lambda n: sum(n in c for c in left))  # the first of equals: schema order
        chosen.append(best)
        left = [c for c in left if best not in c]
    return chosen


def _use(node: ToolNode, uses: list[Entry]) -> UseNote | None:
    """The tool's verified uses folded into one note: the arguments that worked and what it changed."""
    if not uses:
        return None
    properties = node.input_schema.get("properties") or {}
    required = list(node.input_schema.get("required") or [])
    if not properties:  # no schema recorded: the arguments the verified calls used
        required = list(dict.fromkeys(name for entry in uses for name in (entry.example_arguments or {})))
    given = [set(evidence.arguments) & set(properties) for entry in uses for evidence in entry.evidence]
    if properties and not required and given and all(given):  # no verified call went without arguments
        always = set.intersection(*given)
        some = _covering(list(properties), given)
        lead = ("works with " + ", ".join(f"`{n}`" for n in properties if n in always) if always
                else "works with one of " + ", ".join(f"`{n}`" for n in some))
        required = [n for n in properties if n in always] if always else some
    else:
        lead = f"works with {', '.join(f'`{a}`' for a in required)}" if required else "works with no arguments"
    optional: dict[str, str] = {}
    for entry in uses:
        for name, value in (entry.example_arguments or {}).items():
            if name in required or name not in properties:
                continue
            shown = f"{name}={str(value).lower() if isinstance(value, bool) else value}"
            optional.setdefault(name, shown if _scalar(value, properties.get(name) or {}) else name)
    effects = {entry.effect for entry in uses}
    changed = ("changes state" if Effect.MUTATING in effects else
               "changes nothing" if effects == {Effect.READ_ONLY} else "")
    parts = [lead]
    if optional:
        parts.append("optional " + ", ".join(f"`{v}`" for v in optional.values()))
    if changed:
        parts.append(changed)
    best = uses[0]
    clean = best.example_arguments and not _RANDOM.search(str(best.example_arguments))
    return UseNote(text="; ".join(parts), example_arguments=best.example_arguments if clean else None,
                   entry_id=best.id, support=sum(e.support for e in uses),
                   confidence=best.confidence, evidence=[p for e in uses for p in e.probe_ids][:3])


def takes_change(entry: Entry) -> bool:
    """Whether an entry's call passed a statement that changes data (:func:`~toolatlas.guidance.shapes.changes_data`)."""
    return any(changes_data(value) for evidence in entry.evidence[:1]
               for key, item in evidence.arguments.items() for _, value in leaves(item, key))


def file_kinds(entries: Iterable[Entry], *, ok: bool) -> frozenset[str]:
    """The kinds of file (``shape:ext_…``) named in the calls behind ``entries``: of each call that went through
    (``ok``), else of the first call of each (a boundary's)."""
    return frozenset(shape for entry in entries
                     for evidence in (entry.evidence if ok else entry.evidence[:1])
                     if not ok or evidence.outcome is OutcomeClass.OK
                     for key, item in evidence.arguments.items() for _, value in leaves(item, key)
                     for shape in value_shapes(value) if shape.startswith(FILE_KIND))


def _objects(node: ToolNode, prefixes: frozenset[str] = frozenset()) -> frozenset[str]:
    """What a tool's name says it acts on: its words but the operations' and the prefix it opens with — its
    server's name (``git_commit``) or a word several of its tools open with (``pptx`` of ``pptx_add_slide``, whose
    object is the slide, on a server named ``slides`` too)."""
    verbs = {stem for op in OPERATIONS.values() for stem in op.tool_words | op.task_words | op.name_words}
    words = [t for t in terms(node.tool) if "_" not in t]
    opening = {words[0]} & (set(terms(node.server)) | prefixes) if words else set()
    return frozenset(t for t in words if t not in verbs and t not in opening and len(t) > 2)


def tool_profile(node: ToolNode, entries: Mapping[EntryKind, list[Entry]], shared: set[str],
                 idf: dict[str, float], prefixes: frozenset[str] = frozenset()) -> ToolProfile:
    affordances = entries.get(EntryKind.AFFORDANCE, [])
    boundaries = _dedup(entries.get(EntryKind.BOUNDARY, []))
    tolerances = _dedup(e for e in affordances if tolerance(e) and not cut_at_limit(e))
    cut = _dedup(e for e in affordances if cut_at_limit(e))
    uses = [e for e in affordances if not tolerance(e)]
    kinds = file_kinds(uses, ok=True)
    checked = [*boundaries, *tolerances, *cut]
    names = frozenset(t for name in (node.input_schema.get("properties") or {}) for t in terms(name))
    clauses = tuple(agreement(c, checked, idf, names) for c in operative_clauses(node.description)
                    if not is_shared(c, shared))
    arguments = tuple((frozenset(terms(name)), replace(clause, text=f"`{name}`: {clause.text}"))
                      for name, text in argument_clauses(node.input_schema)
                      for clause in (agreement(text, checked, idf, names),))
    declared = node.annotations.read_only
    mutating = (declared is False) if declared is not None else any(e.effect is Effect.MUTATING for e in uses)
    required = tuple(node.input_schema.get("required") or ())
    properties = node.input_schema.get("properties") or {}
    batch = any((properties.get(a) or {}).get("type") == "array"
                and ((properties.get(a) or {}).get("items") or {}).get("type") == "string" for a in required)
    feeds = {e.peer: e.weight or 0.0 for e in entries.get(EntryKind.CO_USAGE, [])
             if e.relation is CoUsageRelation.DATA and e.peer and e.peer != node.tool}
    partial = next(((e, said) for e in _dedup(uses) if (said := says_more(e))), None)  # says how much more there is
    findings = (*(_finding(e) for e in boundaries), *(_finding(e, cut=True) for e in cut),
                *([_partial(*partial)] if partial else []))
    accepted = tuple(_finding(e) for e in tolerances if e.family not in SCHEMA_FAMILIES)  # the schema says so
    return ToolProfile(
        key=(node.server, node.tool), purpose=purpose(node.description), clauses=clauses,
        operations=tool_operations(node.tool, purpose(node.description), node.server, prefixes), mutating=mutating,
        deprecated=_DEPRECATED in set(terms(node.description)), batch=batch, required=required,
        findings=findings, tolerances=accepted,
        findings_index=LexicalIndex([_INDUCER_WORDS.sub(" ", f.text.replace(f"`{node.tool}`", "")) for f in findings]),
        errors_index=LexicalIndex([f.error for f in findings]),
        tolerances_index=LexicalIndex([f.text for f in accepted]),
        clauses_index=LexicalIndex([c.text for c in clauses]),
        use=_use(node, uses), feeds=feeds, objects=_objects(node, prefixes), declared=declared_sets(node.input_schema),
        executes=any(takes_change(e) for e in (*uses, *boundaries)), files=bool(kinds), file_kinds=kinds,
        arguments=arguments,
    )


def server_profiles(
    nodes: Mapping[ToolKey, ToolNode], by_tool: Mapping[ToolKey, Mapping[EntryKind, list[Entry]]]
) -> tuple[dict[str, ServerProfile], dict[ToolKey, ToolProfile]]:
    """Every server's profile and every tool's, from the atlas records."""
    servers: dict[str, list[ToolKey]] = {}
    for key in nodes:
        servers.setdefault(key[0], []).append(key)
    tools: dict[ToolKey, ToolProfile] = {}
    result: dict[str, ServerProfile] = {}
    for server, keys in servers.items():
        descriptions = [nodes[k].description for k in keys]
        shared = shared_clauses(descriptions)
        entries = [e for k in keys for kind in by_tool.get(k, {}).values() for e in kind]
        idf = vocabulary(entries)
        prefixes = namespaces((k[1] for k in keys), server)
        for key in keys:
            tools[key] = tool_profile(nodes[key], by_tool.get(key, {}), shared, idf, prefixes)
        notes, said = [], set()
        checkable = [e for e in entries if e.kind is not EntryKind.CO_USAGE]
        for description in descriptions:
            for clause in operative_clauses(description):
                if is_shared(clause, shared) and " ".join(terms(clause)) not in said:
                    said.add(" ".join(terms(clause)))
                    notes.append(agreement(clause, checkable, idf))
        discovery = {}
        for key in keys:
            profile = tools[key]
            if profile.required or profile.mutating or not profile.feeds:
                continue
            fed = [tools[(server, peer)].required for peer in profile.feeds if (server, peer) in tools]
            counts: dict[str, int] = {}
            for args in fed:
                for arg in args:
                    counts[arg] = counts.get(arg, 0) + 1
            supplied = frozenset(a for a, n in counts.items() if n >= min(2, len(fed)))
            if supplied:
                discovery[key[1]] = supplied
        supply = suppliers(keys, {k: tools[k].required for k in keys}, {k: tools[k].mutating for k in keys}, by_tool)
        mint = minters(keys, {k: required_arguments(nodes[k].input_schema) for k in keys}, by_tool)
        result[server] = ServerProfile(name=server, notes=tuple(notes), discovery=discovery, suppliers=supply,
                                       minters=mint)
    return result, tools
