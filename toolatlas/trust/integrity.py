"""What an atlas export may serve: only entries its own evidence supports.

An export is a file: anyone can edit it. Loading checks every entry against the evidence it carries
and the tools its server has, and quarantines — never serves, keeps with the reason as its
``status_reason``, and counts in a :class:`LoadReport` — any that

- carries no evidence (``no_evidence``);
- has evidence calling a tool the server does not have, or a co-usage peer it does not have
  (``unknown_tool``);
- claims what its evidence does not show: an affordance without a successful call of its tool, a
  boundary without a failed one (or one reported as a success) whose outcome is the boundary's
  (``claim_unsupported``);
- says something its evidence does not: every `code span` of its text must name the tool, a peer, an
  argument of the tool's schema, or be found in the evidence (its arguments or answers) or the tool's
  description; every “quoted answer” must be an answer the evidence holds (``text_unsupported``).

Strategies and traces are checked the same way against the tools and the entries that survived:
their tools must exist, and their text may only quote what the kept entries and the tools say.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from toolatlas.export import AtlasExport, ServerExport, ToolExport
from toolatlas.graph.models import Entry, EntryKind, EntryStatus, StrategyNode, TraceNode
from toolatlas.models import OutcomeClass, utcnow
from toolatlas.probing.text import error_signature, message_line

__all__ = ["Dropped", "LoadReport", "admit", "summary"]

_CODE = re.compile(r"`([^`]+)`")
_QUOTED = re.compile(r"“([^”]*)”")


@dataclass(frozen=True)
class Dropped:
    """One record left out of what is served, and why."""

    kind: str
    """``affordance``, ``boundary``, ``co_usage``, ``strategy`` or ``trace``."""
    server: str
    tool: str | None
    id: str
    reason: str
    detail: str


@dataclass
class LoadReport:
    """What loading an export kept and dropped."""

    kept: int = 0
    dropped: list[Dropped] = field(default_factory=list)

    @property
    def by_reason(self) -> dict[str, int]:
        return dict(Counter(d.reason for d in self.dropped))


def admit(export: AtlasExport) -> tuple[AtlasExport, LoadReport]:
    """The export with only what its evidence supports, and the report of what was dropped."""
    report = LoadReport()
    servers = [_admit_server(server, report) for server in export.servers]
    tools_of = {server.name: {tool.name: tool for tool in server.tools} for server in servers}
    served_text = {
        server.name: {entry.text for tool in server.tools for entry in _entries(tool) if _served(entry)}
        | {entry.error_signature for tool in server.tools for entry in _entries(tool)
           if entry.error_signature and _served(entry)}
        for server in servers
    }
    strategies = [s if _keep_strategy(s, tools_of, served_text, report) else _quarantine(s)
                  for s in export.strategies]
    traces = [t if _keep_trace(t, tools_of, served_text, report) else _quarantine(t) for t in export.traces]
    report.kept += sum(record.status is not EntryStatus.QUARANTINED for record in [*strategies, *traces])
    return export.model_copy(update={"servers": servers, "strategies": strategies, "traces": traces}), report


def _served(entry: Entry) -> bool:
    return entry.status is not EntryStatus.QUARANTINED


def _quarantine(record: StrategyNode | TraceNode) -> StrategyNode | TraceNode:
    return record.model_copy(update={"status": EntryStatus.QUARANTINED})


def _entries(tool: ToolExport) -> list[Entry]:
    return [*tool.affordances, *tool.boundaries, *tool.co_usage]


def _admit_server(server: ServerExport, report: LoadReport) -> ServerExport:
    tools = {tool.name: tool for tool in server.tools}
    now = utcnow()
    kept_tools = []
    for tool in server.tools:
        sets = {}
        for name in ("affordances", "boundaries", "co_usage"):
            kept = []
            for entry in getattr(tool, name):
                problem = _problem(entry, tool, tools)
                if problem is None:
                    kept.append(entry)
                    report.kept += 1
                else:  # kept in the atlas, never served: quarantined, with the reason
                    report.dropped.append(Dropped(entry.kind.value, server.name, tool.name, entry.id, *problem))
                    kept.append(entry.model_copy(update={"status": EntryStatus.QUARANTINED,
                                                         "status_reason": f"{problem[0]}: {problem[1]}",
                                                         "status_changed": now}))
            sets[name] = kept
        kept_tools.append(tool.model_copy(update=sets))
    return server.model_copy(update={"tools": kept_tools})


def _problem(entry: Entry, tool: ToolExport, tools: dict[str, ToolExport]) -> tuple[str, str] | None:
    if entry.tool != tool.name or entry.server == "":
        return "unknown_tool", f"filed under `{tool.name}` but about `{entry.tool}`"
    if not entry.evidence:
        return "no_evidence", "no call shows it"
    strangers = sorted({e.tool for e in entry.evidence} - tools.keys())
    if strangers:
        return "unknown_tool", f"its evidence calls {', '.join(strangers)}, which the server does not have"
    if entry.peer is not None and entry.peer not in tools:
        return "unknown_tool", f"its peer {entry.peer} is not a tool of the server"
    own = [e for e in entry.evidence if e.tool == entry.tool]
    if entry.kind is EntryKind.AFFORDANCE and not any(e.outcome is OutcomeClass.OK for e in own):
        return "claim_unsupported", "no successful call of the tool among its evidence"
    if entry.kind is EntryKind.BOUNDARY:
        failing = [e for e in own if e.outcome is not OutcomeClass.OK or entry.reported_as_success]
        if not failing or (entry.outcome is not None and all(e.outcome is not entry.outcome for e in failing)):
            return "claim_unsupported", f"no call of the tool among its evidence ended {entry.outcome or 'in an error'}"
    if entry.kind is EntryKind.CO_USAGE and not any(e.tool in (entry.tool, entry.peer) for e in entry.evidence):
        return "claim_unsupported", "no call of the tool or its peer among its evidence"
    unsupported = _unsupported_text(entry.text, _vocabulary(entry, tool, tools), _answers(entry))
    if unsupported:
        return "text_unsupported", f"its text says {unsupported!r}, which neither its evidence nor the tool shows"
    return None


def _vocabulary(entry: Entry, tool: ToolExport, tools: dict[str, ToolExport]) -> str:
    """Everything an entry's code spans may quote: names, schemas, the tool's text, the evidence."""
    parts = [tool.name, tool.description, *tools.keys(), json.dumps(tool.input_schema)]
    if entry.peer in tools:
        parts += [tools[entry.peer].description, json.dumps(tools[entry.peer].input_schema)]
    for evidence in entry.evidence:
        parts += [json.dumps(evidence.arguments, ensure_ascii=False), evidence.excerpt, evidence.state_change]
    parts += [json.dumps(entry.example_arguments or {}, ensure_ascii=False), entry.condition or "",
              entry.when or "", entry.when_not or ""]
    return "\n".join(parts)


def _answers(entry: Entry) -> str:
    """What an entry's quotes may quote: its evidence's answers, each also as one line (a JSON object folded into
    its fields, as the entry's sentence quotes it: :func:`~toolatlas.probing.text.message_line`), and its error."""
    said = [e.excerpt for e in entry.evidence]
    return "\n".join([*said, *(message_line(s) for s in said if s.strip()), entry.error_signature or ""])


def _unsupported_text(text: str, vocabulary: str, answers: str) -> str | None:
    for span in _CODE.findall(text):
        if not _found(span, vocabulary):
            return f"`{span}`"
    for quote in _QUOTED.findall(text):
        cut = quote.rstrip(".…")
        if quote.strip() and not _found(cut, answers) and not _found(error_signature(cut), answers):
            return f"“{quote}”"
    return None


def _found(span: str, text: str) -> bool:
    """``span`` occurs in ``text``, or each of its ``name=value`` halves does (``dryRun=true``), or the names of an
    item's path do (``projects[0]``), or the argument of a value class does (``edits~many``: the class is the
    inducer's, not a quote)."""
    if span in text or span.lower() in text.lower():
        return True
    if re.search(r"\[\d+\]", span):  # an item of an argument (``projects[0]``, ``files[1].path``): its names
        return all(_found(part, text) for part in re.split(r"\[\d+\]\.?", span) if part)
    if "=" in span:
        return all(part and part.lower() in text.lower() for part in span.split("=", 1))
    if "~" in span:
        name = span.split("~", 1)[0]
        return bool(name) and name.lower() in text.lower()
    return False


def _keep_strategy(
    strategy: StrategyNode, tools_of: dict[str, dict[str, ToolExport]], served: dict[str, set[str]],
    report: LoadReport,
) -> bool:
    lines = [strategy.title, strategy.when or "", *strategy.plan, *strategy.pitfalls]
    return _keep_derived("strategy", strategy.id, strategy.server, set(strategy.tools), lines, [],
                         tools_of, served, report)


def _keep_trace(
    trace: TraceNode, tools_of: dict[str, dict[str, ToolExport]], served: dict[str, set[str]], report: LoadReport
) -> bool:
    used = {*trace.tools, *(step.tool for step in trace.steps)}
    lines = [*trace.tips, *(step.rationale for step in trace.steps)]
    return _keep_derived("trace", trace.id, trace.server, used, lines, [trace.task], tools_of, served, report)


def _keep_derived(
    kind: str, record_id: str, server: str, used: set[str], lines: list[str], own: list[str],
    tools_of: dict[str, dict[str, ToolExport]], served: dict[str, set[str]], report: LoadReport,
) -> bool:
    """A record derived from entries (a strategy, a trace): every tool it uses is the server's, and
    its ``lines`` quote only what the kept entries, the tools and its ``own`` text say."""
    tools = tools_of.get(server, {})
    strangers = sorted(used - tools.keys())
    if strangers:
        report.dropped.append(Dropped(kind, server, None, record_id, "unknown_tool",
                                      f"it uses {', '.join(strangers)}, which the server does not have"))
        return False
    said = "\n".join([*served.get(server, ()), *tools.keys(), *(t.description for t in tools.values()), *own])
    for line in lines:
        unsupported = _unsupported_text(line, said, said)
        if unsupported:
            report.dropped.append(Dropped(kind, server, None, record_id, "text_unsupported",
                                          f"it says {unsupported!r}, which no kept entry or tool says"))
            return False
    return True


def summary(report: LoadReport) -> str:
    """One line: kept, dropped by reason."""
    if not report.dropped:
        return f"{report.kept} record(s) kept, none dropped"
    reasons = ", ".join(f"{n} {reason}" for reason, n in sorted(report.by_reason.items()))
    return f"{report.kept} record(s) kept, {len(report.dropped)} dropped ({reasons})"

