"""``Atlas``: an atlas loaded for serving, and ``Atlas.guide(task)``.

The atlas is read once — from a catalogue's store (which is then released, so builds can go on)
or from an exported ``atlas.json`` — into an in-memory, read-only :class:`AtlasView` with lexical
indexes. Every serving process or Ray Serve replica loads the same snapshot; none owns a store.
Stale records are left out unless asked for.
"""

from __future__ import annotations

import json
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping
from pathlib import Path
from threading import Lock
from typing import TYPE_CHECKING, Any

import structlog

from toolatlas.config import Catalogue, load_catalogue
from toolatlas.graph.models import Entry, EntryKind, EntryStatus, ServerNode, StrategyNode, ToolNode, TraceNode
from toolatlas.guidance.blends import Blends
from toolatlas.guidance.index import LexicalIndex, content_terms, terms
from toolatlas.guidance.instruments import runners_of
from toolatlas.guidance.models import Guidance, StrategyGuidance, ToolGuidance, TraceExemplar
from toolatlas.guidance.navigator import AsyncNavigator, Navigator, OfflineNavigator, StaticNavigator
from toolatlas.guidance.operations import OPERATIONS, expanded
from toolatlas.guidance.plan import Plan, make_plan
from toolatlas.guidance.profiles import server_profiles, tolerance
from toolatlas.guidance.render import DOCS_RATIO, compress, strategy_guidance, tool_guidance, trace_exemplar
from toolatlas.guidance.routing import ServerRouter, answer_words
from toolatlas.models import Effect
from toolatlas.store.atlas import record_text

if TYPE_CHECKING:
    from toolatlas.trust import LoadReport

__all__ = ["Atlas", "AtlasView"]

log = structlog.get_logger(__name__)

CACHE_SIZE = 4096
"""Guidance answers kept per atlas (the atlas is read-only, so an answer never goes stale)."""


DOCS_WEIGHT = 0.65
"""Share of a tool's relevance that comes from its own documentation (the rest: its verified vocabulary)."""
ANSWERS_WEIGHT = 0.1
"""What the words of a tool's answers add to its relevance (the data it reads out: a sheet's site names and units), on
top of its documentation and its verified vocabulary."""
OFF_ROUTE = 0.3
"""Weight of a tool whose server the task is not routed to."""
ROUTED_FLOOR = 0.7
"""Weight of a tool of the routed server that scores least (one scoring as well as the best: 1)."""

VALUE_CHARS = 500
"""Longer argument values (oversized probes, bulk payloads) are left out of a tool's retrieval text."""


def _strings(value: object) -> list[str]:
    """The short strings inside an argument value (``${placeholders}`` reduced to their names)."""
    if isinstance(value, str):
        return [value.replace("${", " ").replace("}", " ")] if len(value) <= VALUE_CHARS else []
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


ROUTES_KEPT = 4096
"""Routes remembered per atlas (a request asks for its route several times)."""
SCORES_KEPT = 256
"""Texts whose term scores are remembered per atlas (a plan matches a request with and without the answers' words)."""


def route_weight(servers: set[str] | Mapping[str, float], server: str) -> float:
    """How much a tool of ``server`` counts for a task routed to ``servers`` (a set: routed or not; route
    weights: graded from ``ROUTED_FLOOR`` to 1 among the routed servers)."""
    if server not in servers:
        return OFF_ROUTE
    if isinstance(servers, Mapping):
        return ROUTED_FLOOR + (1 - ROUTED_FLOOR) * servers[server]
    return 1.0


class AtlasView:
    """The records of an atlas, indexed for retrieval, with each tool's and server's profile."""

    def __init__(
        self,
        tools: Iterable[ToolNode],
        entries: Iterable[Entry],
        traces: Iterable[TraceNode],
        strategies: Iterable[StrategyNode],
        *,
        include_stale: bool = False,
        servers: Iterable[ServerNode] = (),
    ) -> None:
        def live(record) -> bool:  # a quarantined record failed an integrity check: never read
            if record.status is EntryStatus.QUARANTINED:
                return False
            return include_stale or record.status is EntryStatus.ACTIVE

        layers: dict[str, list[Any]] = {
            "tools": list(tools), "entries": list(entries), "traces": list(traces), "strategies": list(strategies)}
        self.status_counts: Counter[tuple[str, str]] = Counter(
            (layer, record.status.value) for layer, records in layers.items() for record in records)
        """(layer, status) → records the atlas was given, served or not."""
        self.tool_nodes: dict[tuple[str, str], ToolNode] = {(t.server, t.tool): t for t in layers["tools"] if live(t)}
        self.entries: dict[str, Entry] = {e.id: e for e in layers["entries"] if live(e)}
        self.traces: dict[str, TraceNode] = {t.id: t for t in layers["traces"] if live(t)}
        self.strategies: dict[str, StrategyNode] = {s.id: s for s in layers["strategies"] if live(s)}
        self.by_tool: dict[tuple[str, str], dict[EntryKind, list[Entry]]] = {}
        for entry in sorted(self.entries.values(), key=lambda e: (-e.support, -e.confidence, e.id)):
            if (entry.server, entry.tool) in self.tool_nodes:
                self.by_tool.setdefault((entry.server, entry.tool), {k: [] for k in EntryKind})[entry.kind].append(entry)
        self.trace_ids = sorted(self.traces)
        self.tool_keys = sorted(self.tool_nodes)
        self.trace_index = LexicalIndex([record_text(self.traces[i]) for i in self.trace_ids])
        self.docs_index = LexicalIndex([record_text(self.tool_nodes[k]) for k in self.tool_keys])
        """Each tool's name and description: what its documentation says."""
        self.knowledge_index = LexicalIndex([self._knowledge_text(k) for k in self.tool_keys])
        """Each tool's verified vocabulary, every word once: an entry count cannot lift a tool."""
        self.answers_index = LexicalIndex([self._answers_text(k) for k in self.tool_keys])
        """The words each tool's answers said: the data it reads out."""
        self.servers = sorted({k[0] for k in self.tool_keys})
        self.blends = Blends([*self.docs_index.postings, *(t for server in self.servers for t in terms(server))])
        """The catalogue's blended words ("regular expression" → ``regex``), added to what a request is matched by."""
        self.server_nodes: dict[str, ServerNode] = {n.server: n for n in servers if n.server in self.servers}
        """Each server's node: what the catalogue and the server say it is for, and its lexicon (when the atlas
        holds them)."""
        knowledge = [self._knowledge_text(k) for k in self.tool_keys]
        self.server_index = LexicalIndex([
            " ".join([*(f"{record_text(self.tool_nodes[k])} {text}" for k, text in zip(self.tool_keys, knowledge, strict=True)
                        if k[0] == server),
                      *(self.traces[t].task for t in self.trace_ids if self.traces[t].server == server),
                      *((self.server_nodes[server].description, self.server_nodes[server].instructions)
                        if server in self.server_nodes else ())])
            for server in self.servers])
        """Each server as one document of its tools' texts, its traces' tasks and what the catalogue and the
        server itself say it is for: what routes a task to a server."""
        self.router = ServerRouter(self)
        self._routes: dict[str, dict[str, float]] = {}
        self._scores: dict[str, tuple[list[str], dict[int, float], dict[int, float]]] = {}
        self.server_profiles, self.profiles = server_profiles(self.tool_nodes, self.by_tool)
        self.verbs = frozenset(op for p in self.profiles.values() for op in p.operations if op not in OPERATIONS)
        self.runners = runners_of((key, p.purpose) for key, p in self.profiles.items())
        """Tools that run a language (``Python``, ``SQL``), with the languages: what a request's instrument names
        (:mod:`toolatlas.guidance.instruments`)."""
        """The catalogue's own verbs (the first words of tool names the operation vocabulary lacks: ``commit``)."""
        self.compositions: dict[tuple[str, str], dict[tuple[str, str], float]] = {}
        for (server, tool), node in self.tool_nodes.items():
            for peer, weight in node.neighbours.items():
                if peer == tool or (server, peer) not in self.tool_nodes:
                    continue  # a retry of the same tool, or a peer left out (stale)
                for a, b in (((server, tool), (server, peer)), ((server, peer), (server, tool))):
                    links = self.compositions.setdefault(a, {})
                    links[b] = max(links.get(b, 0.0), weight)

    def _knowledge_text(self, key: tuple[str, str]) -> str:
        """The distinct words of what a tool was verified to do and where it was verified to fail, and
        of the argument values that worked (table names, file names, branches…): the domain words a
        task will use. Robustness findings (tolerances) add their argument values but not their text:
        they say what a tool survives, not what it is for; so do failures a mutation provoked (a family:
        their condition is the probe's wording — "the folder that should contain it" — not the tool's)."""
        affordances = self.by_tool.get(key, {}).get(EntryKind.AFFORDANCE, [])
        uses = {e.when or "" for e in affordances if not tolerance(e)}
        limits = {e.condition or "" for e in self.by_tool.get(key, {}).get(EntryKind.BOUNDARY, []) if e.family is None}
        values = {v for e in affordances for ev in e.evidence for v in _strings(ev.arguments)}
        return " ".join(sorted({t for text in (*uses, *limits, *values) for t in terms(text)}))

    def _answers_text(self, key: tuple[str, str]) -> str:
        """The distinct words a reader's successful answers said that its calls did not send: the data it reads out
        (column names, records, units of the state). A tool verified to change the state has none: the diff or the
        confirmation a write answers with (its dry run's too) is no reading of the data."""
        affordances = self.by_tool.get(key, {}).get(EntryKind.AFFORDANCE, [])
        if any(e.effect is Effect.MUTATING for e in affordances):
            return ""
        return " ".join(sorted({t for e in affordances if not tolerance(e) for t in answer_words(e)}))

    def co_usage(self, key: tuple[str, str]) -> dict[tuple[str, str], float]:
        """The tools ``key`` composes with, either way round (``git_add`` → ``git_commit`` links both),
        with the strongest witnessed edge weight."""
        return self.compositions.get(key, {})

    def entries_of(self, server: str, tool: str, kind: EntryKind) -> list[Entry]:
        return self.by_tool.get((server, tool), {}).get(kind, [])

    @staticmethod
    def _normalised(pairs: list[tuple[object, float]]) -> dict:
        best = max((score for _, score in pairs), default=0.0)
        return {key: score / best for key, score in pairs} if best > 0 else {}

    def trace_relevance(self, task: str, servers: set[str] | None, *, routed: bool = True) -> dict[str, float]:
        """Traces matching ``task`` (best = 1), of ``servers`` only when given. Routed (the default, when no
        servers are named), a trace of a server the task is not about weighs as that server's tools do
        (:meth:`routed`): it lends them no more evidence than their own words would."""
        allowed = None if servers is None else {i for i, t in enumerate(self.trace_ids) if self.traces[t].server in servers}
        hits = self.trace_index.top(expanded(task), 50, allowed)
        found = self._normalised([(self.trace_ids[i], s) for i, s in hits])
        if routed and servers is None and found:
            route = self.route_weights(task)
            found = {t: s * route_weight(route, self.traces[t].server) for t, s in found.items()}
        return found

    def tool_relevance(self, task: str, servers: set[str] | None, *, routed: bool = True,
                       answers: bool = True) -> dict[tuple[str, str], float]:
        """Tools matching ``task`` (best = 1): its documentation weighs ``DOCS_WEIGHT``, its verified
        vocabulary the rest, and with ``answers`` the words a reader's answers said add ``ANSWERS_WEIGHT`` (a task
        about the data names the tool that reads it out; what a tool *does* — the plan's operations — is matched
        without them: a table lister's answer names the products table, it lists no products). Routed (the
        default, when no servers are named), the tools of servers the task is not routed to count ``OFF_ROUTE``
        as much (:meth:`routed`)."""
        docs, knowledge, said = self._term_scores(task, answers)
        top_d, top_k = max(docs.values(), default=0.0), max(knowledge.values(), default=0.0)
        top_a = max(said.values(), default=0.0)
        combined: dict[int, float] = {}
        for doc in set(docs) | set(knowledge) | set(said):
            if servers is not None and self.tool_keys[doc][0] not in servers:
                continue
            combined[doc] = (DOCS_WEIGHT * (docs.get(doc, 0.0) / top_d if top_d else 0.0)
                             + (1 - DOCS_WEIGHT) * (knowledge.get(doc, 0.0) / top_k if top_k else 0.0)
                             + ANSWERS_WEIGHT * (said.get(doc, 0.0) / top_a if top_a else 0.0))
        result = self._normalised([(self.tool_keys[d], s) for d, s in combined.items()])
        if routed and servers is None and result:
            result = self.routed(result, self.route_weights(task))
        return result

    def _term_scores(self, task: str, answers: bool) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
        """The task's BM25 scores over the tools' documentation, verified vocabulary and (with ``answers``) readers'
        answers; computed once per task (a plan asks with and without the answers)."""
        found = self._scores.get(task)
        if found is None:
            query = content_terms(expanded(task))  # "about", "more": how a request is asked, not what it is about
            query += self.blends.of(task)
            if len(self._scores) >= SCORES_KEPT:
                self._scores.clear()
            found = self._scores[task] = (query, self.docs_index.scores_of(query), self.knowledge_index.scores_of(query))
        query, docs, knowledge = found
        return docs, knowledge, self.answers_index.scores_of(query) if answers else {}

    @staticmethod
    def routed(relevance: dict[tuple[str, str], float],
               servers: set[str] | Mapping[str, float]) -> dict[tuple[str, str], float]:
        """``relevance`` with the tools of servers outside ``servers`` weighted ``OFF_ROUTE``; with
        route weights (server → score, best = 1), a routed server's tools weighted from ``ROUTED_FLOOR``
        (the least) to 1 (the best). The best tool of the routed servers sets the scale (best = 1): a tool of
        a server the task is not about cannot make the tools of the one it is about look weak."""
        top = max((s for k, s in relevance.items() if k[0] in servers), default=0.0)
        scale = 1 / top if top > 0 else 1.0
        return {k: min(1.0, s * scale) * route_weight(servers, k[0]) for k, s in relevance.items()}

    def route(self, task: str) -> set[str]:
        """The servers a task is about (:class:`~toolatlas.guidance.routing.ServerRouter`)."""
        return set(self.route_weights(task))

    def route_weights(self, task: str) -> dict[str, float]:
        """The servers a task is about, each with its score (best = 1); computed once per task."""
        found = self._routes.get(task)
        if found is None:
            if len(self._routes) >= ROUTES_KEPT:
                self._routes.clear()
            found = self._routes[task] = self.router.route(task)
        return found

    def plan(self, task: str, servers: set[str] | None = None) -> Plan:
        """The task's operations mapped to tools (:func:`~toolatlas.guidance.plan.make_plan`)."""
        return make_plan(self, task, servers)


class Atlas:
    """Task-conditioned guidance from one atlas, and the traversal operations behind it."""

    def __init__(
        self, view: AtlasView, *, navigator: Navigator | None = None, name: str = "atlas", cache_size: int = CACHE_SIZE
    ) -> None:
        self.view = view
        self.name = name
        self.navigator = navigator or OfflineNavigator()
        self.cache_size = cache_size
        """Guidance answers kept (least recently used dropped first); 0 computes every answer afresh."""
        self._cache: OrderedDict[tuple, Guidance] = OrderedDict()
        self._lock = Lock()
        self.cache_hits = 0
        """Answers :meth:`guide` served from the cache (``cache_misses``: computed)."""
        self.cache_misses = 0
        self.load_report: LoadReport | None = None
        """What loading an export kept and dropped (:meth:`from_export`); None for a store's atlas."""

    # -- loading ------------------------------------------------------------------------------------

    @classmethod
    def open(
        cls, config: str | Path | Catalogue, *, include_stale: bool = False, cache_size: int = CACHE_SIZE
    ) -> Atlas:
        """The atlas of a catalogue, read from its store (the store is released at once).

        The catalogue's ``[build.ablation]`` switches apply: without the capability or strategy
        layer nothing is served from it; without traversal the static top-k reader is used.
        """
        from toolatlas.store.paths import open_store
        catalogue = config if isinstance(config, Catalogue) else load_catalogue(config)
        store = open_store(catalogue)
        try:
            records = store.records()
        finally:
            store.close()
        ablation = catalogue.build.ablation
        view = AtlasView(
            records["tools"],
            records["entries"] if ablation.capability_layer else [],
            records["traces"],
            records["strategies"] if ablation.strategy_layer else [],
            include_stale=include_stale,
            servers=records["servers"],
        )
        navigator = None if ablation.traversal else StaticNavigator()
        return cls(view, navigator=navigator, name=catalogue.name, cache_size=cache_size)

    @classmethod
    def from_export(
        cls, path: str | Path, *, include_stale: bool = False, cache_size: int = CACHE_SIZE,
        trusted: Iterable[str | Path] = (), include_conflicted: bool = False,
    ) -> Atlas:
        """The atlas of an ``atlas.json`` export (``toolatlas export``), with only what its evidence
        supports: anything else is dropped and counted in :attr:`load_report` (:mod:`toolatlas.trust`).
        With ``trusted`` public keys, a file not signed by one of them is refused (``TrustError``).
        Of a merged export (``toolatlas merge``), entries its builders disagree on are left out unless
        ``include_conflicted``."""
        from toolatlas.export import AtlasExport
        from toolatlas.trust import admit, summary, verify_document

        data = json.loads(Path(path).read_text())
        keys = [Path(key) for key in trusted]
        if keys:
            verify_document(data, keys, source=str(path))
        export, report = admit(AtlasExport.model_validate({"catalogue": "atlas", **data}))
        if report.dropped:
            log.warning("atlas_records_dropped", atlas=str(path), summary=summary(report), **report.by_reason)
        conflicted = export.merge.conflicted if export.merge is not None and not include_conflicted else set()
        tools, entries = [], []
        for server in export.servers:
            for tool in server.tools:
                entries += [e for e in (*tool.affordances, *tool.boundaries, *tool.co_usage) if e.id not in conflicted]
                tools.append(ToolNode(
                    id=ToolNode.make_id(server.name, tool.name, tool.schema_hash),
                    server=server.name, tool=tool.name, schema_hash=tool.schema_hash,
                    description=tool.description, input_schema=tool.input_schema, neighbours=tool.neighbours,
                ))
        nodes = [node for server in export.servers if (node := server.node()) is not None]
        atlas = cls(AtlasView(tools, entries, export.traces, export.strategies, include_stale=include_stale,
                              servers=nodes),
                    name=export.catalogue, cache_size=cache_size)
        atlas.load_report = report
        return atlas

    # -- guidance -------------------------------------------------------------------------------

    @property
    def servers(self) -> list[str]:
        return self.view.servers

    def guide(
        self,
        task: str,
        *,
        servers: Iterable[str] | None = None,
        budget: int = 8,
        k_r: int = 3,
        max_tokens: int = 1200,
        docs_ratio: float | None = DOCS_RATIO,
    ) -> Guidance:
        """Walk the atlas for ``task`` (read budget B = ``budget``, k_r seed traces) and compress
        what was read into typed guidance of at most ``max_tokens`` (approximately) and at most
        ``docs_ratio`` times the served tools' descriptions (None: no such limit)."""
        chosen = None if servers is None else frozenset(servers)
        if self.cache_size <= 0:
            self.cache_misses += 1
            return self._walk(task, chosen, budget, k_r, max_tokens, docs_ratio)
        key = (task, chosen, budget, k_r, max_tokens, docs_ratio)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                self.cache_hits += 1
                return cached
            self.cache_misses += 1
        guidance = self._walk(task, chosen, budget, k_r, max_tokens, docs_ratio)
        with self._lock:
            self._cache[key] = guidance
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return guidance

    async def guide_async(
        self,
        task: str,
        *,
        servers: Iterable[str] | None = None,
        budget: int = 8,
        k_r: int = 3,
        max_tokens: int = 1200,
        navigator: AsyncNavigator | None = None,
    ) -> Guidance:
        """:meth:`guide` for an event loop, with a navigator that awaits (``LlmNavigator(llm)``).

        Without one it is the offline path (:meth:`guide`, cache included). Answers of an async
        navigator are not cached: an LLM walk is not a pure function of the request.
        """
        if navigator is None:
            return self.guide(task, servers=servers, budget=budget, k_r=k_r, max_tokens=max_tokens)
        chosen = None if servers is None else set(servers)
        return await navigator.guide(
            self.view, task, servers=chosen or None, k_r=k_r, budget=budget, max_tokens=max_tokens
        )

    def _walk(self, task: str, servers: frozenset[str] | None, budget: int, k_r: int, max_tokens: int,
              docs_ratio: float | None = DOCS_RATIO) -> Guidance:
        walk = self.navigator.walk(self.view, task, servers=set(servers) if servers else None, k_r=k_r, budget=budget)
        guidance = compress(self.view, walk, max_tokens=max_tokens, docs_ratio=docs_ratio)
        name = getattr(self.navigator, "name", type(self.navigator).__name__)
        return guidance if guidance.navigator == name else guidance.model_copy(update={"navigator": name})

    # -- the traversal operations, one at a time (for MCP clients that navigate themselves) --------

    def search_traces(self, task: str, *, k: int = 3, servers: Iterable[str] | None = None) -> list[TraceExemplar]:
        relevance = self.view.trace_relevance(task, set(servers) if servers else None)
        best = sorted(relevance.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return [trace_exemplar(self.view.traces[t]) for t, _ in best]

    def read_trace(self, trace_id: str) -> TraceExemplar:
        return trace_exemplar(self._trace(trace_id))

    def expand(self, trace_id: str) -> list[TraceExemplar]:
        trace = self._trace(trace_id)
        return [trace_exemplar(self.view.traces[t]) for t in trace.similar if t in self.view.traces]

    def read_tool(self, server: str, tool: str) -> ToolGuidance:
        if (server, tool) not in self.view.tool_nodes:
            raise KeyError(f"no tool {tool!r} of server {server!r} in this atlas")
        return tool_guidance(self.view, (server, tool), task="", relevance=1.0)

    def read_strategy(self, trace_id: str) -> list[StrategyGuidance]:
        trace = self._trace(trace_id)
        return [strategy_guidance(self.view.strategies[s]) for s in trace.strategies if s in self.view.strategies]

    def _trace(self, trace_id: str) -> TraceNode:
        if trace_id not in self.view.traces:
            raise KeyError(f"no trace {trace_id!r} in this atlas")
        return self.view.traces[trace_id]
