"""The wild catalogue's guidance tasks: well-formed, split in halves, over the wild servers only."""

from __future__ import annotations

from pathlib import Path

from toolatlas.config import load_catalogue
from toolatlas.evaluation import load_tasks

REPO = Path(__file__).resolve().parents[2]
WILD_TASKS = REPO / "toolatlas" / "evaluation" / "wild_tasks.toml"


def test_tasks_split_in_halves_over_every_wild_server():
    """Every wild server has tasks, dev and held are the same size, and each split has boundary tasks."""
    tasks = load_tasks(WILD_TASKS)
    servers = {s.name for s in load_catalogue(REPO / "configs" / "wild.toml").servers}
    assert set().union(*(t.servers for t in tasks)) == servers
    dev, held = load_tasks(WILD_TASKS, split="dev"), load_tasks(WILD_TASKS, split="held")
    assert len(dev) == len(held) and len(dev) + len(held) == len(tasks)
    assert any(t.boundary_hint for t in dev) and any(t.boundary_hint for t in held)


def test_no_task_names_a_tool():
    """A request is written as a user would say it: no compound tool name (``get_next_task``,
    ``lint-files``) appears in its text (one-word names such as ``convert`` are ordinary words)."""
    for task in load_tasks(WILD_TASKS):
        for tool in task.tools:
            name = tool.split(".", 1)[1]
            assert not ("_" in name or "-" in name) or name not in task.text, (task.id, tool)
