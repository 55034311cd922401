"""What of an answer is kept as evidence: all of a short one, the beginning and the end of a long one."""

from __future__ import annotations

import json

from toolatlas.probing.text import ELISION, EXCERPT_CHARS, TAIL_CHARS, evidence_excerpt, excerpts_agree, message_line


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



class TestMessageLine:
    """What a boundary's text quotes of an answer: one line that says something."""

    def test_a_json_object_is_said_by_its_fields(self) -> None:
        answer = json.dumps({"status": "error", "error_message": "Module 'subprocess' is blocked"}, indent=2)
        assert message_line(answer) == 'status: "error", error_message: "Module \'subprocess\' is blocked"'

    def test_a_json_object_kept_cut_is_said_by_the_fields_it_shows_whole(self) -> None:
        answer = json.dumps({"status": "error", "error_type": "ImportError",
                             "error_message": "Module 'subprocess' is blocked in sandbox mode",
                             "traceback": "Traceback (most recent call last):\n" + "  File x\n" * 80,
                             "namespace": {"total": 0, "variables": []}}, indent=2)
        kept = evidence_excerpt(answer)
        assert ELISION in kept and kept.splitlines()[0] == "{"
        assert message_line(kept) == ('status: "error", error_type: "ImportError", '
                                      'error_message: "Module \'subprocess\' is blocked in sandbox mode"')

    def test_a_cut_answer_with_no_field_whole_is_its_first_line(self) -> None:
        assert message_line("[\n  1,\n  2" + ELISION + "  99\n]") == "["

    def test_a_validation_error_is_said_by_its_first_violation(self) -> None:
        """Every violation of a tool's input model has the same first line: the field and why come with it."""
        answer = ("Error executing tool log_attempt: 1 validation error for log_attemptArguments\n"
                  "params.confidence\n"
                  "  Input should be less than or equal to 5 [type=less_than_equal, input_value=6, input_type=int]\n"
                  "    For further information visit https://errors.pydantic.dev/2.11/v/less_than_equal")
        assert message_line(answer) == ("Error executing tool log_attempt: 1 validation error for log_attemptArguments: "
                                        "params.confidence: Input should be less than or equal to 5")
