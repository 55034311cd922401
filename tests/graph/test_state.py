"""The per-server build state: what it persists."""

from __future__ import annotations

from toolatlas.graph.state import ServerGraph
from toolatlas.models import ToolSpec

SPECS = [
    ToolSpec(server="s", name=name, description=f"{name} things.", input_schema={"type": "object", "properties": {}})
    for name in ("list_things", "never_called")
]


class TestPersisting:
    def test_every_tool_node_is_persisted_before_any_probe(self) -> None:
        """A tool no probe has reached (or ever reaches) is still a node of the atlas: the first persist holds them all."""
        graph = ServerGraph("s", iter(SPECS))
        layers = graph.take_dirty()
        assert sorted(node.tool for node in layers["tools"]) == ["list_things", "never_called"]
        assert graph.take_dirty()["tools"] == []
