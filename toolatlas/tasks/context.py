"""What a task-writing LLM is told about a server: the text blocks of its prompts, each bounded.

The offline engine's verified facts ground every prompt: a tool's affordances with the exact
arguments that worked, its boundaries with the exact errors, its co-usage with peers, the
traces it appears in, and what really exists in the environment snapshot. Each renderer here
turns one of those into a short, plain-text section; none of them calls anything.

:class:`ServerBrief` bundles what the proposers need about one server.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toolatlas.codebox.states import StateInput
from toolatlas.config import ServerSpec
from toolatlas.graph.models import Entry, EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.models import ToolSpec
from toolatlas.offline.facts import DatabaseFacts, EnvironmentFacts, GraphFacts, RepositoryFacts, TreeFacts
from toolatlas.tasks.docs import UsageDocs

__all__ = [
    "ServerBrief",
    "render_docs",
    "render_environment",
    "render_neighbours",
    "render_tool_spec",
    "render_traces",
    "render_verified",
]

ENTRIES_PER_KIND = 8
NEIGHBOURS = 6
TRACES = 5
ENVIRONMENT_CHARS = 3_500
SCHEMA_CHARS = 2_000
EXCERPT_CHARS = 220
NOTHING = "(none)"


@dataclass(frozen=True)
class ServerBrief:
    """One server as the proposers see it: its spec, its graph, its snapshot's facts and docs.

    ``initial_state`` is the untouched state tasks start from (see :func:`toolatlas.tasks.states.initial_state`):
    proposed verifiers are vetted against it.
    """

    spec: ServerSpec
    graph: ServerGraph
    facts: EnvironmentFacts
    initial_state: StateInput
    docs: UsageDocs = field(default_factory=UsageDocs.empty)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def tool_names(self) -> list[str]:
        return sorted(self.graph.specs)


# -- text helpers -------------------------------------------------------------------------------


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _json(value: Any, limit: int = 300) -> str:
    return _cut(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str), limit)


def _bounded(lines: Iterable[str], limit: int) -> str:
    """Lines joined until ``limit`` characters; then a note of how many were left out."""
    kept: list[str] = []
    used = 0
    items = list(lines)
    for index, line in enumerate(items):
        if used + len(line) + 1 > limit:
            kept.append(f"… ({len(items) - index} more)")
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept) if kept else NOTHING


# -- the tool -----------------------------------------------------------------------------------


def render_tool_spec(spec: ToolSpec) -> str:
    """Name, description, input schema and declared hints of one tool."""
    hints = {
        name: value
        for name, value in spec.annotations.model_dump().items()
        if value is not None and name != "title"
    }
    lines = [
        f"name: {spec.name}",
        f"description: {_cut(spec.description or '(none)', 1_200)}",
        f"input schema: {_json(spec.input_schema, SCHEMA_CHARS)}",
    ]
    if hints:
        lines.append("declared hints: " + ", ".join(f"{k}={v}" for k, v in sorted(hints.items())))
    return "\n".join(lines)


def render_docs(docs: UsageDocs, tool: str) -> str:
    snippets = docs.snippets(tool)
    if not snippets:
        return "(no documentation snippet mentions this tool)"
    return "\n\n".join(f"[{s.source}]\n{s.text}" for s in snippets)


def _ranked(entries: list[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (-e.confidence, -e.support, e.text))[:ENTRIES_PER_KIND]


def _affordance(entry: Entry) -> str:
    line = f"- {entry.text}"
    if entry.example_arguments is not None:
        line += f" | arguments that worked: {_json(entry.example_arguments)}"
    if entry.effect is not None:
        line += f" | effect: {entry.effect.value}"
    return line


def _boundary(entry: Entry) -> str:
    error = entry.evidence[0].excerpt if entry.evidence else (entry.error_signature or "")
    line = f"- when {entry.condition or 'called this way'}: {entry.text}"
    if entry.example_arguments is not None:
        line += f" | arguments: {_json(entry.example_arguments, 200)}"
    if error:
        line += f" | exact error: {_cut(error, EXCERPT_CHARS)!r}"
    return line


def _co_usage(entry: Entry) -> str:
    relation = entry.relation.value if entry.relation else "?"
    weight = f", weight {entry.weight:.2f}" if entry.weight is not None else ""
    return f"- with {entry.peer} ({relation}{weight}): {entry.text}"


def render_verified(graph: ServerGraph, tool: str) -> str:
    """The tool's active entries: affordances (U), boundaries (B) and co-usage (C), most confident first."""
    sections = [
        ("Affordances (valid uses, verified by a real call)", EntryKind.AFFORDANCE, _affordance),
        ("Boundaries (where it fails, verified, with the exact error)", EntryKind.BOUNDARY, _boundary),
        ("Co-usage (verified compositions with other tools)", EntryKind.CO_USAGE, _co_usage),
    ]
    parts = []
    for title, kind, render in sections:
        entries = _ranked(graph.entries_of(tool, kind))
        parts.append(f"{title}:\n" + ("\n".join(render(e) for e in entries) if entries else NOTHING))
    return "\n".join(parts)


def render_neighbours(graph: ServerGraph, tool: str) -> str:
    """Tools linked to ``tool`` by co-usage edges, both ways, strongest first, with what each is for."""
    node = graph.tools.get(tool)
    outgoing = node.neighbours if node is not None else {}
    incoming = {peer.tool: peer.neighbours[tool] for peer in graph.tools.values() if tool in peer.neighbours}
    edges = [(weight, peer, "then") for peer, weight in outgoing.items()]
    edges += [(weight, peer, "before") for peer, weight in incoming.items()]
    lines = []
    for weight, peer, order in sorted(edges, key=lambda e: (-e[0], e[1], e[2]))[:NEIGHBOURS]:
        spec = graph.specs.get(peer)
        purpose = spec.purpose if spec is not None else ""
        where = f"{tool} → {peer}" if order == "then" else f"{peer} → {tool}"
        lines.append(f"- {peer} ({where}, weight {weight:.2f}): {purpose}")
    return "\n".join(lines) if lines else NOTHING


def render_traces(graph: ServerGraph, tool: str) -> str:
    """Traces that use ``tool``: the task, the steps, and how often it was resolved."""
    node = graph.tools.get(tool)
    linked = set(node.traces) if node is not None else set()
    traces = [t for t in graph.traces.values() if t.id in linked or tool in t.tools]
    traces.sort(key=lambda t: (-t.runs, t.task))
    lines = []
    for trace in traces[:TRACES]:
        steps = " → ".join(step.tool for step in trace.steps)
        lines.append(f"- {_cut(trace.task, 160)} | steps: {steps} | resolved {trace.resolved}/{trace.runs}")
    return "\n".join(lines) if lines else NOTHING


# -- the environment ----------------------------------------------------------------------------


def render_environment(facts: EnvironmentFacts, limit: int = ENVIRONMENT_CHARS) -> str:
    """What exists in the snapshot every task starts from, by environment kind."""
    if facts.kind == "none":
        return "No persistent state: the server keeps nothing between calls."
    parts: list[str] = []
    if facts.repository is not None:
        parts.append(_repository(facts.repository))
    if facts.tree is not None:
        parts.append(_tree(facts.tree))
    if facts.database is not None:
        parts.append(_database(facts.database))
    if facts.graph is not None:
        parts.append(_graph(facts.graph))
    if facts.document_keys:
        parts.append("Top-level keys of the JSON document: " + ", ".join(facts.document_keys))
    if not parts:
        return f"A {facts.kind} environment (no description available)."
    root = f"{facts.root} is the environment's root; tasks and verifiers use paths relative to it.\n"
    return _cut(root + "\n".join(parts), limit)


def _tree(tree: TreeFacts) -> str:
    def relative(path: str) -> str:
        return path.removeprefix(tree.root + "/")

    lines = []
    for file in tree.files:
        note = " read-only" if file.read_only else ""
        first = f" — first line: {_cut(file.lines[0], 60)!r}" if file.lines else ""
        kind = "" if file.text else " binary"
        lines.append(f"- {relative(file.path)} ({file.size} B{kind}{note}){first}")
    empty = f"\nEmpty folders: {', '.join(map(relative, tree.empty_folders))}" if tree.empty_folders else ""
    return f"Files (paths relative to {tree.root}):\n" + _bounded(lines, ENVIRONMENT_CHARS // 2) + empty


def _database(database: DatabaseFacts) -> str:
    lines = []
    for table in database.tables:
        columns = ", ".join(
            f"{c.name} {c.type}{' PK' if c.primary_key else ''}{' NOT NULL' if c.not_null and not c.primary_key else ''}"
            f"{' UNIQUE' if c.unique and not c.primary_key else ''}"
            f"{f' → {c.references.table}' if c.references else ''}"
            for c in table.columns
        )
        sample = f"\n    e.g. {_json(table.sample_rows[0], 240)}" if table.sample_rows else ""
        lines.append(f"- table {table.name} ({table.row_count} rows): {columns}{sample}")
    views = f"\nViews: {', '.join(database.views)}" if database.views else ""
    return f"A {database.dialect} database:\n" + _bounded(lines, ENVIRONMENT_CHARS // 2) + views


def _repository(repo: RepositoryFacts) -> str:
    commits = [f"- {c.sha[:8]} {c.message}" for c in repo.commits[:8]]
    lines = [
        f"A git repository at {repo.root}; current branch: {repo.current_branch or '(detached)'}",
        f"branches: {', '.join(repo.branches) or NOTHING}; tags: {', '.join(repo.tags) or NOTHING}",
        "latest commits:\n" + ("\n".join(commits) or NOTHING),
        "uncommitted changes: " + (", ".join(repo.changed_files) if repo.changed_files else "none (clean)"),
    ]
    return "\n".join(lines)


def _graph(graph: GraphFacts) -> str:
    entities = [
        f"- {e.name} ({e.entity_type}): {_cut('; '.join(e.observations), 120) or 'no observations'}"
        for e in graph.entities
    ]
    relations = ", ".join(graph.relation_types) or NOTHING
    return (
        f"A knowledge graph of {len(graph.entities)} entities and {len(graph.relations)} relations "
        f"(relation types: {relations}):\n" + _bounded(entities, ENVIRONMENT_CHARS // 2)
    )
