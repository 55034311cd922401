"""Arguments bound to an earlier step's answer: filled from that answer, in the executor, in one sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.home import Home
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.probing.bindings import (
    answer_document,
    answer_fields,
    bind_outputs,
    bound_references,
    labelled_fields,
    output_ref,
    returned_text,
    value_at,
)
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.testing.opaque import sessions_catalogue
from toolatlas.workspace import Workspace


class TestOutputReferences:
    def test_a_reference_names_a_step_and_a_path(self) -> None:
        """`${step0.session_id}` is found in arguments, nested too, as (step, path)."""
        ref = output_ref(0, "data.session_id")
        assert ref == "${step0.data.session_id}"
        assert bound_references({"a": ref, "b": [output_ref(2, "id")], "c": "${root}/x"}) == [(0, "data.session_id"), (2, "id")]

    def test_a_path_is_followed_then_the_key_searched(self) -> None:
        """The dotted path is followed; a key the path misses is looked for anywhere in the answer."""
        answer = {"success": True, "data": {"session": {"id": 7}}, "items": [{"token": "t1"}]}
        assert value_at(answer, "data.session.id") == 7
        assert value_at(answer, "token") == "t1"
        assert value_at(answer, "nothing") is None

    def test_bound_values_replace_references(self) -> None:
        """A reference to a step that answered is replaced by the value (its type kept); others stay as they are."""
        answers = {0: {"session_id": "u-1", "rows": 3}}
        filled = bind_outputs({"session_id": output_ref(0, "session_id"), "n": output_ref(0, "rows"),
                               "later": output_ref(1, "x"), "plain": "text"}, answers)
        assert filled == {"session_id": "u-1", "n": 3, "later": "${step1.x}", "plain": "text"}

    def test_the_answer_is_the_structured_content_or_whole_json_text(self) -> None:
        """Structured content first; else the text when it is JSON; else nothing."""
        def outcome(excerpt: str, structured: dict | None = None) -> CallOutcome:
            return CallOutcome(server="s", tool="t", outcome=OutcomeClass.OK, excerpt=excerpt, structured=structured)
        assert answer_document(outcome('{"a": 1}', {"b": 2})) == {"b": 2}
        assert answer_document(outcome('{"a": 1}')) == {"a": 1}
        assert answer_document(outcome("session a1 opened")) is None


@pytest.mark.servers
class TestTextAnswers:
    def test_labelled_lines_are_the_fields_of_a_text_answer(self) -> None:
        """`Search ID: 3f2a9c1b` is `search_id`; indented lines (a record's) and lines of many words of value are not."""
        text = "Warning: size out of range\nSearch ID: 3f2a9c1b\nTotal matches: 12\n\nMatch 1:\n  Page: 2\n"
        assert labelled_fields(text) == {"search_id": "3f2a9c1b", "total_matches": "12"}

    def test_a_structured_content_that_only_wraps_the_text_is_read_as_the_text(self) -> None:
        """`{"result": "<text>"}` answers the text's labelled lines, or the JSON the text holds."""
        text = "Search ID: 3f2a9c1b\nPage: 1/2"
        assert answer_fields({"result": text}, text) == {"search_id": "3f2a9c1b", "page": "1/2"}
        assert answer_fields({"result": '{"id": 7}'}, '{"id": 7}') == {"id": 7}
        assert answer_fields({"id": 7, "rows": []}, "whatever") == {"id": 7, "rows": []}
        assert returned_text({"result": '{"DOING": ["Fix"]}'}, '{"DOING": ["Fix"]}')
        assert not returned_text({"content": '{"name": "app"}'}, '{"name": "app"}')  # a file's text a tool read


class TestBoundCalls:
    @pytest.fixture()
    async def executor(self, tmp_path: Path):
        catalogue = load_catalogue(sessions_catalogue(tmp_path))
        running = Executor(Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("sessions")), "t")
        await running.start()
        try:
            yield running
        finally:
            await running.close()

    async def test_a_minted_id_reaches_the_next_call(self, executor: Executor) -> None:
        """The session id `open_table` minted is what `count_rows` is called with; the probe keeps the reference."""
        steps = [ProbeStep(tool="open_table", arguments={"table": "cities"}, expect="ok"),
                 ProbeStep(tool="count_rows", arguments={"session_id": output_ref(0, "session_id")}, expect="ok")]
        probe = Probe(id="p1", server="sessions", round=1, direction=Direction.AFFORDANCE, target="count_rows",
                      task="t", steps=steps)
        rollout = await executor.run(probe)
        minted = answer_document(rollout.steps[0].outcome)["session_id"]
        assert rollout.steps[1].outcome.arguments == {"session_id": minted}
        assert '"rows": 3' in rollout.steps[1].outcome.excerpt
        verdict = executor.verifier.verify(rollout)
        assert not verdict.steps[1].failed
        assert rollout.probe.steps[1].arguments == {"session_id": "${step0.session_id}"}
