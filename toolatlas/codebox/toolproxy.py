"""What a CodeAct snippet sees of the MCP tools: ``call_tool`` and ``tools``. Stdlib only.

A snippet is plain Python; whatever it prints is the agent's observation. It reaches the
environment only through the server's tools::

    result = call_tool("read_text_file", {"path": "/data/notes.md"})
    print(result.text)
    listing = tools.list_directory(path="/data")      # the same call as a stub; tools["name-x"](...) too
    if listing.is_error: print("failed:", listing.text)

Every call goes to the parent over the side channel and is recorded there. A tool error is not
an exception: it comes back as a :class:`ToolResult` with ``is_error`` set. Unknown tools and
calls beyond the per-snippet limit raise :class:`ToolCallRefused` (also a name in the snippet).
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Callable
from typing import Any

__all__ = ["ToolCallRefused", "ToolResult", "Tools", "make_call_tool", "stub_name"]


class ToolCallRefused(RuntimeError):
    """The call never reached the server: unknown tool, bad arguments or the call limit."""


class ToolResult:
    """One tool call's result: ``text`` content, ``structured`` content, ``is_error`` and ``outcome``.

    ``outcome`` is ``ok``, ``tool_error`` (the tool reported a failure), ``protocol_error``,
    ``timeout`` or ``crash`` (the server misbehaved).
    """

    def __init__(self, text: str, structured: dict[str, Any] | None, is_error: bool, outcome: str) -> None:
        self.text = text
        self.structured = structured
        self.is_error = is_error
        self.outcome = outcome

    def json(self) -> Any:
        """The structured content if any, else the text parsed as JSON."""
        return self.structured if self.structured is not None else json.loads(self.text)

    def __str__(self) -> str:
        return f"[{self.outcome}] {self.text}" if self.is_error else self.text

    def __repr__(self) -> str:
        shown = self.text if len(self.text) <= 200 else self.text[:199] + "…"
        return f"ToolResult(outcome={self.outcome!r}, text={shown!r})"


def make_call_tool(
    send: Callable[[dict[str, Any]], None], receive: Callable[[], dict[str, Any]]
) -> Callable[..., ToolResult]:
    """``call_tool(name, arguments)`` sending each call to the parent and waiting for its result.

    The parent decides whether a call goes through (known tool, within the limit), so that every
    attempt is counted in one place.
    """

    def call_tool(name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Call the MCP tool ``name`` with ``arguments`` (a JSON object) and return its result."""
        if not isinstance(name, str):
            raise ToolCallRefused(f"a tool name is a string, not {type(name).__name__}")
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):
            raise ToolCallRefused(f"arguments of {name} must be a dict, not {type(arguments).__name__}")
        try:
            message = {"event": "call", "tool": name, "arguments": json.loads(json.dumps(arguments))}
        except (TypeError, ValueError) as exc:
            raise ToolCallRefused(f"arguments of {name} are not JSON: {exc}") from None
        send(message)
        reply = receive()
        if "refused" in reply:
            raise ToolCallRefused(str(reply["refused"]))
        result = reply.get("result") or {}
        return ToolResult(
            text=str(result.get("text", "")),
            structured=result.get("structured"),
            is_error=bool(result.get("is_error")),
            outcome=str(result.get("outcome", "")),
        )

    return call_tool


def stub_name(tool: str) -> str:
    """A Python identifier for a tool name (``list-files`` → ``list_files``, ``class`` → ``class_``)."""
    name = re.sub(r"\W", "_", tool)
    if not name or name[0].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) else name


class Tools:
    """``tools.name(**arguments)`` for every tool; ``tools["raw-name"](**arguments)`` for any name."""

    def __init__(self, names: list[str], call_tool: Callable[..., ToolResult]) -> None:
        self._call = call_tool
        self._by_stub = {stub_name(name): name for name in names}
        self._names = list(names)

    def __getattr__(self, attribute: str) -> Callable[..., ToolResult]:
        if attribute.startswith("__") or attribute not in self._by_stub:
            raise AttributeError(f"no tool {attribute!r}; tools: {', '.join(sorted(self._by_stub))}")
        return self[self._by_stub[attribute]]

    def __getitem__(self, name: str) -> Callable[..., ToolResult]:
        def stub(**arguments: Any) -> ToolResult:
            return self._call(name, arguments)

        stub.__name__ = stub_name(name)
        stub.__doc__ = f"Call the MCP tool {name!r} with keyword arguments."
        return stub

    def __dir__(self) -> list[str]:
        return sorted(self._by_stub)

    def __repr__(self) -> str:
        return f"Tools({', '.join(self._names)})"
