"""Agents against the scripted OpenAI-compatible server (real HTTP) and real demo MCP servers in sandboxes.

Each test scripts the model as a policy over the conversation it receives: the turn number is
the number of assistant messages so far, and the tool messages carry what the real server
answered, so a scripted model can act on real outputs (read a listing, then open a file in it).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from toolatlas.config import LlmSettings, load_catalogue
from toolatlas.home import Home
from toolatlas.llm import LlmClient
from toolatlas.sandbox import Sandbox
from toolatlas.tasks.models import TaskOrigin, TaskSpec, TaskVerifier
from toolatlas.testing.openai_script import Fault, Reply, Script
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.testing.openai_wire import ChatRequest
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
DEMO = load_catalogue(REPO / "configs" / "demo.toml")
MODEL = "scripted-model"

Turn = Callable[[ChatRequest], Reply | Fault | str]


def turn_of(request: ChatRequest) -> int:
    """Which turn the request is for: the assistant messages already in the conversation."""
    return sum(1 for message in request.messages if message["role"] == "assistant")


def tool_outputs(request: ChatRequest) -> list[str]:
    """The contents of the tool messages the agent sent back, oldest first."""
    return [str(message.get("content") or "") for message in request.tool_results]


def root_of(request: ChatRequest) -> str:
    """The instance root the task text names (the runner fills ``${root}``)."""
    match = re.search(r"(/\S+/state/root)\b", request.messages[1]["content"])
    assert match, f"no root path in the task: {request.messages[1]['content']!r}"
    return match.group(1)


def turns(*steps: Turn | Reply | str) -> Callable[[ChatRequest], Reply | Fault | str]:
    """A policy answering turn i with ``steps[i]`` (a reply, or a function of the request)."""

    def policy(request: ChatRequest) -> Reply | Fault | str:
        step = steps[min(turn_of(request), len(steps) - 1)]
        return step(request) if callable(step) else step

    return policy


def make_task(
    text: str,
    *,
    server: str = "filesystem",
    origin: TaskOrigin = TaskOrigin.BOOTSTRAP,
    targets: list[str] | None = None,
) -> TaskSpec:
    return TaskSpec(
        id=TaskSpec.make_id(server, origin, text),
        server=server,
        origin=origin,
        text=text,
        targets=targets or [],
        verifier=TaskVerifier(kind="assertions"),
    )


@pytest.fixture()
def script() -> Script:
    return Script()


@pytest.fixture()
def endpoint(script: Script) -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(script) as running:
        yield running


@pytest.fixture()
async def llm(endpoint: ScriptedOpenAIServer) -> AsyncIterator[LlmClient]:
    settings = LlmSettings(
        base_url=endpoint.base_url,
        model=MODEL,
        timeout_s=5.0,
        max_retries=2,
        backoff_base_s=0.005,
        backoff_cap_s=0.02,
    )
    async with LlmClient(settings) as client:
        yield client


@pytest.fixture(scope="module")
def workspace() -> Workspace:
    return Workspace(DEMO, Home(REPO / ".toolatlas"))


@pytest.fixture()
async def filesystem(workspace: Workspace) -> AsyncIterator[Sandbox]:
    async with workspace.sandbox("filesystem") as sandbox:
        yield sandbox


@pytest.fixture()
async def memory(workspace: Workspace) -> AsyncIterator[Sandbox]:
    async with workspace.sandbox("memory") as sandbox:
        yield sandbox


def snapshot_file(sandbox: Sandbox, relative: str) -> str:
    """A file of the filesystem snapshot, read from disk (what a correct read must return)."""
    return (Path(sandbox.snapshot.path) / relative).read_text()
