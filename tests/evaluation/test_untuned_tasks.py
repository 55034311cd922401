"""The guidance tasks of the catalogues written untuned: well-formed, one split each, over their own catalogue's servers."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.evaluation import load_tasks

REPO = Path(__file__).resolve().parents[2]
CATALOGUES = [("unseen", "unseen", "dev"), ("heldout", "heldout", "held"), ("heldout2", "heldout2", "held"),
              ("heldout2_dev", "heldout2", "dev"), ("heldout3", "heldout3", "held"), ("heldout3_dev", "heldout3", "dev"),
              ("heldout4", "heldout4", "held"), ("heldout4_dev", "heldout4", "dev"), ("heldout5", "heldout5", "held"),
              ("heldout5_dev", "heldout5", "dev"), ("heldout6", "heldout6", "held"), ("heldout6_dev", "heldout6", "dev"),
              ("heldout7", "heldout7", "held"), ("heldout7_dev", "heldout7", "dev"), ("heldout8", "heldout8", "held"),
              ("heldout8_dev", "heldout8", "dev"), ("heldout9", "heldout9", "held"), ("heldout9_dev", "heldout9", "dev"),
              ("heldout10", "heldout10", "held"), ("heldout10_dev", "heldout10", "dev"),
              ("heldout11", "heldout11", "held"), ("heldout11_dev", "heldout11", "dev"),
              ("heldout12", "heldout12", "held"), ("heldout12_dev", "heldout12", "dev"),
              ("heldout13", "heldout13", "held"), ("heldout13_dev", "heldout13", "dev"),
              ("heldout14", "heldout14", "held"), ("heldout14_dev", "heldout14", "dev"),
              ("heldout15", "heldout15", "held"), ("heldout15_dev", "heldout15", "dev")]
"""Task files written to be measured untuned (``toolatlas/evaluation/<name>_tasks.toml``), the catalogue each is
over and the split of all their tasks: ``unseen`` is a development set since its one held-out figure, and
``heldout2_dev``, ``heldout3_dev``, ``heldout4_dev``, ``heldout5_dev``, ``heldout6_dev``, ``heldout7_dev``,
``heldout8_dev``, ``heldout9_dev``, ``heldout10_dev``, ``heldout11_dev``, ``heldout12_dev``, ``heldout13_dev``,
``heldout14_dev`` and ``heldout15_dev`` development tasks written apart from the third, fourth, fifth, sixth, seventh,
eighth, ninth, tenth, eleventh, twelfth, thirteenth, fourteenth, fifteenth and sixteenth held-out catalogues' held
ones."""


def task_file(name: str) -> Path:
    return REPO / "toolatlas" / "evaluation" / f"{name}_tasks.toml"


@pytest.mark.parametrize(("name", "catalogue", "split"), CATALOGUES)
class TestUntunedCatalogueTasks:
    def test_every_task_has_the_split_and_every_server_four_or_more(self, name, catalogue, split):
        """Every server of the catalogue has 4+ tasks, all of the catalogue's split, and some tasks carry a boundary hint."""
        tasks = load_tasks(task_file(name))
        servers = {s.name for s in load_catalogue(REPO / "configs" / f"{catalogue}.toml").servers}
        assert set().union(*(t.servers for t in tasks)) == servers
        assert all(sum(server in t.servers for t in tasks) >= 4 for server in servers)
        assert len(load_tasks(task_file(name), split=split)) == len(tasks)
        assert any(t.boundary_hint for t in tasks)

    def test_no_task_names_a_tool(self, name, catalogue, split):
        """A request is written as a user would say it: no compound tool name appears in its text."""
        for task in load_tasks(task_file(name)):
            for tool in task.tools:
                tool_name = tool.split(".", 1)[1]
                assert not ("_" in tool_name or "-" in tool_name) or tool_name not in task.text, (task.id, tool)
