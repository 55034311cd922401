"""The unseen catalogue's guidance tasks: well-formed, all development tasks, over the unseen servers only."""

from __future__ import annotations

from pathlib import Path

from toolatlas.config import load_catalogue
from toolatlas.evaluation import load_tasks

REPO = Path(__file__).resolve().parents[2]
UNSEEN_TASKS = REPO / "toolatlas" / "evaluation" / "unseen_tasks.toml"


class TestUnseenTasks:
    def test_every_task_is_dev_and_every_server_has_four_or_more(self):
        """Every unseen server has 4+ tasks, each a development task, and some tasks carry a boundary hint."""
        tasks = load_tasks(UNSEEN_TASKS)
        servers = {s.name for s in load_catalogue(REPO / "configs" / "unseen.toml").servers}
        assert set().union(*(t.servers for t in tasks)) == servers
        assert all(sum(server in t.servers for t in tasks) >= 4 for server in servers)
        assert len(load_tasks(UNSEEN_TASKS, split="dev")) == len(tasks)
        assert any(t.boundary_hint for t in tasks)

    def test_no_task_names_a_tool(self):
        """A request is written as a user would say it: no compound tool name appears in its text."""
        for task in load_tasks(UNSEEN_TASKS):
            for tool in task.tools:
                name = tool.split(".", 1)[1]
                assert not ("_" in name or "-" in name) or name not in task.text, (task.id, tool)
