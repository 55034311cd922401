"""CodeAct snippets drive a real MCP server (the demo ``memory`` server) through the bridge, confined."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from toolatlas.codebox import RunPolicy, RunStatus, ViolationRule, check_not_vacuous, run_code, run_verifier
from toolatlas.config import load_catalogue
from toolatlas.home import Home
from toolatlas.models import OutcomeClass
from toolatlas.sandbox import Sandbox
from toolatlas.workspace import Workspace

pytestmark = pytest.mark.servers

REPO = Path(__file__).resolve().parents[2]
DEMO = load_catalogue(REPO / "configs" / "demo.toml")

CREATE_AND_SEARCH = """
created = tools.create_entities(entities=[
    {"name": "Codebox", "entityType": "tool", "observations": ["runs agent snippets"]}
])
print("created:", created.outcome)
found = call_tool("search_nodes", {"query": "Codebox"})
names = [entity["name"] for entity in found.json()["entities"]]
print("found:", names)
"""


@pytest.fixture()
async def memory() -> AsyncIterator[Sandbox]:
    async with Workspace(DEMO, Home(REPO / ".toolatlas")).sandbox("memory") as sandbox:
        yield sandbox


def names(sandbox: Sandbox) -> list[str]:
    return [tool.name for tool in sandbox.tools]


class TestBridge:
    async def test_a_snippet_calls_real_tools_and_every_call_is_recorded(self, memory: Sandbox) -> None:
        """Stub and call_tool reach the live server; the output is the observation; calls are recorded in order."""
        result = await run_code(CREATE_AND_SEARCH, memory.call, names(memory))
        assert result.status is RunStatus.OK, result.observation
        assert result.observation == "created: ok\nfound: ['Codebox']"
        assert [(call.tool, call.outcome) for call in result.calls] == [
            ("create_entities", OutcomeClass.OK),
            ("search_nodes", OutcomeClass.OK),
        ]
        assert result.calls[1].arguments == {"query": "Codebox"}
        # The effect is real: the server, asked directly, knows the entity.
        check = await memory.call("open_nodes", {"names": ["Codebox"]})
        assert "runs agent snippets" in check.excerpt

    async def test_the_frozen_effect_satisfies_a_vetted_verifier(self, memory: Sandbox) -> None:
        """Snippet → frozen post-state → a verifier accepted by the vacuity check passes on it."""
        result = await run_code(CREATE_AND_SEARCH, memory.call, names(memory))
        assert result.status is RunStatus.OK
        frozen = await memory.freeze_and_reset()
        try:
            verifier = """
def verify(state, answer):
    entity = [r for r in state.records() if r.get("name") == "Codebox"]
    assert entity, "no Codebox entity"
    return "runs agent snippets" in entity[0]["observations"]
"""
            report = await check_not_vacuous(verifier, memory.snapshot, frozen, requires_change=True)
            assert report.accepted, report.reason
            assert (await run_verifier(verifier, frozen)).passed
        finally:
            await memory.discard(frozen)

    async def test_a_tool_error_is_data_in_the_snippet(self, memory: Sandbox) -> None:
        """A failing tool returns a result with is_error set; the snippet carries on."""
        source = """
bad = tools.create_relations(relations="not a list")
print(bad.is_error, bad.outcome)
print(tools.read_graph().outcome)
"""
        result = await run_code(source, memory.call, names(memory))
        assert result.status is RunStatus.OK, result.observation
        first, second = result.observation.splitlines()
        assert first in ("True tool_error", "True protocol_error")
        assert second == "ok"
        assert [call.ok for call in result.calls] == [False, True]

    async def test_the_call_limit_refuses_further_calls(self, memory: Sandbox) -> None:
        """Beyond ``max_tool_calls`` calls are refused inside the snippet and never reach the server."""
        source = """
for attempt in range(4):
    try:
        tools.read_graph()
        print("called")
    except ToolCallRefused as refusal:
        print("refused:", refusal)
"""
        result = await run_code(source, memory.call, names(memory), policy=RunPolicy(max_tool_calls=2))
        assert (
            result.observation.splitlines()
            == ["called", "called"] + ["refused: the limit of 2 tool calls per snippet is reached"] * 2
        )
        assert len(result.calls) == 2 and result.refused_calls == 2

    async def test_unknown_tools_are_refused(self, memory: Sandbox) -> None:
        """A name the server does not have is refused (and counted); a missing stub is an AttributeError."""
        source = "try:\n    call_tool('drop_everything')\nexcept Exception as e:\n    print(e)\ntools.drop_everything()"
        result = await run_code(source, memory.call, names(memory))
        assert result.status is RunStatus.ERROR
        assert result.observation.splitlines()[0].startswith(
            "no tool 'drop_everything'; tools: create_entities"
        )
        assert result.detail.startswith("AttributeError: no tool 'drop_everything'")
        assert result.calls == [] and result.refused_calls == 1

    async def test_a_timeout_mid_calls_kills_the_snippet_and_leaves_the_server_usable(
        self, memory: Sandbox
    ) -> None:
        """A snippet looping over tool calls hits the wall clock; its calls so far are kept; the server still answers."""
        source = "import os\ncall_tool('read_graph', {})\nwhile True:\n    tools.search_nodes(query=str(os.getpid()))"
        result = await run_code(
            source, memory.call, names(memory), timeout=1.5, policy=RunPolicy(max_tool_calls=10_000)
        )
        assert result.status is RunStatus.TIMEOUT
        assert len(result.calls) >= 2
        pid = int(result.calls[-1].arguments["query"])
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert (await memory.call("read_graph", {})).ok


class TestConfinement:
    async def test_the_server_state_is_out_of_reach_except_through_tools(self, memory: Sandbox) -> None:
        """The snippet cannot read (or write) the server's state file directly: only tool calls touch it;
        the attempted read is a violation, not merely an error."""
        state_file = memory.variables()["file"]
        result = await run_code(f"print(open({state_file!r}).read())", memory.call, names(memory))
        assert result.status is RunStatus.VIOLATION
        assert result.violations[0].rule is ViolationRule.READ_OUTSIDE
        assert result.detail == f"read_outside: open {state_file!r} for reading"
        assert "Ada Lovelace" not in result.stdout
        write = await run_code(f"open({state_file!r}, 'a').write('{{}}')", memory.call, names(memory))
        assert write.status is RunStatus.VIOLATION
        assert json.loads((await memory.call("read_graph", {})).excerpt)["entities"]

    async def test_network_write_and_subprocess_are_violations(self, memory: Sandbox, tmp_path: Path) -> None:
        """The same guards as for verifiers, with a live bridge in the snippet's reach."""
        marker = tmp_path / "escaped"
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen()
            port = listener.getsockname()[1]
            attempts = {
                ViolationRule.NETWORK: f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)",
                ViolationRule.WRITE_OUTSIDE: f"tools.read_graph()\nopen({str(marker)!r}, 'w')",
                ViolationRule.SUBPROCESS: f"import subprocess\nsubprocess.run(['touch', {str(marker)!r}])",
            }
            for rule, source in attempts.items():
                result = await run_code(source, memory.call, names(memory))
                assert result.status is RunStatus.VIOLATION, result
                assert result.violations[0].rule is rule
                assert f"[violation] {rule.value}" in result.observation
            listener.setblocking(False)
            with pytest.raises(BlockingIOError):
                listener.accept()
        assert not marker.exists()
