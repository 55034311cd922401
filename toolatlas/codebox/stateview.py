"""``state``: the read-only view of a frozen post-state that a verifier receives. Stdlib only.

A verifier is Python that defines ``def verify(state, answer)`` and returns ``True``/``False``,
or ``(passed, reason)``, or raises ``AssertionError`` (a failed check, its message the reason).
``answer`` is the agent's final answer (usually a string). ``state`` is a :class:`StateView`:

=============  ===============================================================================
``kind``        what ``state.path`` is and which helpers apply
=============  ===============================================================================
directory       a folder: ``read_text``, ``read_bytes``, ``read_json``, ``exists``, ``list_files``
git             the work tree (same file helpers; ``.git`` is skipped by ``list_files``) and
                ``state.git``: facts computed before the run (see below)
sqlite          the database file: ``query``, ``tables``, ``rows``, ``connect`` (read-only)
json_file       the JSON / JSON-lines file: ``read_text``, ``read_json``, ``records``
postgres        no path; ``tables`` and ``rows`` from a dump taken before the run
none, command   a folder, like ``directory``
=============  ===============================================================================

``state.git`` holds ``head`` (branch name, or the commit id when detached), ``head_commit``,
``branches`` and ``tags`` (name → commit id), ``log`` (newest first, up to 200 commits reachable
from HEAD: ``id``, ``parents``, ``author``, ``email``, ``date``, ``subject``, ``body``,
``files`` as ``[status, path]`` pairs), and ``status`` (``[{"path", "index", "worktree"}]`` as in
``git status --porcelain``, untracked files with ``"?"``).

The state is frozen: it can be read, never changed (writes anywhere but the verifier's own
scratch folder, the working directory, are refused).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

__all__ = ["StateKindError", "StateView"]

_TREE_KINDS = frozenset({"directory", "git", "none", "command"})


class StateKindError(TypeError):
    """A helper was called on a state of a kind it does not apply to."""


class StateView:
    """Read-only access to one frozen environment state."""

    def __init__(self, kind: str, path: str | None, facts: dict[str, Any] | None = None) -> None:
        self.kind = kind
        self.path: Path | None = Path(path) if path else None
        self._facts = facts or {}

    def __repr__(self) -> str:
        return f"StateView(kind={self.kind!r}, path={str(self.path)!r})"

    # -- files -------------------------------------------------------------------------------------

    def file(self, relative: str = "") -> Path:
        """The path of ``relative`` inside the state (``""``: the state itself); ``..`` may not escape it."""
        if self.path is None:
            raise StateKindError(f"a {self.kind} state has no files")
        if relative and self.kind not in _TREE_KINDS:
            raise StateKindError(f"a {self.kind} state is one file: call this without a relative path")
        target = (self.path / relative) if relative else self.path
        root, real = os.path.realpath(self.path), os.path.realpath(target)
        if real != root and not real.startswith(root + os.sep):
            raise ValueError(f"{relative!r} is outside the state")
        return target

    def exists(self, relative: str = "") -> bool:
        return self.file(relative).exists()

    def read_text(self, relative: str = "", encoding: str = "utf-8") -> str:
        return self.file(relative).read_text(encoding=encoding)

    def read_bytes(self, relative: str = "") -> bytes:
        return self.file(relative).read_bytes()

    def read_json(self, relative: str = "") -> Any:
        return json.loads(self.read_text(relative))

    def list_files(self, relative: str = "", pattern: str = "**/*") -> list[str]:
        """Files (not folders) under ``relative`` matching the glob ``pattern``, as sorted relative paths."""
        base = self.file(relative)
        if not base.is_dir():
            raise StateKindError(f"{relative or self.kind!r} is not a folder")
        found = []
        for path in base.glob(pattern):
            rel = path.relative_to(self.path)  # type: ignore[arg-type]
            if self.kind == "git" and rel.parts and rel.parts[0] == ".git":
                continue
            if path.is_file():
                found.append(rel.as_posix())
        return sorted(found)

    # -- JSON documents and JSON lines -------------------------------------------------------------

    def records(self) -> list[Any]:
        """The records of a ``json_file`` state: the items of a JSON array, or one per JSON line."""
        if self.kind != "json_file":
            raise StateKindError(f"records() applies to json_file states, not {self.kind}")
        text = self.read_text()
        try:
            document = json.loads(text) if text.strip() else []
        except json.JSONDecodeError:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        return document if isinstance(document, list) else [document]

    # -- databases ---------------------------------------------------------------------------------

    def connect(self) -> sqlite3.Connection:
        """A read-only connection to a ``sqlite`` state (rows come back as ``sqlite3.Row``)."""
        if self.kind != "sqlite" or self.path is None:
            raise StateKindError(f"connect() applies to sqlite states, not {self.kind}")
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        return conn

    def query(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[dict[str, Any]]:
        """Rows of a read-only SQL query on a ``sqlite`` state, as dicts."""
        conn = self.connect()
        try:
            return [dict(row) for row in conn.execute(sql, params)]
        finally:
            conn.close()

    def tables(self) -> list[str]:
        """Table names of a ``sqlite`` or ``postgres`` state (PostgreSQL: ``schema.table`` outside ``public``)."""
        if self.kind == "postgres":
            return sorted(self._facts.get("tables", {}))
        rows = self.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        return sorted(row["name"] for row in rows)

    def rows(self, table: str) -> list[dict[str, Any]]:
        """Every row of one table as dicts (PostgreSQL: values as JSON gives them, at most 10 000 rows)."""
        if self.kind == "postgres":
            tables = self._facts.get("tables", {})
            if table not in tables:
                raise KeyError(f"no table {table!r}; tables: {', '.join(sorted(tables))}")
            columns = tables[table]["columns"]
            return [dict(zip(columns, row, strict=True)) for row in tables[table]["rows"]]
        quoted = '"' + table.replace('"', '""') + '"'
        return self.query(f"SELECT * FROM {quoted}")

    # -- git ---------------------------------------------------------------------------------------

    @property
    def git(self) -> dict[str, Any]:
        """Facts about a ``git`` state's repository (see the module docstring for the keys)."""
        if self.kind != "git":
            raise StateKindError(f"git applies to git states, not {self.kind}")
        return self._facts["git"]
