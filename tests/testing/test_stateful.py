"""Generated stateful MCP servers, started for real over stdio, and the catalogues that list them."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from toolatlas.client import ServerConnection, StdioLaunch
from toolatlas.client.results import tool_spec_from_mcp
from toolatlas.config import Catalogue, Limits, ServerSpec, load_catalogue
from toolatlas.models import OutcomeClass
from toolatlas.testing.catalogues import generate_catalogue
from toolatlas.testing.servers.stateful import build_server
from toolatlas.testing.servers.templates import KINDS, template_tools

LIMITS = Limits(call_timeout_s=10.0, start_timeout_s=30.0, max_restarts=1)


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    """Five generated servers, one of each kind: notes-000, kv-001, todo-002, inventory-003, counter-004."""
    return load_catalogue(generate_catalogue(5, tmp_path_factory.mktemp("catalogue")))


@pytest.fixture()
def start(catalogue: Catalogue, tmp_path: Path) -> Callable[[str], tuple[ServerConnection, Path]]:
    """``start(name)`` → a connection (not started yet) to that server over a private copy of its seed."""

    def launch(name: str) -> tuple[ServerConnection, Path]:
        spec = catalogue.server(name)
        assert spec.environment.kind == "json_file" and spec.environment.snapshot is not None
        state = tmp_path / name / "state.json"
        state.parent.mkdir()
        shutil.copy(catalogue.resolve(spec.environment.snapshot), state)
        transport = spec.transport
        env = {key: value.replace("${file}", str(state)) for key, value in transport.env.items()}
        return ServerConnection(name, StdioLaunch(transport.command, transport.args, env), LIMITS), state

    return launch


def names(spec: ServerSpec) -> dict[str, str]:
    """Tool names of a generated server by action (``create``, ``get``...)."""
    kind, variant = spec.transport.args[3], int(spec.transport.args[5])
    return {action: tool.name for action, tool in template_tools(kind, variant).items()}


def argument(spec: ServerSpec, action: str, role: str) -> str:
    """The public name a generated server gives the argument ``role`` of its ``action`` tool."""
    kind, variant = spec.transport.args[3], int(spec.transport.args[5])
    return next(a.name for a in template_tools(kind, variant)[action].args if a.role == role)


@pytest.fixture()
async def notes(start: Callable, catalogue: Catalogue) -> AsyncIterator[tuple[ServerConnection, ServerSpec]]:
    connection, _ = start("notes-000")
    async with connection:
        yield connection, catalogue.server("notes-000")


class TestServerProcess:
    async def test_tools_carry_annotations_and_schemas(
        self, notes: tuple[ServerConnection, ServerSpec]
    ) -> None:
        """tools/list gives read-only hints, typed and bounded arguments, and output schemas."""
        conn, spec = notes
        tools = {t.name: t for t in conn.tools}
        tool = names(spec)
        assert set(tools) == set(tool.values())
        assert tools[tool["get"]].annotations.read_only is True
        assert tools[tool["list"]].annotations.read_only is True
        assert tools[tool["create"]].annotations.read_only is False
        assert tools[tool["delete"]].annotations.destructive is True
        limit = tools[tool["list"]].properties["limit"]
        assert limit["type"] == "integer" and limit["minimum"] == 1 and limit["maximum"] >= 20
        assert "description" in limit
        tags = tools[tool["create"]].properties["tags"]
        assert tags["type"] == "array" and "maxItems" in tags and "pattern" in tags["items"]
        assert tools[tool["create"]].required == ["title"]
        assert all(t.output_schema is not None for t in tools.values())

    async def test_create_then_list_then_read(self, notes: tuple[ServerConnection, ServerSpec]) -> None:
        """An id returned by create appears in the listing, and get returns the same note by that id."""
        conn, spec = notes
        tool, id_arg = names(spec), argument(spec, "get", "note_id")
        created = await conn.call(tool["create"], {"title": "Probe plan", "tags": ["work"]})
        assert created.outcome is OutcomeClass.OK and created.structured is not None
        note_id = created.structured["id"]
        listing = await conn.call(tool["list"], {"tag": "work", "limit": 20})
        assert note_id in [n["id"] for n in listing.structured["notes"]]
        read = await conn.call(tool["get"], {id_arg: note_id})
        assert read.outcome is OutcomeClass.OK and read.structured["title"] == "Probe plan"

    async def test_refusals_are_tool_errors_with_reasons(
        self, notes: tuple[ServerConnection, ServerSpec]
    ) -> None:
        """Unknown ids, duplicate titles and broken constraints are `tool_error`s saying why."""
        conn, spec = notes
        tool, id_arg = names(spec), argument(spec, "get", "note_id")
        missing = await conn.call(tool["get"], {id_arg: "nt-9999"})
        assert missing.outcome is OutcomeClass.TOOL_ERROR and "not found" in missing.excerpt
        first = await conn.call(tool["create"], {"title": "Twice"})
        again = await conn.call(tool["create"], {"title": "twice"})
        assert first.ok and again.outcome is OutcomeClass.TOOL_ERROR and "already exists" in again.excerpt
        too_long = await conn.call(tool["create"], {"title": "x" * 500})
        assert too_long.outcome is OutcomeClass.TOOL_ERROR
        assert "too long" in too_long.excerpt or "at most" in too_long.excerpt
        bad_tag = await conn.call(tool["create"], {"title": "Tagged", "tags": ["Not A Tag"]})
        assert bad_tag.outcome is OutcomeClass.TOOL_ERROR
        assert conn.restarts == 0

    async def test_stock_never_goes_negative(self, start: Callable, catalogue: Catalogue) -> None:
        """Removing more than is in stock is refused, and the refused call leaves the state file alone."""
        spec = catalogue.server("inventory-003")
        tool, sku = names(spec), argument(spec, "get", "sku")
        connection, state = start("inventory-003")
        async with connection as conn:
            listing = await conn.call(tool["list"], {})
            item = next(i for i in listing.structured["items"] if i["quantity"] > 0)
            before = state.read_bytes()
            refused = await conn.call(tool["stock_out"], {sku: item["sku"], "amount": item["quantity"] + 1})
            assert refused.outcome is OutcomeClass.TOOL_ERROR and "insufficient stock" in refused.excerpt
            assert state.read_bytes() == before
            duplicate = await conn.call(tool["add"], {sku: item["sku"], "name": "Copy"})
            assert duplicate.outcome is OutcomeClass.TOOL_ERROR and "already exists" in duplicate.excerpt

    async def test_state_persists_in_the_file_across_a_restart(
        self, start: Callable, catalogue: Catalogue
    ) -> None:
        """A write lands in the JSON state file and a restarted server reads it back."""
        spec = catalogue.server("kv-001")
        tool, key = names(spec), argument(spec, "put", "key")
        connection, state = start("kv-001")
        async with connection as conn:
            put = await conn.call(tool["put"], {key: "probe/answer", "value": "42"})
            assert put.outcome is OutcomeClass.OK
            assert json.loads(state.read_text())["key:probe/answer"]["value"] == "42"
            pid = conn.pid
            await conn.restart()
            assert conn.pid != pid
            read = await conn.call(tool["get"], {argument(spec, "get", "key"): "probe/answer"})
            assert read.outcome is OutcomeClass.OK and read.structured["value"] == "42"


class TestGeneratedCatalogue:
    def test_120_distinct_servers(self, tmp_path: Path) -> None:
        """120 servers load as a catalogue with unique names, kinds round-robin, and a seed state each."""
        catalogue = load_catalogue(generate_catalogue(120, tmp_path))
        assert len(catalogue.servers) == 120
        assert len({s.name for s in catalogue.servers}) == 120
        kinds = Counter(s.transport.args[3] for s in catalogue.servers)
        assert kinds == dict.fromkeys(KINDS, 24)
        launches = {tuple(s.transport.args) for s in catalogue.servers}
        assert len(launches) == 120
        for spec in catalogue.servers:
            seed = json.loads(catalogue.resolve(spec.environment.snapshot).read_text())
            assert sum(key != "meta" for key in seed) >= 3
            assert spec.smoke is not None and spec.smoke.tool in names(spec).values()

    async def test_variants_of_a_kind_differ(self, tmp_path: Path) -> None:
        """Variants of one kind list different tool schemas (hashes): each server is new tool nodes."""
        for kind in KINDS:
            servers = set()
            for variant in range(24):
                listed = await build_server(kind, variant, tmp_path / "state.json").list_tools()
                servers.add(frozenset(tool_spec_from_mcp(kind, tool).schema_hash for tool in listed))
            assert len(servers) == 24, kind
            assert len(frozenset.union(*servers)) > 2 * len(max(servers, key=len)), kind

    def test_generation_is_deterministic(self, tmp_path: Path) -> None:
        """The same n and seed write the same files; another seed writes other servers."""
        first = generate_catalogue(10, tmp_path / "a")
        second = generate_catalogue(10, tmp_path / "b")
        other = generate_catalogue(10, tmp_path / "c", seed=1)
        assert first.read_text() == second.read_text()
        for seed in (tmp_path / "a" / "seeds").iterdir():
            assert seed.read_bytes() == (tmp_path / "b" / "seeds" / seed.name).read_bytes()
        assert other.read_text() != first.read_text()
