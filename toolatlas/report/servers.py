"""One server's slice of the atlas as the report shows it: its tools, rounds, traces and strategies,
its effective status, and the element ids its sections link to.

Ids are derived from positions (``server-0``, ``tool-0-3``, ``trace-0-1``), never from names a
server supplied, so they are unique and safe in any attribute.
"""

from __future__ import annotations

from toolatlas.export import AtlasExport, ServerExport
from toolatlas.report.charts import last_per_round
from toolatlas.report.svg import esc

__all__ = ["ServerView", "badge", "server_views"]


class ServerView:
    """A server of the atlas with its coverage rows, traces, strategies and anchors."""

    def __init__(self, index: int, export: ServerExport, atlas: AtlasExport) -> None:
        self.index, self.export, self.name = index, export, export.name
        self.anchor = f"server-{index}"
        self.rows = last_per_round([c for c in atlas.coverage if c.server == self.name])
        self.traces = [t for t in atlas.traces if t.server == self.name]
        self.strategies = [s for s in atlas.strategies if s.server == self.name]
        self.tool_anchors = {t.name: f"tool-{index}-{j}" for j, t in enumerate(export.tools)}
        self.trace_anchors = {t.id: f"trace-{index}-{k}" for k, t in enumerate(self.traces)}
        self.failures = [r for r in self.rows if r.status != "ok"]
        self.status = export.status if export.status != "ok" or not self.failures else "failed"

    def count(self, attr: str) -> int:
        """Entries of one kind (``affordances``, ``boundaries``, ``co_usage``) over all tools."""
        return sum(len(getattr(t, attr)) for t in self.export.tools)

    @property
    def probes(self) -> int:
        return sum(r.probes for r in self.rows)

    @property
    def failure_lines(self) -> list[str]:
        """``round N: status — detail`` for every round that did not end ``ok``."""
        lines = []
        for r in self.failures:
            lines.append(f"round {r.round}: {r.status}" + (f" — {r.detail}" if r.detail else ""))
        return lines

    def failure_box(self) -> str:
        """The failure detail of a failed server (empty for a healthy one)."""
        if self.status == "ok":
            return ""
        lines = self.failure_lines
        body = f"<pre>{esc(chr(10).join(lines))}</pre>" if lines else '<p class="empty">no detail</p>'
        return f'<div class="failure"><b>{esc(self.name)} {esc(self.status)}</b>{body}</div>'


def server_views(atlas: AtlasExport) -> list[ServerView]:
    """Servers in export order, then any server only the coverage, traces or strategies name."""
    exports = list(atlas.servers)
    known = {s.name for s in exports}
    named = {r.server for r in atlas.coverage} | {t.server for t in atlas.traces}
    named |= {s.server for s in atlas.strategies}
    exports += [ServerExport(name=name) for name in sorted(named - known)]
    return [ServerView(i, s, atlas) for i, s in enumerate(exports)]


def badge(status: str, tip: str = "") -> str:
    kind = "ok" if status == "ok" else "failed"
    title = f' title="{esc(tip)}"' if tip else ""
    return f'<span class="badge {kind}"{title}>{esc(status)}</span>'
