"""The ``todo`` template: add, complete, reopen and list tasks with a priority and a due date.

Boundaries: unknown id → not found; an open task with the same title → already exists; the
priority is an enum; the due date must lie in a fixed range; completing a completed task and
reopening an open one are refused. Data flow: ``list`` returns ids that the other tools take.
"""

from __future__ import annotations

import random
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from toolatlas.testing.servers.templates.base import (
    AlreadyExists,
    Arg,
    Deleted,
    OutOfRange,
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

TYPE = "task"
EARLIEST, LATEST = date(2000, 1, 1), date(2099, 12, 31)


class Task(BaseModel):
    id: str
    title: str
    priority: str
    due: str | None = Field(description="ISO date, or null")
    done: bool


class TaskList(BaseModel):
    tasks: list[Task]
    total: int = Field(description="matching tasks before the limit was applied")


def _nouns(v: Variant) -> tuple[str, str, str]:
    return v.pick("noun", (("task", "tasks", "t"), ("todo", "todos", "todo"), ("item", "items", "it")))


def _priorities(v: Variant) -> tuple[str, ...]:
    return v.pick(
        "priorities", (("low", "normal", "high"), ("low", "medium", "high", "urgent"), ("p1", "p2", "p3"))
    )


def tools(v: Variant) -> list[ToolDef]:
    noun, plural, prefix = _nouns(v)
    title_max = v.pick("title_max", (60, 100, 140))
    levels = _priorities(v)
    default_level = levels[1]
    priority_type = Annotated[
        Literal[levels],  # type: ignore[valid-type]  # the variant's own levels, drawn at run time
        Field(description=f"How urgent the {noun} is: {', '.join(levels)}."),
    ]
    due_type = Annotated[
        date,
        Field(description=f"Due date, YYYY-MM-DD, between {EARLIEST.isoformat()} and {LATEST.isoformat()}."),
    ]
    title_type = text_arg(v, f"What needs doing; open {plural} have distinct titles", title_max)
    id_name = v.pick("id_arg", (f"{noun}_id", "id"))
    id_type = Annotated[
        str,
        Field(
            description=f"Id of an existing {noun}, from the list or add tools (e.g. {prefix}-0001).",
            examples=[f"{prefix}-0001", f"{prefix}-0002"],
        ),
    ]
    id_arg = Arg("task_id", id_name, id_type)
    status_type = Annotated[Literal["open", "done", "all"], Field(description=f"Which {plural} to list.")]
    limit_type, limit_default = limit_arg(v, plural)
    verb_complete = v.pick("verb_complete", ("complete", "finish", "check"))

    def add(state: dict[str, Any], title: str, priority: str, due: date | None) -> Task:
        check_length("title", title, title_max)
        if due is not None and not EARLIEST <= due <= LATEST:
            raise OutOfRange(
                f"due date {due.isoformat()} is out of range ({EARLIEST.isoformat()} to {LATEST.isoformat()})"
            )
        for other_id, other in records(state, TYPE).items():
            if not other["done"] and other["title"].casefold() == title.casefold():
                raise AlreadyExists(f"an open {noun} titled {title!r} already exists ({other_id})")
        task_id = new_id(state, prefix)
        state[f"{TYPE}:{task_id}"] = {
            "title": title,
            "priority": priority,
            "due": due.isoformat() if due else None,
            "done": False,
        }
        return Task(id=task_id, **state[f"{TYPE}:{task_id}"])

    def get(state: dict[str, Any], task_id: str) -> Task:
        return Task(id=task_id, **record(state, TYPE, task_id, noun))

    def complete(state: dict[str, Any], task_id: str) -> Task:
        found = record(state, TYPE, task_id, noun)
        if found["done"]:
            raise Refusal(f"{noun} {task_id!r} is already completed")
        found["done"] = True
        return Task(id=task_id, **found)

    def reopen(state: dict[str, Any], task_id: str) -> Task:
        found = record(state, TYPE, task_id, noun)
        if not found["done"]:
            raise Refusal(f"{noun} {task_id!r} is not completed, so it cannot be reopened")
        found["done"] = False
        return Task(id=task_id, **found)

    def list_(state: dict[str, Any], status: str, priority: str | None, limit: int) -> TaskList:
        found = [
            Task(id=i, **t)
            for i, t in records(state, TYPE).items()
            if (status == "all" or t["done"] == (status == "done"))
            and (priority is None or t["priority"] == priority)
        ]
        return TaskList(tasks=found[:limit], total=len(found))

    def delete(state: dict[str, Any], task_id: str) -> Deleted:
        record(state, TYPE, task_id, noun)
        del state[f"{TYPE}:{task_id}"]
        return Deleted(id=task_id)

    made = [
        ToolDef(
            v.tool_name("add", noun),
            f"Add an open {noun} with a priority ({', '.join(levels)}; default {default_level}) "
            f"and an optional due date. Returns the {noun} with its new id.",
            (
                Arg("title", "title", title_type),
                Arg("priority", "priority", priority_type, default_level),
                Arg("due", v.pick("due_arg", ("due", "due_date")), optional(due_type), None),
            ),
            body=add,
            returns=Task,
            action="add",
            read_only=False,
        ),
        ToolDef(
            v.tool_name("get", noun),
            f"Read one {noun} by id.",
            (id_arg,),
            body=get,
            returns=Task,
            action="get",
            read_only=True,
        ),
        ToolDef(
            v.tool_name(verb_complete, noun),
            f"Mark an open {noun} as done. Completing a {noun} that is already done fails.",
            (id_arg,),
            body=complete,
            returns=Task,
            action="complete",
            read_only=False,
        ),
        ToolDef(
            v.tool_name("reopen", noun),
            f"Mark a done {noun} as open again. Reopening an open {noun} fails.",
            (id_arg,),
            body=reopen,
            returns=Task,
            action="reopen",
            read_only=False,
        ),
        ToolDef(
            v.tool_name("list", plural),
            f"List {plural} by status (open, done or all; default open), optionally of one priority.",
            (
                Arg("status", "status", status_type, "open"),
                Arg("priority", "priority", optional(priority_type), None),
                Arg("limit", "limit", limit_type, limit_default),
            ),
            body=list_,
            returns=TaskList,
            action="list",
            read_only=True,
        ),
    ]
    if v.flag("has_delete"):
        made.append(
            ToolDef(
                v.tool_name("delete", noun),
                f"Delete a {noun} by id, open or done.",
                (id_arg,),
                body=delete,
                returns=Deleted,
                action="delete",
                read_only=False,
                destructive=True,
            )
        )
    return made


def smoke(v: Variant) -> tuple[str, dict[str, Any]]:
    return v.tool_name("list", _nouns(v)[1]), {}


_TASKS = (
    "Renew passport",
    "Pay the electricity bill",
    "Book a dentist appointment",
    "Write the quarterly report",
    "Fix the leaking tap",
    "Call the bank about the card",
    "Prepare slides for Monday",
    "Water the plants",
)


def seed(v: Variant, rng: random.Random) -> dict[str, Any]:
    levels = _priorities(v)
    state: dict[str, Any] = {}
    for number, title in enumerate(rng.sample(_TASKS, rng.randint(3, 6))):
        task_id = new_id(state, _nouns(v)[2])
        due = date(2026, rng.randint(1, 12), rng.randint(1, 28)).isoformat() if rng.random() < 0.6 else None
        done = number == 1 or (number > 1 and rng.random() < 0.3)  # the first task is open, the second done
        state[f"{TYPE}:{task_id}"] = {
            "title": title,
            "priority": rng.choice(levels),
            "due": due,
            "done": done,
        }
    return state
