"""What really exists in a snapshot, written with placeholders so that any instance can use it.

Probes are planned before anyone knows which sandbox instance will run them, so every path in
these facts is relative to a placeholder (``${root}/docs/api.md``, ``${repo}/README.md``) and
every name is one the snapshot really holds (a table, a branch, an entity). One reader per
environment kind, all pure reads, and :func:`extract_facts` to pick the reader::

    directory   → TreeFacts        files (size, text/binary, extension, read-only, a few lines), folders
    sqlite      → DatabaseFacts    tables, columns and constraints, row counts, samples, views
    postgres    → DatabaseFacts    the same through a psycopg connection (or a DSN)
    git         → RepositoryFacts  branches, tags, commits (HEAD first), tracked files + the work tree
    json_file   → GraphFacts       entities, relations, observations of a JSON-lines knowledge graph
                  (or the top-level keys of a JSON object document)
    none        → nothing
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from toolatlas.models import Frozen
from toolatlas.offline.dbfacts import (
    ColumnFact,
    DatabaseFacts,
    ForeignKeyFact,
    TableFact,
    UniqueFact,
    postgres_facts,
    sqlite_facts,
)
from toolatlas.offline.jsonpaths import document_leaves

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "ColumnFact",
    "CommitFact",
    "DatabaseFacts",
    "EntityFact",
    "EnvironmentFacts",
    "FileFact",
    "ForeignKeyFact",
    "GraphFacts",
    "RelationFact",
    "RepositoryFacts",
    "TableFact",
    "TreeFacts",
    "UniqueFact",
    "directory_facts",
    "extract_facts",
    "git_facts",
    "git_staged_files",
    "json_file_facts",
    "stored_records",
]

GIT_TIMEOUT_S = 30.0
"""Longest wait for one read-only git command."""
MAX_FILES = 2_000
"""Files listed per tree (a probe needs a few real targets, not an inventory)."""
SAMPLE_LINES = 5
TEXT_SNIFF_BYTES = 4_096
CONTENT_BYTES = 16_384
"""Largest text file whose whole text the facts keep."""
CONTENT_BUDGET = 262_144
"""Most text the facts of one tree keep in all."""


class FileFact(Frozen):
    """One regular file of a tree."""

    path: str
    """``${root}/docs/api.md``."""
    size: int
    text: bool
    extension: str
    """Lower-case suffix with the dot (``.md``), or ``""``."""
    read_only: bool = False
    executable: bool = False
    lines: list[str] = Field(default_factory=list)
    """A few distinct, non-empty lines of a text file (for search-and-replace probes)."""
    content: str = ""
    """The whole text of a small text file (at most :data:`CONTENT_BYTES`), for an argument that takes such a file's
    text rather than its path (``adif_string``); empty for others and past a tree's :data:`CONTENT_BUDGET`."""
    leaves: dict[str, str] = Field(default_factory=dict)
    """A JSON document's leaf paths (``$.products[*].price``) and their JSON type (``number``)."""


class TreeFacts(Frozen):
    """A folder tree under one placeholder."""

    root: str
    """``${root}`` (or ``${repo}`` for a git work tree)."""
    files: list[FileFact] = Field(default_factory=list)
    folders: list[str] = Field(default_factory=list)
    """Every folder below the root, root excluded, shallow first."""
    empty_folders: list[str] = Field(default_factory=list)

    @property
    def read_only_files(self) -> list[FileFact]:
        return [f for f in self.files if f.read_only]


class CommitFact(Frozen):
    sha: str
    message: str
    """Subject line."""
    author: str = ""
    date: str = ""
    """ISO 8601 committer date."""


class RepositoryFacts(Frozen):
    """Refs and history of a git repository."""

    root: str
    current_branch: str | None = None
    branches: list[str] = Field(default_factory=list)
    """Local branches, the current one first."""
    tags: list[str] = Field(default_factory=list)
    commits: list[CommitFact] = Field(default_factory=list)
    """HEAD's history first (newest first), then commits only reachable from other refs."""
    tracked_files: list[str] = Field(default_factory=list)
    """``${repo}/src/app.py``."""
    changed_files: list[str] = Field(default_factory=list)
    """Modified or untracked work-tree files (what there is to stage, diff or commit)."""
    clean: bool = True


class EntityFact(Frozen):
    name: str
    entity_type: str
    observations: list[str] = Field(default_factory=list)


class RelationFact(Frozen):
    source: str
    target: str
    relation_type: str


class GraphFacts(Frozen):
    """A knowledge graph of entities and the relations between them."""

    entities: list[EntityFact] = Field(default_factory=list)
    relations: list[RelationFact] = Field(default_factory=list)

    @property
    def entity_types(self) -> list[str]:
        return list(dict.fromkeys(e.entity_type for e in self.entities))

    @property
    def relation_types(self) -> list[str]:
        return list(dict.fromkeys(r.relation_type for r in self.relations))


class EnvironmentFacts(Frozen):
    """Everything a planner may rely on about a snapshot; sections absent for other kinds."""

    kind: str
    root: str | None = None
    """The placeholder naming the state entry (``${root}``, ``${repo}``, ``${db_path}``, ``${file}``)."""
    tree: TreeFacts | None = None
    database: DatabaseFacts | None = None
    repository: RepositoryFacts | None = None
    graph: GraphFacts | None = None
    document_keys: list[str] = Field(default_factory=list)
    """Top-level keys of a JSON object document."""
    records: list[dict[str, str | int | float]] = Field(default_factory=list)
    """The records (objects with two or more scalar fields) a JSON document holds, in document order, their scalar
    fields only (``{"po_number": "PO-3300", "vendor_id": "V-2001", "total": 5610.0}``): what an argument named
    like a field refers to, and which values go together."""


# -- dispatcher ---------------------------------------------------------------------------------


def extract_facts(kind: str, state: Path | str | psycopg.Connection | None) -> EnvironmentFacts:
    """The facts of a state of environment ``kind``: a path (file kinds), a connection or DSN (postgres)."""
    match kind:
        case "directory":
            assert state is not None
            return EnvironmentFacts(kind=kind, root="${root}", tree=directory_facts(Path(str(state))))
        case "sqlite":
            assert state is not None
            return EnvironmentFacts(kind=kind, root="${db_path}", database=sqlite_facts(Path(str(state))))
        case "postgres":
            assert state is not None
            source = str(state) if isinstance(state, Path) else state
            return EnvironmentFacts(kind=kind, root="${database_uri}", database=postgres_facts(source))
        case "git":
            assert state is not None
            path = Path(str(state))
            return EnvironmentFacts(
                kind=kind,
                root="${repo}",
                repository=git_facts(path),
                tree=directory_facts(path, placeholder="${repo}", exclude=frozenset({".git"})),
            )
        case "json_file":
            assert state is not None
            path = Path(str(state))
            graph, keys = json_file_facts(path)
            records = stored_records(path) if graph is None else []
            return EnvironmentFacts(kind=kind, root="${file}", graph=graph, document_keys=keys, records=records)
        case _:
            return EnvironmentFacts(kind=kind)


# -- directory ----------------------------------------------------------------------------------


def directory_facts(
    root: Path, *, placeholder: str = "${root}", exclude: frozenset[str] = frozenset()
) -> TreeFacts:
    """Files and folders under ``root``, in a stable order (shallow first, then by name)."""
    files: list[FileFact] = []
    folders: list[str] = []
    empty: list[str] = []
    budget = CONTENT_BUDGET
    walked = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in exclude)
        walked.append((folder, list(dirs), names))
    for folder, dirs, names in sorted(walked, key=lambda w: (w[0].count(os.sep), w[0])):
        rel = os.path.relpath(folder, root)
        label = placeholder if rel == "." else f"{placeholder}/{Path(rel).as_posix()}"
        if rel != ".":
            folders.append(label)
            if not dirs and not names:
                empty.append(label)
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file() or len(files) >= MAX_FILES:
                continue
            fact = _file_fact(path, f"{label}/{name}", text_budget=budget)
            budget -= len(fact.content)
            files.append(fact)
    return TreeFacts(root=placeholder, files=files, folders=folders, empty_folders=empty)


def _file_fact(path: Path, label: str, *, text_budget: int = 0) -> FileFact:
    """One file's facts; its whole text when it is a text file of at most :data:`CONTENT_BYTES` and ``text_budget``."""
    stat = path.stat()
    try:
        with path.open("rb") as handle:
            head = handle.read(TEXT_SNIFF_BYTES)
    except OSError:
        head = b"\0"
    text = b"\0" not in head and _decodes(head)
    content = ""
    if text and 0 < stat.st_size <= min(CONTENT_BYTES, text_budget):
        try:
            content = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            content = ""
    lines: list[str] = []
    if text:
        candidates = head.decode("utf-8", errors="ignore").splitlines()
        if len(head) == TEXT_SNIFF_BYTES:
            candidates = candidates[:-1]  # the last line may be cut
        for line in candidates:
            if line and line == line.strip() and len(line) <= 120 and line not in lines:
                lines.append(line)
            if len(lines) >= SAMPLE_LINES:
                break
    return FileFact(
        path=label,
        size=stat.st_size,
        text=text,
        extension=path.suffix.lower(),
        read_only=not stat.st_mode & 0o222,
        executable=bool(stat.st_mode & 0o111),
        lines=lines,
        content=content,
        leaves=document_leaves(path) if text and path.suffix.lower() == ".json" else {},
    )


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:  # a multi-byte character cut at the end of the sniffed block
        return exc.start >= len(data) - 3
    return True


# -- git ----------------------------------------------------------------------------------------


def git_facts(repo: Path, *, placeholder: str = "${repo}") -> RepositoryFacts:
    """Refs, history and tracked files of the repository at ``repo`` (never changes it)."""
    current = _git(repo, "symbolic-ref", "-q", "--short", "HEAD").strip() or None
    branches = _git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split()
    if current in branches:
        branches.remove(current)
        branches.insert(0, current)
    tags = _git(repo, "for-each-ref", "--format=%(refname:short)", "refs/tags").split()
    fmt = "--format=%H%x1f%s%x1f%an%x1f%cI"
    commits: dict[str, CommitFact] = {}
    for output in (_git(repo, "log", fmt, "HEAD"), _git(repo, "log", fmt, "--all")):
        for line in output.splitlines():
            sha, message, author, date = [*line.split("\x1f"), "", "", ""][:4]
            commits.setdefault(sha, CommitFact(sha=sha, message=message, author=author, date=date))
    tracked = [f"{placeholder}/{name}" for name in _git(repo, "ls-files", "-z").split("\0") if name]
    status = _git(repo, "status", "--porcelain", "-z", "--untracked-files=all").split("\0")
    changed = [f"{placeholder}/{line[3:]}" for line in status if len(line) > 3 and line[:2] != "D "]
    clean = not changed
    return RepositoryFacts(
        root=placeholder,
        current_branch=current,
        branches=branches,
        tags=tags,
        commits=list(commits.values()),
        tracked_files=tracked,
        changed_files=changed,
        clean=clean,
    )


def git_staged_files(repo: Path) -> list[str]:
    """Paths (relative to the work tree) whose staged content differs from HEAD's — every path in
    the index when there is no commit yet (never changes the repository)."""
    if _git(repo, "rev-parse", "-q", "--verify", "HEAD").strip():
        listed = _git(repo, "diff", "--cached", "--name-only", "-z")
    else:
        listed = _git(repo, "ls-files", "-z")
    return sorted(name for name in listed.split("\0") if name)


def _git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_OPTIONAL_LOCKS": "0",
        "LC_ALL": "C",
    }
    result = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=GIT_TIMEOUT_S,
        check=False,
    )
    return result.stdout if result.returncode == 0 else ""


# -- JSON file ------------------------------------------------------------------------------------


def json_file_facts(path: Path) -> tuple[GraphFacts | None, list[str]]:
    """A knowledge graph read from JSON lines (or a JSON document), or the keys of a JSON object."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        document: Any = json.loads(text) if text.strip() else None
    except json.JSONDecodeError:
        document = None
    if isinstance(document, dict):
        records = [
            r for key in ("entities", "relations") for r in document.get(key) or [] if isinstance(r, dict)
        ]
        if records:
            return _graph(records), sorted(document)
        return None, sorted(document)
    if isinstance(document, list):
        records = [r for r in document if isinstance(r, dict)]
    else:
        records = []
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                records.append(record)
    graph = _graph(records)
    return (graph if graph.entities or graph.relations else None), []


STORED_RECORDS = 64
"""Records of a JSON document kept as facts."""
MAX_FIELD_CHARS = 80


def stored_records(path: Path) -> list[dict[str, str | int | float]]:
    """The records (objects with two or more scalar fields) anywhere in the JSON document at ``path``, breadth
    first, their scalar fields only — strings of one line up to :data:`MAX_FIELD_CHARS`, numbers —, at most
    :data:`STORED_RECORDS`."""
    try:
        document = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, json.JSONDecodeError):
        return []
    records: list[dict[str, str | int | float]] = []
    queue: list[Any] = [document]
    while queue and len(records) < STORED_RECORDS:
        node = queue.pop(0)
        values = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        queue.extend(v for v in values if isinstance(v, dict | list))
        if isinstance(node, dict):
            scalar = {k: v for k, v in node.items() if _field_value(v)}
            if len(scalar) >= 2:
                records.append(scalar)
    return records


def _field_value(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return isinstance(value, str) and 0 < len(value) <= MAX_FIELD_CHARS and "\n" not in value


def _graph(records: list[dict[str, Any]]) -> GraphFacts:
    entities: list[EntityFact] = []
    relations: list[RelationFact] = []
    for record in records:
        if "from" in record and "to" in record:
            relations.append(
                RelationFact(
                    source=str(record["from"]),
                    target=str(record["to"]),
                    relation_type=str(record.get("relationType") or record.get("relation_type") or ""),
                )
            )
        elif "name" in record:
            observations = record.get("observations") or []
            entities.append(
                EntityFact(
                    name=str(record["name"]),
                    entity_type=str(record.get("entityType") or record.get("entity_type") or ""),
                    observations=[str(o) for o in observations] if isinstance(observations, list) else [],
                )
            )
    return GraphFacts(entities=entities, relations=relations)
