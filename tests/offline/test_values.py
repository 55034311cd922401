"""Harvesting values from outputs, and valid calls synthesised from the real seeds' facts."""

from __future__ import annotations

import json
import random
import re
import shutil
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import pytest

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool, looks_like_error, normalise
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.sqlgen import SqlWriter
from toolatlas.offline.targets import described_fields
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.values import ArgKind, HarvestRef

if TYPE_CHECKING:
    from conftest import DemoTools

ROOT = "/srv/inst-1/state/root"
VARIABLES = {"root": ROOT, "home": "/srv/inst-1/home"}


def synth_for(facts: EnvironmentFacts, seed: int = 0, pool: ValuePool | None = None) -> ValueSynth:
    return ValueSynth(facts, pool or ValuePool(), random.Random(seed))


class TestNormalise:
    def test_longest_value_first_and_own_name_before_root(self) -> None:
        """Instance paths become placeholders; a kind's own variable beats ``root`` for the same value."""
        variables = {"root": "/i/state/repo", "repo": "/i/state/repo", "home": "/i/home"}
        assert (
            normalise("/i/state/repo/README.md and /i/home/x", variables) == "${repo}/README.md and ${home}/x"
        )

    def test_error_texts_are_recognised(self) -> None:
        """Errors reported as ok text (``Database error: ...``) are told apart from data."""
        assert looks_like_error("Database error: CHECK constraint failed")
        assert looks_like_error("Error: Only SELECT queries are allowed")
        assert not looks_like_error("[{'name': 'customers'}]")

    def test_a_missing_prior_step_is_an_error(self) -> None:
        """An ok text saying that nothing is there yet and what to do first reports a failed precondition."""
        assert looks_like_error("No items defined. Please add items first using add_item.")
        assert not looks_like_error("No matches found.")
        assert looks_like_error("Document /srv/notes.docx does not exist")
        assert not looks_like_error("Report\nThe page was not found in the index, then fixed.\nDone")
        assert not looks_like_error("Note: the first line is a header")

    def test_a_json_result_that_failed_is_an_error(self) -> None:
        """JSON saying its result (or a batch item's) is an error with a reason reports a failure; a
        record whose status merely reads "failed" does not."""
        assert looks_like_error('{"/a.txt": {"result": "error", "reason": "Hash mismatch"}}')
        assert looks_like_error('{"success": false, "message": "nothing to do"}')
        assert not looks_like_error('[{"id": 3, "status": "failed", "title": "Build"}]')
        assert not looks_like_error('{"result": "ok", "reason": "done"}')
        assert looks_like_error('{"error": "Item with ID \'x\' not found", "item_id": "x"}')
        assert not looks_like_error('{\n  "error": null,\n  "items": []\n}')


class TestValuePool:
    def test_listing_entries_join_the_listed_folder(self, demo_tools: DemoTools) -> None:
        """``[FILE]``/``[DIR]`` lines become paths under the folder the call listed."""
        pool = ValuePool()
        pool.harvest(
            demo_tools("filesystem", "list_directory"),
            "[FILE] api.md\n[DIR] guides",
            None,
            VARIABLES,
            "p1",
            arguments={"path": "${root}/docs"},
        )
        assert [r.value for r in pool.values(ArgKind.FILE_PATH)] == ["${root}/docs/api.md"]
        assert [r.value for r in pool.values(ArgKind.DIR_PATH)] == ["${root}/docs/guides"]
        assert pool.values(ArgKind.FILE_PATH)[0].probe_id == "p1"

    def test_absolute_paths_with_spaces_are_normalised(self, demo_tools: DemoTools) -> None:
        """One path per line, spaces included, comes back relative to ``${root}``."""
        pool = ValuePool()
        output = f"{ROOT}/notes/meeting notes.md\n{ROOT}/docs/api.md"
        pool.harvest(
            demo_tools("filesystem", "search_files"),
            output,
            None,
            VARIABLES,
            "p1",
            arguments={"path": "${root}"},
        )
        assert [r.value for r in pool.values(ArgKind.FILE_PATH)] == [
            "${root}/notes/meeting notes.md",
            "${root}/docs/api.md",
        ]

    def test_failed_items_of_a_batch_are_not_harvested(self, demo_tools: DemoTools) -> None:
        """A line reporting ENOENT names nothing that exists."""
        pool = ValuePool()
        output = (
            f"{ROOT}/README.md:\n# inventory\n---\n{ROOT}/nope: Error - ENOENT: no such file or directory"
        )
        pool.harvest(demo_tools("filesystem", "read_multiple_files"), output, None, VARIABLES, "p1")
        assert [r.value for r in pool.values(ArgKind.FILE_PATH)] == ["${root}/README.md"]

    def test_graph_entities_observations_and_relation_types(self, demo_tools: DemoTools) -> None:
        """Entities, their types and observations (tied to their entity) and relation types are harvested."""
        structured = {
            "entities": [
                {"name": "Ada Lovelace", "entityType": "person", "observations": ["Based in London"]}
            ],
            "relations": [{"from": "Ada Lovelace", "to": "Northwind Labs", "relationType": "works_at"}],
        }
        pool = ValuePool()
        pool.harvest(demo_tools("memory", "read_graph"), "", structured, VARIABLES, "p1")
        assert [r.value for r in pool.values(ArgKind.ENTITY_NAME)] == ["Ada Lovelace"]
        assert pool.values(ArgKind.OBSERVATION)[0].context == "Ada Lovelace"
        assert [r.value for r in pool.values(ArgKind.RELATION_TYPE)] == ["works_at"]

    def test_python_repr_rows_give_table_names(self, demo_tools: DemoTools) -> None:
        """A server printing ``repr`` of rows still yields its table names."""
        pool = ValuePool()
        pool.harvest(
            demo_tools("sqlite", "list_tables"), "[{'name': 'customers'}, {'name': 'orders'}]", None, {}, "p1"
        )
        assert [r.value for r in pool.values(ArgKind.TABLE_NAME)] == ["customers", "orders"]

    def test_git_shas_branches_and_time_zones(self, demo_tools: DemoTools) -> None:
        """Commit shas, listed branches and IANA zones are recognised in text."""
        pool = ValuePool()
        pool.harvest(demo_tools("git", "git_log"), "Commit: " + "a" * 40 + "\nMessage: x", None, {}, "p1")
        pool.harvest(demo_tools("git", "git_branch"), "  bugfix/typo\n* main", None, {}, "p2")
        pool.harvest(
            demo_tools("time", "get_current_time"),
            "",
            {"timezone": "Europe/Paris", "datetime": "x"},
            {},
            "p3",
        )
        assert [r.value for r in pool.values(ArgKind.REVISION)] == ["a" * 40]
        assert [r.value for r in pool.values(ArgKind.BRANCH)] == ["bugfix/typo", "main"]
        assert [r.value for r in pool.values(ArgKind.TIMEZONE)] == ["Europe/Paris"]

    def test_errors_are_not_harvested(self, demo_tools: DemoTools) -> None:
        """Nothing is taken from a failed call or an error reported as text."""
        pool = ValuePool()
        assert (
            pool.harvest(demo_tools("sqlite", "read_query"), "Error: no such table: x", None, {}, "p1") == []
        )
        assert (
            pool.harvest(
                demo_tools("filesystem", "list_directory"), "[FILE] a.md", None, VARIABLES, "p2", ok=False
            )
            == []
        )
        assert len(pool) == 0

    def test_what_a_call_created_is_flagged(self, demo_tools: DemoTools) -> None:
        """Fresh names of a successful create are pooled as created, and the output's echo of them too."""
        pool = ValuePool()
        arguments = {"entities": [{"name": "Probe Entity 1", "entityType": "person", "observations": ["x"]}]}
        echo = {"entities": arguments["entities"]}
        pool.harvest(demo_tools("memory", "create_entities"), "", echo, {}, "p1", arguments=arguments)
        assert pool.values(ArgKind.ENTITY_NAME) == []
        created = pool.values(ArgKind.ENTITY_NAME, include_created=True)
        assert [r.value for r in created] == ["Probe Entity 1"] and created[0].created

    def test_bounded_and_deduplicated(self) -> None:
        """Each kind keeps its newest values up to the bound; duplicates are ignored."""
        pool = ValuePool(max_per_kind=3)
        for i in range(5):
            pool.add(HarvestRef(kind=ArgKind.BRANCH, value=f"b{i}", tool="t", probe_id="p"))
        assert not pool.add(HarvestRef(kind=ArgKind.BRANCH, value="b4", tool="t", probe_id="q"))
        assert [r.value for r in pool.values(ArgKind.BRANCH)] == ["b2", "b3", "b4"]


class TestValidCalls:
    def test_variants_widen_optional_arguments(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Variant 0 has required arguments only; later ones add optional ones, never two alternatives."""
        synth = synth_for(seed_facts["git"])
        log = demo_tools("git", "git_log")
        calls = [synth.valid_arguments(log, variant=v) for v in range(3)]
        assert [sorted(c.arguments) for c in calls if c] == [
            ["repo_path"],
            ["max_count", "repo_path", "start_timestamp"],
            ["end_timestamp", "max_count", "repo_path", "start_timestamp"],
        ]
        read = demo_tools("filesystem", "read_text_file")
        files = synth_for(seed_facts["filesystem"])
        for variant in range(6):
            call = files.valid_arguments(read, variant=variant)
            assert call is not None and not {"head", "tail"} <= set(call.arguments)

    def test_a_query_tries_each_way_its_examples_are_written(self) -> None:
        """A look-up whose description gives a name, a phrase and formulae as examples is called with each shape
        first (a name, a phrase, a formula), then the rest; a parenthesised annotation is no example to send."""
        from toolatlas.models import ToolSpec

        description = ("Compound to look up -- a name or a molecular formula, ignoring annotations like '(9CI)'. "
                       "Examples: 'aspirin', 'caffeine', 'acetylsalicylic acid', 'C9H8O4'.")
        tool = ToolSpec(server="s", name="find_compound", description="Find a chemical compound.",
                        input_schema={"type": "object", "required": ["query"],
                                      "properties": {"query": {"type": "string", "description": description}}})
        synth = synth_for(EnvironmentFacts(kind="none"))
        [query] = infer_arguments(tool)
        assert query.kind is ArgKind.SEARCH_QUERY
        sent = [synth.valid_arguments(tool, variant=v).arguments["query"] for v in range(4)]
        assert sent == ["aspirin", "acetylsalicylic acid", "C9H8O4", "caffeine"]

    def test_enum_members_are_covered(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Successive variants pick other members of an enum read from a description."""
        synth = synth_for(seed_facts["git"])
        members = {
            synth.valid_arguments(demo_tools("git", "git_branch"), variant=v).arguments["branch_type"]
            for v in range(3)
        }
        assert members == {"local", "remote", "all"}

    def test_file_reads_use_existing_text_files(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """A read gets an existing text file; a media read gets the binary image first."""
        tree = seed_facts["filesystem"].tree
        assert tree is not None
        texts = {f.path for f in tree.files if f.text}
        synth = synth_for(seed_facts["filesystem"])
        assert synth.valid_arguments(demo_tools("filesystem", "read_text_file")).arguments["path"] in texts
        assert (
            synth.valid_arguments(demo_tools("filesystem", "read_media_file")).arguments["path"]
            == "${root}/assets/logo.png"
        )

    def test_creates_get_fresh_paths_in_existing_folders(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """A write goes to a new file inside an existing folder and reports it as a fresh value."""
        tree = seed_facts["filesystem"].tree
        assert tree is not None
        synth = synth_for(seed_facts["filesystem"])
        for variant in range(3):
            call = synth.valid_arguments(demo_tools("filesystem", "write_file"), variant=variant)
            assert call is not None
            path = call.arguments["path"]
            assert path.rsplit("/", 1)[0] in {tree.root, *tree.folders}
            assert path not in {f.path for f in tree.files} and call.fresh_values["path"] == [path]

    def test_edits_replace_real_lines_of_a_writable_file(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """``oldText`` is a verbatim line of the chosen file, never of the read-only LICENSE."""
        tree = seed_facts["filesystem"].tree
        assert tree is not None
        synth = synth_for(seed_facts["filesystem"])
        for variant in range(4):
            call = synth.valid_arguments(demo_tools("filesystem", "edit_file"), variant=variant)
            assert call is not None and call.arguments["path"] != "${root}/LICENSE"
            fact = next(f for f in tree.files if f.path == call.arguments["path"])
            assert all(edit["oldText"] in fact.lines for edit in call.arguments["edits"])

    def test_move_destination_sits_next_to_its_source(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """A move renames within the source's folder, keeping the extension."""
        call = synth_for(seed_facts["filesystem"]).valid_arguments(demo_tools("filesystem", "move_file"))
        assert call is not None
        source, destination = call.arguments["source"], call.arguments["destination"]
        assert source.rsplit("/", 1)[0] == destination.rsplit("/", 1)[0] and destination != source

    def test_graph_deletions_name_real_pairs(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Observations are deleted from their own entity; deleted relations exist; new ones do not."""
        graph = seed_facts["memory"].graph
        assert graph is not None
        owned = {(e.name, o) for e in graph.entities for o in e.observations}
        existing = {(r.source, r.target, r.relation_type) for r in graph.relations}
        synth = synth_for(seed_facts["memory"])
        for variant in range(3):
            deletions = synth.valid_arguments(demo_tools("memory", "delete_observations"), variant=variant)
            assert deletions is not None
            for item in deletions.arguments["deletions"]:
                assert all((item["entityName"], o) in owned for o in item["observations"])
            removed = synth.valid_arguments(demo_tools("memory", "delete_relations"), variant=variant)
            created = synth.valid_arguments(demo_tools("memory", "create_relations"), variant=variant)
            assert removed and created
            assert all(
                (r["from"], r["to"], r["relationType"]) in existing for r in removed.arguments["relations"]
            )
            assert all(
                (r["from"], r["to"], r["relationType"]) not in existing
                for r in created.arguments["relations"]
            )

    def test_git_refs_are_real(self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """Checkout switches to another real branch; revisions are real shas, tags or branches."""
        repo = seed_facts["git"].repository
        assert repo is not None
        synth = synth_for(seed_facts["git"])
        assert (
            synth.valid_arguments(demo_tools("git", "git_checkout")).arguments["branch_name"]
            in repo.branches[1:]
        )
        refs = {c.sha for c in repo.commits} | set(repo.tags) | set(repo.branches)
        for variant in range(3):
            assert (
                synth.valid_arguments(demo_tools("git", "git_show"), variant=variant).arguments["revision"]
                in refs
            )

    def test_time_zones_are_iana_and_distinct(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Both zones of a conversion are real IANA names and differ; the time is HH:MM."""
        synth = synth_for(seed_facts["time"])
        for variant in range(4):
            args = synth.valid_arguments(demo_tools("time", "convert_time"), variant=variant).arguments
            for key in ("source_timezone", "target_timezone"):
                ZoneInfo(args[key])
            assert args["source_timezone"] != args["target_timezone"]
            assert re.fullmatch(r"\d\d:\d\d", args["time"])

    def test_type_selectors_match_the_named_object(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """A type chosen beside an object name is one the database has, and the name is of that type."""
        db = seed_facts["sqlite"].database
        assert db is not None
        synth = synth_for(seed_facts["sqlite"])
        for variant in range(4):
            args = synth.valid_arguments(
                demo_tools("postgres", "get_object_details"), variant=variant
            ).arguments
            kind = args.get("object_type", "table")
            assert kind in ("table", "view")
            assert args["object_name"] in (db.views if kind == "view" else [t.name for t in db.tables])

    def test_an_optional_statement_is_always_given(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """A tool whose only (optional) argument is SQL still gets a statement at variant 0."""
        call = synth_for(seed_facts["sqlite"]).valid_arguments(demo_tools("postgres", "execute_sql"))
        assert call is not None and call.arguments["sql"].startswith("SELECT")

    def test_pool_values_are_used_and_reported(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """A harvested value is used first and named in ``used_values`` (data flow)."""
        pool = ValuePool()
        ref = HarvestRef(kind=ArgKind.BRANCH, value="feature/search", tool="git_branch", probe_id="p7")
        pool.add(ref)
        call = synth_for(seed_facts["git"], pool=pool).valid_arguments(demo_tools("git", "git_checkout"))
        assert (
            call is not None
            and call.arguments["branch_name"] == "feature/search"
            and call.used_values == [ref]
        )

    def test_same_seed_same_calls(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """The same seed plans identical calls; another seed changes the invented names."""

        def plan(seed: int) -> list[dict]:
            synth = synth_for(seed_facts["filesystem"], seed)
            return [
                c.arguments
                for t in demo_tools.all("filesystem")
                for v in range(3)
                if (c := synth.valid_arguments(t, variant=v))
            ]

        assert plan(3) == plan(3)
        assert plan(3) != plan(4)

    def test_no_facts_no_write_sql(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Without database facts a write query cannot be planned; a read falls back to ``SELECT 1``."""
        synth = synth_for(seed_facts["time"])
        assert synth.valid_arguments(demo_tools("sqlite", "write_query")) is None
        assert (
            synth.valid_arguments(demo_tools("sqlite", "read_query")).arguments["query"]
            == "SELECT 1 AS probe"
        )


@pytest.fixture()
def shop(seed_paths: dict[str, Path], tmp_path: Path) -> sqlite3.Connection:
    """A private copy of the shop database with foreign keys enforced."""
    copy = tmp_path / "shop.sqlite"
    shutil.copy(seed_paths["sqlite"], copy)
    conn = sqlite3.connect(copy, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    yield conn
    conn.close()


class TestSql:
    def test_planned_sql_runs_on_the_real_database(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts], shop: sqlite3.Connection
    ) -> None:
        """Every planned read, write and DDL statement executes without error, constraints enforced."""
        synth = synth_for(seed_facts["sqlite"])
        statements = [
            call.arguments["query"]
            for t in demo_tools.all("sqlite")
            for v in range(6)
            if "query" in t.properties and (call := synth.valid_arguments(t, variant=v))
        ]
        assert len(statements) == 18
        for statement in statements:
            shop.execute("SAVEPOINT probe")
            shop.execute(statement).fetchall()
            shop.execute("ROLLBACK TO probe")

    def test_reads_are_realistic(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """The first read filters, orders and limits real columns of a real table."""
        call = synth_for(seed_facts["sqlite"]).valid_arguments(demo_tools("sqlite", "read_query"))
        assert call is not None
        assert re.fullmatch(
            r"SELECT name, price_cents FROM products WHERE price_cents > \d+ ORDER BY price_cents LIMIT 5",
            call.arguments["query"],
        )

    def test_each_violation_breaks_its_constraint(
        self, seed_facts: dict[str, EnvironmentFacts], shop: sqlite3.Connection
    ) -> None:
        """NOT NULL, UNIQUE, CHECK and FOREIGN KEY violations are each refused by SQLite for that reason."""
        assert seed_facts["sqlite"].database is not None
        writer = SqlWriter(seed_facts["sqlite"].database, random.Random(0))
        reasons = {"not_null": "NOT NULL", "unique": "UNIQUE", "check": "CHECK", "foreign_key": "FOREIGN KEY"}
        violations = writer.violations("ab12")
        assert {v[0] for v in violations} == set(reasons)
        for constraint, _condition, statement in violations:
            with pytest.raises(sqlite3.IntegrityError, match=reasons[constraint]):
                shop.execute(statement)

    def test_every_tool_argument_kind_is_covered(
        self, demo_tools: DemoTools, seed_facts: dict[str, EnvironmentFacts]
    ) -> None:
        """Each demo tool gets a valid call at variant 0 from its own server's facts."""
        for server in ("filesystem", "git", "memory", "sqlite", "time"):
            synth = synth_for(seed_facts[server])
            for spec in demo_tools.all(server):
                assert synth.valid_arguments(spec, infer_arguments(spec), 0) is not None, (server, spec.name)


class TestIdentityHarvest:
    def test_record_ids_in_structured_output_are_harvested(self) -> None:
        """Ids of listed records (``{"notes": [{"id": ...}]}``, ``{"keys": [...]}``) become identifiers with provenance."""
        from toolatlas.models import ToolSpec
        from toolatlas.probing.values import ArgKind

        tool = ToolSpec(server="s", name="list_notes", description="List notes.", input_schema={"type": "object"})
        pool = ValuePool()
        pool.harvest(tool, "", {"notes": [{"id": "n-001", "title": "a"}, {"note_id": 7}], "keys": ["alpha", "beta"],
                                "done": True}, {}, "p1")
        found = {(r.value, r.tool, r.probe_id) for r in pool.values(ArgKind.IDENTIFIER)}
        assert {("n-001", "list_notes", "p1"), ("7", "list_notes", "p1"), ("alpha", "list_notes", "p1"),
                ("beta", "list_notes", "p1")} <= found
        assert not any(r.value in ("True", "a") for r in pool.values(ArgKind.IDENTIFIER))

    def test_an_id_knows_what_it_names_and_goes_to_its_kind_of_argument(self) -> None:
        """``requestId`` names a request and a task's bare ``id`` a task; a ``taskId`` argument then gets
        a task id, never a request id harvested before it."""
        from toolatlas.models import ToolSpec
        from toolatlas.probing.values import ArgKind

        plan = ToolSpec(server="s", name="request_planning", description="Plan a request.", input_schema={"type": "object"})
        mark = ToolSpec(server="s", name="mark_task_done", description="Mark a task done.", input_schema={
            "type": "object", "properties": {"requestId": {"type": "string"}, "taskId": {"type": "string"}},
            "required": ["requestId", "taskId"]})
        pool = ValuePool()
        pool.harvest(plan, '{"requestId": "req-4", "tasks": [{"id": "task-9", "title": "Write it"}]}', None, {}, "p1")
        assert {(r.value, r.context) for r in pool.values(ArgKind.IDENTIFIER)} == {("req-4", "request"), ("task-9", "task")}
        synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
        for variant in range(3):
            call = synth.valid_arguments(mark, None, variant)
            assert call is not None and call.arguments == {"requestId": "req-4", "taskId": "task-9"}


class TestBoundParameters:
    def test_a_statement_beside_a_parameters_object_binds_its_value(self, seed_facts: dict[str, EnvironmentFacts]) -> None:
        """Where the description shows ``WHERE id = :id`` with params, a call with the parameters object
        passes the filter's value as ``:column`` and ``{column: value}``; without it, the literal stays."""
        from toolatlas.models import ToolSpec

        tool = ToolSpec(server="s", name="execute_query", description=(
            "Execute a SQL query. You MUST use the params parameter for query parameter substitution "
            "(e.g. 'WHERE id = :id' with params={'id': 123})."), input_schema={
            "type": "object", "properties": {"query": {"type": "string"},
                                             "params": {"type": "object", "additionalProperties": True, "default": {}}},
            "required": ["query"]})
        synth = ValueSynth(seed_facts["sqlite"], ValuePool(), random.Random(0))
        plain = synth.valid_arguments(tool, None, 0)
        bound = synth.valid_arguments(tool, None, 1)
        assert plain is not None and "params" not in plain.arguments
        assert bound is not None and bound.arguments["params"]
        [(name, value)] = bound.arguments["params"].items()
        assert f":{name}" in bound.arguments["query"] and isinstance(value, int | float)
        silent = tool.model_copy(update={"description": "Execute a SQL query."})
        assert synth.valid_arguments(silent, None, 1).arguments.get("params") == {}


class TestADatabaseInAFile:
    """Tables a query tool showed of one file (two sheets that share a column, no foreign key)."""

    @staticmethod
    def sheets(scope: dict | None = None) -> EnvironmentFacts:
        from toolatlas.offline.dbfacts import ColumnFact, DatabaseFacts, TableFact

        region = ColumnFact(name="Region", type="VARCHAR")
        sales = TableFact(name="Sales", columns=[region, ColumnFact(name="Units", type="BIGINT")],
                          sample_rows=[{"Region": "North", "Units": 120}, {"Region": "East", "Units": 143}])
        targets = TableFact(name="Targets", columns=[region, ColumnFact(name="Target", type="BIGINT")],
                            sample_rows=[{"Region": "North", "Target": 250}])
        database = DatabaseFacts(dialect="information_schema", tables=[sales, targets], scope=scope or {})
        return EnvironmentFacts(kind="directory", database=database)

    QUERY = {"server": "s", "name": "sql_query", "description": "Run a SELECT over the workbook's sheets.",
             "input_schema": {"type": "object", "required": ["file", "sql"], "properties": {
                 "file": {"type": "string", "description": "Path to the spreadsheet file"},
                 "sql": {"type": "string", "description": "SQL SELECT statement to execute"},
                 "header_row": {"type": "integer", "default": 1}}}}

    def test_tables_without_a_foreign_key_join_on_a_shared_column(self) -> None:
        """Two tables whose same-named column holds the same values are joined on it."""
        writer = SqlWriter(self.sheets().database, random.Random(0))
        assert writer.select(2) == (
            'SELECT t."Units", p."Target" FROM "Sales" AS t JOIN "Targets" AS p ON p."Region" = t."Region" LIMIT 5'
        )

    def test_an_insert_names_every_column_when_none_needs_a_value(self) -> None:
        """A table of nullable columns still gets an INSERT that names its columns."""
        statement = SqlWriter(self.sheets().database, random.Random(0)).insert(0)
        assert statement is not None and statement.startswith('INSERT INTO "Sales" ("Region", "Units") VALUES (')

    def test_statements_go_with_the_scope_they_were_read_through(self) -> None:
        """A statement from facts read through a file is sent with that file and no other optional argument."""
        from toolatlas.models import ToolSpec

        tool = ToolSpec(**self.QUERY)
        synth = ValueSynth(self.sheets({"file": "${root}/sales.xlsx"}), ValuePool(), random.Random(0))
        for variant in range(4):
            call = synth.valid_arguments(tool, None, variant)
            assert call is not None and set(call.arguments) == {"file", "sql"}
            assert call.arguments["file"] == "${root}/sales.xlsx"
            assert '"Sales"' in call.arguments["sql"] or '"Targets"' in call.arguments["sql"]


class TestSqlExamples:
    def test_an_example_stands_within_one_sentence(self) -> None:
        """Prose that starts with SELECT and a later sentence's FROM make no statement; the example does."""
        from toolatlas.offline.hints import sql_examples

        described = ("SQL SELECT statement to execute. Each sheet is a table. Example: "
                     "SELECT name, revenue FROM Sales WHERE status = 'Active' LIMIT 20")
        assert sql_examples(described) == ["SELECT name, revenue FROM Sales WHERE status = 'Active' LIMIT 20"]


class TestFileFormats:
    def test_a_file_of_the_format_the_description_names_is_chosen(self, tmp_path: Path) -> None:
        """"Fix a SQL file on disk": a .sql file of the folder, never its README, whatever the seed."""
        from toolatlas.models import ToolSpec
        from toolatlas.offline.facts import directory_facts

        (tmp_path / "README.md").write_text("# Models\n")
        (tmp_path / "models").mkdir()
        (tmp_path / "models" / "orders.sql").write_text("select 1\n")
        (tmp_path / "notes.txt").write_text("todo\n")
        facts = EnvironmentFacts(kind="directory", root="${root}", tree=directory_facts(tmp_path))
        tool = ToolSpec(server="s", name="fix_file", description="Fix a SQL file on disk.", input_schema={
            "type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}})
        for seed in range(4):
            call = synth_for(facts, seed).valid_arguments(tool, infer_arguments(tool), seed)
            assert call is not None and call.arguments["path"] == "${root}/models/orders.sql"

    @pytest.mark.parametrize(("name", "text", "argument", "tool"), [
        ("november.adi", "station log\n<ADIF_VER:5>3.1.7\n<EOH>\n<CALL:4>W1AW <MODE:3>FT4 <EOR>\n", "adif_string",
         "validate_adif_record"),
        ("hymn.musicxml", '<?xml version="1.0"?>\n<score-partwise><part id="P1"/></score-partwise>\n', "reference_xml",
         "quick_similarity"),
    ])
    def test_a_text_argument_named_after_a_format_the_folder_holds_takes_a_files_text(
            self, tmp_path: Path, name: str, text: str, argument: str, tool: str) -> None:
        """``adif_string`` of a folder of ``.adi`` logbooks: the text of one logbook (the format's name is the
        extension and one letter more); ``reference_xml`` beside ``.musicxml`` scores: a score's text (the extension
        ends with the word) — never a placeholder word; a ``text`` argument is no ``.tex`` file's."""
        from toolatlas.models import ToolSpec
        from toolatlas.offline.facts import directory_facts

        (tmp_path / name).write_text(text)
        (tmp_path / "paper.tex").write_text("\\section{Log}\n")
        facts = EnvironmentFacts(kind="directory", root="${root}", tree=directory_facts(tmp_path))
        taker = ToolSpec(server="s", name=tool, description="Reads a document given as text.",
                         input_schema={"type": "object", "required": [argument],
                                       "properties": {argument: {"type": "string"}}})
        call = synth_for(facts, 0).valid_arguments(taker, infer_arguments(taker), 0)
        assert call is not None and call.arguments[argument] == text
        count = ToolSpec(server="s", name="count_words", description="Count the words of a text.",
                         input_schema={"type": "object", "required": ["text"],
                                       "properties": {"text": {"type": "string"}}})
        call = synth_for(facts, 0).valid_arguments(count, infer_arguments(count), 0)
        assert call is not None and "section" not in call.arguments["text"]

    def test_two_files_of_a_described_format_when_one_is_of_the_format_its_description_writes_out(
            self, tmp_path: Path) -> None:
        """"Path to the reference MusicXML/.mxl file" twice, beside one ``.mxl`` and two ``.musicxml`` scores: both
        formats are named (one written out, one by its name), and the second file is another score, not nothing."""
        from toolatlas.models import ToolSpec
        from toolatlas.offline.facts import directory_facts

        for name in ("a.musicxml", "b.musicxml"):
            (tmp_path / name).write_text("<score-partwise/>\n")
        (tmp_path / "a.mxl").write_bytes(b"PK\x03\x04compressed")
        (tmp_path / "notes.txt").write_text("rehearsal notes\n")
        facts = EnvironmentFacts(kind="directory", root="${root}", tree=directory_facts(tmp_path))
        described = {"type": "string", "description": "Path to the reference MusicXML/.mxl file"}
        compare = ToolSpec(server="s", name="compare_files", description="Diff of two MusicXML files on disk.",
                           input_schema={"type": "object", "required": ["reference_path", "target_path"],
                                         "properties": {"reference_path": described, "target_path": described}})
        for seed in range(3):
            call = synth_for(facts, seed).valid_arguments(compare, infer_arguments(compare), seed)
            assert call is not None
            chosen = [call.arguments["reference_path"], call.arguments["target_path"]]
            assert len(set(chosen)) == 2
            assert set(chosen) <= {"${root}/a.musicxml", "${root}/b.musicxml", "${root}/a.mxl"}


class TestTextAReaderShowed:
    def test_a_replace_in_a_binary_document_looks_for_a_line_its_reader_answered(self, tmp_path: Path) -> None:
        """A search-and-replace of ``.docx`` documents: no line of the folder's files can be looked for (the file is
        a zip) until the server's own reader answers the document's paragraphs; then ``find_text`` is one of them,
        with the read it comes from — never an invented sentence the document does not hold."""
        from toolatlas.offline.facts import directory_facts

        (tmp_path / "letter.docx").write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)
        facts = EnvironmentFacts(kind="directory", root="${root}", tree=directory_facts(tmp_path))
        text = {"type": "string"}
        replace = ToolSpec(server="s", name="search_and_replace", description="Search for text and replace all "
                           "occurrences.", input_schema={"type": "object", "required": ["filename", "find_text",
                                                                                          "replace_text"],
                                                         "properties": {"filename": text, "find_text": text,
                                                                        "replace_text": text}})
        reader = ToolSpec(server="s", name="get_document_text", description="Extract all text from a Word document.",
                          input_schema={"type": "object", "required": ["filename"], "properties": {"filename": text}})
        pool = ValuePool()
        assert synth_for(facts, 0, pool).valid_arguments(replace, infer_arguments(replace), 0) is None
        answer = "Dear Ms. Okafor,\nThank you for your order of 12 desk lamps.\n\n42\nKind regards,"
        pool.harvest(reader, answer, None, {"root": ROOT}, "p1", arguments={"filename": "${root}/letter.docx"})
        call = synth_for(facts, 0, pool).valid_arguments(replace, infer_arguments(replace), 0)
        assert call is not None and call.arguments["filename"] == "${root}/letter.docx"
        assert call.arguments["find_text"] in {"Dear Ms. Okafor,", "Thank you for your order of 12 desk lamps.",
                                               "Kind regards,"}
        assert [ref.tool for ref in call.used_values if ref.kind is ArgKind.EXISTING_TEXT] == ["get_document_text"]

    def test_an_error_a_reader_answers_gives_no_lines(self) -> None:
        """A reader's refusal (``Document … does not exist``) holds no text of the file."""
        text = {"type": "string"}
        reader = ToolSpec(server="s", name="get_document_text", description="Extract all text from a Word document.",
                          input_schema={"type": "object", "required": ["filename"], "properties": {"filename": text}})
        pool = ValuePool()
        pool.harvest(reader, "Document /srv/inst-1/state/root/x.docx does not exist", None, {"root": ROOT}, "p1",
                     arguments={"filename": "${root}/x.docx"})
        assert pool.values(ArgKind.EXISTING_TEXT) == []


class TestStoredRecords:
    @staticmethod
    def facts() -> EnvironmentFacts:
        records = [{"vendor_id": "V-1", "name": "Hallam Timber", "status": "active"},
                   {"vendor_id": "V-2", "name": "Kestrel Hardware", "status": "blocked"},
                   *({"po_number": f"PO-{n}", "vendor_id": f"V-{n % 2 + 1}", "total": 100.0 * n, "currency": "GBP"}
                     for n in range(1, 5))]
        return EnvironmentFacts(kind="json_file", root="${file}", records=records)

    def test_an_argument_named_like_a_field_refers_to_a_stored_record(self) -> None:
        """``vendor_id`` and ``name`` take values the state's records hold, never a made-up id."""
        text = {"type": "string"}
        find = ToolSpec(server="s", name="get_vendor", description="Returns one vendor.",
                        input_schema={"type": "object", "required": ["vendor_id"], "properties": {"vendor_id": text}})
        search = ToolSpec(server="s", name="erp_search_vendor", description="Finds vendor records by name.",
                          input_schema={"type": "object", "required": ["name"], "properties": {"name": text}})
        for variant in range(3):
            assert synth_for(self.facts(), variant).valid_arguments(find, variant=variant).arguments["vendor_id"] in \
                {"V-1", "V-2"}
            assert synth_for(self.facts(), variant).valid_arguments(search, variant=variant).arguments["name"] in \
                {"Hallam Timber", "Kestrel Hardware"}

    def test_the_fields_of_one_call_come_from_one_record(self) -> None:
        """A match of an invoice against an order: vendor, order number, total and currency of one order together
        (the currency a choice too), and variants reach orders of both vendors."""
        match = ToolSpec(server="s", name="erp_match_po", description="Three-way match of an invoice against a PO.",
                         input_schema={"type": "object", "required": ["vendor_id", "po_number", "total", "currency"],
                                       "properties": {"vendor_id": {"type": "string"}, "po_number": {"type": "string"},
                                                      "total": {"type": "number"},
                                                      "currency": {"enum": ["EUR", "USD", "GBP"]}}})
        orders = {f"PO-{n}": (f"V-{n % 2 + 1}", 100.0 * n) for n in range(1, 5)}
        vendors = set()
        for variant in range(4):
            call = synth_for(self.facts(), variant).valid_arguments(match, variant=variant)
            assert call is not None
            arguments = call.arguments
            assert (arguments["vendor_id"], arguments["total"]) == orders[arguments["po_number"]]
            assert arguments["currency"] == "GBP"
            vendors.add(arguments["vendor_id"])
        assert vendors == {"V-1", "V-2"}

    def test_a_database_s_rows_are_records_too(self) -> None:
        """A tracker over a SQLite file: ``entity_id`` and ``entity_type`` of a query take one row's values together
        (the hive and the kind of record it has), not an invented id."""
        from toolatlas.offline.dbfacts import ColumnFact, DatabaseFacts, TableFact

        rows = [{"id": 1, "entity_type": "inspection", "entity_id": "hive_clover", "date": "2026-04-12"},
                {"id": 2, "entity_type": "varroa_count", "entity_id": "hive_bramble", "date": "2026-04-26"}]
        columns = [ColumnFact(name=name, type="TEXT") for name in rows[0]]
        database = DatabaseFacts(dialect="sqlite", tables=[TableFact(name="tracking_events", columns=columns,
                                                                     row_count=2, sample_rows=rows)])
        facts = EnvironmentFacts(kind="sqlite", root="${db_path}", database=database)
        text = {"type": "string"}
        query = ToolSpec(server="s", name="query_events", description="Query tracking events with filters",
                         input_schema={"type": "object", "required": ["entity_type", "entity_id"],
                                       "properties": {"entity_type": text, "entity_id": text}})
        for variant in range(2):
            call = synth_for(facts, variant).valid_arguments(query, variant=variant)
            assert call is not None
            assert (call.arguments["entity_type"], call.arguments["entity_id"]) in \
                {("inspection", "hive_clover"), ("varroa_count", "hive_bramble")}


    def test_an_id_an_answer_gave_goes_before_the_stored_ones(self) -> None:
        """Once an answer listed vendor ids, ``vendor_id`` takes one of them (its use witnesses where vendor ids come
        from), and the order a match is planned with is one of that vendor's."""
        pool = ValuePool()
        search = ToolSpec(server="s", name="erp_search_vendor", description="Finds vendor records by name.",
                          input_schema={"type": "object", "required": ["name"],
                                        "properties": {"name": {"type": "string"}}})
        pool.harvest(search, json.dumps({"candidates": [{"vendor_id": "V-2", "name": "Kestrel Hardware"}]}), None,
                     {}, "p1", arguments={"name": "Kestrel"})
        match = ToolSpec(server="s", name="erp_match_po", description="Three-way match of an invoice against a PO.",
                         input_schema={"type": "object", "required": ["vendor_id", "po_number", "total"],
                                       "properties": {"vendor_id": {"type": "string"}, "po_number": {"type": "string"},
                                                      "total": {"type": "number"}}})
        for variant in range(3):
            call = synth_for(self.facts(), variant, pool).valid_arguments(match, variant=variant)
            assert call is not None and call.arguments["vendor_id"] == "V-2"
            assert call.arguments["po_number"] in {"PO-1", "PO-3"}  # the orders of V-2
            assert [r.tool for r in call.used_values] == ["erp_search_vendor"]


class TestAnUpdateOfAStoredRecord:
    def test_an_update_takes_which_record_not_its_current_values(self) -> None:
        """Moving a deal to another stage: ``deal_id`` is a stored deal's, and the stage set is not always the one that
        deal has (the record gives the identity, the update its own value)."""
        records = [{"deal_id": f"D-{n}", "stage": stage, "value": 1000 * n}
                   for n, stage in enumerate(["new", "qualified", "lost", "won"], start=1)]
        facts = EnvironmentFacts(kind="json_file", root="${file}", records=records)
        update = ToolSpec(server="s", name="update_deal_stage", description="Move a deal to another stage.",
                          input_schema={"type": "object", "required": ["deal_id", "stage"], "properties": {
                              "deal_id": {"type": "string"},
                              "stage": {"enum": ["new", "qualified", "proposal", "negotiation", "won", "lost"]}}})
        current = {r["deal_id"]: r["stage"] for r in records}
        calls = [synth_for(facts, v).valid_arguments(update, variant=v) for v in range(4)]
        assert all(c is not None and c.arguments["deal_id"] in current for c in calls)
        assert any(c.arguments["stage"] != current[c.arguments["deal_id"]] for c in calls if c is not None)


    def test_a_search_over_the_records_looks_for_a_word_they_hold(self) -> None:
        """A directory export's search ``query`` (named like no field) takes words of the records, never the invented
        ``probe`` a state with no words gets."""
        records = [{"cn": "Rhiannon Morgan", "mail": "rhiannon.morgan@kestrelvet.local", "type": "user"},
                   {"cn": "Finance-ReadOnly", "description": "Read access to the finance share", "type": "group"}]
        facts = EnvironmentFacts(kind="json_file", root="${file}", records=records)
        search = ToolSpec(server="s", name="search_ad", description="Search directory objects by name or e-mail.",
                          input_schema={"type": "object", "required": ["query"], "properties": {
                              "query": {"type": "string", "description": "Search query (name, email, username)"}}})
        words = {w.lower() for r in records for v in r.values() for w in re.findall(r"[A-Za-z]+", v)}
        for variant in range(3):
            call = synth_for(facts, variant).valid_arguments(search, variant=variant)
            assert call is not None and call.arguments["query"].lower() in words


class TestFieldsADescriptionNames:
    RECORDS = [{"cn": "Domain Admins", "sAMAccountName": "Domain Admins", "groupType": "global"},
               {"cn": "Claire Dawson", "sAMAccountName": "cdawson", "displayName": "Claire Dawson",
                "userPrincipalName": "cdawson@kestrelvet.local"},
               {"cn": "Owen Griffiths", "sAMAccountName": "ogriffiths", "displayName": "Owen Griffiths",
                "userPrincipalName": "ogriffiths@kestrelvet.local"}]

    def test_the_fields_are_those_in_brackets_or_written_as_code(self) -> None:
        assert described_fields("User identifier: username (sAMAccountName), email, or common name (CN)") == [
            ("s", "am", "account", "name"), ("cn",)]
        assert described_fields("The `mail` of a user, or its device_sn") == [("mail",), ("device", "sn")]
        assert described_fields("Maximum number of results (default: 50)") == []

    def test_an_argument_takes_the_field_its_description_names_of_the_records_most_like_it(self) -> None:
        """``identifier`` is named like no field: it takes the ``sAMAccountName`` its description names, of the
        records most like a user's (their fields share the words of the tool and the argument), never a placeholder
        word."""
        facts = EnvironmentFacts(kind="json_file", root="${file}", records=self.RECORDS)
        details = ToolSpec(server="s", name="get_user_details", description="Get details of one user.",
                           input_schema={"type": "object", "required": ["identifier"], "properties": {"identifier": {
                               "type": "string", "description": "User identifier: username (sAMAccountName) or CN"}}})
        chosen = [synth_for(facts, v).valid_arguments(details, variant=v).arguments["identifier"] for v in range(2)]
        assert set(chosen) == {"cdawson", "ogriffiths"}


class TestListersOfNamedThings:
    def test_a_listers_bare_list_is_named_by_its_plural(self) -> None:
        """``list_blocks`` answering its blocks (as a sequence, or wrapped as ``{"result": […]}``): their names are
        blocks' names, what ``block_name`` takes, anonymous ones last."""
        lister = ToolSpec(server="s", name="list_blocks", description="List block definitions.", input_schema={
            "type": "object", "required": ["file_id"], "properties": {"file_id": {"type": "string"}}})
        records = [{"name": "*D1", "entity_count": 1}, {"name": "DOOR", "entity_count": 5}]
        for text, structured in (("\n".join(json.dumps(r) for r in records), None),
                                 (json.dumps(records[0]), {"result": records})):
            pool = ValuePool()
            pool.harvest(lister, text, structured, {}, "p1", arguments={"file_id": "f1"})
            refs = pool.values(ArgKind.IDENTIFIER)
            assert {(r.value, r.context) for r in refs} >= {("DOOR", "label:block"), ("*D1", "label:block")}
        extract = ToolSpec(server="s", name="extract_block_attributes", description="Rows of a block's attributes.",
                           input_schema={"type": "object", "required": ["block_name"],
                                         "properties": {"block_name": {"type": "string"}}})
        facts = EnvironmentFacts(kind="none")
        chosen = [synth_for(facts, 0, pool).valid_arguments(extract, variant=v) for v in range(2)]
        assert [c.arguments["block_name"] for c in chosen if c is not None] == ["DOOR", "*D1"]
