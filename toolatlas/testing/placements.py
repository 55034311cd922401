"""A placement that loses servers on request: the test double of a worker that dies mid-build.

:class:`LosingPlacement` wraps a real placement (:class:`~toolatlas.pipeline.local.LocalPlacement`) and,
at the (server, round) pairs it is given, does what a worker process that dies does to the build:
the round runs (its work is done, as far as the sandbox goes), then the server's state is dropped —
sandboxes closed, graph gone — and the driver hears :class:`~toolatlas.errors.RoundLost` instead of
the round's result. The driver must reopen the server from its last durable start and run the round
again, with nothing lost and nothing counted twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from toolatlas.config import ServerSpec
from toolatlas.errors import RoundLost
from toolatlas.pipeline.checkpoint import RoundResult, ServerStart
from toolatlas.pipeline.driver import Placement

__all__ = ["LosingPlacement"]


class LosingPlacement:
    """A placement that loses each listed (server, round) once per listing (see the module's docstring)."""

    def __init__(self, inner: Placement, losses: Iterable[tuple[str, int]], *, lose_opening: Iterable[str] = ()) -> None:
        self.inner = inner
        self.losses = Counter(losses)
        self.lose_opening = set(lose_opening)
        """Servers whose every opening is lost (a worker that dies whenever the server is placed on it)."""
        self.lost: list[tuple[str, int]] = []
        """Every (server, round) lost so far, in order (round -1: an opening)."""

    async def open(self, spec: ServerSpec, start: ServerStart, focus: frozenset[str] | None) -> int:
        if spec.name in self.lose_opening:
            self.lost.append((spec.name, -1))
            raise RoundLost(f"{spec.name} was lost while it was being opened")
        return await self.inner.open(spec, start, focus)

    async def run_round(self, server: str, round_: int) -> RoundResult:
        if self.losses[(server, round_)] <= 0:
            return await self.inner.run_round(server, round_)
        self.losses[(server, round_)] -= 1
        await self.inner.run_round(server, round_)  # the work is done; its answer never arrives
        await self.inner.close(server)
        self.lost.append((server, round_))
        raise RoundLost(f"{server} was lost in round {round_}")

    async def close(self, server: str) -> None:
        await self.inner.close(server)
