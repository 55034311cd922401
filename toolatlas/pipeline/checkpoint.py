"""The messages a build's processes exchange about a server: where it starts, what a round returns.

- :class:`ShardCheckpoint` — everything a shard needs to continue exactly after a completed round
  (graph, random state, frontier, proposer's pool and discovery), written after every round;
- :class:`Opening` — what a server's build starts from before any round is complete (the records
  earlier builds stored of it), written before its first round;
- :class:`ServerStart` — one of the two, as a build reads it back (:mod:`toolatlas.pipeline.persistence`);
- :class:`RoundResult` — a finished round: its coverage row, the records it changed and the
  checkpoint after it, as a worker (in this process or an actor) hands it to the build's driver.

All are frozen pydantic models, so they cross a process boundary as one typed object.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from toolatlas.graph.models import Entry, ServerNode, StrategyNode, ToolNode, TraceNode
from toolatlas.graph.state import RoundCoverage
from toolatlas.models import Frozen
from toolatlas.probing.models import BatchSummary, Probe

__all__ = ["CHECKPOINT_VERSION", "OPENING_ROUND", "Opening", "RoundRecords", "RoundResult", "ServerStart",
           "ShardCheckpoint"]

CHECKPOINT_VERSION = 5
"""5: the tools' call costs the plan shares a round's time by; a server's file holds an opening until its
first round is complete; typed fields."""
OPENING_ROUND = -1
"""The ``completed_round`` of an opening: no round of the server is complete in this build."""


class RoundRecords(Frozen):
    """A server's records by layer: those a round changed, or those a build starts from."""

    servers: list[ServerNode] = []
    tools: list[ToolNode] = []
    entries: list[Entry] = []
    traces: list[TraceNode] = []
    strategies: list[StrategyNode] = []

    def layers(self) -> dict[str, list[Any]]:
        """By layer name, as the store saves them."""
        return {"servers": self.servers, "tools": self.tools, "entries": self.entries, "traces": self.traces,
                "strategies": self.strategies}


class BuildIdentity(Frozen):
    """Which build a server's file belongs to: a resume continues only the build that wrote it."""

    version: int = CHECKPOINT_VERSION
    server: str
    frontier: str
    seed: int
    completed_round: int


class Opening(BuildIdentity):
    """A server's file before its first round is complete: the records its graph starts from."""

    completed_round: int = OPENING_ROUND
    stored: RoundRecords = RoundRecords()


class ShardCheckpoint(BuildIdentity):
    """Everything needed to resume a server's build after :attr:`completed_round`."""

    rng: tuple[int, tuple[int, ...], float | None]
    frontier_state: dict[str, Any]
    pool: Any
    discovery: dict[str, Any]
    calls_by_probe: dict[str, Any]
    exploration: dict[str, Any]
    transitions: dict[str, Any]
    covered: list[str]
    lexicon: dict[str, int]
    node: ServerNode | None
    """The server's node in the graph."""
    tools: list[ToolNode]
    entries: list[Entry]
    traces: list[TraceNode]
    strategies: list[StrategyNode]
    chains: list[Probe]
    costs: dict[str, Any]
    """What each tool's calls cost (:meth:`~toolatlas.pipeline.budget.CallCosts.state`)."""
    focus: list[str] | None = None


class ServerStart(Frozen):
    """Where one server's build begins: a checkpoint to continue from, or the records to start from."""

    checkpoint: ShardCheckpoint | None = None
    """The state after the server's last completed round (None: no round is complete)."""
    stored: RoundRecords | None = None
    """What earlier builds stored of the server (its opening), when no round is complete."""

    @property
    def completed_round(self) -> int:
        return self.checkpoint.completed_round if self.checkpoint is not None else OPENING_ROUND


class RoundResult(Frozen):
    """A finished round of one server, as a worker returns it to the driver."""

    coverage: RoundCoverage
    records: RoundRecords
    """The records the round changed (what the store upserts)."""
    checkpoint: str
    """The :class:`ShardCheckpoint` after the round, as JSON (written to disk as it is)."""
    summary: BatchSummary | None = None
    """Calls, resets and probe end times (a colocated round: the driver reads no batches)."""
    trajectories: list[str] = Field(default_factory=list)
    """The LLM method's raw rollouts of the round, one JSON line each."""
