"""``demo.memory``: the knowledge-graph file of ``@modelcontextprotocol/server-memory``.

The server (``KnowledgeGraphManager.loadGraph``/``saveGraph``) keeps its graph as JSON Lines:
all entities first, then all relations, one ``JSON.stringify`` object per line with keys in the
order below, lines joined by ``\\n`` and no trailing newline. We write exactly what its own
``saveGraph`` would write for this graph, so a server that saves it unchanged leaves the bytes alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolatlas.environments.seeds._registry import pin_times, seed, write_text

__all__ = ["ENTITIES", "RELATIONS", "build_knowledge_graph", "render_graph"]

# name, entityType, observations
ENTITIES: list[tuple[str, str, list[str]]] = [
    (
        "Ada Lovelace",
        "person",
        ["Tech lead of Project Atlas", "Based in London", "Prefers written design reviews"],
    ),
    ("Grace Hopper", "person", ["Engineering manager at Northwind Labs", "Mentors new hires"]),
    ("Alan Turing", "person", ["Research scientist", "Works on the search ranking model"]),
    ("Zoë Müller", "person", ["Product designer", "Based in Berlin", "Speaks German, English and French"]),
    ("Haruki Tanaka", "person", ["Site reliability engineer", "On call in the first week of each month"]),
    ("Amara Okafor", "person", ["Data engineer", "Maintains the nightly ETL jobs"]),
    ("Northwind Labs", "organization", ["Software company founded in 2015", "About 120 employees"]),
    ("Contoso University", "organization", ["Research partner of Northwind Labs since 2022"]),
    (
        "Project Atlas",
        "project",
        ["Internal search platform", "Launched in March 2024", "Written in Python and Rust"],
    ),
    ("Project Beacon", "project", ["Alerting and on-call tooling", "Status: in maintenance"]),
    ("Ranking Study", "project", ["Joint study on learning-to-rank", "Results due in Q3 2024"]),
    ("Berlin Office", "location", ["Opened in 2021", "Hosts the design team"]),
]
# from, to, relationType (in active voice, as the server's create_relations description asks)
RELATIONS: list[tuple[str, str, str]] = [
    ("Ada Lovelace", "Northwind Labs", "works_at"),
    ("Grace Hopper", "Northwind Labs", "works_at"),
    ("Zoë Müller", "Northwind Labs", "works_at"),
    ("Haruki Tanaka", "Northwind Labs", "works_at"),
    ("Amara Okafor", "Northwind Labs", "works_at"),
    ("Alan Turing", "Contoso University", "works_at"),
    ("Ada Lovelace", "Project Atlas", "leads"),
    ("Grace Hopper", "Ada Lovelace", "manages"),
    ("Grace Hopper", "Haruki Tanaka", "manages"),
    ("Zoë Müller", "Project Atlas", "designs_for"),
    ("Amara Okafor", "Project Atlas", "contributes_to"),
    ("Haruki Tanaka", "Project Beacon", "maintains"),
    ("Alan Turing", "Ranking Study", "leads"),
    ("Ranking Study", "Project Atlas", "informs"),
    ("Northwind Labs", "Contoso University", "partners_with"),
    ("Zoë Müller", "Berlin Office", "works_from"),
]


def render_graph(entities: list[tuple[str, str, list[str]]], relations: list[tuple[str, str, str]]) -> str:
    """The file ``saveGraph`` writes: compact JSON per line, non-ASCII kept, no trailing newline."""
    lines = [
        _line({"type": "entity", "name": name, "entityType": kind, "observations": observations})
        for name, kind, observations in entities
    ] + [_line({"type": "relation", "from": a, "to": b, "relationType": kind}) for a, b, kind in relations]
    return "\n".join(lines)


def _line(record: dict[str, object]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


@seed("demo.memory", kind="json_file")
def build_knowledge_graph(dest: Path) -> None:
    """Write the memory server's graph file at ``dest`` (any name; the catalogue uses ``memory.jsonl``)."""
    write_text(dest, render_graph(ENTITIES, RELATIONS))
    pin_times(dest)
