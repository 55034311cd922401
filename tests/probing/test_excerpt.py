"""What of an answer is kept as evidence: all of a short one, the beginning and the end of a long one."""

from __future__ import annotations

import json

from toolatlas.probing.text import ELISION, EXCERPT_CHARS, TAIL_CHARS, evidence_excerpt, excerpts_agree


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

