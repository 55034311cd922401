"""One server's build state and logic, with no I/O of its own: the proposer and inducer roles.

A :class:`ServerShard` plans a round's probes (seeds in round 0, the frontier's choice after)
and absorbs verified rollouts **in probe order** — whatever order they finish in — so a build
with the same seed gives the same atlas in-process or on a cluster, with one executor or many.
It is the single writer of its server's graph. :meth:`checkpoint` captures everything a
resumed build needs to continue exactly where a round ended.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

import structlog

from toolatlas.config import BuildSettings, ServerSpec
from toolatlas.graph.distil import distil_strategies, link_similar_traces
from toolatlas.graph.fingerprint import fingerprint
from toolatlas.graph.inducer import Inducer, InductionDelta
from toolatlas.graph.lexicon import Lexicon
from toolatlas.graph.models import ServerNode
from toolatlas.graph.state import RoundCoverage, ServerGraph
from toolatlas.models import ToolSpec
from toolatlas.offline.discovery import Discovery
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import ArgSpec, infer_arguments
from toolatlas.pipeline.budget import CallCosts, time_share, within_time
from toolatlas.pipeline.checkpoint import CHECKPOINT_VERSION, ShardCheckpoint
from toolatlas.pipeline.frontier import frontier_for
from toolatlas.probing.models import Direction, Probe, Rollout, Verdict
from toolatlas.probing.values import ArgKind
from toolatlas.workspace import Workspace

if TYPE_CHECKING:
    from toolatlas.offline.proposer import OfflineProposer

__all__ = ["CHECKPOINT_VERSION", "RoundTally", "ServerShard"]

log = structlog.get_logger(__name__)

REFERENCE_KINDS = frozenset({
    ArgKind.FILE_PATH, ArgKind.DIR_PATH, ArgKind.PATH, ArgKind.NEW_PATH, ArgKind.REPO_PATH, ArgKind.BRANCH,
    ArgKind.ENTITY_NAME, ArgKind.TABLE_NAME, ArgKind.IDENTIFIER,
})
"""Argument kinds whose values name objects an environment digest lists (files, refs, entities,
tables, records): what a served condition may speak of. A revision, a column or a sheet names an
object too, but not one a digest lists: "names nothing that exists yet" would be false of it."""


def state_references(tool: ToolSpec) -> frozenset[str]:
    """The top-level arguments of ``tool`` whose value (or an item or field of it) is a reference kind."""

    def kinds(spec: ArgSpec) -> Iterator[ArgKind]:
        yield spec.kind
        if spec.items is not None:
            yield from kinds(spec.items)
        for field in spec.properties:
            yield from kinds(field)

    return frozenset(spec.name for spec in infer_arguments(tool) if any(k in REFERENCE_KINDS for k in kinds(spec)))


SLOW_PROBES_PER_ROUND = 1
"""Exploration probes per round that may call a tool discovery found slow."""
MAX_CHAINS = 64
"""Verified multi-step chains a shard keeps (distinct tool sequences) for the LLM method's chain tasks."""


class RoundTally:
    """The counts of one round as its probes are absorbed."""

    def __init__(self) -> None:
        self.probes = 0
        self.resolved = 0
        self.new = 0
        self.reinforced = 0
        self.calls = 0
        self.outcomes: Counter[str] = Counter()

    def add(self, rollout: Rollout, verdict: Verdict, delta: InductionDelta) -> None:
        self.probes += 1
        self.resolved += int(verdict.resolved)
        self.new += len(delta.new_entries)
        self.reinforced += len(delta.reinforced)
        self.calls += len(rollout.steps)
        for step in rollout.steps:
            self.outcomes[step.outcome.outcome.value] += 1


class ServerShard:
    """Plans and absorbs probes for one server; holds its graph, proposer, frontier and random state."""

    def __init__(self, workspace: Workspace, spec: ServerSpec, settings: BuildSettings, frontier: str = "graph") -> None:
        self.workspace = workspace
        self.spec = spec
        self.settings = settings
        self.frontier_name = frontier
        self.frontier = frontier_for(frontier)
        self.rng = random.Random(f"{settings.seed}:{spec.name}")
        self.graph: ServerGraph | None = None
        self.proposer: OfflineProposer | None = None
        self.completed_round = -1
        self.tally = RoundTally()
        self.chains: list[Probe] = []
        """Resolved multi-step probes, one per distinct tool sequence, in the order they were verified."""
        self.costs = CallCosts()
        """What each tool's calls cost: the plan shares a round's time by it (:mod:`toolatlas.pipeline.budget`)."""
        self.focus: frozenset[str] | None = None
        """Only these tools are probed (their probes may call others): a refresh's changed and new tools
        and their neighbours. None: every tool."""

    # -- set-up ---------------------------------------------------------------------------------

    def prepare(self, tools: list[ToolSpec], stored: dict[str, list] | None = None) -> None:
        """Start from the live tools (and what earlier builds stored); read the snapshot's facts."""
        from toolatlas.offline.proposer import OfflineProposer

        self.graph = ServerGraph(self.spec.name, tools)
        self.graph.references = {tool.name: state_references(tool) for tool in tools}
        if stored:
            stale = self.graph.load(stored)
            log.info("graph_loaded", server=self.spec.name, entries=len(self.graph.entries), stale=stale)
            if self.focus is None:  # a whole build hears every answer again; a refresh keeps what it does not re-probe
                self.graph.lexicon = Lexicon()
        snapshot = self.workspace.snapshot(self.spec).content_hash
        self.graph.put_server(ServerNode(id=ServerNode.make_id(self.spec.name), server=self.spec.name,
                                         fingerprint=fingerprint(self.spec, tools, self.settings, snapshot),
                                         description=self.spec.description))
        self.proposer = OfflineProposer(self.graph, self.workspace, self.spec, self.rng)
        self.proposer.prepare()
        found = self.proposer.discover(self.settings.seed)
        self.costs = CallCosts({tool: cost.seconds for tool, cost in found.costs.items() if not cost.timed_out},
                               {tool: cost.refusal_seconds for tool, cost in found.costs.items()
                                if cost.refusal_seconds is not None})
        if found.instructions and self.graph.node is not None:
            self.graph.put_server(self.graph.node.model_copy(update={"instructions": found.instructions}))

    def open(
        self,
        tools: list[ToolSpec],
        stored: dict[str, list] | None,
        checkpoint: ShardCheckpoint | None,
        focus: frozenset[str] | None = None,
    ) -> int:
        """Continue from a checkpoint when there is one (with the focus it was written with), else start
        from the live tools (and what earlier builds stored), probing only ``focus`` if given; the
        first round still to run."""
        if checkpoint is not None:
            self.restore(tools, checkpoint)
            return self.completed_round + 1
        self.focus = focus
        self.prepare(tools, stored)
        return 0

    # -- rounds ---------------------------------------------------------------------------------

    @property
    def round_budget(self) -> int:
        """Probes per exploration round: K target tools × (boundary + affordance + one replay), capped."""
        per_tool = self.settings.boundary_per_tool + self.settings.affordance_per_tool + 1
        return min(self.settings.probe_budget_per_round, self.settings.subgraph_size * per_tool)

    def plan(self, round_: int) -> list[Probe]:
        """The probes of a round: seeds for round 0; the frontier's choice among candidates after."""
        assert self.graph is not None and self.proposer is not None, "prepare() first"
        self.tally = RoundTally()
        if round_ == 0:
            seeds = self.proposer.seed_probes(self.settings.seed_tasks_per_tool, self.settings.rollouts_per_task)
            return self._within_time([p for p in seeds if self._focused(p)])
        size = self.settings.subgraph_size
        ranked = [t for t in self.frontier.targets(self.graph, len(self.graph.tools), self.rng)
                  if self.focus is None or t in self.focus]
        candidates: dict[str, list[Probe]] = {}
        chosen: list[Probe] = []
        for width in range(size, len(ranked) + size, size):  # grow the subgraph until the budget can be spent
            fresh = [t for t in ranked[:width] if t not in candidates]
            proposed = self.proposer.candidates(round_, fresh)
            candidates.update({tool: [p for p in probes if self._allowed(p)] for tool, probes in proposed.items()})
            chosen = self.frontier.choose(
                self.graph,
                candidates,
                boundary_per_tool=self.settings.boundary_per_tool,
                affordance_per_tool=self.settings.affordance_per_tool,
                budget=self.round_budget,
                rng=self.rng,
            )
            if len(chosen) >= self.round_budget:
                break
        # cheap single calls and short chains: every tool's semantic boundaries and compositions
        saturation = self.proposer.saturation(round_, {p.id for p in chosen})
        chosen = chosen + [p for p in saturation if self._allowed(p) and self._focused(p)]
        return self._stamped(self._within_time(self._within_cost(chosen)))

    stamp_replays = True
    """Whether replays carry their planning time (what a benchmark turns off to measure what it saves)."""

    def _stamped(self, probes: list[Probe]) -> list[Probe]:
        """Replays stamped with their planning time: one that runs in a later second needs no repeat to
        show a clock in its output (:attr:`Probe.planned_at`)."""
        if not self.stamp_replays:
            return probes
        now = time.time()
        return [p.model_copy(update={"planned_at": now}) if p.direction is Direction.REPLAY else p for p in probes]

    def _focused(self, probe: Probe) -> bool:
        return self.focus is None or probe.target in self.focus

    def _within_cost(self, chosen: list[Probe]) -> list[Probe]:
        """At most :data:`SLOW_PROBES_PER_ROUND` probes per slow tool, and none while no call of it has
        answered yet (a tool that only times out has shown what it will show): a slow tool never
        takes a round's time from the others."""
        assert self.graph is not None and self.proposer is not None
        slow = self.proposer.slow
        if not slow:
            return chosen
        spent: Counter[str] = Counter()
        kept = []
        for probe in chosen:
            tools = {step.tool for step in probe.steps} & slow
            if any(spent[t] >= SLOW_PROBES_PER_ROUND or not self.graph.tools[t].affordances for t in tools):
                continue
            spent.update(tools)
            kept.append(probe)
        return kept

    def _within_time(self, chosen: list[Probe]) -> list[Probe]:
        """No costly tool's calls over its share of the build's time (:func:`~toolatlas.pipeline.budget.within_time`);
        slow tools are left to :meth:`_within_cost` (their probes ask for the least work, which their pilots
        did not: a pilot's seconds say nothing of what those probes cost). A build planned by count
        (``plan_by = "count"``) keeps every probe."""
        assert self.graph is not None and self.proposer is not None
        if self.settings.plan_by == "count":
            return chosen
        kept = within_time(chosen, self.costs, time_share(len(self.graph.tools)), exempt=self.proposer.slow)
        if len(kept) < len(chosen):
            log.debug("probes_over_time_share", server=self.spec.name, planned=len(chosen), kept=len(kept))
        return kept

    def _allowed(self, probe: Probe) -> bool:
        """False for a probe of a direction the build's ablation switches turned off."""
        ablation = self.settings.ablation
        if probe.direction is Direction.BOUNDARY:
            return ablation.boundary_probes
        if probe.direction is Direction.AFFORDANCE:
            return ablation.affordance_probes
        return True

    def absorb(self, rollout: Rollout, verdict: Verdict) -> InductionDelta:
        """Merge one verified rollout (call in probe order)."""
        assert self.graph is not None and self.proposer is not None
        delta = Inducer(self.graph).induce(rollout, verdict)
        self.costs.observe(rollout)
        self.proposer.observe(rollout, verdict)
        self.frontier.observe(self.graph, rollout.probe, delta.reward)
        self.tally.add(rollout, verdict, delta)
        self._keep_chain(rollout.probe, verdict)
        return delta

    def _keep_chain(self, probe: Probe, verdict: Verdict) -> None:
        if not verdict.resolved or len(probe.steps) < 2 or len(self.chains) >= MAX_CHAINS:
            return
        if probe.direction not in (Direction.SEED, Direction.AFFORDANCE):
            return
        shape = [step.tool for step in probe.steps]
        if all([step.tool for step in kept.steps] != shape for kept in self.chains):
            self.chains.append(probe)

    def finish_round(self, round_: int, seconds: float, *, status: str = "ok", detail: str = "") -> RoundCoverage:
        """Refresh weights, distil strategies and trace edges; the round's coverage row."""
        assert self.graph is not None
        Inducer(self.graph).refresh_weights()
        if self.settings.ablation.strategy_layer:
            distil_strategies(self.graph, round_)
        link_similar_traces(self.graph)
        self.completed_round = round_
        return self.graph.coverage(round_).model_copy(
            update={
                "probes": self.tally.probes,
                "resolved": self.tally.resolved,
                "new_entries": self.tally.new,
                "reinforced_entries": self.tally.reinforced,
                "outcome_mix": dict(self.tally.outcomes),
                "seconds": round(seconds, 3),
                "status": status,
                "detail": detail,
            }
        )

    def take_dirty(self) -> dict[str, list]:
        assert self.graph is not None
        return self.graph.take_dirty()

    # -- checkpoints ----------------------------------------------------------------------------

    def checkpoint(self) -> ShardCheckpoint:
        """Everything needed to resume after :attr:`completed_round`."""
        assert self.graph is not None and self.proposer is not None
        graph = self.graph
        return ShardCheckpoint(
            version=CHECKPOINT_VERSION,
            server=self.spec.name,
            frontier=self.frontier_name,
            seed=self.settings.seed,
            completed_round=self.completed_round,
            rng=self.rng.getstate(),
            frontier_state=self.frontier.state(),
            pool=self.proposer.pool.dump(),
            discovery=self.proposer.discovery.model_dump(mode="json"),
            calls_by_probe=self.proposer.calls_by_probe,
            exploration=self.proposer.exploration_state(),
            transitions=dict(graph.transition_opportunities),
            covered=sorted(graph.covered),
            lexicon=dict(graph.lexicon.counts),
            node=graph.node,
            tools=list(graph.tools.values()),
            entries=list(graph.entries.values()),
            traces=list(graph.traces.values()),
            strategies=list(graph.strategies.values()),
            chains=list(self.chains),
            costs=self.costs.state(),
            focus=sorted(self.focus) if self.focus is not None else None,
        )

    def restore(self, tools: list[ToolSpec], state: ShardCheckpoint) -> None:
        """Continue from a checkpoint written after a completed round."""
        from toolatlas.offline.proposer import OfflineProposer

        graph = ServerGraph(self.spec.name, tools)
        graph.references = {tool.name: state_references(tool) for tool in tools}
        graph.tools.update({n.tool: n for n in state.tools if n.tool in graph.tools})
        graph.entries = {e.id: e for e in state.entries}
        graph.traces = {t.id: t for t in state.traces}
        graph.strategies = {s.id: s for s in state.strategies}
        graph.transition_opportunities.update(state.transitions)
        graph.covered = set(state.covered)
        graph.lexicon.update(state.lexicon)
        graph.node = state.node
        self.graph = graph
        self.focus = frozenset(state.focus) if state.focus is not None else None
        version, internal, gauss = state.rng
        self.rng.setstate((version, tuple(internal), gauss))
        self.frontier.restore(state.frontier_state)
        self.proposer = OfflineProposer(graph, self.workspace, self.spec, self.rng, pool=ValuePool.load(state.pool))
        self.proposer.prepare()
        self.proposer.apply_discovery(Discovery.model_validate(state.discovery), harvest=False)
        self.proposer.calls_by_probe = state.calls_by_probe
        self.proposer.restore_exploration_state(state.exploration)
        self.completed_round = state.completed_round
        self.chains = list(state.chains)
        self.costs = CallCosts.restore(state.costs)
