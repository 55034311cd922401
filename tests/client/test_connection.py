"""The MCP client layer against a real, deliberately faulty MCP server over stdio and HTTP.

Every way a call can end maps to an outcome class within its timeout, and the session is usable
again afterwards.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator

import mcp_types as types
import pytest

from toolatlas.client import HttpEndpoint, ServerConnection, StdioLaunch, stdio
from toolatlas.config import Limits
from toolatlas.errors import ServerStartError
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.testing import faulty_server_command

LIMITS = Limits(call_timeout_s=3.0, start_timeout_s=20.0, max_message_bytes=1_000_000, max_output_bytes=1000, max_restarts=1)


def paged() -> StdioLaunch:
    """A server listing seven tools three per page, with JSON-RPC errors for unknown tools."""
    return StdioLaunch(sys.executable, ["-m", "toolatlas.testing.servers.paged", "--tools", "7", "--page-size", "3"])


def faulty(*flags: str) -> StdioLaunch:
    command, args = faulty_server_command(*flags)
    return StdioLaunch(command, args)


@pytest.fixture()
async def conn() -> AsyncIterator[ServerConnection]:
    async with ServerConnection("faulty", faulty(), LIMITS) as connection:
        yield connection


async def assert_usable(conn: ServerConnection) -> None:
    outcome = await conn.call("echo", {"text": "still here"})
    assert outcome.outcome is OutcomeClass.OK and outcome.excerpt == "still here"


class TestNormalCalls:
    async def test_lists_tools_with_schemas(self, conn: ServerConnection) -> None:
        """tools/list yields typed specs with input schema, output schema and a stable hash."""
        tools = {t.name: t for t in conn.tools}
        assert {"echo", "add", "crash", "hang", "garbage", "flood"} <= set(tools)
        assert tools["add"].output_schema is not None
        assert tools["add"].required == ["a", "b"]
        assert len(tools["add"].schema_hash) == 16
        again = await conn.list_tools(refresh=True)
        assert {t.name: t.schema_hash for t in again} == {t.name: t.schema_hash for t in conn.tools}

    async def test_ok_with_structured_content(self, conn: ServerConnection) -> None:
        """A successful call is `ok` with text excerpt, structured content and latency."""
        outcome = await conn.call("add", {"a": 2, "b": 3})
        assert outcome.outcome is OutcomeClass.OK
        assert outcome.structured == {"total": 5}
        assert outcome.latency_ms > 0

    async def test_tool_error(self, conn: ServerConnection) -> None:
        """A tool that raises is a `tool_error` (isError), and the session stays up."""
        pid = conn.pid
        outcome = await conn.call("fail", {"reason": "nope"})
        assert outcome.outcome is OutcomeClass.TOOL_ERROR
        assert conn.pid == pid

    async def test_excerpt_is_bounded(self, conn: ServerConnection) -> None:
        """A result over max_output_bytes is cut, flagged, and its full size recorded."""
        outcome = await conn.call("echo", {"text": "é" * 5000})
        assert outcome.truncated and outcome.output_bytes == 10000
        assert len(outcome.excerpt.encode()) <= LIMITS.max_output_bytes

    async def test_concurrent_calls(self, conn: ServerConnection) -> None:
        """Many calls in flight on one session all get their own answers."""
        outcomes = await asyncio.gather(*(conn.call("add", {"a": i, "b": 1}) for i in range(40)))
        assert [o.structured for o in outcomes] == [{"total": i + 1} for i in range(40)]


class TestStopping:
    async def test_graceful_close_lets_the_server_exit_and_a_terminating_one_does_not_wait(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        """close() closes stdin and the server exits on its own (status 0); close(graceful=False),
        what a sandbox does before deleting the instance, SIGTERMs the group at once. The grace is widened: on a
        loaded machine a Python server's own exit takes longer than the half second a build grants it."""
        monkeypatch.setattr(stdio, "GRACEFUL_EXIT_TIMEOUT", 30.0)
        for graceful, status in ((True, 0), (False, -signal.SIGTERM)):
            connection = ServerConnection("faulty", faulty(), LIMITS)
            await connection.start()
            process = connection._session.process if connection._session else None
            assert process is not None and process.returncode is None
            await connection.close(graceful=graceful)
            assert process.returncode == status
            with pytest.raises(ProcessLookupError):
                os.killpg(process.pid, 0)  # the whole group is gone


class TestFaults:
    async def test_exit_mid_call_is_a_crash(self, conn: ServerConnection) -> None:
        """A server that exits mid-call yields `crash` with its stderr, then restarts on the next call."""
        pid = conn.pid
        t0 = time.perf_counter()
        outcome = await conn.call("crash")
        assert outcome.outcome is OutcomeClass.CRASH
        assert time.perf_counter() - t0 < LIMITS.call_timeout_s
        assert "exit code 3" in outcome.excerpt
        assert "crashing on purpose" in outcome.stderr_tail
        await assert_usable(conn)
        assert conn.pid != pid and conn.restarts == 1

    async def test_no_answer_is_a_timeout(self, conn: ServerConnection) -> None:
        """A server that never answers yields `timeout` at the call timeout and is replaced."""
        pid = conn.pid
        outcome = await conn.call("hang", timeout=1.0)
        assert outcome.outcome is OutcomeClass.TIMEOUT
        assert 0.9 < outcome.latency_ms / 1000 < 2.5
        await assert_usable(conn)
        assert conn.pid != pid

    async def test_output_breaking_its_schema_is_a_protocol_error(self, conn: ServerConnection) -> None:
        """Structured output that breaks the tool's output schema never arrives as `ok` (the MCP
        client validates every successful result: what lets the executor's verifier skip it)."""
        good = await conn.call("add", {"a": 2, "b": 3})
        assert good.outcome is OutcomeClass.OK and good.structured == {"total": 5}
        bad = await conn.call("misshapen", {"a": 2, "b": 3})
        assert bad.outcome is OutcomeClass.PROTOCOL_ERROR
        assert "invalid result" in bad.excerpt and "total" in bad.excerpt
        await assert_usable(conn)

    async def test_sessions_share_compiled_output_validators(self, conn: ServerConnection) -> None:
        """A second session of the same server (another sandbox, or a restart) gets the compiled
        output-schema validators of the first instead of compiling its own, and still refuses a
        result that breaks the schema."""
        async with ServerConnection("faulty-2", faulty(), LIMITS) as other:
            mine = conn._session.client.session._tool_output_validators
            theirs = other._session.client.session._tool_output_validators
            assert "add" in mine and "misshapen" in mine
            assert theirs["add"] is mine["add"] and theirs["misshapen"] is mine["misshapen"]
            assert (await other.call("add", {"a": 1, "b": 1})).outcome is OutcomeClass.OK
            assert (await other.call("misshapen", {"a": 1, "b": 1})).outcome is OutcomeClass.PROTOCOL_ERROR
        await conn.restart()
        assert conn._session.client.session._tool_output_validators["add"] is mine["add"]

    async def test_garbage_on_stdout_is_a_protocol_error(self, conn: ServerConnection) -> None:
        """A non-JSON line on the wire during a call yields `protocol_error` naming the garbage."""
        outcome = await conn.call("garbage")
        assert outcome.outcome is OutcomeClass.PROTOCOL_ERROR
        assert "this is not json-rpc" in outcome.excerpt
        await assert_usable(conn)

    async def test_flood_is_a_protocol_error(self, conn: ServerConnection) -> None:
        """A message over max_message_bytes is dropped unread and yields `protocol_error`."""
        outcome = await conn.call("flood", {"megabytes": 8})
        assert outcome.outcome is OutcomeClass.PROTOCOL_ERROR
        assert "exceeded" in outcome.excerpt
        await assert_usable(conn)

    async def test_stderr_flood_never_blocks(self, conn: ServerConnection) -> None:
        """A server writing megabytes to stderr still answers; we keep only a bounded tail."""
        outcome = await conn.call("chatty", {"lines": 100_000})
        assert outcome.outcome is OutcomeClass.OK
        assert 0 < len(conn.stderr_tail(10**9)) <= 16 * 1024

    async def test_unknown_tool(self, conn: ServerConnection) -> None:
        """Calling a tool the server does not have is reported, not raised."""
        outcome = await conn.call("no_such_tool")
        assert outcome.outcome in (OutcomeClass.TOOL_ERROR, OutcomeClass.PROTOCOL_ERROR)
        await assert_usable(conn)

    async def test_every_fault_in_a_row(self, conn: ServerConnection) -> None:
        """Crash, hang, garbage and flood back to back: each classified, the session recovers each time."""
        expected = {"crash": OutcomeClass.CRASH, "hang": OutcomeClass.TIMEOUT, "garbage": OutcomeClass.PROTOCOL_ERROR}
        for tool, outcome_class in expected.items():
            outcome = await conn.call(tool, timeout=1.0)
            assert outcome.outcome is outcome_class, tool
        await assert_usable(conn)
        assert conn.restarts == 3


class TestRawCalls:
    """What a proxy needs: the server's answers untouched, as JSON objects or as its JSON-RPC error."""

    async def test_result_as_the_server_sent_it(self) -> None:
        """A result is the JSON object on the wire: content, structuredContent, isError, _meta."""
        async with ServerConnection("paged", paged(), LIMITS, mode="legacy") as conn:
            result = await conn.call_raw("tool_02", {"text": "hi"})
        assert result == {"_meta": {"paged/served-by": "tool_02"}, "content": [{"text": "hi", "type": "text"}],
                          "isError": False, "structuredContent": {"echo": "hi", "tool": "tool_02"}}

    async def test_tool_error_is_a_result(self, conn: ServerConnection) -> None:
        """An isError answer is a result like any other."""
        result = await conn.call_raw("fail", {"reason": "nope"})
        assert isinstance(result, dict) and result["isError"] is True

    async def test_jsonrpc_error_is_kept_whole(self) -> None:
        """A JSON-RPC error from the server comes back as its ErrorData: code, message and data."""
        async with ServerConnection("paged", paged(), LIMITS, mode="legacy") as conn:
            error = await conn.call_raw("no_such_tool", {"text": "x"})
            assert isinstance(error, types.ErrorData)
            assert error.code == types.INVALID_PARAMS and error.message == "Unknown tool: no_such_tool"
            assert error.data == {"known": [f"tool_{i:02d}" for i in range(7)]}
            assert (await conn.call_raw("tool_00", {"text": "after"}))["content"][0]["text"] == "after"

    async def test_no_answer_is_the_failed_outcome(self, conn: ServerConnection) -> None:
        """A crash is the same failed outcome call() gives, and the server is restarted on the next call."""
        outcome = await conn.call_raw("crash")
        assert isinstance(outcome, CallOutcome) and outcome.outcome is OutcomeClass.CRASH
        assert (await conn.call_raw("echo", {"text": "back"}))["content"][0]["text"] == "back"

    async def test_every_page_of_tools(self) -> None:
        """tools/list pages are followed to the end, each tool the server's JSON."""
        async with ServerConnection("paged", paged(), LIMITS, mode="legacy") as conn:
            tools = await conn.list_tools_raw()
        assert isinstance(tools, list)
        assert [t["name"] for t in tools] == [f"tool_{i:02d}" for i in range(7)]
        assert tools[0]["outputSchema"]["properties"]["tool"] == {"type": "string"}


class TestStartFailures:
    async def test_server_that_exits_at_start(self) -> None:
        """A server that exits before the handshake raises ServerStartError with its stderr."""
        connection = ServerConnection("faulty", faulty("--crash-on-start"), LIMITS)
        with pytest.raises(ServerStartError) as info:
            await connection.start()
        assert "refusing to start" in info.value.stderr_tail
        await connection.close()

    async def test_server_that_hangs_at_start(self) -> None:
        """A server that never completes the handshake raises ServerStartError at the start timeout."""
        limits = Limits(start_timeout_s=1.0, max_restarts=0)
        connection = ServerConnection("faulty", faulty("--hang-on-start"), limits)
        t0 = time.perf_counter()
        with pytest.raises(ServerStartError, match="no MCP handshake"):
            await connection.start()
        assert time.perf_counter() - t0 < 5
        await connection.close()

    async def test_missing_executable(self) -> None:
        """A command that does not exist raises ServerStartError naming the problem."""
        connection = ServerConnection("ghost", StdioLaunch("/nonexistent/mcp-server"), Limits(max_restarts=0))
        with pytest.raises(ServerStartError, match="nonexistent|No such file"):
            await connection.start()

    async def test_banner_before_handshake_is_tolerated(self) -> None:
        """A non-JSON banner printed before any call is logged, not fatal."""
        async with ServerConnection("faulty", faulty("--banner"), LIMITS) as connection:
            await assert_usable(connection)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class TestStreamableHttp:
    async def test_calls_over_http(self) -> None:
        """The same client layer talks to a server over streamable HTTP."""
        port = free_port()
        command, args = faulty_server_command("--http", str(port))
        process = subprocess.Popen([command, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                with socket.socket() as sock:
                    if sock.connect_ex(("127.0.0.1", port)) == 0:
                        break
                await asyncio.sleep(0.1)
            async with ServerConnection("faulty-http", HttpEndpoint(f"http://127.0.0.1:{port}/mcp"), LIMITS) as conn:
                assert "add" in {t.name for t in conn.tools}
                outcome = await conn.call("add", {"a": 20, "b": 22})
                assert outcome.outcome is OutcomeClass.OK and outcome.structured == {"total": 42}
                failure = await conn.call("fail")
                assert failure.outcome is OutcomeClass.TOOL_ERROR
        finally:
            process.terminate()
            process.wait(timeout=10)
            assert sys.executable
