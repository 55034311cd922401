"""A small atlas of two servers nobody tuned guidance on: a notes service and a calendar.

Nothing here is a filesystem: the same mechanisms (operations, gaps, discovery, routing, boundaries,
clauses) have to work from these tools' own names, schemas, descriptions and entries.
"""

from __future__ import annotations

from toolatlas.graph.models import CoUsageRelation, Entry, EntryKind, Evidence, ToolNode
from toolatlas.guidance import AtlasView
from toolatlas.models import Effect, OutcomeClass, ToolAnnotations


def node(server: str, name: str, description: str, required: tuple[str, ...] = (), *, read_only: bool,
         optional: tuple[str, ...] = ()) -> ToolNode:
    properties = {arg: {"type": "string"} for arg in (*required, *optional)}
    return ToolNode(id=f"{server}.{name}", server=server, tool=name, schema_hash="h", description=description,
                    input_schema={"type": "object", "properties": properties, "required": list(required)},
                    annotations=ToolAnnotations(read_only=read_only))


_count = iter(range(10**6))


def entry(server: str, tool: str, kind: EntryKind, *, arguments: dict | None = None, excerpt: str = "ok",
          outcome: OutcomeClass = OutcomeClass.OK, **fields) -> Entry:
    n = next(_count)
    evidence = Evidence(probe_id=f"p{n}", tool=tool, arguments=arguments or {}, outcome=outcome, excerpt=excerpt)
    return Entry(id=f"{server}.{tool}.{kind.value}.{n}", kind=kind, server=server, tool=tool, schema_hash="h",
                 signature=f"{kind.value}:{n}", text=fields.pop("text", f"{tool} finding {n}"), evidence=[evidence],
                 probe_ids=[evidence.probe_id], outcome=outcome, **fields)


def notes_tools() -> list[ToolNode]:
    return [
        node("notes", "list_notebooks", "Return the names of every notebook.", read_only=True),
        node("notes", "open_note", "Read the text of one note.", ("notebook", "title"), read_only=True),
        node("notes", "save_note", "Save a note with a title and a body. Replaces the note if one exists with that "
             "title. Perfect for quick capture.", ("notebook", "title", "body"), read_only=False),
        node("notes", "create_notebook", "Create a new notebook.", ("name",), read_only=False),
        node("notes", "find_notes", "Find notes by title. The pattern is a glob-style pattern matched against note "
             "titles. Great for finding notes quickly.", ("pattern",), read_only=True),
        node("notes", "rename_note", "Rename a note within its notebook.", ("notebook", "title", "new_title"),
             read_only=False),
        node("calendar", "list_events", "List the events of a day.", ("day",), read_only=True),
        node("calendar", "add_event", "Add an event to the calendar on a day.", ("day", "summary"), read_only=False),
    ]


def notes_entries(*, rename_entries: int = 0) -> list[Entry]:
    fail = OutcomeClass.TOOL_ERROR
    found = [
        entry("notes", "list_notebooks", EntryKind.AFFORDANCE, when="list the notebooks", effect=Effect.READ_ONLY),
        entry("notes", "list_notebooks", EntryKind.CO_USAGE, peer="open_note", relation=CoUsageRelation.DATA, weight=0.5,
              transitions=2, text="`list_notebooks` output supplies inputs of `open_note`"),
        entry("notes", "list_notebooks", EntryKind.CO_USAGE, peer="save_note", relation=CoUsageRelation.DATA,
              weight=0.4, transitions=2, text="`list_notebooks` output supplies inputs of `save_note`"),
        entry("notes", "open_note", EntryKind.AFFORDANCE, when="read a note", effect=Effect.READ_ONLY,
              arguments={"notebook": "work", "title": "todo"}, example_arguments={"notebook": "work", "title": "todo"}),
        entry("notes", "save_note", EntryKind.AFFORDANCE, when="save a note", effect=Effect.MUTATING,
              arguments={"notebook": "work", "title": "probe_7b43", "body": "x"},
              example_arguments={"notebook": "work", "title": "probe_7b43", "body": "x"},
              text="`save_note` works; it changes the environment (added: probe_7b43)"),
        entry("notes", "save_note", EntryKind.AFFORDANCE, family="already_exists", effect=Effect.MUTATING,
              when="`title` names a note that already exists (accepted)",
              text="`save_note` accepts the call even when `title` names a note that already exists"),
        entry("notes", "save_note", EntryKind.BOUNDARY, family="null_value", condition="`body` is null", outcome=fail,
              error_signature="Input validation error: body must be a string", support=9,
              excerpt="Input validation error: body must be a string"),
        entry("notes", "save_note", EntryKind.BOUNDARY, family="wrong_type", condition="`title` is a number",
              outcome=fail, error_signature="Input validation error: title must be a string", support=8,
              excerpt="Input validation error: title must be a string"),
        *(entry("notes", "save_note", EntryKind.BOUNDARY, family="missing_parent", outcome=fail,
                condition=f"`notebook` names a notebook that does not exist (`{name}`)",
                error_signature=f"Notebook '{name}' not found", excerpt=f"Notebook '{name}' not found",
                arguments={"notebook": name, "title": "t", "body": "x"})
          for name in ("missing_b200", "missing_d9b9")),
        entry("notes", "create_notebook", EntryKind.AFFORDANCE, when="create a notebook", effect=Effect.MUTATING),
        entry("notes", "find_notes", EntryKind.AFFORDANCE, when="find notes by title", effect=Effect.READ_ONLY),
        entry("calendar", "add_event", EntryKind.AFFORDANCE, when="add an event", effect=Effect.MUTATING),
        entry("calendar", "list_events", EntryKind.AFFORDANCE, when="list a day's events", effect=Effect.READ_ONLY),
    ]
    # a tool the atlas knows a lot about, with words of every notes task in its entries
    found += [entry("notes", "rename_note", EntryKind.AFFORDANCE, when=f"rename a note in the work notebook {i}",
                    effect=Effect.MUTATING, arguments={"notebook": "work", "title": "todo", "new_title": f"body {i}"})
              for i in range(rename_entries)]
    return found


def notes_atlas(*, rename_entries: int = 0) -> AtlasView:
    return AtlasView(notes_tools(), notes_entries(rename_entries=rename_entries), [], [])
