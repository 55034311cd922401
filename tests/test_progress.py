"""A build's progress: bars per server with rounds done and time left on a terminal, plain lines in a log."""

from __future__ import annotations

import io
import re

from toolatlas.graph.state import RoundCoverage
from toolatlas.progress import BuildProgress

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def describe(row: RoundCoverage) -> str:
    return f"[{row.server}] round {row.round}: {row.entries} entries"


def rows() -> list[RoundCoverage]:
    return [RoundCoverage(server="git", round=0, entries=20), RoundCoverage(server="time", round=0, entries=4),
            RoundCoverage(server="git", round=1, entries=55)]


class TestBuildProgress:
    def test_a_log_gets_plain_lines_only(self) -> None:
        """Not a terminal: each round is its coverage line, with no bars and no escape codes."""
        out = io.StringIO()
        with BuildProgress(["git", "time"], 2, describe, stream=out, terminal=False) as progress:
            progress.line("starting a local Ray instance…")
            for row in rows():
                progress.round_done(row)
        assert out.getvalue().splitlines() == [
            "starting a local Ray instance…", "[git] round 0: 20 entries", "[time] round 0: 4 entries",
            "[git] round 1: 55 entries",
        ]

    def test_a_terminal_gets_a_bar_per_server_with_rounds_and_time_left(self) -> None:
        """On a terminal each server has a bar counting its rounds (bootstrap + R) with entries and time left;
        the coverage lines still print above the bars."""
        out = io.StringIO()
        with BuildProgress(["git", "time"], 2, describe, stream=out, terminal=True) as progress:
            for row in rows():
                progress.round_done(row)
        text = ANSI.sub("", out.getvalue())
        final = text.splitlines()[-2:]  # the bars as they stood when the build ended
        assert re.search(r"git .* 2/3 rounds\s+55 entries .* left", final[0]), final
        assert re.search(r"time .* 1/3 rounds\s+4 entries .* left", final[1]), final
        assert "[git] round 1: 55 entries" in text

    def test_a_server_with_more_rounds_than_planned_grows_its_bar(self) -> None:
        """An LLM stage's rounds after the offline ones extend the bar instead of overflowing it."""
        out = io.StringIO()
        with BuildProgress(["git"], 1, describe, stream=out, terminal=True) as progress:
            for r in range(4):
                progress.round_done(RoundCoverage(server="git", round=r, entries=r))
        assert re.search(r"git .* 4/4 rounds", ANSI.sub("", out.getvalue()).splitlines()[-1])
