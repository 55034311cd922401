"""How a frozen state is handed to a verifier: its path, what the child may read, and facts computed here.

The child can read files but can run no program and open no connection, so what needs one is
computed in the parent before the run and passed in as data: for a git state the repository
facts (``git`` is run here, read-only, with optional locks off), for a PostgreSQL state a dump
of its tables (read-only transaction, at most :data:`PG_MAX_ROWS` rows per table).

The state is never copied. It is read-only for the code because writes outside the code's work
dir are refused (Landlock and the audit hook) and SQLite is opened with ``mode=ro``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from toolatlas.environments.base import FrozenState, Snapshot
from toolatlas.errors import VerificationError

__all__ = ["GIT_LOG_LIMIT", "PG_MAX_ROWS", "StateInput", "describe_state"]

GIT_LOG_LIMIT = 200
PG_MAX_ROWS = 10_000
GIT_TIMEOUT_S = 30.0
_SNAPSHOT_KINDS = frozenset({"directory", "sqlite", "git", "json_file"})
"""Kinds whose snapshot is itself a readable state (the others: freeze an untouched instance)."""
_SQLITE_SIDECARS = ("-wal", "-shm", "-journal")

StateInput = FrozenState | Snapshot


def describe_state(state: StateInput) -> tuple[dict[str, Any], list[str]]:
    """``({"kind", "path", "facts"}, read roots)`` for a frozen state or a file-kind snapshot (blocking)."""
    if isinstance(state, Snapshot) and state.kind not in _SNAPSHOT_KINDS:
        raise VerificationError(
            f"a {state.kind} snapshot is not a readable state; verify a frozen untouched instance instead"
        )
    if state.kind == "postgres":
        uri = state.variables.get("database_uri") if isinstance(state, FrozenState) else None
        if not uri:
            raise VerificationError(f"postgres state {state.path!r} has no database_uri")
        return {"kind": "postgres", "path": None, "facts": {"tables": postgres_tables(uri)}}, []
    path = Path(state.path)
    if not path.exists():
        raise VerificationError(f"the {state.kind} state {path} does not exist (discarded already?)")
    facts: dict[str, Any] = {}
    roots = [str(path)]
    if state.kind == "git":
        facts["git"] = git_facts(path)
    if state.kind == "sqlite":
        roots += [str(path) + suffix for suffix in _SQLITE_SIDECARS if Path(str(path) + suffix).exists()]
    return {"kind": state.kind, "path": str(path), "facts": facts}, roots


# -- git -------------------------------------------------------------------------------------------

_FIELD, _RECORD = "\x1f", "\x1e"


def _git(repo: Path, *args: str) -> str:
    try:
        result = subprocess.run(
            ["git", "-c", "safe.directory=*", "-C", str(repo), *args],
            check=False,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise VerificationError(f"cannot read git state {repo}: git {args[0]}: {exc}") from exc
    return result.stdout if result.returncode == 0 else ""


def git_facts(repo: Path) -> dict[str, Any]:
    """HEAD, branches, tags, the log reachable from HEAD with changed files, and the status."""
    head_commit = _git(repo, "rev-parse", "--verify", "-q", "HEAD").strip()
    branch = _git(repo, "symbolic-ref", "-q", "--short", "HEAD").strip()
    refs: dict[str, dict[str, str]] = {"refs/heads/": {}, "refs/tags/": {}}
    for line in _git(repo, "for-each-ref", "--format=%(refname) %(objectname)").splitlines():
        name, _, commit = line.partition(" ")
        for prefix, table in refs.items():
            if name.startswith(prefix):
                table[name.removeprefix(prefix)] = commit
    return {
        "head": branch or head_commit,
        "head_commit": head_commit,
        "branches": refs["refs/heads/"],
        "tags": refs["refs/tags/"],
        "log": _git_log(repo) if head_commit else [],
        "status": _git_status(repo),
    }


def _git_log(repo: Path) -> list[dict[str, Any]]:
    fmt = _RECORD + _FIELD.join(["%H", "%P", "%an", "%ae", "%aI", "%s", "%b"]) + _FIELD
    text = _git(repo, "log", f"-n{GIT_LOG_LIMIT}", f"--format={fmt}", "--name-status", "HEAD")
    commits = []
    for record in text.split(_RECORD)[1:]:
        fields = record.split(_FIELD)
        commit_id, parents, author, email, date, subject, body, changes = fields
        files = [line.split("\t", 1) for line in changes.strip().splitlines() if "\t" in line]
        commits.append(
            {
                "id": commit_id,
                "parents": parents.split(),
                "author": author,
                "email": email,
                "date": date,
                "subject": subject,
                "body": body.strip(),
                "files": files,
            }
        )
    return commits


def _git_status(repo: Path) -> list[dict[str, str]]:
    entries = _git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all").split("\0")
    status, skip = [], False
    for entry in entries:
        if skip or len(entry) < 4:
            skip = False
            continue
        index, worktree, path = entry[0], entry[1], entry[3:]
        skip = index in "RC"  # a rename or copy is followed by its source path
        status.append({"path": path, "index": index.strip() or "", "worktree": worktree.strip() or ""})
    return status


# -- postgres --------------------------------------------------------------------------------------


def postgres_tables(uri: str) -> dict[str, dict[str, Any]]:
    """``label → {"columns", "rows"}`` for every user table, read in one read-only transaction."""
    import psycopg  # only PostgreSQL states need it
    from psycopg import sql

    from toolatlas.environments.postgres import _user_schema

    listing = (
        "SELECT table_schema, table_name FROM information_schema.tables "
        f"WHERE table_type = 'BASE TABLE' AND {_user_schema('table_schema')} ORDER BY 1, 2"
    )
    tables: dict[str, dict[str, Any]] = {}
    try:
        with psycopg.connect(uri, connect_timeout=10) as conn:
            conn.read_only = True
            for schema, table in conn.execute(listing).fetchall():
                label = table if schema == "public" else f"{schema}.{table}"
                query = sql.SQL("SELECT * FROM {}.{} LIMIT {}").format(
                    sql.Identifier(schema), sql.Identifier(table), PG_MAX_ROWS
                )
                cursor = conn.execute(query)
                columns = [column.name for column in cursor.description or []]
                rows = [[_jsonable(value) for value in row] for row in cursor.fetchall()]
                tables[label] = {"columns": columns, "rows": rows}
    except psycopg.Error as exc:
        raise VerificationError(f"cannot read postgres state {uri}: {exc}") from exc
    return tables


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)
