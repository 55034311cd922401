"""The Ray build: a catalogue built by the library's driver over executor-host, shard and store actors.

It runs in the driver (``toolatlas build --engine ray``, locally or under ``ray job submit``). The
driver (:class:`~toolatlas.pipeline.driver.CatalogueBuild`) owns resume, re-running a lost round,
persisting in round order, failed rows and the report; this module spawns the actors and hands the
driver a placement for the build's topology — :mod:`~toolatlas.actors.colocated` (the default),
:mod:`~toolatlas.actors.split` or :mod:`~toolatlas.actors.pools`, described in ``docs/cluster.md`` —
and a record writer over the store's owner. Every call waits within a named timeout
(:mod:`toolatlas.actors.calls`); the atlas equals the in-process build's for the same seed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import ray
import structlog
from ray.exceptions import GetTimeoutError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from toolatlas.actors.calls import SHARD_TIMEOUT_S, START_TIMEOUT_S, STOP_TIMEOUT_S, STORE_TIMEOUT_S, answer
from toolatlas.actors.colocated import ColocatedPlacement
from toolatlas.actors.executor import ExecutorHost
from toolatlas.actors.pools import PoolsPlacement
from toolatlas.actors.shard import ShardActor
from toolatlas.actors.split import SplitPlacement
from toolatlas.actors.store import StoreOwner, StoreOwnerWriter
from toolatlas.actors.verifiers import VerifierHost
from toolatlas.config import Catalogue, ServerSpec
from toolatlas.errors import WorkerError
from toolatlas.graph.state import RoundCoverage
from toolatlas.llm.ledger import UsageLedger
from toolatlas.models import utcnow
from toolatlas.pipeline.batches import batches_in_flight
from toolatlas.pipeline.catalogue import use_llm, write_consistency
from toolatlas.pipeline.driver import BuildReport, CatalogueBuild, RecordWriter, choose_topology
from toolatlas.pipeline.persistence import BuildFiles
from toolatlas.pipeline.rate import ProbeLog
from toolatlas.store.paths import AtlasPaths

__all__ = ["RayBuild"]

log = structlog.get_logger(__name__)

ACTOR_RESTARTS = 3
"""Times Ray restarts a dead actor (and retries its in-flight calls) before giving up on it."""
SMALL_CPU = 0.01
"""Actors are I/O bound (they wait on MCP servers): they reserve next to no CPU for scheduling."""


class RayBuild:
    """One build of a catalogue on a Ray cluster (or a local Ray instance)."""

    def __init__(
        self, config: Path, catalogue: Catalogue, *, frontier: str = "graph", hosts: int | None = None,
        inflight: int | None = None, shards: int | None = None, backend: str = "auto", topology: str = "auto",
        verifiers: int | None = None,
    ) -> None:
        self.config = str(config.resolve())
        self.catalogue = catalogue
        self.frontier = frontier
        self.with_llm = use_llm(catalogue, backend)
        self.paths = AtlasPaths(catalogue)
        self.node_count = len([n for n in ray.nodes() if n.get("Alive")])
        self.host_count = hosts or max(2, 2 * self.node_count)
        sandboxes = len(catalogue.enabled_servers) * catalogue.build.executors_per_server
        self.inflight = inflight or batches_in_flight(self.host_count, sandboxes)
        self.topology = choose_topology(catalogue, topology, config=self.config)
        self.colocated = self.topology == "colocated"
        self.shard_count = 0 if self.colocated and not self.with_llm else \
            shards or max(1, min(len(catalogue.enabled_servers), self.node_count))  # one per node (colocated: LLM rounds only)
        self.verifier_count = (verifiers or self.host_count) if self.topology == "pools" else 0  # pools only
        self.placements: dict[str, set[str]] = {}  # server -> the Ray nodes its executors ran on
        self.ready_at: dict[str, float] = {}  # server -> when its sandboxes (and shard) were ready to probe
        self.probe_log = ProbeLog()  # every batch (split, pools) or round (colocated): the probe rate
        self.redone: list[tuple[str, int]] = []  # (server, round) run again after its shard or host was lost
        self.index: dict[str, int] = {}

    # -- what the placements share ------------------------------------------------------------------

    def slots(self, spec: ServerSpec) -> list[int]:
        """The executor hosts of a server's sandboxes."""
        per_server = self.catalogue.build.executors_per_server
        return [(self.index[spec.name] * per_server + slot) % self.host_count for slot in range(per_server)]

    def shard_of(self, server: str):
        return self.shards[self.index[server] % self.shard_count]

    def ready(self, server: str, hosts: list[int]) -> None:
        """Record that a server is ready to probe, and on which nodes."""
        self.ready_at[server] = time.perf_counter()
        self.placements[server] = {self.host_nodes[h]["node_id"] for h in hosts}

    # -- actors -----------------------------------------------------------------------------------

    def _start_actors(self) -> None:
        pinned = NodeAffinitySchedulingStrategy(node_id=ray.get_runtime_context().get_node_id(), soft=False)
        restarts = {"max_restarts": ACTOR_RESTARTS}
        self.store = ray.remote(StoreOwner).options(num_cpus=SMALL_CPU, scheduling_strategy=pinned, **restarts,
                                                    max_task_retries=ACTOR_RESTARTS).remote(self.config)
        self.hosts = [ray.remote(ExecutorHost).options(num_cpus=SMALL_CPU, scheduling_strategy="SPREAD", **restarts,
                                                       max_task_retries=ACTOR_RESTARTS).remote(self.config)
                      for _ in range(self.host_count)]
        try:
            self.host_nodes = ray.get([h.node.remote() for h in self.hosts], timeout=START_TIMEOUT_S)
        except GetTimeoutError as exc:
            raise WorkerError(f"executor hosts gave no answer in {START_TIMEOUT_S:.0f} s") from exc
        self.shards = [ray.remote(ShardActor).options(num_cpus=SMALL_CPU, **restarts, max_task_retries=0)
                       .remote(self.config, self.frontier) for _ in range(self.shard_count)]
        self.verifiers = [ray.remote(VerifierHost).options(num_cpus=SMALL_CPU, scheduling_strategy="SPREAD", **restarts,
                                                           max_task_retries=ACTOR_RESTARTS).remote(self.config)
                          for _ in range(self.verifier_count)]
        log.info("ray_actors_started", hosts=self.host_count, nodes=self.node_count, shards=self.shard_count,
                 verifiers=self.verifier_count)

    def _stop_actors(self) -> None:
        try:
            ray.get([h.close.remote() for h in self.hosts] + [self.store.close.remote()], timeout=STOP_TIMEOUT_S)
        except GetTimeoutError:
            log.warning("actors_not_closed", timeout_s=STOP_TIMEOUT_S)
        for actor in [*self.hosts, *self.verifiers, *self.shards, self.store]:
            ray.kill(actor)

    # -- the build --------------------------------------------------------------------------------

    def persistence(self) -> tuple[BuildFiles, RecordWriter]:
        """Where the build's writes go: its files in this process, its records to the store's owner."""
        return BuildFiles(self.paths), StoreOwnerWriter(self.store)

    async def run(
        self, servers: Sequence[ServerSpec], *, rounds: int, resume: bool = False,
        on_round: Callable[[RoundCoverage], None] | None = None, focus: dict[str, frozenset[str]] | None = None,
    ) -> BuildReport:
        """Build ``servers``; with ``focus``, a server it names probes only those tools (a refresh)."""
        started, t0 = utcnow(), time.perf_counter()
        self.index = {spec.name: i for i, spec in enumerate(servers)}
        self.ready_at, self.probe_log, self.placements = {}, ProbeLog(), {}
        self.paths.root.mkdir(parents=True, exist_ok=True)
        self._start_actors()
        self.gate = asyncio.Semaphore(self.inflight)
        placement = self.placement = {"colocated": ColocatedPlacement, "split": SplitPlacement,
                                      "pools": PoolsPlacement}[self.topology](self, rounds)
        files, writer = self.persistence()
        driver = CatalogueBuild(self.catalogue, placement, files, writer,
                                frontier=self.frontier, rounds=rounds, with_llm=self.with_llm, on_round=on_round,
                                focus=focus)
        self.redone = driver.redone
        try:
            coverage = await driver.run(servers, resume=resume)
            entries = await answer(self.store.count.remote("entries"), STORE_TIMEOUT_S, "the store's count")
            usage = UsageLedger.combined(await asyncio.gather(
                *(answer(s.usage.remote(), SHARD_TIMEOUT_S, "a shard's LLM usage") for s in self.shards)
            )) if self.with_llm else None
        finally:
            self._stop_actors()
        write_consistency(self.paths, driver.entries)
        return driver.report(started, time.perf_counter() - t0, coverage, entries=entries, engine="ray", llm=usage,
                             nodes={server: sorted(nodes) for server, nodes in self.placements.items()})
