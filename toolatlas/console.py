"""Plain-text rendering for the CLI (aligned tables that read well in a terminal and in CI logs), and the
argument types its commands share."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

__all__ = ["coverage_line", "coverage_table", "render_table", "usage_table", "whole_number"]


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, max_width: int = 48) -> str:
    """Render rows under headers with aligned columns; cells longer than ``max_width`` are shortened."""

    def cell(value: object) -> str:
        text = "" if value is None else str(value).replace("\n", " ")
        return text if len(text) <= max_width else text[: max_width - 1] + "…"

    table = [[cell(h) for h in headers], *[[cell(v) for v in row] for row in rows]]
    widths = [max(len(r[i]) for r in table) for i in range(len(headers))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, not {value}")
        return value

    return parse


def coverage_line(row) -> str:  # type: ignore[no-untyped-def]
    """A build's coverage row (:class:`~toolatlas.graph.state.RoundCoverage`) as the line a build prints per round."""
    if row.status != "ok":
        return f"  [{row.server}] round {row.round}: FAILED {row.detail[:160]}"
    if row.stage != "offline":
        return (
            f"  [{row.server}] round {row.round} (LLM {row.stage}): {row.tasks} tasks (+{row.tasks_rejected} rejected), "
            f"{row.probes} rollouts ({row.resolved} resolved), +{row.new_entries} entries ({row.entries} total), "
            f"traces {row.traces}, strategies {row.strategies}, {row.llm_tokens} tokens, {row.seconds:.1f}s"
        )
    return (
        f"  [{row.server}] round {row.round}: {row.probes} probes ({row.resolved} resolved), "
        f"+{row.new_entries} entries ({row.entries} total), affordance {row.tools_with_affordance}/{row.tools}, "
        f"boundary {row.tools_with_boundary}/{row.tools}, args {row.argument_coverage:.0%}, "
        f"pairs {row.co_usage_pairs}, {row.seconds:.1f}s"
    )


def usage_table(ledger) -> str:  # type: ignore[no-untyped-def]
    """LLM usage per role (and the total): calls, retries, failures, tokens, cost, latency."""
    rows = sorted(ledger.by_role().items()) + [("total", ledger.total())]
    return render_table(
        ["role", "calls", "requests", "retries", "failures", "prompt tok", "completion tok", "cost", "s"],
        [
            (role, t.calls, t.requests, t.retries, t.failures, t.prompt_tokens, t.completion_tokens,
             f"{t.cost:.4f}" if not t.unpriced_calls else f"{t.cost:.4f}+?", f"{t.latency_ms / 1000:.1f}")
            for role, t in rows
        ],
    )


def coverage_table(rows) -> str:  # type: ignore[no-untyped-def]
    """Coverage rows as a table, one line per server and round."""
    return render_table(
        ["server", "round", "probes", "resolved", "new", "entries", "affordance", "boundary", "args", "co-usage", "traces",
         "strategies", "outcomes", "s"],
        [
            (
                r.server, r.round, r.probes, r.resolved, r.new_entries, r.entries,
                f"{r.tools_with_affordance}/{r.tools}", f"{r.tools_with_boundary}/{r.tools}", f"{r.argument_coverage:.0%}",
                r.co_usage_pairs, r.traces, r.strategies,
                " ".join(f"{k}:{v}" for k, v in sorted(r.outcome_mix.items())) if r.status == "ok" else f"FAILED {r.detail}",
                f"{r.seconds:.1f}",
            )
            for r in rows
        ],
        max_width=60,
    )
