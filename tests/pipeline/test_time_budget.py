"""A build shares its time among a server's tools: a tool that refuses slowly gets fewer probes, not fewer facts.

The plan's arithmetic is tested on probes made here; the build on a real stdio server
(:mod:`toolatlas.testing.servers.lookup`) whose ``describe_part`` answers at once and refuses an
unknown part only after 0.4 s.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.graph.models import EntryKind
from toolatlas.home import Home
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.offline.discovery import PILOT_TIMEOUT_S, discover
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.values import ValueSynth
from toolatlas.pipeline.budget import COSTLY_CALL_S, CallCosts, time_share, within_time
from toolatlas.pipeline.server import ServerBuild
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult
from toolatlas.testing.opaque import server_catalogue
from toolatlas.testing.servers.cold import LOAD_S
from toolatlas.testing.servers.lookup import SCAN_S
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]


def probe(tool: str, direction: Direction = Direction.AFFORDANCE, index: int = 0) -> Probe:
    step = ProbeStep(tool=tool, arguments={"i": index}, expect="error" if direction is Direction.BOUNDARY else "ok")
    return Probe(id=f"{tool}-{direction.value}-{index}", server="s", round=1, direction=direction, target=tool,
                 task="t", steps=[step])


def rollout(tool: str, seconds: float, *, refused: bool) -> Rollout:
    outcome = CallOutcome(server="s", tool=tool, outcome=OutcomeClass.TOOL_ERROR if refused else OutcomeClass.OK,
                          excerpt="no such thing" if refused else "fine", latency_ms=seconds * 1000)
    return Rollout(probe=probe(tool), steps=[StepResult(index=0, outcome=outcome)])


def ledger(**means: tuple[float, float]) -> CallCosts:
    """A ledger where each tool's answers and refusals took (answer, refusal) seconds."""
    costs = CallCosts()
    for tool, (answer, refusal) in means.items():
        costs.observe(rollout(tool, answer, refused=False))
        costs.observe(rollout(tool, refusal, refused=True))
    return costs


class TestPlanByTime:
    def test_a_slow_refusal_limits_boundary_probes_not_answers(self) -> None:
        """A tool that answers in milliseconds but refuses in 0.4 s keeps every answer probe and only as many
        boundary probes as its share of the time buys, the first of them always."""
        costs = ledger(lookup=(0.002, 0.4), sum=(0.002, 0.002), echo=(0.002, 0.002))
        plan = [probe("lookup", Direction.BOUNDARY, i) for i in range(10)]
        plan += [probe("lookup", Direction.AFFORDANCE, i) for i in range(10)]
        plan += [probe(t, d, i) for t in ("sum", "echo") for d in (Direction.BOUNDARY, Direction.AFFORDANCE)
                 for i in range(20)]
        kept = within_time(plan, costs, share=0.1)
        boundaries = [p for p in kept if p.target == "lookup" and p.direction is Direction.BOUNDARY]
        assert [p.id for p in boundaries] == ["lookup-boundary-0"]
        assert len(kept) == len(plan) - 9

    def test_a_server_of_ordinary_tools_is_planned_by_count(self) -> None:
        """When every tool's calls take under a tenth of a second, nothing is dropped and nothing depends on timing."""
        costs = ledger(a=(0.002, 0.05), b=(0.09, 0.01))
        plan = [probe(t, d, i) for t in ("a", "b") for d in (Direction.BOUNDARY, Direction.AFFORDANCE) for i in range(30)]
        assert within_time(plan, costs, share=0.1) == plan

    def test_a_machine_slowed_as_a_whole_plans_as_it_would_idle(self) -> None:
        """Every call fifty times slower (a loaded host) keeps the idle plan: ordinary tools are judged against
        the server's typical call, and a tool that is costly against it is still held to its share."""
        idle = ledger(a=(0.002, 0.003), b=(0.002, 0.004), lookup=(0.002, 0.4))
        loaded = ledger(a=(0.1, 0.15), b=(0.1, 0.2), lookup=(0.1, 20.0))
        plan = [probe(t, d, i) for t in ("a", "b", "lookup") for d in (Direction.BOUNDARY, Direction.AFFORDANCE)
                for i in range(20)]
        assert within_time(plan, loaded, share=0.1) == within_time(plan, idle, share=0.1) != plan
        assert loaded.costly_from() == 1.0 and idle.costly_from() == COSTLY_CALL_S

    def test_the_share_counts_the_whole_build_so_far(self) -> None:
        """A costly tool that took more than its share in earlier rounds loses even its first probe of the next
        round, and gets one again once the other tools' time has made room."""
        costs = ledger(slow=(0.8, 0.8), fast=(0.002, 0.002))
        rounds = [[probe("slow", index=r)] + [probe("fast", index=1000 * r + i) for i in range(400)] for r in range(6)]
        kept_slow = [any(p.target == "slow" for p in within_time(plan, costs, share=0.3)) for plan in rounds]
        assert kept_slow[0] and not all(kept_slow) and any(kept_slow[1:])

    def test_time_share_is_a_tenth_or_an_equal_split(self) -> None:
        """A tool may take a tenth of a build on a large server, an equal split on a small one."""
        assert time_share(30) == 0.1 and time_share(4) == 0.25 and time_share(1) == 1.0

    def test_the_only_tool_of_a_server_is_never_cut(self) -> None:
        """A one-tool server's costly tool takes all its time: every probe of it is kept."""
        costs = ledger(lint=(0.3, 0.3))
        plan = [probe("lint", d, i) for d in (Direction.BOUNDARY, Direction.AFFORDANCE) for i in range(12)]
        assert within_time(plan, costs, share=time_share(1)) == plan

    def test_a_costly_call_that_feeds_another_is_charged_to_the_tool_that_takes_its_answer(self) -> None:
        """A slow search whose id a paging call takes in the same probe is the pager's cost: the pager keeps its
        first use on it (planned after a misuse, too) and is held to its own share, and the search keeps every
        one of its own probes it would keep without the pager's."""
        costs = ledger(search=(0.4, 0.4), page=(0.002, 0.002), other=(0.002, 0.002))

        def chain(i: int, direction: Direction) -> Probe:
            return Probe(id=f"chain-{direction.value}-{i}", server="s", round=1, direction=direction, target="page",
                         task="t", steps=[ProbeStep(tool="search", arguments={"i": i}, expect="ok"),
                                          ProbeStep(tool="page", arguments={"id": "${step0.search_id}", "i": i})])

        misuses = [chain(i, Direction.BOUNDARY) for i in range(10)]
        uses = [chain(i, Direction.AFFORDANCE) for i in range(10)]
        own = [probe("search", index=i) for i in range(10)]
        others = [probe("other", index=i) for i in range(40)]
        alone = [p for p in within_time([*own, *others], CallCosts.restore(costs.state()), share=1 / 4) if p in own]
        kept = within_time([*own, *misuses, *uses, *others], costs, share=1 / 4)
        assert uses[0] in kept and len([p for p in [*misuses, *uses] if p in kept]) < 20
        assert all(p in kept for p in alone) and len(alone) < len(own)
        assert costs.charges(uses[:1])[0] == [("page", COSTLY_CALL_S * 4), ("page", 0.002)]

    def test_a_costly_call_that_prepares_the_state_of_another_is_charged_to_that_one(self) -> None:
        """A slow create a precondition probe makes before the call it enables (``enabled_by``) is the enabled
        tool's cost, as an answer it takes would be: the create's own share does not hold the precondition back."""
        costs = ledger(create=(0.4, 0.4), reorder=(0.002, 0.002))
        enabled = Probe(id="after-create", server="s", round=1, direction=Direction.AFFORDANCE, target="reorder",
                        task="t", steps=[ProbeStep(tool="create", arguments={"name": "deck"}, expect="ok"),
                                         ProbeStep(tool="reorder", arguments={"slide": 0}, enabled_by=0)])
        assert costs.charges([enabled])[0] == [("reorder", COSTLY_CALL_S * 4), ("reorder", 0.002)]

    def test_the_first_task_of_a_costly_tool_keeps_a_second_rollout(self) -> None:
        """Over its share, a costly tool still keeps its first task and a second rollout of it (one call alone
        shows nothing of what differs between calls), and no other."""
        costs = ledger(search=(0.4, 0.4), other=(0.002, 0.002))
        costs.charged["other"] = 10.0
        rollouts = [probe("search", index=0).model_copy(update={"id": f"search-r{r}", "rollout": r}) for r in range(4)]
        plan = [*rollouts, probe("search", index=1), *(probe("other", index=i) for i in range(10))]
        kept = within_time(plan, costs, share=0.1)
        assert [p.id for p in kept if p.target == "search"] == [p.id for p in rollouts[:2]]

    def test_the_ledger_resumes_exactly(self) -> None:
        """A checkpointed ledger gives the same charges and history after a restore."""
        costs = ledger(slow=(0.3, 1.2), fast=(0.002, 0.002))
        plan = [probe("slow", Direction.BOUNDARY, i) for i in range(5)] + [probe("fast", index=i) for i in range(50)]
        within_time(plan, costs, share=0.1)
        again = CallCosts.restore(costs.state())
        assert again.charges(plan) == costs.charges(plan) and again.charged == costs.charged
        assert costs.charges(plan)[0] == [("slow", COSTLY_CALL_S * 16)]


ROUNDS = 2


def lookup_build(tmp_path: Path, plan_by: str, executors: int = 1) -> tuple[ServerBuild, list[float]]:
    """The lookup server built over :data:`ROUNDS` rounds, planned by ``plan_by`` on ``executors`` sandboxes; the
    seconds of each slow refusal of ``describe_part`` the build made."""
    catalogue = load_catalogue(server_catalogue(tmp_path, "lookup", rounds=ROUNDS))
    workspace = Workspace(catalogue, Home(REPO / ".toolatlas"))
    slow_refusals: list[float] = []

    def clock(rollout, verdict, delta) -> None:
        slow_refusals.extend(s.outcome.latency_ms / 1000 for s in rollout.steps
                             if s.outcome.tool == "describe_part" and s.outcome.latency_ms / 1000 >= SCAN_S)

    settings = catalogue.build.model_copy(update={"plan_by": plan_by, "executors_per_server": executors})
    build = ServerBuild(workspace, catalogue.server("lookup"), settings, on_probe=clock)
    asyncio.run(build.run())
    return build, slow_refusals


@pytest.mark.servers
class TestSlowRefusals:
    def test_a_slowly_refusing_tool_keeps_its_facts_within_its_share(self, tmp_path: Path) -> None:
        """Discovery times a refusal of every tool; the build spends at most one slow refusal of the lookup per
        round (its share of the time buys no more) but for a second run of the first seed task, and still
        records that an unknown part is refused."""
        build, slow_refusals = lookup_build(tmp_path, "time")
        discovery = build.shard.proposer.discovery
        assert discovery.costs["describe_part"].refusal_seconds >= SCAN_S
        assert all((discovery.costs[t].refusal_seconds or 0) < COSTLY_CALL_S for t in ("echo", "add_numbers"))
        assert 1 <= len(slow_refusals) <= ROUNDS + 1, slow_refusals
        refusals = [e for e in build.shard.graph.entries.values()
                    if e.tool == "describe_part" and e.kind is EntryKind.BOUNDARY and "no part named" in e.signature]
        assert refusals

    def test_a_build_planned_by_count_holds_no_tool_to_a_share(self, tmp_path: Path) -> None:
        """``plan_by = "count"``: the same server's slow refusals are probed as a round's plan has them, more than
        the one per round its share of the time buys when the build plans by time."""
        _, slow_refusals = lookup_build(tmp_path, "count", executors=2)  # a plan by count: two sandboxes wait at once
        assert len(slow_refusals) > ROUNDS + 1, slow_refusals

    def test_a_refusal_pilot_is_asked_once(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Discovery asks each tool for one refusal: the tool's pilot has loaded its code, so a slow refusal is
        not repeated (asking twice would double what a server's slowest calls cost its discovery)."""
        catalogue = load_catalogue(server_catalogue(tmp_path, "lookup", rounds=0))
        sandbox = Workspace(catalogue, Home(REPO / ".toolatlas")).sandbox(catalogue.server("lookup"))
        calls: list[CallOutcome] = []
        real = sandbox.call

        async def counted(tool: str, arguments: dict, **options) -> CallOutcome:  # type: ignore[no-untyped-def]
            calls.append(outcome := await real(tool, arguments, **options))
            return outcome

        monkeypatch.setattr(sandbox, "call", counted)
        found = asyncio.run(discover(sandbox, ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0)),
                                     listings=True, introspect=False))
        described = [c for c in calls if c.tool == "describe_part"]
        refusal = [c for c in described if c.arguments == described[-1].arguments]  # its refusal pilot: the last one
        assert (found.costs["describe_part"].refusal_seconds or 0) >= SCAN_S
        assert len(refusal) == 1 and refusal[0].latency_ms / 1000 >= SCAN_S, [c.arguments for c in described]


@pytest.mark.servers
class TestColdStarts:
    def test_a_first_call_that_loads_its_data_is_no_slow_tool(self, tmp_path: Path) -> None:
        """A lookup whose first call in the process loads a word list for longer than a pilot waits is asked once more
        with a longer wait, then timed warm: not slow, planned like any other tool."""
        catalogue = load_catalogue(server_catalogue(tmp_path, "cold", rounds=0))
        sandbox = Workspace(catalogue, Home(REPO / ".toolatlas")).sandbox(catalogue.server("cold"))
        found = asyncio.run(discover(sandbox, ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0)),
                                     listings=True, introspect=False))
        assert LOAD_S > PILOT_TIMEOUT_S
        assert not found.costs["define"].timed_out and not found.costs["define"].slow, found.costs["define"]
        assert found.slow == []
