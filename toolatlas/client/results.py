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
    excerpt, size, truncated = bounded_text(text, max_output_bytes)
    structured = result.structured_content
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
