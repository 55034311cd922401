"""Builds where the snapshot shows nothing: a database behind a ``command`` environment, state kept in memory.

Real servers over stdio (:mod:`toolatlas.testing.opaque`): the demo's SQLite server over the shop
database copied in by a command, and an in-memory server with tasks, settings, a history and a tool
that sleeps 10 s by default. Discovery runs once per server for the module; one build (bootstrap +
1 round, two rollouts per seed task, two executors per server) runs once for the module.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from toolatlas.config import Catalogue, load_catalogue
from toolatlas.graph.models import CoUsageRelation, EntryKind
from toolatlas.home import Home
from toolatlas.models import OutcomeClass
from toolatlas.offline.dbfacts import sqlite_facts
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.pipeline.shard import ServerShard
from toolatlas.probing.models import Direction
from toolatlas.store.paths import open_store
from toolatlas.testing.opaque import opaque_catalogue
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    return load_catalogue(opaque_catalogue(tmp_path_factory.mktemp("opaque"), rounds=1))


@pytest.fixture(scope="module")
def workspace(catalogue: Catalogue) -> Workspace:
    return Workspace(catalogue, Home(REPO / ".toolatlas"))


def prepared_shard(workspace: Workspace, name: str) -> ServerShard:
    """A new shard of the server ``name``, prepared on the tools it lists (its discovery run)."""
    spec = workspace.catalogue.server(name)

    async def tools():
        async with workspace.sandbox(spec) as sandbox:
            return sandbox.tools

    shard = ServerShard(workspace, spec, workspace.catalogue.build)
    shard.prepare(asyncio.run(tools()))
    return shard


@pytest.fixture(scope="module")
def shard_of(workspace: Workspace) -> Callable[[str], ServerShard]:
    """``shard_of(name)``: the server's prepared shard, discovered once for the module (each test plans
    at most one round of it, on a server no other test plans)."""
    shards: dict[str, ServerShard] = {}

    def shard(name: str) -> ServerShard:
        if name not in shards:
            shards[name] = prepared_shard(workspace, name)
        return shards[name]

    return shard


@pytest.fixture(scope="module")
def built(workspace: Workspace) -> dict:
    """Both servers built, two rollouts per seed task: what is asserted of the build does not depend on a
    seed task's third and fourth runs, and the in-memory server restarts after most of them; two executors
    per server, so that its restarts overlap (the atlas is the one executor's)."""
    build = workspace.catalogue.build.model_copy(update={"rollouts_per_task": 2, "executors_per_server": 2})
    catalogue = workspace.catalogue.model_copy(update={"build": build})
    store = open_store(catalogue)
    try:
        report = asyncio.run(build_catalogue(Workspace(catalogue, workspace.home), store))
        return {"report": report, "records": store.records()}
    finally:
        store.close()


class TestIntrospection:
    def test_the_query_tool_tells_the_real_schema(self, shard_of: Callable[[str], ServerShard],
                                                  catalogue: Catalogue) -> None:
        """Behind a command environment, the tables, columns, keys and views read through `read_query`
        are the database's own (as a direct read of the file gives them)."""
        found = shard_of("shopdb").proposer.facts.database
        truth = sqlite_facts(catalogue.resolve("shop.db"))
        assert found is not None and found.dialect == "sqlite" and found.views == truth.views
        assert [t.name for t in found.tables] == [t.name for t in truth.tables]
        for mine, real in zip(found.tables, truth.tables, strict=True):
            assert [(c.name, c.primary_key, c.not_null, c.unique) for c in mine.columns] == [
                (c.name, c.primary_key, c.not_null, c.unique) for c in real.columns]
            assert mine.row_count == real.row_count and mine.checks == real.checks
            assert [fk.table for fk in mine.foreign_keys] == [fk.table for fk in real.foreign_keys]

    def test_seeds_write_real_rows(self, shard_of: Callable[[str], ServerShard], catalogue: Catalogue) -> None:
        """Bootstrap plans INSERTs into real tables, not only `SELECT 1`."""
        shard = shard_of("shopdb")
        tables = {t.name for t in sqlite_facts(catalogue.resolve("shop.db")).tables}
        queries = [s.arguments.get("query", "") for p in shard.plan(0) for s in p.steps if s.tool == "write_query"]
        inserted = {q.split()[2] for q in queries if q.startswith("INSERT INTO")}
        assert inserted and inserted <= tables


class TestCost:
    def test_a_tool_that_sleeps_by_default_is_found_slow(self, shard_of: Callable[[str], ServerShard]) -> None:
        """The pilot of `wait` (10 s by default) times out: slow; every other tool answers at once."""
        shard = shard_of("inmemory")
        costs = shard.proposer.discovery.costs
        assert set(costs) == set(shard.graph.specs) and shard.proposer.slow == {"wait"}
        assert costs["wait"].timed_out

    def test_a_slow_tool_gets_one_cheap_seed_with_a_tight_timeout(self, shard_of: Callable[[str], ServerShard]) -> None:
        """One seed task, one rollout, `seconds` at its least, and the pilot's timeout; beside it one
        plain call with the default `seconds`, under the same timeout."""
        shard = shard_of("inmemory")
        planned = [p for p in shard.plan(0) if p.target == "wait"]
        seeds = [p for p in planned if p.direction is Direction.SEED]
        assert len(seeds) == 1
        step = seeds[0].steps[0]
        assert step.arguments == {"seconds": 0} and step.timeout_s == 2.0
        (default,) = [p for p in planned if p.direction is Direction.BOUNDARY]
        assert default.steps[0].arguments == {} and default.steps[0].timeout_s == 2.0
        assert default.steps[0].mutation == "default_cost" and "`seconds`" in (default.steps[0].condition or "")

    def test_the_slow_tool_is_called_a_bounded_number_of_times(self, built: dict) -> None:
        """Over bootstrap and a round, `wait` is called at most once per round besides its seed and its
        default call, and the default call's timeout is a boundary naming the argument that causes it."""
        node = next(n for n in built["records"]["tools"] if n.server == "inmemory" and n.tool == "wait")
        assert 2 <= node.probes <= 3
        timeouts = [e for e in built["records"]["entries"] if e.server == "inmemory" and e.tool == "wait"
                    and e.kind is EntryKind.BOUNDARY and e.outcome is OutcomeClass.TIMEOUT]
        assert [e.family for e in timeouts] == ["default_cost"] and "`seconds`" in (timeouts[0].condition or "")
        assert built["report"].tool_seconds["inmemory"]["wait"] > 0


class TestInProcessState:
    def test_writes_are_seen_through_the_servers_reads(self, built: dict) -> None:
        """add_task → list_tasks, add_numbers → get_history, set_unit → get_settings: state edges on the writer."""
        edges = {
            (e.tool, e.peer) for e in built["records"]["entries"]
            if e.server == "inmemory" and e.kind is EntryKind.CO_USAGE and e.relation is CoUsageRelation.STATE
        }
        assert {("add_task", "list_tasks"), ("add_numbers", "get_history"), ("set_unit", "get_settings")} <= edges

    def test_no_change_is_claimed_where_nothing_could_be_seen(self, built: dict) -> None:
        """With no environment to digest, no affordance says a call "changes nothing"; a witnessed
        write says it changes the server's own state."""
        mine = [e for e in built["records"]["entries"] if e.server == "inmemory" and e.kind is EntryKind.AFFORDANCE]
        assert not [e.text for e in mine if "changes nothing" in e.text]
        assert any(e.tool == "add_task" and "server's own state" in e.text for e in mine)

    def test_the_database_build_writes_and_breaks_constraints(self, built: dict) -> None:
        """Behind the command environment, write_query has a verified INSERT and a constraint boundary."""
        mine = [e for e in built["records"]["entries"] if e.server == "shopdb" and e.tool == "write_query"]
        assert any(e.kind is EntryKind.AFFORDANCE and str(e.example_arguments.get("query", "")).startswith("INSERT")
                   for e in mine)
        assert any(e.kind is EntryKind.BOUNDARY and e.family == "constraint_violation" for e in mine)


class TestLexicon:
    def test_the_server_node_keeps_what_its_answers_said(self, built: dict) -> None:
        """The shop database's node keeps the catalogue's description and words of the server's answers that
        no evidence excerpt holds (what lies past the first characters of an answer)."""
        [node] = [n for n in built["records"]["servers"] if n.server == "shopdb"]
        excerpts = " ".join(ev.excerpt.lower() for e in built["records"]["entries"] if e.server == "shopdb"
                            for ev in e.evidence)
        assert node.description.startswith("A shop's customers")
        assert {"customers", "products"} <= set(node.lexicon)
        assert [w for w in node.lexicon if w not in excerpts]

    def test_the_server_node_keeps_what_the_server_says_of_itself(self, built: dict) -> None:
        """The MCP instructions a server gives when a client connects are kept on its node."""
        [node] = [n for n in built["records"]["servers"] if n.server == "inmemory"]
        assert node.instructions == "Tasks, settings and a history kept in memory."

    def test_a_whole_build_hears_every_answer_again(self, workspace: Workspace,
                                                     shard_of: Callable[[str], ServerShard]) -> None:
        """A build of every tool starts its lexicon afresh; a focused build (a refresh) keeps the stored one."""
        from toolatlas.graph.models import Fingerprint, ServerNode

        spec = workspace.catalogue.server("shopdb")
        tools = shard_of("shopdb").graph.specs.values()
        stored = {"servers": [ServerNode(id="n", server="shopdb", lexicon=["zebra"], fingerprint=Fingerprint(
            runtime="r", transport="t", snapshot="", tools={}, toolatlas="v", method="m"))]}
        whole = ServerShard(workspace, spec, workspace.catalogue.build)
        whole.prepare(list(tools), stored)
        focused = ServerShard(workspace, spec, workspace.catalogue.build)
        focused.focus = frozenset({"read_query"})
        focused.prepare(list(tools), stored)
        assert "zebra" not in whole.graph.lexicon.words() and "zebra" in focused.graph.lexicon.words()

