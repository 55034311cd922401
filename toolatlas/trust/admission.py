"""Admitting agents' reports into the atlas (``toolatlas outcomes admit``): only what a replay verifies.

Each queued report (:mod:`.outcomes`) is replayed on a fresh sandbox of its server — the calls it
says came before, then the call — and verified the way a build verifies a probe. When the replay
ends as the agent said (it worked, or it failed), the **replay** is induced into the server's graph
exactly as a build's probe would be (:class:`~toolatlas.graph.inducer.Inducer`): it adds support to
the entries it confirms or makes new ones, each with the replay's own evidence. When it does not, the
report is rejected and kept, with what the replay showed, in ``<queue>.rejected.jsonl``; admitted
reports go to ``<queue>.admitted.jsonl`` with the entries they touched.

Arguments are replayed as given, against the catalogue's snapshot: paths and names an agent saw in
its own environment should be written relative to the server's placeholders (``${root}/notes.md``).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import structlog
from pydantic import Field

from toolatlas.config import Catalogue
from toolatlas.errors import ToolAtlasError
from toolatlas.graph.inducer import Inducer
from toolatlas.graph.state import ServerGraph
from toolatlas.models import Frozen
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.probing.text import evidence_excerpt, to_placeholders
from toolatlas.store.atlas import AtlasStore
from toolatlas.trust.outcomes import OutcomeQueue, QueuedOutcome
from toolatlas.workspace import Workspace

__all__ = ["AdmitServer", "Admission", "admit_outcomes", "admit_server", "queue_path"]

log = structlog.get_logger(__name__)

class Admission(Frozen):
    """What became of one report."""

    id: str
    server: str
    tool: str
    verdict: str
    """``admitted`` or ``rejected``."""
    detail: str = ""
    replayed_outcome: str = ""
    """How the replay's call ended (``ok``, ``tool_error``…): the evidence a rejection rests on."""
    replayed_excerpt: str = ""
    entries: list[str] = Field(default_factory=list)
    """Entries the admitted replay created or reinforced."""


def queue_path(catalogue: Catalogue) -> Path:
    """Where the reports for a catalogue's atlas are queued by default: ``outcomes.jsonl`` in its folder."""
    return catalogue.atlas_dir / "outcomes.jsonl"


def _probe(item: QueuedOutcome) -> Probe:
    report = item.report
    steps = [ProbeStep(tool=str(c.get("tool", "")), arguments=dict(c.get("arguments") or {})) for c in report.before]
    steps.append(ProbeStep(tool=report.tool, arguments=report.arguments))
    direction = Direction.AFFORDANCE if report.outcome == "ok" else Direction.BOUNDARY
    return Probe(id=f"report-{item.id}", server=report.server, round=0, direction=direction, target=report.tool,
                 task=f"an agent's report ({item.token}): {report.tool} {report.outcome}", steps=steps)


async def admit_server(workspace: Workspace, records: dict[str, list], server: str,
                       items: list[QueuedOutcome]) -> tuple[list[Admission], dict[str, list]]:
    """Replay ``items`` (all of ``server``) on one fresh sandbox and induce what agrees into the graph
    ``records`` hold; the fate of each, and the records the admissions changed."""
    def rejected(item: QueuedOutcome, detail: str, **seen: str) -> Admission:
        return Admission(id=item.id, server=server, tool=item.report.tool, verdict="rejected", detail=detail, **seen)

    names = {spec.name for spec in workspace.catalogue.servers}
    if server not in names:
        return [rejected(item, f"the catalogue has no server {server!r}") for item in items], {}
    executor = Executor(workspace.sandbox(server), f"{server}/admission")
    try:
        await executor.start()
    except ToolAtlasError as exc:
        return [rejected(item, f"the server could not be started: {str(exc)[:200]}") for item in items], {}
    try:
        tools = executor.sandbox.tools
        graph = ServerGraph(server, tools)
        graph.load(records)
        listed = {tool.name for tool in tools}
        results = []
        for item in items:
            unknown = [step.tool for step in _probe(item).steps if step.tool not in listed]
            if unknown:
                results.append(rejected(item, f"the server has no tool {unknown[0]!r}"))
                continue
            verified = await executor.run_verified(_probe(item))
            assert verified is not None  # None only for a deferred replay
            rollout, verdict = verified
            last = next((v for v in verdict.steps if v.index == len(rollout.probe.steps) - 1), None)
            if rollout.infrastructure_error is not None or last is None:
                results.append(rejected(item, "the replay did not reach the call"
                                        + (f": {rollout.infrastructure_error[:200]}" if rollout.infrastructure_error else "")))
                continue
            outcome = rollout.steps[-1].outcome
            seen = {"replayed_outcome": last.outcome.value,
                    "replayed_excerpt": evidence_excerpt(to_placeholders(outcome.excerpt, rollout.variables))}
            said_failed = item.report.outcome == "error"
            if last.failed != said_failed:
                results.append(rejected(item, f"reported {item.report.outcome}, the replay "
                                              f"{'failed' if last.failed else 'succeeded'}", **seen))
                continue
            Inducer(graph).induce(rollout, verdict)
            touched = sorted(e.id for e in graph.entries.values() if rollout.probe.id in e.probe_ids)
            results.append(Admission(id=item.id, server=server, tool=item.report.tool, verdict="admitted",
                                     entries=touched, **seen))
        return results, graph.take_dirty()
    finally:
        await executor.close()


AdmitServer = Callable[[dict[str, list], str, list[QueuedOutcome]], Awaitable[tuple[list[Admission], dict[str, list]]]]
"""Where a server's reports are replayed: in this process (:func:`admit_server`) or on a cluster
(``actors/admission.py``)."""


async def admit_outcomes(workspace: Workspace, store: AtlasStore, queue: OutcomeQueue,
                         *, jobs: int = 4, admit: AdmitServer | None = None) -> list[Admission]:
    """Drain ``queue``: replay every report, admit what agrees into ``store``; the fate of each.
    The admitted and rejected reports are appended beside the queue (see the module's docstring)."""
    taken = queue.take()
    by_server: dict[str, list[QueuedOutcome]] = defaultdict(list)
    for item in taken:
        by_server[item.report.server].append(item)
    gate = asyncio.Semaphore(jobs)
    place = admit or (lambda records, server, items: admit_server(workspace, records, server, items))

    async def one(server: str) -> list[Admission]:
        records = await asyncio.to_thread(store.server_records, server)
        async with gate:
            results, dirty = await place(records, server, by_server[server])
        if dirty:
            await asyncio.to_thread(_save, store, dirty)
        return results

    admissions = [a for results in await asyncio.gather(*(one(s) for s in sorted(by_server))) for a in results]
    _record(queue.path, taken, admissions)
    log.info("outcomes_admitted", taken=len(taken), admitted=sum(a.verdict == "admitted" for a in admissions))
    return admissions


_save_lock = threading.Lock()


def _save(store: AtlasStore, layers: dict[str, list]) -> None:
    with _save_lock:  # an embedded store has one writer; servers finish concurrently
        store.save(layers)
        store.flush()


def _record(path: Path, taken: Sequence[QueuedOutcome], admissions: Sequence[Admission]) -> None:
    reports = {item.id: item for item in taken}
    for verdict in ("admitted", "rejected"):
        lines = [
            {"report": reports[a.id].model_dump(mode="json"), "admission": a.model_dump(mode="json")}
            for a in admissions if a.verdict == verdict
        ]
        if lines:
            with open(path.with_name(f"{path.stem}.{verdict}.jsonl"), "a", encoding="utf-8") as handle:
                handle.writelines(json.dumps(line) + "\n" for line in lines)
