"""What a call's answer is taken to say: its text, and its structured content where the text does not hold it."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import mcp_types as types

from toolatlas.client.results import outcome_from_result


def answered(text: str, structured: dict | None) -> str:
    result = types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                  structured_content=structured, is_error=False)
    return outcome_from_result(server="s", tool="t", arguments={}, result=result, latency_ms=1.0,
                               started_at=datetime.now(UTC), max_output_bytes=10_000).excerpt


def test_structured_content_a_summary_text_leaves_out_is_shown_after_it() -> None:
    """A text that only sums the answer up is followed by the structured content (what an agent's client reads);
    a text that is the same JSON, a framework's ``{"result": <the text>}`` or a number the text says is left alone."""
    data = {"qname_filter": {"redacted": True, "token": "dns-35b5"}, "findings": []}
    summary = "FrameCite returned a bounded structured result; packet payloads remain redacted."
    shown = answered(summary, data)
    assert shown.startswith(summary) and json.loads(shown.split("\n", 1)[1]) == data
    assert answered(json.dumps(data), data) == json.dumps(data)
    assert answered("Saved.", {"result": "Saved."}) == "Saved."
    assert answered("3 notes found", {"count": 3}) == "3 notes found"
    assert answered('{"a": 1}', {"result": {"a": 1}}) == '{"a": 1}'
    assert answered("a\nb", {"result": ["a", "b"]}) == "a\nb"
    assert answered("plain", None) == "plain"
