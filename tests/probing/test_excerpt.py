"""What of an answer is kept as evidence: all of a short one, the beginning and the end of a long one."""

from __future__ import annotations

import json

from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.models import OutcomeClass, ToolSpec
from toolatlas.probing.models import Direction, ProbeStep
from toolatlas.probing.text import ELISION, EXCERPT_CHARS, TAIL_CHARS, evidence_excerpt, excerpts_agree

LISTING = ToolSpec(server="s", name="list_todos", description="List the todos.", input_schema={
    "type": "object", "properties": {"priority": {"type": "string"}}})


def long_listing(count: int) -> str:
    """A JSON answer whose sum stands after many records, as listings print it."""
    todos = [{"id": str(n), "text": f"Todo number {n} of the list", "priority": "A"} for n in range(12)]
    return json.dumps({"todos": todos, "count": count, "priority": "A"}, indent=2)


class TestEvidenceExcerpt:
    def test_a_short_answer_is_kept_whole(self) -> None:
        """An answer that fits the beginning and the end together is kept as it is."""
        text = "x" * (EXCERPT_CHARS + TAIL_CHARS)
        assert evidence_excerpt(text) == text

    def test_a_long_answer_keeps_its_beginning_and_its_end(self) -> None:
        """A long JSON answer keeps its first characters and its last ones, where its count stands."""
        text = long_listing(12)
        kept = evidence_excerpt(text)
        assert kept.startswith(text[:EXCERPT_CHARS]) and kept.endswith(text[-TAIL_CHARS:])
        assert ELISION in kept and '"count": 12' in kept and len(kept) < len(text)

    def test_answers_agree_by_what_is_kept(self) -> None:
        """Two answers that differ only at their end do not agree; an excerpt cut at the beginning alone
        agrees with any answer that begins the same."""
        assert excerpts_agree(long_listing(12), evidence_excerpt(long_listing(12)))
        assert not excerpts_agree(long_listing(11), evidence_excerpt(long_listing(12)))
        assert excerpts_agree(long_listing(11), long_listing(12)[:EXCERPT_CHARS])


class TestEvidenceOfAnEntry:
    def test_an_affordance_shows_the_end_of_a_long_answer(self) -> None:
        """The evidence of a use keeps the count a long listing states at its end."""
        from tests.graph.test_inducer import rollout

        graph = ServerGraph("s", [LISTING])
        step = ProbeStep(tool="list_todos", arguments={"priority": "A"}, expect="ok")
        Inducer(graph).induce(*rollout([step], [(OutcomeClass.OK, long_listing(12))], direction=Direction.SEED))
        [entry] = [e for e in graph.entries.values() if e.kind is EntryKind.AFFORDANCE]
        assert '"count": 12' in entry.evidence[0].excerpt
