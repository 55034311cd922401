"""What a task's own values imply about a tool's verified boundaries, before any call is made.

A task rarely names the failure it will run into, but its values often decide it:

* **past a stated limit** — a tool whose description caps its answer ("capped at 25 rows") was
  probed one step past the cap (family ``past_stated_limit``); a task asking for *every* reading, or
  for more items than the cap, gets what that probe got: a refusal, or an answer cut at the cap (the
  server saying so: "truncated to 25 rows") — a call that goes through but cannot do the task;
* **outside a declared set** — a task that writes a value almost like a member of an argument's
  declared set but not one ("YYYY-MM-DD HH:mm" where the set holds "YYYY-MM-DD HH:mm:ss") gets the
  tool's answer to a value outside the set, which the schema alone does not quote;
* **a change of what cannot change** — a task that changes data through a tool that changes nothing
  (a read-only connection's executor) gets what that tool answered to a statement that changes data:
  its refusal.

:func:`task_leads` weighs a tool's findings for a task by these; the rest of the ranking (the task's
words against each finding's condition and error) is :func:`toolatlas.guidance.render._relevant`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from toolatlas.guidance.index import FILLER
from toolatlas.guidance.operations import CHANGES

if TYPE_CHECKING:
    from toolatlas.guidance.profiles import Finding, ToolProfile

__all__ = ["IMPLIED_LEAD", "asks_past", "declared_sets", "near_miss", "stated_cap_of", "states_cap", "task_leads"]

IMPLIED_LEAD = 2.0
"""What a finding the task's own values imply weighs (more than a natural failure: this task meets it)."""
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


def states_cap(answer: str, cap: int) -> bool:
    """Whether a server's answer states the cap it applied ("truncated to 25 rows", "first 25 results"):
    the number beside a word, not inside a record (``"id": 25``)."""
    return bool(re.search(rf"[A-Za-z]\s+{cap}\b|\b{cap}\s+[A-Za-z]", answer))


@lru_cache(maxsize=4096)
def asks_past(task: str, cap: int) -> bool:
    """Whether a request asks for more than ``cap`` things: for all of them, or for a larger count of them."""
    words = {w.strip(".,;:!?'\"()").lower() for w in task.split()}
    if words & _WHOLE:
        return True
    return any(int(count.replace(",", "")) > cap for count in _counts(task))


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
def near_miss(task: str, members: Sequence[str]) -> bool:
    """Whether a task writes a value almost like a declared member but not one: the longest run of the
    task that begins a member is at least :data:`NEAR_SHARE` of it and :data:`MIN_MEMBER` characters, yet
    that member is not written whole — and no member as long is ("YYYY-MM-DD HH:mm" against
    "YYYY-MM-DD HH:mm:ss" and "YYYY-MM-DD")."""
    best: tuple[int, bool] | None = None
    for member in members:
        if len(member) < MIN_MEMBER:
            continue
        length = _matched(member, task)
        whole = length == len(_valued(member))
        if length < MIN_MEMBER or (not whole and length < NEAR_SHARE * len(member)):
            continue
        if best is None or (length, whole) > best:
            best = (length, whole)
    return best is not None and not best[1]


def _names(finding: Finding, argument: str) -> bool:
    return f"`{argument}`" in finding.text or f"`{argument}`" in finding.entry.text


def task_leads(profile: ToolProfile, task: str, operations: Sequence[str] = ()) -> dict[int, float]:
    """Finding index → :data:`IMPLIED_LEAD` for each of the tool's findings the task's values imply it
    meets: past a stated count it asks to go beyond, the answer to a value outside an argument's declared
    set when the task nearly writes a member of it, and — planned for a change (``operations``) though
    it changes nothing — its answer to a statement that changes data."""
    leads: dict[int, float] = {}
    if not profile.mutating and CHANGES & set(operations):
        for index, finding in enumerate(profile.findings):
            if finding.changes and not finding.schema:
                leads[index] = IMPLIED_LEAD
    for index, finding in enumerate(profile.findings):
        cap = finding.cap
        if cap is not None and asks_past(task, cap):
            leads[index] = IMPLIED_LEAD
    for argument, members in profile.declared.items():
        if not near_miss(task, members):
            continue
        for index, finding in enumerate(profile.findings):
            if finding.schema and _names(finding, argument):
                leads[index] = IMPLIED_LEAD
    return leads
