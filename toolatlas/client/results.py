"""Normalising what a server says into our typed models: tools into :class:`ToolSpec`, results into :class:`CallOutcome`."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

import mcp_types as types

from toolatlas.models import CallOutcome, OutcomeClass, ToolAnnotations, ToolSpec

__all__ = ["bounded_text", "outcome_from_result", "tool_spec_from_mcp"]


def tool_spec_from_mcp(server: str, tool: types.Tool) -> ToolSpec:
    hints = tool.annotations
    annotations = (
        ToolAnnotations(
            title=hints.title,
            read_only=hints.read_only_hint,
            destructive=hints.destructive_hint,
            idempotent=hints.idempotent_hint,
            open_world=hints.open_world_hint,
        )
        if hints is not None
        else ToolAnnotations()
    )
    return ToolSpec(
        server=server,
        name=tool.name,
        description=tool.description or "",
        input_schema=dict(tool.input_schema or {}),
        output_schema=dict(tool.output_schema) if tool.output_schema else None,
        annotations=annotations,
    )


def bounded_text(text: str, max_bytes: int) -> tuple[str, int, bool]:
    """``(excerpt, full size in bytes, truncated?)`` with the excerpt cut on a UTF-8 boundary."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= max_bytes:
        return text, len(data), False
    return data[:max_bytes].decode("utf-8", errors="ignore"), len(data), True


def _block_text(block: Any) -> str:
    match block:
        case types.TextContent():
            return block.text
        case types.ImageContent() | types.AudioContent():
            size = len(base64.b64decode(block.data, validate=False)) if block.data else 0
            return f"[{block.type} {block.mime_type}, {size} bytes]"
        case types.EmbeddedResource():
            resource = block.resource
            text = getattr(resource, "text", None)
            return text if text is not None else f"[resource {resource.uri}, {resource.mime_type or 'binary'}]"
        case types.ResourceLink():
            return f"[resource link {block.uri}]"
    return f"[{getattr(block, 'type', 'unknown')} content]"


def _says(text: str, structured: Any) -> bool:
    """Whether a result's text already holds its structured content: the same JSON, or the one string a framework
    wrapped (``{"result": "<the text>"}``). A text that only sums it up (``FrameCite returned a bounded structured
    result``) does not, and the answer's evidence then shows the structured content after it."""
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = _NOT_JSON
    if parsed == structured:
        return True
    values = list(structured.values()) if isinstance(structured, dict) else [structured]
    if len(values) != 1:
        return False
    (value,) = values
    if not isinstance(value, dict | list):  # {"result": "<the text>"}, a number said in it
        return value == text or str(value) in text
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and text == "\n".join(value):
        return True  # a list of strings, one text block each
    return parsed == value


_NOT_JSON = object()
"""What a text that does not parse as JSON is taken for: equal to no structured content."""


def outcome_from_result(
    *,
    server: str,
    tool: str,
    arguments: dict[str, Any],
    result: types.CallToolResult,
    latency_ms: float,
    started_at: datetime,
    max_output_bytes: int,
) -> CallOutcome:
    text = "\n".join(_block_text(block) for block in result.content)
    structured = result.structured_content
    if structured is not None and not _says(text, structured):  # the data only a structured reader sees
        shown = json.dumps(structured, ensure_ascii=False, default=str)
        text = f"{text}\n{shown}" if text.strip() else shown
    excerpt, size, truncated = bounded_text(text, max_output_bytes)
    if structured is not None:
        if not isinstance(structured, dict):
            structured = {"value": structured}
        if len(json.dumps(structured, default=str)) > max_output_bytes:
            structured, truncated = None, True
    return CallOutcome(
        server=server,
        tool=tool,
        arguments=arguments,
        outcome=OutcomeClass.TOOL_ERROR if result.is_error else OutcomeClass.OK,
        excerpt=excerpt,
        output_bytes=size,
        truncated=truncated,
        structured=structured,
        latency_ms=latency_ms,
        started_at=started_at,
    )
