"""Saturation's parts on made-up tools: described operations, fingerprints, value classes, enablers an
error points to, domain search terms and the sign of unbounded numbers."""

from __future__ import annotations

import random

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import ArgSpec, infer_arguments
from toolatlas.offline.mutations import MutationKind, boundary_mutations
from toolatlas.offline.operations import described_operations
from toolatlas.offline.retries import counterpart, stated_enablers
from toolatlas.offline.saturation import token_arguments, value_classes
from toolatlas.offline.scalars import domain_words
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.values import ArgKind

BATCH = ToolSpec(
    server="s",
    name="dates",
    description=(
        'Batch date ops: [{"op": NAME, ...args}, ...] -> [result, ...]\n'
        "    diff(start, end, unit)  add(date, n, unit) -> ISO    weekday(date) -> name\n"
        "    unit: seconds|minutes|hours|days (+ months|years for add).\n"
    ),
    input_schema={
        "type": "object",
        "properties": {"ops": {"type": "array", "items": {"type": "object", "additionalProperties": True}}},
        "required": ["ops"],
    },
)


def synth() -> ValueSynth:
    return ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))


def tool(name: str, properties: dict, description: str = "", required: list[str] | None = None) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": required or list(properties)}
    return ToolSpec(server="s", name=name, description=description, input_schema=schema)


class TestDescribedOperations:
    def test_signatures_selector_and_value_lists_are_read(self) -> None:
        """The selecting key, each signature with its parameters, and a parameter's values (with those
        allowed for one operation only) come from the description."""
        described = described_operations(BATCH)
        assert described is not None and described.selector == "op"
        assert described.names() == ["diff", "add", "weekday"]
        assert described.allowed["unit"] == ["seconds", "minutes", "hours", "days"]
        assert described.restricted["unit"] == (["months", "years"], "add")

    def test_a_batch_is_filled_with_real_operations(self) -> None:
        """Variant 0 is one operation with dated ends and a listed unit; later variants batch several."""
        planner = synth()
        first = planner.valid_arguments(BATCH, infer_arguments(BATCH), 0)
        assert first is not None
        [op] = first.arguments["ops"]
        assert op["op"] == "diff" and op["unit"] in ("seconds", "minutes", "hours", "days")
        assert op["start"][:2] in ("19", "20")  # an ISO date, not a word
        later = planner.valid_arguments(BATCH, infer_arguments(BATCH), 1)
        assert later is not None and len(later.arguments["ops"]) > 1

    def test_an_unlisted_operation_and_a_value_for_another_operation_are_probed(self) -> None:
        """The batch's boundaries: an operation the description does not list, a unit allowed only for add."""
        planner = synth()
        specs = infer_arguments(BATCH)
        call = planner.valid_arguments(BATCH, specs, 0)
        assert call is not None
        found = boundary_mutations(BATCH, specs, call.arguments, planner, cap=80)
        unknown = [m for m in found if m.name is MutationKind.INVALID_ENUM and m.target_arg == "ops[0].op"]
        assert unknown and unknown[0].arguments["ops"][0]["op"] == "no_such_operation"
        wrong = [m for m in found if m.name is MutationKind.INCOMPATIBLE_VALUE]
        assert wrong and wrong[0].arguments["ops"][0]["unit"] == "months"

    def test_a_description_without_signatures_describes_nothing(self) -> None:
        """An array of objects with no selector or fewer than two signatures is left to the schema."""
        plain = BATCH.model_copy(update={"description": "Run the given operations."})
        assert described_operations(plain) is None


class TestValueClasses:
    def test_operators_functions_and_batches_are_classes(self) -> None:
        """An expression's operators and functions, and a batch of several objects, name its class."""
        calc = tool("calc", {"expression": {"type": "string", "description": "a math expression"}})
        specs = infer_arguments(calc)
        assert specs[0].kind is ArgKind.EXPRESSION
        assert value_classes(specs, {"expression": "2^10"}) == ["expression~^"]
        assert value_classes(specs, {"expression": "sqrt(16) + 2"}) == ["expression~+sqrt()"]
        assert value_classes(specs, {"expression": "42"}) == []
        assert value_classes(infer_arguments(BATCH), {"ops": [{"op": "a"}, {"op": "b"}]}) == ["ops~many"]

    def test_fingerprint_arguments_are_found_by_kind_or_name(self) -> None:
        """A hash-kind argument or one named like an etag or version token carries a fingerprint."""
        edit = tool("edit", {"path": {"type": "string"}, "file_hash": {"type": "string"}, "etag": {"type": "string"},
                             "text": {"type": "string"}})
        assert {s.name for s in token_arguments(infer_arguments(edit))} == {"file_hash", "etag"}


class TestWordsOfTheTools:
    def test_an_error_points_to_the_tool_whose_name_holds_its_word(self) -> None:
        """"Task not done yet." points to mark_task_done, not to the tools sharing only "task"."""
        tools = {n: tool(n, {}) for n in ("approve_task", "mark_task_done", "delete_task", "list_tasks")}
        assert stated_enablers("approve_task", "Task not done yet.", tools) == ["mark_task_done"]
        assert stated_enablers("approve_task", "Permission denied", tools) == []

    def test_a_participle_meets_the_verb_it_comes_from(self) -> None:
        """"Not all done tasks are approved." from approve_request: mark_task_done (done, task), then
        approve_task (task, and approve, a word of the failing tool too), before the other task tools."""
        names = ("approve_request", "mark_task_done", "approve_task", "add_tasks_to_request", "delete_task")
        tools = {n: tool(n, {}) for n in names}
        assert stated_enablers("approve_request", "Not all done tasks are approved.", tools)[:2] == [
            "mark_task_done", "approve_task"]

    def test_an_error_saying_the_object_is_missing_points_to_its_creator(self) -> None:
        """"No footnotes in document" from delete_footnote points to add_footnote, not to another deleter
        or a read; an error saying nothing is missing does not."""
        tools = {n: tool(n, {}) for n in ("delete_footnote", "add_footnote", "remove_footnote", "get_footnotes")}
        assert stated_enablers("delete_footnote", "No footnotes in document", tools) == ["add_footnote"]
        assert stated_enablers("delete_footnote", "Footnote text too long", tools) == []

    def test_undoing_points_to_the_tool_it_undoes(self) -> None:
        """unprotect_document's failure points to protect_document, whatever its words."""
        tools = {n: tool(n, {}) for n in ("unprotect_document", "protect_document", "get_document")}
        assert stated_enablers("unprotect_document", "module has no attribute 'InvalidFormatError'", tools) == [
            "protect_document"
        ]
        assert counterpart("disable_rule", {n: tool(n, {}) for n in ("disable_rule", "enable_rule")}) == "enable_rule"
        assert counterpart("update_rule", {n: tool(n, {}) for n in ("update_rule", "date_rule")}) is None
        assert counterpart("redo", {n: tool(n, {}) for n in ("redo", "undo")}) == "undo"

    def test_a_search_with_no_data_uses_its_domain(self) -> None:
        """A unit search looks for unit names; a tool naming no known domain gets none."""
        assert "meter" in domain_words("find_units search units by name")
        assert domain_words("frobnicate the widget") == []

    def test_a_number_nothing_bounds_below_gets_a_negative_value(self) -> None:
        """An unbounded amount is tried negative (either outcome informative); an id is not."""
        convert = tool("convert", {"value": {"type": "number"}, "item_id": {"type": "integer"}})
        planner = synth()
        specs = infer_arguments(convert)
        call = planner.valid_arguments(convert, specs, 0)
        assert call is not None
        found = [m for m in boundary_mutations(convert, specs, call.arguments, planner, cap=60)
                 if m.name is MutationKind.NEGATIVE_NUMBER]
        assert [m.target_arg for m in found] == ["value"]
        assert found[0].arguments["value"] < 0 and not found[0].expected_failure


class TestLetters:
    def test_a_one_letter_value_gets_a_lower_case_and_a_two_letter_near_miss(self) -> None:
        """A value the description calls a single uppercase letter is tried lower-case and doubled."""
        add = tool("add", {"priority": {"type": "string", "description": "Priority, a single uppercase letter (A-Z)"},
                           "text": {"type": "string"}}, required=["text"])
        planner = synth()
        specs = infer_arguments(add)
        found = [m for m in boundary_mutations(add, specs, {"text": "x", "priority": "B"}, planner, cap=80)
                 if m.name is MutationKind.MALFORMED_VALUE and m.target_arg == "priority"]
        assert sorted(m.arguments["priority"] for m in found) == ["BB", "b"]


class TestTargetSweep:
    def test_a_reading_tool_is_pointed_at_each_file_once(self, seed_facts: dict) -> None:
        """A linter of unknown verb meets every text file of the snapshot, three new ones a round, and one file of
        each other format (the snapshot's one image) until none is left; a tool that writes is not swept."""
        from toolatlas.config import ServerSpec
        from toolatlas.graph.state import ServerGraph
        from toolatlas.offline.proposer import OfflineProposer

        lint = tool("lint-files", {"filePaths": {"type": "array", "items": {"type": "string"},
                                                "description": "Absolute paths of the files to lint"}})
        write = tool("write_file", {"path": {"type": "string"}, "content": {"type": "string"}})
        proposer = OfflineProposer(ServerGraph("s", [lint, write]), None,
                                   ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        proposer.facts = seed_facts["filesystem"]
        proposer.synth = ValueSynth(proposer.facts, proposer.pool, proposer.rng)
        files = {f.path for f in proposer.facts.tree.files if f.text}
        binary = {f.extension: f.path for f in sorted(proposer.facts.tree.files, key=lambda f: f.path) if not f.text}
        assert list(binary) == [".png"]
        linted: set[str] = set()
        for round_ in range(1, 20):
            probes = [p for p in proposer.saturation(round_, set()) if any(":target:" in k for k in p.coverage_keys)]
            assert all(p.target == "lint-files" for p in probes) and len(probes) <= 3
            linted |= {path for p in probes for path in p.steps[0].arguments["filePaths"]}
            if not probes:
                break
        assert linted == files | set(binary.values())


    def test_a_file_in_a_field_of_the_items_is_swept_too(self, seed_facts: dict) -> None:
        """``files: [{"file_path": …, "encoding": …}]``: each text file in turn, the item's other fields kept."""
        item = {"type": "object", "properties": {"file_path": {"type": "string", "description": "Path to the file"},
                                                 "encoding": {"type": "string", "enum": ["utf-8"]}},
                "required": ["file_path", "encoding"]}
        reader = tool("get_text_file_contents", {"files": {"type": "array", "items": item}},
                      description="Read text file contents")
        proposer = _proposer(reader)
        proposer.facts = seed_facts["filesystem"]
        proposer.synth = ValueSynth(proposer.facts, proposer.pool, proposer.rng)
        probes = [p for p in proposer.saturation(1, set()) if any(":target:" in k for k in p.coverage_keys)]
        assert len(probes) == 3
        items = [p.steps[0].arguments["files"] for p in probes]
        assert all(len(i) == 1 and i[0]["encoding"] == "utf-8" for i in items)
        assert len({i[0]["file_path"] for i in items}) == 3

    def test_an_unpacker_verified_on_one_archive_meets_every_archive_of_that_format(self, tmp_path) -> None:
        """Binary files are no text to lint: the text first, then one file of each other format (what a caller may
        hand it); but once a tool worked on a ``.zip``, each other ``.zip`` is a file of its kind (one may be
        encrypted, another corrupt) — and so is each ``.7z`` once its description names the format."""
        from toolatlas.offline.facts import extract_facts
        from toolatlas.probing.models import ProbeStep

        for name in ("a.zip", "b.zip", "c.7z", "d.7z"):
            (tmp_path / name).write_bytes(b"PK\x03\x04\x00\x00binary" + name.encode())
        (tmp_path / "notes.txt").write_text("hello\n")
        unpack = tool("unpack", {"archive_file": {"type": "string", "description": "Path of the archive to unpack"}})
        proposer = _proposer(unpack)
        proposer.facts = extract_facts("directory", tmp_path)
        proposer.synth = ValueSynth(proposer.facts, proposer.pool, proposer.rng)
        [a_zip, b_zip, c_7z, d_7z, notes] = [f"{proposer.synth.targets.root}/{n}"
                                             for n in ("a.zip", "b.zip", "c.7z", "d.7z", "notes.txt")]

        def swept(round_: int) -> set[str]:
            return {p.steps[0].arguments["archive_file"] for p in proposer.saturation(round_, set())
                    if any(":target:" in k for k in p.coverage_keys)}

        assert swept(1) == {notes, a_zip, c_7z}
        _verified(proposer, [ProbeStep(tool="unpack", arguments={"archive_file": a_zip}, expect="ok")])
        found = swept(2) | swept(3)
        assert b_zip in found and d_7z not in found
        proposer.graph.specs["unpack"] = unpack.model_copy(update={"description": "Unpack ZIP or 7Z archives."})
        assert d_7z in swept(4) | swept(5)  # a format its description names


    def test_a_file_of_another_nature_is_swept_once_per_extension(self, tmp_path) -> None:
        """A log reader meets the text logs first, then one gzipped rotation — the one its listing named, not another
        .gz — and the one .zip no answer gave: a file of each other format is what a caller may hand it."""
        from toolatlas.offline.facts import extract_facts
        from toolatlas.probing.values import ArgKind, HarvestRef

        for name in ("api.log", "worker.log"):
            (tmp_path / name).write_text("INFO started\n")
        for name in ("api.log.1.gz", "api.log.2.gz", "worker.log.1.gz"):
            (tmp_path / name).write_bytes(b"\x1f\x8b\x08\x00binary" + name.encode())
        (tmp_path / "old-logs.zip").write_bytes(b"PK\x03\x04binary")
        reader = tool("get_log_content", {"filename": {"type": "string", "description": "Name of the log file to read"}})
        proposer = _proposer(reader)
        proposer.facts = extract_facts("directory", tmp_path)
        proposer.synth = ValueSynth(proposer.facts, proposer.pool, proposer.rng)
        root = proposer.synth.targets.root
        for name in ("api.log", "worker.log", "api.log.1.gz", "api.log.2.gz"):  # what the listing answered
            proposer.pool.add(HarvestRef(kind=ArgKind.FILE_PATH, value=f"{root}/{name}", tool="list_log_files",
                                         probe_id="p0"))
        swept = [p.steps[0].arguments["filename"] for round_ in range(1, 4) for p in proposer.saturation(round_, set())
                 if any(":target:" in k for k in p.coverage_keys)]
        assert sorted(swept[:2]) == [f"{root}/api.log", f"{root}/worker.log"]
        assert sorted(swept[2:]) == [f"{root}/api.log.1.gz", f"{root}/old-logs.zip"]


    def test_a_media_reader_meets_only_the_text_its_listing_gave(self, tmp_path) -> None:
        """An image reader meets the images, and no project's table or notes no answer listed: what it does with
        them says nothing of media, and their names would read as what it is about."""
        from toolatlas.offline.facts import extract_facts

        (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\nbinary")
        (tmp_path / "products.csv").write_text("id,name\n1,widget\n")
        reader = tool("read_media_file", {"path": {"type": "string", "description": "Path of the image or audio file"}},
                      "Read an image or audio file and return its base64 data and MIME type.")
        proposer = _proposer(reader)
        proposer.facts = extract_facts("directory", tmp_path)
        proposer.synth = ValueSynth(proposer.facts, proposer.pool, proposer.rng)
        root = proposer.synth.targets.root
        swept = {p.steps[0].arguments["path"] for round_ in range(1, 4) for p in proposer.saturation(round_, set())
                 if any(":target:" in k for k in p.coverage_keys)}
        assert swept == {f"{root}/logo.png"}

    def test_the_file_is_swapped_into_a_call_verified_to_work(self, tmp_path) -> None:
        """A comparer verified on two scores meets the compressed score in place of the first, beside the second of
        that verified call: what differs from a call that worked is the file; a ``.mxl`` written out in the
        description is a format it says it takes."""
        from toolatlas.offline.facts import extract_facts
        from toolatlas.probing.models import ProbeStep

        for name in ("a.musicxml", "b.musicxml", "c.musicxml"):
            (tmp_path / name).write_text("<score-partwise/>\n")
        (tmp_path / "a.mxl").write_bytes(b"PK\x03\x04compressed")
        described = {"type": "string", "description": "Path to a MusicXML or compressed .mxl file"}
        compare = tool("compare_files", {"reference_path": described, "target_path": described},
                       "Diff of two scores on disk (.musicxml or compressed .mxl).")
        proposer = _proposer(compare)
        proposer.facts = extract_facts("directory", tmp_path)
        proposer.synth = ValueSynth(proposer.facts, proposer.pool, proposer.rng)
        root = proposer.synth.targets.root
        verified = {"reference_path": f"{root}/b.musicxml", "target_path": f"{root}/c.musicxml"}
        _verified(proposer, [ProbeStep(tool="compare_files", arguments=verified, expect="ok")])
        swept = [p.steps[0].arguments for round_ in range(1, 4) for p in proposer.saturation(round_, set())
                 if any(":target:" in k for k in p.coverage_keys)]
        assert {"reference_path": f"{root}/a.mxl", "target_path": f"{root}/c.musicxml"} in swept
        assert all(call["target_path"] == f"{root}/c.musicxml" for call in swept)


    def test_each_other_choice_of_an_enum_is_tried_on_a_call_that_worked(self) -> None:
        """A wage lookup verified with ``scope`` ``state`` and ``area_code`` ``51`` is called with ``scope`` ``metro``
        and ``national``, the rest kept (what a code means depends on the choice beside it); a call that left
        ``scope`` to its default ``national`` gets the other two."""
        from toolatlas.probing.models import ProbeStep

        lookup = tool("get_wage_data", {
            "occ_code": {"type": "string"}, "area_code": {"type": "string"},
            "scope": {"type": "string", "enum": ["national", "state", "metro"], "default": "national"}},
            "Wages of an occupation.", required=["occ_code"])
        proposer = _proposer(lookup)
        _verified(proposer, [ProbeStep(tool="get_wage_data", arguments={
            "occ_code": "151252", "scope": "state", "area_code": "51"}, expect="ok")])
        swept = [p.steps[0].arguments for round_ in range(1, 3) for p in proposer.saturation(round_, set())
                 if any(":choice:" in k for k in p.coverage_keys)]
        assert sorted(a["scope"] for a in swept) == ["metro", "national"]
        assert all(a["area_code"] == "51" and a["occ_code"] == "151252" for a in swept)
        bare = _proposer(lookup)
        _verified(bare, [ProbeStep(tool="get_wage_data", arguments={"occ_code": "151252"}, expect="ok")])
        assert sorted(p.steps[0].arguments["scope"] for p in bare.saturation(1, set())
                      if any(":choice:" in k for k in p.coverage_keys)) == ["metro", "state"]


def _proposer(*tools: ToolSpec):
    from toolatlas.config import ServerSpec
    from toolatlas.graph.state import ServerGraph
    from toolatlas.offline.proposer import OfflineProposer

    return OfflineProposer(ServerGraph("s", list(tools)), None, ServerSpec(name="s", transport={"command": "x"}),
                           random.Random(0))


def _verified(proposer, steps: list, *, n: int = 0) -> None:
    """Induce one successful chain of ``steps`` into the proposer's graph."""
    from toolatlas.environments import StateDiff
    from toolatlas.graph.inducer import Inducer
    from toolatlas.models import CallOutcome, OutcomeClass
    from toolatlas.probing.models import Direction, Probe, Rollout, StepResult, StepVerdict, Verdict

    probe = Probe(id=f"p{n}", server="s", round=1, direction=Direction.AFFORDANCE, target=steps[-1].tool, task="t",
                  steps=steps)
    results = [StepResult(index=i, outcome=CallOutcome(server="s", tool=s.tool, arguments=s.arguments,
                                                       outcome=OutcomeClass.OK, excerpt="done"))
               for i, s in enumerate(steps)]
    verdicts = [StepVerdict(index=i, tool=s.tool, outcome=OutcomeClass.OK, failed=False, change=StateDiff())
                for i, s in enumerate(steps)]
    Inducer(proposer.graph).induce(Rollout(probe=probe, steps=results),
                                   Verdict(probe_id=probe.id, server="s", resolved=True, steps=verdicts))


class TestBoundariesBehindWorkflows:
    def test_a_tool_that_only_works_after_another_is_broken_inside_that_chain(self) -> None:
        """A test run verified only after cases were added: its mutations run after the same adding call."""
        from toolatlas.probing.models import ProbeStep

        add = tool("add_test_case", {"input_string": {"type": "string"}})
        test = tool("test_regex", {"pattern": {"type": "string", "description": "Regular expression to test"}})
        proposer = _proposer(add, test)
        adding = ProbeStep(tool="add_test_case", arguments={"input_string": "abc"}, expect="ok")
        _verified(proposer, [adding, ProbeStep(tool="test_regex", arguments={"pattern": "a+"}, expect="ok")])
        probes = [p for p in proposer.saturation(1, set()) if p.target == "test_regex" and p.steps[-1].mutation]
        assert probes and all((p.steps[0].tool, p.steps[0].arguments) == (adding.tool, adding.arguments) for p in probes)
        assert any(p.steps[-1].arguments["pattern"] != "a+" for p in probes)

    def test_its_optional_arguments_are_broken_inside_that_chain_too(self) -> None:
        """Verified only after a load, without its optional `path`: `path` is broken after the same load, on
        the verified call's `alias`."""
        from toolatlas.probing.models import ProbeStep

        load = tool("load_json", {"file_path": {"type": "string"}, "alias": {"type": "string"}})
        keys = tool("get_keys", {"alias": {"type": "string"}, "path": {
            "type": "string", "default": "", "description": "Dot/bracket notation path. Examples: \"\", \"data.users\""}},
            required=["alias"])
        proposer = _proposer(load, keys)
        loading = ProbeStep(tool="load_json", arguments={"file_path": "${root}/a.json", "alias": "doc"}, expect="ok")
        _verified(proposer, [loading, ProbeStep(tool="get_keys", arguments={"alias": "doc"}, expect="ok")])
        probes = [p for p in proposer.saturation(1, set()) if p.target == "get_keys" and p.steps[-1].mutation]
        broken = [p for p in probes if "`path`" in (p.steps[-1].condition or "")]
        assert broken and all(p.steps[0].tool == "load_json" and p.steps[-1].arguments["alias"] == "doc" for p in broken)

    def test_a_call_is_tried_after_a_tool_that_changes_the_same_thing(self) -> None:
        """update_task's verified call runs after mark_task_done and delete_task on the same request and
        task (two shared arguments); a tool sharing nothing, or a read, does not come first."""
        from toolatlas.probing.models import ProbeStep

        ids = {"requestId": {"type": "string"}, "taskId": {"type": "string"}}
        update = tool("update_task", {**ids, "title": {"type": "string"}}, required=["requestId", "taskId"])
        done = tool("mark_task_done", ids)
        delete = tool("delete_task", ids)
        read = tool("open_task_details", {"taskId": {"type": "string"}})
        other = tool("delete_request", {"name": {"type": "string"}})
        proposer = _proposer(update, done, delete, read, other)
        call = ProbeStep(tool="update_task", arguments={"requestId": "req-1", "taskId": "task-3", "title": "x"},
                         expect="ok")
        _verified(proposer, [call])
        probes = [p for p in proposer.saturation(1, set())
                  if p.target == "update_task" and p.steps[-1].mutation == "after_change"]
        assert {p.steps[0].tool for p in probes} == {"mark_task_done", "delete_task"}
        for probe in probes:
            first, last = probe.steps
            assert first.arguments == {"requestId": "req-1", "taskId": "task-3"} and last.arguments == call.arguments


class TestUnverifiedTools:
    def test_a_tool_with_no_verified_use_tries_one_more_variant_a_round(self) -> None:
        """`update_column` (its `operation` one of the description's examples) gets variant 1, then 2, one a round;
        a tool with a verified use gets none."""
        from toolatlas.probing.models import ProbeStep

        update = tool("update_column", {"column": {"type": "string"}, "operation": {"type": "string"}},
                      required=["column", "operation"])
        update = update.model_copy(update={"description": "Update values with operations like replace, extract, split."})
        read = tool("read_rows", {"limit": {"type": "integer"}})
        proposer = _proposer(update, read)
        _verified(proposer, [ProbeStep(tool="read_rows", arguments={"limit": 1}, expect="ok")])
        seen = []
        for round_ in (1, 2):
            tried = [p for p in proposer.saturation(round_, set()) if any(":variant:" in k for k in p.coverage_keys)]
            assert [p.target for p in tried] == ["update_column"]
            seen.append(tried[0].steps[-1].arguments["operation"])
        assert seen == ["extract", "split"]

class TestConditionsOfOtherBases:
    def test_a_misuse_of_another_call_names_what_differs(self) -> None:
        """Broken on a call other than the tool's seed call, a misuse's condition says how it differs
        (an argument given, the kind of file), never by a value that changes from build to build; on
        the seed call, or when nothing stable differs, it is unchanged."""
        from toolatlas.offline.saturation import with_context
        from toolatlas.probing.models import ProbeStep

        step = ProbeStep(tool="write_cell", arguments={"file": "${root}/sales.xlsx", "cell": "A0"},
                         mutation="malformed_value", condition="`cell` names row 0, which does not exist")
        first = {"file": "${root}/prices.csv", "cell": "B2"}
        other = {"file": "${root}/sales.xlsx", "cell": "A1"}
        assert with_context(step, other, first).condition == (
            "`cell` names row 0, which does not exist (with `file` a .xlsx file)")
        assert with_context(step, other, None).condition == step.condition
        assert with_context(step, {"file": "${root}/prices.csv", "cell": "C3"}, first).condition == step.condition
        assert with_context(step, {"file": "${root}/other.csv", "cell": "A1", "sheet": "S"}, first).condition == (
            "`cell` names row 0, which does not exist (with `sheet` given)")  # a name, a count: never said
        network = ArgSpec(name="network", path="network", json_type="string", kind=ArgKind.CIDR)
        hosts = ProbeStep(tool="plan", arguments={"network": "172.16.0.0", "hosts": -1}, mutation="negative_number",
                          condition="`hosts` is negative")
        assert with_context(hosts, {"network": "172.16.0.0", "hosts": -1}, {"network": "192.168.1.0/24", "hosts": 3},
                            [network]).condition == "`hosts` is negative"  # a network's slash names no file

    def test_the_frontier_breaks_one_call_per_misuse(self) -> None:
        """The frontier's boundary probes of a tool's two planned calls hold each misuse (family, argument)
        once: one condition, one call's answer."""
        sheet = tool("read_sheet", {"sheet": {"type": "string", "enum": ["Sales", "Targets"]},
                                    "row": {"type": "integer", "minimum": 1}}, required=["sheet", "row"])
        proposer = _proposer(sheet)
        probes = [p for p in proposer.candidates(1, ["read_sheet"])["read_sheet"] if p.steps[-1].mutation
                  and p.direction.value == "boundary" and len(p.steps) == 1]
        keys = [k for p in probes for k in p.coverage_keys if ":mut:" in k]
        assert keys and len(keys) == len(set(keys))

    def test_saturation_names_how_another_base_differs(self) -> None:
        """Saturation's misuse of a verified call other than the seed call says how that call differs."""
        from toolatlas.probing.models import ProbeStep

        sheet = tool("read_sheet", {"sheet": {"type": "string", "enum": ["Sales", "Targets"]},
                                    "row": {"type": "integer", "minimum": 1}}, required=["sheet", "row"])
        proposer = _proposer(sheet)
        proposer.reference_calls["read_sheet"] = {"sheet": "Sales", "row": 1}
        _verified(proposer, [ProbeStep(tool="read_sheet", arguments={"sheet": "Targets", "row": 2}, expect="ok")])
        conditions = {p.steps[-1].condition for p in proposer.saturation(1, set()) if p.steps[-1].mutation}
        assert '`row` is negative (with `sheet` = "Targets")' in conditions
        assert "`sheet` is not one of: Sales, Targets" in conditions  # the argument it breaks is no context
