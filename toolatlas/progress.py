"""What a build shows while it runs: one progress bar per server with its time left on a terminal,
the same news as plain lines when the output is a log (CI, a file, ``ray job logs``).

The bars count a server's rounds (bootstrap + R; an LLM stage's rounds add to the count as they
come); the estimate of time left is rich's, from the rounds finished so far. Every round also
prints its coverage line above the bars, so a finished build reads the same in both modes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

if TYPE_CHECKING:
    from toolatlas.graph.state import RoundCoverage

__all__ = ["BuildProgress"]


class BuildProgress:
    """Bars per server on a terminal, plain lines otherwise; use as a context manager around the build."""

    def __init__(self, servers: Sequence[str], rounds: int, describe: Callable[[RoundCoverage], str], *,
                 stream: IO[str] | None = None, terminal: bool | None = None) -> None:
        self.describe = describe
        stream = stream if stream is not None else sys.stdout
        self.console = Console(file=stream, force_terminal=terminal, highlight=False, soft_wrap=True)
        self.bars: Progress | None = None
        self.tasks: dict[str, TaskID] = {}
        self.totals = {name: rounds + 1 for name in servers}
        if self.console.is_terminal:
            self.bars = Progress(
                TextColumn("{task.fields[server]:<18}"), BarColumn(bar_width=28), MofNCompleteColumn(),
                TextColumn("rounds  {task.fields[entries]:>5} entries  elapsed"), TimeElapsedColumn(), TextColumn("left"),
                TimeRemainingColumn(), console=self.console, transient=False,
            )
            for name in servers:
                self.tasks[name] = self.bars.add_task(name, total=self.totals[name], server=name, entries=0)

    def __enter__(self) -> BuildProgress:
        if self.bars is not None:
            self.bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bars is not None:
            self.bars.stop()

    def line(self, text: str) -> None:
        """A line of news (start-up phases): above the bars, or printed."""
        if self.bars is not None:
            self.bars.console.print(text, markup=False)
        else:
            print(text, file=self.console.file, flush=True)

    def round_done(self, row: RoundCoverage) -> None:
        """One server finished one round: its coverage line, and its bar moves on."""
        self.line(self.describe(row))
        if self.bars is None or row.server not in self.tasks:
            return
        done = row.round + 1
        self.totals[row.server] = max(self.totals[row.server], done)
        self.bars.update(self.tasks[row.server], completed=done, total=self.totals[row.server], entries=row.entries)
