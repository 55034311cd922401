"""Budget allocation by a LinUCB contextual bandit over (tool, direction) arms.

An arm is one tool probed in one direction — outward (boundary) or inward (affordance; replays
and seeds count here). Its context is read off the tool node (:func:`tool_context`); its reward
is the new verified knowledge a probe produced (``InductionDelta.reward``: new entries, support
that still moved confidence, new coverage keys), squashed to ``[0, 1)``. Each slot of a round's
budget goes to the arm with the highest upper confidence bound (Li et al. 2010), so arms nobody
has learned about get tried and arms that keep paying get more.

The model is *hybrid*: per direction, one ridge regression over the context shared by every
tool, plus a ridge intercept (and confidence width) of each arm's own. Disjoint per-arm models
alone do not fit the budget — a round spends ~40 probes over up to ~200 arms, so an arm is pulled
a few times per build and its model never leaves the prior; what one tool teaches ("a tool
with no boundary yet pays on boundary probes", "the fifth probe of an arm in one round pays
little") must transfer to the others. A shared model alone cannot tell two tools with the same
context apart, nor prefer the one nobody tried, and within a round it would keep piling slots on
one arm. The per-arm intercept does both. Boundary and affordance get separate shared models
because their yields hang on different features.

Within a round the graph does not change, so a slot given is treated as a pull already made —
on a copy of the bandit, for the confidence width only (the mean stays the real rewards') — and
the arm's "allocated this round" feature moves, before the next slot is scored.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import numpy as np
import structlog

from toolatlas.graph.state import ServerGraph
from toolatlas.models import OutcomeClass
from toolatlas.pipeline.frontier import grow_subgraph, priority
from toolatlas.probing.models import Direction, Probe

__all__ = ["FEATURES", "LinUCB", "LinUCBFrontier", "squash_reward", "tool_context"]

log = structlog.get_logger(__name__)

FEATURES = (
    "bias",
    "boundary",
    "affordance",
    "affordance_scarcity",
    "boundary_scarcity",
    "co_usage_scarcity",
    "open_arguments",
    "recent_yield",
    "error_rate",
    "probe_scarcity",
    "round_freshness",
)
"""The context of an arm, in order. Counts enter as scarcities ``1 / (1 + n / scale)`` so an
untouched tool has the largest context, hence the widest confidence bound before any data;
``round_freshness`` is ``1 / (1 + slots this arm already got in the allocation being made)``.
Under a shared model per direction the one-hot is constant, i.e. a second intercept: harmless
under the ridge, and what a model shared across directions would need."""

ENTRY_SCALE = 3.0
PROBE_SCALE = 10.0
RECENT_YIELD_PRIOR = 1.0
"""An arm nobody has observed is assumed to pay fully (optimism under uncertainty)."""
YIELD_DECAY = 0.3
"""EMA weight of the newest reward in an arm's recent yield."""
REWARD_SCALE = 2.0
"""A raw reward of ``REWARD_SCALE`` (two new entries) squashes to 0.5."""
DEFAULT_ALPHA = 0.5
"""Exploration weight. On the demo catalogue 0.25, 0.5 and 1.0 end within 1% of each other."""
DEFAULT_RIDGE = 1.0

Arm = tuple[str, Direction]
ARM_DIRECTIONS = (Direction.BOUNDARY, Direction.AFFORDANCE)


def lane(direction: Direction) -> Direction:
    """The arm a probe's direction spends from: boundaries are boundaries, everything else affordance."""
    return Direction.BOUNDARY if direction is Direction.BOUNDARY else Direction.AFFORDANCE


def squash_reward(reward: float) -> float:
    """Raw new knowledge → ``[0, 1)``: one bumper probe must not dominate the regression."""
    reward = max(reward, 0.0)
    return reward / (reward + REWARD_SCALE)


def tool_context(
    graph: ServerGraph,
    tool: str,
    direction: Direction,
    *,
    recent_yield: float = RECENT_YIELD_PRIOR,
    allocated: int = 0,
) -> np.ndarray:
    """The context of arm (``tool``, ``direction``), features as in :data:`FEATURES`, each in [0, 1].

    ``recent_yield`` is the arm's EMA of squashed rewards (the frontier keeps it); ``allocated``
    is how many slots the arm already got in the allocation being made.
    """
    node = graph.tools[tool]
    arm = lane(direction)
    calls = sum(node.outcomes.values())
    failed = calls - node.outcomes.get(OutcomeClass.OK.value, 0)
    return np.array(
        [
            1.0,
            float(arm is Direction.BOUNDARY),
            float(arm is Direction.AFFORDANCE),
            1.0 / (1.0 + len(node.affordances) / ENTRY_SCALE),
            1.0 / (1.0 + len(node.boundaries) / ENTRY_SCALE),
            1.0 / (1.0 + len(node.co_usage) / ENTRY_SCALE),
            1.0 - node.argument_coverage,
            min(max(recent_yield, 0.0), 1.0),
            failed / calls if calls else 0.0,
            1.0 / (1.0 + node.probes / PROBE_SCALE),
            1.0 / (1.0 + allocated),
        ]
    )


class LinUCB:
    """Hybrid LinUCB (Li et al. 2010, Algorithm 2) whose arm-specific part is an intercept.

    A *group* (here: a direction) has one shared ridge model over the context ``z`` — ``A0``,
    ``b0`` and ``A0⁻¹``; each *arm* has its own ridge intercept — a scalar ``A`` (``λ`` plus its
    pulls), ``B = Σ z`` (the coupling to the shared model) and ``b = Σ r``. The bound of an arm is
    ``z·β + θ_a + α·√s`` with ``β = A0⁻¹b0``, ``θ_a = (b − B·β) / A`` and ``s`` the variance of that
    estimate; an arm nobody pulled keeps ``A = λ``, the widest bound its context allows. Everything
    is serialised as stored, so a restored bandit scores bit-for-bit like the original.
    """

    def __init__(self, dim: int, *, alpha: float = DEFAULT_ALPHA, ridge: float = DEFAULT_RIDGE) -> None:
        self.dim = dim
        self.alpha = alpha
        self.ridge = ridge
        self.groups: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        """Group → (A0, A0⁻¹, b0)."""
        self.arms: dict[str, tuple[float, np.ndarray, float]] = {}
        """Arm → (A, B, b) of its intercept."""

    def copy(self) -> LinUCB:
        twin = LinUCB(self.dim, alpha=self.alpha, ridge=self.ridge)
        twin.groups = {g: (a.copy(), ai.copy(), b.copy()) for g, (a, ai, b) in self.groups.items()}
        twin.arms = {arm: (a, big_b.copy(), b) for arm, (a, big_b, b) in self.arms.items()}
        return twin

    def _group(self, group: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if group in self.groups:
            return self.groups[group]
        return np.eye(self.dim) * self.ridge, np.eye(self.dim) / self.ridge, np.zeros(self.dim)

    def _arm(self, arm: str) -> tuple[float, np.ndarray, float]:
        return self.arms[arm] if arm in self.arms else (self.ridge, np.zeros(self.dim), 0.0)

    def bounds(
        self, group: str, arms: Sequence[str], contexts: np.ndarray, *, widths: LinUCB | None = None
    ) -> np.ndarray:
        """Upper confidence bounds of ``arms`` (of one group) under their ``contexts`` (rows).

        ``widths`` takes the confidence width from another bandit — the same one with
        hallucinated pulls, during an allocation — while the mean always comes from real rewards.
        """
        z = np.atleast_2d(contexts)
        _, a0_inv, b0 = self._group(group)
        beta = a0_inv @ b0
        own = [self._arm(arm) for arm in arms]
        a = np.array([o[0] for o in own])
        big_b = np.array([o[1] for o in own]).reshape(len(arms), self.dim)
        b = np.array([o[2] for o in own])
        mean = z @ beta + (b - big_b @ beta) / a
        if widths is not None:
            _, a0_inv, _ = widths._group(group)
            own = [widths._arm(arm) for arm in arms]
            a = np.array([o[0] for o in own])
            big_b = np.array([o[1] for o in own]).reshape(len(arms), self.dim)
        za = z @ a0_inv
        variance = (
            np.einsum("ij,ij->i", za, z)
            - 2 * np.einsum("ij,ij->i", za, big_b) / a
            + 1 / a
            + np.einsum("ij,ij->i", big_b @ a0_inv, big_b) / a**2
        )
        return mean + self.alpha * np.sqrt(np.maximum(variance, 0.0))

    def update(self, group: str, arm: str, context: np.ndarray, reward: float) -> None:
        """One observation of ``arm`` (in ``group``): ``reward`` under ``context``."""
        a0, _, b0 = self._group(group)
        a, big_b, b = self._arm(arm)
        a0 = a0 + np.outer(big_b, big_b) / a
        b0 = b0 + big_b * (b / a)
        a, big_b, b = a + 1.0, big_b + context, b + reward
        a0 = a0 + np.outer(context, context) - np.outer(big_b, big_b) / a
        b0 = b0 + reward * context - big_b * (b / a)
        self.groups[group] = (a0, np.linalg.inv(a0), b0)
        self.arms[arm] = (a, big_b, b)

    def state(self) -> dict:
        return {
            "dim": self.dim,
            "groups": {g: [m.tolist() for m in model] for g, model in sorted(self.groups.items())},
            "arms": {arm: [a, big_b.tolist(), b] for arm, (a, big_b, b) in sorted(self.arms.items())},
        }

    def restore(self, state: dict) -> None:
        if state.get("dim", self.dim) != self.dim:
            raise ValueError(f"bandit state has {state['dim']} features, this bandit {self.dim}")
        self.groups = {
            g: (np.array(a0, dtype=float), np.array(a0_inv, dtype=float), np.array(b0, dtype=float))
            for g, (a0, a0_inv, b0) in state.get("groups", {}).items()
        }
        self.arms = {
            arm: (float(a), np.array(big_b, dtype=float), float(b))
            for arm, (a, big_b, b) in state.get("arms", {}).items()
        }


class LinUCBFrontier:
    """Spends each round's budget slot by slot on the (tool, direction) arm with the highest UCB."""

    def __init__(self, *, alpha: float = DEFAULT_ALPHA, ridge: float = DEFAULT_RIDGE) -> None:
        self.bandit = LinUCB(len(FEATURES), alpha=alpha, ridge=ridge)
        self.recent_yield: dict[Arm, float] = {}
        self.pending: dict[str, tuple[Arm, int, np.ndarray]] = {}
        """Probe id → (arm, round, context when chosen): what its observation will update."""

    # -- the Frontier protocol ----------------------------------------------------------------

    def targets(self, graph: ServerGraph, size: int, rng: random.Random) -> list[str]:
        """The local subgraph (paper §3.2) grown from the tool whose best arm has the highest upper
        confidence bound, along co-usage edges, filled up by UCB rank (ties broken by ``rng``)."""
        tools = sorted(graph.tools)
        best = dict.fromkeys(tools, -np.inf)
        for direction in ARM_DIRECTIONS:
            arms = [(tool, direction) for tool in tools]
            if not arms:
                continue
            contexts = np.stack([self._context(graph, arm) for arm in arms])
            bounds = self.bandit.bounds(direction.value, [_arm_id(a) for a in arms], contexts)
            for tool, bound in zip(tools, bounds.tolist(), strict=True):
                best[tool] = max(best[tool], bound)
        ranked = sorted(tools, key=lambda t: (-best[t], rng.random()))
        return grow_subgraph(graph, ranked, size)

    def choose(
        self,
        graph: ServerGraph,
        candidates: Mapping[str, Sequence[Probe]],
        *,
        boundary_per_tool: int,
        affordance_per_tool: int,
        budget: int,
        rng: random.Random,
    ) -> list[Probe]:
        """Allocate ``budget`` slots, each to the highest-UCB arm that still has a novel candidate,
        and give it that arm's most novel remaining candidate (novel: it covers a key neither the
        graph nor a probe already chosen in this allocation covers).

        A slot given is a pull hallucinated on a copy of the bandit (its width, not its mean), and
        moves the arm's "already allocated" feature, before the next slot is scored. Ties, among
        arms and among equally novel candidates, go by numbers drawn from ``rng`` in sorted order.
        The per-tool quotas are the uniform prior this frontier replaces, so they are not used.
        """
        tools = [t for t in sorted(candidates) if t in graph.tools]
        pools: dict[Arm, list[tuple[float, Probe]]] = {}
        for tool in tools:
            for probe in candidates[tool]:
                pools.setdefault((tool, lane(probe.direction)), []).append((rng.random(), probe))
        self._forget_superseded({p.round for pool in pools.values() for _, p in pool})
        arms = [(tool, d) for tool in tools for d in ARM_DIRECTIONS if (tool, d) in pools]
        if not arms or budget <= 0:
            return []
        tiebreak = np.array([rng.random() for _ in arms])
        ids = [_arm_id(arm) for arm in arms]
        contexts = np.stack([self._context(graph, arm) for arm in arms])
        rows = {d: np.array([i for i, a in enumerate(arms) if a[1] is d], dtype=int) for d in ARM_DIRECTIONS}
        shadow = self.bandit.copy()
        bounds = np.empty(len(arms))

        def rescore(direction: Direction) -> None:
            index = rows[direction]
            if len(index):
                group = [ids[i] for i in index]
                bounds[index] = self.bandit.bounds(direction.value, group, contexts[index], widths=shadow)

        for direction in ARM_DIRECTIONS:
            rescore(direction)
        allocated = [0] * len(arms)
        open_ = np.ones(len(arms), dtype=bool)
        claimed: set[str] = set()
        taken: set[str] = set()
        chosen: list[Probe] = []
        while len(chosen) < budget and open_.any():
            masked = np.where(open_, bounds, -np.inf)
            top = np.flatnonzero(masked == masked.max())
            i = int(top[np.argmin(tiebreak[top])])
            novel = _most_novel(graph, pools[arms[i]], claimed, taken)
            if novel is None:  # nothing new left in this arm this round
                open_[i] = False
                continue
            chosen.append(novel)
            taken.add(novel.id)
            claimed.update(novel.coverage_keys)
            self.pending[novel.id] = (arms[i], novel.round, contexts[i].copy())
            direction = arms[i][1]
            shadow.update(direction.value, ids[i], contexts[i], 0.0)
            allocated[i] += 1
            contexts[i] = self._context(graph, arms[i], allocated=allocated[i])
            rescore(direction)
        log.debug("bandit_allocated", server=graph.server, probes=len(chosen), arms=sum(map(bool, allocated)))
        return chosen

    def observe(self, graph: ServerGraph, probe: Probe, reward: float) -> None:
        """Update the arm of ``probe`` with its reward, under the context it was chosen with.

        Probes this frontier did not choose (bootstrap seeds) only move the arm's recent yield."""
        arm = (probe.target, lane(probe.direction))
        value = squash_reward(reward)
        before = self.recent_yield.get(arm, RECENT_YIELD_PRIOR)
        self.recent_yield[arm] = (1 - YIELD_DECAY) * before + YIELD_DECAY * value
        pending = self.pending.pop(probe.id, None)
        if pending is not None:
            chosen, _round, context = pending
            self.bandit.update(chosen[1].value, _arm_id(chosen), context, value)

    def state(self) -> dict:
        return {
            "bandit": self.bandit.state(),
            "recent_yield": [[tool, d.value, v] for (tool, d), v in sorted(self.recent_yield.items())],
            "pending": [
                [probe_id, tool, d.value, round_, context.tolist()]
                for probe_id, ((tool, d), round_, context) in sorted(self.pending.items())
            ],
        }

    def restore(self, state: dict) -> None:
        if not state:
            return
        self.bandit.restore(state.get("bandit", {}))
        self.recent_yield = {(tool, Direction(d)): float(v) for tool, d, v in state.get("recent_yield", [])}
        self.pending = {
            probe_id: ((tool, Direction(d)), int(round_), np.array(context, dtype=float))
            for probe_id, tool, d, round_, context in state.get("pending", [])
        }

    # -- internals -------------------------------------------------------------------------------

    def _context(self, graph: ServerGraph, arm: Arm, *, allocated: int = 0) -> np.ndarray:
        tool, direction = arm
        recent = self.recent_yield.get(arm, RECENT_YIELD_PRIOR)
        return tool_context(graph, tool, direction, recent_yield=recent, allocated=allocated)

    def _forget_superseded(self, rounds: set[int]) -> None:
        """A new allocation for a round replaces any earlier one for it (the build widens the
        subgraph and asks again): their contexts will never be observed."""
        for probe_id in [p for p, (_arm, round_, _x) in self.pending.items() if round_ in rounds]:
            del self.pending[probe_id]


def _arm_id(arm: Arm) -> str:
    tool, direction = arm
    return f"{direction.value}:{tool}"


def _most_novel(
    graph: ServerGraph, pool: list[tuple[float, Probe]], claimed: set[str], taken: set[str]
) -> Probe | None:
    """The candidate covering the most keys neither the graph nor this allocation covers yet."""
    best: tuple[int, float] | None = None
    found: Probe | None = None
    for tie, probe in pool:
        if probe.id in taken:
            continue
        gain = sum(1 for k in probe.coverage_keys if k not in graph.covered and k not in claimed)
        gain += priority(probe) if gain else 0
        if gain > 0 and (best is None or (-gain, tie) < best):
            best, found = (-gain, tie), probe
    return found
