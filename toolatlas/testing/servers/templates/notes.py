"""The ``notes`` template: create, read, update, delete and search notes with tags.

Boundaries: unknown id → not found; a second note with the same title → already exists; title,
body and tag count have limits; tags have a pattern; an update must change something.
Data flow: ``list``/``search`` return ids that ``get``/``update``/``delete`` take.
"""

from __future__ import annotations

import random
from typing import Annotated, Any

from pydantic import BaseModel, Field

from toolatlas.testing.servers.templates.base import (
    AlreadyExists,
    Arg,
    Deleted,
    Refusal,
    ToolDef,
    Variant,
    check_length,
    limit_arg,
    new_id,
    optional,
    record,
    records,
    text_arg,
)

__all__ = ["seed", "smoke", "tools"]

TYPE = "note"
TAG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,19}$"


class Note(BaseModel):
    id: str
    title: str
    body: str
    tags: list[str]
    revision: int


class NoteSummary(BaseModel):
    id: str
    title: str
    tags: list[str]


class NoteList(BaseModel):
    notes: list[NoteSummary]
    total: int = Field(description="matches before the limit was applied")


def _nouns(v: Variant) -> tuple[str, str, str]:
    """``(noun, plural, id prefix)``."""
    return v.pick("noun", (("note", "notes", "nt"), ("memo", "memos", "memo"), ("page", "pages", "pg")))


def _limits(v: Variant) -> tuple[int, int, int]:
    """``(max title, max body, max tags)``."""
    return (
        v.pick("title_max", (40, 60, 80, 120)),
        v.pick("body_max", (500, 2000, 4000)),
        v.pick("tags_max", (3, 5, 8)),
    )


def tools(v: Variant) -> list[ToolDef]:
    noun, plural, prefix = _nouns(v)
    title_max, body_max, tags_max = _limits(v)
    id_name = v.pick("id_arg", (f"{noun}_id", "id"))
    id_type = Annotated[
        str,
        Field(
            description=f"Id of an existing {noun}, as the list and create tools return it "
            f"(e.g. {prefix}-0001).",
            examples=[f"{prefix}-0001", f"{prefix}-0002"],
        ),
    ]
    tag = Annotated[str, Field(pattern=TAG_PATTERN, description="A lower-case tag: letters, digits and '-'.")]
    tags_type = Annotated[list[tag], Field(max_length=tags_max, description=f"Up to {tags_max} tags.")]
    title_type = text_arg(v, f"Title of the {noun}, unique among {plural}", title_max)
    body_type = text_arg(v, f"Text of the {noun}", body_max, min_length=0)
    limit_type, limit_default = limit_arg(v, plural)
    verb_get = v.pick("verb_get", ("get", "read", "fetch"))
    verb_create = v.pick("verb_create", ("create", "add", "new"))
    body_name = v.pick("body_arg", ("body", "content", "text"))

    def create(state: dict[str, Any], title: str, body: str, tags: list[str]) -> Note:
        check_length("title", title, title_max)
        check_length("body", body, body_max, min_length=0)
        _unique_title(state, title, noun)
        note_id = new_id(state, prefix)
        state[f"{TYPE}:{note_id}"] = {"title": title, "body": body, "tags": sorted(set(tags)), "revision": 1}
        return _note(note_id, state[f"{TYPE}:{note_id}"])

    def get(state: dict[str, Any], note_id: str) -> Note:
        return _note(note_id, record(state, TYPE, note_id, noun))

    def update(
        state: dict[str, Any], note_id: str, title: str | None, body: str | None, tags: list[str] | None
    ) -> Note:
        found = record(state, TYPE, note_id, noun)
        if title is None and body is None and tags is None:
            raise Refusal("nothing to update: give at least one of title, body or tags")
        if title is not None:
            check_length("title", title, title_max)
            _unique_title(state, title, noun, besides=note_id)
            found["title"] = title
        if body is not None:
            found["body"] = check_length("body", body, body_max, min_length=0)
        if tags is not None:
            found["tags"] = sorted(set(tags))
        found["revision"] += 1
        return _note(note_id, found)

    def delete(state: dict[str, Any], note_id: str) -> Deleted:
        record(state, TYPE, note_id, noun)
        del state[f"{TYPE}:{note_id}"]
        return Deleted(id=note_id)

    def list_(state: dict[str, Any], tag: str | None, limit: int) -> NoteList:
        found = [(i, n) for i, n in records(state, TYPE).items() if tag is None or tag in n["tags"]]
        return _listing(found, limit)

    def search(state: dict[str, Any], query: str, limit: int) -> NoteList:
        needle = query.lower()
        found = [
            (i, n)
            for i, n in records(state, TYPE).items()
            if needle in n["title"].lower() or needle in n["body"].lower()
        ]
        return _listing(found, limit)

    id_arg = Arg("note_id", id_name, id_type)
    limit = Arg("limit", "limit", limit_type, limit_default)
    return [
        ToolDef(
            v.tool_name(verb_create, noun),
            f"Create a {noun} with a title, a text and tags. Titles are unique: creating a second {noun} "
            f"with the same title fails. Returns the new {noun} with its id.",
            (
                Arg("title", "title", title_type),
                Arg("body", body_name, body_type, ""),
                Arg("tags", "tags", tags_type, []),
            ),
            body=create,
            returns=Note,
            action="create",
            read_only=False,
        ),
        ToolDef(
            v.tool_name(verb_get, noun),
            f"Read one {noun} by id: its title, text, tags and revision.",
            (id_arg,),
            body=get,
            returns=Note,
            action="get",
            read_only=True,
        ),
        ToolDef(
            v.tool_name("update", noun),
            f"Change the title, text or tags of an existing {noun}; omitted fields stay as they are.",
            (
                id_arg,
                Arg("title", "title", optional(title_type), None),
                Arg("body", body_name, optional(body_type), None),
                Arg("tags", "tags", optional(tags_type), None),
            ),
            body=update,
            returns=Note,
            action="update",
            read_only=False,
        ),
        ToolDef(
            v.tool_name(v.pick("verb_delete", ("delete", "remove")), noun),
            f"Delete a {noun} by id. This cannot be undone.",
            (id_arg,),
            body=delete,
            returns=Deleted,
            action="delete",
            read_only=False,
            destructive=True,
            idempotent=False,
        ),
        ToolDef(
            v.tool_name("list", plural),
            f"List {plural} (id, title, tags) in id order, optionally only those with a tag.",
            (Arg("tag", "tag", optional(tag), None), limit),
            body=list_,
            returns=NoteList,
            action="list",
            read_only=True,
        ),
        ToolDef(
            v.tool_name(v.pick("verb_search", ("search", "find")), plural),
            f"Find {plural} whose title or text contains the query (case-insensitive).",
            (
                Arg(
                    "query",
                    "query",
                    Annotated[
                        str,
                        Field(
                            min_length=1, max_length=100, description="Text to look for (1-100 characters)."
                        ),
                    ],
                ),
                limit,
            ),
            body=search,
            returns=NoteList,
            action="search",
            read_only=True,
        ),
    ]


def _unique_title(state: dict[str, Any], title: str, noun: str, *, besides: str | None = None) -> None:
    for other_id, other in records(state, TYPE).items():
        if other_id != besides and other["title"].casefold() == title.casefold():
            raise AlreadyExists(f"a {noun} titled {title!r} already exists ({other_id})")


def _note(note_id: str, data: dict[str, Any]) -> Note:
    return Note(id=note_id, **data)


def _listing(found: list[tuple[str, dict[str, Any]]], limit: int) -> NoteList:
    summaries = [NoteSummary(id=i, title=n["title"], tags=n["tags"]) for i, n in found[:limit]]
    return NoteList(notes=summaries, total=len(found))


def smoke(v: Variant) -> tuple[str, dict[str, Any]]:
    return v.tool_name("list", _nouns(v)[1]), {}


_TITLES = (
    ("Weekly planning", "Review the backlog and pick three goals for the week.", ["planning", "weekly"]),
    ("Grocery list", "Oat milk, lentils, basil, coffee beans.", ["home"]),
    ("Release checklist", "Bump the version, update the changelog, tag, publish.", ["work", "release"]),
    ("Book ideas", "A field guide to urban birds; a history of maps.", ["ideas", "reading"]),
    ("Meeting with Dana", "Discussed the Q3 roadmap; follow up on hiring.", ["work", "meetings"]),
    ("Trip to Lisbon", "Flights booked for May; look for a place in Alfama.", ["travel"]),
    ("Recipe: dal", "Red lentils, turmeric, cumin, garlic, simmer 25 minutes.", ["cooking", "home"]),
    ("Bug triage notes", "Crash on empty input is the top issue; needs a test.", ["work", "bugs"]),
)


def seed(v: Variant, rng: random.Random) -> dict[str, Any]:
    _, _, prefix = _nouns(v)
    title_max, _, tags_max = _limits(v)
    state: dict[str, Any] = {}
    for title, body, tags in rng.sample(_TITLES, rng.randint(3, 5)):
        note_id = new_id(state, prefix)
        state[f"{TYPE}:{note_id}"] = {
            "title": title[:title_max],
            "body": body,
            "tags": sorted(tags)[:tags_max],
            "revision": 1,
        }
    return state
