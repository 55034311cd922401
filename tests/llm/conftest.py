"""The scripted OpenAI-compatible server on a free port, with an empty script per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from toolatlas.testing.openai_script import Script
from toolatlas.testing.openai_server import ScriptedOpenAIServer


@pytest.fixture()
def server() -> Iterator[ScriptedOpenAIServer]:
    """A running scripted server with an empty script (each test adds its rules)."""
    with ScriptedOpenAIServer(Script()) as running:
        yield running
