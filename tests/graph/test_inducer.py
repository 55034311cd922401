"""Induction without servers: merging by signature, co-usage weights, replays, stale entries."""

from __future__ import annotations

import json

from toolatlas.environments import StateDiff
from toolatlas.graph.families import is_schema_validation
from toolatlas.graph.inducer import Inducer, confidence
from toolatlas.graph.models import CoUsageRelation, EntryKind, EntryStatus
from toolatlas.graph.state import ServerGraph
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict
from toolatlas.probing.text import error_signature
from toolatlas.probing.values import ArgKind, HarvestRef

READ = ToolSpec(server="s", name="read_file", description="Read a file.", input_schema={
    "type": "object", "properties": {"path": {"type": "string"}, "head": {"type": "integer"}}, "required": ["path"]})
LIST = ToolSpec(server="s", name="list_dir", description="List a folder.", input_schema={
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})


def rollout(steps: list[ProbeStep], outcomes: list[tuple[OutcomeClass, str]], *, n: int = 0,
            direction: Direction = Direction.BOUNDARY) -> tuple[Rollout, Verdict]:
    probe = Probe(id=f"p{n}", server="s", round=1, direction=direction, target=steps[0].tool, task="t", steps=steps)
    results = [
        StepResult(index=i, outcome=CallOutcome(server="s", tool=s.tool, arguments=s.arguments, outcome=o, excerpt=x))
        for i, (s, (o, x)) in enumerate(zip(steps, outcomes, strict=True))
    ]
    verdicts = [
        StepVerdict(index=i, tool=s.tool, outcome=o, failed=o is not OutcomeClass.OK, error_text=x if o is not OutcomeClass.OK else "",
                    change=StateDiff())
        for i, (s, (o, x)) in enumerate(zip(steps, outcomes, strict=True))
    ]
    return Rollout(probe=probe, steps=results, variables={"root": "/tmp/inst/state/root"}), Verdict(
        probe_id=probe.id, server="s", resolved=True, steps=verdicts)


class TestMerging:
    def test_same_wall_becomes_one_boundary(self) -> None:
        """Twenty probes failing with the same error (different paths) make one boundary with support 20."""
        graph = ServerGraph("s", [READ, LIST])
        inducer = Inducer(graph)
        for n in range(20):
            step = ProbeStep(tool="read_file", arguments={"path": f"/etc/file{n}"}, mutation="path_escape",
                             condition="`path` is outside the root", expect="error")
            inducer.induce(*rollout([step], [(OutcomeClass.TOOL_ERROR, f"Access denied: /etc/file{n} is outside")], n=n))
        boundaries = graph.entries_of("read_file", EntryKind.BOUNDARY)
        assert len(boundaries) == 1
        assert boundaries[0].support == 20 and boundaries[0].confidence == confidence(20)
        assert len(boundaries[0].evidence) == 5 and boundaries[0].evidence[0].arguments == {"path": "/etc/file0"}

    def test_boundaries_keep_the_family_that_provoked_them(self) -> None:
        """A boundary records its mutation's family; only schema-stated families count as schema validation."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        typed = ProbeStep(tool="read_file", arguments={"path": 12345}, mutation="wrong_type",
                          condition="`path` is a number instead of a string", expect="error")
        escape = ProbeStep(tool="read_file", arguments={"path": "/etc/passwd"}, mutation="path_escape",
                           condition="`path` is outside the root", expect="error")
        unplanned = ProbeStep(tool="read_file", arguments={"path": "gone.txt"})
        inducer.induce(*rollout([typed], [(OutcomeClass.TOOL_ERROR, "Expected string, received number")], n=1))
        inducer.induce(*rollout([escape], [(OutcomeClass.TOOL_ERROR, "Access denied - path outside")], n=2))
        inducer.induce(*rollout([unplanned], [(OutcomeClass.TOOL_ERROR, "ENOENT: no such file")], n=3))
        by_family = {e.family: e for e in graph.entries_of("read_file", EntryKind.BOUNDARY, active_only=False)}
        assert set(by_family) == {"wrong_type", "schema_validation", "path_escape", None}
        assert is_schema_validation(by_family["wrong_type"]) and is_schema_validation(by_family["schema_validation"])
        assert not is_schema_validation(by_family["path_escape"]) and not is_schema_validation(by_family[None])
        soft = by_family["wrong_type"].model_copy(update={"reported_as_success": True})
        assert is_schema_validation(soft)  # refused by an error inside a successful result: still the schema's rule
        hidden = soft.model_copy(update={"text": "`read_file` answers as if it succeeded (it answered exactly as the "
                                                 "same call without `path`) when `path` is a number: “…”."})
        assert not is_schema_validation(hidden)  # answered as if it succeeded: no rule the schema enforces

    def test_different_errors_stay_apart(self) -> None:
        """Different error messages are different boundaries."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        step = ProbeStep(tool="read_file", arguments={"path": "x"}, expect="error")
        inducer.induce(*rollout([step], [(OutcomeClass.TOOL_ERROR, "ENOENT: no such file")], n=1))
        inducer.induce(*rollout([step], [(OutcomeClass.TOOL_ERROR, "EISDIR: is a directory")], n=2))
        assert len(graph.entries_of("read_file", EntryKind.BOUNDARY)) == 2

    def test_json_failures_cut_short_keep_their_reasons_apart(self) -> None:
        """Two JSON answers failing for different reasons, each longer than an evidence excerpt, are two
        boundaries whose signatures are the reasons (not the ``{`` the cut-off text starts with)."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        step = ProbeStep(tool="read_file", arguments={"path": "x"}, expect="error")
        for n, reason in enumerate(["Hash mismatch - file has been modified", "range_hash is required"]):
            answer = json.dumps({"${root}/x": {"result": "error", "reason": reason, "content": "y" * 600}}, indent=2)
            inducer.induce(*rollout([step], [(OutcomeClass.TOOL_ERROR, answer)], n=n))
        signatures = sorted(e.error_signature for e in graph.entries_of("read_file", EntryKind.BOUNDARY))
        assert signatures == ["Hash mismatch - file has been modified", "range_hash is required"]

    def test_error_signature_masks_the_incidental(self) -> None:
        """Paths, numbers and quoted names are masked; the words of the error remain."""
        assert error_signature("Access denied - /a/b/c.txt not in /root (code 13)") == "Access denied - <path> not in <path> (code <n>)"

    def test_an_id_a_server_minted_is_masked(self) -> None:
        """Two elements a server minted base-36 ids for, each deleted twice, fail with one signature;
        a word with a number in it stays."""
        assert error_signature("Error: Element with ID mxawa0xp2h87byufydf not found") == \
            error_signature("Error: Element with ID mxaw71eoy1hbiz37yr not found") == "Error: Element with ID <id> not found"
        assert error_signature("column report2024 is missing") == "column report2024 is missing"

    def test_a_message_wrapped_in_quotes_signs_by_its_words(self) -> None:
        """`Error: "Key 'x' not found. …"` and `Error: "No document loaded …"` (a server printing its exception's
        repr) are two errors, not one quoted value; `Error: 'column'` stays a value."""
        missing = error_signature('Error: "Key \'no_such\' not found. Available keys: [\'a\', \'b\']"')
        assert missing == "Error: Key <s> not found. Available keys: [<s>, <s>]"
        assert missing != error_signature('Error: "No document loaded with alias \'x\'. Loaded documents: (none)"')
        assert error_signature("Error: 'column'") == "Error: <s>"

    def test_a_json_body_after_a_lead_signs_by_its_reason(self) -> None:
        """``Error calling tool 'q': {...}`` signs by the reason its JSON gives, so a missing table and a
        broken constraint are two boundaries; a name a probe made up is masked."""
        lead = "Error calling tool 'execute_query': {\n  \"success\": false,\n  \"error\": \"%s\"\n}"
        missing = error_signature(lead % "Catalog Error: Table with name no_such_table_7a3a does not exist!")
        assert missing == "Error calling tool <s>: Catalog Error: Table with name <new> does not exist!"
        assert missing == error_signature(lead % "Catalog Error: Table with name no_such_table_b393 does not exist!")
        assert missing != error_signature(lead % "Constraint Error: NOT NULL constraint failed: cities.name")

    def test_evidence_is_normalised_to_placeholders(self) -> None:
        """Evidence excerpts name the instance by placeholders, not by its temporary path."""
        graph = ServerGraph("s", [READ])
        step = ProbeStep(tool="read_file", arguments={"path": "${root}/a"}, expect="ok")
        Inducer(graph).induce(*rollout([step], [(OutcomeClass.OK, "read /tmp/inst/state/root/a")], direction=Direction.SEED))
        entry = graph.entries_of("read_file", EntryKind.AFFORDANCE)[0]
        assert entry.evidence[0].excerpt == "read ${root}/a"


    def test_each_kind_of_answer_keeps_its_proof(self) -> None:
        """An answer of another shape (a JSON result with other fields) keeps its evidence however many
        answers of the plain shape come before and after it."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)

        def read(name: str, n: int, answer: str) -> None:
            step = ProbeStep(tool="read_file", arguments={"path": name}, expect="ok")
            inducer.induce(*rollout([step], [(OutcomeClass.OK, answer)], n=n, direction=Direction.SEED))

        for n in range(6):
            read(f"f{n}.js", n, f'{{"filePath": "f{n}.js", "messages": []}}')
        read("cart.js", 10, '{"filePath": "cart.js", "messages": [{"ruleId": "no-unused-vars", "line": 3}]}')
        for n in range(20, 26):
            read(f"g{n}.js", n, f'{{"filePath": "g{n}.js", "messages": []}}')
        [use] = graph.entries_of("read_file", EntryKind.AFFORDANCE)
        assert use.support == 13 and len(use.evidence) == 5
        assert any("ruleId" in e.excerpt for e in use.evidence)


class TestPortableEvidence:
    def test_a_path_carried_from_an_answer_is_kept_as_a_placeholder(self) -> None:
        """A call carrying the instance's concrete path (taken from a listing) is recorded with ``${root}``:
        its evidence, the calls before it and its example replay in any instance."""
        graph = ServerGraph("s", [READ, LIST])
        inducer = Inducer(graph)
        listing = ProbeStep(tool="list_dir", arguments={"path": "${root}"})
        carried = ProbeStep(tool="read_file", arguments={"path": "/tmp/inst/state/root/notes/a.txt", "head": 2})
        inducer.induce(*rollout([listing, carried], [(OutcomeClass.OK, "[FILE] a.txt"), (OutcomeClass.OK, "hello")],
                                direction=Direction.AFFORDANCE))
        [use] = graph.entries_of("read_file", EntryKind.AFFORDANCE)
        assert use.example_arguments == {"path": "${root}/notes/a.txt", "head": 2}
        assert use.evidence[0].arguments == {"path": "${root}/notes/a.txt", "head": 2}
        assert use.evidence[0].prefix == [{"tool": "list_dir", "arguments": {"path": "${root}"}}]
        assert "/tmp/inst" not in json.dumps([e.model_dump(mode="json") for e in graph.entries.values()])


def listed_then_read(harvested: str, sent: str) -> ServerGraph:
    """The graph after a listing, then a read sending ``sent`` made from the listed value ``harvested``."""
    graph = ServerGraph("s", [READ, LIST])
    ref = HarvestRef(kind=ArgKind.FILE_PATH, value=harvested, tool="list_dir", probe_id="p0")
    listing = ProbeStep(tool="list_dir", arguments={"path": "${root}"}, expect="ok")
    read = ProbeStep(tool="read_file", arguments={"path": sent}, expect="ok", harvested=[ref])
    Inducer(graph).induce(*rollout([listing, read], [(OutcomeClass.OK, "a"), (OutcomeClass.OK, "content")],
                                   direction=Direction.AFFORDANCE))
    return graph


class TestCoUsage:
    def test_data_edge_weight_is_a_witnessed_ratio(self) -> None:
        """A harvested value that works gives a data edge with weight N_ij / N_i."""
        graph = ServerGraph("s", [READ, LIST])
        inducer = Inducer(graph)
        ref = HarvestRef(kind=ArgKind.FILE_PATH, value="${root}/a", tool="list_dir", probe_id="p0")
        listing = ProbeStep(tool="list_dir", arguments={"path": "${root}"}, expect="ok")
        use = ProbeStep(tool="read_file", arguments={"path": "${root}/a"}, expect="ok", harvested=[ref])
        inducer.induce(*rollout([listing, use], [(OutcomeClass.OK, "a"), (OutcomeClass.OK, "content")], n=1,
                                direction=Direction.AFFORDANCE))
        inducer.induce(*rollout([listing, use], [(OutcomeClass.OK, "a"), (OutcomeClass.TOOL_ERROR, "gone")], n=2,
                                direction=Direction.AFFORDANCE))
        inducer.refresh_weights()
        [edge] = graph.entries_of("list_dir", EntryKind.CO_USAGE)
        assert edge.relation is CoUsageRelation.DATA and edge.peer == "read_file"
        assert edge.transitions == 1 and graph.transition_opportunities["list_dir"] == 3
        assert edge.weight == round(1 / 3, 4)

    def test_a_call_that_no_longer_sends_the_value_witnesses_no_data_edge(self) -> None:
        """A variant of the data-flow call (its value replaced) keeps the harvested ref it was made from: it
        succeeds, but says nothing of the listing's values."""
        assert listed_then_read("${root}/a", "${root}/other").entries_of("list_dir", EntryKind.CO_USAGE) == []

    def test_a_value_harvested_in_the_instance_is_compared_as_a_placeholder(self) -> None:
        """A ref holding the instance's concrete path witnesses the call that sends it as ``${root}/…``, and its
        evidence names no instance."""
        [edge] = listed_then_read("/tmp/inst/state/root/a", "${root}/a").entries_of("list_dir", EntryKind.CO_USAGE)
        assert edge.peer == "read_file" and "/tmp/inst" not in edge.evidence[0].excerpt

    def test_retry_edge(self) -> None:
        """A failing call followed by a corrected call that works is a retry edge."""
        graph = ServerGraph("s", [READ])
        failing = ProbeStep(tool="read_file", arguments={"path": "/etc/x"}, expect="error")
        fixed = ProbeStep(tool="read_file", arguments={"path": "${root}/a"}, expect="ok", retry_of=0)
        Inducer(graph).induce(*rollout([failing, fixed], [(OutcomeClass.TOOL_ERROR, "denied"), (OutcomeClass.OK, "x")],
                                       direction=Direction.AFFORDANCE))
        [edge] = graph.entries_of("read_file", EntryKind.CO_USAGE)
        assert edge.relation is CoUsageRelation.RETRY and edge.peer == "read_file"


class TestTraces:
    @staticmethod
    def watched(changed: bool) -> tuple[Rollout, Verdict]:
        """``list, list again, read, list``: the sandwich a probe puts around a call to see whether it changes state."""
        look = ProbeStep(tool="list_dir", arguments={}, expect="ok", intent="see the state")
        call = ProbeStep(tool="read_file", arguments={"path": "${root}/a"}, expect="ok")
        steps = [look, look.model_copy(update={"compares": 0}), call, look.model_copy(update={"compares": 1})]
        run, verdict = rollout(steps, [(OutcomeClass.OK, "a")] * 4, direction=Direction.SEED)
        marked = [v.model_copy(update={"output_changed": changed if v.index == 3 else False if v.index == 1 else None})
                  for v in verdict.steps]
        return run, verdict.model_copy(update={"steps": marked})

    def test_reads_that_saw_no_change_are_not_steps_of_the_task(self) -> None:
        graph = ServerGraph("s", [READ, LIST])
        Inducer(graph).induce(*self.watched(changed=False))
        [trace] = graph.traces.values()
        assert [s.tool for s in trace.steps] == ["read_file"] and trace.tools == ["read_file"]

    def test_reads_that_saw_the_change_stay(self) -> None:
        graph = ServerGraph("s", [READ, LIST])
        Inducer(graph).induce(*self.watched(changed=True))
        [trace] = graph.traces.values()
        assert [s.tool for s in trace.steps] == ["list_dir", "list_dir", "read_file", "list_dir"]


class TestStale:
    def test_entries_of_a_changed_interface_go_stale(self) -> None:
        """Loading entries stored for an older schema marks them stale and keeps them out of the live graph."""
        old = ServerGraph("s", [READ])
        Inducer(old).induce(*rollout([ProbeStep(tool="read_file", arguments={"path": "a"}, expect="ok")],
                                     [(OutcomeClass.OK, "x")], direction=Direction.SEED))
        stored = old.take_dirty()
        changed = READ.model_copy(update={"input_schema": {**READ.input_schema, "required": ["path", "head"]}})
        new = ServerGraph("s", [changed])
        assert new.load(stored) == 1
        assert new.entries == {}
        persisted = new.take_dirty()["entries"]
        assert persisted and all(e.status is EntryStatus.STALE for e in persisted)


class TestLexicon:
    def test_answers_are_heard_in_full_without_the_probe_s_words(self) -> None:
        """The words of an answer past the evidence's excerpt are kept; the probe's own words, ids and
        numbers are not; camelCase names are split."""
        from toolatlas.graph.models import Fingerprint, ServerNode
        from toolatlas.probing.text import EXCERPT_CHARS, TAIL_CHARS

        graph = ServerGraph("s", [READ])
        graph.put_server(ServerNode(id="n", server="s", fingerprint=Fingerprint(
            runtime="r", transport="t", snapshot="", tools={}, toolatlas="v", method="m")))
        step = ProbeStep(tool="read_file", arguments={"path": "${root}/ledger.txt", "note": "banana split"}, expect="ok")
        said = " unitPrice of the banana at row 3f2a9c 42 in /tmp/inst/state/root/ledger.txt "
        answer = "x" * EXCERPT_CHARS + said + "y" * TAIL_CHARS  # the words stand where evidence leaves out
        Inducer(graph).induce(*rollout([step], [(OutcomeClass.OK, answer)], direction=Direction.SEED))
        [node] = graph.take_dirty()["servers"]
        assert {"unit", "price", "row"} <= set(node.lexicon)
        assert not {"banana", "ledger", "txt", "root", "3f2a9c", "42"} & set(node.lexicon)

    def test_a_whole_build_hears_again_and_a_refresh_keeps(self) -> None:
        """Loading what a previous build stored keeps its lexicon (a refresh re-probes only some tools)."""
        from toolatlas.graph.models import Fingerprint, ServerNode

        stored = ServerNode(id="n", server="s", lexicon=["ledger"], fingerprint=Fingerprint(
            runtime="r", transport="t", snapshot="", tools={}, toolatlas="v", method="m"))
        graph = ServerGraph("s", [READ])
        graph.load({"servers": [stored]})
        assert graph.lexicon.words() == ["ledger"]


class TestEvidenceOfAnEntry:
    def test_an_affordance_shows_the_end_of_a_long_answer(self) -> None:
        """The evidence of a use keeps the count a long listing states at its end."""
        listing = ToolSpec(server="s", name="list_todos", description="List the todos.", input_schema={
            "type": "object", "properties": {"priority": {"type": "string"}}})
        todos = [{"id": str(n), "text": f"Todo number {n} of the list", "priority": "A"} for n in range(12)]
        answer = json.dumps({"todos": todos, "count": 12, "priority": "A"}, indent=2)
        graph = ServerGraph("s", [listing])
        step = ProbeStep(tool="list_todos", arguments={"priority": "A"}, expect="ok")
        Inducer(graph).induce(*rollout([step], [(OutcomeClass.OK, answer)], direction=Direction.SEED))
        [entry] = [e for e in graph.entries.values() if e.kind is EntryKind.AFFORDANCE]
        assert '"count": 12' in entry.evidence[0].excerpt

    def test_a_use_keeps_a_call_on_each_format_of_file(self) -> None:
        """Reads of ``.musicxml`` scores with one of a compressed ``.mxl`` among them: the use keeps five calls, the
        ``.mxl`` one among them however many come after — what the tool was verified to open stays provable."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        paths = [*(f"${{root}}/scores/piece_{n}.musicxml" for n in range(6)), "${root}/scores/piece_6.mxl",
                 *(f"${{root}}/scores/piece_{n}.musicxml" for n in range(7, 12))]
        for n, path in enumerate(paths):
            step = ProbeStep(tool="read_file", arguments={"path": path}, expect="ok")
            inducer.induce(*rollout([step], [(OutcomeClass.OK, '{"similarity_score": 0.95}')], n=n,
                                    direction=Direction.SEED))
        [use] = [e for e in graph.entries.values() if e.kind is EntryKind.AFFORDANCE]
        assert use.support == 12 and len(use.evidence) == 5
        assert "${root}/scores/piece_6.mxl" in [e.arguments["path"] for e in use.evidence]

    def test_a_call_made_once_outlasts_the_repeats_of_another(self) -> None:
        """Queries of a spreadsheet, each answering rows of its own columns (every call its own kind): a join made
        once stays among the five kept calls while a plain select is made again and again."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        plain = 'SELECT * FROM "Sales" WHERE "Month" = '
        calls = [(plain + "'2024-01'", '{"Region": "North", "Month": "2024-01"}'),
                 ('SELECT "Region" FROM "Sales" LIMIT 5', '{"Region": "North"}'),
                 ('SELECT "Region", COUNT(*) AS n FROM "Sales" GROUP BY "Region"', '{"Region": "North", "n": 2}'),
                 ('SELECT t."Month", p."Target" FROM "Sales" AS t JOIN "Targets" AS p ON p."Region" = t."Region"',
                  '{"Month": "2024-01", "Target": 250}'),
                 ('SELECT * FROM "Targets"', '{"Region": "North", "Target": 250}'),
                 *[(plain + "'2024-01'", f'{{"Region": "North", "Month": "2024-01", "Units": {n}}}')
                   for n in range(4)]]
        for n, (sql, answer) in enumerate(calls):
            step = ProbeStep(tool="read_file", arguments={"path": "${root}/sales.xlsx", "sql": sql}, expect="ok")
            inducer.induce(*rollout([step], [(OutcomeClass.OK, answer)], n=n, direction=Direction.SEED))
        [use] = [e for e in graph.entries.values() if e.kind is EntryKind.AFFORDANCE]
        assert len(use.evidence) == 5 and any("JOIN" in e.arguments["sql"] for e in use.evidence)

    def test_a_write_outlasts_reads_answered_alike(self) -> None:
        """A tool taking any SQL answers an ``INSERT`` in the shape of a ``SELECT`` (``success``, ``columns``,
        ``rows``): among many reads before and after it, the one write stays proven."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        answer = '{"success": true, "columns": ["n"], "rows": [[1]], "rowCount": 1}'
        statements = [*["SELECT name FROM cities LIMIT 5"] * 4, "INSERT INTO cities (id, name) VALUES (9, 'Oslo-a1')",
                      *["SELECT name FROM cities LIMIT 5"] * 6]
        for n, sql in enumerate(statements):
            step = ProbeStep(tool="read_file", arguments={"sql": sql}, expect="ok")
            inducer.induce(*rollout([step], [(OutcomeClass.OK, answer)], n=n, direction=Direction.SEED))
        [use] = [e for e in graph.entries.values() if e.kind is EntryKind.AFFORDANCE]
        assert len(use.evidence) == 5 and any(e.arguments["sql"].startswith("INSERT") for e in use.evidence)

    def test_a_flag_set_once_outlasts_its_opposite(self) -> None:
        """Invoices staged again and again answer ``"needs_approval": false``; the one staged over the limit answers
        ``true`` in the same shape, and stays proven."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        flags = [False] * 4 + [True] + [False] * 6
        for n, flag in enumerate(flags):
            step = ProbeStep(tool="read_file", arguments={"path": f"${{root}}/inv{n}.pdf"}, expect="ok")
            answer = json.dumps({"staged_id": f"STG-{n}", "needs_approval": flag, "approval_limit": 5000.0})
            inducer.induce(*rollout([step], [(OutcomeClass.OK, answer)], n=n, direction=Direction.SEED))
        [use] = [e for e in graph.entries.values() if e.kind is EntryKind.AFFORDANCE]
        assert len(use.evidence) == 5 and any('"needs_approval": true' in e.excerpt for e in use.evidence)

    def test_a_new_shape_of_answer_outlasts_new_formats(self) -> None:
        """A linter's one answer with ``ruleId`` messages, among clean answers on files of ever new formats: the
        shape of answer stays proven (each format does only while another call can go)."""
        graph = ServerGraph("s", [READ])
        inducer = Inducer(graph)
        clean, flagged = '{"filePath": "x", "messages": []}', '{"filePath": "x", "messages": [{"ruleId": "no-var"}]}'
        calls = [("a.js", clean), ("b.json", clean), ("c.md", clean), ("d.js", flagged), ("e.ts", clean),
                 ("f.css", clean), ("g.html", clean), ("h.yaml", clean)]
        for n, (name, answer) in enumerate(calls):
            step = ProbeStep(tool="read_file", arguments={"path": f"${{root}}/{name}"}, expect="ok")
            inducer.induce(*rollout([step], [(OutcomeClass.OK, answer)], n=n, direction=Direction.SEED))
        [use] = [e for e in graph.entries.values() if e.kind is EntryKind.AFFORDANCE]
        assert len(use.evidence) == 5 and any('"ruleId"' in e.excerpt for e in use.evidence)
