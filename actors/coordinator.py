"""The Ray coordinator: builds a catalogue with executor-host, shard and store actors.

It runs in the driver (``toolatlas build --engine ray``, locally or under ``ray job submit``)
and drives every server through bootstrap and its rounds **independently**: a slow server never
holds back a fast one. Two topologies, chosen per build:

- **split** (a server with several executors): probes run in batches on executor hosts spread
  over the nodes, which verify each one where its state is; the verified rollouts go to the
  server's shard actor by reference (the driver reads only a batch's small summary) and are
  absorbed in probe order. In-flight batches are bounded across the build (backpressure) and
  consumed in completion order.
- **colocated** (one executor per server, the default): the executor host that owns the server's
  sandbox also plans and absorbs its probes — a round is one call, nothing is shipped per probe
  (at 100 servers on 2 cores, a quarter less of ToolAtlas's own CPU per probe than split:
  ``benchmarks/build_cpu.py``).
  Rounds in flight are bounded the same way.

Either way the atlas equals the in-process build's for the same seed. Executor hosts are
restarted by Ray and their in-flight calls retried; a shard (or a colocated server) that is lost
is restored from its last checkpoint and the round re-run — nothing is lost, nothing counted twice.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import ray
import structlog
from ray.exceptions import ActorUnavailableError, GetTimeoutError, RayActorError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from actors.executor import ExecutorHost, ServerNotOpen
from actors.shard import ShardActor
from actors.store import StoreOwner
from toolatlas.build.catalogue import AtlasPaths, BuildReport, final_round, use_llm, write_consistency
from toolatlas.build.checkpoint import RoundResult, ServerStart
from toolatlas.build.persistence import BuildFiles, read_checkpoint
from toolatlas.build.server import INFRASTRUCTURE_FAILURES_TO_GIVE_UP
from toolatlas.config import Catalogue, ServerSpec
from toolatlas.errors import ConfigError, WorkerError
from toolatlas.graph.state import RoundCoverage
from toolatlas.llm.ledger import UsageLedger
from toolatlas.models import utcnow
from toolatlas.probing.models import BatchSummary, Probe

__all__ = ["TOPOLOGIES", "Progress", "RayBuild"]

log = structlog.get_logger(__name__)

ACTOR_RESTARTS = 3
"""Times Ray restarts a dead actor (and retries its in-flight calls) before giving up on it."""
RESTART_WAIT_ATTEMPTS = 12
"""Polls (with backoff, ~40 s in all) for a restarting actor to accept calls again."""
SMALL_CPU = 0.01
"""Actors are I/O bound (they wait on MCP servers): they reserve next to no CPU for scheduling."""
PREFETCH = 2
"""Batches queued per sandbox: the next is waiting while one runs (hides the round trip to the host)."""
BATCH = 16
"""Most probes per round trip to an executor host: amortises Ray's per-call cost."""
MIN_BATCH = 4
MAX_INFLIGHT = 256
"""Most batches in flight across a build, whatever its size (a bound on the results held at once)."""
TOPOLOGIES = ("auto", "colocated", "split")
"""``auto``: colocated when each server has one executor, split otherwise."""
START_TIMEOUT_S = 900.0
"""Starting or opening a server on an actor: installing its runtime on the node, its sandbox, discovery."""
ROUND_TIMEOUT_S = 3600.0
"""A round one actor runs whole: a colocated server's round, an LLM round."""
BATCH_TIMEOUT_S = 1800.0
"""A batch of probes on an executor host (each call has its own timeout inside)."""
SHARD_TIMEOUT_S = 600.0
"""Planning, absorbing or finishing a round on a shard actor."""
STORE_TIMEOUT_S = 600.0
"""A save, read, count or optimisation on the store owner."""
STOP_TIMEOUT_S = 120.0
"""Stopping a server's sandboxes, closing an actor."""
BATCHES_PER_SANDBOX = 4
"""A round is cut into about this many batches per sandbox (BATCH at most, MIN_BATCH at least), so a
small round still overlaps absorbing one batch with running the next."""


class Progress(NamedTuple):
    """A batch (split) or round (colocated) of probes, as the driver saw it come back."""

    sent: float
    back: float
    probes: int
    ended: tuple[float, ...]
    """When each of its probes ended, on the driver's ``perf_counter`` clock (from the hosts'
    wall clocks: a clock on another node may be skewed); empty if the host did not say."""


class RayBuild:
    """One build of a catalogue on a Ray cluster (or a local Ray instance)."""

    def __init__(
        self,
        config: Path,
        catalogue: Catalogue,
        *,
        frontier: str = "graph",
        hosts: int | None = None,
        inflight: int | None = None,
        shards: int | None = None,
        backend: str = "auto",
        topology: str = "auto",
    ) -> None:
        self.config = str(config.resolve())
        self.catalogue = catalogue
        self.frontier = frontier
        self.with_llm = use_llm(catalogue, backend)
        self.paths = AtlasPaths(catalogue)
        self.files = BuildFiles(self.paths)
        self.store_path = str(self.paths.root)
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        self.node_count = len(nodes)
        self.host_count = hosts or max(2, 2 * self.node_count)
        sandboxes = len(catalogue.enabled_servers) * catalogue.build.executors_per_server
        self.inflight = inflight or max(4 * self.host_count, min(MAX_INFLIGHT, PREFETCH * sandboxes))
        """Batches in flight across the build (backpressure): each is up to BATCH probes. Enough for
        every sandbox to have one running and one queued (up to MAX_INFLIGHT): with fewer, only a few
        servers probe at a time and the hosts wait on their round trips (-5% probes/s at 100 servers)."""
        single = catalogue.build.executors_per_server == 1
        if topology not in TOPOLOGIES:
            raise ConfigError(self.config, [("topology", f"must be one of {', '.join(TOPOLOGIES)}, not {topology!r}")])
        if topology == "colocated" and not single:
            raise ConfigError(self.config, [("build.executors_per_server", "the colocated topology runs one executor per server")])
        self.colocated = topology == "colocated" or (topology == "auto" and single)
        """Each server built whole by the host that owns its sandbox (see the module's docstring)."""
        self.topology = "colocated" if self.colocated else "split"
        self.shard_count = 0 if self.colocated and not self.with_llm else \
            shards or max(1, min(len(catalogue.enabled_servers), self.node_count))
        """One per node: a shard's planning and induction take a fraction of a core even for 100
        servers. Colocated servers need them only for the LLM method's rounds."""
        self.placements: dict[str, set[str]] = {}
        self.ready_at: dict[str, float] = {}
        """When each server was ready to probe (its sandboxes started, its shard prepared)."""
        self.progress: list[Progress] = []
        """Every batch (split) or round (colocated): the build's probe rate over any window
        (:meth:`probes_after`)."""
        self.redone: list[tuple[str, int]] = []
        """(server, round) run again after its shard, or the host holding it colocated, was lost."""

    def probes_after(self, start: float, *, exact: bool = True) -> float:
        """Probes done after ``start``: those that ended after it, by the end times the hosts
        report. A batch or round without them (or every one, unless ``exact``) that spans ``start``
        counts pro rata: its probes spread evenly over the time from sending it to its return. A
        colocated round lasts many seconds and may have started while servers were still starting
        (fewer probes done then): pro rata counts short."""
        done = 0.0
        for sent, back, probes, ended in self.progress:
            if back <= start:
                continue
            if exact and len(ended) == probes:
                done += sum(1 for t in ended if t > start)
            else:
                done += probes * (1.0 if sent >= start else (back - start) / max(back - sent, 1e-9))
        return done

    def _progressed(self, sent: float, probes: int, summary: BatchSummary) -> None:
        offset = time.time() - time.perf_counter()  # the hosts' wall clock → this process's perf_counter
        ended = tuple(t - offset for t in summary.ended_at)
        self.progress.append(Progress(sent, time.perf_counter(), probes, ended))

    # -- actors -----------------------------------------------------------------------------------

    def _start_actors(self) -> None:
        driver_node = ray.get_runtime_context().get_node_id()
        pinned = NodeAffinitySchedulingStrategy(node_id=driver_node, soft=False)
        root = self.paths.root.parent
        self.store = (
            ray.remote(StoreOwner)
            .options(num_cpus=SMALL_CPU, scheduling_strategy=pinned, max_restarts=ACTOR_RESTARTS, max_task_retries=ACTOR_RESTARTS)
            .remote(self.config)
        )
        self.hosts = [
            ray.remote(ExecutorHost)
            .options(
                num_cpus=SMALL_CPU,
                scheduling_strategy="SPREAD",
                max_restarts=ACTOR_RESTARTS,
                max_task_retries=ACTOR_RESTARTS,
                name=None,
            )
            .remote(self.config)
            for _ in range(self.host_count)
        ]
        try:
            self.host_nodes = ray.get([h.node.remote() for h in self.hosts], timeout=START_TIMEOUT_S)
        except GetTimeoutError as exc:
            raise WorkerError(f"executor hosts gave no answer in {START_TIMEOUT_S:.0f} s") from exc
        self.shards = [
            ray.remote(ShardActor)
            .options(num_cpus=SMALL_CPU, max_restarts=ACTOR_RESTARTS, max_task_retries=0)
            .remote(self.config, self.frontier)
            for _ in range(self.shard_count)
        ]
        log.info("ray_actors_started", hosts=self.host_count, nodes=self.node_count, shards=self.shard_count, root=str(root))

    def _stop_actors(self) -> None:
        try:
            ray.get([h.close.remote() for h in self.hosts] + [self.store.close.remote()], timeout=STOP_TIMEOUT_S)
        except GetTimeoutError:
            log.warning("actors_not_closed", timeout_s=STOP_TIMEOUT_S)
        for actor in [*self.hosts, *self.shards, self.store]:
            ray.kill(actor)

    # -- the build --------------------------------------------------------------------------------

    async def run(
        self,
        servers: Sequence[ServerSpec],
        *,
        rounds: int,
        resume: bool = False,
        on_round: Callable[[RoundCoverage], None] | None = None,
        focus: dict[str, frozenset[str]] | None = None,
    ) -> BuildReport:
        """Build ``servers``; with ``focus``, a server it names probes only those tools (a refresh)."""
        started, t0 = utcnow(), time.perf_counter()
        self.focus = focus or {}
        previous = self.files.begin([s.name for s in servers], resume=resume)
        self._start_actors()
        self.gate = asyncio.Semaphore(self.inflight)
        self.window = [float("inf"), 0.0]
        """From the first server ready to probe to the last round's end: the steady-state window."""
        self.ready_at, self.progress, self.redone = {}, [], []
        self.on_round = on_round
        self.calls = self.resets = 0
        statuses: dict[str, str] = {}
        try:
            results = await asyncio.gather(
                *(self._server(i, spec, rounds, resume, previous, statuses) for i, spec in enumerate(servers))
            )
            await answer(self.store.optimize.remote(), STORE_TIMEOUT_S, "the store's optimisation")
            entries = await answer(self.store.count.remote("entries"), STORE_TIMEOUT_S, "the store's count")
            write_consistency(self.paths, (await answer(self.store.records.remote(), STORE_TIMEOUT_S, "the store's records"))["entries"])
            usage = UsageLedger.combined(await asyncio.gather(
                *(answer(s.usage.remote(), SHARD_TIMEOUT_S, "a shard's LLM usage") for s in self.shards)
            )) if self.with_llm else None
        finally:
            self._stop_actors()
        coverage = [row for rows in results for row in rows]
        seconds = time.perf_counter() - t0
        probes = sum(c.probes for c in coverage)
        report = BuildReport(
            catalogue=self.catalogue.name,
            frontier=self.frontier,
            started_at=started.isoformat(),
            seconds=round(seconds, 3),
            servers=statuses,
            coverage=coverage,
            probes=probes,
            calls=self.calls,
            resets=self.resets,
            probes_per_s=round(probes / seconds, 2) if seconds else 0.0,
            entries=entries,
            engine="ray",
            probing_seconds=round(max(0.0, self.window[1] - self.window[0]), 3),
            nodes={server: sorted(nodes) for server, nodes in self.placements.items()},
            llm=usage,
        )
        self.paths.build_report.write_text(report.model_dump_json(indent=2))
        return report

    def _slots(self, index: int) -> list[int]:
        per_server = self.catalogue.build.executors_per_server
        return [(index * per_server + slot) % self.host_count for slot in range(per_server)]

    async def _server(
        self, index: int, spec: ServerSpec, rounds: int, resume: bool, previous: list[RoundCoverage], statuses: dict
    ) -> list[RoundCoverage]:
        name, seed = spec.name, self.catalogue.build.seed
        begun = self.files.start(name, seed, self.frontier) if resume else None
        if begun is not None and begun.completed_round >= final_round(rounds, self.with_llm):
            statuses[name] = "ok"
            return [r for r in previous if r.server == name]
        hosts = self._slots(index)
        shard = self.shards[index % self.shard_count] if self.shards else None
        try:
            if begun is None:  # the server begins in this build: its opening holds what earlier builds stored
                stored = await answer(self.store.server_records.remote(name), STORE_TIMEOUT_S, f"records of {name}")
                begun = await asyncio.to_thread(self.files.open, name, seed, self.frontier, stored)
            focus = self.focus.get(name)
            if self.colocated:
                return await self._colocated_rounds(name, hosts[0], shard, rounds, begun, statuses, focus)
            return await self._server_rounds(name, hosts, shard, rounds, begun, statuses, focus)
        except Exception as exc:  # one server's failure must not lose the others' work
            log.exception("server_build_crashed", server=name)
            return [self._failed(name, f"{type(exc).__name__}: {_cause(exc)}", statuses)]

    async def _server_rounds(
        self, name: str, hosts: list[int], shard, rounds: int, begun: ServerStart, statuses: dict,
        focus: frozenset[str] | None = None,
    ) -> list[RoundCoverage]:
        """A split server's rounds: batches on its hosts, absorbed by its shard actor (restored from
        the last checkpoint if it dies)."""
        try:
            starts = await asyncio.gather(*(answer(self.hosts[h].start.remote(name, slot), START_TIMEOUT_S, f"start of {name}")
                                            for slot, h in enumerate(hosts)))
        except (RayTaskError, RayActorError) as exc:
            return [self._failed(name, _cause(exc), statuses)]
        tools = starts[0]
        self.placements[name] = {self.host_nodes[h]["node_id"] for h in hosts}
        first = await self._call_surviving(shard.prepare, name, tools, begun.stored, begun.checkpoint, focus,
                                           event="shard_lost")
        self._ready(name)
        failures = 0

        async def run(round_: int, persisted: asyncio.Future[None] | None):
            nonlocal failures
            row, failures, persisting = await self._round(name, shard, hosts, round_, failures, persisted)
            return row, persisting

        async def restore(start: ServerStart) -> None:
            await self._call_restarting(shard.prepare, name, tools, start.stored, start.checkpoint, focus)

        rows = await self._rounds(name, first, rounds, run, restore, lost=_actor_lost, event="shard_lost")
        return await self._finish_server(name, hosts, shard, tools, rows, rounds, statuses)

    async def _colocated_rounds(
        self, name: str, host_index: int, shard, rounds: int, begun: ServerStart, statuses: dict,
        focus: frozenset[str] | None = None,
    ) -> list[RoundCoverage]:
        """A colocated server's rounds, one call each to the host that holds it (reopened from its
        last checkpoint if the host lost it), persisted like split rounds."""
        host = self.hosts[host_index]
        try:
            tools, first = await answer(host.open.remote(name, self.frontier, begun.stored, begun.checkpoint, focus),
                                        START_TIMEOUT_S, f"opening of {name}")
        except (RayTaskError, RayActorError) as exc:
            return [self._failed(name, _cause(exc), statuses)]
        self.placements[name] = {self.host_nodes[host_index]["node_id"]}
        self._ready(name)

        async def run(round_: int, persisted: asyncio.Future[None] | None):
            async with self.gate:
                sent = time.perf_counter()
                result: RoundResult = await answer(host.round.remote(name, round_), ROUND_TIMEOUT_S, f"round {round_} of {name}")
            assert result.summary is not None, "a colocated round reports its calls"
            self.calls += result.summary.calls
            self.resets += result.summary.resets
            self._progressed(sent, result.coverage.probes, result.summary)
            return result.coverage, asyncio.ensure_future(self._persist(name, result, after=persisted))

        async def reopen(start: ServerStart) -> None:
            await self._call_restarting(host.open, name, self.frontier, start.stored, start.checkpoint, focus)

        def lost(exc: BaseException) -> bool:  # the host died, or is a restarted one without the server
            return _actor_lost(exc) or _caused_by(exc, ServerNotOpen)

        rows = await self._rounds(name, first, rounds, run, reopen, lost=lost, event="colocated_server_lost")
        if self.with_llm and shard is not None and all(r.status == "ok" for r in rows):
            # the LLM method's rounds run on a shard actor: it continues from the last checkpoint
            start = await self._last_start(name, None)
            await answer(shard.prepare.remote(name, tools, start.stored, start.checkpoint), START_TIMEOUT_S,
                         f"the LLM rounds' shard of {name}")
        return await self._finish_server(name, [host_index], shard, tools, rows, rounds, statuses)

    async def _rounds(
        self,
        name: str,
        first: int,
        rounds: int,
        run: Callable[[int, asyncio.Future[None] | None], Awaitable[tuple[RoundCoverage, asyncio.Future[None]]]],
        restore: Callable[[ServerStart], Awaitable[None]],
        *,
        lost: Callable[[BaseException], bool],
        event: str,
    ) -> list[RoundCoverage]:
        """Run a server's rounds ``first..rounds`` in order, until one is not ``ok``.

        ``run(round, persisting)`` runs one and returns its row and its persisting: the round's
        records, coverage row and checkpoint being written in round order, off the critical path
        (the next round starts as soon as this one is done). When ``lost(exc)`` says the actor
        holding the server's state died, ``restore`` is given where the last durable write left it and the
        round is run again. Every persisting is awaited before returning (its error raised).
        """
        rows: list[RoundCoverage] = []
        persisted: asyncio.Future[None] | None = None
        try:
            for round_ in range(first, rounds + 1):
                while True:
                    try:
                        row, persisted = await run(round_, persisted)
                        break
                    except (RayTaskError, RayActorError, ActorUnavailableError) as exc:
                        if not lost(exc):
                            raise
                        log.warning(event, server=name, round=round_)
                        self.redone.append((name, round_))
                        await restore(await self._last_start(name, persisted))
                rows.append(row)
                self.window[1] = max(self.window[1], time.perf_counter())
                if row.status != "ok":
                    break
        finally:
            if persisted is not None:
                await asyncio.gather(persisted, return_exceptions=True)
        if persisted is not None:
            await persisted  # raises what persisting raised
        return rows

    def _ready(self, name: str) -> None:
        """Record that a server is ready to probe (its sandboxes started, its shard prepared)."""
        self.ready_at[name] = time.perf_counter()
        self.window[0] = min(self.window[0], self.ready_at[name])

    async def _finish_server(
        self, name: str, hosts: list[int], shard, tools, rows: list[RoundCoverage], rounds: int, statuses: dict
    ) -> list[RoundCoverage]:
        """Stop the server's sandboxes, run its LLM rounds (with an LLM), record its status."""
        await asyncio.gather(*(answer(self.hosts[h].stop.remote(name), STOP_TIMEOUT_S, f"stop of {name}")
                               for h in set(hosts)), return_exceptions=True)
        if self.with_llm and shard is not None and all(r.status == "ok" for r in rows):
            rows.extend(await self._llm_rounds(name, shard, rounds))
        bad = [r for r in rows if r.status != "ok"]
        statuses[name] = "ok" if not bad else f"failed: {bad[-1].detail}"
        return rows

    async def _last_start(self, name: str, persisted: asyncio.Future[None] | None) -> ServerStart:
        """Where the server's build continues from (its last checkpoint, or its opening), once the
        round being persisted (if any) is written: a round is redone from the one before it."""
        if persisted is not None:
            await persisted
        start = await asyncio.to_thread(self.files.start, name, self.catalogue.build.seed, self.frontier)
        assert start is not None, "a server's opening is written before its first round"
        return start

    def _failed(self, name: str, detail: str, statuses: dict) -> RoundCoverage:
        """Record a server that could not be built: a failed coverage row and its status."""
        row = RoundCoverage(server=name, round=0, status="failed", detail=detail[:500])
        self._append(row)
        self._report(row)
        statuses[name] = f"failed: {row.detail}"
        return row

    async def _round(
        self, name: str, shard, hosts: list[int], round_: int, failures: int, persisted: asyncio.Future[None] | None
    ) -> tuple[RoundCoverage, int, asyncio.Future[None]]:
        """Run a round: its coverage row, the infrastructure failures in a row, and its persisting."""
        t0 = time.perf_counter()
        probes: list[Probe] = await answer(shard.plan.remote(name, round_), SHARD_TIMEOUT_S, f"plan of {name}")
        queue = deque(enumerate(probes))
        batch_size = min(BATCH, max(MIN_BATCH, math.ceil(len(probes) / (BATCHES_PER_SANDBOX * len(hosts)))))
        executed: dict[int, tuple[int, ray.ObjectRef]] = {}
        """First probe index of a batch → (its size, its verified rollouts, unread by the driver)."""
        arrived = asyncio.Event()
        state = {"failures": failures}

        def more() -> bool:
            return bool(queue) and state["failures"] < INFRASTRUCTURE_FAILURES_TO_GIVE_UP

        async def execute(slot: int, host: int) -> None:
            # Probes go to the sandbox in batches (one round trip for several), with the next
            # batch already queued while one runs (PREFETCH), so the sandbox never idles on the
            # network. The driver reads each batch's summary only.
            window: deque[tuple[int, int, ray.ObjectRef, ray.ObjectRef, float]] = deque()
            try:
                while window or more():
                    while len(window) < PREFETCH and more():
                        if window and self.gate.locked():
                            break  # never wait for a second permit while holding one: consume first (no deadlock)
                        batch = [queue.popleft() for _ in range(min(batch_size, len(queue)))]
                        await self.gate.acquire()
                        summary, verified = self.hosts[host].run_many.options(num_returns=2).remote(
                            name, slot, [probe for _, probe in batch]
                        )
                        window.append((batch[0][0], len(batch), summary, verified, time.perf_counter()))
                    first, size, summary, verified, sent = window[0]
                    done: BatchSummary = await answer(summary, BATCH_TIMEOUT_S, f"a batch of {name}")
                    window.popleft()
                    self.gate.release()
                    for failed in done.infrastructure_errors:
                        state["failures"] = state["failures"] + 1 if failed else 0
                    self.calls += done.calls
                    self.resets += done.resets
                    self._progressed(sent, size, done)
                    executed[first] = (size, verified)
                    arrived.set()
            finally:
                for _ in window:  # batches abandoned by an error: their permits go back
                    self.gate.release()

        executing = asyncio.ensure_future(asyncio.gather(*(execute(slot, host) for slot, host in enumerate(hosts))))
        try:
            index = 0
            while True:  # absorb in probe order: every batch ready from `index` on, in one call
                ready = []
                while index in executed:
                    size, verified = executed.pop(index)
                    ready.append(verified)
                    index += size
                if ready:
                    await answer(shard.absorb_many.remote(name, *ready), SHARD_TIMEOUT_S, f"absorbing of {name}")
                    continue
                if executing.done():
                    break
                arrived.clear()
                waiter = asyncio.ensure_future(arrived.wait())
                await asyncio.wait({waiter, executing}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
            await executing
        finally:
            executing.cancel()
        given_up = state["failures"] >= INFRASTRUCTURE_FAILURES_TO_GIVE_UP
        result: RoundResult = await answer(shard.finish_round.remote(
            name, round_, time.perf_counter() - t0, "failed" if given_up else "ok",
            "the server could not be (re)started" if given_up else "",
        ), SHARD_TIMEOUT_S, f"round {round_} of {name}")
        persisting = asyncio.ensure_future(self._persist(name, result, after=persisted))
        return result.coverage, state["failures"], persisting

    async def _persist(self, name: str, result: RoundResult, *, after: asyncio.Future[None] | None) -> None:
        """A finished round's records to the store, then its coverage row and its checkpoint (a build
        killed at any point resumes from the last round whose records are all stored)."""
        if after is not None:
            await after
        await answer(self.store.save.remote(result.records.layers()), STORE_TIMEOUT_S, f"records of {name}")
        self._append(result.coverage)
        # a graph's checkpoint is hundreds of kB of JSON: written off the event loop, so the other
        # servers' batches keep flowing meanwhile
        await asyncio.to_thread(self.files.write_checkpoint, name, result.checkpoint)
        self._report(result.coverage)

    async def _llm_rounds(self, name: str, shard, rounds: int) -> list[RoundCoverage]:
        """The LLM method's rounds, each run by the server's shard actor, persisted like offline rounds."""
        from toolatlas.method import llm_rounds

        planned = llm_rounds(rounds)
        completed = (read_checkpoint(self.paths.checkpoint(name)) or {}).get("completed_round", -1)
        rows: list[RoundCoverage] = []
        try:
            for round_ in planned:
                if round_ <= completed:
                    continue
                result: RoundResult = await answer(shard.method_round.remote(name, round_, round_ == planned[0]),
                                                   ROUND_TIMEOUT_S, f"LLM round {round_} of {name}")
                await asyncio.to_thread(self.files.save_rollouts, name, round_, result.trajectories)
                await self._persist(name, result, after=None)
                rows.append(result.coverage)
        finally:
            await answer(shard.close_method.remote(name), STOP_TIMEOUT_S, f"the LLM stage of {name}")
        return rows

    async def _call_surviving(self, method, *args, event: str):
        """Call an actor that may die during the call (a shard another server's loss restarts): the
        call holds no state yet, so it is made again on the restarted actor (bounded)."""
        for attempt in range(RESTART_WAIT_ATTEMPTS):
            try:
                return await answer(method.remote(*args), START_TIMEOUT_S, f"preparing {args[0]}")
            except (RayActorError, ActorUnavailableError):
                log.warning(event, server=args[0], round="prepare")
                await asyncio.sleep(min(0.2 * 2**attempt, 5.0))
        return await answer(method.remote(*args), START_TIMEOUT_S, f"preparing {args[0]}")

    async def _call_restarting(self, method, *args):
        """Call an actor that Ray is restarting: wait for it to come back (bounded)."""
        for attempt in range(RESTART_WAIT_ATTEMPTS):
            try:
                return await answer(method.remote(*args), START_TIMEOUT_S, f"reopening {args[0]}")
            except ActorUnavailableError:
                await asyncio.sleep(min(0.2 * 2**attempt, 5.0))
        return await answer(method.remote(*args), START_TIMEOUT_S, f"reopening {args[0]}")

    def _append(self, row: RoundCoverage) -> None:
        self.files.append_coverage(row)

    def _report(self, row: RoundCoverage) -> None:
        if self.on_round is not None:
            self.on_round(row)


async def answer(call: ray.ObjectRef, timeout: float, what: str):
    """An actor's answer to one call, within its named timeout (:class:`WorkerError` if none came)."""
    try:
        return await asyncio.wait_for(call, timeout)
    except TimeoutError as exc:
        raise WorkerError(f"{what}: no answer in {timeout:.0f} s") from exc


def _actor_lost(exc: BaseException) -> bool:
    """The actor died (Ray restarts it, or gave up on it): not an error its method raised."""
    return isinstance(exc, (RayActorError, ActorUnavailableError))


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    return isinstance(exc, kind) or isinstance(getattr(exc, "cause", None), kind)


def _cause(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None)
    return str(cause) if cause is not None else str(exc)
