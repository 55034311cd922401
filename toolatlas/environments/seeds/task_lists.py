"""``wild.todo`` and ``wild.tasks``: task lists kept in one text file and in one JSON file.

``wild.todo`` is a folder with a ``todo.txt`` in the todo.txt format (priorities, creation
dates, ``+projects``, ``@contexts``, one completed task) and its ``done.txt``. ``wild.tasks`` is
the JSON file of a request/task manager (``{"requests": [...]}``, ``JSON.stringify(data, null,
2)`` layout): one request half done (a task done and approved, one done but not yet approved, one
open), one fresh request, and one request completed and approved — so the workflow's every
step has something to act on.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolatlas.environments.seeds._registry import pin_times, seed, write_text

__all__ = ["REQUESTS", "build_task_file", "build_todo_txt"]

TODO_TXT = """(A) 2024-01-02 Call the plumber about the leak +house @phone
(B) 2024-01-03 Review the quarterly report +work @office due:2024-01-12
2024-01-04 Buy coffee filters +house @errands
(C) 2024-01-05 Renew the passport +admin @online
2024-01-06 Plan the team offsite +work @office
x 2024-01-07 2024-01-02 Pay the electricity bill +house @online
"""
DONE_TXT = "x 2023-12-20 2023-12-18 Book flights for the holidays +travel @online\n"


@seed("wild.todo", kind="directory")
def build_todo_txt(dest: Path) -> None:
    """Write the todo.txt folder at ``dest``."""
    dest.mkdir()
    write_text(dest / "todo.txt", TODO_TXT)
    write_text(dest / "done.txt", DONE_TXT)
    pin_times(dest)


def _task(
    number: int,
    title: str,
    description: str,
    *,
    done: bool = False,
    approved: bool = False,
    details: str = "",
) -> dict[str, object]:
    return {
        "id": f"task-{number}",
        "title": title,
        "description": description,
        "done": done,
        "approved": approved,
        "completedDetails": details,
    }


REQUESTS: list[dict[str, object]] = [
    {
        "requestId": "req-1",
        "originalRequest": "Publish the spring newsletter",
        "splitDetails": "Write, review and send the spring newsletter",
        "tasks": [
            _task(
                1,
                "Draft articles",
                "Write the three lead articles",
                done=True,
                approved=True,
                details="Three drafts in the shared folder",
            ),
            _task(2, "Proofread", "Check spelling and links", done=True, details="Fixed 14 typos"),
            _task(3, "Send newsletter", "Send it to the subscriber list"),
        ],
        "completed": False,
    },
    {
        "requestId": "req-2",
        "originalRequest": "Move the office to the second floor",
        "splitDetails": "Move the office to the second floor",
        "tasks": [
            _task(4, "Book movers", "Get two quotes and book one"),
            _task(5, "Label boxes", "Label every box with its new room"),
        ],
        "completed": False,
    },
    {
        "requestId": "req-3",
        "originalRequest": "Renew the domain name",
        "splitDetails": "Renew the domain name",
        "tasks": [
            _task(
                6,
                "Pay the registrar",
                "Renew for two years",
                done=True,
                approved=True,
                details="Renewed until 2026",
            )
        ],
        "completed": True,
    },
]


@seed("wild.tasks", kind="json_file")
def build_task_file(dest: Path) -> None:
    """Write the task manager's JSON file at ``dest``."""
    write_text(dest, json.dumps({"requests": REQUESTS}, indent=2, ensure_ascii=False))
    pin_times(dest)
