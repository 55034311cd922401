"""What a task's own values imply about a tool's verified boundaries, before any call is made.

A task rarely names the failure it will run into, but its values often decide it:

* **an answer that shows part** — a verified use whose answer says how much more there is (``... and 9 more``,
  ``... 还有 9 个条目``) is what a task asking for all of it gets from one call;
* **past a stated limit** — a tool whose description caps its answer ("capped at 25 rows") was
  probed one step past the cap (family ``past_stated_limit``); a task asking for *every* reading, or
  for more items than the cap, gets what that probe got: a refusal, or an answer cut at the cap (the
  server saying so: "truncated to 25 rows") — a call that goes through but cannot do the task;
* **outside a declared set** — a task that writes a value almost like a member of an argument's
  declared set but not one ("YYYY-MM-DD HH:mm" where the set holds "YYYY-MM-DD HH:mm:ss") gets the
  tool's answer to a value outside the set, which the schema alone does not quote;
* **a value given to what a finding is about** — a task that gives a value to something a finding's
  condition names ("a *level* 12 heading", "whose *country* is France") gets the tool's answer to a
  value given there (`level` = 10: "Level must be between 1 and 9"; `customers.country` violating a
  CHECK), unless that finding is about a value left out (NULL, empty) or about *which* thing a value
  names (a missing file: what naming a thing risks ranks those);
* **work past a time limit** — a task over a count too large to finish in seconds ("add up every integer
  below ten billion") gets the tool's answer to a call that outran its time limit;
* **a value in another notation** — a task that writes a day as 18/10/2026 or a hex number without ``0x`` gets the
  tool's refusal of a value in the wrong notation, when that refusal names the one it takes (``YYYY-MM-DD``,
  ``0x-prefixed hex``);
* **a change of what cannot change** — a task that changes data through a tool that changes nothing
  (a read-only connection's executor: none of its data-changing statements was carried out until the
  data refused it) gets what that tool answered to a statement that changes data: its refusal.

:func:`task_leads` weighs a tool's findings for a task by these; the rest of the ranking (the task's
words against each finding's condition and error) is :func:`toolatlas.guidance.render._relevant`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from toolatlas.graph.models import EntryKind
from toolatlas.guidance.index import FILLER, FILLER_TERMS, terms
from toolatlas.guidance.operations import CHANGES, given_values, names_by_name
from toolatlas.guidance.shapes import value_shapes

if TYPE_CHECKING:
    from toolatlas.guidance.profiles import Finding, ToolProfile

__all__ = ["IMPLIED_LEAD", "asks_for_all", "asks_long_run", "asks_past", "declared_sets", "given_words",
           "error_cap_of", "names_member", "near_miss", "outran", "stated_cap_of", "states_cap", "subjects", "task_leads"]

IMPLIED_LEAD = 2.0
"""What a finding the task's own values imply weighs (more than a natural failure: this task meets it)."""
FILE_KIND = "shape:ext_"
"""The shapes that say what kind of file a value names (:func:`~toolatlas.guidance.shapes.value_shapes`)."""
LIMIT_FAMILY = "past_stated_limit"
"""The boundary family of a call one step past a limit the description states (:mod:`toolatlas.offline.limits`)."""

_CAP = re.compile(r"\bmore than the (\d+)\b")
"""How a finding past a stated count says the cap ("…, more than the 25 rows the description caps a result at",
"…, one more than the 10 its description allows": :mod:`toolatlas.offline.limits`)."""
_WHOLE = frozenset({"all", "every", "entire", "whole", "everything", "everyone"})
"""Words of a request for everything there is (past any cap); "each" asks for one thing per group."""
_LEADS = frozenset({"the", "first", "last", "top", "latest", "recent", "next", "oldest", "newest"})
"""Words before a count of things ("the 40 most recent", "top 50")."""
_COUNT = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)$")
"""A number written as a count (not part of a date, a time, a version or a name)."""
MIN_MEMBER = 4
"""Shortest declared value a task can be told to nearly write (shorter ones match by chance)."""
NEAR_SHARE = 2 / 3
"""Share of a declared value a task must write to nearly write it ("first" of ``first_name`` is a word of
its own, "YYYY-MM-DD HH:mm" of ``YYYY-MM-DD HH:mm:ss`` a value almost written)."""


def stated_cap_of(finding_text: str) -> int | None:
    """The count a finding past a stated limit went beyond (None: no count, e.g. a single statement)."""
    match = _CAP.search(finding_text)
    return int(match.group(1)) if match else None


_ERROR_LIMIT = re.compile(
    r"\b(?:the |a )?(?:limit|maximum) (?:is|of)\s+(\d[\d,]*)|\b(?:at most|no more than|up to)\s+(\d[\d,]*)"
    r"|\bexceeds? (?:the )?(?:limit|maximum)(?: of)?\s+(\d[\d,]*)", re.IGNORECASE)
"""How a refusal states the size it allows: ``the limit is 50000``, ``at most 2,000 characters``."""


def error_cap_of(error: str) -> int | None:
    """The count a refusal says is the most a call may give (None when it states none)."""
    match = _ERROR_LIMIT.search(error)
    return int(next(g for g in match.groups() if g).replace(",", "")) if match else None


def states_cap(answer: str, cap: int) -> bool:
    """Whether a server's answer states the cap it applied ("truncated to 25 rows", "first 25 results"):
    the number beside a word, not inside a record (``"id": 25``)."""
    return bool(re.search(rf"[A-Za-z]\s+{cap}\b|\b{cap}\s+[A-Za-z]", answer))


@lru_cache(maxsize=4096)
def asks_past(task: str, cap: int) -> bool:
    """Whether a request asks for more than ``cap`` things: for all of them, or for a larger count of them."""
    return asks_for_all(task) or any(int(count.replace(",", "")) > cap for count in _counts(task))


def asks_for_all(task: str) -> bool:
    """Whether a request asks for all of something ("every entry", "the whole list")."""
    return bool({w.strip(".,;:!?'\"()").lower() for w in task.split()} & _WHOLE)


def _counts(task: str) -> list[str]:
    """The counts of things a request asks for: a number after "the", "first", "top"… ("the 40 most recent") or
    before things within three words ("40 orders", "100 most recent readings") — not a year ("February 2024
    had"), a threshold ("over 70,000 a year"), a date, a time or a name."""
    words = [w.strip(".,;:!?'\"()").lower() for w in task.split()]
    found = []
    for index, word in enumerate(words):
        if not _COUNT.match(word):
            continue
        after = words[index + 1:index + 4]
        if (index and words[index - 1] in _LEADS) or any(
                len(w) > 3 and w.endswith("s") and w.isalpha() and w not in FILLER for w in after):
            found.append(word)
    return found


def declared_sets(schema: Mapping) -> dict[str, tuple[str, ...]]:
    """Top-level argument → the string values its schema declares (an ``enum``, also inside ``anyOf``)."""
    found: dict[str, tuple[str, ...]] = {}
    for name, spec in (schema.get("properties") or {}).items():
        if not isinstance(spec, Mapping):
            continue
        options = [spec, *(s for s in (spec.get("anyOf") or spec.get("oneOf") or []) if isinstance(s, Mapping))]
        members = [m for option in options for m in (option.get("enum") or []) if isinstance(m, str)]
        if members:
            found[str(name)] = tuple(dict.fromkeys(members))
    return found


def _valued(text: str) -> str:
    """``text`` back to its last letter or digit."""
    while text and not text[-1].isalnum():
        text = text[:-1]
    return text


def _matched(member: str, task: str) -> int:
    """Characters of ``member``'s longest beginning that the task writes (case aside), back to its last
    letter or digit (a trailing space or separator is no part of a value)."""
    lowered, value = task.lower(), member.lower()
    for length in range(len(value), MIN_MEMBER - 1, -1):
        if value[:length] in lowered:
            return len(_valued(value[:length]))
    return 0


@lru_cache(maxsize=4096)
def names_member(task: str, members: Sequence[str]) -> bool:
    """Whether a task names one of an argument's declared values by a word of it that no other member has
    ("open reading frames that begin with *ATG*" against ``table-starts`` and ``atg-only``): it asks for that
    value, which the argument's own rule tells how to pass. Filler and words of fewer than three letters name
    nothing."""
    words = [frozenset(t for t in terms(re.sub(r"[\W_]+", " ", member)) if len(t) > 2 and t.isalpha()
                       and t not in FILLER_TERMS) for member in members]
    shared = {t for i, mine in enumerate(words) for j, theirs in enumerate(words) if i < j for t in mine & theirs}
    written = set(terms(task))
    return any((mine - shared) & written for mine in words)


@lru_cache(maxsize=4096)
def near_miss(task: str, members: Sequence[str]) -> bool:
    """Whether a task writes a value almost like a declared member but not one: the longest run of the
    task that begins a member is at least :data:`NEAR_SHARE` of it and :data:`MIN_MEMBER` characters, yet
    that member is not written whole — and no member as long is ("YYYY-MM-DD HH:mm" against
    "YYYY-MM-DD HH:mm:ss" and "YYYY-MM-DD"); or a member that has capitals is written whole with other ones
    ("Arduino Uno" against "Arduino UNO": a declared set is matched as written) and none as declared — a member in
    lower case written capitalised ("in Celsius") is prose, not a value."""
    best: tuple[int, bool] | None = None
    exact = [len(member) for member in members if len(member) >= MIN_MEMBER and member in task]
    for member in members:
        if len(member) < MIN_MEMBER:
            continue
        length = _matched(member, task)
        whole = length == len(_valued(member))
        if (whole and member not in task and any(c.isupper() for c in member) and length == len(member)
                and not any(n >= len(member) for n in exact)):
            return True  # its capitals written otherwise ("Arduino Uno" where the set holds "Arduino UNO")
        if length < MIN_MEMBER or (not whole and length < NEAR_SHARE * len(member)):
            continue
        if best is None or (length, whole) > best:
            best = (length, whole)
    return best is not None and not best[1]


_SUBJECT = re.compile(r"`([^`]+)`")
"""A name a finding's condition quotes: an argument (``level``, ``files[0].path``) or a column
(``customers.country``)."""
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_NUMBER = re.compile(r"^[-+]?\d[\d,.:/-]*$")
_ABSENT = re.compile(r"\b(?:null|none|empty|missing|omitted|left out)\b", re.IGNORECASE)
"""A condition about a value that is not there (set to NULL, empty): a value the request gives does not meet it."""
CARRIED_OUT = frozenset({"constraint_violation", "wrong_object_kind"})
"""Boundary families of a data-changing statement the tool carried out until the data refused it (a constraint, a
view): a tool with one changes data, though no verified use of it did."""
NAMED_FOR_CODE = "name_for_code"
"""The boundary family of a code argument sent the name the code stands for (``Software Developers`` for
``15-1252``, :class:`~toolatlas.offline.mutations.MutationKind`): what a request naming the thing by its name meets."""
GIVEN_WINDOW = 4
"""Words between a thing a request names and the value it gives it ("level 12", "country written out as 'Germany'")."""
WHICH_THING = frozenset({"nonexistent_reference", "path_escape", "path_is_file", "path_is_directory",
                         "missing_extension", "missing_parent", "already_exists", "duplicate_create"})
"""Boundary families about *which* thing a value names (one that is missing, elsewhere, of another kind) rather than
about the value itself: what naming a thing risks ranks them (:data:`~toolatlas.guidance.render.NAMED_RISKS`)."""


def _literal(token: str) -> bool:
    """Whether a request's word is a number (a date, a time) or an email: a value it gives."""
    word = token.strip(",;:!?()[]")
    return bool(word) and bool(_NUMBER.match(word) or "@" in word.strip("@"))


@lru_cache(maxsize=4096)
def given_words(task: str) -> frozenset[str]:
    """The stems of the words a request writes near a value it gives — a number, an email, a quoted text, a
    name written with a capital inside a sentence (:func:`~toolatlas.guidance.operations.given_values`) —
    within :data:`GIVEN_WINDOW` words, in one sentence: what it names that value as ("a *level* 12 heading",
    "his *country* written out as 'Germany'", "*priority* B")."""
    found: set[str] = set()
    for sentence in _SENTENCE.split(task):
        tokens = sentence.split()
        marks = given_values(tokens) | {i for i, token in enumerate(tokens) if _literal(token)}
        for i in marks:
            for j in range(max(0, i - GIVEN_WINDOW), min(len(tokens), i + GIVEN_WINDOW + 1)):
                if j not in marks:
                    found.update(t for t in terms(tokens[j]) if t not in FILLER_TERMS)
    return frozenset(found)


def subjects(condition: str) -> frozenset[str]:
    """The stems of what a finding's condition says a value went to: the last part of each name it quotes
    (``customers.country`` → country, ``ops[1].unit`` → unit), words of three letters or more."""
    found: set[str] = set()
    for name in _SUBJECT.findall(condition):
        last = re.split(r"[.\[\]]", name.strip())
        part = next((p for p in reversed(last) if p and not p.isdigit()), "")
        found.update(t for t in terms(part) if len(t) > 2 and t.isalpha() and t not in FILLER_TERMS)
    return frozenset(found)


_LARGE = re.compile(r"\b(?:\d{1,3}(?:,\d{3}){2,}|\d{9,}|\d+(?:\.\d+)?e\d{2}|(?:\w+ )?(?:million|billion|trillion)s?)\b",
                    re.IGNORECASE)
"""A count past what runs in seconds: 100,000,000 and more written out, 1e12, "ten billion"."""
_TIME_LIMIT = re.compile(r"\btime limit\b|\btimed? ?out\b", re.IGNORECASE)
"""How a finding says its call ran out of time (the condition of the probe that outran a limit, or its answer)."""


@lru_cache(maxsize=4096)
def asks_long_run(task: str) -> bool:
    """Whether a request asks for work over a count too large to finish in seconds ("every integer below ten
    billion"): what a time limit stops."""
    return bool(_LARGE.search(task))


def outran(finding: Finding) -> bool:
    """Whether a finding is a call stopped by a time limit (its condition or answer says so, or it timed out)."""
    e = finding.entry
    return (e.outcome is not None and e.outcome.value == "timeout") or bool(
        _TIME_LIMIT.search(finding.text) or _TIME_LIMIT.search(finding.error or ""))


def given_can_meet(finding: Finding) -> bool:
    """Whether a value a task gives to what ``finding``'s value went to can meet it: not schema validation (the
    schema says it), a contrived value, an answer cut at a limit, a value left out (NULL, empty) or *which* thing
    a value names (:data:`WHICH_THING`)."""
    return not (finding.schema or finding.contrived or finding.cut or _ABSENT.search(finding.text)
                or finding.entry.family in WHICH_THING)


_WRITTEN_FOR = re.compile(r"`([^`]+)` for `([^`]+)`")
"""How a condition names a value written in another case and the one the server knows (`Sana` for `sana`)."""


def recased(finding: Finding, task: str) -> bool:
    """Whether ``finding`` is a failure (a refusal, or an empty answer) for a name written in another case than the
    server's (``Sana`` for ``sana``) and the task writes that name in a case other than the server's: the call the
    task leads to meets it."""
    found = _WRITTEN_FOR.search(finding.text) if finding.entry.family == "case_changed" else None
    if found is None or finding.entry.kind is not EntryKind.BOUNDARY:  # refused, or found nothing: not accepted
        return False
    known = found.group(2)
    return any(written != known for written in re.findall(rf"(?<!\w){re.escape(known)}(?!\w)", task, re.IGNORECASE))


_NOTATIONS = (
    (re.compile(r"(?<![\w/.-])\d{1,2}[/.]\d{1,2}[/.]\d{2,4}(?![\w/.-])"),  # 18/10/2026, 01.11.2026
     re.compile(r"YYYY-MM-DD|\bISO[ -]?8601\b|\bisoformat\b|\\d\{4\}-\\d\{2\}", re.IGNORECASE)),
    (re.compile(r"(?<![\w-])(?=[0-9A-Fa-f]*[A-Fa-f])(?=[0-9A-Fa-f]*\d)[0-9A-Fa-f]{2,8}(?![\w-])"),  # 3B1
     re.compile(r"\b0x\b|\b0x-prefixed\b|\bhex(?:adecimal)?\b", re.IGNORECASE)),
)
"""A value a task writes in one notation, and how a refusal names the notation it takes instead: a day written
day/month/year where it asks for ``YYYY-MM-DD``, a bare hex number where it asks for ``0x``."""


def other_notation(finding: Finding, task: str) -> bool:
    """Whether ``finding`` refuses a value for its notation (its answer names the one it takes: ``YYYY-MM-DD``,
    ``0x-prefixed hex``) and the task writes such a value in another (``18/10/2026``, ``3B1``)."""
    if finding.entry.kind is not EntryKind.BOUNDARY:
        return False
    said = f"{finding.error} {finding.entry.evidence[0].excerpt if finding.entry.evidence else ''}"
    return any(written.search(task) and asked.search(said) for written, asked in _NOTATIONS)


def _names(finding: Finding, argument: str) -> bool:
    return f"`{argument}`" in finding.text or f"`{argument}`" in finding.entry.text


def task_leads(profile: ToolProfile, task: str, operations: Sequence[str] = ()) -> dict[int, float]:
    """Finding index → :data:`IMPLIED_LEAD` for each of the tool's findings the task's values imply it
    meets: past a stated count it asks to go beyond, the answer to a value outside an argument's declared
    set when the task nearly writes a member of it, the answer to a value given to what the task gives a
    value to (:func:`given_words`), the answer to a name where the tool takes a code when the task names a
    thing by its name (:func:`~toolatlas.guidance.operations.names_by_name`), and — planned for a change
    (``operations``) though it changes nothing (no data-changing statement of it was carried out,
    :data:`CARRIED_OUT`) — its answer to a statement that changes data."""
    leads: dict[int, float] = {}
    if not profile.mutating and CHANGES & set(operations) and not any(
            f.changes and f.entry.family in CARRIED_OUT for f in profile.findings):
        for index, finding in enumerate(profile.findings):
            if finding.changes and not finding.schema:
                leads[index] = IMPLIED_LEAD
    long_run = asks_long_run(task)
    for index, finding in enumerate(profile.findings):
        cap = finding.cap
        if (cap is not None and asks_past(task, cap)) or (long_run and not finding.schema and outran(finding)):
            leads[index] = IMPLIED_LEAD
        elif finding.cut and cap is None and asks_for_all(task):  # an answer that says how much more there is
            leads[index] = IMPLIED_LEAD
        elif recased(finding, task) or other_notation(finding, task):
            leads[index] = IMPLIED_LEAD
    if names_by_name(task):  # a thing named by its name, where the tool was verified to take only its code
        for index, finding in enumerate(profile.findings):
            if finding.entry.family == NAMED_FOR_CODE:
                leads[index] = IMPLIED_LEAD
    kinds = {shape for shape in value_shapes(task) if shape.startswith(FILE_KIND)} - profile.file_kinds
    if kinds:  # a kind of file the tool failed on and never went through with ("budget.txt" to a workbook tool)
        for index, finding in enumerate(profile.findings):
            if finding.file_kinds & kinds:
                leads[index] = IMPLIED_LEAD
    for word in given_words(task) & profile.by_subject.keys():
        for index in profile.by_subject[word]:
            leads[index] = IMPLIED_LEAD
    for argument, members in profile.declared.items():
        if not near_miss(task, members):
            continue
        for index, finding in enumerate(profile.findings):
            if finding.schema and _names(finding, argument):
                leads[index] = IMPLIED_LEAD
    return leads
