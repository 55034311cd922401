"""Verifiers for chain-decompiled tasks, taken from a verified offline chain's recorded post-state.

ToolSpace (``papers/002_…``) turns verified multi-step chains into tasks whose verifiers are
assertions about the state the chain left behind: sound by construction, because they are read
off what really happened, not written by an LLM. :func:`chain_evidence` derives them in code:

- files added or changed: their content, line by line (``file_contains``), or their SHA-256 when
  the content is a copy of a snapshot file (a move) or cannot be stated in a request;
- files and folders removed: ``file_absent``; folders created empty: ``file_exists``;
- SQLite: the rows of new or changed records and the columns of new tables (``query_rows``),
  and the absence of removed ones;
- git: the subject of a new HEAD commit (``git_head_subject``), new branches (``git_branch_exists``),
  the branch checked out (``git_current_branch``) and newly staged paths (``git_staged``), beside
  its work-tree files;
- a JSON-lines state: the records the chain added, verbatim;
- a read-only chain: a few values of its final output the answer must contain (``answer_contains``).

With them come the values the task's text must state (names, contents, messages: an agent
cannot meet an assertion about a value it was never told) and the answer values the text must
not give away. Nothing here writes to a state.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from toolatlas.codebox.states import StateInput
from toolatlas.environments import StateDiff
from toolatlas.environments.files import tree_items
from toolatlas.errors import VerificationError
from toolatlas.models import CallOutcome
from toolatlas.offline.facts import git_facts, git_staged_files
from toolatlas.probing.clock import carries_clock
from toolatlas.probing.models import Direction, Probe, Rollout, Verdict
from toolatlas.probing.text import looks_like_error, to_placeholders
from toolatlas.tasks.assertions import head_subject, normalise_rows, squash
from toolatlas.tasks.models import StateAssertion

__all__ = ["ChainEvidence", "chain_evidence", "chain_problem"]

_READABLE_KINDS = frozenset({"directory", "git", "sqlite", "json_file"})
"""Post-states assertions are derived from (the kinds :mod:`toolatlas.tasks.assertions` can read)."""
CHAIN_DIRECTIONS = frozenset({Direction.SEED, Direction.AFFORDANCE})
"""Chains worth a task: seeds and affordances (replays repeat one call; boundaries end in an error)."""
MIN_STEPS = 2
INLINE_LINES = 12
"""New text of at most this many lines is asserted line by line (and must be stated in the task)."""
INLINE_LINE_CHARS = 300
ANSWER_VALUES = 2
"""Values of a read-only chain's final output its answer must contain."""
_MIN_VALUE_CHARS = 3
_MAX_VALUE_CHARS = 80
_MARKUP = "#*->`|:[]{}(),\t "
"""Characters stripped from both ends of an output line before it is used as an answer value."""
_QUOTED = re.compile(r"'([^'\n]{3,80})'|\"([^\"\n]{3,80})\"")


@dataclass(frozen=True)
class ChainEvidence:
    """What a chain's recorded outcome lets a task assert, and what its text must (not) say."""

    assertions: list[StateAssertion]
    must_state: list[str] = field(default_factory=list)
    """Values the task text must contain verbatim for an agent to be able to meet the assertions."""
    answer_values: list[str] = field(default_factory=list)
    """Values the answer must contain; the text must not give them away."""
    changed: bool = False
    """The chain changed the state (the task requires a change)."""

    def omitted(self, text: str) -> list[str]:
        flat = squash(text)
        return [value for value in self.must_state if squash(value) not in flat]

    def given_away(self, text: str) -> list[str]:
        flat = squash(text).casefold()
        return [value for value in self.answer_values if squash(value).casefold() in flat]


def chain_problem(probe: Probe, rollout: Rollout, verdict: Verdict) -> str | None:
    """Why this probe is not a verified chain a task can be written from (None: it is one)."""
    if probe.direction not in CHAIN_DIRECTIONS:
        return f"a {probe.direction.value} probe, not a seed or affordance chain"
    if len({(s.tool, json.dumps(s.arguments, sort_keys=True)) for s in probe.steps}) < MIN_STEPS:
        return f"fewer than {MIN_STEPS} distinct calls"
    if rollout.infrastructure_error is not None:
        return f"the sandbox failed: {rollout.infrastructure_error}"
    if rollout.aborted_at is not None or len(rollout.steps) != len(probe.steps):
        return "the chain did not run to its end"
    if not verdict.resolved:
        return "the offline verifier did not resolve it"
    return None


def chain_evidence(rollout: Rollout, verdict: Verdict, initial: StateInput) -> ChainEvidence:
    """Assertions from the chain's recorded post-state (``rollout.frozen``), compared with ``initial``.

    Blocking (reads files, SQLite, git). The frozen post-state must still exist: verify the
    rollout with ``discard=False`` and discard it after this.
    """
    frozen = rollout.frozen
    if frozen is None:
        return _answer_evidence(rollout)
    if frozen.kind not in _READABLE_KINDS:  # e.g. postgres: nothing here reads its post-state
        return ChainEvidence([], changed=True)
    after = Path(frozen.path)
    if not after.exists():
        raise VerificationError(
            f"the chain's post-state {after} is gone (verify with discard=False to keep it)"
        )
    before = Path(initial.path)
    arguments = json.dumps([s.arguments for s in rollout.probe.steps], ensure_ascii=False)
    match frozen.kind:
        case "directory":
            parts = [_tree_evidence(before, after, verdict.change)]
        case "git":
            parts = [
                _tree_evidence(before, after, verdict.change, prefix="worktree:"),
                _git_evidence(before, after),
            ]
        case "sqlite":
            parts = [_sqlite_evidence(after, verdict.change, arguments)]
        case _:  # json_file
            parts = [_json_lines_evidence(before, after)]
    return replace(_merge(parts), changed=True)


# -- files --------------------------------------------------------------------------------------


def _text_lines(data: bytes) -> list[str] | None:
    """The non-empty stripped lines of small UTF-8 text, or None when it is not that."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > INLINE_LINES or any(len(line) > INLINE_LINE_CHARS for line in lines) or "\0" in text:
        return None
    return lines


def _file_evidence(rel: str, after: Path, before: Path, known: set[str]) -> ChainEvidence:
    data = (after / rel).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    name = PurePosixPath(rel).name
    sha = ChainEvidence([StateAssertion(kind="file_sha256", target=rel, expected=digest)], [name])
    if digest[:32] in known:  # a snapshot file's content, moved or copied: no need to state it
        return sha
    lines = _text_lines(data)
    if not lines:  # binary, long or empty: only the exact bytes say it
        return sha
    if (before / rel).is_file():  # an edit: assert the lines it added
        old = {
            line.strip() for line in (before / rel).read_text(encoding="utf-8", errors="replace").splitlines()
        }
        lines = [line for line in lines if line not in old]
        if not lines:
            return sha
    contains = [StateAssertion(kind="file_contains", target=rel, expected=line) for line in lines]
    return ChainEvidence(contains, [name, *lines])


def _tree_evidence(before: Path, after: Path, diff: StateDiff, *, prefix: str = "") -> ChainEvidence:
    def keys(items: list[str]) -> list[str]:
        return sorted(k[len(prefix) :] for k in items if k.startswith(prefix))

    added, changed, removed = keys(diff.added), keys(diff.changed), keys(diff.removed)
    known = {value[:32] for value in tree_items(before, exclude=frozenset({".git"})).values()}
    parts = [_file_evidence(rel, after, before, known) for rel in [*added, *changed] if not rel.endswith("/")]
    for folder in (rel for rel in added if rel.endswith("/")):
        if not any(other.startswith(folder) for other in added if other != folder):
            name = folder.rstrip("/")
            parts.append(
                ChainEvidence([StateAssertion(kind="file_exists", target=name)], [PurePosixPath(name).name])
            )
    gone_folders = [rel for rel in removed if rel.endswith("/")]
    for rel in removed:
        if any(rel != folder and rel.startswith(folder) for folder in gone_folders):
            continue  # its folder's absence says it
        name = rel.rstrip("/")
        parts.append(
            ChainEvidence([StateAssertion(kind="file_absent", target=name)], [PurePosixPath(name).name])
        )
    return _merge(parts)


def _merge(parts: list[ChainEvidence]) -> ChainEvidence:
    return ChainEvidence(
        assertions=[a for p in parts for a in p.assertions],
        must_state=list(dict.fromkeys(v for p in parts for v in p.must_state)),
    )


# -- git ----------------------------------------------------------------------------------------


def _git_evidence(before: Path, after: Path) -> ChainEvidence:
    """A new HEAD commit's subject, branches the chain created, the branch it checked out, and
    the paths it staged (and left staged)."""
    parts = []
    subject = head_subject(after)
    if subject is not None and subject != head_subject(before):
        parts.append(ChainEvidence([StateAssertion(kind="git_head_subject", expected=subject)], [subject]))
    old, new = git_facts(before), git_facts(after)
    for branch in sorted(set(new.branches) - set(old.branches)):
        parts.append(ChainEvidence([StateAssertion(kind="git_branch_exists", target=branch)], [branch]))
    if new.current_branch is not None and new.current_branch != old.current_branch:
        current = new.current_branch
        parts.append(ChainEvidence([StateAssertion(kind="git_current_branch", expected=current)], [current]))
    for path in sorted(set(git_staged_files(after)) - set(git_staged_files(before))):
        parts.append(ChainEvidence([StateAssertion(kind="git_staged", target=path)], [path]))
    return _merge(parts)


# -- SQLite -------------------------------------------------------------------------------------


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _sqlite_evidence(db: Path, diff: StateDiff, arguments: str) -> ChainEvidence:
    """Columns and rows of new tables, rows added or changed, absence of what was removed."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return _sqlite_assertions(conn, diff, arguments)
    finally:
        conn.close()


def _sqlite_assertions(conn: sqlite3.Connection, diff: StateDiff, arguments: str) -> ChainEvidence:
    def rows(sql: str) -> list[dict[str, Any]]:
        return normalise_rows(dict(row) for row in conn.execute(sql))

    def tables(items: list[str]) -> list[str]:
        return [k.removeprefix("schema:table:") for k in items if k.startswith("schema:table:")]

    assertions: list[StateAssertion] = []
    must_state: list[str] = []
    new_tables, gone_tables = tables(diff.added), tables(diff.removed)
    for table in new_tables:
        columns = f"SELECT name FROM pragma_table_info({_literal(table)}) ORDER BY cid"
        assertions.append(StateAssertion(kind="query_rows", target=columns, expected=rows(columns)))
        content = f"SELECT * FROM {_identifier(table)} ORDER BY rowid"
        if found := rows(content):
            assertions.append(StateAssertion(kind="query_rows", target=content, expected=found))
        must_state += [table, *(row["name"] for row in rows(columns)), *_stated(found, arguments)]
    for table in gone_tables:
        query = f"SELECT name FROM sqlite_master WHERE type = 'table' AND name = {_literal(table)}"
        assertions.append(StateAssertion(kind="query_rows", target=query, expected=[]))
        must_state.append(table)
    touched = _rowids(diff.added + diff.changed, skip=new_tables)
    for table, ids in touched.items():
        query = f"SELECT * FROM {_identifier(table)} WHERE rowid IN ({', '.join(ids)}) ORDER BY rowid"
        found = rows(query)
        assertions.append(StateAssertion(kind="query_rows", target=query, expected=found))
        must_state += _stated(found, arguments)
    for table, ids in _rowids(diff.removed, skip=gone_tables).items():
        query = f"SELECT rowid AS removed FROM {_identifier(table)} WHERE rowid IN ({', '.join(ids)})"
        assertions.append(StateAssertion(kind="query_rows", target=query, expected=[]))
    return ChainEvidence(assertions, list(dict.fromkeys(must_state)))


def _stated(rows: list[dict[str, Any]], arguments: str) -> list[str]:
    """The text values of ``rows`` that the chain's calls spelled out (so the request must too)."""
    return [v for row in rows for v in row.values() if isinstance(v, str) and len(v) > 1 and v in arguments]


def _rowids(keys: list[str], *, skip: list[str]) -> dict[str, list[str]]:
    """``table#rowid`` digest keys grouped by table (rowless tables' row hashes are left out)."""
    found: dict[str, list[str]] = {}
    for key in keys:
        table, sep, rowid = key.rpartition("#")
        if sep and rowid.isdigit() and not key.startswith("schema:") and table not in skip:
            found.setdefault(table, []).append(rowid)
    return found


# -- JSON lines ---------------------------------------------------------------------------------


def _json_lines_evidence(before: Path, after: Path) -> ChainEvidence:
    """The records the chain wrote, verbatim (a server serialises the same record the same way)."""
    old = (
        set(before.read_text(encoding="utf-8", errors="replace").splitlines()) if before.is_file() else set()
    )
    new = [
        line
        for line in after.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.strip() and line not in old
    ]
    assertions = [StateAssertion(kind="file_contains", expected=line) for line in new[:INLINE_LINES]]
    must_state: list[str] = []
    for line in new[:INLINE_LINES]:
        try:
            must_state += _string_leaves(json.loads(line))
        except json.JSONDecodeError:
            must_state.append(line)
    return ChainEvidence(assertions, list(dict.fromkeys(must_state)))


def _string_leaves(value: Any, key: str = "") -> list[str]:
    """Every string in a record, except the record-type marker."""
    if isinstance(value, str):
        return [value] if key != "type" and len(value) > 1 else []
    if isinstance(value, list):
        return [s for item in value for s in _string_leaves(item)]
    if isinstance(value, dict):
        return [s for k, item in value.items() for s in _string_leaves(item, k)]
    return []


# -- read-only chains ---------------------------------------------------------------------------


def _answer_candidates(text: str) -> list[str]:
    """Short lines of an output, or the quoted values inside a long one, without markup around them.

    Values with markup inside (backticks, emphasis) are left out: an answer rarely repeats it.
    """
    found: list[str] = []
    for line in text.splitlines():
        value = line.strip(_MARKUP)
        if _MIN_VALUE_CHARS <= len(value) <= _MAX_VALUE_CHARS:
            found.append(value)
        elif len(value) > _MAX_VALUE_CHARS:
            found += [a or b for a, b in _QUOTED.findall(line)]
    return [
        v
        for v in dict.fromkeys(found)
        if any(c.isalnum() for c in v) and not any(m in v for m in ("`", "**", "__"))
    ]


_RANDOM_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)


def _volatile(value: str, outcome: CallOutcome) -> bool:
    """A value no answer can be held to verbatim: the call's own clock reading, or a random id."""
    alone = outcome.model_copy(update={"excerpt": value, "structured": None})
    return bool(_RANDOM_ID.search(value)) or carries_clock(alone)


def _answer_evidence(rollout: Rollout) -> ChainEvidence:
    """A read-only chain: values of its final output that the answer must report."""
    output = to_placeholders(rollout.steps[-1].outcome.excerpt, rollout.variables) if rollout.steps else ""
    arguments = json.dumps([s.arguments for s in rollout.probe.steps], ensure_ascii=False)
    final = rollout.steps[-1].outcome if rollout.steps else None
    values = [
        value
        for value in _answer_candidates(output)
        if "${" not in value and value.casefold() not in arguments.casefold() and not looks_like_error(value)
        and not (final is not None and _volatile(value, final))
    ][:ANSWER_VALUES]
    assertions = [StateAssertion(kind="answer_contains", expected=value) for value in values]
    return ChainEvidence(assertions, answer_values=values, changed=False)
