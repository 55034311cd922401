"""The LinUCB frontier without servers: bounds, allocation, learning, checkpoints, determinism."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable

import numpy as np

from toolatlas.graph.state import ServerGraph
from toolatlas.models import ToolSpec
from toolatlas.pipeline.bandit import FEATURES, LinUCB, LinUCBFrontier, tool_context
from toolatlas.pipeline.frontier import frontier_for
from toolatlas.probing.models import Direction, Probe, ProbeStep

TOOLS = ["alpha", "beta", "gamma", "delta"]
BOTH = (Direction.BOUNDARY, Direction.AFFORDANCE)


def spec(name: str) -> ToolSpec:
    return ToolSpec(server="s", name=name, description=f"The {name} tool.", input_schema={
        "type": "object",
        "properties": {"path": {"type": "string"}, "mode": {"enum": ["a", "b"]}},
        "required": ["path"],
    })


def graph(tools: list[str] = TOOLS) -> ServerGraph:
    return ServerGraph("s", [spec(t) for t in tools])


def probe(tool: str, direction: Direction, n: int, round_: int = 1, keys: list[str] | None = None) -> Probe:
    return Probe(
        id=f"p-{round_}-{tool}-{direction.value}-{n}",
        server="s",
        round=round_,
        direction=direction,
        target=tool,
        task="t",
        steps=[ProbeStep(tool=tool, arguments={"n": n})],
        coverage_keys=keys if keys is not None else [f"{tool}:{direction.value}:{round_}:{n}"],
    )


def candidates(tools: list[str], round_: int, per_direction: int = 6) -> dict[str, list[Probe]]:
    return {
        t: [probe(t, d, n, round_) for d in BOTH for n in range(per_direction)]
        for t in tools
    }


def pick(
    frontier: LinUCBFrontier, g: ServerGraph, offered: dict[str, list[Probe]], budget: int, rng: random.Random
) -> list[Probe]:
    return frontier.choose(g, offered, boundary_per_tool=3, affordance_per_tool=3, budget=budget, rng=rng)


def play(
    frontier: LinUCBFrontier,
    g: ServerGraph,
    round_: int,
    offered: dict[str, list[Probe]],
    reward: Callable[[Probe], float],
    rng: random.Random,
    budget: int = 6,
) -> list[Probe]:
    """One round as a build runs it: choose, then induce (cover keys, count probes) and observe each."""
    chosen = pick(frontier, g, offered, budget, rng)
    for p in chosen:
        g.covered.update(p.coverage_keys)
        node = g.tools[p.target]
        g.put_tool(node.model_copy(update={"probes": node.probes + 1}))
        frontier.observe(g, p, reward(p))
    return chosen


class TestLinUCB:
    def test_an_arm_nobody_pulled_has_the_higher_bound(self) -> None:
        """After an arm has been pulled (for nothing), an unpulled arm under the same context bounds higher."""
        bandit = LinUCB(3, alpha=1.0)
        x = np.array([1.0, 0.5, 0.2])
        for _ in range(5):
            bandit.update("g", "tried", x, 0.0)
        tried, fresh = bandit.bounds("g", ["tried", "fresh"], np.stack([x, x]))
        assert fresh > tried

    def test_estimate_equals_a_joint_ridge_regression(self) -> None:
        """The hybrid mean and width are those of one ridge regression over the context plus an arm indicator."""
        rng = np.random.default_rng(7)
        arms, k = ["a", "b", "c"], 4
        bandit = LinUCB(k, alpha=1.0, ridge=1.0)
        rows, rewards = [], []
        for _ in range(30):
            arm, z, r = arms[rng.integers(3)], rng.random(k), float(rng.random())
            bandit.update("g", arm, z, r)
            rows.append(np.concatenate([z, [float(a == arm) for a in arms]]))
            rewards.append(r)
        design = np.array(rows)
        inverse = np.linalg.inv(np.eye(k + len(arms)) + design.T @ design)
        theta = inverse @ design.T @ np.array(rewards)
        z = rng.random((3, k))
        joint = np.hstack([z, np.eye(3)])
        expected = joint @ theta + np.sqrt(np.einsum("ij,jk,ik->i", joint, inverse, joint))
        assert np.allclose(bandit.bounds("g", arms, z), expected)

    def test_state_round_trips_through_json_bit_for_bit(self) -> None:
        """A bandit restored from its JSON state gives exactly the bounds of the original."""
        bandit = LinUCB(3)
        for i in range(7):
            bandit.update("g", f"arm{i % 2}", np.array([1.0, i / 7, 0.3]), i / 10)
        twin = LinUCB(3)
        twin.restore(json.loads(json.dumps(bandit.state())))
        x = np.array([[1.0, 0.1, 0.9], [1.0, 0.4, 0.2]])
        assert bandit.bounds("g", ["arm0", "arm1"], x).tolist() == twin.bounds("g", ["arm0", "arm1"], x).tolist()


class TestToolContext:
    def test_untouched_tool_has_the_largest_context(self) -> None:
        """A tool nothing is known about has full scarcities, all open arguments, no errors, the prior yield."""
        x = tool_context(graph(), "alpha", Direction.BOUNDARY)
        named = dict(zip(FEATURES, x.tolist(), strict=True))
        assert len(x) == len(FEATURES)
        assert named["affordance_scarcity"] == named["boundary_scarcity"] == named["probe_scarcity"] == 1.0
        assert named["open_arguments"] == 1.0 and named["error_rate"] == 0.0 and named["recent_yield"] == 1.0
        assert ((x >= 0) & (x <= 1)).all()

    def test_direction_is_one_hot_and_replays_count_as_affordance(self) -> None:
        """Boundary and affordance set different one-hot bits; a replay reads as affordance."""
        g = graph()
        boundary = dict(zip(FEATURES, tool_context(g, "alpha", Direction.BOUNDARY), strict=True))
        replay = dict(zip(FEATURES, tool_context(g, "alpha", Direction.REPLAY), strict=True))
        assert (boundary["boundary"], boundary["affordance"]) == (1.0, 0.0)
        assert (replay["boundary"], replay["affordance"]) == (0.0, 1.0)

    def test_error_rate_is_the_non_ok_share_of_calls(self) -> None:
        """Three failed calls out of four give an error rate of 0.75."""
        g = graph()
        g.put_tool(g.tools["alpha"].model_copy(update={"outcomes": {"ok": 1, "tool_error": 3}}))
        named = dict(zip(FEATURES, tool_context(g, "alpha", Direction.AFFORDANCE), strict=True))
        assert named["error_rate"] == 0.75


class TestAllocation:
    def test_first_allocation_tries_every_arm_once_before_repeating(self) -> None:
        """With no data yet, a budget equal to the number of arms gives each arm exactly one slot."""
        frontier, g = LinUCBFrontier(), graph()
        chosen = pick(frontier, g, candidates(TOOLS, 1), 8, random.Random(1))
        assert Counter((p.target, p.direction) for p in chosen) == {
            (t, d): 1 for t in TOOLS for d in BOTH
        }

    def test_an_unexplored_tool_is_preferred_over_one_that_paid_nothing(self) -> None:
        """After rounds where one tool paid nothing, the first slot and the top target go to a new tool."""
        frontier, g, rng = LinUCBFrontier(), graph(["alpha", "beta"]), random.Random(2)
        for round_ in range(1, 4):
            play(frontier, g, round_, candidates(["alpha"], round_), lambda p: 0.0, rng)
        chosen = pick(frontier, g, candidates(["alpha", "beta"], 4), 1, rng)
        assert chosen[0].target == "beta"
        assert frontier.targets(g, 2, rng)[0] == "beta"

    def test_an_arm_that_keeps_paying_gets_more_slots(self) -> None:
        """Over rounds, a tool whose probes yield new knowledge gets more of the budget than a barren one."""
        frontier, g, rng = LinUCBFrontier(), graph(["alpha", "beta"]), random.Random(3)
        slots: Counter[str] = Counter()
        for round_ in range(1, 9):
            chosen = play(frontier, g, round_, candidates(["alpha", "beta"], round_, per_direction=8),
                          lambda p: 3.0 if p.target == "alpha" else 0.0, rng)
            if round_ > 2:
                slots.update(p.target for p in chosen)
        assert slots["alpha"] > 2 * slots["beta"]

    def test_slots_given_narrow_an_arm_so_an_untried_tool_does_not_take_the_whole_budget(self) -> None:
        """Each slot counts as a pull already made, so a tool that paid well still gets slots next to a new one."""
        frontier, g, rng = LinUCBFrontier(), graph(["alpha", "beta"]), random.Random(12)
        for round_ in range(1, 5):
            play(frontier, g, round_, candidates(["alpha"], round_, per_direction=8), lambda p: 2.0, rng)
        chosen = pick(frontier, g, candidates(["alpha", "beta"], 5, per_direction=8), 12, rng)
        slots = Counter(p.target for p in chosen)
        assert slots["beta"] > slots["alpha"] > 0

    def test_never_exceeds_the_budget_nor_picks_a_probe_twice(self) -> None:
        """Whatever the budget, the choice fits it, has no duplicate, and only holds probes with a new key."""
        rng = random.Random(4)
        g = graph()
        g.covered.update({"alpha:boundary:1:0", "beta:affordance:1:1"})
        offered = candidates(TOOLS, 1, per_direction=3)
        offered["gamma"] = offered["gamma"] + offered["gamma"][:2]  # the same candidate offered twice
        for budget in (0, 1, 5, 17, 100):
            chosen = pick(LinUCBFrontier(), g, offered, budget, rng)
            assert len(chosen) <= budget
            assert len({p.id for p in chosen}) == len(chosen)
            assert all(any(k not in g.covered for k in p.coverage_keys) for p in chosen)
        assert len(chosen) == 4 * 6 - 2  # everything novel, and nothing else, when the budget allows

    def test_an_arm_with_nothing_new_is_skipped(self) -> None:
        """Candidates whose keys are covered, or claimed by a probe chosen earlier this round, are skipped."""
        g = graph(["alpha", "beta"])
        stale = [probe("alpha", Direction.BOUNDARY, n, keys=["alpha:known"]) for n in range(3)]
        twins = [probe("beta", Direction.AFFORDANCE, n, keys=["beta:same"]) for n in range(3)]
        g.covered.add("alpha:known")
        chosen = pick(LinUCBFrontier(), g, {"alpha": stale, "beta": twins}, 6, random.Random(5))
        assert [p.coverage_keys for p in chosen] == [["beta:same"]]

    def test_within_an_arm_the_most_novel_candidate_goes_first(self) -> None:
        """Of one arm's candidates, the one covering the most new keys is given the arm's slot."""
        g = graph(["alpha"])
        narrow = probe("alpha", Direction.BOUNDARY, 0, keys=["alpha:a"])
        wide = probe("alpha", Direction.BOUNDARY, 1, keys=["alpha:b", "alpha:c", "alpha:d"])
        chosen = pick(LinUCBFrontier(), g, {"alpha": [narrow, wide]}, 1, random.Random(6))
        assert chosen == [wide]


class TestCheckpoint:
    def test_restored_frontier_makes_identical_next_choices(self) -> None:
        """A frontier restored from its JSON state, with the same rng state, chooses like the original."""
        frontier, g, rng = LinUCBFrontier(), graph(), random.Random(8)
        for round_ in (1, 2, 3):
            play(frontier, g, round_, candidates(TOOLS, round_), lambda p: len(p.target) / 3, rng)
        resumed = LinUCBFrontier()
        resumed.restore(json.loads(json.dumps(frontier.state())))
        twin_rng = random.Random()
        twin_rng.setstate(rng.getstate())
        ours = pick(frontier, g, candidates(TOOLS, 4), 6, rng)
        theirs = pick(resumed, g, candidates(TOOLS, 4), 6, twin_rng)
        assert [p.id for p in ours] == [p.id for p in theirs]
        assert frontier.targets(g, 4, rng) == resumed.targets(g, 4, twin_rng)

    def test_pending_contexts_survive_a_checkpoint(self) -> None:
        """Probes chosen before a checkpoint and observed after it update the restored bandit identically."""
        frontier, g = LinUCBFrontier(), graph()
        chosen = pick(frontier, g, candidates(TOOLS, 1), 5, random.Random(9))
        resumed = LinUCBFrontier()
        resumed.restore(json.loads(json.dumps(frontier.state())))
        for p in chosen:
            frontier.observe(g, p, 1.0)
            resumed.observe(g, p, 1.0)
        assert resumed.state() == frontier.state()
        assert resumed.pending == {}

    def test_a_wider_allocation_of_the_same_round_replaces_the_narrower(self) -> None:
        """When the build asks again with more tools, only the last allocation's contexts stay pending."""
        frontier, g, rng = LinUCBFrontier(), graph(), random.Random(10)
        first = pick(frontier, g, candidates(TOOLS[:2], 1), 30, rng)
        second = pick(frontier, g, candidates(TOOLS, 1), 30, rng)
        assert len(first) < len(second)
        assert set(frontier.pending) == {p.id for p in second}


class TestDeterminism:
    def test_same_seed_same_build(self) -> None:
        """Two frontiers driven by rngs with the same seed choose the same probes round after round."""
        runs = []
        for _ in range(2):
            frontier, g, rng = LinUCBFrontier(), graph(), random.Random(11)
            picks = []
            for round_ in range(1, 5):
                picks.append(frontier.targets(g, 4, rng))
                chosen = play(frontier, g, round_, candidates(TOOLS, round_), lambda p: 1.0, rng)
                picks.append([p.id for p in chosen])
            runs.append(picks)
        assert runs[0] == runs[1]

    def test_ties_are_broken_by_the_rng(self) -> None:
        """Among identical untouched tools, which goes first depends on the rng's seed, not on names."""
        firsts = {LinUCBFrontier().targets(graph(), 4, random.Random(seed))[0] for seed in range(12)}
        assert len(firsts) > 1


class TestRegistration:
    def test_frontier_for_knows_linucb(self) -> None:
        """``frontier_for("linucb")`` gives a fresh LinUCB frontier."""
        assert isinstance(frontier_for("linucb"), LinUCBFrontier)
