"""What an agent is offered: MCP tools as functions under names the API accepts, and bounded observations."""

from __future__ import annotations

import re

from toolatlas.agents.interface import RUN_PYTHON, ToolMenu, bounded, render_outcome, tool_catalogue
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
API_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def tool(name: str, schema: dict | None = None) -> ToolSpec:
    return ToolSpec(
        server="s", name=name, description=f"Does {name}. More words.", input_schema=schema or SCHEMA
    )


class TestToolMenu:
    def test_names_the_api_refuses_are_mapped_and_resolved_back(self) -> None:
        """Dots, spaces, over-long names and a tool called run_python get valid, distinct function names."""
        names = ["read_file", "fs.read file", "fs read.file", "x" * 80, RUN_PYTHON]
        menu = ToolMenu([tool(name) for name in names])
        functions = [entry["function"] for entry in menu.functions()]

        assert all(API_NAME.match(f["name"]) for f in functions)
        assert len({f["name"] for f in functions} | {RUN_PYTHON}) == len(names) + 1
        assert functions[0]["name"] == "read_file" and functions[0]["parameters"] == SCHEMA
        assert [menu.resolve(f["name"]).name for f in functions] == names
        assert functions[1]["description"].startswith("MCP tool `fs.read file`.")
        assert menu.resolve("nope") is None

    def test_a_schema_that_is_not_an_object_becomes_one(self) -> None:
        (entry,) = ToolMenu([tool("t", {"properties": {"a": {"type": "integer"}}})]).functions()
        assert entry["function"]["parameters"] == {"type": "object", "properties": {"a": {"type": "integer"}}}

    def test_the_prompt_lists_schemas_only_when_no_function_carries_them(self) -> None:
        menu = ToolMenu([tool("list-files")])
        with_functions = tool_catalogue(menu, functions=True, code=True)
        code_only = tool_catalogue(menu, functions=False, code=True)
        assert with_functions == "- `list-files` / tools.list_files: does list-files"
        assert code_only.startswith(with_functions) and '"required":["path"]' in code_only


class TestObservations:
    def test_a_long_output_keeps_its_head_and_tail(self) -> None:
        text = "".join(f"line {i}\n" for i in range(2000))
        shown = bounded(text, 1000)
        assert len(shown) <= 1000 and shown.startswith("line 0\n") and shown.endswith("line 1999\n")
        omitted = int(re.search(r"\[\.\.\. (\d+) characters omitted", shown).group(1))
        assert omitted == len(text) - len(shown.split("\n[...")[0]) - len(shown.split("omitted ...]\n")[1])
        assert bounded("short", 1000) == "short"

    def test_errors_are_labelled_with_their_outcome(self) -> None:
        failed = CallOutcome(
            server="s", tool="t", outcome=OutcomeClass.TOOL_ERROR, excerpt="ENOENT: no such file"
        )
        structured = CallOutcome(server="s", tool="t", outcome=OutcomeClass.OK, structured={"total": 3})
        assert render_outcome(failed) == "[tool_error] ENOENT: no such file"
        assert render_outcome(structured) == '{"total": 3}'
