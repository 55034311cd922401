"""Compressing a traversal into typed guidance within a token budget, and the text rendering.

The planned tools come first, in plan order, each with what the task needs from it: the
operative clauses of its documentation, its verified uses folded into one line, the boundaries
*this* task is likely to hit (ranked by the words of the clauses it was planned for and of what
tends to go wrong with its operations; schema-validation findings at most once), and the verified
data edges to the next planned tools. Tools the walk found relevant beyond the plan follow with
their purpose only. The text rendering and the trims that fit it to the budget are in
:mod:`toolatlas.guidance.text`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind, StrategyNode, TraceNode
from toolatlas.guidance.implied import given_words, names_member, near_miss, task_leads
from toolatlas.guidance.index import terms
from toolatlas.guidance.models import (
    BoundaryNote,
    CompositionNote,
    DocumentedNote,
    GapNote,
    Guidance,
    PlanStep,
    ServerNote,
    StrategyGuidance,
    ToolGuidance,
    TraceExemplar,
    UseNote,
)
from toolatlas.guidance.operations import (
    OPERATIONS,
    absolute_path,
    names_by_code,
    names_by_value,
    names_destination,
    names_something,
    relative_path,
    synonyms,
)
from toolatlas.guidance.operations import name_search as _name_search
from toolatlas.guidance.plan import MAX_TOOLS, Plan
from toolatlas.guidance.profiles import answer_line, condition_line
from toolatlas.guidance.shapes import shape_words, value_shapes
from toolatlas.guidance.text import fit, render_text

if TYPE_CHECKING:
    from toolatlas.guidance.atlas import AtlasView
    from toolatlas.guidance.navigator import Traversal
    from toolatlas.guidance.profiles import Finding

__all__ = [
    "DOCS_RATIO",
    "compress",
    "docs_tokens",
    "fit",
    "render_text",
    "strategy_guidance",
    "tool_guidance",
    "trace_exemplar",
]

BOUNDARIES, CLAUSES, COMPOSITIONS = 2, 3, 2
"""Items per tool before the token budget trims further."""
ABSOLUTE_RISKS = "absolute path outside allowed"
"""What a task naming an absolute path risks (it may lie outside what the server allows)."""
RELATIVE_RISKS = "absolute relative path"
"""What a task naming a relative path risks (a tool may need it absolute)."""
NAMED_RISKS = "does not exist not found unknown missing"
"""What a task naming an exact thing (a path, an id, a hash) risks: that it is not there."""
DESTINATION_RISKS = "already exists overwrite replace"
"""What a task naming the file a result goes into risks: that a file of that name is there already."""
VARIABLE_RISKS = "unknown identifier name not defined undefined function does not exist"
"""What an expression over a name risks ("rate * 12"): that the evaluator knows no such name."""
DIVISION_RISKS = "divides division by zero"
"""What an expression that divides risks: a divisor that is zero."""
RELATED_SHARE = 0.5
"""A tool outside the plan is served when the walk's evidence for it is at least this (best match: 1)."""
PLAN_FLOOR = 1.0
"""Least score of a planned tool (see :func:`_chosen`)."""
NOTE_CHARS = 70
"""Characters of the server's answer shown beside a clause it verified."""
DOCS_RATIO = 1.4
"""Guidance costs at most this many times the descriptions of the tools it serves (see :func:`compress`)."""
MIN_TOKENS = 120
"""…but may always say this much (tools described in a few words still have boundaries worth saying)."""


MIN_RELEVANCE = 1.0
"""A finding is served for a task when it matches the task's clauses and risks at least this well (BM25)."""
ERROR_WEIGHT = 0.4
"""Weight of a finding's error against its condition when ranking it for a task."""


def _relevant(findings: tuple[Finding, ...], indexes: tuple, query: str, limit: int, *, natural: bool = True,
              said: set[str] | frozenset[str] = frozenset(),
              repeats: list[Finding] | None = None,
              leads: Mapping[int, float] | None = None) -> list[tuple[Finding, float]]:
    """The findings ``query`` is most likely to hit (by their condition, less by their error, plus their
    :attr:`~Finding.lead`), each with that weight — those the task's own values imply (``leads``:
    :func:`~toolatlas.guidance.implied.task_leads`) first, weighing their lead more —, at most one of them schema
    validation and one per :attr:`~Finding.signature`; with no query, the best supported (schema validation last). A finding whose signature is in ``said`` (another served
    tool says it already) is passed over and, when it would have been chosen, added to ``repeats``."""
    if query:
        conditions, errors = indexes
        scores = dict(conditions.scores(query))
        for i, score in (errors.scores(query).items() if errors is not None else ()):
            scores[i] = scores.get(i, 0.0) + ERROR_WEIGHT * score
        scores = {i: s * (0.2 if findings[i].schema or findings[i].contrived else 1.0) for i, s in scores.items()}
        if natural:  # what any task using the tool is likely to meet: a natural failure, an ordering…
            for i, finding in enumerate(findings):
                if finding.lead:
                    scores[i] = scores.get(i, 0.0) + finding.lead
        implied = leads or {}
        for i, lead in implied.items():  # …and what this task's own values make it meet, first of all
            scores[i] = scores.get(i, 0.0) + lead
        order = sorted((i for i in scores if scores[i] >= MIN_RELEVANCE),
                       key=lambda i: (i not in implied, -scores[i], -findings[i].entry.support, i))
    else:
        order = sorted(range(len(findings)),
                       key=lambda i: (findings[i].schema, -findings[i].entry.support, i))
        scores = {i: findings[i].lead for i in order}
    chosen, schema, signatures = [], False, set()
    for i in order:
        signature = findings[i].signature
        if signature in said:
            if repeats is not None and all(r.signature != signature for r in repeats):
                repeats.append(findings[i])
            continue
        if signature in signatures or (findings[i].schema and schema):
            continue
        schema = schema or findings[i].schema
        signatures.add(signature)
        chosen.append((findings[i], round(scores[i], 3)))
        if len(chosen) == limit:
            break
    return chosen


def _said(entry: Entry, limit: int = 240) -> str:
    """The server's answer behind ``entry``, as guidance quotes it (:func:`~toolatlas.guidance.profiles.answer_line`)."""
    if entry.evidence:
        return answer_line(entry.evidence[0].excerpt, entry.evidence[0].arguments, limit)
    return answer_line(entry.error_signature or "", None, limit)


def _boundary(finding: Finding, weight: float = 0.0) -> BoundaryNote:
    e = finding.entry
    error = finding.quoted
    return BoundaryNote(condition=condition_line(finding.text if finding.cut else e.condition or ""), error=error,
                        weight=weight, outcome=e.outcome.value if e.outcome else "",
                        reported_as_success=e.reported_as_success, cut=finding.cut, verdict=finding.verdict,
                        entry_id=e.id, support=e.support, confidence=e.confidence, evidence=e.probe_ids[:3])


def _accepted(finding: Finding) -> UseNote:
    e = finding.entry
    said = (e.condition or e.when or "misused").removesuffix(" (accepted)")
    return UseNote(text=f"accepted when {said}", entry_id=e.id, support=e.support,
                   confidence=e.confidence, evidence=e.probe_ids[:3])


def _observed(view: AtlasView, clause) -> str:
    """What the atlas saw about a clause: the disagreement, or the server's answer that verified it."""
    if clause.status != "verified" or clause.entry_id not in view.entries:
        return clause.note
    entry = view.entries[clause.entry_id]
    if entry.kind is not EntryKind.BOUNDARY:
        return clause.note
    return _said(entry, NOTE_CHARS)


def _documented(view: AtlasView, clauses) -> list[DocumentedNote]:
    return [DocumentedNote(text=c.text, status=c.status, entry_id=c.entry_id, note=_observed(view, c))
            for c in clauses]


def tool_guidance(view: AtlasView, key: tuple[str, str], *, task: str, relevance: float,
                  plan: Plan | None = None, detail: bool = True, said: set[str] | frozenset[str] = frozenset(),
                  repeats: list[Finding] | None = None) -> ToolGuidance:
    """What guidance says of one tool: for a planned tool the items its planned operations make
    relevant (when none is, its best-supported telling boundary — not schema validation, not a contrived
    value); with no task (reading a tool directly) its best-supported items. Boundaries whose
    signature is in ``said`` are left to the tool that says them (and listed in ``repeats``)."""
    server, tool = key
    profile = view.profiles[key]
    operations = ((["discover"] if key in plan.discovery else []) + plan.operations_of(key)) if plan else []
    query = _query(plan, key, task, operations) if task else ""
    indexes = (profile.findings_index, profile.errors_index)
    leads = task_leads(profile, task, operations) if task else {}
    if not detail:  # a related tool: its purpose, and the one boundary the task would hit if it were used —
        # what its words point at or what any use meets first (an ordering: it fails until another tool acts)
        return ToolGuidance(server=server, tool=tool, purpose=profile.purpose, relevance=round(relevance, 4),
                            when_not=[_boundary(f, w) for f, w in _relevant(profile.findings, indexes, query, 1,
                                                                       said=said, repeats=repeats, leads=leads)]
                            if query else [])
    boundaries = _relevant(profile.findings, indexes, query, BOUNDARIES, said=said, repeats=repeats, leads=leads)
    if task and not boundaries:  # nothing the task's words point at: the failure any use of it meets most
        telling = tuple(f for f in profile.findings if not f.schema and not f.contrived)
        boundaries = [(f, 0.0) for f, _ in _relevant(telling, indexes, "", 1, said=said, repeats=repeats)]
    tolerances = _relevant(profile.tolerances, (profile.tolerances_index, None), query, 1) if query else []
    planned = set(plan.tools) if plan else set()
    edges = sorted((e for e in view.entries_of(server, tool, EntryKind.CO_USAGE)
                    if not planned or (server, e.peer or "") in planned),
                   key=lambda e: (e.relation is not CoUsageRelation.DATA, -(e.weight or 0), e.id))
    minted = _minted(view, key, plan)
    return ToolGuidance(
        server=server,
        tool=tool,
        purpose=profile.purpose,
        relevance=round(relevance, 4),
        operations=list(dict.fromkeys(operations)),
        documented=_documented(view, [*_given_arguments(profile, task), *_clauses(profile, query)])[:CLAUSES],
        when=[*([profile.use] if profile.use else []), *(_accepted(f) for f, _ in tolerances)],
        when_not=[_boundary(f, w) for f, w in boundaries],
        compositions=[*minted, *(
            CompositionNote(peer=e.peer or "", relation=e.relation.value if e.relation else "data",
                            text=e.text,
                            weight=e.weight or 0.0, entry_id=e.id, evidence=e.probe_ids[:3])
            for e in edges[:COMPOSITIONS] if e.peer and e.peer != tool and e.peer not in {m.peer for m in minted}
        )],
    )


def _minted(view: AtlasView, key: tuple[str, str], plan: Plan | None) -> list[CompositionNote]:
    """Where each identifier the tool takes comes from (:mod:`toolatlas.guidance.minting`): the planned tool that
    mints it, else the one that matches the task best — with the verified answer that carries it."""
    server, tool = key
    planned = {k[1] for k in plan.tools if k[0] == server} if plan else set()
    profile = view.server_profiles[server]
    discovered = {arg for supplied in profile.discovery.values() for arg in supplied}  # said by the discovery step
    notes = []
    for argument, tools in sorted(profile.minters.get(tool, {}).items()):
        if argument in discovered:
            continue
        relevance = plan.relevance if plan else {}
        peer = max(sorted(tools), key=lambda name: (name in planned, relevance.get((server, name), 0.0)))
        use = next((e for e in view.entries_of(server, peer, EntryKind.AFFORDANCE) if e.evidence), None)
        if use is None:
            continue
        notes.append(CompositionNote(
            peer=peer, relation="minted", entry_id=use.id, evidence=use.probe_ids[:3],
            text=f"`{argument}`: the `{argument}` `{peer}` answers with (a made-up one failed)"))
    return notes


def _given_arguments(profile, task: str) -> list:
    """What the documentation of the arguments the task gives values to states as rules ("protected with the
    *password* 'q3-secret'": the `password` argument's own description), or of those whose declared values it
    names ("begin with *ATG*": ``start_codons`` allows only table-starts or atg-only) — what those values meet,
    first."""
    if not task or not profile.arguments:
        return []
    given = given_words(task) | {t for argument, members in profile.declared.items()
                                 if near_miss(task, members) or names_member(task, members)
                                 for t in terms(argument)}  # a value nearly written, or named: its argument's rule
    return list(dict.fromkeys(clause for stems, clause in profile.arguments if stems & given))


def _clauses(profile, query: str) -> list:
    """A tool's operative clauses, those the task's words and risks meet first, then those the atlas
    checked (verified or contradicted), then the description's order."""
    scores = profile.clauses_index.scores(query) if query else {}
    order = sorted(range(len(profile.clauses)),
                   key=lambda i: (-scores.get(i, 0.0), profile.clauses[i].status == "documented", i))
    return [profile.clauses[i] for i in order]


def _query(plan: Plan | None, key: tuple[str, str], task: str, operations: list[str]) -> str:
    """What a tool's findings are ranked against: the clauses it was planned for (the task, for a tool
    outside the plan) with the words for the kinds of their values, the risks of its operations, and
    what naming a path or an exact thing risks."""
    risky = operations or (plan.operations if plan else [])
    shapes = value_shapes(task)
    said = plan.clauses_of(key) if plan and operations else [task]
    return " ".join([*said, *(synonyms(text) for text in said),  # a "folder" is what a condition calls a directory
                     *(shape_words(text, formats=False) for text in said),  # "9:15 am": a 12-hour clock
                     *(OPERATIONS[op].risks for op in dict.fromkeys(risky) if op in OPERATIONS),
                     ABSOLUTE_RISKS if absolute_path(task) else RELATIVE_RISKS if relative_path(task) else "",
                     NAMED_RISKS if names_something(task) or names_by_value(task) or names_by_code(task) else "",
                     DESTINATION_RISKS if names_destination(task) else "",
                     VARIABLE_RISKS if "shape:named_expression" in shapes else "",
                     DIVISION_RISKS if "shape:division" in shapes else ""])


def strategy_guidance(strategy: StrategyNode) -> StrategyGuidance:
    return StrategyGuidance(id=strategy.id, server=strategy.server, title=strategy.title, when=strategy.when,
                            steps=strategy.plan, pitfalls=strategy.pitfalls[:3], traces=strategy.traces[:5])


def trace_exemplar(trace: TraceNode) -> TraceExemplar:
    return TraceExemplar(id=trace.id, server=trace.server, task=trace.task,
                         steps=[(s.tool, s.rationale) for s in trace.steps], tips=trace.tips[:4],
                         resolved=trace.resolved, runs=trace.runs)


def _gap_note(view: AtlasView, plan: Plan, gap) -> GapNote | None:
    """The gap said in one sentence, with the documented clause behind it when a tool only looks like it."""
    tools = [f"{k[0]}.{k[1]}" for k in gap.tools]
    names = ", then ".join(f"`{k[1]}`" for k in gap.tools)
    if gap.because is not None:
        profile = view.profiles[gap.because]
        clause = next((c.text for c in profile.clauses if _name_search(c.text)), "")
        said = f" (documented: “{clause}”)" if clause else ""
        return GapNote(operation=gap.operation, tools=[*tools, f"{gap.because[0]}.{gap.because[1]}"],
                       text=f"`{gap.because[1]}` matches names or paths, not contents{said}: read with "
                            f"{names} "
                            f"and look inside.")
    if len(gap.tools) < 2:
        return None  # comparing or counting is simply reading: nothing worth a sentence
    return GapNote(operation=gap.operation, tools=tools,
                   text=f"No tool {OPERATIONS[gap.operation].says}: {names}.")


def _plan_steps(view: AtlasView, plan: Plan, served: list[tuple[str, str]]) -> list[PlanStep]:
    kept = set(served)
    ordered: list[tuple[str, tuple[str, str], str | None]] = [
        ("discover", key, None) for key in plan.discovery if key in kept]
    seen = {(op, key) for op, key, _ in ordered}
    for step in plan.steps:
        if step.tool in kept and (step.operation, step.tool) not in seen:
            seen.add((step.operation, step.tool))
            ordered.append((step.operation, step.tool, step.composes))
    steps = []
    for index, (op, key, composes) in enumerate(ordered):
        feeds = view.profiles[key].feeds
        nxt = next((k for _, k, _ in ordered[index + 1:] if k[0] == key[0] and k[1] in feeds), None)
        steps.append(PlanStep(operation=op, tool=f"{key[0]}.{key[1]}", composes=composes,
                              feeds=f"{nxt[0]}.{nxt[1]}" if nxt else None))
    return steps


def _multi_tool(tools: list[str]) -> bool:
    return len(set(tools)) >= 2


def docs_tokens(view: AtlasView, keys) -> int:
    """What the documentation of ``keys`` costs an agent: names and raw descriptions, 4 characters a token."""
    said = (f"## {k[0]}.{k[1]} — {' '.join(view.tool_nodes[k].description.split())}\n" for k in keys)
    return sum(len(line) for line in said) // 4 + 1


def compress(view: AtlasView, walk: Traversal, *, max_tokens: int,
             docs_ratio: float | None = DOCS_RATIO) -> Guidance:
    """The plan and what the walk read, planned tools first, trimmed to the token budget: at most
    ``max_tokens``, and (unless ``docs_ratio`` is None) at most ``docs_ratio`` times what the served
    tools' own descriptions cost — guidance pays its way — but never below ``MIN_TOKENS``."""
    plan = walk.plan or view.plan(walk.task, walk.servers)
    chosen = _chosen(view, plan, walk)
    planned = [k for k in plan.tools if k in chosen]
    related = [k for k in chosen if k not in planned]
    detailed = set(planned) or set(related[:2])
    tools = _without_repeats(view, [*planned, *related], walk, plan, detailed)
    served = [(t.server, t.tool) for t in tools]
    names = {t.tool for t in tools}
    strategies = [
        strategy_guidance(view.strategies[s])
        for s, _ in sorted(walk.strategies.items(), key=lambda kv: (-kv[1], kv[0]))
        if _multi_tool(view.strategies[s].tools) and set(view.strategies[s].tools) <= names
    ][:1]
    exemplars = [
        trace_exemplar(view.traces[t]) for t, _ in sorted(walk.traces.items(), key=lambda kv: (-kv[1], kv[0]))
        if _multi_tool(view.traces[t].tools) and view.traces[t].resolved
        and (set(view.traces[t].tools) <= names or not names)  # an example uses only tools it is told of
    ][:1]
    notes = [ServerNote(server=s, text=d.text, status=d.status, entry_id=d.entry_id, note=d.note)
             for s in dict.fromkeys(t.server for t in tools)
             for d in _documented(view, view.server_profiles[s].notes)]
    gaps = [note for gap in plan.gaps if (note := _gap_note(view, plan, gap)) is not None]
    guidance = Guidance(task=walk.task, plan=_plan_steps(view, plan, served), gaps=gaps, notes=notes,
                        tools=tools, strategies=strategies, exemplars=exemplars, trail=walk.trail)
    if docs_ratio is not None:
        max_tokens = min(max_tokens, max(MIN_TOKENS, int(docs_ratio * docs_tokens(view, served))))
    return fit(guidance, max_tokens)


def _without_repeats(view: AtlasView, keys: list[tuple[str, str]], walk: Traversal, plan: Plan,
                     detailed: set[tuple[str, str]]) -> list[ToolGuidance]:
    """Each tool's guidance, a boundary whose error differs from one already served only in harvested or
    random names ("no such table: missing_b200" / "…: missing_d9b9") said once: on the first tool that
    serves it, naming the others in ``also`` (each of them then has room for a boundary of its own)."""
    tools: list[ToolGuidance] = []
    said: dict[str, tuple[int, int]] = {}
    also: dict[tuple[int, int], list[str]] = {}
    for key in keys:
        repeats: list[Finding] = []
        tool = tool_guidance(view, key, task=walk.task, relevance=walk.tools.get(key, 1.0), plan=plan,
                             detail=key in detailed, said=set(said), repeats=repeats)
        for finding in repeats:
            also.setdefault(said[finding.signature], []).append(f"{key[0]}.{key[1]}")
        profile = view.profiles[key]
        by_id = {f.entry.id: f for f in profile.findings}
        for index, note in enumerate(tool.when_not):
            if note.entry_id in by_id:
                said.setdefault(by_id[note.entry_id].signature, (len(tools), index))
        tools.append(tool)
    for (t, b), names in also.items():
        notes = list(tools[t].when_not)
        notes[b] = notes[b].model_copy(update={"also": names})
        tools[t] = tools[t].model_copy(update={"when_not": notes})
    return tools


def _chosen(view: AtlasView, plan: Plan, walk: Traversal) -> list[tuple[str, str]]:
    """The tools to serve, best first: a planned tool scores at least ``PLAN_FLOOR`` (more as it matches
    the whole task), another tool its evidence from the walk (at most 1), so a strongly matching tool
    outside the plan still displaces a planned one that barely matches."""
    relevance = plan.relevance if walk.servers else view.routed(plan.relevance, plan.route)
    scores = {k: min(0.99, s) for k, s in walk.tools.items()}
    order = {key: rank for rank, key in enumerate(plan.tools)}
    for key in plan.tools:
        scores[key] = PLAN_FLOOR + (1 - PLAN_FLOOR) * relevance.get(key, 0.0)
    kept = [k for k in scores
            if k in view.tool_nodes and (k in order or not order or scores[k] >= RELATED_SHARE)]
    ranked = sorted(kept, key=lambda k: (-scores[k], order.get(k, len(order)), k))
    return ranked[:MAX_TOOLS]
