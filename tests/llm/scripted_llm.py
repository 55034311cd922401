"""Helpers for the LLM tests: settings pointing at the scripted server, and tagged conversations."""

from __future__ import annotations

from typing import Any

from toolatlas.config import LlmSettings
from toolatlas.llm import role_tag
from toolatlas.testing.openai_server import ScriptedOpenAIServer

MODEL = "scripted-model"


def settings_for(endpoint: ScriptedOpenAIServer | str, **overrides: Any) -> LlmSettings:
    """Settings for the scripted server (or a URL) with millisecond backoffs, so retry tests stay fast."""
    values: dict[str, Any] = {
        "base_url": endpoint if isinstance(endpoint, str) else endpoint.base_url,
        "model": MODEL,
        "timeout_s": 2.0,
        "max_retries": 2,
        "backoff_base_s": 0.005,
        "backoff_cap_s": 0.02,
    }
    return LlmSettings(**(values | overrides))


def conversation(role: str, user: str) -> list[dict[str, str]]:
    """A system prompt opening with the role tag, and one user message."""
    return [
        {"role": "system", "content": f"{role_tag(role)}\nYou are a test."},
        {"role": "user", "content": user},
    ]
