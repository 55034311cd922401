"""What the proxy adds, without servers: Atlas blocks within their budget, placeholders, the guidance tool."""

from __future__ import annotations

import pytest

from toolatlas.errors import ToolAtlasError
from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind, Evidence, ToolNode
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.models import OutcomeClass, ToolSpec
from toolatlas.proxy import GUIDANCE_TOOL, GuidanceTool, Placeholders, ToolNotes

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
HASH = ToolSpec(server="fs", name="read", input_schema=SCHEMA).schema_hash
ROOT = {"root": "/srv/project"}


def entry(tool: str, kind: EntryKind, text: str, n: int = 0, **fields) -> Entry:
    outcome = fields.pop("outcome", OutcomeClass.OK)
    evidence = Evidence(probe_id=f"p{n}", tool=tool, outcome=outcome, excerpt=fields.pop("excerpt", "ok"))
    return Entry(id=f"{tool}.{kind.value}.{n}", kind=kind, server="fs", tool=tool, schema_hash=HASH, signature=f"{text}{n}",
                 text=text, outcome=outcome, evidence=[evidence], probe_ids=[f"p{n}"], **fields)


def boundary(condition: str, error: str, n: int, support: int = 1) -> Entry:
    return entry("read", EntryKind.BOUNDARY, f"read fails when {condition}", n, condition=condition,
                 outcome=OutcomeClass.TOOL_ERROR, excerpt=error, support=support)


def atlas(*entries: Entry) -> Atlas:
    tools = [ToolNode(id="fs.read", server="fs", tool="read", schema_hash=HASH, description="Read a file."),
             ToolNode(id="fs.stat", server="fs", tool="stat", schema_hash="h2", description="Stat a file.")]
    return Atlas(AtlasView(tools, entries, [], []), name="test")


FULL = atlas(
    entry("read", EntryKind.AFFORDANCE, "`read` (read a file (as text)) works given `path`; it changes nothing.", 1,
          example_arguments={"path": "${root}/README.md"}, support=5),
    boundary("`path` is null", "MCP error -32602: Input validation error: expected string, received null", 2, support=9),
    boundary("`path` is outside the allowed directory", "Access denied - /etc not in ${root}", 3),
    boundary("`path` names a missing file", "ENOENT: no such file or directory, open '${root}/" + "x" * 400 + "'", 4),
    entry("read", EntryKind.CO_USAGE, "`list` output supplies inputs of `read`.", 5, peer="list",
          relation=CoUsageRelation.DATA, weight=0.5),
)
READ = {"name": "read", "description": "Read a file.", "inputSchema": SCHEMA}


class TestToolNotes:
    def test_block_appended_to_the_description_only(self) -> None:
        """annotate keeps every key and value of the tool but the description, which gains the block."""
        tool = {"name": "read", "title": "Read", "description": "Read a file.", "inputSchema": SCHEMA, "_meta": {"x": 1}}
        shown = ToolNotes(FULL, "fs", Placeholders(ROOT)).annotate(tool)
        assert list(shown) == list(tool)
        assert {k: v for k, v in shown.items() if k != "description"} == {k: v for k, v in tool.items() if k != "description"}
        assert shown["description"].startswith("Read a file.\n\nAtlas (verified by executing this tool):\n")

    def test_notes_say_what_works_and_where_it_fails(self) -> None:
        """A verified use with its example, then the domain boundary with its exact error, paths filled in."""
        block = ToolNotes(FULL, "fs", Placeholders(ROOT)).blocks["read"]
        lines = block.splitlines()
        assert lines[1] == '- Works with `path`, e.g. {"path": "/srv/project/README.md"}'
        assert lines[2] == '- Fails when `path` is outside the allowed directory → error: "Access denied - /etc not in /srv/project"'
        assert "${" not in block

    def test_domain_boundaries_before_schema_violations(self) -> None:
        """A boundary the schema already implies comes after domain ones, however well supported."""
        block = ToolNotes(FULL, "fs", Placeholders(ROOT)).blocks["read"]
        assert block.index("outside the allowed directory") < block.index("`path` is null")

    def test_an_answer_cut_at_a_stated_limit_is_no_failure(self) -> None:
        """A call past a limit the description states that went through, its answer cut there, is said as a cut
        answer with the server's words, never as a failure."""
        cut = entry("read", EntryKind.AFFORDANCE, "read accepts it", 6, family="past_stated_limit",
                    when="`path` names 60 lines, more than the 25 lines the description caps a result at (accepted)",
                    excerpt="truncated to 25 lines\nline 1", support=9)
        block = ToolNotes(atlas(cut), "fs", Placeholders(ROOT)).blocks["read"]
        assert ('- Answer cut at its stated limit when `path` names 60 lines, more than the 25 lines the description '
                'caps a result at: "truncated to 25 lines"') in block.splitlines()
        assert "Fails when" not in block

    @pytest.mark.parametrize("budget", [120, 300, 700, 2000])
    def test_block_fits_its_budget(self, budget: int) -> None:
        """However many notes there are, the block is at most the budget; long errors are cut."""
        block = ToolNotes(FULL, "fs", Placeholders(ROOT), budget=budget).blocks.get("read", "")
        assert len(block) <= budget
        assert all(len(line) <= 280 for line in block.splitlines())

    def test_budget_too_small_for_any_note_adds_nothing(self) -> None:
        """No room for one note: the description is left as the server wrote it."""
        notes = ToolNotes(FULL, "fs", Placeholders(ROOT), budget=50)
        assert notes.annotate(READ) is READ

    def test_tools_without_entries_and_unknown_tools_are_unchanged(self) -> None:
        """A tool the atlas has nothing on, or has never seen, is passed as it is."""
        notes = ToolNotes(FULL, "fs", Placeholders(ROOT))
        stat = {"name": "stat", "description": "Stat.", "inputSchema": SCHEMA}
        new = {"name": "brand_new", "inputSchema": SCHEMA}
        assert notes.annotate(stat) is stat and notes.annotate(new) is new

    def test_changed_schema_is_flagged(self) -> None:
        """Notes verified on another version of the tool's interface say so."""
        changed = {**READ, "inputSchema": {**SCHEMA, "properties": {"path": {"type": "string"}, "head": {"type": "integer"}}}}
        assert "earlier version of this tool's schema" in ToolNotes(FULL, "fs", Placeholders(ROOT)).annotate(changed)["description"]
        assert "earlier version" not in ToolNotes(FULL, "fs", Placeholders(ROOT)).annotate(READ)["description"]

    def test_unknown_server_is_an_error(self) -> None:
        """An atlas without the proxied server is a configuration mistake, said plainly."""
        with pytest.raises(ToolAtlasError, match="knows nothing of server 'git'"):
            ToolNotes(FULL, "git", Placeholders(ROOT))


class TestPlaceholders:
    def test_known_filled_unknown_kept(self) -> None:
        """Known placeholders take their value; unknown ones and shell text stay as they are."""
        fill = Placeholders(ROOT)
        assert fill.fill("${root}/a ${home}/b $HOME $(pwd)") == "/srv/project/a ${home}/b $HOME $(pwd)"
        assert fill.fill_json({"p": ["${root}/x", 3], "q": None}) == {"p": ["/srv/project/x", 3], "q": None}


class TestGuidanceTool:
    def test_name_never_collides(self) -> None:
        """The guidance tool takes another name when the server already has one called atlas_guidance."""
        assert GuidanceTool(FULL, "fs", Placeholders(ROOT), ["read"]).name == GUIDANCE_TOOL
        assert GuidanceTool(FULL, "fs", Placeholders(ROOT), [GUIDANCE_TOOL]).name == "toolatlas_guidance"

    async def test_guidance_text(self) -> None:
        """A task gets the atlas's guidance for this server, placeholders filled."""
        result = await GuidanceTool(FULL, "fs", Placeholders(ROOT), []).call({"task": "read the README file"})
        text = result["content"][0]["text"]
        assert "isError" not in result and "fs.read" in text and "${root}" not in text

    @pytest.mark.parametrize(
        ("arguments", "says"),
        [({}, "`task` is required"), ({"task": "  "}, "`task` is required"), ({"task": "x" * 2001}, "at most 2000"),
         ({"task": "read", "max_tokens": 5}, "`max_tokens`"), ({"task": "read", "max_tokens": True}, "`max_tokens`"),
         ({"task": "read", "servers": ["x"]}, "unknown argument(s) servers")],
    )
    async def test_bad_arguments_are_tool_errors(self, arguments: dict, says: str) -> None:
        """Invalid arguments are an isError result that says what to give."""
        result = await GuidanceTool(FULL, "fs", Placeholders(ROOT), []).call(arguments)
        assert result["isError"] is True and says in result["content"][0]["text"]
