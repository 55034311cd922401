"""The in-process placement of a build, and the record writer over a store in this process.

:class:`LocalPlacement` runs each server's rounds here: its executors (one sandbox each), verifier
and shard — a :class:`~toolatlas.pipeline.server.ServerBuild` — and, with an LLM client, the LLM
method's rounds after the offline ones on the same sandboxes. :class:`StoreWriter` saves a round's
records through the build's :class:`~toolatlas.pipeline.persistence.StoreSink`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import TYPE_CHECKING

from toolatlas.config import ServerSpec
from toolatlas.graph.models import Entry
from toolatlas.pipeline.checkpoint import RoundRecords, RoundResult, ServerStart
from toolatlas.pipeline.persistence import StoreSink
from toolatlas.pipeline.server import ServerBuild
from toolatlas.probing.models import BatchSummary
from toolatlas.workspace import Workspace

if TYPE_CHECKING:
    from toolatlas.llm import LlmClient
    from toolatlas.pipeline.method import MethodStage

__all__ = ["LocalPlacement", "StoreWriter"]


class LocalPlacement:
    """Servers' rounds in this process (the :class:`~toolatlas.pipeline.driver.Placement` of ``--engine asyncio``)."""

    def __init__(self, workspace: Workspace, frontier: str = "graph", *, rounds: int, llm: LlmClient | None = None) -> None:
        self.workspace = workspace
        self.frontier = frontier
        self.rounds = rounds
        self.llm = llm
        self.builds: dict[str, ServerBuild] = {}
        self.stages: dict[str, MethodStage] = {}
        self.calls: Counter[str] = Counter()
        self.resets: Counter[str] = Counter()
        self.server_seconds: dict[str, float] = {}
        """Server → its build's wall time, open to close."""
        self.tool_seconds: dict[str, dict[str, float]] = {}
        """Server → tool → seconds its calls took (pilot included)."""

    async def open(self, spec: ServerSpec, start: ServerStart, focus: frozenset[str] | None) -> int:
        await self.close(spec.name)
        name = spec.name

        def count(rollout, verdict, delta) -> None:
            self.calls[name] += len(rollout.steps)
            self.resets[name] += rollout.reset

        build = ServerBuild(self.workspace, spec, self.workspace.catalogue.build, self.frontier,
                            on_probe=count, rounds=self.rounds, origin=start, focus=focus)
        first = await build.open()
        self.builds[name] = build
        return first

    async def run_round(self, server: str, round_: int) -> RoundResult:
        build = self.builds[server]
        calls, resets = self.calls[server], self.resets[server]
        trajectories: list[str] = []
        if round_ <= self.rounds:
            coverage = await build.run_round(round_)
        else:
            stage = await self._stage(build)
            coverage = await stage.run_round(round_, bootstrap=round_ == self.rounds + 1)
            trajectories = list(stage.trajectories)
        checkpoint = await asyncio.to_thread(lambda: build.shard.checkpoint().model_dump_json())
        summary = BatchSummary(infrastructure_errors=[], calls=self.calls[server] - calls,
                               resets=self.resets[server] - resets, ended_at=[])
        return RoundResult(coverage=coverage, records=RoundRecords(**build.shard.take_dirty()),
                           checkpoint=checkpoint, summary=summary, trajectories=trajectories)

    async def _stage(self, build: ServerBuild) -> MethodStage:
        name = build.spec.name
        if name not in self.stages:
            from toolatlas.pipeline.method import MethodStage

            assert self.llm is not None and build.verifier is not None, "LLM rounds need an LLM client"
            stage = MethodStage(self.workspace, build.shard, build.executors, build.verifier, self.llm)
            self.stages[name] = await stage.open()
        return self.stages[name]

    async def close(self, server: str) -> None:
        stage = self.stages.pop(server, None)
        if stage is not None:
            await stage.close()
        build = self.builds.pop(server, None)
        if build is not None:
            await build.close()
            self.server_seconds[server] = self.server_seconds.get(server, 0.0) + build.seconds
            seconds = Counter(self.tool_seconds.get(server, {}))
            seconds.update(build.costs())
            self.tool_seconds[server] = dict(seconds)


class StoreWriter:
    """A build's records to the atlas store in this process, through its sink (durable on return)."""

    def __init__(self, sink: StoreSink) -> None:
        self.sink = sink

    async def server_records(self, server: str) -> dict[str, list]:
        return await asyncio.to_thread(self.sink.store.server_records, server)

    async def save(self, server: str, records: dict[str, list]) -> None:
        await asyncio.to_thread(self.sink.save_round_records, server, records)

    async def finish(self) -> list[Entry]:
        await asyncio.to_thread(self.sink.store.optimize)
        return await asyncio.to_thread(self.sink.store.all, "entries")
