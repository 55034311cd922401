"""An answer that claims the tool's own action is read from the tool's verb, and taken back by its own words."""

from __future__ import annotations

from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.hidden import claims_action, hidden_failure


def tool(name: str, description: str) -> ToolSpec:
    return ToolSpec(server="s", name=name, description=description, input_schema={"type": "object"})


def ok(text: str) -> CallOutcome:
    return CallOutcome(server="s", tool="t", outcome=OutcomeClass.OK, excerpt=text)


class TestClaims:
    def test_the_participle_of_the_tools_verb_is_a_claim(self) -> None:
        """`rm` "Remove a file." claims with `File removed`, `align_items` with `"aligned": true`."""
        assert claims_action("File removed: a.md", tool("rm", "Remove a file."), [])
        assert claims_action('{\n  "aligned": true,\n  "ids": []\n}', tool("align_items", "Align items."), [])

    def test_words_that_take_it_back_are_no_claim(self) -> None:
        """`Nothing removed`, `already removed` and `"aligned": false` do not claim the action."""
        rm = tool("rm", "Remove a file.")
        assert not claims_action("Nothing removed", rm, []) and not claims_action("File already removed", rm, [])
        assert not claims_action('{"aligned": false}', tool("align_items", "Align items."), [])

    def test_a_tool_that_creates_never_claims_on_what_does_not_exist(self) -> None:
        """What a creating tool names does not exist yet: that is its use, not a false claim."""
        assert not claims_action("Folder made: x", tool("make_folder", "Make a folder."), [])


class TestHiddenFailures:
    def test_a_malformed_value_answered_with_nothing_found_is_a_failure(self) -> None:
        """A pattern that does not compile, answered `No matches found`, failed."""
        found = hidden_failure(ok("No matches found for pattern: ([a-z"), None, mutation="malformed_value",
                               changed=None, arguments={"pattern": "([a-z"})
        assert found is not None

    def test_a_claim_on_a_made_up_name_fails_wherever_the_call_is_made(self) -> None:
        """`File removed` for a path the build made up fails, with or without the probe's misuse label."""
        rm = tool("rm", "Remove a file.")
        for mutation in ("nonexistent_reference", None):
            assert hidden_failure(ok("File removed: missing_3f2a.md"), rm, mutation=mutation, changed=False,
                                  arguments={"path": "${root}/notes/missing_3f2a.md"}) is not None

    def test_a_new_name_is_no_missing_reference(self) -> None:
        """`Loaded 'x'` for an alias nothing holds yet is the tool's use, and a made-up name is no claim of a
        tool whose verb makes things."""
        load = tool("load_json", "Load a JSON file into memory under an alias.")
        assert hidden_failure(ok("Loaded 'x' from data.json"), load, mutation=None, changed=False,
                              arguments={"alias": "x"}) is None
        assert hidden_failure(ok("Loaded 'no_such_key_3f2a'"), load, mutation=None, changed=False,
                              arguments={"alias": "no_such_key_3f2a"}) is None

    def test_a_claim_after_a_change_is_true(self) -> None:
        """An answer claiming the action where the state changed is no hidden failure."""
        assert hidden_failure(ok("File removed: a.md"), tool("rm", "Remove a file."), mutation=None, changed=True,
                              arguments={"path": "missing_3f2a.md"}) is None

    def test_an_answer_about_the_closest_name_is_a_failure(self) -> None:
        """`Two Sum_3f2a` logged as `Two Sum`: the server took the closest name it knows for the one sent, and the
        answer never names what was sent; an answer that quotes the sent name back refused it, and the same answer
        to a call that was no near-name probe is judged by its words alone."""
        log = tool("log_attempt", "Record an attempt at a problem.")
        sent = {"params": {"problem_name": "Two Sum_3f2a", "status": "solved"}}
        taken = ok("Logged: Two Sum (Arrays & Hashing, Easy) — solved\nNext review: 2026-12-13")
        found = hidden_failure(taken, log, mutation="near_name", changed=True, arguments=sent)
        assert found == "it answered for `Two Sum`, the closest name it knows, not for the name given"
        refused = ok("Error: no problem found matching 'Two Sum_3f2a'. Did you mean: Two Sum?")
        assert hidden_failure(refused, log, mutation="near_name", changed=False, arguments=sent) is None
        assert hidden_failure(taken, log, mutation=None, changed=True, arguments=sent) is None


class TestListedMissing:
    WRITE = ToolSpec(server="s", name="write_entries", description="Write selected entries to a file.",
                     input_schema={"type": "object"})

    def test_a_made_up_name_listed_as_not_found_is_a_failure_though_the_call_wrote(self) -> None:
        """`成功写入 0 个条目` above `未找到的keys: [...]`: the batch named nothing, whatever its first line says."""
        answer = "成功写入 0 个条目到 refs.bib\n找到的keys: []\n未找到的keys: ['no_such_object_1db5', 'sample']\n"
        found = hidden_failure(ok(answer), self.WRITE, mutation="nonexistent_reference", changed=True,
                               arguments={"keys": ["no_such_object_1db5", "sample"]})
        assert found == "its answer lists what the call named as not found"
        english = "Exported 1 entry\nMissing ids: no_such_object_3f2a"
        assert hidden_failure(ok(english), self.WRITE, mutation=None, changed=True,
                              arguments={"ids": ["a1", "no_such_object_3f2a"]}) is not None

    def test_a_made_up_name_the_answer_only_repeats_or_a_real_name_not_found_is_none(self) -> None:
        """An answer that names the made-up name without saying it is missing, and one saying a real name is
        missing (what the call did not invent), tell nothing of the misuse; nor does the word in a made-up path."""
        assert hidden_failure(ok("Wrote no_such_object_1db5 to refs.bib"), self.WRITE, mutation=None, changed=True,
                              arguments={"keys": ["no_such_object_1db5"]}) is None
        assert hidden_failure(ok("Wrote 1 entry\nnot found: smith2020"), self.WRITE, mutation=None, changed=True,
                              arguments={"keys": ["smith2020", "vaswani2017"]}) is None
        assert hidden_failure(ok("Saved ${root}/missing_3f2a.md"), self.WRITE, mutation=None, changed=True,
                              arguments={"path": "${root}/missing_3f2a.md"}) is None


class TestWordFragments:
    SEARCH = ToolSpec(server="s", name="search_notes", description="Search the notes.", input_schema={"type": "object"})

    def test_part_of_a_word_answered_with_nothing_found_is_a_failure(self) -> None:
        """``idget`` of ``widget`` answered ``No matches found for: idget``: what a caller searching part of a name
        gets, reported as a success; an answer that found it is none."""
        found = hidden_failure(ok("No matches found for: idget"), self.SEARCH, mutation="word_fragment",
                               changed=False, arguments={"query": "idget"})
        assert found == "part of a word finds nothing"
        assert hidden_failure(ok("Found 2 notes:\n- Widgets.md"), self.SEARCH, mutation="word_fragment",
                              changed=False, arguments={"query": "idget"}) is None

    def test_a_value_outside_the_listed_set_answered_with_a_count_of_none_is_a_failure(self) -> None:
        """``object_type="not_a_valid_choice"`` answered ``{"total_found": 0, "results": []}``: a filter that takes any
        value and matches nothing, reported as a success; an answer that found something, or the same empty answer to
        a call that broke nothing, is none."""
        search = ToolSpec(server="s", name="search_ad", description="Search directory objects.",
                          input_schema={"type": "object"})
        empty = ok('{\n  "total_found": 0,\n  "results": []\n}')
        arguments = {"query": "kestrel", "object_type": "not_a_valid_choice"}
        assert hidden_failure(empty, search, mutation="invalid_enum", changed=False, arguments=arguments) == (
            "a value outside the set it lists is not refused: it finds nothing")
        assert hidden_failure(ok('{"total_found": 3, "results": [{"name": "kestrel"}]}'), search,
                              mutation="invalid_enum", changed=False, arguments=arguments) is None
        assert hidden_failure(empty, search, mutation=None, changed=False, arguments=arguments) is None
        from toolatlas.probing.evidence import found_nothing

        assert found_nothing('{"resultCount": 0, "items": []}') and found_nothing('{"num_results": 0}')
        assert not found_nothing('{"discount": 0, "price": 12}') and not found_nothing('{"total_found": 2}')

    def test_a_value_it_could_not_read_reported_as_a_finding_is_a_failure(self) -> None:
        """A linter given SQL that does not parse answers successfully with one violation naming it: the unreadable
        input is one of its findings, not an error; the same answer to a well-formed call, or a finding of another
        kind, is none."""
        sql = "SELEC id FROM t"
        answer = ok('{\n  "violation_count": 1,\n  "violations": [\n    {\n      "code": "PRS",\n      "description": '
                    '"Line 1, Position 1: Found unparsable section: \'SELEC id FROM t\'"\n    }\n  ]\n}')
        found = hidden_failure(answer, None, mutation="sql_syntax_error", changed=False, arguments={"sql": sql})
        assert found is not None and "“Line 1, Position 1: Found unparsable section: 'SELEC id FROM t'”" in found
        assert hidden_failure(answer, None, mutation=None, changed=False, arguments={"sql": sql}) is None
        style = ok('{"violation_count": 1, "violations": [{"code": "LT01", "description": "Expected single space"}]}')
        assert hidden_failure(style, None, mutation="sql_syntax_error", changed=False, arguments={"sql": sql}) is None

    def test_part_of_a_tag_answered_with_an_empty_listing_is_a_failure(self) -> None:
        """A listing filtered by `aut` (of the tag `auth`) answered `No entries with tag 'aut'.` matches whole tags;
        the same answer to a call that broke nothing is a listing that is empty."""
        empty = ok("No entries with tag 'aut'.")
        assert hidden_failure(empty, None, mutation="word_fragment", changed=False, arguments={"tag": "aut"})
        assert hidden_failure(empty, None, mutation=None, changed=False, arguments={"tag": "aut"}) is None
        assert hidden_failure(ok("=== memex: 1 entries ==="), None, mutation="word_fragment", changed=False,
                              arguments={"tag": "aut"}) is None

    def test_a_negative_verdict_is_quoted_in_the_answers_own_words(self) -> None:
        """A validator's ``"is_valid": false``, a findings list's first message under ``"valid": false``, a compact
        answer's ``"status":"invalid"`` with its first error, and the item under a ``❌`` heading are verdicts;
        ``"valid": true``, a nested flag, a success with warnings and an answer opening with ``❌`` are not."""
        from toolatlas.probing.verdicts import NEGATIVE_VERDICT, negative_verdict

        assert negative_verdict('{\n  "ip_address": "8.8.8.8",\n  "is_valid": false\n}') == '"is_valid": false'
        findings = ('{\n  "valid": false,\n  "findings": [\n    {"rule_id": "ED001", "message": '
                    '"Transaction code is invalid."}\n  ]\n}')
        assert negative_verdict(findings) == "Transaction code is invalid."
        pins = ("🔍 Pin Conflict Analysis for ESP32\n\n❌ **CONFLICTS (Must Fix):**\n"
                "  • Pin 34 (GPIO34) is INPUT ONLY - cannot drive outputs\n")
        assert negative_verdict(pins) == "Pin 34 (GPIO34) is INPUT ONLY - cannot drive outputs"
        compact = '{"status":"invalid","errors":["Field \'MODE\': value \'USB\' is not a valid member of Mode."]}'
        assert negative_verdict(compact) == "Field 'MODE': value 'USB' is not a valid member of Mode."
        assert negative_verdict('{"valid":false,"problems":[{"message":"odd length"}]}') == "odd length"
        assert negative_verdict('{"status":"failed"}') == '"status": "failed"'
        for none in ('{\n  "valid": true\n}', '{"data": {"valid": false}}', "❌ Invalid pins for ESP32: [-3]",
                     '{"status":"success","errors":[],"warnings":["not a valid subdivision"]}'):
            assert negative_verdict(none) is None
        validate = tool("validate_ach_file", "Validate an ACH file.")
        reason = hidden_failure(ok(findings), validate, mutation=None, changed=False, arguments={"path": "a.ach"})
        assert hidden_failure(ok(findings), tool("repair_file", "Repair a file."), mutation=None, changed=False,
                              arguments={"path": "a.ach"}) is None  # a repair reports the validity it found
        assert reason == f"{NEGATIVE_VERDICT}: “Transaction code is invalid.”"


def test_a_validators_error_object_is_its_verdict_and_anothers_is_its_failure() -> None:
    """``{"valid": false, "error": {"code", "message_pt", "message_en"}}``: from a validator, a negative verdict
    quoting the English message (no error of the call); from a lookup, the result says it failed, for that message."""
    from toolatlas.probing.evidence import error_evidence
    from toolatlas.probing.text import json_error_reason
    from toolatlas.probing.verdicts import NEGATIVE_VERDICT, negative_verdict

    answer = ('{\n  "valid": false,\n  "formatted": null,\n  "raw": "529.982.247-26",\n  "error": {\n    "code": '
              '"INVALID_CHECKSUM",\n    "message_pt": "Dígitos verificadores do CPF não conferem.",\n    "message_en": '
              '"CPF checksum digits do not match.",\n    "suggestion": null\n  }\n}')
    assert negative_verdict(answer) == "CPF checksum digits do not match."
    assert negative_verdict('{"valid": false, "error": "bad length"}') == "bad length"
    validate = tool("validate_cpf", "Valida CPF brasileiro (11 dígitos).")
    outcome = ok(answer)
    assert error_evidence(outcome, {"value": "529.982.247-26"}, validate, changed=False) is None
    assert hidden_failure(outcome, validate, mutation="check_digit", changed=False,
                          arguments={"value": "529.982.247-26"}) == f"{NEGATIVE_VERDICT}: “CPF checksum digits do not match.”"
    lookup = tool("lookup_cep", "Consulta endereço por CEP via ViaCEP.")
    offline = ('{"valid": false, "cep": null, "raw": "01310-100", "error": {"code": "NETWORK_ERROR", "message_pt": '
               '"Falha de rede ao consultar ViaCEP.", "message_en": "Network failure querying ViaCEP."}}')
    assert json_error_reason(offline) == "Network failure querying ViaCEP."
    assert error_evidence(ok(offline), {"cep": "01310-100"}, lookup, changed=False) == "the result says it failed"
    assert json_error_reason('{"valid": true, "error": null}') is None


def test_a_note_that_a_value_of_the_call_was_not_taken_is_a_failure() -> None:
    """A JSON answer whose note (or one of its notes) names a value of the call as unknown or not present answered
    for something else; a note about nothing the call gave, or one that does not say no, is no failure."""
    from toolatlas.probing.hidden import NOT_TAKEN

    def answered(text: str, **arguments: object) -> str | None:
        outcome = CallOutcome(server="s", tool="t", arguments=arguments, outcome=OutcomeClass.OK, excerpt=text)
        return hidden_failure(outcome, None, mutation=None, changed=False, arguments=arguments)

    absent = ('{"message_type": "POWR", "times_s": [], "series": {}, "sample_count": 0, '
              '"note": "message type \'POWR\' not present in this log."}')
    assert answered(absent, message_type="POWR") == f"{NOT_TAKEN}: “message type 'POWR' not present in this log.”"
    ran_all = ('{"recommendations": [{"area": "notch"}], "notes": ["unknown tuning area \'filters\'; valid: notch, '
               'pid, autotune. Running all."]}')
    assert answered(ran_all, area="filters", path="logs/41.BIN") == (
        f"{NOT_TAKEN}: “unknown tuning area 'filters'; valid: notch, pid, autotune. Running all.”")
    cut = '{"series": {"Clip": [null, null, "note": "field(s) [\'Clip\'] not in VIBE; available: [\'Clip0\']"'
    assert answered(cut, fields=["Clip"]) == f"{NOT_TAKEN}: “field(s) ['Clip'] not in VIBE; available: ['Clip0']”"
    assert answered('{"rows": 3, "note": "sorted by \'date\'"}', sort="date") is None
    assert answered('{"rows": 0, "note": "table \'other\' not present"}', table="orders") is None


def test_no_action_taken_asking_for_an_argument_is_a_failure() -> None:
    """``No action taken. Specify entry_id, feed_id, or all_entries=True.`` to a call of none: a failure about the
    call's arguments, though the answer is a success."""
    from toolatlas.probing.evidence import error_evidence

    spec = ToolSpec(server="s", name="mark_read_tool", description="Mark entries as read.", input_schema={
        "type": "object", "properties": {"entry_id": {"type": "integer"}, "feed_id": {"type": "integer"}}})
    answer = ok("No action taken. Specify entry_id, feed_id, or all_entries=True.")
    assert error_evidence(answer, {}, spec, changed=False) == "error words about the call's arguments"


def test_no_content_at_all_for_what_does_not_exist_or_a_lookup_as_written_is_a_failure() -> None:
    """An empty answer to a made-up id, to a rule id without its letters, to an inflected word: nothing found, reported
    as a success; the same empty answer to a plain call is no failure the call is known to have met."""
    find = ToolSpec(server="s", name="rules_find", description="Find a rule by its exact id.",
                    input_schema={"type": "object", "required": ["id_"], "properties": {"id_": {"type": "string"}}})

    def empty(**arguments: str) -> CallOutcome:
        return CallOutcome(server="s", tool="rules_find", arguments=arguments, outcome=OutcomeClass.OK, excerpt="")

    assert hidden_failure(empty(id_="no_such_rule_3f2a"), find, mutation="nonexistent_reference", changed=None,
                          arguments={"id_": "no_such_rule_3f2a"})
    assert hidden_failure(empty(id_="1.1"), find, mutation="stripped_prefix", changed=None, arguments={"id_": "1.1"})
    total = CallOutcome(server="s", tool="word_match", arguments={"term": "started"}, outcome=OutcomeClass.OK,
                        excerpt='{"total": 0, "offset": 0, "results": []}')
    assert hidden_failure(total, find, mutation="inflected_form", changed=None, arguments={"term": "started"})
    assert hidden_failure(empty(id_="R1.1"), find, mutation=None, changed=None, arguments={"id_": "R1.1"}) is None


class TestCoercedNumbers:
    VALUE = ToolSpec(server="s", name="in_kind_value", description="Value donated items.", input_schema={})

    def judged(self, answer: str, arguments: dict) -> str | None:
        return hidden_failure(ok(answer), self.VALUE, mutation="negative_number", changed=False, arguments=arguments)

    def test_a_number_at_an_edge_answered_as_another_is_a_failure(self) -> None:
        """A quantity of 0 answered as `"quantity": 1.0` in the line that says the item's value of 450 back as sent:
        moved without a word."""
        items = {"items": [{"name": "laptop", "quantity": 0, "fair_market_value": 450}]}
        answer = '{"lines": [{"name": "laptop", "quantity": 1.0, "fair_market_value": 450.0, "line_total": 450.0}]}'
        assert self.judged(answer, items) == "it takes `quantity` 0 as 1, and says nothing of it"

    def test_a_result_under_the_arguments_name_is_no_echo(self) -> None:
        """-7 °C converted answers `"value": 19.4` beside the units said back: a result, not the value moved."""
        call = {"value": -7, "from_unit": "C", "to_unit": "F"}
        assert self.judged('{"value": 19.4, "from_unit": "C", "to_unit": "F"}', call) is None
        assert self.judged('{"limit": 200, "rows": []}', {"limit": 10**9}) is None  # no other number said back

    def test_a_number_said_back_as_sent_a_tally_or_a_middling_number_is_none(self) -> None:
        assert self.judged('{"lines": [{"quantity": 0, "fair_market_value": 450}]}',
                           {"items": [{"quantity": 0, "fair_market_value": 450}]}) is None
        assert self.judged('{"count": 3, "page": 1}', {"count": -1, "page": 1}) is None  # the answer's own tally
        assert self.judged('{"hours": 8}', {"hours": 10}) is None  # not at an edge: another meaning, maybe
        assert self.judged("Quantity 1 of laptop", {"quantity": 0}) is None  # no JSON to read a field of


class TestOtherFields:
    SEARCH = ToolSpec(server="s", name="search_contacts", description="Find contacts.", input_schema={})

    def test_nothing_found_for_a_value_the_record_holds_elsewhere_is_a_field_not_searched(self) -> None:
        """`hamza`, the owner of a contact a name search finds, answered with nothing: the search does not read
        owners; an answer that finds the contact is no failure."""
        assert hidden_failure(ok(""), self.SEARCH, mutation="other_field", changed=False,
                              arguments={"query": "hamza"}) == (
            "the search finds nothing for a value its record holds in another field")
        assert hidden_failure(ok('[{"id": "C-1004", "name": "Khalid Bin Thani"}]'), self.SEARCH,
                              mutation="other_field", changed=False, arguments={"query": "hamza"}) is None

    def test_nothing_found_for_a_name_written_in_another_case_is_a_failure(self) -> None:
        """`Sana` for the listed `sana` answered with no tasks: the filter matches the case it lists."""
        tasks = ToolSpec(server="s", name="list_tasks", description="List tasks by assignee.", input_schema={})
        assert hidden_failure(ok("[]"), tasks, mutation="case_changed", changed=False,
                              arguments={"assignee": "Sana"}) == "the lookup finds nothing for the value as written"
        assert hidden_failure(ok('[{"id": "T-1", "assignee": "sana"}]'), tasks, mutation="case_changed",
                              changed=False, arguments={"assignee": "Sana"}) is None


class TestOneWordOfNames:
    DETAILS = ToolSpec(server="s", name="get_user_details", description="Get details of one user.", input_schema={})

    @staticmethod
    def answer(excerpt: str) -> CallOutcome:
        return CallOutcome(server="s", tool="get_user_details", arguments={"identifier": "Dawson"},
                           outcome=OutcomeClass.OK, excerpt=excerpt)

    def test_a_lookup_that_answers_one_of_the_names_holding_the_word_picked_for_the_caller(self) -> None:
        one = ('{"dn": "CN=Claire Dawson,OU=Management,DC=kestrelvet,DC=local", "cn": "Claire Dawson", '
               '"displayName": "Claire Dawson", "mail": "claire.dawson@kestrelvet.local"}')
        why = hidden_failure(self.answer(one), self.DETAILS, mutation="name_part", changed=None,
                             arguments={"identifier": "Dawson"})
        assert why is not None and "`Claire Dawson` alone" in why

    def test_a_search_answering_every_name_holding_it_is_none_and_an_empty_answer_a_strict_lookup(self) -> None:
        both = '{"results": [{"cn": "Claire Dawson"}, {"cn": "Claire Dawson (admin)"}]}'
        assert hidden_failure(self.answer(both), self.DETAILS, mutation="name_part", changed=None,
                              arguments={"identifier": "Dawson"}) is None
        assert hidden_failure(self.answer('{"total_found": 0, "results": []}'), self.DETAILS, mutation="name_part", changed=None,
                              arguments={"identifier": "Dawson"}) == "the lookup finds nothing for the value as written"


class TestNamesNearOnesItKnows:
    FIND = ToolSpec(server="s", name="get_patterns", description="Newest past bugs of a feature area.", input_schema={})

    def test_a_typo_of_a_listed_name_answered_with_nothing_is_not_refused(self) -> None:
        """``auth_6c58`` (a slug the server lists, with a suffix) answers a count of none after the values it echoes:
        neither refused nor corrected — a failure answered as a success; an answer that found something is none."""
        none = CallOutcome(server="s", tool="get_patterns", arguments={"feature_area": "auth_6c58"},
                           outcome=OutcomeClass.OK,
                           excerpt='{"feature_area":"auth_6c58","project":"demo","count":0,"truncated":false,"lines":[]}')
        why = hidden_failure(none, self.FIND, mutation="near_name", changed=None,
                             arguments={"feature_area": "auth_6c58", "project": "demo"})
        assert why is not None and "is not refused: it finds nothing" in why
        some = none.model_copy(update={"excerpt": '{"feature_area":"auth_6c58","count":1,"lines":["rec_00021: …"]}'})
        assert hidden_failure(some, self.FIND, mutation="near_name", changed=None,
                              arguments={"feature_area": "auth_6c58", "project": "demo"}) is None


def test_a_count_of_none_after_the_values_echoed_is_nothing_found() -> None:
    """``{"query": "ledger", "count": 0, "hits": []}`` found nothing, as ``{"count": 0, …}`` does; a count of two, or
    a list that holds something, did find."""
    from toolatlas.probing.evidence import found_nothing

    assert found_nothing('{"query":"ledger","count":0,"hits":[]}')
    assert not found_nothing('{"query":"ledger","count":2,"hits":[{"id":"rec_00024"}]}')
    assert not found_nothing('{"query":"ledger","count":0,"hits":[{"id":"rec_00024"}]}')


def test_a_replay_of_a_value_outside_the_set_compares_it_with_the_call_before_it_again() -> None:
    """The evidence of an ignored value holds the same call made just before it: a replay (as a retry) judges the
    misuse against that call again, and any other misuse, or a call after another tool, against nothing."""
    from toolatlas.graph.models import Evidence
    from toolatlas.lifecycle.verify import replay_probe
    from toolatlas.probing.hidden import mirror_index

    base = {"principal": 7, "years": 10}
    evidence = Evidence(probe_id="p1", tool="compound_interest", outcome=OutcomeClass.OK,
                        arguments={**base, "compounding_frequency": "not_a_valid_choice"},
                        prefix=[{"tool": "compound_interest", "arguments": base}])
    probe = replay_probe("loans", evidence, 0, "invalid_enum")
    assert probe.steps[1].mirrors == 0 and probe.steps[1].mutation == "invalid_enum"
    assert replay_probe("loans", evidence, 0, "near_name").steps[1].mirrors is None
    assert mirror_index(["fire_number"], "compound_interest", "invalid_enum") is None


def test_a_count_of_none_beside_the_filters_said_back_is_nothing_found() -> None:
    """``{"success": true, "count": 0, "events": [], "filters": {"entity_id": "bramble", …}}`` for `bramble` of the listed
    `hive_bramble` found nothing: the filters only say the call back. Filters holding text of their own are content."""
    from toolatlas.probing.evidence import found_nothing

    events = ToolSpec(server="s", name="query_events", description="Query tracking events with filters",
                      input_schema={})
    arguments = {"entity_type": "inspection", "entity_id": "bramble", "limit": 10}
    answer = ok('{\n  "success": true,\n  "count": 0,\n  "events": [],\n  "filters": {\n    "entity_type": "inspection",\n'
                '    "entity_id": "bramble",\n    "end_date": null,\n    "limit": 10\n  }\n}')
    assert hidden_failure(answer, events, mutation="stripped_prefix", changed=False,
                          arguments=arguments) == "the lookup finds nothing for the value as written"
    assert not found_nothing('{"events": [], "count": 0, "filters": {"entity_id": "bramble"}}')
