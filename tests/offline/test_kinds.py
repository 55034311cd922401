"""Argument kinds, tool effects and tool objects inferred from real demo schemas and from unseen ones."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import pytest

from toolatlas.models import ToolAnnotations, ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import (
    ArgSpec,
    ToolEffect,
    ToolObject,
    infer_arguments,
    sql_statement_kind,
    tool_effect,
    tool_object,
    with_known_call,
)
from toolatlas.offline.values import ValueSynth
from toolatlas.offline.words import implicit_choices, tokens
from toolatlas.probing.values import ArgKind

if TYPE_CHECKING:
    from conftest import DemoTools


def arg(specs: list[ArgSpec], path: str) -> ArgSpec:
    """The spec at ``path`` (``edits[].oldText``) in a tree of specs."""
    stack = list(specs)
    while stack:
        spec = stack.pop()
        if spec.path == path:
            return spec
        stack.extend(spec.properties)
        if spec.items is not None:
            stack.append(spec.items)
    raise KeyError(path)


def make(
    name: str,
    properties: dict[str, Any],
    required: list[str] | None = None,
    description: str = "",
    server: str = "unseen",
    **extra: Any,
) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": required or [], **extra}
    return ToolSpec(server=server, name=name, description=description, input_schema=schema)


# (server, tool, argument path, kind, fresh)
DEMO_KINDS = [
    ("filesystem", "read_text_file", "path", ArgKind.FILE_PATH, False),
    ("filesystem", "read_multiple_files", "paths[]", ArgKind.FILE_PATH, False),
    ("filesystem", "write_file", "path", ArgKind.NEW_PATH, True),
    ("filesystem", "write_file", "content", ArgKind.TEXT, False),
    ("filesystem", "edit_file", "edits[].oldText", ArgKind.EXISTING_TEXT, False),
    ("filesystem", "edit_file", "edits[].newText", ArgKind.TEXT, False),
    ("filesystem", "create_directory", "path", ArgKind.NEW_PATH, True),
    ("filesystem", "list_directory", "path", ArgKind.DIR_PATH, False),
    ("filesystem", "search_files", "path", ArgKind.DIR_PATH, False),
    ("filesystem", "search_files", "pattern", ArgKind.GLOB, False),
    ("filesystem", "directory_tree", "excludePatterns[]", ArgKind.GLOB, False),
    ("filesystem", "move_file", "source", ArgKind.PATH, False),
    ("filesystem", "move_file", "destination", ArgKind.NEW_PATH, True),
    ("filesystem", "get_file_info", "path", ArgKind.PATH, False),
    ("filesystem", "list_directory_with_sizes", "sortBy", ArgKind.ENUM, False),
    ("git", "git_status", "repo_path", ArgKind.REPO_PATH, False),
    ("git", "git_diff", "target", ArgKind.REVISION, False),
    ("git", "git_show", "revision", ArgKind.REVISION, False),
    ("git", "git_branch", "contains", ArgKind.REVISION, False),
    ("git", "git_branch", "branch_type", ArgKind.ENUM, False),
    ("git", "git_create_branch", "branch_name", ArgKind.BRANCH, True),
    ("git", "git_create_branch", "base_branch", ArgKind.BRANCH, False),
    ("git", "git_checkout", "branch_name", ArgKind.BRANCH, False),
    ("git", "git_add", "files[]", ArgKind.FILE_PATH, False),
    ("git", "git_commit", "message", ArgKind.TEXT, False),
    ("git", "git_log", "start_timestamp", ArgKind.DATETIME, False),
    ("git", "git_log", "max_count", ArgKind.INTEGER, False),
    ("memory", "create_entities", "entities[].name", ArgKind.ENTITY_NAME, True),
    ("memory", "create_entities", "entities[].entityType", ArgKind.ENTITY_TYPE, False),
    ("memory", "create_entities", "entities[].observations[]", ArgKind.OBSERVATION, True),
    ("memory", "create_relations", "relations[].from", ArgKind.ENTITY_NAME, False),
    ("memory", "create_relations", "relations[].relationType", ArgKind.RELATION_TYPE, False),
    ("memory", "add_observations", "observations[].entityName", ArgKind.ENTITY_NAME, False),
    ("memory", "delete_observations", "deletions[].observations[]", ArgKind.OBSERVATION, False),
    ("memory", "open_nodes", "names[]", ArgKind.ENTITY_NAME, False),
    ("memory", "search_nodes", "query", ArgKind.SEARCH_QUERY, False),
    ("sqlite", "read_query", "query", ArgKind.SQL_QUERY_READ, False),
    ("sqlite", "write_query", "query", ArgKind.SQL_QUERY_WRITE, False),
    ("sqlite", "create_table", "query", ArgKind.SQL_DDL, False),
    ("sqlite", "describe_table", "table_name", ArgKind.TABLE_NAME, False),
    ("sqlite", "append_insight", "insight", ArgKind.TEXT, False),
    ("time", "get_current_time", "timezone", ArgKind.TIMEZONE, False),
    ("time", "convert_time", "time", ArgKind.TIME_OF_DAY, False),
    ("postgres", "execute_sql", "sql", ArgKind.SQL, False),
    ("postgres", "explain_query", "sql", ArgKind.SQL_QUERY_READ, False),
    ("postgres", "analyze_query_indexes", "queries[]", ArgKind.SQL_QUERY_READ, False),
    ("postgres", "get_object_details", "object_name", ArgKind.TABLE_NAME, False),
    ("postgres", "get_object_details", "schema_name", ArgKind.SCHEMA_NAME, False),
    ("postgres", "analyze_db_health", "health_type", ArgKind.ENUM, False),
]


class TestDemoSchemas:
    @pytest.mark.parametrize(("server", "name", "path", "kind", "fresh"), DEMO_KINDS)
    def test_argument_kind(
        self, demo_tools: DemoTools, server: str, name: str, path: str, kind: ArgKind, fresh: bool
    ) -> None:
        """Each demo argument gets the semantic kind (and freshness) a maintainer would name."""
        spec = arg(infer_arguments(demo_tools(server, name)), path)
        assert (spec.kind, spec.fresh) == (kind, fresh)

    def test_every_demo_argument_gets_a_kind(self, demo_tools: DemoTools) -> None:
        """No argument of any demo server is left as an untyped ``any``."""
        for server in ("filesystem", "git", "memory", "sqlite", "time", "postgres"):
            for spec in (s for t in demo_tools.all(server) for s in infer_arguments(t)):
                assert spec.kind is not ArgKind.ANY, (server, spec.path)

    def test_enum_choices_are_read_from_descriptions(self, demo_tools: DemoTools) -> None:
        """Choices listed in a description become enums; "e.g." lists stay examples."""
        branch_type = arg(infer_arguments(demo_tools("git", "git_branch")), "branch_type")
        assert branch_type.enum == ["local", "remote", "all"] and branch_type.enum_from_description
        health = arg(infer_arguments(demo_tools("postgres", "analyze_db_health")), "health_type")
        assert "vacuum" in health.enum and health.has_default
        zone = arg(infer_arguments(demo_tools("time", "get_current_time")), "timezone")
        assert not zone.enum and zone.examples == ["America/New_York", "Europe/London"]

    def test_sql_statement_kinds_come_from_the_words(self, demo_tools: DemoTools) -> None:
        """Read, write, DDL and any-SQL arguments list the statements they accept."""
        write = arg(infer_arguments(demo_tools("sqlite", "write_query")), "query")
        assert write.sql_statements == ["insert", "update", "delete"]
        anything = arg(infer_arguments(demo_tools("postgres", "execute_sql")), "sql")
        assert set(anything.sql_statements) == {"select", "insert", "update", "delete", "ddl"}

    def test_alternatives_exclude_each_other(self, demo_tools: DemoTools) -> None:
        """``head`` and ``tail`` are alternatives; ``contains`` and ``not_contains`` are not."""
        specs = {s.name: s for s in infer_arguments(demo_tools("filesystem", "read_text_file"))}
        assert specs["head"].excludes == ["tail"] and specs["tail"].excludes == ["head"]
        assert not any(s.excludes for s in infer_arguments(demo_tools("git", "git_branch")))

    def test_nullable_unions_are_unwrapped(self, demo_tools: DemoTools) -> None:
        """``anyOf: [string, null]`` is a nullable string with its default."""
        base = arg(infer_arguments(demo_tools("git", "git_create_branch")), "base_branch")
        assert base.json_type == "string" and base.nullable and base.has_default and base.default is None


# (server, tool, effect, object)
DEMO_TOOLS = [
    ("filesystem", "read_text_file", ToolEffect.READ, ToolObject.FILE),
    ("filesystem", "write_file", ToolEffect.CREATE, ToolObject.FILE),
    ("filesystem", "edit_file", ToolEffect.UPDATE, ToolObject.FILE),
    ("filesystem", "create_directory", ToolEffect.CREATE, ToolObject.DIRECTORY),
    ("filesystem", "move_file", ToolEffect.UPDATE, ToolObject.FILE),
    ("git", "git_create_branch", ToolEffect.CREATE, ToolObject.BRANCH),
    ("git", "git_checkout", ToolEffect.UPDATE, ToolObject.BRANCH),
    ("git", "git_commit", ToolEffect.CREATE, ToolObject.COMMIT),
    ("git", "git_log", ToolEffect.READ, ToolObject.COMMIT),
    ("git", "git_status", ToolEffect.READ, ToolObject.REPOSITORY),
    ("memory", "delete_entities", ToolEffect.DELETE, ToolObject.ENTITY),
    ("memory", "create_relations", ToolEffect.CREATE, ToolObject.RELATION),
    ("memory", "add_observations", ToolEffect.CREATE, ToolObject.OBSERVATION),
    ("memory", "read_graph", ToolEffect.READ, ToolObject.GRAPH),
    ("sqlite", "read_query", ToolEffect.READ, ToolObject.ROW),
    ("sqlite", "write_query", ToolEffect.UPDATE, ToolObject.ROW),
    ("sqlite", "create_table", ToolEffect.CREATE, ToolObject.TABLE),
    ("sqlite", "append_insight", ToolEffect.CREATE, ToolObject.NOTE),
    ("time", "convert_time", ToolEffect.READ, ToolObject.TIME),
]


class TestEffectsAndObjects:
    @pytest.mark.parametrize(("server", "name", "effect", "obj"), DEMO_TOOLS)
    def test_effect_and_object(
        self, demo_tools: DemoTools, server: str, name: str, effect: ToolEffect, obj: ToolObject
    ) -> None:
        """What a tool does, and to what, follows from its annotations, its verb and its nouns."""
        spec = demo_tools(server, name)
        assert (tool_effect(spec), tool_object(spec)) == (effect, obj)

    def test_read_only_annotation_wins_over_the_verb(self) -> None:
        """A tool annotated read-only reads, whatever its name says."""
        spec = make("update_cache_view", {}).model_copy(
            update={"annotations": ToolAnnotations(read_only=True)}
        )
        assert tool_effect(spec) is ToolEffect.READ

    def test_derived_facts_are_remembered_per_spec_not_per_name(self) -> None:
        """Effects and arguments are memoised by spec identity: a copy with other annotations or
        another schema (same name) is judged afresh, and repeated answers are not shared lists."""
        spec = make("update_cache_view", {"key": {"type": "string"}})
        assert tool_effect(spec) is ToolEffect.UPDATE
        read_only = spec.model_copy(update={"annotations": ToolAnnotations(read_only=True)})
        assert tool_effect(read_only) is ToolEffect.READ and tool_effect(spec) is ToolEffect.UPDATE
        wider = make("update_cache_view", {"key": {"type": "string"}, "ttl": {"type": "integer"}})
        assert [a.name for a in infer_arguments(wider)] == ["key", "ttl"]
        assert [a.name for a in infer_arguments(spec)] == ["key"]
        first = infer_arguments(spec)
        first.clear()
        assert [a.name for a in infer_arguments(spec)] == ["key"]

    def test_the_server_prefix_is_not_the_object(self, demo_tools: DemoTools) -> None:
        """``git_add`` acts on files (its argument), not on "git"."""
        assert tool_object(demo_tools("git", "git_add")) is ToolObject.FILE


class TestUnseenSchemas:
    def test_values_a_description_lists_for_the_arguments_noun(self) -> None:
        """`Comparison operator (eq, neq, gt)` and the tool's `Operators: eq, neq, gt` are the choices of
        `operator`; the tool's `operations like replace, extract, split` are examples of `operation`."""
        own = make("filter", {"operator": {"type": "string", "description": "Comparison operator (eq, neq, gt)."}},
                   ["operator"], "Filter objects.")
        told = make("filter", {"operator": {"type": "string", "title": "Operator"}}, ["operator"],
                    "Filter objects.\n\n        Operators: eq, neq, gt.")
        for spec in (own, told):
            assert arg(infer_arguments(spec), "operator").enum == ["eq", "neq", "gt"]
        update = make("update_column", {"operation": {"type": "string", "title": "Operation"}}, ["operation"],
                      "Update values in a column with simple operations like replace, extract, split, etc.")
        operation = arg(infer_arguments(update), "operation")
        assert operation.kind is ArgKind.STRING and operation.examples == ["replace", "extract", "split"]

    def test_the_kind_of_a_thing_said_the_other_way_round(self) -> None:
        """``filter_type`` described "Type of filter (blur, sharpen, grayscale)" takes those three; a default among
        them stays; a description that lists nothing leaves it a string."""
        tool = make("apply_filter", {"filter_type": {"type": "string", "title": "Filter Type"},
                                     "detection_type": {"type": "string", "default": "faces"},
                                     "paper_type": {"type": "string"}}, ["filter_type"],
                    "Apply a filter.\n\n    Args:\n        filter_type: Type of filter (blur, sharpen, grayscale)\n"
                    "        detection_type: Type of detection (faces, edges, contours)\n"
                    "        paper_type: Type of paper to print on\n")
        specs = infer_arguments(tool)
        assert arg(specs, "filter_type").enum == ["blur", "sharpen", "grayscale"]
        detection = arg(specs, "detection_type")
        assert detection.enum == ["faces", "edges", "contours"] and detection.default == "faces"
        assert arg(specs, "paper_type").kind is not ArgKind.ENUM

    def test_the_set_a_tool_states_for_the_noun_beside_the_arguments_examples(self) -> None:
        """`groups` whose own description only names two (`placement` and `maps` are left out…) takes its
        choices from the tool's `The groups are `state`, `history`, `material`…`, its examples kept."""
        tool = make("facts", {"groups": {"type": "array", "items": {"type": "string"},
                                         "description": "Groups to read; `placement` and `maps` only when asked."}},
                    [], "Facts of a position. The groups are `state`, `history`, `material`, and two more.")
        item = arg(infer_arguments(tool), "groups[]")
        assert item.kind is ArgKind.ENUM and item.enum == ["state", "history", "material"]
        assert item.examples == ["placement", "maps"]

    def test_a_tool_that_adds_to_a_document_takes_an_existing_one(self) -> None:
        """``add_footnote_to_document`` makes a footnote in a document that exists; ``create_document``
        makes the document."""
        properties = {"filename": {"type": "string"}, "text": {"type": "string"}}
        adds = make("add_footnote_to_document", properties, ["filename", "text"], "Add a footnote to a paragraph.")
        creates = make("create_document", properties, ["filename"], "Create a new Word document.")
        assert arg(infer_arguments(adds), "filename").kind is ArgKind.FILE_PATH
        assert not arg(infer_arguments(adds), "filename").fresh
        assert arg(infer_arguments(creates), "filename").kind is ArgKind.NEW_PATH

    def test_the_target_a_reading_tool_compares_against_exists(self) -> None:
        """``target_path`` of a tool that compares two files names an existing file, as ``reference_path`` does; the
        ``target`` of a copy is where it writes."""
        properties = {"reference_path": {"type": "string", "description": "Path to the reference MusicXML file"},
                      "target_path": {"type": "string",
                                      "description": "Path to the target MusicXML file, compared against the reference"}}
        compares = make("compare_files", properties, ["reference_path", "target_path"], "Diff of two files on disk.")
        target = arg(infer_arguments(compares), "target_path")
        assert (target.kind, target.fresh) == (ArgKind.FILE_PATH, False)
        copies = make("copy_file", {"source_path": {"type": "string"}, "target_path": {"type": "string"}},
                      ["source_path", "target_path"], "Copy a file to a new place.")
        assert arg(infer_arguments(copies), "target_path").kind is ArgKind.NEW_PATH

    def test_fetch_url_with_bounds(self) -> None:
        """A ``uri`` format is a URL; numeric bounds, defaults and exclusive minimums are kept."""
        spec = make(
            "fetch",
            {
                "url": {"type": "string", "format": "uri"},
                "max_length": {
                    "type": "integer",
                    "exclusiveMinimum": 0,
                    "maximum": 1_000_000,
                    "default": 5000,
                },
                "raw": {"type": "boolean", "default": False},
            },
            ["url"],
            "Fetches a URL from the internet",
        )
        specs = {s.name: s for s in infer_arguments(spec)}
        assert specs["url"].kind is ArgKind.URL and specs["url"].required
        length = specs["max_length"]
        assert (length.kind, length.exclusive_minimum, length.maximum, length.count_like) == (
            ArgKind.INTEGER,
            0,
            1_000_000,
            True,
        )
        assert specs["raw"].kind is ArgKind.BOOLEAN

    def test_a_repository_name_is_not_a_path(self) -> None:
        """GitHub-style ``owner``/``repo`` are names, ``title``/``body`` text, ``labels`` an array."""
        spec = make(
            "create_issue",
            {
                "owner": {"type": "string"},
                "repo": {"type": "string"},
                "title": {"type": "string"},
                "body": {"type": "string"},
                "labels": {"type": "array", "items": {"type": "string"}},
            },
            ["owner", "repo", "title"],
            "Create a new issue in a GitHub repository",
        )
        specs = {s.name: s for s in infer_arguments(spec)}
        assert specs["repo"].kind is not ArgKind.REPO_PATH
        assert specs["title"].kind is ArgKind.TEXT and specs["body"].kind is ArgKind.TEXT
        assert specs["labels"].kind is ArgKind.ARRAY

    def test_refs_defs_and_camel_case(self) -> None:
        """``$ref`` into ``$defs`` is resolved; camelCase names are split into words."""
        spec = make(
            "schedule_meeting",
            {"when": {"$ref": "#/$defs/Slot"}, "organizerEmail": {"type": "string"}},
            ["when"],
            "Schedule a meeting",
            **{
                "$defs": {
                    "Slot": {
                        "type": "object",
                        "properties": {
                            "startDate": {"type": "string", "format": "date"},
                            "timeZone": {"type": "string"},
                        },
                        "required": ["startDate"],
                    }
                }
            },
        )
        specs = infer_arguments(spec)
        assert arg(specs, "when.startDate").kind is ArgKind.DATE
        assert arg(specs, "when.timeZone").kind is ArgKind.TIMEZONE
        assert arg(specs, "organizerEmail").kind is ArgKind.EMAIL

    def test_search_with_paging(self) -> None:
        """A web search query is a search query; ``count``/``offset`` are bounded counts."""
        spec = make(
            "brave_web_search",
            {
                "query": {"type": "string", "description": "Search query (max 400 chars, 50 words)"},
                "count": {
                    "type": "number",
                    "description": "Number of results (1-20, default 10)",
                    "maximum": 20,
                    "default": 10,
                },
            },
            ["query"],
            "Performs a web search using the Brave Search API",
        )
        specs = {s.name: s for s in infer_arguments(spec)}
        assert specs["query"].kind is ArgKind.SEARCH_QUERY
        assert specs["count"].count_like and specs["count"].maximum == 20


class TestDescribedPlaces:
    def test_a_generic_name_described_as_a_path_is_a_path(self) -> None:
        """`input` "Archive file(s) to extract" is a file path; `output` "Output directory path" a new folder;
        `input` "File or folder path to compress" a path of either kind."""
        extract = make("extract", {"input": {"type": "string", "description": "Archive file(s) to extract"},
                                   "output": {"type": "string", "description": "Output directory path"}},
                       ["input"], "Extract archives.")
        packed = arg(infer_arguments(extract), "input")
        assert (packed.kind, packed.target) == (ArgKind.FILE_PATH, ToolObject.FILE)
        made = arg(infer_arguments(extract), "output")
        assert (made.kind, made.target, made.fresh) == (ArgKind.NEW_PATH, ToolObject.DIRECTORY, True)
        compress = make("compress", {"input": {"type": "string", "description": "File or folder path to compress"}},
                        ["input"], "Compress into an archive.")
        either = arg(infer_arguments(compress), "input")
        assert (either.kind, either.target) == (ArgKind.PATH, None)

    def test_descriptions_in_chinese_are_glossed(self) -> None:
        """`要解压的压缩文件路径` (the archive file's path) is a file path, `输出目录路径` (output directory path) a
        new folder, and a password that mentions files stays a plain string."""
        extract = make("extract", {
            "input": {"type": "string", "description": "要解压的压缩文件路径或路径数组"},
            "output": {"type": "string", "description": "输出目录路径（可选，默认为源文件所在目录）"},
            "password": {"type": "string", "description": "加密ZIP压缩包的密码（可选，不支持加密7Z文件）"},
        }, ["input"], "解压缩文件工具")
        specs = infer_arguments(extract)
        assert arg(specs, "input").kind is ArgKind.FILE_PATH
        assert (arg(specs, "output").kind, arg(specs, "output").target) == (ArgKind.NEW_PATH, ToolObject.DIRECTORY)
        assert arg(specs, "password").kind is ArgKind.STRING

    def test_with_no_files_to_name_a_path_takes_the_descriptions_example(self) -> None:
        """A server with no folder state asked for "Path to a Polyglot opening book, a `.bin` file" gets `.bin`,
        the description's example, rather than no call at all."""
        tool = make("book_moves", {"book": {"type": "string", "description": "Path to an opening book, a `.bin` file."}},
                    ["book"], "The moves an opening book holds.")
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        planned = synth.valid_arguments(tool, infer_arguments(tool), 0)
        assert planned is not None and planned.arguments == {"book": ".bin"}

    def test_words_that_are_not_places_stay_strings(self) -> None:
        """An `input` described as text to hash, and an `alias` described as a name that defaults to the
        filename's stem, are no paths."""
        hashed = make("digest", {"input": {"type": "string", "description": "The text to hash"}}, ["input"], "Hash.")
        assert arg(infer_arguments(hashed), "input").kind is not ArgKind.FILE_PATH
        alias = make("load_json", {"alias": {"type": "string", "description":
                                             "Optional friendly name for the document (defaults to filename stem)."}},
                     [], "Load a JSON file.")
        assert arg(infer_arguments(alias), "alias").kind not in (ArgKind.FILE_PATH, ArgKind.PATH, ArgKind.NEW_PATH)


class TestWords:
    @pytest.mark.parametrize(
        ("name", "words"),
        [
            ("repo_path", ["repo", "path"]),
            ("entityName", ["entity", "name"]),
            ("HTTPServerURL", ["http", "server", "url"]),
            ("excludePatterns", ["exclude", "patterns"]),
        ],
    )
    def test_tokens(self, name: str, words: list[str]) -> None:
        """snake_case, camelCase and acronyms split into lower-case words."""
        assert tokens(name) == words

    def test_implicit_choices_ignore_examples(self) -> None:
        """Quoted words after "e.g." are examples, not choices."""
        assert implicit_choices("IANA name (e.g., 'Europe/London', 'Asia/Tokyo')") == (
            [],
            ["Europe/London", "Asia/Tokyo"],
        )
        assert implicit_choices("Object type: 'table', 'view', or 'sequence'")[0] == [
            "table",
            "view",
            "sequence",
        ]


class TestSqlStatementKind:
    @pytest.mark.parametrize(
        ("sql", "kind"),
        [
            ("SELECT 1", "select"),
            ("  -- note\n select * from t", "select"),
            ("WITH x AS (SELECT 1) SELECT * FROM x", "select"),
            ("WITH x AS (SELECT 1) DELETE FROM t WHERE id IN (SELECT * FROM x)", "delete"),
            ("INSERT INTO t VALUES (1)", "insert"),
            ("update t set a = 1", "update"),
            ("DELETE FROM t", "delete"),
            ("CREATE TABLE t (id INTEGER)", "ddl"),
            ("DROP TABLE t", "ddl"),
            ("VACUUM", "other"),
        ],
    )
    def test_statement_kind(self, sql: str, kind: str) -> None:
        """The statement kind is its leading verb, looking past comments and CTEs."""
        assert sql_statement_kind(sql) == kind


class TestTagsOutsideGit:
    def test_tags_are_labels_unless_the_tool_speaks_of_git(self) -> None:
        """A glossary term's ``tags`` are labels; a ``tag`` of a tool about commits names a revision."""
        from toolatlas.models import ToolSpec
        from toolatlas.offline.kinds import infer_arguments
        from toolatlas.probing.values import ArgKind

        term = ToolSpec(server="s", name="add_term", description="Add a term to the glossary.", input_schema={
            "type": "object", "required": ["lemma"], "properties": {
                "lemma": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}})
        tags = next(s for s in infer_arguments(term) if s.name == "tags")
        assert tags.items is not None and tags.items.kind is not ArgKind.REVISION
        show = ToolSpec(server="s", name="git_show", description="Show a commit of the repository.", input_schema={
            "type": "object", "required": ["tag"], "properties": {"tag": {"type": "string"}}})
        assert infer_arguments(show)[0].kind is ArgKind.REVISION


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str] | None = None) -> ToolSpec:
    return ToolSpec(server="s", name=name, description=description, input_schema={
        "type": "object", "required": list(properties) if required is None else required, "properties": properties})


class TestReleaseHistory:
    def test_tags_of_release_notes_and_a_since_defaulting_to_head_name_commits(self) -> None:
        """"Draft release notes between two tags": the tags are revisions; a changelog's ``since`` defaulting to
        ``HEAD~20`` is a commit, not a moment."""
        notes = _tool("release_notes", "Draft release notes between two tags.",
                      {"from_tag": {"type": "string"}, "to_tag": {"type": "string"}})
        assert {s.kind for s in infer_arguments(notes)} == {ArgKind.REVISION}
        changelog = _tool("changelog", "Generate a grouped changelog for a commit range.",
                          {"since": {"type": "string", "default": "HEAD~20"}, "until": {"type": "string", "default": "HEAD"}},
                          required=[])
        assert {s.kind for s in infer_arguments(changelog)} == {ArgKind.REVISION}
        window = _tool("list_events", "List the events of a period.", {"since": {"type": "string"}})
        assert infer_arguments(window)[0].kind is ArgKind.DATETIME


class TestNamesOfTools:
    def test_tools_a_description_names_are_no_values_of_an_argument(self) -> None:
        """"A token from `wiki_read` or a previous `wiki_write_page`" names the tools that give it, not its values."""
        write = _tool("wiki_write_page", "Create or update one wiki page.", {
            "slug": {"type": "string"},
            "etag": {"type": "string", "description": "Optimistic-concurrency token from `wiki_read` or a previous "
                                                      "`wiki_write_page`."}}, required=["slug"])
        etag = next(s for s in infer_arguments(write) if s.name == "etag")
        assert etag.kind is not ArgKind.ENUM and not etag.enum and not etag.examples

    def test_the_verb_of_a_name_is_not_the_thing_it_acts_on(self) -> None:
        """``log_append`` appends to a log (the log is its object); ``git_log`` and ``analyze_commit`` read."""
        assert tool_effect(_tool("wiki_log_append", "Append one entry to the log.", {})) is ToolEffect.CREATE
        assert tool_effect(_tool("git_log", "Show the commit log.", {})) is ToolEffect.READ
        assert tool_effect(_tool("analyze_commit", "Explain a commit.", {})) is ToolEffect.READ
        assert tool_effect(_tool("git_commit", "Record changes to the repository.", {})) is ToolEffect.CREATE


class TestWhatTheDescriptionShows:
    def test_a_bare_path_is_what_its_description_heads_with(self) -> None:
        """A ``path`` described as "a directory of raw tables" is a folder, one described as "The file to read" a
        file; "File or folder path" stays either."""
        folder = _tool("load", "Load tables.", {"path": {"type": "string", "description": "a directory of raw tables"}})
        assert infer_arguments(folder)[0].kind is ArgKind.DIR_PATH
        file = _tool("read", "Read.", {"path": {"type": "string", "description": "The file to read"}})
        assert infer_arguments(file)[0].kind is ArgKind.FILE_PATH
        either = _tool("stat", "Stat.", {"path": {"type": "string", "description": "File or folder path"}})
        assert infer_arguments(either)[0].kind is ArgKind.PATH

    def test_a_name_described_as_a_dns_name_is_a_host_name(self) -> None:
        """``qname``, "Optional DNS name filter", takes host names; a ``name`` of a person does not."""
        dns = _tool("analyze_dns", "DNS facts.", {"qname": {"type": "string", "description": "Optional DNS name filter"}})
        assert infer_arguments(dns)[0].kind is ArgKind.HOSTNAME
        person = _tool("greet", "Greet someone.", {"name": {"type": "string", "description": "The person's name"}})
        assert infer_arguments(person)[0].kind is not ArgKind.HOSTNAME

    def test_a_call_the_docstring_shows_gives_each_argument_its_value(self) -> None:
        """``>>> write_mesh([[0,0,0], [1,0,0], [0,1,0]], [[0,0,1]], "out.stl")``: positional values in schema order;
        an array of points is planned as shown (three points, one normal), not as points of one number."""
        point = {"type": "array", "items": {"type": "number"}}
        tool = _tool("write_mesh", 'Writes a mesh.\n\nArgs:\n    vertices: [x, y, z] triplets.\n\nExample:\n'
                     '    >>> write_mesh([[0,0,0], [1,0,0], [0,1,0]], [[0,0,1]], "out.stl")\n    "out.stl"',
                     {"vertices": {"type": "array", "items": point}, "normals": {"type": "array", "items": point},
                      "output_path": {"type": "string"}})
        specs = infer_arguments(tool)
        assert arg(specs, "vertices").examples == [[[0, 0, 0], [1, 0, 0], [0, 1, 0]]]
        assert arg(specs, "normals").examples == [[[0, 0, 1]]]
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        planned = synth.valid_arguments(tool, specs, 0)
        assert planned is not None
        assert planned.arguments["vertices"] == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
        assert planned.arguments["normals"] == [[0, 0, 1]]


class TestKnownCall:
    def test_the_smoke_calls_values_come_first_on_every_tool_declaring_the_argument_alike(self) -> None:
        """The catalogue's smoke call (a FASTA record) is the first example of its argument, on its tool and on a tool
        declaring ``sequence`` the same way — not on one describing it otherwise — and the synth plans with it; a
        value the schema refuses is left out."""
        sequence = {"type": "string", "minLength": 1, "description": "Raw nucleotide sequence or one FASTA record."}
        def spec(name: str, properties: dict[str, Any]) -> ToolSpec:
            return ToolSpec(server="dna", name=name, description=f"{name} a sequence.",
                            input_schema={"type": "object", "properties": properties, "required": list(properties)})
        tools = {"summarize": spec("summarize", {"sequence": sequence}),
                 "translate": spec("translate", {"sequence": sequence, "table": {"type": "integer"}}),
                 "align": spec("align", {"sequence": {"type": "string", "description": "Aligned reads."}})}
        args = {name: infer_arguments(t) for name, t in tools.items()}
        record = ">egfp_fwd_primer\nATGGTGAGCAAG"
        known = with_known_call(args, "summarize", {"sequence": record})
        assert arg(known["summarize"], "sequence").examples[0] == record
        assert arg(known["translate"], "sequence").examples[0] == record
        assert record not in arg(known["align"], "sequence").examples
        refused = with_known_call(args, "translate", {"sequence": record, "table": "eleven"})
        assert arg(refused["translate"], "sequence").examples[0] == record
        assert "eleven" not in arg(refused["translate"], "table").examples
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        planned = synth.valid_arguments(tools["translate"], known["translate"], 0)
        assert planned is not None and planned.arguments["sequence"] == record


class TestSearchAndReplace:
    def test_a_tool_that_searches_and_replaces_changes_what_it_searches(self) -> None:
        """``search_and_replace``: of the verbs its name joins, the one that writes decides; what it looks for is text
        that exists (``find_text``), what it writes is new text."""
        text = {"type": "string"}
        tool = _tool("search_and_replace", "Search for text and replace all occurrences.",
                     {"filename": text, "find_text": text, "replace_text": text})
        assert tool_effect(tool) is ToolEffect.UPDATE
        kinds = {s.name: s.kind for s in infer_arguments(tool)}
        assert kinds["find_text"] is ArgKind.EXISTING_TEXT and kinds["replace_text"] is ArgKind.TEXT
        search = _tool("search_notes", "Search the notes.", {"search_text": text})
        assert tool_effect(search) is ToolEffect.READ
        assert [s.kind for s in infer_arguments(search)] != [ArgKind.EXISTING_TEXT]


class TestIdentifiersOfFilesAndEntities:
    def test_an_id_of_a_file_or_an_entity_is_an_identifier(self) -> None:
        """``file_id`` an open returned and an entity's ``handle`` name things the server holds by id: no path to a
        file, no name in a knowledge graph; a ``file_path`` stays a path and a ``file_id`` described as a path
        one."""
        tool = make("get_entity", {
            "file_id": {"type": "string", "description": "The file identifier returned by upload_dxf."},
            "handle": {"type": "string", "description": "The entity handle (hex string from entity listings)."},
            "file_path": {"type": "string", "description": "Path to a DXF file on the filesystem."},
        }, ["file_id", "handle"], description="Get full details of a single entity by its handle.")
        kinds = {s.name: s.kind for s in infer_arguments(tool)}
        assert kinds == {"file_id": ArgKind.IDENTIFIER, "handle": ArgKind.IDENTIFIER, "file_path": ArgKind.FILE_PATH}
        described = make("read_upload", {"file_id": {"type": "string", "description": "Path of the uploaded file."}},
                         ["file_id"], description="Read an uploaded file.")
        assert infer_arguments(described)[0].kind is not ArgKind.IDENTIFIER
