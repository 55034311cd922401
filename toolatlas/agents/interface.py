"""What an agent is offered and what it sees: the tools as functions, ``run_python``, observations.

The OpenAI API accepts function names of 1–64 characters from ``[a-zA-Z0-9_-]``; an MCP tool
name may be anything, so :class:`ToolMenu` gives each tool a function name the API accepts
(sanitised, shortened, de-duplicated, never ``run_python``) and maps it back. Input schemas are
passed through as the functions' parameters. Observations are bounded: the head and the tail of
a long output are kept, with a note of what was left out in between.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from toolatlas.codebox.toolproxy import stub_name
from toolatlas.llm import function_tool
from toolatlas.models import CallOutcome, ToolSpec

__all__ = [
    "DESCRIPTION_CHARS",
    "OBSERVATION_CHARS",
    "RUN_PYTHON",
    "ToolMenu",
    "bounded",
    "render_outcome",
    "run_python_tool",
    "tool_catalogue",
]

RUN_PYTHON = "run_python"
"""The function that runs a CodeAct snippet (CodeAct and SwitchAct)."""
OBSERVATION_CHARS = 6000
"""Characters of one observation the agent sees (head and tail kept)."""
DESCRIPTION_CHARS = 1000
"""Characters of a tool description sent as a function description."""
_FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_INVALID = re.compile(r"[^a-zA-Z0-9_-]+")
_SCHEMA_CHARS = 600


class ToolMenu:
    """The MCP tools of one server as OpenAI function tools, with their names mapped both ways."""

    def __init__(self, tools: Sequence[ToolSpec], *, reserved: Iterable[str] = (RUN_PYTHON,)) -> None:
        self.tools = list(tools)
        taken = set(reserved)
        self._by_function: dict[str, ToolSpec] = {}
        self._function_of: dict[str, str] = {}
        for tool in self.tools:
            name = function_name(tool.name, taken)
            taken.add(name)
            self._by_function[name] = tool
            self._function_of[tool.name] = name

    def functions(self) -> list[dict[str, Any]]:
        """One ``tools`` entry per MCP tool, its input schema as the parameters."""
        return [
            function_tool(name, _function_description(tool, name), _parameters(tool.input_schema))
            for name, tool in self._by_function.items()
        ]

    def resolve(self, function: str) -> ToolSpec | None:
        """The MCP tool behind a function name the model called (None: no such function)."""
        return self._by_function.get(function)

    def function_of(self, tool: str) -> str:
        return self._function_of[tool]

    @property
    def names(self) -> list[str]:
        """The MCP tool names."""
        return [tool.name for tool in self.tools]


def function_name(tool: str, taken: set[str]) -> str:
    """A function name the API accepts for ``tool``, not in ``taken`` (the tool's own name when valid)."""
    if _FUNCTION_NAME.match(tool) and tool not in taken:
        return tool
    base = _INVALID.sub("_", tool).strip("_")[:60] or "tool"
    name, n = base, 2
    while name in taken:
        name = f"{base[: 60 - len(str(n))]}_{n}"
        n += 1
    return name


def run_python_tool(tool_names: Sequence[str]) -> dict[str, Any]:
    """The ``run_python`` function: one snippet, executed with the server's tools bound."""
    description = (
        "Run a Python snippet in a fresh, confined process. It reaches the server only through "
        "call_tool(name, arguments) or tools.<name>(**arguments); you see what it prints and its error. "
        f"Tools: {', '.join(tool_names)}."
    )
    parameters = {
        "type": "object",
        "properties": {"code": {"type": "string", "description": "the Python source to run"}},
        "required": ["code"],
        "additionalProperties": False,
    }
    return function_tool(RUN_PYTHON, description, parameters)


def tool_catalogue(menu: ToolMenu, *, functions: bool, code: bool) -> str:
    """The prompt's list of tools: name and purpose; argument schemas when no function carries them."""
    lines = []
    for tool in menu.tools:
        names = [f"`{tool.name}`"]
        if functions and menu.function_of(tool.name) != tool.name:
            names.append(f"function `{menu.function_of(tool.name)}`")
        if code and stub_name(tool.name) != tool.name:
            names.append(f"tools.{stub_name(tool.name)}")
        line = f"- {' / '.join(names)}: {tool.purpose}"
        if not functions:
            line += f"\n  arguments: {_compact_schema(tool.input_schema)}"
        lines.append(line)
    return "\n".join(lines) or "(the server lists no tools)"


def render_outcome(outcome: CallOutcome) -> str:
    """What the agent sees of one call: the result text (or structured content), or the error."""
    text = outcome.excerpt
    if not text and outcome.structured is not None:
        text = json.dumps(outcome.structured, ensure_ascii=False)
    if outcome.truncated:
        text += f"\n[output truncated by the server limit: {outcome.output_bytes} bytes in all]"
    if not outcome.ok:
        return f"[{outcome.outcome.value}] {text}".rstrip()
    return text or "(empty result)"


def bounded(text: str, limit: int = OBSERVATION_CHARS) -> str:
    """``text`` within ``limit`` characters: head and tail kept, the middle replaced by a note."""
    if len(text) <= limit:
        return text
    note = "\n[... {} characters omitted ...]\n"
    keep = max(0, limit - len(note) - 8)
    head, tail = text[: keep // 2], text[len(text) - (keep - keep // 2) :]
    return head + note.format(len(text) - len(head) - len(tail)) + tail


def _function_description(tool: ToolSpec, name: str) -> str:
    description = " ".join((tool.description or tool.purpose).split())
    if name != tool.name:
        description = f"MCP tool `{tool.name}`. {description}"
    return description[:DESCRIPTION_CHARS]


def _parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema as function parameters (an object schema, as the API requires)."""
    parameters = dict(schema)
    if parameters.get("type") != "object":
        parameters = {
            "type": "object",
            "properties": {},
            **{k: v for k, v in parameters.items() if k != "type"},
        }
    return parameters


def _compact_schema(schema: dict[str, Any]) -> str:
    text = json.dumps(
        {k: schema[k] for k in ("properties", "required") if k in schema},
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return text if len(text) <= _SCHEMA_CHARS else text[: _SCHEMA_CHARS - 1] + "…"
