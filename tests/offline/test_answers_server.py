"""Learning from a real server's answers: a third-party spreadsheet server nobody tuned for.

``mcp-server-spreadsheet`` (the wild catalogue's ``spreadsheet``) refuses an unknown sheet with
``Sheet not found: 'X'. Available: ['Sales', 'Targets']`` and a text file with ``Unsupported file
format: '.txt'. Supported: .csv, .ods, .xlsx``. A short offline build of it must turn those answers
into verified retries — the failed call, then the same call with a named sheet or a file of a named
format — recorded as a ``retry`` co-usage, and into affordances that use the named sheets. Its SQL
tools open a workbook each call: the workbook whose catalogue shows the most tables is read through
them, and statements written from its tables go with that workbook — a join of two sheets, rows
written and then read back.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.graph.models import CoUsageRelation, EntryKind
from toolatlas.home import Home
from toolatlas.pipeline.server import ServerBuild
from toolatlas.probing.models import Direction
from toolatlas.runtimes.installer import install
from toolatlas.workspace import Workspace

pytestmark = pytest.mark.servers

REPO = Path(__file__).resolve().parents[2]
SHEETS = {"Sales", "Targets"}


@pytest.fixture(scope="module")
def built():
    """Bootstrap + one round of the spreadsheet server, one rollout per task; the hinted retries it ran (each
    in one affordance probe: the failed call, then the call with the value its error named)."""
    wild = load_catalogue(REPO / "configs" / "wild.toml")
    settings = wild.build.model_copy(update={"rollouts_per_task": 1})
    catalogue = wild.model_copy(update={"build": settings})
    home = Home(REPO / ".toolatlas")
    spec = catalogue.server("spreadsheet")
    install(spec, home)  # idempotent: present after `toolatlas servers install configs/wild.toml`
    retries = []

    def on_probe(rollout, verdict, delta):
        steps = rollout.probe.steps
        if rollout.probe.direction is Direction.AFFORDANCE and len(steps) == 2 and steps[1].retry_of == 0:
            if "a value the error named" in steps[1].intent:
                retries.append((rollout, verdict))

    server = ServerBuild(Workspace(catalogue, home), spec, settings, on_probe=on_probe, rounds=1)
    asyncio.run(server.run())
    return server.shard.graph, retries


class TestLearningFromAnswers:
    def test_errors_that_name_values_are_retried_and_verified(self, built):
        """A named sheet (or a file of a named format) turns a failed call into a verified retry."""
        graph, retries = built
        verified = [(r, v) for r, v in retries if v.steps[0].failed and not v.steps[1].failed]
        assert verified, [r.steps[0].outcome.excerpt[:120] for r, _ in retries]
        fixed = [r.probe.steps[1].arguments for r, _ in verified]
        assert any(
            a.get("sheet") in SHEETS or a.get("name") in SHEETS or a.get("old_name") in SHEETS for a in fixed
        ) or any(str(a.get("file", "")).endswith((".csv", ".ods", ".xlsx")) for a in fixed)
        tools = {r.probe.target for r, _ in verified}
        relations = [
            e
            for e in graph.entries.values()
            if e.kind is EntryKind.CO_USAGE and e.relation is CoUsageRelation.RETRY and e.tool in tools
        ]
        assert relations, "no retry co-usage recorded for the retried tools"

    def test_named_sheets_feed_later_calls(self, built):
        """Affordances use the sheets the server named, never a sheet the prober invented."""
        graph, _ = built
        named = [
            e
            for e in graph.entries.values()
            if e.kind is EntryKind.AFFORDANCE
            and e.example_arguments
            and {v for k, v in e.example_arguments.items() if "sheet" in k or k in ("name", "old_name")}
            & SHEETS
        ]
        assert named
        invented = [
            e
            for e in graph.entries.values()
            if e.kind is EntryKind.AFFORDANCE
            and e.example_arguments
            and any("probe" in str(v).lower() for k, v in e.example_arguments.items() if "sheet" in k)
        ]
        assert not invented


class TestADatabaseInsideAFile:
    def test_the_query_tool_joins_two_sheets_of_the_workbook_it_was_read_through(self, built):
        """A verified SELECT joins the workbook's two sheets on the column they share."""
        graph, _ = built
        calls = [evidence.arguments for e in graph.entries_of("sql_query", EntryKind.AFFORDANCE) for evidence in e.evidence]
        joins = [arguments for arguments in calls if " JOIN " in str(arguments.get("sql"))]
        assert joins and all(arguments["file"] == "${root}/sales.xlsx" for arguments in joins)

    def test_rows_written_by_statement_are_read_back(self, built):
        """The writing tool's INSERT into a sheet is verified and then seen by the query tool."""
        graph, _ = built
        calls = [evidence.arguments for e in graph.entries_of("sql_execute", EntryKind.AFFORDANCE) for evidence in e.evidence]
        writes = [arguments for arguments in calls if str(arguments.get("sql", "")).startswith("INSERT INTO")]
        assert writes
        assert any(e.peer == "sql_query" and e.relation is CoUsageRelation.STATE
                   for e in graph.entries_of("sql_execute", EntryKind.CO_USAGE))
