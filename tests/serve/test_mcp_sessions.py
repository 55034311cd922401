"""``/mcp`` with and without sessions, over real HTTP: stateless JSON answers by default; with
``serve --mcp-sessions`` a session id, server-sent event streams, a GET stream and DELETE."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from service_process import TOKEN, BuiltAtlas, mcp_over_http, start_service

from toolatlas.cli import main
from toolatlas.serve.process import ServiceProcess

pytestmark = pytest.mark.servers

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json",
          "mcp-protocol-version": "2025-11-25"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}


@pytest.fixture(scope="module")
def with_sessions(built: BuiltAtlas) -> Iterator[ServiceProcess]:
    """``toolatlas serve CONFIG --transport http --mcp-sessions --token …``."""
    running = start_service(str(built.config), "--mcp-sessions", token=TOKEN)
    yield running
    running.stop()


def _initialize(http: httpx.Client) -> httpx.Response:
    return http.post("/mcp", json=INITIALIZE, headers=ACCEPT)


class TestMcpSessions:
    def test_stateless_by_default(self, service: ServiceProcess) -> None:
        """Without --mcp-sessions an initialize gets a plain JSON answer and no session id."""
        with httpx.Client(base_url=service.url, headers=service.headers, timeout=10.0) as http:
            answer = _initialize(http)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/json")
        assert "mcp-session-id" not in answer.headers

    def test_a_session_streams_and_ends(self, with_sessions: ServiceProcess) -> None:
        """With --mcp-sessions: a session id, an event-stream answer, a GET stream of the session, DELETE ends it."""
        with httpx.Client(base_url=with_sessions.url, headers=with_sessions.headers, timeout=10.0) as http:
            answer = _initialize(http)
            assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
            session = {**ACCEPT, "mcp-session-id": answer.headers["mcp-session-id"]}
            assert '"serverInfo"' in answer.text
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert http.post("/mcp", json=initialized, headers=session).status_code == 202
            with http.stream("GET", "/mcp", headers={**session, "accept": "text/event-stream"}) as stream:
                assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
            assert http.delete("/mcp", headers=session).status_code == 200
            listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
            assert http.post("/mcp", json=listing, headers=session).status_code == 404

    async def test_the_sdk_client_gets_guidance_in_a_session(self, with_sessions: ServiceProcess) -> None:
        """The SDK's client works against the stateful endpoint as against the stateless one."""
        async with mcp_over_http(with_sessions.url, with_sessions.headers) as client:
            result = await client.call_tool("get_guidance", {"task": "What time is it in Tokyo right now?"})
        assert not result.is_error and result.structured_content["tools"]

    def test_sessions_need_one_process(self, built: BuiltAtlas, capsys: pytest.CaptureFixture[str]) -> None:
        """Sessions with several workers, or over stdio, are refused with the reason."""
        assert main(["serve", str(built.config), "--transport", "http", "--mcp-sessions", "--workers", "2"]) == 2
        assert "needs --engine uvicorn --workers 1" in capsys.readouterr().err
        assert main(["serve", str(built.config), "--mcp-sessions"]) == 2
        assert "add --transport http" in capsys.readouterr().err
