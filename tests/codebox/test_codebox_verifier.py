"""LLM-style verifiers run against real frozen states of the real environment kinds, and get vetted."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolatlas.codebox import RunStatus, ViolationRule, check_not_vacuous, run_verifier
from toolatlas.environments import FrozenState, Snapshot
from toolatlas.errors import VerificationError
from toolatlas.testing.git import run_git

StatesFactory = Callable[..., Any]
"""``make_states(kind, change)`` from conftest: (environment, initial snapshot, frozen post-state)."""

REPORT_VERIFIER = """
def verify(state, answer):
    assert state.exists("reports/summary.md"), "reports/summary.md was not written"
    text = state.read_text("reports/summary.md")
    return "3 suppliers" in text, f"summary says: {text[:60]!r}"
"""

NEW_CUSTOMER_VERIFIER = """
def verify(state, answer):
    rows = state.query("SELECT name, country FROM customers WHERE email = ?", ("linus@example.test",))
    if len(rows) != 1:
        return False, f"{len(rows)} customers with that email"
    return rows[0]["country"] == "FI"
"""


def write_report(root: Path) -> None:
    (root / "reports").mkdir()
    (root / "reports" / "summary.md").write_text("# Summary\n\nThe catalogue lists 3 suppliers.\n")


def add_customer(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO customers (email, name, country, created_at) "
            "VALUES ('linus@example.test', 'Linus', 'FI', '2024-05-01 10:00:00')"
        )
    conn.close()


class TestDirectoryState:
    async def test_passes_on_the_post_state_and_fails_on_the_snapshot(
        self, make_states: StatesFactory
    ) -> None:
        """The report the task asked for makes the verifier pass; the untouched tree fails with its reason."""
        states = make_states("directory", write_report)
        post = await run_verifier(REPORT_VERIFIER, states.post)
        initial = await run_verifier(REPORT_VERIFIER, states.initial)
        assert post.status is RunStatus.OK and post.passed
        assert initial.status is RunStatus.FAILED
        assert initial.detail == "reports/summary.md was not written"

    async def test_the_answer_is_checked_against_the_files(self, make_states: StatesFactory) -> None:
        """A read-only task: the verifier recomputes the answer from the tree (CSV rows) and compares."""
        states = make_states("directory", lambda root: None)
        source = """
def verify(state, answer):
    lines = state.read_text("data/suppliers.csv").strip().splitlines()
    assert "data/suppliers.csv" in state.list_files("data")
    return str(len(lines) - 1) in answer
"""
        suppliers = (
            len((Path(states.post.path) / "data" / "suppliers.csv").read_text().strip().splitlines()) - 1
        )
        right = await run_verifier(source, states.post, f"There are {suppliers} suppliers.")
        wrong = await run_verifier(source, states.post, f"There are {suppliers + 7} suppliers.")
        assert right.passed
        assert wrong.status is RunStatus.FAILED

    async def test_the_frozen_state_cannot_be_changed(self, make_states: StatesFactory) -> None:
        """A verifier that writes into the state is a violation, and the file keeps its bytes."""
        states = make_states("directory", write_report)
        target = Path(states.post.path) / "reports" / "summary.md"
        before = target.read_bytes()
        source = """
def verify(state, answer):
    state.file("reports/summary.md").write_text("3 suppliers, trust me")
    return True
"""
        result = await run_verifier(source, states.post)
        assert result.status is RunStatus.VIOLATION
        assert result.violations[0].rule is ViolationRule.WRITE_OUTSIDE
        assert target.read_bytes() == before


class TestSqliteState:
    async def test_query_sees_the_inserted_row_only_in_the_post_state(
        self, make_states: StatesFactory
    ) -> None:
        """``state.query`` reads the frozen database read-only: the new customer is there, not in the snapshot."""
        states = make_states("sqlite", add_customer)
        post = await run_verifier(NEW_CUSTOMER_VERIFIER, states.post)
        initial = await run_verifier(NEW_CUSTOMER_VERIFIER, states.initial)
        assert post.passed, post.detail + post.traceback
        assert initial.status is RunStatus.FAILED
        assert initial.detail == "0 customers with that email"

    async def test_tables_and_rows(self, make_states: StatesFactory) -> None:
        """``tables()`` and ``rows()`` list the schema and the rows as dicts."""
        states = make_states("sqlite", add_customer)
        source = """
def verify(state, answer):
    assert {"customers", "orders", "products"} <= set(state.tables())
    customers = state.rows("customers")
    assert customers[-1]["email"] == "linus@example.test", customers[-1]
    return len(customers) == answer
"""
        with sqlite3.connect(states.post.path) as conn:
            count = conn.execute("SELECT count(*) FROM customers").fetchone()[0]
        conn.close()
        assert (await run_verifier(source, states.post, count)).passed
        assert (await run_verifier(source, states.post, count + 1)).status is RunStatus.FAILED

    async def test_a_read_write_connection_is_refused_and_the_database_unchanged(
        self, make_states: StatesFactory
    ) -> None:
        """Opening the frozen database read-write is a violation even when caught; no row is deleted."""
        states = make_states("sqlite", add_customer)
        digest = states.environment.digest(states.post)
        source = """
import sqlite3
def verify(state, answer):
    try:
        conn = sqlite3.connect(str(state.path))
        conn.execute("DELETE FROM customers")
        conn.commit()
    except Exception:
        pass
    return True
"""
        result = await run_verifier(source, states.post)
        assert result.status is RunStatus.VIOLATION
        assert result.violations[0].rule is ViolationRule.WRITE_OUTSIDE
        assert states.environment.digest(states.post) == digest


class TestGitAndJsonStates:
    async def test_git_facts_show_the_new_branch_and_commit(self, make_states: StatesFactory) -> None:
        """``state.git`` carries branches, the log with changed files and the status, computed before the run."""

        def commit_on_branch(repo: Path) -> None:
            run_git(repo, "checkout", "-q", "-b", "feature/verifier")
            (repo / "VERIFIED.md").write_text("yes\n")
            run_git(repo, "add", "VERIFIED.md")
            run_git(repo, "commit", "-q", "-m", "Add the verified marker")
            (repo / "untracked.txt").write_text("loose\n")

        states = make_states("git", commit_on_branch)
        source = """
def verify(state, answer):
    facts = state.git
    assert facts["head"] == "feature/verifier", facts["head"]
    assert facts["branches"]["feature/verifier"] == facts["head_commit"]
    latest = facts["log"][0]
    assert latest["subject"] == "Add the verified marker"
    assert ["A", "VERIFIED.md"] in latest["files"]
    assert {"path": "untracked.txt", "index": "?", "worktree": "?"} in facts["status"]
    return state.read_text("VERIFIED.md") == "yes\\n"
"""
        post = await run_verifier(source, states.post)
        initial = await run_verifier(source, states.initial)
        assert post.passed, post.detail + post.traceback
        assert initial.status is RunStatus.FAILED

    async def test_json_lines_records(self, make_states: StatesFactory) -> None:
        """``state.records()`` parses the memory server's JSON-lines file."""

        def add_entity(path: Path) -> None:
            record = {"type": "entity", "name": "Verifier", "entityType": "tool", "observations": ["checks"]}
            text = path.read_text()
            path.write_text(text + ("" if text.endswith("\n") else "\n") + json.dumps(record) + "\n")

        states = make_states("json_file", add_entity)
        source = """
def verify(state, answer):
    names = [r.get("name") for r in state.records() if r.get("type") == "entity"]
    return "Verifier" in names, f"{len(names)} entities"
"""
        assert (await run_verifier(source, states.post)).passed
        assert (await run_verifier(source, states.initial)).status is RunStatus.FAILED


class TestVerdicts:
    @pytest.mark.parametrize(
        ("body", "status", "detail"),
        [
            ("return (False, 'no report')", RunStatus.FAILED, "no report"),
            ("return (True, 'fine')", RunStatus.OK, "fine"),
            ("assert answer == 42, 'wrong answer'", RunStatus.FAILED, "wrong answer"),
            ("assert answer == 42", RunStatus.FAILED, "assertion failed at line 3: assert answer == 42"),
            (
                "return None",
                RunStatus.ERROR,
                "verify() returned None; it must return True/False or (passed, reason)",
            ),
            (
                "return 1",
                RunStatus.ERROR,
                "verify() returned 1; it must return True/False or (passed, reason)",
            ),
            ("raise KeyError('total')", RunStatus.ERROR, "KeyError: 'total'"),
            (
                "state.rows('customers')",
                RunStatus.ERROR,
                "StateKindError: connect() applies to sqlite states, not directory",
            ),
        ],
    )
    async def test_what_verify_returns_or_raises_becomes_the_status(
        self, make_states: StatesFactory, body: str, status: RunStatus, detail: str
    ) -> None:
        """Booleans, (bool, reason) pairs and assertions are verdicts; anything else is an error."""
        states = make_states("directory", lambda root: None)
        result = await run_verifier(f"\ndef verify(state, answer):\n    {body}\n", states.post, answer=41)
        assert (result.status, result.detail) == (status, detail)

    async def test_an_exception_carries_the_verifier_traceback(self, make_states: StatesFactory) -> None:
        """The traceback names the verifier's line and leaves out the sandbox's own frames."""
        states = make_states("directory", lambda root: None)
        source = "def verify(state, answer):\n    return state.read_text('missing.txt') == answer\n"
        result = await run_verifier(source, states.post)
        assert result.status is RunStatus.ERROR
        assert result.detail.startswith("FileNotFoundError")
        assert 'File "<verifier>", line 2, in verify' in result.traceback
        assert "_child.py" not in result.traceback

    @pytest.mark.parametrize(
        ("source", "detail"),
        [
            (
                "def verify(state, answer)\n    return True\n",
                "SyntaxError: expected ':' (<verifier>, line 1)",
            ),
            (
                "def check(state, answer):\n    return True\n",
                "the verifier defines no function verify(state, answer)",
            ),
        ],
    )
    async def test_code_that_is_not_a_verifier_is_an_error(
        self, make_states: StatesFactory, source: str, detail: str
    ) -> None:
        """A syntax error or a missing ``verify`` is reported, not raised."""
        states = make_states("directory", lambda root: None)
        result = await run_verifier(source, states.post)
        assert (result.status, result.detail) == (RunStatus.ERROR, detail)

    async def test_a_missing_state_is_an_error_of_the_caller(self, tmp_path: Path) -> None:
        """A discarded state, a snapshot that is no readable state, or a non-JSON answer raises VerificationError."""
        gone = FrozenState(kind="directory", instance_id="x", path=str(tmp_path / "discarded"))
        with pytest.raises(VerificationError, match="does not exist"):
            await run_verifier("def verify(s, a):\n    return True\n", gone)
        template = Snapshot(kind="postgres", path="tpl_0123", content_hash="0123")
        with pytest.raises(VerificationError, match="verify a frozen untouched instance"):
            await run_verifier("def verify(s, a):\n    return True\n", template)
        with pytest.raises(VerificationError, match="must be JSON data"):
            await run_verifier("def verify(s, a):\n    return True\n", template, answer=object())


class TestVacuity:
    async def test_return_true_is_rejected_for_a_change_requiring_task(
        self, make_states: StatesFactory
    ) -> None:
        """``return True`` passes on the untouched state too, so it is rejected as vacuous."""
        states = make_states("sqlite", add_customer)
        report = await check_not_vacuous(
            "def verify(state, answer):\n    return True\n", states.initial, states.post, requires_change=True
        )
        assert not report.accepted
        assert report.reason.startswith("vacuous")
        assert report.on_initial_state is not None and report.on_initial_state.passed

    async def test_a_real_verifier_is_accepted(self, make_states: StatesFactory) -> None:
        """A verifier that checks the inserted row passes on the post-state and fails on the snapshot."""
        states = make_states("sqlite", add_customer)
        report = await check_not_vacuous(
            NEW_CUSTOMER_VERIFIER, states.initial, states.post, requires_change=True
        )
        assert report.accepted, report.reason
        assert report.on_post_state.passed
        assert report.on_initial_state is not None and report.on_initial_state.status is RunStatus.FAILED

    async def test_a_verifier_that_crashes_on_the_post_state_is_rejected(
        self, make_states: StatesFactory
    ) -> None:
        """No verdict on the post-state (here a wrong table name) means the verifier is unusable."""
        states = make_states("sqlite", add_customer)
        source = "def verify(state, answer):\n    return len(state.rows('clients')) > 20\n"
        report = await check_not_vacuous(source, states.initial, states.post, requires_change=True)
        assert not report.accepted
        assert report.reason.startswith(
            "no verdict on the post-state: error: OperationalError: no such table"
        )

    async def test_a_read_only_task_needs_only_a_verdict(self, make_states: StatesFactory) -> None:
        """Without a required change the initial state is not consulted; a failing verdict is still a verdict."""
        states = make_states("directory", lambda root: None)
        source = (
            "def verify(state, answer):\n    return answer == state.read_text('LICENSE').splitlines()[0]\n"
        )
        report = await check_not_vacuous(source, states.initial, states.post, "wrong", requires_change=False)
        assert report.accepted
        assert report.on_initial_state is None
        assert report.on_post_state.status is RunStatus.FAILED
