"""``toolatlas proxy`` end to end: real MCP clients, the real command, real servers behind it.

Each proxy runs as ``python -m toolatlas proxy …`` over stdio (one test: streamable HTTP). Its
answers are compared with the same requests made directly on the server — on the same real
directory (filesystem, deployment mode) or on a fresh copy of the same snapshot (memory, sandbox
mode) — as JSON, key order included.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import pytest_asyncio
from mcp.shared.exceptions import MCPError

from toolatlas.client import HttpEndpoint, ServerConnection
from toolatlas.config import load_catalogue
from toolatlas.models import CallOutcome
from toolatlas.proxy import DESCRIPTION_BUDGET, GUIDANCE_TOOL, open_upstream

from .conftest import BuiltAtlas, connected, proxy_command, sdk_client

pytestmark = [pytest.mark.servers, pytest.mark.asyncio(loop_scope="module")]


@dataclass
class Pair:
    """The same server reached directly and through the proxy."""

    direct: ServerConnection
    proxy: ServerConnection
    variables: dict[str, str]


def dumped(value: Any) -> str:
    """JSON as it came, key order included."""
    if isinstance(value, types.ErrorData):
        value = value.model_dump(exclude_none=True)
    assert not isinstance(value, CallOutcome), f"no answer: {value}"
    return json.dumps(value, ensure_ascii=False)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's real project folder (the deployment the filesystem server works on)."""
    root = tmp_path_factory.mktemp("project")
    (root / "README.md").write_text("# Inventory\n\nTracks stock levels.\n")
    (root / "notes").mkdir()
    (root / "notes" / "todo.md").write_text("- count the shelves\n- order paper\n")
    (root / "data.csv").write_text("sku,count\nA1,3\nB2,0\n")
    return root


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def filesystem(demo_atlas: BuiltAtlas, project: Path) -> AsyncIterator[Pair]:
    """filesystem on the user's folder, direct and proxied (deployment mode, atlas from its export)."""
    catalogue = load_catalogue(demo_atlas.config)
    args = [str(demo_atlas.config), "--server", "filesystem", "--atlas", str(demo_atlas.export), "--var", f"root={project}"]
    async with (
        open_upstream(catalogue, "filesystem", variables={"root": str(project)}) as upstream,
        connected(proxy_command(*args)) as proxy,
    ):
        yield Pair(upstream.connection, proxy, upstream.variables)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def memory(demo_atlas: BuiltAtlas) -> AsyncIterator[Pair]:
    """memory on fresh copies of its snapshot, direct and proxied (sandbox mode, atlas from the store)."""
    catalogue = load_catalogue(demo_atlas.config)
    async with (
        open_upstream(catalogue, "memory", sandbox=True) as upstream,
        connected(proxy_command(str(demo_atlas.config), "--server", "memory", "--sandbox")) as proxy,
    ):
        yield Pair(upstream.connection, proxy, upstream.variables)


@asynccontextmanager
async def fault_pair(fault_catalogue: tuple[Path, Path], server: str) -> AsyncIterator[Pair]:
    """A server of the fault catalogue reached directly and through the proxy (its atlas from the export)."""
    config, export = fault_catalogue
    async with (
        open_upstream(load_catalogue(config), server) as upstream,
        connected(proxy_command(str(config), "--server", server, "--atlas", str(export))) as proxy,
    ):
        yield Pair(upstream.connection, proxy, upstream.variables)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def paged(fault_catalogue: tuple[Path, Path]) -> AsyncIterator[Pair]:
    """A server that lists its tools over three pages and answers unknown tools with a JSON-RPC error."""
    async with fault_pair(fault_catalogue, "paged") as pair:
        yield pair


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def unmapped(fault_catalogue: tuple[Path, Path]) -> AsyncIterator[Pair]:
    """A server of the catalogue that the atlas knows nothing of, direct and proxied."""
    async with fault_pair(fault_catalogue, "unmapped") as pair:
        yield pair


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def faulty(fault_catalogue: tuple[Path, Path]) -> AsyncIterator[ServerConnection]:
    """The proxy in front of the server that crashes and hangs on request (1.5 s call timeout)."""
    config, export = fault_catalogue
    async with connected(proxy_command(str(config), "--server", "faulty", "--atlas", str(export))) as proxy:
        yield proxy


@pytest.fixture()
def pair(request: pytest.FixtureRequest) -> Pair:
    """The pair fixture named by an indirect parameter (set up before the test's coroutine runs)."""
    return request.getfixturevalue(request.param)


async def listed(connection: ServerConnection) -> list[dict[str, Any]]:
    tools = await connection.list_tools_raw()
    assert isinstance(tools, list), tools
    return tools


async def both(pair: Pair, tool: str, arguments: dict[str, Any] | None) -> tuple[str, str]:
    direct = await pair.direct.call_raw(tool, arguments)
    proxied = await pair.proxy.call_raw(tool, arguments)
    return dumped(direct), dumped(proxied)


class TestListing:
    @pytest.mark.parametrize("pair", ["filesystem", "memory", "paged"], indirect=True)
    async def test_only_descriptions_change(self, pair: Pair) -> None:
        """Every tool of the server is listed in its order; apart from the description each is the server's JSON."""
        direct, proxied = await listed(pair.direct), await listed(pair.proxy)
        assert [t["name"] for t in proxied] == [t["name"] for t in direct] + [GUIDANCE_TOOL]
        for original, shown in zip(direct, proxied, strict=False):
            assert dumped(shown["inputSchema"]) == dumped(original["inputSchema"])
            assert dumped(shown.get("outputSchema")) == dumped(original.get("outputSchema"))
            assert shown["description"].startswith(original.get("description", ""))
            rest = {k: v for k, v in shown.items() if k != "description"}
            assert dumped(rest) == dumped({k: v for k, v in original.items() if k != "description"})

    async def test_descriptions_carry_the_atlas(self, filesystem: Pair, demo_atlas: BuiltAtlas) -> None:
        """A tool with atlas entries shows a verified use and a boundary with the exact error, in the user's paths."""
        root = filesystem.variables["root"]
        tools = {t["name"]: t["description"] for t in await listed(filesystem.proxy)}
        with_boundaries = 0
        for tool, description in tools.items():
            if tool == GUIDANCE_TOOL:
                continue
            notes = demo_atlas.atlas.read_tool("filesystem", tool)
            assert "Atlas (verified by executing this tool):" in description, tool
            assert "\n- Works" in description, tool
            if notes.when_not:
                with_boundaries += 1
                errors = [b.error.replace("${root}", root)[:40] for b in notes.when_not]
                assert any(error in description for error in errors), (tool, errors)
            assert len(description[description.index("Atlas (verified"):]) <= DESCRIPTION_BUDGET, tool
        assert with_boundaries >= 3
        assert "${root}" not in "".join(tools.values())

    async def test_pages_are_followed(self, paged: Pair) -> None:
        """All seven tools of a server that lists three per page are listed, one annotated from the atlas."""
        tools = {t["name"]: t for t in await listed(paged.proxy)}
        assert list(tools) == [*(f"tool_{i:02d}" for i in range(7)), GUIDANCE_TOOL]
        assert "Fails when `text` is missing → error: \"'text' is a required property\"" in tools["tool_01"]["description"]
        assert "Atlas" not in tools["tool_02"]["description"]

    async def test_cursor_is_refused(self, fault_catalogue: tuple[Path, Path]) -> None:
        """The proxy lists everything in one page, so a cursor it never gave out is invalid params."""
        config, export = fault_catalogue
        async with sdk_client(str(config), "--server", "paged", "--atlas", str(export), mode="legacy") as client:
            assert len((await client.list_tools()).tools) == 8
            with pytest.raises(MCPError, match="unknown cursor") as info:
                await client.list_tools(cursor="3")
            assert info.value.code == types.INVALID_PARAMS

    async def test_notes_verified_on_another_schema_say_so(self, faulty: ServerConnection) -> None:
        """Atlas notes whose tool schema has changed since the build are marked as such."""
        tools = {t["name"]: t for t in await listed(faulty)}
        assert "earlier version of this tool's schema" in tools["echo"]["description"]


class TestGuidanceTool:
    async def test_guidance_for_a_task(self, memory: Pair) -> None:
        """The added tool answers a task with the server's relevant tools and their verified notes."""
        result = await memory.proxy.call_raw(GUIDANCE_TOOL, {"task": "add an observation to an existing entity"})
        assert isinstance(result, dict) and not result.get("isError")
        text = result["content"][0]["text"]
        plan = text.splitlines()[0]
        assert plan.startswith("Plan: ") and "add_observations (create)" in plan and "## memory.add_observations" in text

    async def test_guidance_is_read_only_and_described(self, memory: Pair) -> None:
        """It is listed once, read-only, with a required task."""
        tool = [t for t in await listed(memory.proxy) if t["name"] == GUIDANCE_TOOL]
        assert len(tool) == 1
        assert tool[0]["annotations"]["readOnlyHint"] is True
        assert tool[0]["inputSchema"]["required"] == ["task"]

    async def test_bad_arguments_are_a_tool_error(self, memory: Pair) -> None:
        """A missing task is a tool error that says what to give."""
        result = await memory.proxy.call_raw(GUIDANCE_TOOL, {})
        assert isinstance(result, dict) and result["isError"] is True
        assert "`task` is required" in result["content"][0]["text"]


class TestCalls:
    @pytest.mark.parametrize(
        ("tool", "arguments"),
        [
            ("list_allowed_directories", {}),
            ("list_allowed_directories", None),
            ("read_text_file", {"path": "{root}/README.md"}),
            ("read_text_file", {"path": "{root}/notes/todo.md", "head": 1}),
            ("list_directory", {"path": "{root}"}),
            ("search_files", {"path": "{root}", "pattern": "**/*.md"}),
            ("directory_tree", {"path": "{root}"}),
        ],
    )
    async def test_filesystem_results_are_the_servers(self, filesystem: Pair, tool: str, arguments: dict | None) -> None:
        """A call through the proxy returns, byte for byte, what the server returns for it."""
        if arguments:
            arguments = {k: v.format(root=filesystem.variables["root"]) if isinstance(v, str) else v for k, v in arguments.items()}
        direct, proxied = await both(filesystem, tool, arguments)
        assert proxied == direct
        assert '"isError": true' not in proxied

    @pytest.mark.parametrize(
        ("tool", "arguments"),
        [
            ("read_graph", {}),
            ("search_nodes", {"query": "Lovelace"}),
            ("open_nodes", {"names": ["Nobody At All"]}),
        ],
    )
    async def test_memory_results_are_the_servers(self, memory: Pair, tool: str, arguments: dict) -> None:
        """The same holds for a fresh copy of the same snapshot."""
        direct, proxied = await both(memory, tool, arguments)
        assert proxied == direct

    @pytest.mark.parametrize(
        ("pair", "tool", "arguments"),
        [
            ("filesystem", "read_text_file", {"path": "/etc/hostname"}),
            ("filesystem", "read_text_file", {"path": "{root}/missing.md"}),
            ("memory", "add_observations", {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}),
            ("memory", "create_entities", {"entities": "not a list"}),
        ],
        indirect=["pair"],
    )
    async def test_tool_errors_pass_through(self, pair: Pair, tool: str, arguments: dict) -> None:
        """An isError result comes back unchanged."""
        arguments = json.loads(json.dumps(arguments).replace("{root}", pair.variables.get("root", "")))
        direct, proxied = await both(pair, tool, arguments)
        assert proxied == direct
        assert json.loads(proxied)["isError"] is True

    async def test_unknown_tool_answered_like_the_server(self, filesystem: Pair) -> None:
        """A server that answers an unknown tool with an isError result: the proxy answers the same."""
        direct, proxied = await both(filesystem, "no_such_tool", {})
        assert proxied == direct and "not found" in proxied

    async def test_jsonrpc_error_passes_through(self, paged: Pair) -> None:
        """A server that answers with a JSON-RPC error: the proxy answers with the same code, message and data."""
        direct = await paged.direct.call_raw("no_such_tool", {"text": "x"})
        proxied = await paged.proxy.call_raw("no_such_tool", {"text": "x"})
        assert isinstance(direct, types.ErrorData) and isinstance(proxied, types.ErrorData)
        assert proxied == direct and proxied.data == {"known": [f"tool_{i:02d}" for i in range(7)]}

    async def test_structured_content_and_meta_pass_through(self, paged: Pair) -> None:
        """structuredContent and _meta of a result are the server's."""
        direct, proxied = await both(paged, "tool_05", {"text": "héllo"})
        assert proxied == direct
        assert json.loads(proxied)["_meta"] == {"paged/served-by": "tool_05"}

    async def test_concurrent_calls(self, filesystem: Pair) -> None:
        """Calls in flight together through the proxy each get their own answer."""
        root = filesystem.variables["root"]
        paths = [f"{root}/README.md", f"{root}/notes/todo.md", f"{root}/data.csv"] * 8
        proxied = await asyncio.gather(*(filesystem.proxy.call_raw("read_text_file", {"path": p}) for p in paths))
        direct = [await filesystem.direct.call_raw("read_text_file", {"path": p}) for p in paths]
        assert [dumped(r) for r in proxied] == [dumped(r) for r in direct]

    async def test_a_2026_client_gets_the_same_result(self, memory: Pair, demo_atlas: BuiltAtlas) -> None:
        """A client speaking the 2026-07-28 protocol gets the server's result in that protocol's envelope."""
        direct = await memory.direct.call_raw("search_nodes", {"query": "Lovelace"})
        async with sdk_client(str(demo_atlas.config), "--server", "memory", "--sandbox", "--atlas", str(demo_atlas.export)) as client:
            assert client.protocol_version == "2026-07-28"
            result = await client.call_tool("search_nodes", {"query": "Lovelace"})
            tools = await client.list_tools()
        expected = types.CallToolResult.model_validate(direct, by_name=False)
        assert result.content == expected.content
        assert result.structured_content == expected.structured_content and result.is_error == expected.is_error
        assert GUIDANCE_TOOL in {t.name for t in tools.tools}


class TestForwarded:
    @pytest.mark.parametrize(("method", "params"), [
        ("resources/list", None),
        ("resources/list", {"cursor": "3"}),
        ("resources/templates/list", None),
        ("resources/read", {"uri": "note://4"}),
        ("resources/read", {"uri": "note://99"}),
        ("prompts/list", None),
        ("prompts/get", {"name": "summarise", "arguments": {"topic": "stock"}}),
        ("prompts/get", {"name": "nope"}),
        ("completion/complete", {"ref": {"type": "ref/prompt", "name": "summarise"}, "argument": {"name": "topic", "value": "st"}}),
    ])
    async def test_answers_are_the_servers(self, paged: Pair, method: str, params: dict | None) -> None:
        """Resources (every page, by cursor), templates, prompts and completion: the proxy answers as the server did, errors included."""
        direct = await paged.direct.request_raw(method, params)
        proxied = await paged.proxy.request_raw(method, params)
        assert dumped(proxied) == dumped(direct)
        if method == "resources/read" and params == {"uri": "note://99"}:
            assert isinstance(proxied, types.ErrorData) and proxied.data == {"uri": "note://99"}

    async def test_capabilities_are_the_servers(self, paged: Pair, memory: Pair) -> None:
        """The proxy declares completion exactly when the server does; resources and prompts always."""
        for pair in (paged, memory):
            direct, proxied = pair.direct.capabilities, pair.proxy.capabilities
            assert direct is not None and proxied is not None
            assert (proxied.completions is None) == (direct.completions is None)
            assert proxied.resources is not None and proxied.prompts is not None
        assert memory.direct.capabilities.prompts is None and paged.direct.capabilities.completions is not None

    async def test_a_server_without_prompts_lists_none(self, memory: Pair) -> None:
        """In front of a server without prompts, they list empty and a get says there are none; its resources are its own."""
        assert dumped(await memory.proxy.request_raw("resources/list")) == dumped(await memory.direct.request_raw("resources/list"))
        assert await memory.proxy.request_raw("prompts/list") == {"prompts": []}
        error = await memory.proxy.request_raw("prompts/get", {"name": "summarise"})
        assert isinstance(error, types.ErrorData) and error.code == types.INVALID_PARAMS
        assert "has no prompts" in error.message

    async def test_a_2026_client_reads_resources_and_prompts(self, paged: Pair, fault_catalogue: tuple[Path, Path]) -> None:
        """A client of the 2026-07-28 protocol gets the server's resources and prompts through the SDK's handlers."""
        config, export = fault_catalogue
        direct = await paged.direct.request_raw("resources/read", {"uri": "note://1"})
        async with sdk_client(str(config), "--server", "paged", "--atlas", str(export)) as client:
            listed_resources = await client.list_resources()
            read = await client.read_resource("note://1")
            prompt = await client.get_prompt("summarise", {"topic": "staff"})
        assert [str(r.uri) for r in listed_resources.resources] == ["note://0", "note://1", "note://2"]
        assert listed_resources.next_cursor == "3"
        assert read.contents == types.ReadResourceResult.model_validate(direct, by_name=False).contents
        assert prompt.messages[0].content.text == "Summarise the notes on staff."


class TestUnknownServer:
    async def test_passed_through_without_notes(self, unmapped: Pair) -> None:
        """A catalogue server the atlas knows nothing of is served as it is: same tools, no guidance tool, same results."""
        assert dumped(await listed(unmapped.proxy)) == dumped(await listed(unmapped.direct))
        assert GUIDANCE_TOOL not in {tool["name"] for tool in await listed(unmapped.proxy)}
        direct, proxied = await both(unmapped, "tool_01", {"text": "as is"})
        assert proxied == direct and "as is" in proxied


class TestUpstreamFaults:
    async def test_crash_is_a_clear_error_then_the_server_restarts(self, faulty: ServerConnection) -> None:
        """A server that dies mid-call is a JSON-RPC internal error naming the crash; the next call works."""
        error = await faulty.call_raw("crash", {})
        assert isinstance(error, types.ErrorData), error
        assert error.code == types.INTERNAL_ERROR and "crashed" in error.message and "restarted" in error.message
        assert error.data["outcome"] == "crash" and "crashing on purpose" in error.data["stderr_tail"]
        assert (await faulty.call_raw("echo", {"text": "back"}))["content"][0]["text"] == "back"

    async def test_timeout_is_a_clear_error_then_the_server_restarts(self, faulty: ServerConnection) -> None:
        """A server that never answers is an internal error at the catalogue's call timeout; the next call works."""
        t0 = time.perf_counter()
        error = await faulty.call_raw("hang", {})
        assert isinstance(error, types.ErrorData), error
        assert error.code == types.INTERNAL_ERROR and "did not answer in time" in error.message
        assert error.data["outcome"] == "timeout"
        assert time.perf_counter() - t0 < 10
        assert (await faulty.call_raw("echo", {"text": "still here"}))["content"][0]["text"] == "still here"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class TestHttp:
    async def test_proxy_over_streamable_http(self, memory: Pair, demo_atlas: BuiltAtlas) -> None:
        """With --transport http the same proxy answers at /mcp."""
        port = free_port()
        launch = proxy_command(str(demo_atlas.config), "--server", "memory", "--sandbox", "--atlas", str(demo_atlas.export),
                               "--transport", "http", "--port", str(port))
        process = await asyncio.create_subprocess_exec(
            launch.command, *launch.args, env={**os.environ, **launch.env}, cwd=launch.cwd,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with socket.socket() as sock:
                    if sock.connect_ex(("127.0.0.1", port)) == 0:
                        break
                assert process.returncode is None, "the proxy exited"
                await asyncio.sleep(0.2)
            async with connected(HttpEndpoint(f"http://127.0.0.1:{port}/mcp")) as proxy:
                direct = await memory.direct.call_raw("read_graph", {})
                assert dumped(await proxy.call_raw("read_graph", {})) == dumped(direct)
                assert GUIDANCE_TOOL in {t["name"] for t in await listed(proxy)}
        finally:
            process.terminate()
            await asyncio.wait_for(process.wait(), 20)
