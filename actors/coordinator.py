"""The Ray coordinator: builds a catalogue with executor, verifier, shard and store actors.

It runs in the driver (``toolatlas build --engine ray``, locally or under ``ray job submit``)
and drives every server through bootstrap and its rounds **independently**: a slow server never
holds back a fast one. Probes run on executor hosts spread over the nodes, verification runs on
the executor's node (where the frozen state is) while executors go on, and verdicts are absorbed
by the server's shard in probe order — so the atlas equals the in-process build's for the same
seed. In-flight probes are bounded across the build (backpressure) and consumed in completion
order. Executor and verifier actors are restarted by Ray and their in-flight calls retried; a
shard that dies is restored from its last checkpoint and the round re-run — nothing is lost,
nothing counted twice.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

import ray
import structlog
from ray.exceptions import ActorUnavailableError, RayActorError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from actors.executor import ExecutorHost
from actors.shard import ShardActor
from actors.store import StoreOwner
from actors.verifier import VerifierActor
from toolatlas.build.catalogue import (
    AtlasPaths,
    BuildReport,
    check_resumable,
    final_round,
    read_checkpoint,
    read_coverage,
    save_rollouts,
    use_llm,
    write_checkpoint,
)
from toolatlas.build.server import INFRASTRUCTURE_FAILURES_TO_GIVE_UP
from toolatlas.config import Catalogue, ServerSpec
from toolatlas.graph.state import RoundCoverage
from toolatlas.llm.ledger import UsageLedger
from toolatlas.models import utcnow
from toolatlas.probing.models import Probe, Rollout, Verdict

__all__ = ["RayBuild"]

log = structlog.get_logger(__name__)

ACTOR_RESTARTS = 3
"""Times Ray restarts a dead actor (and retries its in-flight calls) before giving up on it."""
RESTART_WAIT_ATTEMPTS = 12
"""Polls (with backoff, ~40 s in all) for a restarting actor to accept calls again."""
SMALL_CPU = 0.01
PREFETCH = 2
"""Batches queued per sandbox: the next is waiting while one runs (hides the round trip to the host)."""
BATCH = 8
"""Probes per round trip to an executor host (and to a verifier): amortises Ray's per-call cost."""
"""Actors are I/O bound (they wait on MCP servers): they reserve next to no CPU for scheduling."""


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
    ) -> None:
        self.config = str(config.resolve())
        self.catalogue = catalogue
        self.frontier = frontier
        self.with_llm = use_llm(catalogue, backend)
        self.paths = AtlasPaths(catalogue)
        self.store_path = str(self.paths.root)
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        self.node_count = len(nodes)
        self.host_count = hosts or max(2, 2 * self.node_count)
        self.inflight = inflight or 4 * self.host_count
        """Batches in flight across the build (backpressure): each is up to BATCH probes."""
        self.shard_count = shards or max(1, min(len(catalogue.enabled_servers), 2 * self.node_count))
        self.placements: dict[str, set[str]] = {}

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
        self.host_nodes = ray.get([h.node.remote() for h in self.hosts])
        self.verifiers: dict[str, ray.actor.ActorHandle] = {}
        for node in sorted({n["node_id"] for n in self.host_nodes}):
            self.verifiers[node] = (
                ray.remote(VerifierActor)
                .options(
                    num_cpus=SMALL_CPU,
                    scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node, soft=False),
                    max_restarts=ACTOR_RESTARTS,
                    max_task_retries=ACTOR_RESTARTS,
                )
                .remote(self.config)
            )
        self.shards = [
            ray.remote(ShardActor)
            .options(num_cpus=SMALL_CPU, max_restarts=ACTOR_RESTARTS, max_task_retries=0)
            .remote(self.config, self.frontier)
            for _ in range(self.shard_count)
        ]
        log.info("ray_actors_started", hosts=self.host_count, nodes=self.node_count, shards=self.shard_count, root=str(root))

    def _stop_actors(self) -> None:
        ray.get([h.close.remote() for h in self.hosts] + [self.store.close.remote()])
        for actor in [*self.hosts, *self.verifiers.values(), *self.shards, self.store]:
            ray.kill(actor)

    # -- the build --------------------------------------------------------------------------------

    async def run(
        self,
        servers: Sequence[ServerSpec],
        *,
        rounds: int,
        resume: bool = False,
        on_round: Callable[[RoundCoverage], None] | None = None,
    ) -> BuildReport:
        started, t0 = utcnow(), time.perf_counter()
        previous = read_coverage(self.paths.coverage)
        self.paths.root.mkdir(parents=True, exist_ok=True)
        if not resume:
            names = {s.name for s in servers}
            self.paths.coverage.write_text("".join(r.model_dump_json() + "\n" for r in previous if r.server not in names))
        self._start_actors()
        self.gate = asyncio.Semaphore(self.inflight)
        self.window = [float("inf"), 0.0]
        """From the first server ready to probe to the last round's end: the steady-state window."""
        self.on_round = on_round
        self.calls = self.resets = 0
        statuses: dict[str, str] = {}
        try:
            results = await asyncio.gather(
                *(self._server(i, spec, rounds, resume, previous, statuses) for i, spec in enumerate(servers))
            )
            await self.store.optimize.remote()
            entries = await self.store.count.remote("entries")
            usage = UsageLedger.combined(await asyncio.gather(*(s.usage.remote() for s in self.shards))) \
                if self.with_llm else None
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
        name = spec.name
        checkpoint = read_checkpoint(self.paths.checkpoint(name)) if resume else None
        if checkpoint is not None:
            check_resumable(checkpoint, self.catalogue.build.seed, self.frontier)
            if checkpoint["completed_round"] >= final_round(rounds, self.with_llm):
                statuses[name] = "ok"
                return [r for r in previous if r.server == name]
        hosts = self._slots(index)
        shard = self.shards[index % self.shard_count]
        try:
            return await self._server_rounds(name, hosts, shard, rounds, checkpoint, statuses)
        except Exception as exc:  # one server's failure must not lose the others' work
            log.exception("server_build_crashed", server=name)
            row = RoundCoverage(server=name, round=0, status="failed", detail=f"{type(exc).__name__}: {_cause(exc)}"[:500])
            self._append(row)
            self._report(row)
            statuses[name] = f"failed: {row.detail}"
            return [row]

    async def _server_rounds(
        self, name: str, hosts: list[int], shard, rounds: int, checkpoint: dict | None, statuses: dict
    ) -> list[RoundCoverage]:
        rows: list[RoundCoverage] = []
        try:
            starts = await asyncio.gather(*(self.hosts[h].start.remote(name, slot) for slot, h in enumerate(hosts)))
        except (RayTaskError, RayActorError) as exc:
            row = RoundCoverage(server=name, round=0, status="failed", detail=_cause(exc)[:500])
            self._append(row)
            self._report(row)
            statuses[name] = f"failed: {row.detail}"
            return [row]
        tools = starts[0]
        self.placements[name] = {self.host_nodes[h]["node_id"] for h in hosts}
        stored = None if checkpoint is not None else await self.store.server_records.remote(name)
        first = await shard.prepare.remote(name, tools, stored, checkpoint)
        self.window[0] = min(self.window[0], time.perf_counter())
        failures = 0
        for round_ in range(first, rounds + 1):
            while True:
                try:
                    row, failures = await self._round(name, shard, hosts, tools, round_, failures)
                    break
                except (RayActorError, ActorUnavailableError):  # the shard died: restore its checkpoint, redo the round
                    log.warning("shard_lost", server=name, round=round_)
                    state = read_checkpoint(self.paths.checkpoint(name))
                    await self._call_restarting(shard.prepare, name, tools, None if state else stored, state)
            rows.append(row)
            self.window[1] = max(self.window[1], time.perf_counter())
            if row.status != "ok":
                break
        await asyncio.gather(*(self.hosts[h].stop.remote(name) for h in set(hosts)), return_exceptions=True)
        if self.with_llm and all(r.status == "ok" for r in rows):
            rows.extend(await self._llm_rounds(name, shard, rounds))
        bad = [r for r in rows if r.status != "ok"]
        statuses[name] = "ok" if not bad else f"failed: {bad[-1].detail}"
        return rows

    async def _round(
        self, name: str, shard, hosts: list[int], tools: list, round_: int, failures: int
    ) -> tuple[RoundCoverage, int]:
        t0 = time.perf_counter()
        probes: list[Probe] = await shard.plan.remote(name, round_)
        queue: asyncio.Queue[tuple[int, Probe]] = asyncio.Queue()
        for item in enumerate(probes):
            queue.put_nowait(item)
        verdicts: dict[int, asyncio.Future[tuple[Rollout, Verdict, str]]] = {
            i: asyncio.get_running_loop().create_future() for i in range(len(probes))
        }
        state = {"failures": failures, "dispatched": 0}

        async def verify(indices: list[int], rollouts: list[Rollout], node: str) -> None:
            try:
                checked = await self.verifiers[node].verify_many.remote(rollouts, tools)
            except Exception as exc:  # noqa: BLE001 - handed to the absorbing loop
                for index in indices:
                    verdicts[index].set_exception(exc)
                return
            for index, rollout, verdict in zip(indices, rollouts, checked, strict=True):
                verdicts[index].set_result((rollout, verdict, node))

        async def execute(slot: int, host: int) -> None:
            # Probes go to the sandbox in batches (one round trip for several), with the next
            # batch already queued while one runs (PREFETCH), so the sandbox never idles on the
            # network; verification is pipelined: never awaited here.
            node = self.host_nodes[host]["node_id"]
            pending: list[asyncio.Task[None]] = []
            window: deque[tuple[list[int], asyncio.Future]] = deque()

            def more() -> bool:
                return not queue.empty() and state["failures"] < INFRASTRUCTURE_FAILURES_TO_GIVE_UP

            while window or more():
                while len(window) < PREFETCH and more():
                    if window and self.gate.locked():
                        break  # never wait for a second permit while holding one: consume first (no deadlock)
                    batch = [queue.get_nowait() for _ in range(min(BATCH, queue.qsize()))]
                    state["dispatched"] = max(state["dispatched"], batch[-1][0] + 1)
                    await self.gate.acquire()
                    call = self.hosts[host].run_many.remote(name, slot, [probe for _, probe in batch])
                    window.append(([index for index, _ in batch], asyncio.ensure_future(call)))
                indices, future = window.popleft()
                try:
                    rollouts: list[Rollout] = await future
                finally:
                    self.gate.release()
                for rollout in rollouts:
                    state["failures"] = state["failures"] + 1 if rollout.infrastructure_error else 0
                pending.append(asyncio.create_task(verify(indices, rollouts, node)))
            await asyncio.gather(*pending)

        executing = asyncio.gather(*(execute(slot, host) for slot, host in enumerate(hosts)))
        discards: dict[str, list] = {}
        index = 0
        while True:  # absorb in probe order: every verdict ready from `index` on, in one call
            if index >= len(probes) or (executing.done() and index >= state["dispatched"]):
                break
            waiter = verdicts[index]
            done, _ = await asyncio.wait({waiter, executing}, return_when=asyncio.FIRST_COMPLETED)
            if waiter not in done:
                continue
            batch = []
            while index < len(probes) and verdicts[index].done():
                rollout, verdict, node = verdicts[index].result()
                batch.append((rollout, verdict))
                if rollout.frozen is not None:
                    discards.setdefault(node, []).append(rollout.frozen)
                    self.resets += 1
                self.calls += len(rollout.steps)
                index += 1
            await shard.absorb_many.remote(name, batch)
        await executing
        await asyncio.gather(
            *(self.verifiers[node].discard_many.remote(name, frozen) for node, frozen in discards.items()),
            return_exceptions=True,
        )
        given_up = state["failures"] >= INFRASTRUCTURE_FAILURES_TO_GIVE_UP
        coverage, dirty, checkpoint = await shard.finish_round.remote(
            name, round_, time.perf_counter() - t0, "failed" if given_up else "ok",
            "the server could not be (re)started" if given_up else "",
        )
        await self.store.save.remote(dirty)
        self._append(coverage)
        # a graph's checkpoint is hundreds of kB of JSON: written off the event loop, so the other
        # servers' batches keep flowing meanwhile
        await asyncio.to_thread(write_checkpoint, self.paths.checkpoint(name), checkpoint)
        self._report(coverage)
        return coverage, state["failures"]

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
                coverage, dirty, checkpoint, trajectories = await shard.method_round.remote(
                    name, round_, round_ == planned[0]
                )
                await asyncio.to_thread(save_rollouts, self.paths.rollouts(name), round_, trajectories)
                await self.store.save.remote(dirty)
                self._append(coverage)
                await asyncio.to_thread(write_checkpoint, self.paths.checkpoint(name), checkpoint)
                self._report(coverage)
                rows.append(coverage)
        finally:
            await shard.close_method.remote(name)
        return rows

    async def _call_restarting(self, method, *args):
        """Call an actor that Ray is restarting: wait for it to come back (bounded)."""
        for attempt in range(RESTART_WAIT_ATTEMPTS):
            try:
                return await method.remote(*args)
            except ActorUnavailableError:
                await asyncio.sleep(min(0.2 * 2**attempt, 5.0))
        return await method.remote(*args)

    def _append(self, row: RoundCoverage) -> None:
        with self.paths.coverage.open("a", encoding="utf-8") as handle:
            handle.write(row.model_dump_json() + "\n")

    def _report(self, row: RoundCoverage) -> None:
        if self.on_round is not None:
            self.on_round(row)


def _cause(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None)
    return str(cause) if cause is not None else str(exc)
