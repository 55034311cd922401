"""Real filesystem-server calls (once per module), a scripted LLM endpoint per test, an LlmClient on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from rollout_kit import RealCalls, Scenario, make_real_calls, scenario, settings_for

from toolatlas.llm import LlmClient
from toolatlas.testing.openai_script import Script
from toolatlas.testing.openai_server import ScriptedOpenAIServer


@pytest.fixture(scope="module")
def real_calls() -> RealCalls:
    return make_real_calls()


@pytest.fixture()
def scene(real_calls: RealCalls) -> Scenario:
    return scenario(real_calls)


@pytest.fixture()
def endpoint() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(Script()) as running:
        yield running


@pytest.fixture()
async def llm(endpoint: ScriptedOpenAIServer) -> AsyncIterator[LlmClient]:
    async with LlmClient(settings_for(endpoint)) as client:
        yield client
