"""Evaluating declarative :class:`~toolatlas.tasks.models.StateAssertion` s, read-only, in process.

Chain tasks are verified by assertions taken from a recorded post-state, so their checks need no
code box: files are read, SQLite is opened with ``mode=ro``, git is asked read-only (optional
locks off), and the answer is searched. A frozen state is only ever read here.

================== ============================== =================================================
kind               target                         expected
================== ============================== =================================================
file_exists        path relative to the root      —
file_absent        path relative to the root      —
file_contains      path ("" for a one-file state) a string the file must contain
file_sha256        path ("" for a one-file state) the hex SHA-256 of the file's bytes
query_rows         a read-only SQL query          the rows, as a list of column → value dicts
git_head_subject   —                              the subject line of the commit HEAD points to
git_branch_exists  a branch name                  —
git_current_branch —                              the name of the branch checked out
git_staged         path relative to the work tree — (staged: its index content differs from HEAD's)
answer_contains    —                              a string the final answer must contain
================== ============================== =================================================

Text comparisons ignore differences in whitespace; ``answer_contains`` also ignores case.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolatlas.codebox.states import StateInput
from toolatlas.models import Frozen
from toolatlas.offline.facts import git_facts, git_staged_files
from toolatlas.tasks.models import StateAssertion

__all__ = [
    "AssertionResult",
    "check_assertion",
    "check_assertions",
    "describe_assertion",
    "head_subject",
    "normalise_rows",
    "squash",
]

_ONE_FILE_KINDS = frozenset({"sqlite", "json_file"})
MAX_SHOWN = 160


class AssertionResult(Frozen):
    """One assertion checked against one state and answer."""

    assertion: StateAssertion
    passed: bool
    detail: str = ""


def squash(text: str) -> str:
    """Whitespace runs collapsed to one space, ends stripped: the form text is compared in."""
    return " ".join(text.split())


def _shown(value: Any, limit: int = MAX_SHOWN) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def normalise_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows as JSON carries them (bytes as hex), so recorded and observed rows compare equal."""
    return [
        {key: value.hex() if isinstance(value, bytes) else value for key, value in row.items()}
        for row in rows
    ]


def _path(state: StateInput, target: str) -> Path:
    """The file ``target`` names inside the state; it may not escape it."""
    root = Path(state.path)
    if state.kind in _ONE_FILE_KINDS:
        if target:
            raise ValueError(f"a {state.kind} state is one file; its assertions have no path, got {target!r}")
        return root
    path = root / target
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if real != real_root and not real.startswith(real_root + os.sep):
        raise ValueError(f"{target!r} is outside the state")
    return path


def _query(state: StateInput, sql: str) -> list[dict[str, Any]]:
    if state.kind != "sqlite":
        raise ValueError(f"query_rows needs a sqlite state, not {state.kind}")
    conn = sqlite3.connect(f"file:{state.path}?mode=ro", uri=True)
    try:
        conn.row_factory = sqlite3.Row
        return normalise_rows(dict(row) for row in conn.execute(sql))
    finally:
        conn.close()


def _repository(state: StateInput, kind: str) -> Path:
    if state.kind != "git":
        raise ValueError(f"{kind} needs a git state, not {state.kind}")
    return Path(state.path)


def head_subject(repo: Path) -> str | None:
    """The subject of the commit HEAD points to (None for a repository without commits)."""
    facts = git_facts(repo)
    return facts.commits[0].message if facts.commits else None


def _check(assertion: StateAssertion, state: StateInput, answer: str) -> tuple[bool, str]:
    expected = assertion.expected
    match assertion.kind:
        case "file_exists":
            found = _path(state, assertion.target).exists()
            return found, "" if found else f"{assertion.target} does not exist"
        case "file_absent":
            found = _path(state, assertion.target).exists()
            return not found, f"{assertion.target} still exists" if found else ""
        case "file_contains":
            path = _path(state, assertion.target)
            if not path.is_file():
                return False, f"{assertion.target or 'the state file'} does not exist"
            text = path.read_text(encoding="utf-8", errors="replace")
            passed = squash(str(expected)) in squash(text)
            return (
                passed,
                "" if passed else f"{assertion.target or 'the state file'} lacks {_shown(expected)!r}",
            )
        case "file_sha256":
            path = _path(state, assertion.target)
            if not path.is_file():
                return False, f"{assertion.target or 'the state file'} does not exist"
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            return (
                digest == expected,
                "" if digest == expected else f"{assertion.target} differs (sha256 {digest[:12]}…)",
            )
        case "query_rows":
            rows = _query(state, assertion.target)
            passed = rows == expected
            return (
                passed,
                ""
                if passed
                else f"{_shown(assertion.target)} gave {_shown(rows)}, expected {_shown(expected)}",
            )
        case "git_head_subject":
            subject = head_subject(Path(state.path)) if state.kind == "git" else None
            passed = subject is not None and squash(subject) == squash(str(expected))
            return passed, "" if passed else f"HEAD's subject is {subject!r}, expected {_shown(expected)!r}"
        case "git_branch_exists":
            found = assertion.target in git_facts(_repository(state, assertion.kind)).branches
            return found, "" if found else f"there is no branch {assertion.target!r}"
        case "git_current_branch":
            current = git_facts(_repository(state, assertion.kind)).current_branch
            passed = current == expected
            return passed, "" if passed else f"the branch checked out is {current!r}, expected {_shown(expected)!r}"
        case "git_staged":
            staged = assertion.target in git_staged_files(_repository(state, assertion.kind))
            return staged, "" if staged else f"{assertion.target} is not staged"
        case "answer_contains":
            passed = squash(str(expected)).casefold() in squash(answer).casefold()
            return passed, "" if passed else f"the answer lacks {_shown(expected)!r}"
    return False, f"unknown assertion kind {assertion.kind!r}"  # pragma: no cover - the Literal is closed


def describe_assertion(assertion: StateAssertion) -> str:
    """One assertion as a sentence (for prompts and reports)."""
    expected = _shown(json.dumps(assertion.expected, ensure_ascii=False, default=str), limit=300)
    match assertion.kind:
        case "file_exists":
            return f"{assertion.target} exists"
        case "file_absent":
            return f"{assertion.target} does not exist"
        case "file_contains":
            return f"{assertion.target or 'the state file'} contains {expected}"
        case "file_sha256":
            return (
                f"{assertion.target} has exactly the recorded bytes (sha256 {str(assertion.expected)[:12]}…)"
            )
        case "query_rows":
            return f"the query {assertion.target!r} returns {expected}"
        case "git_head_subject":
            return f"the commit HEAD points to has the subject {expected}"
        case "git_branch_exists":
            return f"the repository has a branch {assertion.target!r}"
        case "git_current_branch":
            return f"the branch checked out is {expected}"
        case "git_staged":
            return f"{assertion.target} is staged for commit"
        case "answer_contains":
            return f"the final answer contains {expected}"
    return f"{assertion.kind} {assertion.target} {expected}"  # pragma: no cover - the Literal is closed


def check_assertion(assertion: StateAssertion, state: StateInput, answer: str = "") -> AssertionResult:
    """Check one assertion; a state it cannot be checked on (wrong kind, bad query) fails it, with why."""
    try:
        passed, detail = _check(assertion, state, answer)
    except (OSError, sqlite3.Error, ValueError, subprocess.SubprocessError) as exc:
        passed, detail = False, f"{assertion.kind} could not be checked: {type(exc).__name__}: {exc}"
    return AssertionResult(assertion=assertion, passed=passed, detail=detail)


def check_assertions(
    assertions: Iterable[StateAssertion], state: StateInput, answer: str = ""
) -> list[AssertionResult]:
    """Check every assertion (blocking: run it in a thread from async code)."""
    return [check_assertion(assertion, state, answer) for assertion in assertions]
