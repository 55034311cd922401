"""Citation checks: an entry an LLM wrote is kept only if every call it cites exists and shows it.

* **affordance** — every cited call is a call of the tool that succeeded (ended ok, and its text
  does not report a failure: the offline verifier's step check);
* **boundary** — every cited call is a call of the tool that failed, and its error text contains
  the entry's ``error_signature`` once both are normalised (paths, numbers, quoted values masked;
  case and spacing ignored); a signature of generic words only ("error") shows nothing;
* **co-usage** — in every cited rollout the cited calls include a call of the tool and a later call
  of the peer, and the declared relation is visible in them: *data* — a value of the first call's
  output is in the second call's arguments; *state* — the first call (of a tool not declared
  read-only) succeeded and the second, which succeeded, names what the first touched; *retry* —
  the first failed and the second succeeded.

A failed check names its reason (``missing_call``, ``wrong_tool``, ``not_ok``…), which the
induction report counts.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolatlas.induction.models import ProposedEntry
from toolatlas.induction.rollouts import CallRecord, TaskRollouts
from toolatlas.models import ToolSpec
from toolatlas.probing.text import error_signature

__all__ = ["Checked", "argument_values", "check_entry", "normalise_error"]

GENERIC_ERROR_WORDS = frozenset({"error", "errors", "failed", "failure", "fail", "invalid", "exception", "mcp", "tool"})
"""Words that appear in any error: a signature made of these alone identifies nothing."""
MIN_VALUE_CHARS = 3
"""Shorter argument values (``a``, ``10``) are too common to witness a data flow."""
_WORD = re.compile(r"[a-z][a-z0-9_]+")


@dataclass
class Checked:
    """The outcome of one check: the supporting calls, or why the entry goes."""

    calls: list[CallRecord] = field(default_factory=list)
    pairs: list[tuple[CallRecord, CallRecord]] = field(default_factory=list)
    """Co-usage: the (tool call, peer call) that witnesses the relation, one per cited rollout."""
    reason: str | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.reason is None


def _fail(reason: str, detail: str) -> Checked:
    return Checked(reason=reason, detail=detail)


def normalise_error(text: str) -> str:
    """Every line's error signature (incidental parts masked), lower-cased, joined by spaces."""
    lines = (error_signature(line, limit=len(line) + 1) for line in text.splitlines() if line.strip())
    return " ".join(" ".join(lines).lower().split())


def argument_values(value: Any) -> set[str]:
    """The values in a call's arguments that could have come from an earlier output: strings (and,
    for paths, their last component) and numbers, at least :data:`MIN_VALUE_CHARS` long."""
    found: set[str] = set()
    if isinstance(value, dict):
        for item in value.values():
            found |= argument_values(item)
    elif isinstance(value, list):
        for item in value:
            found |= argument_values(item)
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int | float | str):
        text = str(value).strip()
        candidates = {text, text.rstrip("/").rsplit("/", 1)[-1]} if "/" in text else {text}
        found |= {c for c in candidates if len(c) >= MIN_VALUE_CHARS}
    return found


def check_entry(proposed: ProposedEntry, tool: str, rollouts: TaskRollouts, specs: dict[str, ToolSpec]) -> Checked:
    """Check one proposed entry of ``tool`` against the calls it cites."""
    if not proposed.cites:
        return _fail("no_citation", "the entry cites no call")
    calls = []
    for ref in proposed.cites:
        record = rollouts.find(ref.rollout, ref.step, ref.call)
        if record is None:
            reason = "unknown_rollout" if ref.rollout not in rollouts.sequences else "missing_call"
            return _fail(reason, f"no call {ref.label()}")
        calls.append(record)
    if proposed.kind == "affordance":
        return _affordance(proposed, tool, calls)
    if proposed.kind == "boundary":
        return _boundary(proposed, tool, calls)
    return _co_usage(proposed, tool, calls, specs)


def _wrong_tool(calls: Iterable[CallRecord], allowed: set[str]) -> CallRecord | None:
    return next((c for c in calls if c.tool not in allowed), None)


def _affordance(proposed: ProposedEntry, tool: str, calls: list[CallRecord]) -> Checked:
    if not (proposed.when or "").strip():
        return _fail("missing_field", "an affordance needs `when`")
    if (other := _wrong_tool(calls, {tool})) is not None:
        return _fail("wrong_tool", f"{other.label} is a call of `{other.tool}`")
    failed = next((c for c in calls if not c.succeeded), None)
    if failed is not None:
        return _fail("not_ok", f"{failed.label} ended {failed.outcome.value}: {failed.text[:120]}")
    return Checked(calls=calls)


def _boundary(proposed: ProposedEntry, tool: str, calls: list[CallRecord]) -> Checked:
    signature = normalise_error(proposed.error_signature or "")
    if not (proposed.condition or "").strip() or not signature:
        return _fail("missing_field", "a boundary needs `condition` and `error_signature`")
    words = set(_WORD.findall(signature)) - GENERIC_ERROR_WORDS - {"n", "s", "path", "new", "hex", "time", "uuid"}
    if not words:
        return _fail("vague_signature", f"{proposed.error_signature!r} names no particular error")
    if (other := _wrong_tool(calls, {tool})) is not None:
        return _fail("wrong_tool", f"{other.label} is a call of `{other.tool}`")
    for call in calls:
        if call.succeeded:
            return _fail("not_failed", f"{call.label} succeeded")
        if signature not in normalise_error(call.text):
            return _fail("signature_mismatch", f"{proposed.error_signature!r} is not in {call.label}: {call.text[:160]!r}")
    return Checked(calls=calls)


def _co_usage(proposed: ProposedEntry, tool: str, calls: list[CallRecord], specs: dict[str, ToolSpec]) -> Checked:
    peer, relation = proposed.peer, proposed.relation
    if not peer or relation is None:
        return _fail("missing_field", "a co-usage entry needs `peer` and `relation`")
    if peer not in specs:
        return _fail("unknown_peer", f"`{peer}` is not a tool of this server")
    if (other := _wrong_tool(calls, {tool, peer})) is not None:
        return _fail("wrong_tool", f"{other.label} is a call of neither `{tool}` nor `{peer}`")
    by_rollout: dict[str, list[CallRecord]] = defaultdict(list)
    for call in calls:
        by_rollout[call.rollout].append(call)
    pairs = []
    for rollout, cited in sorted(by_rollout.items()):
        ordered = _ordered_pairs(cited, tool, peer)
        if not ordered:
            return _fail("order", f"rollout {rollout}: no cited `{tool}` call followed by a cited `{peer}` call")
        witness = next((p for p in ordered if _shows(relation, *p, specs)), None)
        if witness is None:
            return _fail("relation_unsupported", f"rollout {rollout}: the cited calls show no {relation} relation")
        pairs.append(witness)
    return Checked(calls=calls, pairs=pairs)


def _ordered_pairs(calls: Sequence[CallRecord], tool: str, peer: str) -> list[tuple[CallRecord, CallRecord]]:
    return [(a, b) for a in calls for b in calls if a.tool == tool and b.tool == peer and a.position < b.position]


def _shows(relation: str, first: CallRecord, second: CallRecord, specs: dict[str, ToolSpec]) -> bool:
    if relation == "retry":
        return not first.succeeded and second.succeeded
    if not (first.succeeded and second.succeeded):
        return False
    if relation == "data":
        return any(value in first.text for value in argument_values(second.arguments))
    declared_read_only = specs[first.tool].annotations.read_only is True
    touched = argument_values(first.arguments)
    seen = argument_values(second.arguments) | {v for v in touched if v in second.text}
    return not declared_read_only and bool(touched & seen)

