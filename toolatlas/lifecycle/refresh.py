"""Keeping an atlas true as its servers change (``toolatlas refresh``): probe only what changed.

For each server, the tools it lists today and the fingerprint of today's set-up
(:mod:`toolatlas.graph.fingerprint`) are compared with what the atlas stored when it was built:

- an **unchanged** tool keeps its entries as they are (support untouched, no probe spent);
- a tool whose **interface changed** (schema hash) has its entries marked ``stale`` and is probed
  again — bootstrap and rounds — together with its co-usage neighbours, whose compositions with it
  may have changed too;
- a **removed** tool's records are marked ``retired``;
- a **new** tool is onboarded into the existing graph: probed, with the tools it composes with
  reachable from its probes (the graph's other tools keep their knowledge and take part in its chains);
- a changed **release, start-up or starting state** (runtime, transport, snapshot) leaves every
  interface as it was but may have changed behaviour: the unchanged tools' served entries are
  replayed first (:mod:`toolatlas.lifecycle.verify`) and keep ``active`` only if they agree; a tool
  one of whose replays disagreed — or whose entries an earlier ``verify`` contradicted — is probed
  again, so the atlas learns what it does now.

A server the atlas holds nothing of is built whole. An atlas stored before servers carried
fingerprints is compared by its tool nodes' schema hashes, and its unchanged tools are replayed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from enum import StrEnum

import structlog
from pydantic import Field

from toolatlas.config import BuildSettings, ServerSpec
from toolatlas.errors import ToolAtlasError
from toolatlas.graph.fingerprint import fingerprint
from toolatlas.graph.models import EntryStatus, Fingerprint, ServerNode, ToolNode
from toolatlas.graph.state import RoundCoverage
from toolatlas.lifecycle.verify import ServerVerification, apply, choose, listing_changes, verify_server
from toolatlas.models import Frozen, ToolSpec
from toolatlas.pipeline.catalogue import write_consistency
from toolatlas.pipeline.persistence import StoreSink
from toolatlas.pipeline.server import ServerBuild
from toolatlas.store.atlas import AtlasStore
from toolatlas.store.paths import AtlasPaths
from toolatlas.workspace import Workspace

__all__ = [
    "RefreshPlan",
    "ServerRefresh",
    "ToolFate",
    "build_focus",
    "plan_refresh",
    "prepare_refresh",
    "probed",
    "prepare_catalogue",
    "refresh_catalogue",
]

log = structlog.get_logger(__name__)


class ToolFate(StrEnum):
    """What a refresh does with one tool."""

    KEPT = "kept"
    """Unchanged: its entries stay as they are."""
    REPLAYED = "replayed"
    """Unchanged interface under a changed release, start-up or state: its entries are replayed."""
    REPROBED = "reprobed"
    """Its interface changed: old entries stale, probed again."""
    NEIGHBOUR = "neighbour"
    """A co-usage neighbour of a changed or new tool: probed again for its compositions."""
    ONBOARDED = "onboarded"
    """New: probed into the existing graph."""
    REVISED = "revised"
    """Unchanged interface, but entries of it were contradicted (by this refresh's replays or an
    earlier ``verify``): probed again."""
    RETIRED = "retired"
    """Gone from the server: its records are retired."""


class RefreshPlan(Frozen):
    """What a refresh of one server will do, and why."""

    server: str
    current: Fingerprint
    previous: Fingerprint | None = None
    """What the atlas stored (None: it holds nothing of the server)."""
    fates: dict[str, ToolFate] = Field(default_factory=dict)
    changes: list[str] = Field(default_factory=list)
    """The fingerprint's differences, in words."""

    @property
    def focus(self) -> frozenset[str]:
        """The tools to probe."""
        probed = (ToolFate.REPROBED, ToolFate.NEIGHBOUR, ToolFate.ONBOARDED, ToolFate.REVISED)
        return frozenset(tool for tool, fate in self.fates.items() if fate in probed)

    @property
    def replayed(self) -> frozenset[str]:
        return frozenset(tool for tool, fate in self.fates.items() if fate is ToolFate.REPLAYED)


class ServerRefresh(Frozen):
    """What refreshing one server did."""

    server: str
    plan: RefreshPlan | None = None
    probes: int = 0
    coverage: list[RoundCoverage] = Field(default_factory=list)
    verification: ServerVerification | None = None
    error: str = ""
    seconds: float = 0.0


_BEHAVIOUR = ("runtime", "transport", "snapshot")
"""Fingerprint parts whose change may change behaviour behind unchanged interfaces."""


def plan_refresh(server: str, current: Fingerprint, previous: Fingerprint | None, nodes: list[ToolNode]) -> RefreshPlan:
    """Decide each tool's fate from the stored fingerprint (or, without one, the stored tool nodes)."""
    if previous is None and not nodes:
        return RefreshPlan(server=server, current=current, changes=["nothing stored yet: built whole"],
                           fates={tool: ToolFate.ONBOARDED for tool in current.tools})
    if previous is None:  # stored before fingerprints: the tool nodes tell the interfaces, nothing else
        previous = current.model_copy(update={
            "runtime": "", "transport": "", "snapshot": "",
            "tools": {n.tool: n.schema_hash for n in nodes if n.status is EntryStatus.ACTIVE},
        })
    behaviour = any(getattr(previous, part) != getattr(current, part) for part in _BEHAVIOUR)
    fates: dict[str, ToolFate] = {}
    for tool in sorted(set(previous.tools) | set(current.tools)):
        before, after = previous.tools.get(tool), current.tools.get(tool)
        if after is None:
            fates[tool] = ToolFate.RETIRED
        elif before is None:
            fates[tool] = ToolFate.ONBOARDED
        elif before != after:
            fates[tool] = ToolFate.REPROBED
        else:
            fates[tool] = ToolFate.REPLAYED if behaviour else ToolFate.KEPT
    moved = {tool for tool, fate in fates.items() if fate in (ToolFate.REPROBED, ToolFate.ONBOARDED, ToolFate.RETIRED)}
    for node in nodes:
        if node.status is not EntryStatus.ACTIVE or fates.get(node.tool) not in (ToolFate.KEPT, ToolFate.REPLAYED):
            continue
        if moved & set(node.neighbours) or any(node.tool in n.neighbours for n in nodes if n.tool in moved):
            fates[node.tool] = ToolFate.NEIGHBOUR
    return RefreshPlan(server=server, current=current, previous=previous, fates=fates,
                       changes=previous.changes(current))


async def live_tools(workspace: Workspace, spec: ServerSpec) -> list[ToolSpec]:
    """The tools the server lists today (a sandbox started for the listing and closed)."""
    sandbox = workspace.sandbox(spec)
    try:
        await sandbox.start()
        return list(sandbox.tools)
    finally:
        await sandbox.close()


async def prepare_refresh(
    workspace: Workspace, store: AtlasStore, sink: StoreSink, spec: ServerSpec, settings: BuildSettings
) -> ServerRefresh:
    """Everything of one server's refresh but its probes: list its tools, plan each one's fate, replay
    what a changed release may have changed (marking the tools whose replays disagreed for probing),
    and — when nothing is to be probed — store what the listing alone settles. The plan's
    :attr:`~RefreshPlan.focus` is what is left to probe (:func:`refresh_catalogue` in this process, or a
    Ray build)."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    try:
        tools = await live_tools(workspace, spec)
    except ToolAtlasError as exc:
        return ServerRefresh(server=spec.name, error=str(exc)[:500], seconds=loop.time() - t0)
    records = await asyncio.to_thread(store.server_records, spec.name)
    snapshot = (await asyncio.to_thread(workspace.snapshot, spec)).content_hash
    current = fingerprint(spec, tools, settings, snapshot)
    stored = records["servers"][0].fingerprint if records["servers"] else None
    plan = plan_refresh(spec.name, current, stored, records["tools"])
    verification = None
    # what no longer holds marks its tool for probing: contradicted by an earlier `verify`, or by
    # the replays a changed release asks for (made first)
    revised = {e.tool for e in records["entries"] if e.status is EntryStatus.CONTRADICTED}
    if plan.replayed:
        chosen = [e for e in choose(records["entries"]) if e.tool in plan.replayed]
        verification = await verify_server(workspace, spec, chosen)
        if verification.error:
            return ServerRefresh(server=spec.name, plan=plan, verification=verification, error=verification.error,
                                 seconds=loop.time() - t0)
        await asyncio.to_thread(sink.save_records, {"entries": apply(chosen, verification.replays)})
        revised |= {r.tool for r in verification.replays if r.verdict == "contradicted"}
    unchanged = (ToolFate.KEPT, ToolFate.REPLAYED)
    revised = {tool for tool in revised if plan.fates.get(tool) in unchanged}
    plan = plan.model_copy(update={"fates": {**plan.fates, **dict.fromkeys(revised, ToolFate.REVISED)}})
    log.info("refresh_planned", server=spec.name, focus=sorted(plan.focus), changes=plan.changes[:5])
    if not plan.focus:  # nothing to probe: the listing alone settles what is gone or changed
        await asyncio.to_thread(sink.save_records, _settled(records, current, spec.name))
    return ServerRefresh(server=spec.name, plan=plan, verification=verification, seconds=loop.time() - t0)


def probed(refresh: ServerRefresh, coverage: list[RoundCoverage], seconds: float = 0.0) -> ServerRefresh:
    """A prepared refresh with the rounds that probed its focus."""
    failed = [row for row in coverage if row.status != "ok"]
    return refresh.model_copy(update={
        "coverage": coverage, "probes": sum(row.probes for row in coverage),
        "error": failed[-1].detail if failed else refresh.error, "seconds": refresh.seconds + seconds,
    })


def build_focus(refresh: ServerRefresh) -> frozenset[str] | None:
    """What a build must probe for a prepared refresh: its plan's focus, or every tool (None) for a
    server the atlas held nothing of."""
    assert refresh.plan is not None
    return None if refresh.plan.previous is None else refresh.plan.focus


def _settled(records: dict[str, list], current: Fingerprint, server: str) -> dict[str, list]:
    """Records of tools the server no longer lists (or lists changed) marked so, and the new fingerprint."""
    layers = listing_changes(records, current.tools)
    previous = records["servers"][0] if records["servers"] else None
    layers["servers"] = [ServerNode(id=ServerNode.make_id(server), server=server, fingerprint=current,
                                    verified_at=previous.verified_at if previous else None)]
    return layers


async def prepare_catalogue(
    workspace: Workspace, store: AtlasStore, servers: Sequence[ServerSpec], *, jobs: int = 4
) -> list[ServerRefresh]:
    """:func:`prepare_refresh` for ``servers``, ``jobs`` at a time."""
    sink = StoreSink(store, AtlasPaths(workspace.catalogue))
    gate = asyncio.Semaphore(jobs)

    async def one(spec: ServerSpec) -> ServerRefresh:
        async with gate:
            try:
                return await prepare_refresh(workspace, store, sink, spec, workspace.catalogue.build)
            except Exception as exc:  # one server's failure must not lose the others' refresh
                log.exception("server_refresh_crashed", server=spec.name)
                return ServerRefresh(server=spec.name, error=f"{type(exc).__name__}: {exc}"[:500])

    return list(await asyncio.gather(*(one(spec) for spec in servers)))


async def refresh_catalogue(
    workspace: Workspace,
    store: AtlasStore,
    servers: Sequence[ServerSpec],
    *,
    rounds: int | None = None,
    jobs: int = 4,
    on_round: Callable[[RoundCoverage], None] | None = None,
    on_server: Callable[[ServerRefresh], None] | None = None,
) -> list[ServerRefresh]:
    """Refresh ``servers`` (``jobs`` at a time) in the catalogue's atlas, probing in this process."""
    catalogue = workspace.catalogue
    sink = StoreSink(store, AtlasPaths(catalogue))
    gate = asyncio.Semaphore(jobs)
    prepared = await prepare_catalogue(workspace, store, servers, jobs=jobs)

    async def probe(refresh: ServerRefresh) -> ServerRefresh:
        if not refresh.error and refresh.plan is not None and refresh.plan.focus:
            async with gate:
                spec = catalogue.server(refresh.server)
                t0 = asyncio.get_running_loop().time()
                build = ServerBuild(workspace, spec, catalogue.build, sink=sink, on_round=on_round, rounds=rounds,
                                    focus=build_focus(refresh))
                build.preload = await asyncio.to_thread(store.server_records, spec.name)
                try:
                    coverage = await build.run()
                except Exception as exc:  # one server's failure must not lose the others' refresh
                    log.exception("server_refresh_crashed", server=spec.name)
                    return refresh.model_copy(update={"error": f"{type(exc).__name__}: {exc}"[:500]})
                refresh = probed(refresh, coverage, asyncio.get_running_loop().time() - t0)
        if on_server is not None:
            on_server(refresh)
        return refresh

    results = list(await asyncio.gather(*(probe(refresh) for refresh in prepared)))
    await asyncio.to_thread(store.optimize)
    await asyncio.to_thread(lambda: write_consistency(AtlasPaths(catalogue), store.all("entries")))
    return results
