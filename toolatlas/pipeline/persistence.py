"""What a build makes durable, and where a resumed build starts each server from.

A build writes, per server, an **opening** before anything else of it: the records earlier builds
stored of the server, which its graph starts from. After every round come the round's changed
records (upserted and flushed), its coverage row, then its **checkpoint**, written last and
atomically over the opening or the previous checkpoint.

The checkpoint file is the commit point. A build killed at any moment resumes each server from its
file — a round's checkpoint, or the opening — and never from what the store holds of it: the records
of a round the kill interrupted may be in the store, not in the checkpoint, and the round, run again
from the checkpoint, rewrites them under the same content-derived ids (a redo replaces, never adds).
A server without a file never began in this build: the store holds only what earlier builds wrote.

A new build (not ``--resume``) first drops the previous build's checkpoints in one step (a rename),
so a checkpoint on disk always belongs to the build a ``--resume`` continues: the last one that made
a durable write (a build killed before its first one has not begun).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import structlog
from pydantic import BaseModel, ValidationError

from toolatlas.errors import ToolAtlasError
from toolatlas.graph.state import RoundCoverage
from toolatlas.pipeline.checkpoint import (
    CHECKPOINT_VERSION,
    OPENING_ROUND,
    Opening,
    RoundRecords,
    ServerStart,
    ShardCheckpoint,
)
from toolatlas.store.atlas import AtlasStore
from toolatlas.store.paths import AtlasPaths

if TYPE_CHECKING:
    from toolatlas.pipeline.shard import ServerShard

__all__ = [
    "BuildFiles",
    "ServerStart",
    "StoreSink",
    "check_resumable",
    "read_checkpoint",
    "read_coverage",
    "save_rollouts",
    "write_checkpoint",
]

log = structlog.get_logger(__name__)

class BuildFiles:
    """The build's files in the atlas directory: the coverage log, openings and checkpoints.

    Every durable write goes through :meth:`_durable` first (the seam a test double uses to stop a
    build between any two writes, as a kill would).
    """

    def __init__(self, paths: AtlasPaths) -> None:
        self.paths = paths

    def _durable(self, step: str, server: str | None = None) -> None:
        """Called before each durable write (``step`` names it)."""

    def begin(self, servers: list[str], *, resume: bool) -> list[RoundCoverage]:
        """Start a build of ``servers``: the coverage rows already logged. A new build drops the
        previous build's checkpoints and its servers' rows of the coverage log."""
        previous = read_coverage(self.paths.coverage)
        self.paths.root.mkdir(parents=True, exist_ok=True)
        if resume:
            return previous
        if self.paths.checkpoints.exists():
            self._durable("checkpoints_dropped")
            dropped = self.paths.checkpoints.with_name(f"checkpoints.dropped-{os.getpid()}")
            shutil.rmtree(dropped, ignore_errors=True)
            os.replace(self.paths.checkpoints, dropped)
            shutil.rmtree(dropped, ignore_errors=True)
        names = set(servers)
        kept = [row for row in previous if row.server not in names]
        self._durable("coverage_restarted")
        _write_atomically(self.paths.coverage, "".join(row.model_dump_json() + "\n" for row in kept))
        return kept

    def start(self, server: str, seed: int, frontier: str) -> ServerStart | None:
        """Where ``server`` continues from in the build on disk (None: it never began). Raises if that
        build ran with another seed, frontier or checkpoint format."""
        path = self.paths.checkpoint(server)
        state = read_checkpoint(path)
        if state is None:
            return None
        check_resumable(state, seed, frontier)
        try:
            if state["completed_round"] == OPENING_ROUND:
                return ServerStart(stored=Opening.model_validate(state).stored)
            return ServerStart(checkpoint=ShardCheckpoint.model_validate(state))
        except ValidationError as exc:
            raise ToolAtlasError(f"checkpoint {path} does not match its format ({exc}); delete it to rebuild "
                                 "that server") from exc

    def open(self, server: str, seed: int, frontier: str, stored: dict[str, list]) -> ServerStart:
        """Write ``server``'s opening (before any of its rounds' records reach the store)."""
        records = RoundRecords(**stored)
        self.write_checkpoint(server, Opening(server=server, seed=seed, frontier=frontier, stored=records))
        return ServerStart(stored=records)

    def write_checkpoint(self, server: str, state: BaseModel | str) -> None:
        self._durable("checkpoint", server)
        write_checkpoint(self.paths.checkpoint(server), state)

    def append_coverage(self, coverage: RoundCoverage) -> None:
        self._durable("coverage", coverage.server)
        self.paths.coverage.parent.mkdir(parents=True, exist_ok=True)
        with self.paths.coverage.open("a", encoding="utf-8") as handle:
            handle.write(coverage.model_dump_json() + "\n")

    def save_rollouts(self, server: str, round_: int, lines: list[str]) -> None:
        self._durable("rollouts", server)
        save_rollouts(self.paths.rollouts(server), round_, lines)


class StoreSink(BuildFiles):
    """Persists a shard's rounds in this process: records to the store, then the coverage row, then
    the checkpoint (see the module's docstring)."""

    def __init__(self, store: AtlasStore, paths: AtlasPaths) -> None:
        super().__init__(paths)
        self.store = store
        self._lock = threading.Lock()

    def open_server(self, server: str, seed: int, frontier: str, *, resume: bool) -> ServerStart:
        """Where ``server`` starts: with ``resume``, from the build on disk if it began there; else its
        opening is written from what the store holds of it."""
        start = self.start(server, seed, frontier) if resume else None
        if start is not None:
            return start
        return self.open(server, seed, frontier, self.store.server_records(server))

    def save_round(self, shard: ServerShard, coverage: RoundCoverage) -> None:
        checkpoint = shard.checkpoint().model_dump_json()
        name = shard.spec.name
        self.save_round_records(name, shard.take_dirty())
        self.append_coverage(coverage)
        self.write_checkpoint(name, checkpoint)

    def save_round_records(self, server: str, records: dict[str, list]) -> None:
        """Upsert a round's changed records, durable on return."""
        with self._lock:  # embedded stores are single-writer; servers' rounds end concurrently
            self._durable("records", server)
            self.store.save(records)
            self._durable("flush", server)
            self.store.flush()

    def save_records(self, layers: dict[str, list]) -> None:
        """Upsert records outside a round (a refresh, a replay), durable on return."""
        with self._lock:
            self._durable("records")
            self.store.save(layers)
            self.store.flush()


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(f".tmp-{os.getpid()}-{threading.get_ident()}")
    staging.write_text(text)
    os.replace(staging, path)


def save_rollouts(path: Path, round_: int, lines: list[str]) -> None:
    """Keep one LLM round's raw trajectories: a re-run round (after a resume) replaces its earlier
    lines instead of adding to them. Written before the round's checkpoint, atomically."""
    kept = []
    if path.exists():
        kept = [line for line in path.read_text().splitlines() if json.loads(line).get("round") != round_]
    _write_atomically(path, "".join(line + "\n" for line in [*kept, *lines]))


def write_checkpoint(path: Path, state: BaseModel | str) -> None:
    """Write a checkpoint or an opening atomically (as a model, or already as JSON text)."""
    _write_atomically(path, state if isinstance(state, str) else state.model_dump_json())


def read_checkpoint(path: Path) -> dict | None:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ToolAtlasError(f"checkpoint {path} is unreadable ({exc}); delete it to rebuild that server") from exc


def read_coverage(path: Path) -> list[RoundCoverage]:
    """Coverage rows, the latest per (server, round) — a resumed or repeated build appends. A line a
    kill cut short is skipped (its round is run again)."""
    if not path.exists():
        return []
    rows: dict[tuple[str, int], RoundCoverage] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            row = RoundCoverage.model_validate_json(line)
        except ValueError:
            log.warning("coverage_line_unreadable", path=str(path), line=line[:80])
            continue
        rows.pop((row.server, row.round), None)
        rows[(row.server, row.round)] = row
    return list(rows.values())


def check_resumable(checkpoint: dict, seed: int, frontier: str) -> None:
    """A checkpoint resumes only the build that wrote it (same format, seed and frontier)."""
    if checkpoint.get("version") != CHECKPOINT_VERSION:
        raise ToolAtlasError(f"checkpoint of {checkpoint.get('server')!r} has format {checkpoint.get('version')}, "
                             f"this version writes {CHECKPOINT_VERSION}; rebuild without --resume")
    if checkpoint.get("seed") != seed or checkpoint.get("frontier") != frontier:
        raise ToolAtlasError(
            f"checkpoint of {checkpoint.get('server')!r} was written with seed {checkpoint.get('seed')} and frontier "
            f"{checkpoint.get('frontier')!r}, not {seed} and {frontier!r}: resume with the same settings or rebuild"
        )
