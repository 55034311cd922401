"""Discovery: before bootstrap, ask the server itself what exists and what each tool costs.

An opaque environment (a database a ``command`` prepares, state a server keeps in memory) gives
the planner no facts, and a snapshot's files do not say what the server makes of them (the tasks of a
board kept in one markdown file), but the server's own tools can. In one scratch sandbox, before any
probe:

1. **Listings.** Every read tool that needs no argument — the listing, describing and schema tools
   (``list_tables``, ``get_schema``, ``list_tasks``…, recognised from annotations, verbs and
   schemas, never by name) — then the read tools whose required arguments those answers fill
   (``describe_table`` of a listed table). Their outputs seed the value pool, so bootstrap calls
   name real things.
2. **Introspection.** A tool that takes a SELECT is asked the catalogue questions of
   :mod:`toolatlas.offline.introspect` when the snapshot told nothing of the database: real
   tables, columns and constraints, hence real writes and real constraint errors.
3. **Pilots.** Every tool is called once (its plainest valid call) under a short timeout and
   timed. A tool that does not answer a pilot within :data:`SLOW_CALL_S` is *slow* (a pilot
   that took over :data:`REPEAT_PILOT_S` but answered in time is repeated once and the second
   time kept, so a cold first call — a lazy import — is not held against it; one that timed out is
   first given :data:`COLD_START_S`, as a first call that loads a dictionary needs). The
   classification has a wide margin on purpose: ordinary calls take milliseconds, the threshold
   is a second, so the atlas does not depend on machine speed; only a tool that really takes
   about a second could be classed differently on another machine.
4. **Refusal pilots.** Every tool that answered its pilot in time is then asked once for
   something that does not exist — its first boundary mutation that names an absent reference,
   else its first mutation a careful server refuses — and timed once (the tool's pilot has loaded
   its code: a slow refusal is slow again, and asking twice would double its cost): a
   lookup of what is not there can cost a hundred times the answer (a schema reflected in full
   before the name is found missing), and the build shares its time by what calls cost
   (:mod:`toolatlas.pipeline.budget`), refusals included, from the first round on. They run after
   every answer pilot: what one changes reaches no other tool's pilot.

The scratch sandbox is thrown away afterwards: nothing a pilot changed reaches a probe. The
result is a frozen :class:`Discovery`, kept in the build checkpoint so a resumed build plans
from the same knowledge without asking again.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import structlog
from pydantic import Field

from toolatlas.models import CallOutcome, Frozen, OutcomeClass, ToolSpec
from toolatlas.offline.dbfacts import DatabaseFacts
from toolatlas.offline.introspect import SqlIntrospection
from toolatlas.offline.kinds import ToolEffect, infer_arguments, tool_effect
from toolatlas.offline.readback import sql_select_spec
from toolatlas.offline.rows import parse_rows
from toolatlas.probing.text import looks_like_error, to_placeholders

if TYPE_CHECKING:
    from toolatlas.offline.values import ValueSynth
    from toolatlas.sandbox import Sandbox

__all__ = [
    "PILOT_TIMEOUT_S",
    "SLOW_CALL_S",
    "DiscoveredOutput",
    "Discovery",
    "ToolCost",
    "discover",
    "run_blocking",
]

log = structlog.get_logger(__name__)

SLOW_CALL_S = 1.0
"""A tool whose pilot takes longer is slow: fewer probes, a tight timeout."""
REPEAT_PILOT_S = 0.1
"""A pilot that took longer is made once more and the second call's time kept: a tool's first call may
load its code, and what the build plans by (:mod:`toolatlas.pipeline.budget`) is what its calls cost after."""
COLD_START_S = 6.0
"""Longest wait for the second call of a tool whose pilot timed out: a first call that loads a model or a dictionary
(WordNet: about three seconds) is a cold start, not the tool's cost."""
PILOT_TIMEOUT_S = 2.0
"""Longest wait for one pilot (or discovery) call."""
MAX_LISTINGS = 12
"""Listing and describing calls per server."""
SCOPE_CHOICES = 4
"""Choices of a query tool's other required arguments (the file it opens) tried for introspection."""
DISCOVERY_TIMEOUT_S = 300.0
"""Longest the whole discovery of one server may take (starting the server included)."""


class ToolCost(Frozen):
    """What one tool's pilot cost."""

    seconds: float
    timed_out: bool = False
    slow: bool = False
    refusal_seconds: float | None = None
    """Seconds of its refusal pilot (None: none was made)."""


class DiscoveredOutput(Frozen):
    """One listing or describing call and its answer, instance paths already replaced by placeholders."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    excerpt: str = ""
    structured: dict[str, Any] | None = None


class Discovery(Frozen):
    """What the server's own tools told before bootstrap."""

    outputs: list[DiscoveredOutput] = Field(default_factory=list)
    database: DatabaseFacts | None = None
    """Facts read through the server's query tool (only when the snapshot gave none)."""
    costs: dict[str, ToolCost] = Field(default_factory=dict)
    error: str = ""
    """Why discovery stopped early (the server would not start…); what it found until then is kept."""
    instructions: str = ""
    """What the server says of itself when a client connects (the MCP ``instructions``)."""

    @property
    def slow(self) -> list[str]:
        return sorted(name for name, cost in self.costs.items() if cost.slow)


def _answered(outcome: CallOutcome) -> bool:
    return outcome.outcome is OutcomeClass.OK and not looks_like_error(outcome.excerpt)


class _Session:
    """The discovery of one server in one scratch sandbox."""

    def __init__(self, sandbox: Sandbox, synth: ValueSynth, *, listings: bool, introspect: bool) -> None:
        self.sandbox = sandbox
        self.synth = synth
        self.listings = listings
        self.introspect = introspect
        self.outputs: list[DiscoveredOutput] = []
        self.costs: dict[str, ToolCost] = {}

    async def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> CallOutcome:
        from toolatlas.environments import render_value

        variables = self.sandbox.variables()
        outcome = await self.sandbox.call(tool.name, render_value(arguments, variables), timeout=PILOT_TIMEOUT_S)
        if tool.name not in self.costs:  # the first call of a tool is its pilot (a restart is not its time)
            self.costs[tool.name] = await self._judge(tool, arguments, outcome.latency_ms / 1000, outcome)
        return outcome

    async def _judge(self, tool: ToolSpec, arguments: dict[str, Any], seconds: float, outcome: CallOutcome) -> ToolCost:
        from toolatlas.environments import render_value

        timed_out = outcome.outcome is OutcomeClass.TIMEOUT
        if timed_out:  # maybe a cold start longer than a pilot's wait (a dictionary loaded): once with a longer one
            warm = await self.sandbox.call(
                tool.name, render_value(arguments, self.sandbox.variables()), timeout=COLD_START_S
            )
            timed_out = warm.outcome is OutcomeClass.TIMEOUT
        if seconds > REPEAT_PILOT_S and not timed_out:  # late but in time: maybe a cold start, ask once more
            again = await self.sandbox.call(
                tool.name, render_value(arguments, self.sandbox.variables()), timeout=PILOT_TIMEOUT_S
            )
            seconds = again.latency_ms / 1000
            timed_out = again.outcome is OutcomeClass.TIMEOUT
        return ToolCost(seconds=round(seconds, 4), timed_out=timed_out, slow=timed_out or seconds > SLOW_CALL_S)

    def keep(self, tool: ToolSpec, arguments: dict[str, Any], outcome: CallOutcome) -> None:
        variables = self.sandbox.variables()
        self.outputs.append(
            DiscoveredOutput(
                tool=tool.name,
                arguments=arguments,
                excerpt=to_placeholders(outcome.excerpt, variables),
                structured=to_placeholders(outcome.structured, variables) if outcome.structured else None,
            )
        )
        self.synth.pool.harvest(tool, outcome.excerpt, outcome.structured, variables, f"discovery:{tool.name}",
                                arguments=arguments)

    async def run(self, tools: list[ToolSpec]) -> tuple[list[DiscoveredOutput], DatabaseFacts | None, dict[str, ToolCost]]:
        readers = [t for t in tools if tool_effect(t) is ToolEffect.READ]
        plain = [t for t in readers if not t.required]
        if self.listings:
            for tool in plain[:MAX_LISTINGS]:  # listings first: what exists, on the untouched state
                outcome = await self.call(tool, {})
                if _answered(outcome):
                    self.keep(tool, {}, outcome)
            room = MAX_LISTINGS - len(self.outputs)
            for tool in [t for t in readers if t.required][: max(room, 0)]:  # describing what the listings named
                planned = self.synth.valid_arguments(tool, infer_arguments(tool), 0)
                if planned is not None and planned.used_values:
                    outcome = await self.call(tool, planned.arguments)
                    if _answered(outcome):
                        self.keep(tool, planned.arguments, outcome)
        database = await self._introspect(readers) if self.introspect else None
        if database is not None:
            self.synth = type(self.synth)(
                self.synth.facts.model_copy(update={"database": database}), self.synth.pool, self.synth.rng
            )
        ordered = sorted(tools, key=lambda t: (tool_effect(t) is not ToolEffect.READ, t.name))
        for tool in ordered:  # every other tool once, reads first: its pilot
            if tool.name in self.costs:
                continue
            planned = self.synth.valid_arguments(tool, infer_arguments(tool), 0)
            await self.call(tool, planned.arguments if planned is not None else {})
        for tool in ordered:  # then what a refusal of each costs
            if tool.name in self.costs and not self.costs[tool.name].timed_out:
                await self._refusal_pilot(tool)
        return self.outputs, database, self.costs

    async def _refusal_pilot(self, tool: ToolSpec) -> None:
        from toolatlas.environments import render_value
        from toolatlas.offline.mutations import MutationKind, boundary_mutations

        specs = infer_arguments(tool)
        planned = self.synth.valid_arguments(tool, specs, 0)
        if planned is None:
            return
        refused = [m for m in boundary_mutations(tool, specs, planned.arguments, self.synth) if m.expected_failure]
        absent = [m for m in refused if m.name is MutationKind.NONEXISTENT_REFERENCE]
        if not (absent or refused):
            return
        arguments = render_value((absent or refused)[0].arguments, self.sandbox.variables())
        outcome = await self.sandbox.call(tool.name, arguments, timeout=PILOT_TIMEOUT_S)  # warm: its pilot ran
        self.costs[tool.name] = self.costs[tool.name].model_copy(
            update={"refusal_seconds": round(outcome.latency_ms / 1000, 4)}
        )

    async def _introspect(self, readers: list[ToolSpec]) -> DatabaseFacts | None:
        """Facts from the first query tool that answers the catalogue questions; a tool whose other
        required arguments choose what it queries (a file) is asked with each of a few choices, and the
        choice that shows the most tables is kept as the facts' scope."""
        for tool in readers + [t for t in self.sandbox.tools if t not in readers]:
            spec = sql_select_spec(infer_arguments(tool))
            if spec is None:
                continue
            required = [s for s in infer_arguments(tool) if s.required and s.name != spec.name]
            bases: list[dict[str, Any]] = []
            for variant in range(SCOPE_CHOICES if required else 1):
                planned = self.synth.valid_arguments(tool, required, variant)
                base = planned.arguments if planned is not None else {}
                if base not in bases:
                    bases.append(base)
            best: DatabaseFacts | None = None
            for base in bases:

                async def ask(sql: str, tool: ToolSpec = tool, name: str = spec.name, base: dict = base):
                    outcome = await self.call(tool, {**base, name: sql})
                    return parse_rows(outcome.excerpt, outcome.structured) if _answered(outcome) else None

                found = await SqlIntrospection(ask).facts()
                if found is not None and (best is None or len(found.tables) > len(best.tables)):
                    best = found.model_copy(update={"scope": base}) if required else found
            if best is not None:
                return best
        return None


async def discover(
    sandbox: Sandbox, synth: ValueSynth, *, listings: bool, introspect: bool
) -> Discovery:
    """Discover in ``sandbox`` (started and closed here). A server that fails part-way still
    yields what was found until then, with the reason in :attr:`Discovery.error`."""
    session = _Session(sandbox, synth, listings=listings, introspect=introspect)
    error = instructions = ""
    try:
        await sandbox.start()
        instructions = (sandbox.connection.instructions if sandbox.connection is not None else None) or ""
        outputs, database, costs = await session.run(sandbox.tools)
    except Exception as exc:  # noqa: BLE001 - a server that breaks discovery is probed all the same
        log.warning("discovery_failed", server=sandbox.spec.name, error=str(exc)[:300])
        outputs, database, costs, error = session.outputs, None, session.costs, f"{type(exc).__name__}: {exc}"[:300]
    finally:
        await sandbox.close()
    slow = sorted(n for n, c in costs.items() if c.slow)
    log.info("discovered", server=sandbox.spec.name, listings=len(outputs), database=database is not None, slow=slow)
    return Discovery(outputs=outputs, database=database, costs=costs, error=error, instructions=instructions)


def run_blocking(factory: Callable[[], Coroutine[Any, Any, Discovery]]) -> Discovery:
    """Run a discovery to completion from synchronous code — a worker thread or an actor's event
    loop alike — on a private event loop in a thread of its own."""
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = asyncio.run(asyncio.wait_for(factory(), DISCOVERY_TIMEOUT_S))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            result["error"] = exc

    thread = threading.Thread(target=target, name="toolatlas-discovery", daemon=True)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]
