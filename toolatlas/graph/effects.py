"""Effects under their conditions: one use of a tool, every effect it was seen with and when.

The same tool with the same arguments can change the environment once and nothing the next time
(the file already had that content, the path was already staged). An affordance therefore keeps
each observed effect with the pre-state condition it was observed under
(:mod:`toolatlas.probing.conditions`), and its sentence states them together: "it changes the
environment (…) when … ; it changes nothing when …" — one entry with both outcomes, never a
"changes nothing" entry beside a "changes the environment" one.
"""

from __future__ import annotations

from toolatlas.graph.models import EffectObservation
from toolatlas.graph.state import ServerGraph
from toolatlas.models import Effect

__all__ = ["MAX_EFFECTS", "effect_clause", "observe_effect", "separated"]


MAX_EFFECTS = 6
"""Distinct (effect, condition) observations an affordance keeps (the most supported)."""


def observe_effect(graph: ServerGraph, entry_id: str, use: str, observation: EffectObservation) -> bool:
    """Record one observed effect of an affordance under its pre-state condition, then restate the
    entry: its aggregate :attr:`~Entry.effect` and its sentence ``use`` + the conditioned effects.

    Observations of one use that differ in effect are one entry with both outcomes and their
    conditions — never two entries saying "changes nothing" and "changes the environment". Returns
    whether the entry had not shown this effect before (while it had shown another)."""
    entry = graph.entries[entry_id]
    effects = list(entry.effects)
    other = bool(effects) and all(o.effect is not observation.effect for o in effects)
    for i, known in enumerate(effects):
        if known.effect is observation.effect and known.condition == observation.condition:
            effects[i] = known.model_copy(update={"support": known.support + 1})
            break
    else:
        effects.append(observation)
    effects = sorted(effects, key=lambda o: -o.support)[:MAX_EFFECTS]
    shown = {o.effect for o in effects if o.effect is not Effect.UNKNOWN}
    effect = Effect.UNKNOWN if not shown else shown.pop() if len(shown) == 1 else Effect.MUTATING
    clause = effect_clause(effects)
    text = use + (f"; {clause}." if clause else ".")
    graph.put_entry(entry.model_copy(update={"effects": effects, "effect": effect, "text": text}))
    return other


def _what(observation: EffectObservation) -> str:
    if observation.effect is Effect.READ_ONLY:
        return "changes nothing"
    if observation.change:
        return f"changes the environment ({observation.change})"
    return "changes the server's own state (its read tools show it; the environment does not)"


def separated(effects: list[EffectObservation]) -> bool:
    """Whether the recorded conditions tell the observed effects apart: no condition (the empty one
    included) is seen with two different known effects."""
    by_condition: dict[str, set[Effect]] = {}
    for o in effects:
        if o.effect is not Effect.UNKNOWN:
            by_condition.setdefault(o.condition, set()).add(o.effect)
    return all(len(v) == 1 for v in by_condition.values())


def effect_clause(effects: list[EffectObservation]) -> str:
    """``it changes the environment (…) when …; it changes nothing when …`` (no trailing period)."""
    known = [o for o in effects if o.effect is not Effect.UNKNOWN]
    if not known:
        return ""
    kinds = list(dict.fromkeys(o.effect for o in known))
    if len(kinds) == 1:
        first = known[0]
        distinct = {o.condition for o in known}
        when = f" when {first.condition}" if len(distinct) == 1 and first.condition else ""
        return f"it {_what(first)}{when}"
    parts = []
    for kind in kinds:
        group = [o for o in known if o.effect is kind]
        calls = sum(o.support for o in group)
        conditions = [o.condition for o in group if o.condition]
        when = f" when {' or when '.join(conditions[:2])}" if conditions else ""
        parts.append(f"it {_what(group[0])}{when} ({calls}x)")
    clause = "; ".join(parts)
    if not separated(known):
        clause += " — no recorded condition separates these outcomes"
    return clause
