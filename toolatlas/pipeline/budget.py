"""A build's time shared among a server's tools: what each call costs, and how many probes that buys.

A probe budget counted in probes treats a call that takes a quarter of a second like one that takes
two milliseconds, so a tool with slow answers (or slow refusals: a lookup of a name that does not
exist can cost a hundred times its answer) ends up owning a server's build. The build therefore
plans by time:

- **What a call costs.** :class:`CallCosts` keeps, per tool, the mean seconds of its answered
  calls and of its refused ones (an error, a timeout, a crash) apart — a tool whose answers take
  milliseconds may refuse in a second — starting from its discovery pilots (a plain call, and a call
  for something that does not exist) and updated by every call the build absorbs (in probe order).
  A planned step is charged the mean of what it expects: a boundary probe or a step that expects an
  error, the refusals'; any other, the answers'; the other kind's while one is unknown.
- **Ordinary and costly.** A tool whose mean is under :data:`COSTLY_CALL_S` (a tenth of a second:
  ordinary calls take milliseconds, so the margin is wide) or under :data:`COSTLY_FACTOR` times the
  server's typical call (a machine slowed down as a whole — a loaded host — slows every call alike, and
  plans as it would idle) is ordinary, and is never held back; its calls are charged the mean of the
  server's ordinary calls. Charges are rounded up to a power of two
  (of a millisecond, of :data:`COSTLY_CALL_S`), so a plan moves with the machine's speed only where a
  mean sits near such a step — and a server without a costly tool is planned by count alone, the same
  on any machine.
- **A tool's share of the build.** :func:`within_time` drops the lowest-priority probes (the last of
  the plan) that make a costly call of a tool (its cheap calls never count) while it would be charged more than ``share`` of the
  charged time of the build so far and this round (:func:`time_share`: a tenth, or an equal split
  between the server's tools when it has fewer than ten). A tool that is within its
  share when a round starts keeps the round's first probe of it whatever it costs (its first use, when
  the round plans one: a valid call before a misuse) — and a second
  rollout of that task, since one call alone shows nothing of what differs between calls (an id the
  tool mints anew each time, an answer that is not deterministic) — so it is never
  starved: it is probed again once the others' time has made room. The plan is in priority order,
  so what is dropped is what the frontier valued least: fewer probes of a costly tool, each of them
  one of its most informative.
- **A call that feeds another.** A step whose answer a later step of the same probe takes (an id the
  server minted there, ``${step0.search_id}``), or whose state it needs (the deck a slide is added to: the
  step is its ``enabled_by``), is part of that later call's cost: it is charged to the
  tool that takes it, costly as the feeding call is, and never takes the feeding tool's share from its
  own probes. The taking tool is held to its own share and keeps its round's first probe — its first
  *use*, where the round plans one — so whether a tool that needs a costly tool's ids works at all does
  not depend on the machine's load.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.probing.bindings import bound_references
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout
from toolatlas.probing.text import looks_like_error

__all__ = ["COSTLY_CALL_S", "COSTLY_FACTOR", "TOOL_TIME_SHARE", "CallCosts", "time_share", "within_time"]

COSTLY_CALL_S = 0.1
"""A tool whose calls take longer on average is costly: its probes are limited by time."""
COSTLY_FACTOR = 10
"""...and whose calls take that many times the server's typical call (:meth:`CallCosts.costly_from`)."""
LEAST_CHARGE_S = 0.001
"""The least a call is charged (and the unit its charge is rounded up in powers of two from)."""
TOOL_TIME_SHARE = 0.1
"""The most of a build's time a costly tool's calls may take (a larger share on servers of few tools)."""


def _answered(outcome: CallOutcome) -> bool:
    return outcome.outcome is OutcomeClass.OK and not looks_like_error(outcome.excerpt)


def _rounded_up(seconds: float, unit: float) -> float:
    """``seconds`` rounded up to ``unit`` times a power of two (``unit`` at least)."""
    return unit * 2 ** max(0, math.ceil(math.log2(max(seconds, unit) / unit)))


class CallCosts:
    """Per tool: calls and seconds of its answers and of its refusals, and the time charged to it so far."""

    def __init__(self, pilots: Mapping[str, float] | None = None, refusal_pilots: Mapping[str, float] | None = None) -> None:
        self.pilots: dict[str, float] = dict(pilots or {})
        """Tool → seconds of its discovery pilot."""
        self.refusal_pilots: dict[str, float] = dict(refusal_pilots or {})
        """Tool → seconds of its discovery refusal pilot (a call for something that does not exist)."""
        self.calls: Counter[str] = Counter()
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.charged: defaultdict[str, float] = defaultdict(float)
        """Tool → seconds charged to it by the plans of the build so far."""

    @staticmethod
    def _key(tool: str, refused: bool) -> str:
        return f"{tool}:{'refused' if refused else 'answered'}"

    def observe(self, rollout: Rollout) -> None:
        """Count every call of a rollout under its tool and whether it was answered."""
        for step in rollout.steps:
            key = self._key(step.outcome.tool, not _answered(step.outcome))
            self.calls[key] += 1
            self.seconds[key] += step.outcome.latency_ms / 1000

    def mean(self, tool: str, *, refused: bool) -> float:
        """Mean seconds of the tool's calls of that kind, its pilot of that kind counted as one of them;
        else of the other kind; 0 when nothing is known."""
        for kind in (refused, not refused):
            key = self._key(tool, kind)
            pilot = (self.refusal_pilots if kind else self.pilots).get(tool)
            calls = self.calls[key] + (pilot is not None)
            if calls:
                return (self.seconds[key] + (pilot or 0.0)) / calls
        return 0.0

    def _tools(self) -> set[str]:
        return {key.rsplit(":", 1)[0] for key in self.calls} | set(self.pilots) | set(self.refusal_pilots)

    def costly_from(self) -> float:
        """Seconds from which a tool's mean call is costly: :data:`COSTLY_CALL_S`, or :data:`COSTLY_FACTOR`
        times the server's typical call (the lower median of its tools' quicker kind of call) when that is
        more."""
        quickest = [min(self.mean(tool, refused=False), self.mean(tool, refused=True)) for tool in self._tools()]
        return max(COSTLY_CALL_S, COSTLY_FACTOR * statistics.median_low(quickest)) if quickest else COSTLY_CALL_S

    def ordinary_mean(self) -> float:
        """Mean seconds of the calls of every tool that is not costly (its pilots included)."""
        calls = seconds = 0.0
        threshold = self.costly_from()
        for tool in self._tools():
            if max(self.mean(tool, refused=False), self.mean(tool, refused=True)) >= threshold:
                continue
            for refused in (False, True):
                key = self._key(tool, refused)
                pilot = (self.refusal_pilots if refused else self.pilots).get(tool)
                calls += self.calls[key] + (pilot is not None)
                seconds += self.seconds[key] + (pilot or 0.0)
        return seconds / calls if calls else 0.0

    def charges(self, probes: list[Probe]) -> list[list[tuple[str, float]]]:
        """Per probe, (tool, seconds charged) for each of its steps."""
        return [[(tool, charge) for tool, charge, _costly in steps] for steps in self.costed(probes)]

    def costed(self, probes: list[Probe]) -> list[list[tuple[str, float, bool]]]:
        """Per probe, (tool, seconds charged, whether the call is costly) for each of its steps; a step whose
        answer a later step takes is charged to that step's tool (see the module docstring)."""
        ordinary = _rounded_up(self.ordinary_mean(), LEAST_CHARGE_S)
        threshold = self.costly_from()
        known: dict[tuple[str, bool], tuple[float, bool]] = {}

        def charge(probe: Probe, step: ProbeStep) -> tuple[float, bool]:
            refused = step.expect == "error" or probe.direction is Direction.BOUNDARY
            if (step.tool, refused) not in known:
                mean = self.mean(step.tool, refused=refused)
                costly = mean >= threshold
                known[(step.tool, refused)] = (_rounded_up(mean, COSTLY_CALL_S) if costly else ordinary, costly)
            return known[(step.tool, refused)]

        def costed_step(probe: Probe, index: int, step: ProbeStep) -> tuple[str, float, bool]:
            seconds, costly = charge(probe, step)
            taker = _taker(probe, index)
            return (step.tool if taker is None else taker), seconds, costly

        return [[costed_step(probe, i, step) for i, step in enumerate(probe.steps)] for probe in probes]

    def state(self) -> dict[str, Any]:
        return {"pilots": self.pilots, "refusal_pilots": self.refusal_pilots, "calls": dict(self.calls),
                "seconds": dict(self.seconds), "charged": dict(self.charged)}

    @classmethod
    def restore(cls, state: Mapping[str, Any]) -> CallCosts:
        costs = cls(state.get("pilots", {}), state.get("refusal_pilots", {}))
        costs.calls.update(state.get("calls", {}))
        costs.seconds.update(state.get("seconds", {}))
        costs.charged.update(state.get("charged", {}))
        return costs


def _same_task(probe: Probe, other: Probe) -> bool:
    """Whether two probes are rollouts of one task (the same calls, planned for the same reason)."""
    return probe.direction is other.direction and probe.steps == other.steps


def _taker(probe: Probe, index: int) -> str | None:
    """The tool of the first later step of ``probe`` that takes step ``index``'s answer or the state it prepared
    (:attr:`~toolatlas.probing.models.ProbeStep.enabled_by`), if one does."""
    return next((step.tool for step in probe.steps[index + 1:]
                 if step.enabled_by == index or any(ref[0] == index for ref in bound_references(step.arguments))),
                None)


def time_share(tools: int) -> float:
    """The share of a build's time one costly tool may take on a server of ``tools`` tools: a tenth, or an
    equal split when that is more (all of a one-tool server's; two equally costly tools hold each other
    to half, and neither is cut)."""
    return max(TOOL_TIME_SHARE, 1 / max(tools, 1))


def within_time(probes: list[Probe], costs: CallCosts, share: float, exempt: frozenset[str] = frozenset()) -> list[Probe]:
    """``probes`` (in priority order) without the last ones that make a costly call of a tool while it is
    charged more than ``share`` of the build's time so far and this round's (its cheap calls — answers of
    a tool that refuses slowly — are never dropped); what is kept is charged to ``costs``
    (:attr:`CallCosts.charged`). Tools in ``exempt`` are never held back (another rule bounds them)."""
    costed = costs.costed(probes)
    charges = [[(tool, charge) for tool, charge, _costly in steps] for steps in costed]
    costly = {tool for steps in costed for tool, _charge, heavy in steps if heavy} - exempt
    spent: defaultdict[str, float] = defaultdict(float, costs.charged)
    before_total = sum(spent.values())
    within_at_start = {tool for tool in costly if spent[tool] <= share * before_total}
    total: float = before_total
    for steps in charges:
        for tool, charge in steps:
            spent[tool] += charge
            total += charge
    first: dict[str, int] = {}
    for use in (True, False):  # a tool's first probe of a use, else its first probe
        for index, costed_steps in enumerate(costed):
            if (probes[index].direction is not Direction.BOUNDARY) == use:
                for tool in {tool for tool, _charge, heavy in costed_steps if heavy} & within_at_start:
                    first.setdefault(tool, index)
    kept_first = set(first.values())
    for index in first.values():  # and a second run of that task, if the plan has one
        kept_first.update([i for i in range(index + 1, len(probes)) if _same_task(probes[i], probes[index])][:1])
    dropped: set[int] = set()
    changed = bool(costly)
    while changed:  # a drop lowers the total, which may put a tool already passed over its share
        changed = False
        for index in range(len(probes) - 1, -1, -1):
            over = {tool for tool in costly if spent[tool] > share * total}
            if not over:
                break
            heavy = {tool for tool, _charge, costly_call in costed[index] if costly_call}
            if index in dropped or index in kept_first or not heavy & over:
                continue
            dropped.add(index)
            changed = True
            for tool, charge in charges[index]:
                spent[tool] -= charge
                total -= charge
    for index, steps in enumerate(charges):
        if index not in dropped:
            for tool, charge in steps:
                costs.charged[tool] += charge
    return [probe for index, probe in enumerate(probes) if index not in dropped]
