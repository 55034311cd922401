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


class TestSupersededSignatures:
    def test_affordances_stored_one_per_effect_go_stale_on_load(self) -> None:
        """An affordance stored as ``uses:<shape>|<effect>`` is marked stale when a build loads it."""
        from toolatlas.graph.models import Entry, EntryKind, EntryStatus
        from toolatlas.graph.state import ServerGraph
        from toolatlas.models import ToolSpec

        spec = ToolSpec(server="s", name="t", description="d", input_schema={"type": "object", "properties": {}})
        graph = ServerGraph("s", [spec])
        old = Entry(id="e1", kind=EntryKind.AFFORDANCE, server="s", tool="t", schema_hash=spec.schema_hash,
                    signature="uses:|read_only", text="x")
        now = old.model_copy(update={"id": "e2", "signature": "uses:"})
        assert graph.load({"entries": [old, now]}) == 1
        assert graph.entries["e1"].status is EntryStatus.STALE and graph.entries["e2"].status is EntryStatus.ACTIVE
