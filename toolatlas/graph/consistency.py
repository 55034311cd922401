"""The consistency check of an atlas: what it serves must not contradict itself.

Run at the end of every build over the stored entries (``consistency.json`` beside the atlas) and
by the tests over the demo and wild atlases. It looks only at what is served (``active`` entries)
and finds:

- **effect contradictions** — two served affordances of one use (same tool, interface and argument
  shape) stating different effects: "changes nothing" beside "changes the environment". One use is
  one entry whose effects carry their conditions, so two entries are always a defect;
- **outcome contradictions** — the same call (same tool, same arguments) made on the unchanged
  snapshot, served once as working and once as failing; and a misuse served both as accepted and as
  rejected under the same condition;
- **unconditioned effects** — an affordance whose observed effects its recorded conditions do not
  tell apart (reported, not a contradiction: both outcomes are stated, with what is known);
- **entries without evidence**, and the share of schema-only boundaries among served boundaries.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pydantic import Field

from toolatlas.graph.effects import separated
from toolatlas.graph.families import is_schema_validation
from toolatlas.graph.misuses import misuse_condition
from toolatlas.graph.models import Entry, EntryKind, EntryStatus
from toolatlas.models import Effect, Frozen, OutcomeClass, canonical_json
from toolatlas.probing.hidden import TOLD_BY_MISUSE

__all__ = ["ConsistencyReport", "Contradiction", "check_consistency"]


class Contradiction(Frozen):
    """Served entries that cannot all be true as stated."""

    server: str
    tool: str
    kind: str
    """``effect`` (one use, two effects) or ``outcome`` (one call, working and failing)."""
    entries: list[str]
    detail: str


class ConsistencyReport(Frozen):
    """What the check found in one atlas."""

    served: int = 0
    contradictions: list[Contradiction] = Field(default_factory=list)
    unconditioned: list[str] = Field(default_factory=list)
    """Ids of served affordances whose effects no recorded condition separates."""
    without_evidence: list[str] = Field(default_factory=list)
    boundaries_served: int = 0
    schema_only_served: int = 0

    @property
    def ok(self) -> bool:
        return not self.contradictions and not self.without_evidence

    @property
    def schema_only_share(self) -> float:
        return round(self.schema_only_served / self.boundaries_served, 4) if self.boundaries_served else 0.0

    def summary(self) -> dict[str, float | int]:
        return {
            "served": self.served, "contradictions": len(self.contradictions),
            "unconditioned_effects": len(self.unconditioned), "without_evidence": len(self.without_evidence),
            "boundaries_served": self.boundaries_served, "schema_only_share": self.schema_only_share,
        }


def _use(entry: Entry) -> str | None:
    """The use an affordance describes (``uses:<shape>``, an effect suffix stripped), None for others."""
    if entry.kind is not EntryKind.AFFORDANCE or not entry.signature.startswith("uses:"):
        return None
    return entry.signature.split("|", 1)[0]


def _stated_effects(entry: Entry) -> set[Effect]:
    observed: set[Effect] = {o.effect for o in entry.effects if o.effect is not Effect.UNKNOWN}
    if observed:
        return observed
    return {entry.effect} if entry.effect not in (None, Effect.UNKNOWN) else set()


def check_consistency(entries: Iterable[Entry]) -> ConsistencyReport:
    """Check the served entries of ``entries`` (any mix of servers)."""
    served = [e for e in entries if e.status is EntryStatus.ACTIVE]
    contradictions: list[Contradiction] = []
    uses: dict[tuple, list[Entry]] = defaultdict(list)
    calls: dict[tuple, dict[bool, list[str]]] = defaultdict(lambda: {True: [], False: []})
    misuses: dict[tuple, dict[bool, list[str]]] = defaultdict(lambda: {True: [], False: []})
    for entry in served:
        use = _use(entry)
        if use is not None:
            uses[(entry.server, entry.tool, entry.schema_hash, use)].append(entry)
        told = entry.kind is EntryKind.BOUNDARY and entry.reported_as_success and entry.family in TOLD_BY_MISUSE
        if entry.kind is not EntryKind.CO_USAGE and not told:  # a failure only its misuse told: no opposite call
            for item in entry.evidence:
                if item.step == 0 and not item.prefix:
                    failed = entry.kind is EntryKind.BOUNDARY or item.outcome is not OutcomeClass.OK
                    key = (entry.server, entry.tool, entry.schema_hash, canonical_json(item.arguments))
                    if entry.id not in calls[key][failed]:
                        calls[key][failed].append(entry.id)
        if entry.family is not None and not is_schema_validation(entry):
            if entry.kind is EntryKind.BOUNDARY or entry.signature.startswith("tolerates:"):
                key = (entry.server, entry.tool, entry.family, misuse_condition(entry))
                misuses[key][entry.kind is EntryKind.BOUNDARY].append(entry.id)
    for (server, tool, _hash, use), group in uses.items():
        effects = {effect for e in group for effect in _stated_effects(e)}
        if len(group) > 1 and len(effects) > 1:
            contradictions.append(Contradiction(
                server=server, tool=tool, kind="effect", entries=sorted(e.id for e in group),
                detail=f"{use}: {len(group)} entries stating {', '.join(sorted(x.value for x in effects))}"))
    for (server, tool, _hash, arguments), by_failed in calls.items():
        if by_failed[True] and by_failed[False] and set(by_failed[True]) != set(by_failed[False]):
            contradictions.append(Contradiction(
                server=server, tool=tool, kind="outcome", entries=sorted({*by_failed[True], *by_failed[False]}),
                detail=f"the same call on the unchanged snapshot served as working and as failing: {arguments[:160]}"))
    for (server, tool, family, condition), by_rejected in misuses.items():
        if by_rejected[True] and by_rejected[False]:
            contradictions.append(Contradiction(
                server=server, tool=tool, kind="outcome", entries=sorted({*by_rejected[True], *by_rejected[False]}),
                detail=f"{family}: served as accepted and as rejected when {condition[:160]}"))
    unconditioned = sorted(e.id for e in served if _use(e) is not None and len(_stated_effects(e)) > 1
                           and not separated(e.effects))
    boundaries = [e for e in served if e.kind is EntryKind.BOUNDARY]
    return ConsistencyReport(
        served=len(served),
        contradictions=contradictions,
        unconditioned=unconditioned,
        without_evidence=sorted(e.id for e in served if not e.evidence),
        boundaries_served=len(boundaries),
        schema_only_served=sum(1 for e in boundaries if is_schema_validation(e)),
    )
