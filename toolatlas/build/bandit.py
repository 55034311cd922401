"""Budget allocation by a LinUCB contextual bandit over (tool, direction) arms.

An arm is one tool probed in one direction — outward (boundary) or inward (affordance; replays
count here). Its context is read off the tool node (:func:`tool_context`); its reward is the new
verified knowledge a probe produced (``InductionDelta.reward``: new entries, support that still
moved confidence, new coverage keys), squashed to ``[0, 1)``. Each slot of a round's budget goes
to the arm with the highest upper confidence bound ``θ·x + α·sqrt(xᵀA⁻¹x)`` (Li et al. 2010), so
tools nobody has learned about are tried, and tools that keep paying are probed more.

Model sharing. One ridge regression per *direction*, shared by every tool, with the tool's
identity entering only through its context. Disjoint per-(tool, direction) models were the
alternative; they do not fit this budget: a round spends ~40 probes over up to ~200 arms and a
build runs a handful of rounds, so a disjoint arm is pulled a few times at most, its model never
leaves the prior and UCB degenerates into round-robin. Shared per-direction models let what one
tool teaches ("a tool with no boundary yet pays on boundary probes", "the fifth probe of one arm
in a round pays little") transfer to every tool at once, while boundary and affordance yields
keep their own weights (they depend on different features). The arm's own history still
counts through its recent yield (an EMA of its rewards). ``pooling="arm"`` gives the disjoint
variant.

Within a round the graph does not change, so the bound of an arm that was just given a slot is
tightened as if its probe had already been observed (variance only, GP-BUCB style: the mean is
the real model's), and its "already allocated this round" feature moves — the next slot goes
elsewhere unless the arm really is worth more.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import structlog

from toolatlas.graph.state import ServerGraph
from toolatlas.models import OutcomeClass
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
untouched tool has the largest context, hence the widest confidence bound before any data."""

ENTRY_SCALE = 3.0
PROBE_SCALE = 10.0
RECENT_YIELD_PRIOR = 1.0
"""An arm nobody has observed is assumed to pay fully (optimism under uncertainty)."""
YIELD_DECAY = 0.3
"""EMA weight of the newest reward in an arm's recent yield."""
REWARD_SCALE = 2.0
"""A raw reward of ``REWARD_SCALE`` (two new entries) squashes to 0.5."""
DEFAULT_ALPHA = 0.5
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
    """Ridge-regression upper confidence bounds, one model (A, A⁻¹, b) per key.

    ``A = λI + Σ xxᵀ`` and ``b = Σ r·x``; ``A⁻¹`` is kept up to date by Sherman–Morrison (one
    rank-one update per observation, no solve), and serialised as is, so a restored bandit scores
    bit-for-bit like the original.
    """

    def __init__(self, dim: int, *, alpha: float = DEFAULT_ALPHA, ridge: float = DEFAULT_RIDGE) -> None:
        self.dim = dim
        self.alpha = alpha
        self.ridge = ridge
        self.A: dict[str, np.ndarray] = {}
        self.A_inv: dict[str, np.ndarray] = {}
        self.b: dict[str, np.ndarray] = {}

    def inverse(self, key: str) -> np.ndarray:
        """``A⁻¹`` of a model (the prior ``I/λ`` for one nobody updated)."""
        return self.A_inv[key] if key in self.A_inv else np.eye(self.dim) / self.ridge

    def theta(self, key: str) -> np.ndarray:
        return self.inverse(key) @ self.b[key] if key in self.b else np.zeros(self.dim)

    def scores(self, key: str, contexts: np.ndarray, inverse: np.ndarray | None = None) -> np.ndarray:
        """Upper confidence bounds of contexts (rows) under one model; ``inverse`` overrides ``A⁻¹``
        for the width only (a hallucinated allocation), the mean always comes from real rewards."""
        contexts = np.atleast_2d(contexts)
        width_inv = self.inverse(key) if inverse is None else inverse
        mean = contexts @ self.theta(key)
        width = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", contexts, width_inv, contexts), 0.0))
        return mean + self.alpha * width

    def update(self, key: str, context: np.ndarray, reward: float) -> None:
        if key not in self.A:
            self.A[key] = np.eye(self.dim) * self.ridge
            self.A_inv[key] = np.eye(self.dim) / self.ridge
            self.b[key] = np.zeros(self.dim)
        self.A[key] = self.A[key] + np.outer(context, context)
        self.A_inv[key] = sherman_morrison(self.A_inv[key], context)
        self.b[key] = self.b[key] + reward * context

    def state(self) -> dict:
        return {
            "dim": self.dim,
            "models": {
                key: {"A": self.A[key].tolist(), "A_inv": self.A_inv[key].tolist(), "b": self.b[key].tolist()}
                for key in sorted(self.A)
            },
        }

    def restore(self, state: dict) -> None:
        if state.get("dim", self.dim) != self.dim:
            raise ValueError(f"bandit state has {state['dim']} features, this bandit {self.dim}")
        models = state.get("models", {})
        self.A = {k: np.array(m["A"], dtype=float) for k, m in models.items()}
        self.A_inv = {k: np.array(m["A_inv"], dtype=float) for k, m in models.items()}
        self.b = {k: np.array(m["b"], dtype=float) for k, m in models.items()}


def sherman_morrison(inverse: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``(A + xxᵀ)⁻¹`` from ``A⁻¹``."""
    ax = inverse @ x
    return inverse - np.outer(ax, ax) / (1.0 + x @ ax)


class LinUCBFrontier:
    """Spends each round's budget slot by slot on the (tool, direction) arm with the highest UCB."""

    def __init__(
        self,
        *,
        alpha: float = DEFAULT_ALPHA,
        ridge: float = DEFAULT_RIDGE,
        pooling: Literal["direction", "arm"] = "direction",
    ) -> None:
        self.bandit = LinUCB(len(FEATURES), alpha=alpha, ridge=ridge)
        self.pooling = pooling
        self.recent_yield: dict[Arm, float] = {}
        self.pending: dict[str, tuple[Arm, int, np.ndarray]] = {}
        """Probe id → (arm, round, context when chosen): what its observation will update."""

    # -- the Frontier protocol ----------------------------------------------------------------

    def targets(self, graph: ServerGraph, size: int, rng: random.Random) -> list[str]:
        """Tools ranked by their best arm's upper confidence bound (ties broken by ``rng``)."""
        tools = sorted(graph.tools)
        arms = [(tool, d) for tool in tools for d in ARM_DIRECTIONS]
        scores = self._score_all(graph, arms)
        best = {tool: max(scores[(tool, d)] for d in ARM_DIRECTIONS) for tool in tools}
        ranked = sorted(tools, key=lambda t: (-best[t], rng.random()))
        return ranked[:size]

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
        and give it that arm's most novel remaining candidate. The per-tool quotas are the uniform
        prior this frontier replaces, so they are not used."""
        tools = [t for t in sorted(candidates) if t in graph.tools]
        pools: dict[Arm, list[tuple[float, Probe]]] = {}
        for tool in tools:
            for probe in candidates[tool]:
                pools.setdefault((tool, lane(probe.direction)), []).append((rng.random(), probe))
        arms = [(tool, d) for tool in tools for d in ARM_DIRECTIONS if (tool, d) in pools]
        rounds = {p.round for pool in pools.values() for _, p in pool}
        self._forget_superseded(rounds)
        if not arms or budget <= 0:
            return []
        tiebreak = np.array([rng.random() for _ in arms])
        contexts = np.stack([self._context(graph, arm) for arm in arms])
        keys = [self._key(arm) for arm in arms]
        widths = {key: self.bandit.inverse(key).copy() for key in set(keys)}
        rows = {key: np.array([i for i, k in enumerate(keys) if k == key]) for key in widths}
        scores = np.empty(len(arms))
        for key, index in rows.items():
            scores[index] = self.bandit.scores(key, contexts[index], widths[key])
        allocated = [0] * len(arms)
        open_ = np.ones(len(arms), dtype=bool)
        claimed: set[str] = set()
        taken: set[str] = set()
        chosen: list[Probe] = []
        while len(chosen) < budget and open_.any():
            masked = np.where(open_, scores, -np.inf)
            top = np.flatnonzero(masked == masked.max())
            i = int(top[np.argmin(tiebreak[top])])
            probe = _most_novel(graph, pools[arms[i]], claimed, taken)
            if probe is None:  # nothing new left in this arm this round
                open_[i] = False
                continue
            chosen.append(probe)
            taken.add(probe.id)
            claimed.update(probe.coverage_keys)
            self.pending[probe.id] = (arms[i], probe.round, contexts[i].copy())
            key = keys[i]
            widths[key] = sherman_morrison(widths[key], contexts[i])
            allocated[i] += 1
            contexts[i] = self._context(graph, arms[i], allocated=allocated[i])
            scores[rows[key]] = self.bandit.scores(key, contexts[rows[key]], widths[key])
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
            chosen_arm, _round, context = pending
            self.bandit.update(self._key(chosen_arm), context, value)

    def state(self) -> dict:
        return {
            "pooling": self.pooling,
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
        if state.get("pooling", self.pooling) != self.pooling:
            raise ValueError(f"bandit state pools by {state['pooling']}, this frontier by {self.pooling}")
        self.bandit.restore(state.get("bandit", {}))
        self.recent_yield = {(tool, Direction(d)): float(v) for tool, d, v in state.get("recent_yield", [])}
        self.pending = {
            probe_id: ((tool, Direction(d)), int(round_), np.array(context, dtype=float))
            for probe_id, tool, d, round_, context in state.get("pending", [])
        }

    # -- internals -------------------------------------------------------------------------------

    def _key(self, arm: Arm) -> str:
        tool, direction = arm
        return direction.value if self.pooling == "direction" else f"{direction.value}:{tool}"

    def _context(self, graph: ServerGraph, arm: Arm, *, allocated: int = 0) -> np.ndarray:
        tool, direction = arm
        return tool_context(
            graph, tool, direction, recent_yield=self.recent_yield.get(arm, RECENT_YIELD_PRIOR), allocated=allocated
        )

    def _score_all(self, graph: ServerGraph, arms: list[Arm]) -> dict[Arm, float]:
        by_key: dict[str, list[Arm]] = {}
        for arm in arms:
            by_key.setdefault(self._key(arm), []).append(arm)
        scores: dict[Arm, float] = {}
        for key, group in by_key.items():
            values = self.bandit.scores(key, np.stack([self._context(graph, a) for a in group]))
            scores.update(zip(group, values.tolist(), strict=True))
        return scores

    def _forget_superseded(self, rounds: set[int]) -> None:
        """A new allocation for a round replaces any earlier one for it (the build widens the
        subgraph and asks again): their contexts will never be observed."""
        for probe_id in [p for p, (_arm, round_, _x) in self.pending.items() if round_ in rounds]:
            del self.pending[probe_id]


def _most_novel(graph: ServerGraph, pool: list[tuple[float, Probe]], claimed: set[str], taken: set[str]) -> Probe | None:
    """The candidate covering the most keys neither the graph nor this allocation covers yet."""
    best: tuple[int, float] | None = None
    found: Probe | None = None
    for tie, probe in pool:
        if probe.id in taken:
            continue
        gain = sum(1 for k in probe.coverage_keys if k not in graph.covered and k not in claimed)
        if gain > 0 and (best is None or (-gain, tie) < best):
            best, found = (-gain, tie), probe
    return found
