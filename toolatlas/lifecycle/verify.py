"""Replaying what the atlas says (``toolatlas verify``): each chosen entry's evidence, on a fresh sandbox.

An entry is a claim with its proof. Verification repeats the proof: for each chosen affordance and
boundary, its latest evidence call is run again on a fresh sandbox of its server — the calls that
preceded it in its probe first, then the call itself — and verified the way a build verifies it.
The replay **agrees** when the call fails or succeeds as the evidence did, with the same outcome
class; for a boundary, with the same error signature (instance paths and random names masked);
for an affordance, changing the environment exactly when the evidence recorded a change.

What becomes of each entry (:func:`apply`):

- agreed: it stays ``active`` and its ``last_verified`` moves to now;
- differed: ``contradicted``, with the difference as its reason and the new observation kept as
  evidence (a later build that sees the claim again must outweigh the contradiction);
- its tool is no longer listed: ``retired``; its tool's interface changed: ``stale`` (``refresh``
  probes it again).

Co-usage entries are not replayed here: their witnesses record the call that observed the peer's
effect, not the whole composition. A server that cannot be started is reported and its entries
are left as they are.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime, timedelta

import structlog
from pydantic import Field

from toolatlas.config import ServerSpec
from toolatlas.errors import ToolAtlasError
from toolatlas.graph.models import MAX_EVIDENCE, Entry, EntryKind, EntryStatus, Evidence
from toolatlas.models import Frozen, utcnow
from toolatlas.probing.executor import Executor
from toolatlas.probing.hidden import mirror_index
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, Verdict
from toolatlas.probing.text import error_signature, evidence_excerpt, to_placeholders
from toolatlas.store.atlas import AtlasStore
from toolatlas.workspace import Workspace

__all__ = [
    "Replay",
    "ServerVerification",
    "VerifyReport",
    "agreement",
    "apply",
    "choose",
    "listing_changes",
    "outdated",
    "replay_probe",
    "verify_catalogue",
    "verify_server",
]

log = structlog.get_logger(__name__)

class Replay(Frozen):
    """One entry's evidence replayed, and what it showed."""

    entry: str
    server: str
    tool: str
    kind: EntryKind
    verdict: str
    """``agreed``, ``contradicted``, ``retired`` (tool gone) or ``stale`` (tool's interface changed)."""
    detail: str = ""
    observed: Evidence | None = None
    """What the replay's call showed (kept as evidence of a contradicted entry)."""


class ServerVerification(Frozen):
    """What verifying one server's chosen entries found."""

    server: str
    replays: list[Replay] = Field(default_factory=list)
    tools: dict[str, str] = Field(default_factory=dict)
    """Tool name → schema hash, as the server listed them for this verification."""
    error: str = ""
    """Why the server could not be verified (it would not start): its entries are left as they are."""
    seconds: float = 0.0

    def count(self, verdict: str) -> int:
        return sum(1 for r in self.replays if r.verdict == verdict)


class VerifyReport(Frozen):
    """What a verification of a catalogue's atlas found, per server."""

    catalogue: str
    servers: list[ServerVerification]
    seconds: float

    @property
    def replays(self) -> list[Replay]:
        return [r for s in self.servers for r in s.replays]

    @property
    def agreement(self) -> float | None:
        """Agreed replays over all replays (None when nothing was replayed)."""
        replays = self.replays
        return sum(r.verdict == "agreed" for r in replays) / len(replays) if replays else None

    @property
    def ok(self) -> bool:
        """Every server verified and every replay agreed."""
        return all(not s.error for s in self.servers) and all(r.verdict == "agreed" for r in self.replays)


def choose(
    entries: Iterable[Entry],
    *,
    sample: int | None = None,
    older_than: timedelta | None = None,
    seed: int = 0,
    now: datetime | None = None,
) -> list[Entry]:
    """The served affordances and boundaries to replay: all of them, those last verified longer than
    ``older_than`` ago, and of those a seeded random ``sample``."""
    now = now or utcnow()
    chosen = sorted(
        (e for e in entries
         if e.status is EntryStatus.ACTIVE and e.kind is not EntryKind.CO_USAGE and e.evidence
         and (older_than is None or now - e.last_verified >= older_than)),
        key=lambda e: e.id,
    )
    if sample is not None and sample < len(chosen):
        chosen = sorted(random.Random(seed).sample(chosen, sample), key=lambda e: e.id)
    return chosen


def replay_probe(server: str, evidence: Evidence, n: int, family: str | None = None) -> Probe:
    """An evidence call as a probe: the calls before it in its probe, then the call itself — the misuse it
    was (``family``, the entry's), so that it is judged as the build judged it —, then the reads that proved
    what it did (:attr:`Evidence.after`)."""
    def step(call: dict) -> ProbeStep:
        return ProbeStep(tool=call["tool"], arguments=call["arguments"], marker=call.get("marker"),
                         observes=call.get("observes"), loses=call.get("loses"))

    steps = [step(c) for c in evidence.prefix]
    mirrors = mirror_index([c["tool"] for c in evidence.prefix], evidence.tool, family)  # compared again, as built
    steps.append(ProbeStep(tool=evidence.tool, arguments=evidence.arguments, mutation=family, marker=evidence.marker,
                           mirrors=mirrors))
    steps += [step(c) for c in evidence.after]
    return Probe(id=f"verify{n}", server=server, round=0, direction=Direction.AFFORDANCE, target=evidence.tool,
                 task=f"replay of {evidence.probe_id} step {evidence.step}", steps=steps)


def agreement(entry: Entry, evidence: Evidence, rollout: Rollout, verdict: Verdict) -> tuple[bool, str]:
    """Whether a replay shows what the evidence showed; the difference, in words, when it does not."""
    if rollout.infrastructure_error is not None:
        return False, f"sandbox: {rollout.infrastructure_error[:120]}"
    call = len(evidence.prefix)
    last = next((v for v in verdict.steps if v.index == call), None)
    if last is None or (evidence.after and len(rollout.steps) < len(rollout.probe.steps)):
        return False, f"the calls before it stopped at step {rollout.aborted_at}"
    outcome = next(s.outcome for s in rollout.steps if s.index == call)
    expected_failed = entry.kind is EntryKind.BOUNDARY
    if last.failed != expected_failed:
        said = "failed" if expected_failed else "succeeded"
        return False, f"{'failed' if last.failed else 'succeeded'} where the evidence {said}: {outcome.excerpt[:120]!r}"
    if last.outcome is not evidence.outcome:
        return False, f"outcome {last.outcome.value}, evidence {evidence.outcome.value}"
    if expected_failed:
        # the signature of what the build keeps: the replayed excerpt cut where evidence is cut
        kept = evidence_excerpt(to_placeholders(outcome.excerpt, rollout.variables))
        replayed = error_signature(kept) or last.outcome.value
        recorded = error_signature(evidence.excerpt) or evidence.outcome.value
        if replayed != recorded:
            return False, f"error {replayed[:100]!r}, evidence {recorded[:100]!r}"
        return True, ""
    if (not last.change.empty) != bool(evidence.state_change):
        return False, f"state change {last.change.summary(limit=2)!r}, evidence {evidence.state_change or 'no change'!r}"
    return True, ""


def _observed(evidence: Evidence, rollout: Rollout, verdict: Verdict) -> Evidence | None:
    if not rollout.steps:
        return None
    call = len(evidence.prefix)
    outcome = next((s.outcome for s in rollout.steps if s.index == call), rollout.steps[-1].outcome)
    last = next((v for v in verdict.steps if v.index == call), None)
    change = "" if last is None or last.change.empty else last.change.summary(limit=3)
    return evidence.model_copy(update={
        "probe_id": f"verify:{evidence.probe_id}",
        "outcome": outcome.outcome,
        "excerpt": evidence_excerpt(to_placeholders(outcome.excerpt, rollout.variables)),
        "state_change": change,
    })


def outdated(tool: str, schema_hash: str, tools: dict[str, str]) -> tuple[EntryStatus, str] | None:
    """The status of a record of ``tool`` at ``schema_hash`` when the server lists ``tools`` (name →
    schema hash) and the record no longer describes one of them, and why; None when it still does."""
    listed = tools.get(tool)
    if listed is None:
        return EntryStatus.RETIRED, "the server no longer lists the tool"
    if listed != schema_hash:
        return EntryStatus.STALE, f"the tool's interface changed ({schema_hash} → {listed})"
    return None


def _interface(entry: Entry, tools: dict[str, str]) -> Replay | None:
    """The replay an entry needs none of: its tool is gone or changed its interface."""
    found = outdated(entry.tool, entry.schema_hash, tools)
    if found is None:
        return None
    status, why = found
    verdict = "retired" if status is EntryStatus.RETIRED else "stale"
    return Replay(entry=entry.id, server=entry.server, tool=entry.tool, kind=entry.kind, verdict=verdict, detail=why)


async def verify_server(
    workspace: Workspace,
    spec: ServerSpec,
    entries: Sequence[Entry],
    *,
    on_replay: Callable[[Replay], None] | None = None,
) -> ServerVerification:
    """Replay ``entries`` (all of ``spec``'s server) on one fresh sandbox, one after the other."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    executor = Executor(workspace.sandbox(spec), f"{spec.name}/verify")
    replays: list[Replay] = []
    try:
        await executor.start()
    except ToolAtlasError as exc:
        await executor.close()
        log.warning("verify_server_failed", server=spec.name, error=str(exc)[:300])
        return ServerVerification(server=spec.name, error=str(exc)[:500], seconds=loop.time() - t0)
    try:
        tools = {t.name: t.schema_hash for t in executor.sandbox.tools}
        for n, entry in enumerate(entries):
            replay = _interface(entry, tools)
            if replay is None:
                evidence = entry.evidence[-1]
                verified = await executor.run_verified(replay_probe(spec.name, evidence, n, entry.family))
                assert verified is not None  # None only for a deferred replay
                rollout, verdict = verified
                agreed, why = agreement(entry, evidence, rollout, verdict)
                replay = Replay(entry=entry.id, server=entry.server, tool=entry.tool, kind=entry.kind,
                                verdict="agreed" if agreed else "contradicted", detail=why,
                                observed=None if agreed else _observed(evidence, rollout, verdict))
            replays.append(replay)
            if on_replay is not None:
                on_replay(replay)
    finally:
        await executor.close()
    return ServerVerification(server=spec.name, replays=replays, tools=tools, seconds=loop.time() - t0)


def apply(entries: Iterable[Entry], replays: Iterable[Replay], now: datetime | None = None) -> list[Entry]:
    """The entries as the replays leave them (only those a replay concerned)."""
    now = now or utcnow()
    by_id = {replay.entry: replay for replay in replays}
    updated = []
    for entry in entries:
        replay = by_id.get(entry.id)
        if replay is None:
            continue
        if replay.verdict == "agreed":
            updated.append(entry.model_copy(update={"last_verified": now}))
            continue
        change: dict = {"status_reason": replay.detail, "status_changed": now}
        if replay.verdict == "contradicted":
            evidence = [*entry.evidence[: MAX_EVIDENCE - 1], replay.observed] if replay.observed else entry.evidence
            change |= {"status": EntryStatus.CONTRADICTED, "contradictions": entry.contradictions + 1,
                       "evidence": evidence}
        else:
            change["status"] = EntryStatus.RETIRED if replay.verdict == "retired" else EntryStatus.STALE
        updated.append(entry.model_copy(update=change))
    return updated


ReplayServer = Callable[[ServerSpec, list[Entry]], Awaitable[ServerVerification]]
"""Where a server's replays run: in this process (:func:`verify_server`) or on a cluster (``actors/verify.py``)."""


async def verify_catalogue(
    workspace: Workspace,
    store: AtlasStore,
    servers: Sequence[ServerSpec],
    *,
    sample: int | None = None,
    older_than: timedelta | None = None,
    seed: int = 0,
    jobs: int = 4,
    replay: ReplayServer | None = None,
    on_server: Callable[[ServerVerification], None] | None = None,
) -> VerifyReport:
    """Replay the chosen entries of ``servers`` (``jobs`` servers at a time) and store what they showed:
    the entries' new statuses and each server's ``verified_at``."""
    t0 = asyncio.get_running_loop().time()
    gate = asyncio.Semaphore(jobs)
    run = replay or (lambda spec, chosen: verify_server(workspace, spec, chosen))
    now = utcnow()

    async def one(spec: ServerSpec) -> ServerVerification:
        records = await asyncio.to_thread(store.server_records, spec.name)
        chosen = choose(records["entries"], sample=sample, older_than=older_than, seed=seed, now=now)
        async with gate:
            result = await run(spec, chosen)
        if not result.error:
            layers = listing_changes(records, result.tools, now)
            replayed = {e.id: e for e in apply(chosen, result.replays, now)}
            layers["entries"] = [*(e for e in layers["entries"] if e.id not in replayed), *replayed.values()]
            layers["servers"] = [n.model_copy(update={"verified_at": now}) for n in records["servers"]]
            await asyncio.to_thread(_save, store, layers)
        if on_server is not None:
            on_server(result)
        return result

    results = await asyncio.gather(*(one(spec) for spec in servers))
    return VerifyReport(catalogue=workspace.catalogue.name, servers=list(results),
                        seconds=round(asyncio.get_running_loop().time() - t0, 3))


def listing_changes(records: dict[str, list], tools: dict[str, str], now: datetime | None = None) -> dict[str, list]:
    """What the server's listing (``tools``: name → schema hash) alone says of its stored ``records``:
    entries (any kind, replayed or not) and tool nodes of a tool gone marked ``retired``, of a tool
    whose interface changed ``stale`` — unless they say so already (or were quarantined)."""
    now = now or utcnow()
    entries, nodes = [], []
    for entry in records.get("entries", []):
        found = outdated(entry.tool, entry.schema_hash, tools)
        if found is not None and entry.status not in (found[0], EntryStatus.RETIRED, EntryStatus.QUARANTINED):
            entries.append(entry.model_copy(update={"status": found[0], "status_reason": found[1], "status_changed": now}))
    for node in records.get("tools", []):
        found = outdated(node.tool, node.schema_hash, tools)
        if found is not None and node.status is EntryStatus.ACTIVE:
            nodes.append(node.model_copy(update={"status": found[0]}))
    return {"entries": entries, "tools": nodes}


_save_lock = threading.Lock()


def _save(store: AtlasStore, layers: dict[str, list]) -> None:
    with _save_lock:  # an embedded store has one writer; servers finish concurrently
        store.save(layers)
        store.flush()
