"""What the proxy adds to a server: an ``Atlas:`` block in each tool's description, and a guidance tool.

The block says, within a character budget, what executing the tool verified: a use that worked
(with arguments that worked), the boundaries where it fails with the exact error the server
gives, and the tools it composes with. Boundaries of the tool's domain (a path outside the
allowed directory, a missing entity) come before schema violations, which the input schema
already tells an agent about.

The atlas was built in sandboxes, so its texts name their paths as ``${root}``, ``${home}``…;
:class:`Placeholders` fills them with the values of the environment the proxied server really
runs against, so errors and example arguments read as the agent will meet them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import anyio

from toolatlas.errors import ToolAtlasError
from toolatlas.guidance import Atlas, BoundaryNote, CompositionNote, ToolGuidance, UseNote
from toolatlas.models import ToolSpec

__all__ = [
    "DESCRIPTION_BUDGET",
    "GUIDANCE_TOOL",
    "GuidanceTool",
    "Placeholders",
    "ToolNotes",
    "require_server",
]

DESCRIPTION_BUDGET = 700
"""Characters of atlas notes appended to one tool description (header included)."""
LINE_LIMIT = 280
"""Characters of one note line; a longer one is cut."""
EXAMPLE_LIMIT = 160
"""Example arguments longer than this (as JSON) are left out of the use line."""
ERROR_LIMIT = 160
"""Characters of a boundary's error quoted (its first line)."""
HEADER = "Atlas (verified by executing this tool):"
STALE_SCHEMA = "- (These notes were verified on an earlier version of this tool's schema.)"
GUIDANCE_TOOL = "atlas_guidance"
"""The guidance tool's name, unless the server already has a tool of that name."""
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
TASK_MAX_CHARS = 2000
MAX_TOKENS_RANGE = (100, 4000)
DEFAULT_MAX_TOKENS = 1200

_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SCHEMA_VIOLATION = re.compile(
    r"validation error|invalid arguments|is not of type|required property|missing required"
    r"|invalid input: expected",
    re.IGNORECASE,
)
"""Error texts of arguments the input schema already rules out (a heuristic: it only orders notes)."""
_OUTCOME_WORDS = {
    "tool_error": "error",
    "protocol_error": "protocol error",
    "timeout": "no answer (timeout)",
    "crash": "the server crashes",
    "ok": "error text in a successful result",
}


class Placeholders:
    """Fills the ``${name}`` placeholders of atlas texts with known values; unknown ones stay."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = dict(values)

    def fill(self, text: str) -> str:
        if "${" not in text:
            return text
        return _PLACEHOLDER.sub(lambda m: self.values.get(m.group(1), m.group(0)), text)

    def fill_json(self, value: Any) -> Any:
        """The same value with every string in it filled."""
        if isinstance(value, str):
            return self.fill(value)
        if isinstance(value, list):
            return [self.fill_json(v) for v in value]
        if isinstance(value, dict):
            return {k: self.fill_json(v) for k, v in value.items()}
        return value


def require_server(atlas: Atlas, server: str) -> None:
    """An atlas that knows nothing of the proxied server is a mistake (wrong name or atlas), not an empty proxy."""
    if server not in atlas.servers:
        known = ", ".join(atlas.servers) or "none: build it first with `toolatlas build`"
        raise ToolAtlasError(f"the atlas {atlas.name!r} knows nothing of server {server!r} (it has: {known})")


def _cut(text: str, limit: int = LINE_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class ToolNotes:
    """The atlas's notes on one server's tools, rendered as ``Atlas:`` blocks for tool descriptions."""

    def __init__(
        self, atlas: Atlas, server: str, placeholders: Placeholders, *, budget: int = DESCRIPTION_BUDGET
    ) -> None:
        require_server(atlas, server)
        self.server = server
        self.placeholders = placeholders
        self.budget = budget
        keys = [key for key in atlas.view.tool_keys if key[0] == server]
        self.schema_hashes = {tool: atlas.view.tool_nodes[(server, tool)].schema_hash for _, tool in keys}
        self.blocks: dict[str, str] = {}
        for _, tool in keys:
            block = self.render(atlas.read_tool(server, tool))
            if block:
                self.blocks[tool] = block

    def annotate(self, tool: dict[str, Any]) -> dict[str, Any]:
        """The tool as the server listed it, with the atlas block appended to its description (only)."""
        block = self.blocks.get(tool.get("name", ""))
        if block is None:
            return tool
        if _schema_hash(tool) != self.schema_hashes.get(tool["name"]):
            block = f"{block}\n{STALE_SCHEMA}"
        description = tool.get("description") or ""
        return {**tool, "description": f"{description}\n\n{block}" if description else block}

    def render(self, notes: ToolGuidance) -> str:
        """The block for one tool: the most useful lines that fit the budget, in a fixed order."""
        boundaries = sorted(notes.when_not, key=lambda b: bool(_SCHEMA_VIOLATION.search(b.error)))
        candidates = [
            *[self._use_line(notes.tool, u) for u in notes.when[:1]],
            *[self._boundary_line(b) for b in boundaries[:2]],
            *[self._composition_line(c) for c in notes.compositions[:1]],
            *[self._boundary_line(b) for b in boundaries[2:3]],
            *[self._use_line(notes.tool, u) for u in notes.when[1:2]],
            *[self._composition_line(c) for c in notes.compositions[1:2]],
        ]
        lines: list[str] = []
        room = self.budget - len(HEADER)
        for line in candidates:
            if len(line) + 1 <= room:
                lines.append(line)
                room -= len(line) + 1
        return "\n".join([HEADER, *lines]) if lines else ""

    def _use_line(self, tool: str, use: UseNote) -> str:
        text = self.placeholders.fill(_without_subject(use.text, tool))
        example = ""
        if use.example_arguments:
            example = json.dumps(self.placeholders.fill_json(use.example_arguments), ensure_ascii=False)
        if example and len(example) <= EXAMPLE_LIMIT:
            text = f"{text.rstrip('.')}, e.g. {example}"
        return _cut(f"- {text[0].upper()}{text[1:]}" if text.startswith("works ") else f"- Works: {text}")

    def _boundary_line(self, boundary: BoundaryNote) -> str:
        if boundary.cut:  # the call went through, its answer cut at the limit the description states
            error = _cut(self.placeholders.fill(boundary.error), ERROR_LIMIT)
            return _cut(f"- Answer cut at its stated limit when {self.placeholders.fill(boundary.condition)}: "
                        f"\"{error}\"")
        outcome = _OUTCOME_WORDS.get(boundary.outcome, boundary.outcome or "error")
        if boundary.reported_as_success:
            outcome = "error reported as success (isError false)"
        error = _cut(self.placeholders.fill(boundary.error), ERROR_LIMIT)
        return _cut(f"- Fails when {self.placeholders.fill(boundary.condition)} → {outcome}: \"{error}\"")

    def _composition_line(self, composition: CompositionNote) -> str:
        return _cut(f"- Composes ({composition.relation}): {self.placeholders.fill(composition.text)}")


def _without_subject(text: str, tool: str) -> str:
    """``"`tool` (what it does) works given …"`` → ``"works given …"`` (the description says what it does)."""
    prefix = f"`{tool}` ("
    if text.startswith(prefix):
        depth, index = 1, len(prefix)
        while index < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[index], 0)
            index += 1
        if depth == 0:
            return text[index:].strip()
    return text


def _schema_hash(tool: Mapping[str, Any]) -> str:
    """The atlas's hash of a tool's interface, from the tool as the server lists it."""
    return ToolSpec(
        server="", name=tool.get("name", ""), input_schema=dict(tool.get("inputSchema") or {}),
        output_schema=dict(tool["outputSchema"]) if tool.get("outputSchema") else None,
    ).schema_hash


class GuidanceTool:
    """The tool the proxy adds: task-conditioned guidance from the atlas for this server's tools."""

    def __init__(self, atlas: Atlas, server: str, placeholders: Placeholders, taken: Iterable[str]) -> None:
        self.atlas = atlas
        self.server = server
        self.placeholders = placeholders
        self.name = _free_name(set(taken))

    def definition(self) -> dict[str, Any]:
        low, high = MAX_TOKENS_RANGE
        return {
            "name": self.name,
            "title": "Atlas guidance for a task",
            "description": (
                f"Guidance for a task with the tools of this server ({self.server}), from an atlas built by "
                "executing every tool in sandboxes (ToolAtlas). Call it before you start a task: it says "
                "which tools to use and with which arguments, where they fail and with which exact error, how they "
                "combine, and shows example traces of similar tasks that worked. Read-only; calls nothing."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "task": {"type": "string", "minLength": 1, "maxLength": TASK_MAX_CHARS,
                             "description": "What you are about to do, in plain words."},
                    "max_tokens": {"type": "integer", "minimum": low, "maximum": high,
                                   "default": DEFAULT_MAX_TOKENS, "description": "Approximate size limit of the guidance."},
                },
                "required": ["task"],
                "additionalProperties": False,
            },
            "annotations": READ_ONLY,
        }

    async def call(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """A ``tools/call`` result: the guidance as text, or a tool error saying what is wrong with the arguments."""
        problem, task, max_tokens = _guidance_arguments(arguments or {})
        if problem:
            return {"content": [{"type": "text", "text": problem}], "isError": True}
        guidance = await anyio.to_thread.run_sync(
            lambda: self.atlas.guide(task, servers=[self.server], max_tokens=max_tokens)
        )
        text = guidance.to_text() if guidance.tools else f"The atlas has nothing on this task for {self.server}'s tools."
        return {"content": [{"type": "text", "text": self.placeholders.fill(text)}]}


def _free_name(taken: set[str]) -> str:
    for name in (GUIDANCE_TOOL, "toolatlas_guidance", *(f"{GUIDANCE_TOOL}_{i}" for i in range(2, 100))):
        if name not in taken:
            return name
    raise ToolAtlasError("no free name for the guidance tool")  # pragma: no cover - a hundred collisions


def _guidance_arguments(arguments: Mapping[str, Any]) -> tuple[str, str, int]:
    """``(problem, task, max_tokens)``; ``problem`` is empty when the arguments are valid."""
    task, max_tokens = arguments.get("task"), arguments.get("max_tokens", DEFAULT_MAX_TOKENS)
    low, high = MAX_TOKENS_RANGE
    extra = sorted(set(arguments) - {"task", "max_tokens"})
    if extra:
        return f"unknown argument(s) {', '.join(extra)}: give `task` (and optionally `max_tokens`)", "", 0
    if not isinstance(task, str) or not task.strip():
        return "`task` is required: describe what you are about to do, in plain words", "", 0
    if len(task) > TASK_MAX_CHARS:
        return f"`task` is {len(task)} characters; at most {TASK_MAX_CHARS}", "", 0
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or not low <= max_tokens <= high:
        return f"`max_tokens` must be an integer from {low} to {high}", "", 0
    return "", task, max_tokens
