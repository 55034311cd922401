"""A successful result is an error only on positive evidence, and never because it echoes its input.

The calls go to a real MCP server over stdio (``toolatlas.testing.servers.reporting``) that echoes,
reports errors in the text of ordinary results, reports them as ``isError``, and returns content
that merely starts with error words.
"""

from __future__ import annotations

import json

import pytest
from reporting_kit import probe

from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.evidence import error_evidence, promises_change, without_echoes
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, ProbeStep
from toolatlas.probing.text import error_signature, json_error_reason, looks_like_error


async def verdict_of(executor: Executor, tool: str, **arguments):
    _, verdict = await executor.run_verified(probe(ProbeStep(tool=tool, arguments=arguments)))
    return verdict.steps[0]


@pytest.mark.asyncio(loop_scope="class")
class TestOnARealServer:
    @pytest.mark.parametrize(
        "message", ["hello", "Error: boom", "Invalid input given", "cannot parse ${root}/x", "E", "EACCES: denied"]
    )
    async def test_an_echo_is_never_an_error(self, class_executor: Executor, message: str) -> None:
        """``Echo: <message>`` is the tool's normal answer whatever the message says."""
        step = await verdict_of(class_executor, "echo", message=message)
        assert step.outcome is OutcomeClass.OK and not step.failed and not step.reported_as_success

    async def test_a_verbatim_repeat_of_error_words_is_not_an_error(self, class_executor: Executor) -> None:
        """A tool that returns its input unchanged is not failing when the input reads like an error."""
        step = await verdict_of(class_executor, "repeat", text="Error: could not open the file")
        assert not step.failed

    async def test_an_error_in_text_about_the_arguments_is_an_error(self, class_executor: Executor) -> None:
        """``Error: no entry named 'k'`` in an ordinary result is an error reported as a success."""
        step = await verdict_of(class_executor, "lookup", key="no-such-key")
        assert step.outcome is OutcomeClass.OK and step.failed and step.reported_as_success
        assert "no-such-key" in step.error_text
        assert not (await verdict_of(class_executor, "lookup", key="colour")).failed

    async def test_an_is_error_result_is_an_error(self, class_executor: Executor) -> None:
        """``isError`` true is a tool error, not a soft one."""
        step = await verdict_of(class_executor, "lookup_strict", key="no-such-key")
        assert step.outcome is OutcomeClass.TOOL_ERROR and step.failed and not step.reported_as_success

    async def test_a_bare_failure_message_that_changed_nothing_is_an_error(self, class_executor: Executor) -> None:
        """``Failed: read-only entry`` from a tool that stores values, with the state unchanged."""
        refused = await verdict_of(class_executor, "store", key="ro-colour", value="red")
        assert refused.failed and refused.reported_as_success and refused.change.empty
        stored = await verdict_of(class_executor, "store", key="colour", value="red")
        assert not stored.failed and not stored.change.empty

    async def test_content_that_starts_with_error_words_is_not_an_error(self, class_executor: Executor) -> None:
        """A log whose lines start with ``ERROR`` is what the tool is for."""
        assert not (await verdict_of(class_executor, "log_tail")).failed


def ok(text: str, **arguments) -> CallOutcome:
    return CallOutcome(server="s", tool="t", outcome=OutcomeClass.OK, excerpt=text, arguments=arguments)


LONG_REPORT = "Error: the nightly job\n" + "\n".join(f"step {i} done" for i in range(6))


class TestTheEvidence:
    def test_errno_codes_are_capitals_only(self) -> None:
        """``ENOENT:`` reads as an error; ``Echo:`` does not."""
        assert looks_like_error("ENOENT: no such file") and not looks_like_error("Echo: hello")

    def test_echoes_are_taken_out_even_when_cut_short(self) -> None:
        """A long value the excerpt truncates is still recognised as the input, repeated."""
        value = "Error: " + "x" * 100
        assert without_echoes("Echo: " + value[:40], [value]) == ("Echo: ", True)

    def test_each_kind_of_evidence(self) -> None:
        """Arguments named, a bare message, a missing declared shape, a promised change not made."""
        spec = ToolSpec(server="s", name="t", input_schema={"properties": {"base": {"type": "integer"}}})
        assert error_evidence(ok("Invalid value for base: 99"), spec=spec) == "error words about the call's arguments"
        assert error_evidence(ok("Error: database is locked")) == "the whole result is an error message"
        shaped = spec.model_copy(update={"output_schema": {"type": "object"}})
        assert error_evidence(ok(LONG_REPORT), spec=shaped).startswith("not the shape")
        writer = ToolSpec(server="s", name="t", description="Write the report to disk.")
        assert promises_change(writer) and not promises_change(ToolSpec(server="s", name="t", description="Read it."))
        assert error_evidence(ok(LONG_REPORT), spec=writer, changed=False).startswith("no change")
        assert error_evidence(ok(LONG_REPORT), spec=writer, changed=True) is None
        assert error_evidence(ok(LONG_REPORT)) is None

    def test_a_missing_thing_with_a_long_name_reads_as_an_error(self) -> None:
        """``Document <a 300-character path> does not exist`` is an error however long the name it quotes."""
        path = "/work/state/root/" + "a" * 300 + ".txt"
        assert looks_like_error(f"Document {path}.docx does not exist")
        assert error_evidence(ok(f"Document {path}.docx does not exist", filename=path)) is not None

    def test_an_unknown_value_and_a_lookup_that_found_none_read_as_errors(self) -> None:
        """``Unknown memory type 'sample'. Valid types: …`` and ``No entry with id 999999.`` answered as successes
        are refusals of the value the call gave; a filter's empty answer (``No entries with tag api``) is none."""
        refusal = ok("Unknown memory type 'sample'. Valid types: feedback, project, reference, user.", type="sample")
        assert error_evidence(refusal) == "error words about the call's arguments"
        assert error_evidence(ok("No entry with id 999999.", id=999999)) is not None
        assert not looks_like_error("No entries with tag api") and not looks_like_error("No matches found for: x")

    def test_a_refusal_to_replace_what_exists_reads_as_an_error(self) -> None:
        """A second write of the same note answered ``Note already exists: … Pass overwrite=True`` wrote nothing."""
        answer = ok("Note already exists: notes/a.md. Pass overwrite=True to replace it.", path="notes/a.md")
        assert error_evidence(answer) == "error words about the call's arguments"
        assert not looks_like_error("Created table; index already exists")

    def test_a_tool_not_configured_reads_as_an_error(self) -> None:
        """``sync_memory is not configured. Set the … variable`` answered as a success did nothing."""
        answer = ok("sync_memory is not configured. Set the MEMORY_DIR environment variable.")
        assert error_evidence(answer) == "the whole result is an error message"

    def test_two_violations_of_one_input_model_are_two_signatures(self) -> None:
        """A pydantic validation error's first line is the same for every violation of a tool's input model; the
        field and the message below it tell a status outside its set from a name past its length."""
        head = "Error executing tool log_attempt: 1 validation error for log_attemptArguments\n"
        status = head + ("params.status\n  Input should be 'solved' or 'gave_up' [type=enum, input_value='x', "
                         "input_type=str]\n    For further information visit https://errors.pydantic.dev/2.11/v/enum")
        name = head + "params.problem_name\n  String should have at most 200 characters [type=string_too_long, input_"
        assert error_signature(status) == ("Error executing tool log_attempt: <n> validation error for "
                                           "log_attemptArguments: params.status: Input should be <s> or <s>")
        assert error_signature(name).endswith("params.problem_name: String should have at most <n> characters")
        assert error_signature(head.strip()) == "Error executing tool log_attempt: <n> validation error for log_attemptArguments"

    def test_a_thing_not_found_on_what_the_call_named_reads_as_an_error(self) -> None:
        """``❌ Pin 9 not found on ESP32`` with the pins there are below it refuses the pin asked for; a search's
        ``'x' not found in notes.md`` and a missing line over a listing are no refusal."""
        answer = ok("❌ Pin 9 not found on ESP32\nAvailable pins: 0, 1, 2, 3, 4, 5, 12", board_type="ESP32", pin_number=9)
        assert looks_like_error(answer.excerpt) and error_evidence(answer) is not None
        assert not looks_like_error("Pattern 'x' not found in notes.md")
        assert not looks_like_error("Key x not found\nThe rest of the listing: a, b")

    def test_a_read_of_one_named_thing_that_found_none_failed(self) -> None:
        """``No files found matching example`` answered by a tool that views *a* file is a failed read; the same
        answer of a listing, or of a query, is an empty result."""
        def spec(name: str, description: str) -> ToolSpec:
            return ToolSpec(server="s", name=name, description=description, input_schema={"type": "object"})

        answer = ok("No files found matching example", name="example")
        view = spec("view_file", "View a GEDCOM file in plaintext format.")
        assert error_evidence(answer, {"name": "example"}, view) == "found nothing where the tool reads the one thing the call names"
        assert error_evidence(answer, {"name": "example"}, spec("list_files", "List GEDCOM files.")) is None
        assert error_evidence(ok("No rows found"), {}, spec("read_query", "Run a SELECT query.")) is None

    def test_a_value_of_the_call_the_message_repeats_is_masked_as_a_whole_word(self) -> None:
        """``Invalid pins for STM32`` and ``Invalid pins for ESP32`` are one failure met with two boards; a value
        inside a longer word (``ESP`` in ``ESP32``) or too short to tell (``id``) is kept."""
        one = error_signature("❌ Invalid pins for STM32: [-10]", echoes=["STM32"])
        assert one == error_signature("❌ Invalid pins for ESP32: [-3]", echoes=["ESP32"]) == "❌ Invalid pins for <s>: [-<n>]"
        assert error_signature("Invalid pins for ESP32", echoes=["ESP"]) == "Invalid pins for ESP32"
        assert error_signature("Database not found: demo") == "Database not found: demo"  # no call values, no mask

    def test_an_error_in_chinese_or_japanese_reads_as_one(self) -> None:
        """A server that answers in Chinese or Japanese says "not found", "does not exist", "error" in its words: a
        missing key it quotes back is an error about the call's arguments; a success in the same words is none."""
        missing = "未找到key 'missing_3f2a' 的条目。\n文件中的前10个key: vaswani2017attention, devlin2019bert"
        assert looks_like_error(missing) and error_signature(missing).startswith("未找到key <s> 的条目")
        assert error_evidence(ok(missing, key="missing_3f2a")) == "error words about the call's arguments"
        for text in ("文件 chapter9.bib 不存在", "エラー: ファイルが見つかりません", "操作失败：权限不足"):
            assert looks_like_error(text), text
        for text in ("成功追加 2 个条目到 chapter2.bib", "共 12 个条目", "ファイルを保存しました"):
            assert not looks_like_error(text), text

    def test_a_step_that_must_come_first_is_evidence(self) -> None:
        """A long answer whose first line asks for a step first is an error; the same words later are not."""
        text = "No test cases defined. Please add test cases first using add_test_case.\n" + "detail " * 80
        assert error_evidence(ok(text)) == "it asks for a step that must come first"
        assert error_evidence(ok("Error report\n" + "detail " * 80 + "\nPlease add cases first")) is None

    def test_a_failure_of_the_tools_own_action_is_evidence(self) -> None:
        """``Failed to convert document to PDF ...`` from convert_to_pdf is an error; from another tool it is not."""
        text = "Failed to convert document to PDF using all available methods.\n" + "Recorded: x\n" * 30
        convert = ToolSpec(server="s", name="convert_to_pdf", description="Convert a Word document to PDF format.")
        assert error_evidence(ok(text), spec=convert) == "the failure names the tool's own action"
        assert error_evidence(ok(text), spec=ToolSpec(server="s", name="read_log", description="Read the log.")) is None

    def test_nothing_found_to_change_is_an_error_only_where_a_change_is_promised(self) -> None:
        """``No occurrences of 'x' found.`` from a replacing tool that changed nothing is an error; from a
        search, or once the state changed, it is an answer."""
        replace = ToolSpec(server="s", name="search_and_replace", description="Search for text and replace all occurrences.")
        search = ToolSpec(server="s", name="search_notes", description="Search the notes.")
        sentence = "Alice sent Bob 3 apples on Monday. Bob returned 2 of them on Friday, as agreed by both."
        text = f"No occurrences of '{sentence}' found."
        assert promises_change(replace) and not promises_change(search)
        assert error_evidence(ok(text, find_text=sentence), spec=replace, changed=False) is not None
        assert error_evidence(ok(text, find_text=sentence), spec=replace, changed=True) is None
        assert error_evidence(ok(text, find_text=sentence), spec=search, changed=False) is None


class TestIgnoredValues:
    async def test_a_value_outside_the_set_answered_as_the_call_without_it_was_ignored(self, executor: Executor) -> None:
        """``frequency="daily"`` answers exactly what the same call without a frequency does (monthly), but for the
        value it echoes: a failure answered as a success, naming what was taken; a listed frequency answers
        otherwise and is no failure."""
        base = {"principal": 1000, "rate_pct": 6, "years": 2}
        mirror = ProbeStep(tool="grow", arguments=base, expect="ok")
        daily = ProbeStep(tool="grow", arguments={**base, "frequency": "daily"}, mutation="invalid_enum", mirrors=0,
                          condition="`frequency` is not one of: monthly, quarterly, annually")
        _, verdict = await executor.run_verified(probe(mirror, daily, direction=Direction.BOUNDARY))
        step = verdict.steps[1]
        assert step.failed and step.reported_as_success
        assert step.hidden_failure == ("it answered exactly as the same call without `frequency` (`monthly`): the "
                                       "value given was ignored")
        annual = daily.model_copy(update={"arguments": {**base, "frequency": "annually"}})
        _, verdict = await executor.run_verified(probe(mirror, annual, direction=Direction.BOUNDARY))
        assert not verdict.steps[1].failed


class TestFailedValues:
    def ok(self, text: str, structured: dict | None = None) -> CallOutcome:
        return CallOutcome(server="s", tool="t", outcome=OutcomeClass.OK, excerpt=text, structured=structured)

    def test_nan_in_a_short_answer_is_an_error(self) -> None:
        """`The number of days in month is NaN.`: the value a failed computation prints is an error in an ok result."""
        assert error_evidence(self.ok("The number of days in month is NaN."), {"date": "not a date"}) is not None
        assert error_evidence(self.ok("The relative time is Invalid Date"), {"time": "x"}) is not None

    def test_an_echoed_nan_or_a_number_is_not(self) -> None:
        """A NaN the call itself sent, a real number, or Python's lowercase `nan` in content are no such sign."""
        assert error_evidence(self.ok("You said NaN."), {"text": "NaN"}) is None
        assert error_evidence(self.ok("The number of days in month is 29."), {"date": "2024-02-10"}) is None
        assert error_evidence(self.ok("mean: nan"), {"column": "age"}) is None


    def test_a_record_stored_with_the_error_it_was_given_is_no_failure(self) -> None:
        """A QA log's new record with ``"status": "error"`` and the ``error`` text the call sent is the data written,
        not the call's own verdict; the same record with an error the call did not send is a failed item."""
        created = {"created": {"id": 52, "deviceSN": "HW-L2-CAM-FILL", "status": "error",
                               "error": "label skew 4.6 deg (limit 3.0 deg)"}}
        sent = {"device_sn": "HW-L2-CAM-FILL", "status": "error", "error": "label skew 4.6 deg (limit 3.0 deg)"}
        assert error_evidence(self.ok(json.dumps(created)), sent) is None
        assert error_evidence(self.ok(json.dumps(created)), {"device_sn": "HW-L2-CAM-FILL"}) is not None


class TestCutJsonAnswers:
    def ok(self, text: str) -> CallOutcome:
        return CallOutcome(server="s", tool="t", outcome=OutcomeClass.OK, excerpt=text, truncated=True)

    def test_a_cut_answer_saying_it_failed_is_an_error(self) -> None:
        """`{"success": false, "error": "Column 'xxx…` cut inside the reason (a huge argument repeated) is an error."""
        text = '{"success": false, "error": "Column \'' + "x" * 400
        assert error_evidence(self.ok(text), {"column": "${oversized_text}"}) == "the result says it failed"

    def test_a_cut_successful_answer_is_not(self) -> None:
        """A cut answer that says it succeeded stays a success."""
        assert error_evidence(self.ok('{"success": true, "data": "' + "x" * 400), {"column": "x"}) is None
        nested = '{"success": true, "rows": [{"ok": false, "error": "bad row"}, "' + "x" * 400
        assert error_evidence(self.ok(nested), {"column": "x"}) is None


class TestPythonReprAnswers:
    def test_the_repr_of_a_failed_result_is_an_error_with_its_reason(self) -> None:
        """A Python server that returns ``str(result)``: ``{'success': False, 'error': "Deck 'X' not found", …}`` says
        it failed as ``"success": false`` does, its reason is the signature, and the deck names it lists are read;
        the repr of a success stays one."""
        from toolatlas.offline.answers import named_fixes
        from toolatlas.probing.text import parse_answer

        text = ("{'success': False, 'error': \"Deck 'Portuguese Vocabulary' not found\", "
                "'available_decks': ['Default', 'Portuguese', 'Portuguese::Vocabulary']}")
        assert looks_like_error(text) and json_error_reason(text) == "Deck 'Portuguese Vocabulary' not found"
        assert error_signature(text) == "Deck <s> not found"
        assert parse_answer(text)["available_decks"][2] == "Portuguese::Vocabulary"
        create = ToolSpec(server="s", name="create_note", description="Create a note in a deck.", input_schema={
            "type": "object", "required": ["deck_name"], "properties": {"deck_name": {"type": "string"}}})
        fixes = named_fixes(create, text, {"deck_name": "Portuguese Vocabulary"})
        assert "Portuguese::Vocabulary" in [f.value for f in fixes]
        assert not looks_like_error("{'success': True, 'note_ids': [1796622027790], 'count': 1}")
        assert parse_answer("(not a literal)") is None and parse_answer("{'a': __import__('os')}") is None


class TestJsonSequences:
    def test_documents_one_after_another_are_a_list(self) -> None:
        """A list a server returned as one content block per item reads ``{…}\n{…}``: a list of its documents; a
        document with text after it, or one document, is not a sequence."""
        from toolatlas.probing.text import parse_answer

        text = '{\n  "name": "DOOR",\n  "entity_count": 5\n}\n{\n  "name": "WINDOW",\n  "entity_count": 3\n}'
        assert parse_answer(text) == [{"name": "DOOR", "entity_count": 5}, {"name": "WINDOW", "entity_count": 3}]
        assert parse_answer('{"a": 1} and more') is None
        assert parse_answer('{"a": 1}') == {"a": 1}


class TestWrappedText:
    def ok(self, text: str, structured: dict | None) -> CallOutcome:
        return CallOutcome(server="s", tool="t", outcome=OutcomeClass.OK, excerpt=text, structured=structured)

    def test_structured_content_that_only_wraps_the_text_is_no_content(self) -> None:
        """`{"result": "Error: At least one condition is required."}` (a string-returning tool's wrapper) is a bare
        error message, as its text alone is."""
        text = "Error: At least one condition is required."
        assert error_evidence(self.ok(text, {"result": text})) == "the whole result is an error message"

    def test_structured_content_of_its_own_keeps_a_result_content(self) -> None:
        """A result whose structured content holds more than its text is not a bare message."""
        text = "Error: At least one condition is required."
        assert error_evidence(self.ok(text, {"result": text, "count": 0})) is None
        assert error_evidence(self.ok(text, {"message": "other words"})) is None


class TestFailuresAnsweredAsSuccess:
    async def test_an_error_object_is_an_error(self, executor: Executor) -> None:
        """`{"error": {"kind": ..., "message": ...}}` in an ordinary result is a failure reported as success,
        signed by its message."""
        step = await verdict_of(executor, "parse_pair", pair="no pair here")
        assert step.outcome is OutcomeClass.OK and step.failed and step.reported_as_success
        assert "is not a key=value pair" in error_signature(step.error_text)
        assert not (await verdict_of(executor, "parse_pair", pair="a=b")).failed

    async def test_a_status_error_with_an_error_message_is_an_error(self, executor: Executor) -> None:
        """`{"status": "error", "error_type": ..., "error_message": ...}` is a failure signed by its message."""
        step = await verdict_of(executor, "run", script="a=1\nprint")
        assert step.failed and step.reported_as_success
        assert error_signature(step.error_text) == "line <n> assigns nothing"
        assert not (await verdict_of(executor, "run", script="a=1\nb=2")).failed

    async def test_a_tally_with_nothing_done_is_an_error(self, executor: Executor) -> None:
        """A batch's tally with `Succeeded: 0` and `Failed: 1` is a failure signed by its `Error:` line; a
        tally with a success is not."""
        step = await verdict_of(executor, "unpack", keys=["no-such-key"])
        assert step.failed and step.reported_as_success
        assert error_signature(step.error_text) == "no entry named no-such-key"
        assert not (await verdict_of(executor, "unpack", keys=["colour", "no-such-key"])).failed

    async def test_an_action_failed_line_is_an_error(self, executor: Executor) -> None:
        """`❌ Unpacking failed: <reason>` (a noun of the action, then `failed:`) reads as an error."""
        step = await verdict_of(executor, "unpack", keys=[])
        assert step.failed and step.reported_as_success

    def test_a_timeout_status_is_a_failure(self) -> None:
        """`"status": "timeout"` with its `error_message` is a failed verdict, cut short or whole."""
        text = '{\n  "status": "timeout",\n  "session_id": "3f2a9c1b7d4e",\n  "error_message": "Execution exceeded 5s limit"\n}'
        assert looks_like_error(text) and error_signature(text) == "Execution exceeded 5s limit"
        assert json_error_reason(text[:-2]) == "Execution exceeded 5s limit"
        assert json_error_reason('{"error": {"kind": "bad_fen", "message": "not a position"') == "not a position"

    def test_a_failed_status_gives_its_reason_under_a_key_of_its_own(self) -> None:
        """A solver's ``"status": "error"`` with its reason in ``"explanation"`` (no reason key) failed, for that reason;
        a record inside the answer that failed (a job of a listing) is data, and a status that did not fail none."""
        text = json.dumps({"status": "error", "makespan": None, "schedule": [], "explanation":
                           "Model validation failed with 1 error(s): 1. Variable 'end_c' referenced in constraint "
                           "'precedence_c_to_b' is not defined"}, indent=2)
        assert looks_like_error(text) and json_error_reason(text).startswith("Model validation failed")
        assert json_error_reason('{"jobs": [{"status": "failed", "name": "nightly build"}]}') is None
        assert json_error_reason('{"status": "optimal", "explanation": "Schedule found with 3 tasks"}') is None
        assert json_error_reason('{"ok": false, "summary": "2 words need checking", "issues": []}') is None, \
            "a checker's verdict flag is no failed status: its findings are its answer"

    def test_a_lookup_that_says_it_found_nothing_with_a_reason_failed(self) -> None:
        """`"found": false` beside a message is a refusal of what was asked; a bare `"found": false` (an empty
        result with no reason) is not."""
        text = '{"found": false, "message": "\'cath\' was not found in the context. Pass the exact word."}'
        assert looks_like_error(text) and json_error_reason(text).startswith("'cath' was not found")
        assert json_error_reason('{"found": false, "matches": []}') is None


def test_a_file_whose_text_opens_with_no_match_is_read_not_refused() -> None:
    """A read of a file whose own text opens "No matches found today" answered it: the answer names nothing the call
    gave, so it is the file's text, not a refusal of the name."""
    view = ToolSpec(server="s", name="view_file", description="View a file.", input_schema={"type": "object"})
    answer = ok("No matches found today; the team will meet again on Monday.", name="${root}/notes/standup.md")
    assert error_evidence(answer, {"name": "${root}/notes/standup.md"}, view) is None


def test_a_range_that_holds_nothing_is_refused_as_written() -> None:
    """"No commits found between v1.6.0 and v1.5.0." repeats both ends the call named: the range it read holds nothing
    (a tool of two required arguments); a search of one value finding nothing is an answer."""
    required = {"type": "object", "required": ["from_tag", "to_tag"],
                "properties": {"from_tag": {"type": "string"}, "to_tag": {"type": "string"}}}
    notes = ToolSpec(server="s", name="release_notes", description="Draft release notes between two tags.",
                     input_schema=required)
    arguments = {"from_tag": "v1.6.0", "to_tag": "v1.5.0"}
    assert error_evidence(ok("No commits found between v1.6.0 and v1.5.0.", **arguments), arguments, notes)
    search = ToolSpec(server="s", name="search_commits", description="Find commits by message.",
                      input_schema={"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}})
    assert error_evidence(ok("No commits matched 'refund'.", query="refund"), {"query": "refund"}, search) is None
