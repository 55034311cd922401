"""The server's own state kept fresh between probes where the environment holds no state.

A real server that keeps tasks, settings and a history in its process
(:mod:`toolatlas.testing.servers.inmemory`) over stdio: a probe that changed what its read tools show
is followed by its clearing tool when that brings the fresh answers back, else by a restart, so the
next probe — and a replay of its evidence — starts from what a fresh server holds; a probe that
changed nothing costs nothing.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from toolatlas.config import parse_catalogue
from toolatlas.home import Home
from toolatlas.models import OutcomeClass, ToolAnnotations, ToolSpec
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.probing.own_state import MAX_DISTURBING, TRUSTED_AFTER, is_clearing, is_state_reader
from toolatlas.testing import reporting_server_command
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]


def probe(n: int, *calls: tuple[str, dict]) -> Probe:
    steps = [ProbeStep(tool=tool, arguments=arguments, expect="any") for tool, arguments in calls]
    return Probe(id=f"p{n}", server="inmemory", round=0, direction=Direction.AFFORDANCE, target=steps[-1].tool,
                 task="t", steps=steps)


@contextlib.asynccontextmanager
async def started(tmp_path: Path, server: dict) -> AsyncIterator[Executor]:
    """An executor of the one ``server`` of a catalogue written under ``tmp_path``, started."""
    catalogue = parse_catalogue({"servers": [server]}, tmp_path / "catalogue.toml")
    executor = Executor(Workspace(catalogue, Home(REPO / ".toolatlas")).sandbox(catalogue.server(server["name"])), "own")
    await executor.start()
    try:
        yield executor
    finally:
        await executor.close()


@pytest.fixture()
async def executor(tmp_path: Path):
    server = {"name": "inmemory", "environment": {"kind": "none"}, "transport": {
        "command": sys.executable, "args": ["-m", "toolatlas.testing.servers.inmemory", "--clearing"]}}
    async with started(tmp_path, server) as running:
        yield running


class TestReaders:
    def test_readers_are_argument_free_reads_that_change_nothing(self) -> None:
        """Argument-free tools annotated read-only, or described or named by a verb of reading, are
        readers; a tool with a required argument, one annotated as changing state, or one whose
        description starts with a verb of change is not."""

        def spec(name: str, description: str, required: list[str] | None = None, **hints) -> ToolSpec:
            schema = {"type": "object", "properties": {r: {"type": "string"} for r in required or []},
                      "required": required or []}
            return ToolSpec(server="s", name=name, description=description, input_schema=schema,
                            annotations=ToolAnnotations(**hints))

        assert is_state_reader(spec("get_test_cases", "Get all current test cases."))
        assert is_state_reader(spec("listTables", "Tables and views."))
        assert is_state_reader(spec("status", "Where things are.", read_only=True))
        assert is_clearing(spec("clear_test_cases", "Clear all test cases."))
        assert not is_clearing(spec("reset_row", "Reset one row.", ["id"]))
        assert not is_state_reader(spec("clear_test_cases", "Clear all test cases."))
        assert not is_state_reader(spec("get_row", "Get one row.", ["id"]))
        assert not is_state_reader(spec("list_and_prune", "List entries.", read_only=False))
        assert not is_state_reader(spec("info", "Discovery / health-check entrypoint."))
        # a plural noun after the first word of a name is no verb: `acpi_sets` lists the sets a load registered
        assert is_state_reader(spec("acpi_sets", "List loaded table sets."))
        assert is_state_reader(spec("get_updates", "Get pending updates."))
        assert not is_state_reader(spec("memory_create", "Make a memory."))
        assert not is_state_reader(spec("sets_default", "Choose the default."))


@pytest.mark.servers
class TestFreshBetweenProbes:
    async def test_the_readers_of_a_fresh_server(self, executor: Executor) -> None:
        """The argument-free read tools that answer alike twice are the readers (the first three by
        name); the argument-free tool that says it clears is the clearing tool."""
        assert executor.own_state is not None
        assert executor.own_state.readers == ["get_history", "get_settings", "list_tasks"]
        assert executor.own_state.clearing == "clear_history"

    async def test_a_change_the_clearing_tool_undoes_costs_no_restart(self, executor: Executor) -> None:
        """A calculation remembered is cleared by the server's own clearing tool: no restart, and the
        next probe sees no history."""
        assert executor.own_state is not None
        await executor.run_verified(probe(1, ("add_numbers", {"a": 2, "b": 3})))
        assert (executor.own_state.clearings, executor.own_state.restarts) == (1, 0)
        rollout, _ = await executor.run_verified(probe(2, ("get_history", {})))
        assert rollout.steps[0].outcome.excerpt == "(no calculations yet)"

    async def test_a_change_the_clearing_tool_leaves_is_undone_by_a_restart(self, executor: Executor) -> None:
        """A task added is not what the clearing tool clears: the readers still differ, the server is
        restarted, and the clearing tool is not tried again."""
        assert executor.own_state is not None
        await executor.run_verified(probe(1, ("add_task", {"title": "water the plants"})))
        assert (executor.own_state.clearings, executor.own_state.restarts) == (0, 1)
        assert executor.own_state.clearing is None

    async def test_a_probe_that_changed_the_servers_state_is_followed_by_a_restart(self, executor: Executor) -> None:
        """After a probe added a task, the next probe lists no task: the server was restarted."""
        await executor.run_verified(probe(1, ("add_task", {"title": "water the plants"})))
        assert executor.own_state is not None and executor.own_state.restarts == 1
        rollout, _ = await executor.run_verified(probe(2, ("list_tasks", {})))
        assert rollout.steps[0].outcome.structured == {"tasks": []}

    async def test_evidence_replays_on_a_fresh_server(self, executor: Executor) -> None:
        """A chain's later call sees what its own earlier calls made, and nothing earlier probes made:
        the same chain run twice gives the same answers (task 1 both times)."""
        chain = (("add_task", {"title": "a"}), ("complete_task", {"task_id": 1}))
        first, _ = await executor.run_verified(probe(1, *chain))
        second, _ = await executor.run_verified(probe(2, *chain))
        assert [s.outcome.excerpt for s in first.steps] == [s.outcome.excerpt for s in second.steps]
        assert all(s.outcome.outcome is OutcomeClass.OK for s in second.steps)

    async def test_a_successful_change_restarts_even_where_no_reader_sees_it(self, executor: Executor) -> None:
        """A tool that says it changes state and succeeded restarts the server although no reader
        watches what it changed (the settings reader left out here)."""
        assert executor.own_state is not None
        del executor.own_state.fresh["get_settings"]
        await executor.run_verified(probe(1, ("set_unit", {"unit": "imperial"})))
        assert executor.own_state.restarts == 1
        rollout, _ = await executor.run_verified(probe(2, ("get_settings", {})))
        assert rollout.steps[0].outcome.structured == {"verbose": False, "unit": "metric"}

    async def test_a_probe_that_changed_nothing_costs_no_restart(self, executor: Executor) -> None:
        """A refused write and a read leave the readers' answers as they were: no clearing, no restart."""
        await executor.run_verified(probe(1, ("add_task", {"title": " "}), ("complete_task", {"task_id": 7})))
        await executor.run_verified(probe(2, ("list_tasks", {"done_only": True})))
        assert executor.own_state is not None and (executor.own_state.restarts, executor.own_state.clearings) == (0, 0)



@contextlib.asynccontextmanager
async def reporting(tmp_path: Path, *flags: str) -> AsyncIterator[Executor]:
    """An executor of the reporting server over a JSON file (``{"colour": "blue"}``), started with ``flags``."""
    seed = tmp_path / "seed.json"
    seed.write_text('{"colour": "blue"}')
    command, args = reporting_server_command("--state", "${file}", *flags)
    server = {"name": "reporting", "transport": {"command": command, "args": args},
              "environment": {"kind": "json_file", "snapshot": str(seed)}}
    async with started(tmp_path, server) as executor:
        yield executor


def call(n: int, tool: str, **arguments: str) -> Probe:
    step = ProbeStep(tool=tool, arguments=arguments, expect="any")
    return Probe(id=f"p{n}", server="reporting", round=0, direction=Direction.AFFORDANCE, target=tool, task="t", steps=[step])


@pytest.mark.servers
class TestAfterARestore:
    async def test_a_server_that_keeps_its_file_in_memory_is_reloaded(self, tmp_path: Path) -> None:
        """After a write the restore of the file undid, a server that cached the file still lists the
        key: its reload tool brings the fresh answers back, and the next probe does not see the key."""
        async with reporting(tmp_path, "--cache", "--reload") as executor:
            assert executor.own_state is not None and executor.own_state.clearing == "reload_values"
            rollout, _ = await executor.run_verified(call(1, "store", key="size", value="L"))
            assert rollout.reset and (executor.own_state.clearings, executor.own_state.restarts) == (1, 0)
            rollout, _ = await executor.run_verified(call(2, "lookup", key="size"))
            assert rollout.steps[0].outcome.excerpt == "Error: no entry named 'size'"

    async def test_without_a_reload_tool_it_is_restarted(self, tmp_path: Path) -> None:
        """The same server without a way to reload is restarted after the restore."""
        async with reporting(tmp_path, "--cache") as executor:
            assert executor.own_state is not None and executor.own_state.clearing is None
            await executor.run_verified(call(1, "store", key="size", value="L"))
            assert executor.own_state.restarts == 1
            rollout, _ = await executor.run_verified(call(2, "list_keys"))
            assert rollout.steps[0].outcome.excerpt == "colour"

    async def test_a_server_that_reads_its_file_afresh_is_trusted_after_some_restores(self, tmp_path: Path) -> None:
        """A server that reads the file on every call answers as fresh after every restore: after
        TRUSTED_AFTER of them its readers are no longer asked, and it is never restarted."""
        async with reporting(tmp_path) as executor:
            assert executor.own_state is not None and executor.own_state.readers == ["list_keys", "log_tail"]
            for n in range(TRUSTED_AFTER + 2):
                await executor.run_verified(call(n, "store", key=f"k{n}", value="v"))
            assert executor.own_state.quiet_calls == {"store": TRUSTED_AFTER} and executor.own_state.restarts == 0


@pytest.mark.servers
class TestMemoryAlone:
    async def test_a_change_to_the_memory_alone_is_undone(self, tmp_path: Path) -> None:
        """A call that changed the server's memory but no file (the instance needs no restore) is followed by
        the readers: the server is restarted, and the next probe does not see the value."""
        async with reporting(tmp_path, "--cache", "--remember") as executor:
            rollout, _ = await executor.run_verified(call(1, "remember", key="size", value="L"))
            assert not rollout.reset and executor.own_state is not None and executor.own_state.restarts == 1
            rollout, _ = await executor.run_verified(call(2, "lookup", key="size"))
            assert rollout.steps[0].outcome.excerpt == "Error: no entry named 'size'"

    async def test_calls_that_leave_the_memory_fresh_cost_no_restart(self, tmp_path: Path) -> None:
        """Calls that change nothing the readers show, however many, restart nothing (the readers are
        asked after each: a call that changes no file may still change the memory)."""
        async with reporting(tmp_path) as executor:
            for n in range(TRUSTED_AFTER + 2):
                await executor.run_verified(call(n, "echo", message=f"m{n}"))
            assert executor.own_state is not None and executor.own_state.restarts == 0


@contextlib.asynccontextmanager
async def shelves(tmp_path: Path, *flags: str) -> AsyncIterator[Executor]:
    """An executor of the shelves server (shelves in its memory, beside a folder of notes), started with ``flags``."""
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "readme.txt").write_text("shelves live in memory")
    server = {"name": "shelves", "environment": {"kind": "directory", "snapshot": str(folder)},
              "transport": {"command": sys.executable, "args": ["-m", "toolatlas.testing.servers.shelves", "${root}", *flags]}}
    async with started(tmp_path, server) as executor:
        yield executor


def shelf_call(n: int, tool: str, **arguments: str) -> Probe:
    step = ProbeStep(tool=tool, arguments=arguments, expect="any")
    return Probe(id=f"p{n}", server="shelves", round=0, direction=Direction.AFFORDANCE, target=tool, task="t", steps=[step])


@pytest.mark.servers
class TestEveryCollection:
    async def test_a_listing_of_every_collection_is_a_reader(self, tmp_path: Path) -> None:
        """Of more argument-free reads than are asked, the listing of every shelf is one, though it
        sorts last by name and says when each shelf was made (the clock, masked when compared); the
        reads of the default shelf, which make it, are none: the server is restarted after each found."""
        async with shelves(tmp_path) as executor:
            assert executor.own_state is not None and executor.own_state.readers == ["list_shelves"]
            assert executor.own_state.fresh["list_shelves"] == "ok:"  # no shelf: an empty answer
            assert executor.sandbox.connection is not None and executor.sandbox.connection.restarts == MAX_DISTURBING
            assert executor.own_state.restarts == 0

    async def test_a_change_to_another_collection_is_undone(self, tmp_path: Path) -> None:
        """An item put on a new shelf changes no file and none of the default shelf's reads: the
        listing shows it, the server is restarted, and the next probe does not see the shelf."""
        async with shelves(tmp_path) as executor:
            await executor.run_verified(shelf_call(1, "add_item", item="rake", shelf="garden"))
            assert executor.own_state is not None and executor.own_state.restarts == 1
            rollout, _ = await executor.run_verified(shelf_call(2, "list_shelves"))
            assert "garden" not in rollout.steps[0].outcome.excerpt

    async def test_trust_in_tools_whose_changes_a_restore_undoes_says_nothing_of_another(self, tmp_path: Path) -> None:
        """After TRUSTED_AFTER and more probes of a tool that writes a file (undone by the restore), a
        tool that writes a file and changes the memory too is still followed by the readers."""
        async with shelves(tmp_path) as executor:
            for n in range(TRUSTED_AFTER + 1):
                rollout, _ = await executor.run_verified(shelf_call(n, "write_note", text=f"note {n}"))
                assert rollout.reset
            assert executor.own_state is not None and executor.own_state.restarts == 0
            await executor.run_verified(shelf_call(20, "stock", item="rake", shelf="garden"))
            assert executor.own_state.restarts == 1
            rollout, _ = await executor.run_verified(shelf_call(21, "list_shelves"))
            assert "garden" not in rollout.steps[0].outcome.excerpt

    async def test_a_tool_that_changes_the_memory_only_sometimes_is_followed_every_time(self, tmp_path: Path) -> None:
        """However often a tool left the instance and the readers as they were (a label only printed),
        the readers are asked after it: the one call that puts a label on a new shelf is undone."""
        async with shelves(tmp_path) as executor:
            for n in range(TRUSTED_AFTER + 1):
                await executor.run_verified(shelf_call(n, "label_item", item=f"jar {n}"))
            assert executor.own_state is not None and executor.own_state.restarts == 0
            await executor.run_verified(shelf_call(20, "label_item", item="rake", shelf="garden"))
            assert executor.own_state.restarts == 1
            rollout, _ = await executor.run_verified(shelf_call(21, "list_shelves"))
            assert "garden" not in rollout.steps[0].outcome.excerpt

    async def test_a_new_collection_is_deleted_by_the_servers_own_tool(self, tmp_path: Path) -> None:
        """A shelf a probe made is removed by the server's tool that removes a shelf by its name (the
        name the listing newly shows): no restart, and the next probe does not see the shelf."""
        async with shelves(tmp_path, "--removable") as executor:
            assert executor.own_state is not None and executor.own_state.deleters["list_shelves"].tool == "remove_shelf"
            await executor.run_verified(shelf_call(1, "add_item", item="rake", shelf="garden"))
            assert (executor.own_state.deletions, executor.own_state.restarts) == (1, 0)
            rollout, _ = await executor.run_verified(shelf_call(2, "list_shelves"))
            assert rollout.steps[0].outcome.excerpt == ""

    async def test_a_deletion_that_writes_to_the_instance_is_restored(self, tmp_path: Path) -> None:
        """The server's removing tool also writes to the folder (a log of removals, as a server that saves
        and backs up on each change): the instance is restored after it, so the next probe, a read, starts
        from the snapshot and is seen to change nothing."""
        async with shelves(tmp_path, "--removable", "--logged-removal") as executor:
            await executor.run_verified(shelf_call(1, "add_item", item="rake", shelf="garden"))
            assert executor.own_state is not None and executor.own_state.deletions == 1
            assert await executor.sandbox.digest() == executor.snapshot_digest
            rollout, verdict = await executor.run_verified(shelf_call(2, "list_shelves"))
            assert not rollout.reset and verdict.change.empty, verdict.change.summary()

    async def test_trust_in_other_tools_says_nothing_of_a_new_one(self, tmp_path: Path) -> None:
        """After TRUSTED_AFTER and more probes of a tool that changes nothing, the readers are still
        asked after a tool not seen before: its change is undone."""
        async with shelves(tmp_path) as executor:
            for n in range(TRUSTED_AFTER + 1):
                await executor.run_verified(shelf_call(n, "label_item", item=f"jar {n}"))
            assert executor.own_state is not None and executor.own_state.restarts == 0
            await executor.run_verified(shelf_call(20, "add_item", item="rake", shelf="garden"))
            assert executor.own_state.restarts == 1 and executor.own_state.changers == {"add_item"}
            rollout, _ = await executor.run_verified(shelf_call(21, "list_shelves"))
            assert "garden" not in rollout.steps[0].outcome.excerpt


class TestStatementsThatOnlyRead:
    """The wild catalogue's in-memory DuckDB server (``mcp-server-motherduck``), whose query tool runs any SQL."""

    @pytest.fixture()
    async def duckdb(self):
        from toolatlas.config import load_catalogue
        from toolatlas.runtimes import install

        wild = load_catalogue(REPO / "configs" / "wild.toml")
        home = Home(REPO / ".toolatlas")
        install(wild.server("duckdb"), home)  # idempotent: `make test-servers` installs it
        executor = Executor(Workspace(wild, home).sandbox(wild.server("duckdb")), "own")
        await executor.start()
        try:
            yield executor
        finally:
            await executor.close()

    async def test_a_select_costs_no_restart_and_an_insert_does(self, duckdb: Executor) -> None:
        """A SELECT through the query tool leaves the server as it was; an INSERT through the same tool
        is followed by a restart, and the next probe does not see its row."""
        query = lambda n, sql: Probe(id=f"p{n}", server="duckdb", round=0, direction=Direction.AFFORDANCE,  # noqa: E731
                                     target="execute_query", task="t",
                                     steps=[ProbeStep(tool="execute_query", arguments={"sql": sql}, expect="ok")])
        await duckdb.run_verified(query(1, "SELECT count(*) AS n FROM cities"))
        assert duckdb.own_state is not None and duckdb.own_state.restarts == 0
        await duckdb.run_verified(query(2, "INSERT INTO cities VALUES (9, 'Faro', 'PT', 60000)"))
        assert duckdb.own_state.restarts == 1
        rollout, _ = await duckdb.run_verified(query(3, "SELECT count(*) AS n FROM cities"))
        assert json.loads(rollout.steps[0].outcome.excerpt)["rows"] == [[4]]

    def test_what_reads_only(self) -> None:
        """A statement that starts like a read and holds no word of change reads only."""
        from toolatlas.probing.own_state import reads_only

        assert reads_only({"sql": "WITH a AS (SELECT 1) SELECT * FROM a"})
        assert not reads_only({"sql": "SELECT 1; DROP TABLE cities"})
        assert not reads_only({"sql": "SELECT * INTO copy FROM cities"})
        assert not reads_only({"title": "a colour"})
