"""Guidance quality on a real demo atlas: the session's offline build (bootstrap + 2 rounds) of the demo servers.

The evaluation runs end to end over the whole task set, and the atlas's guidance beats the
docs-only baseline where the atlas knows more than the docs: it serves the boundaries the build
verified, and it finds the needed tools more often, for at most 1.5 times the docs' tokens.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.evaluation import AtlasGuidance, DocsOnly, check_tools, evaluate, load_tasks, summarise
from toolatlas.graph.models import EntryKind
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.guidance.profiles import answer_line

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def demo_atlas(demo_build) -> Atlas:  # type: ignore[no-untyped-def]
    """The session's offline build of the demo catalogue, loaded for guidance."""
    records = demo_build.records
    return Atlas(AtlasView(records["tools"], records["entries"], records["traces"], records["strategies"]), name="demo")


class TestDemoQuality:
    def test_every_needed_tool_is_in_the_atlas(self, demo_atlas: Atlas) -> None:
        """The task set only needs tools the demo servers expose."""
        check_tools(load_tasks(), [f"{server}.{tool}" for server, tool in demo_atlas.view.tool_keys])

    def test_atlas_serves_known_boundaries_more_often_than_docs(self, demo_atlas: Atlas) -> None:
        """Boundary inclusion and recall@5 of the atlas beat docs-only over all tasks, and each boundary
        the docs happen to state is served by the atlas too."""
        tasks = load_tasks()
        atlas = evaluate(AtlasGuidance(demo_atlas), tasks)
        docs = evaluate(DocsOnly(demo_atlas.view), tasks)
        assert len(atlas) == len(docs) == len(tasks)
        assert all(0.0 <= r.recall <= 1.0 and len(r.top) <= 5 for r in atlas + docs)
        a, d = summarise("atlas", atlas), summarise("docs-only", docs)
        assert a.boundary_tasks == d.boundary_tasks > 0
        assert a.boundary_inclusion > d.boundary_inclusion
        assert a.recall_at_5 > d.recall_at_5
        assert a.mean_tokens <= 1.5 * d.mean_tokens  # it pays its way

    def test_served_boundaries_quote_the_server(self, demo_atlas: Atlas) -> None:
        """Each hinted boundary the atlas serves is a verified boundary entry quoting the server's error
        (without the names its probe invented)."""
        served = 0
        for task in (t for t in load_tasks() if t.boundary_hint):
            guidance = demo_atlas.guide(task.text)
            for note in (b for t in guidance.tools for b in t.when_not):
                if task.boundary_hint.lower() not in f"{note.condition}\n{note.error}".lower():
                    continue
                entry = demo_atlas.view.entries[note.entry_id]
                assert entry.kind is EntryKind.BOUNDARY and note.evidence
                said = entry.evidence[0]
                assert note.error == answer_line(said.excerpt, said.arguments)
                served += 1
        assert served > 0
