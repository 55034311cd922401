"""An argument typed as a plain string takes the kind of value the server's refusal names: the field a pydantic error
names (or the argument whose value a one-line refusal repeats) and the format its message states."""

from __future__ import annotations

import random

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.stated import stated_kinds
from toolatlas.offline.taught import TaughtArguments
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.values import ArgKind

SUBNET = ToolSpec(server="s", name="get_nth_usable_ip", description="Return the Nth usable address of a range.",
                  input_schema={"type": "object", "required": ["network", "position"],
                                "properties": {"network": {"type": "string"}, "position": {"type": "integer"}}})
PYDANTIC = ("Error executing tool get_nth_usable_ip: 1 validation error for NthUsableIpRequest\nnetwork\n"
            "  Input is not a valid IPv4 network [type=ip_v4_network, input_value='example', input_type=str]")


def test_a_pydantic_field_takes_the_format_its_message_names() -> None:
    specs = infer_arguments(SUBNET)
    assert {s.name: s.kind for s in specs}["network"] is ArgKind.STRING
    assert stated_kinds(specs, {"network": "example", "position": 3}, PYDANTIC) == [("network", ArgKind.CIDR)]


def test_a_one_line_refusal_names_the_argument_by_its_value() -> None:
    """``'abc' is not a valid UUID`` is about the one argument whose value it repeats; a message that repeats none,
    or an argument already of its kind, teaches nothing."""
    tool = ToolSpec(server="s", name="fetch", description="Fetch a record.", input_schema={
        "type": "object", "properties": {"key": {"type": "string"}, "note": {"type": "string"}}})
    specs = infer_arguments(tool)
    assert stated_kinds(specs, {"key": "sample", "note": "hello there"}, "'sample' is not a valid UUID") == [
        ("key", ArgKind.UUID)]
    assert stated_kinds(specs, {"key": "sample"}, "Input should be a valid UUID") == []
    typed = ToolSpec(server="s", name="ping", description="Ping a host.", input_schema={
        "type": "object", "properties": {"ip_address": {"type": "string"}}})
    assert stated_kinds(infer_arguments(typed), {"ip_address": "256.1.1.1"},
                        "'256.1.1.1' does not appear to be an IPv4 or IPv6 address") == []


def test_what_is_taught_is_what_later_calls_send() -> None:
    """Once taught, the tool's specs give ``network`` a network, and a valid call sends one."""
    specs = {"get_nth_usable_ip": infer_arguments(SUBNET)}
    taught = TaughtArguments(specs, {"get_nth_usable_ip": SUBNET})
    taught.learn(SUBNET, {"network": "example", "position": 3}, PYDANTIC)
    assert {s.name: s.kind for s in specs["get_nth_usable_ip"]}["network"] is ArgKind.CIDR
    synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
    call = synth.valid_arguments(SUBNET, specs["get_nth_usable_ip"], 0)
    assert call is not None and "/" in call.arguments["network"]
    restored = TaughtArguments({"get_nth_usable_ip": infer_arguments(SUBNET)}, {"get_nth_usable_ip": SUBNET})
    restored.load(taught.dump())
    assert {s.name: s.kind for s in restored.args["get_nth_usable_ip"]}["network"] is ArgKind.CIDR


def test_a_refused_absolute_path_is_sent_relative_to_the_root(seed_facts: dict[str, EnvironmentFacts]) -> None:
    """``Non-relative patterns are unsupported`` for a rename given `${root}/a.ged` teaches that its file argument
    takes paths relative to the root: the next valid call names a file of the folder without the root."""
    tool = ToolSpec(server="s", name="rename_file", description="Rename a file.", input_schema={
        "type": "object", "required": ["file_name", "new_name"],
        "properties": {"file_name": {"type": "string", "description": "Path of the file to rename."},
                       "new_name": {"type": "string"}}})
    specs = {"rename_file": infer_arguments(tool)}
    assert {s.name: s.kind for s in specs["rename_file"]}["file_name"] is ArgKind.FILE_PATH
    synth = ValueSynth(seed_facts["filesystem"], ValuePool(), random.Random(0))
    before = synth.valid_arguments(tool, specs["rename_file"], 0)
    assert before is not None and before.arguments["file_name"].startswith("${root}/")
    taught = TaughtArguments(specs, {"rename_file": tool})
    taught.learn(tool, before.arguments, "Non-relative patterns are unsupported")
    assert [s.name for s in specs["rename_file"] if s.relative] == ["file_name"]
    after = synth.valid_arguments(tool, specs["rename_file"], 0)
    assert after is not None and after.arguments["file_name"] == before.arguments["file_name"].removeprefix("${root}/")
    restored = TaughtArguments({"rename_file": infer_arguments(tool)}, {"rename_file": tool})
    restored.load(taught.dump())
    assert [s.name for s in restored.args["rename_file"] if s.relative] == ["file_name"]


def test_a_lesson_reopens_the_misuses_probed_on_a_refused_call() -> None:
    """Misuses planned before the server said what `network` takes were probed on a call it refused for that: once
    taught, the same misuses are planned again under new coverage keys."""
    from toolatlas.config import ServerSpec
    from toolatlas.graph.state import ServerGraph
    from toolatlas.offline.proposer import OfflineProposer

    proposer = OfflineProposer(ServerGraph("s", [SUBNET]), None, ServerSpec(name="s", transport={"command": "x"}),
                               random.Random(0))

    def misuse_keys() -> set[str]:
        return {k for p in proposer.candidates(1, [SUBNET.name])[SUBNET.name] for k in p.coverage_keys
                if ":mut:out_of_range:position" in k}

    assert misuse_keys() == {"get_nth_usable_ip:mut:out_of_range:position"}
    proposer.taught.learn(SUBNET, {"network": "example", "position": 3}, PYDANTIC)
    assert misuse_keys() == {"get_nth_usable_ip:mut:out_of_range:position@1"}


def test_a_harvested_word_is_no_address() -> None:
    """A field name an answer said (``network_address``) pooled as an address is never sent as one; a harvested
    address is."""
    from toolatlas.probing.values import HarvestRef

    tool = ToolSpec(server="s", name="ping", description="Ping an IP address.", input_schema={
        "type": "object", "required": ["ip_address"], "properties": {"ip_address": {"type": "string"}}})
    pool = ValuePool()
    pool.add(HarvestRef(kind=ArgKind.IP_ADDRESS, value="network_address", tool="calc", probe_id="p1"))
    pool.add(HarvestRef(kind=ArgKind.IP_ADDRESS, value="172.16.0.0", tool="calc", probe_id="p1"))
    synth = ValueSynth(EnvironmentFacts(kind="none"), pool, random.Random(0))
    sent = {synth.valid_arguments(tool, infer_arguments(tool), v).arguments["ip_address"] for v in range(4)}
    assert "network_address" not in sent and "172.16.0.0" in sent


LEDGER = ToolSpec(server="s", name="record_bug", description="Record a fixed bug into the local ledger.", input_schema={
    "type": "object", "required": ["symptom", "root_cause", "project"],
    "properties": {"symptom": {"type": "string", "description": "What was observed before the fix."},
                   "root_cause": {"type": "string", "description": "WHY it happened: the mechanism."},
                   "project": {"type": "string", "description": "Repository name."}}})
VAGUE = "root_cause is too vague. Write at least 20 characters explaining WHY it happened, not what you changed."


def test_a_refusal_of_a_short_value_teaches_its_fewest_characters() -> None:
    """The argument a too-short refusal names (else the call's only text shorter than the length it states) takes
    that many characters from then on: a later valid call sends at least that many, the lesson survives a
    checkpoint, and a refused empty value (one character at least) teaches nothing."""
    from toolatlas.offline.stated import stated_lengths

    specs = {"record_bug": infer_arguments(LEDGER)}
    call = {"symptom": "login returned 500 when the email had a plus sign", "root_cause": "sample", "project": "demo"}
    assert stated_lengths(specs["record_bug"], call, VAGUE) == [("root_cause", 20)]
    assert stated_lengths(specs["record_bug"], call, "Write at least 20 characters.") == []  # two are short: which?
    assert stated_lengths(specs["record_bug"], {**call, "project": "ledger-service"},
                          "Write more than 9 characters.") == [("root_cause", 10)]
    assert stated_lengths(specs["record_bug"], {**call, "root_cause": ""},
                          "String should have at least 1 character") == []
    taught = TaughtArguments(specs, {"record_bug": LEDGER})
    taught.learn(LEDGER, call, VAGUE)
    assert {s.name: s.min_length for s in specs["record_bug"]} == {"symptom": None, "root_cause": 20, "project": None}
    synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
    for variant in range(3):
        planned = synth.valid_arguments(LEDGER, specs["record_bug"], variant)
        assert planned is not None and len(planned.arguments["root_cause"]) >= 20
    restored = TaughtArguments({"record_bug": infer_arguments(LEDGER)}, {"record_bug": LEDGER})
    restored.load(taught.dump())
    assert {s.name: s.min_length for s in restored.args["record_bug"]}["root_cause"] == 20


def test_a_described_length_bounds_the_value_and_is_misused_one_short() -> None:
    """A description that states a length the schema does not (``At least 20 characters``, ``max 12 chars``,
    ``3-8 characters``) bounds the value sent, and the misuses try one character short of the fewest."""
    from toolatlas.offline.kinds import described_length
    from toolatlas.offline.mutations import boundary_mutations

    assert described_length("WHY it happened. At least 20 characters. Not the patch.") == (20, None)
    assert described_length("Short label (max 12 chars)") == (None, 12)
    assert described_length("A code of 3-8 characters") == (3, 8)
    assert described_length("Capped at 32KB.") == (None, None)
    tool = ToolSpec(server="s", name="record_bug", description="Record a fixed bug.", input_schema={
        "type": "object", "required": ["root_cause"],
        "properties": {"root_cause": {"type": "string", "description": "WHY it happened. At least 20 characters."}}})
    specs = infer_arguments(tool)
    synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
    planned = synth.valid_arguments(tool, specs, 0)
    assert planned is not None and len(planned.arguments["root_cause"]) >= 20
    short = [m for m in boundary_mutations(tool, specs, planned.arguments, synth, cap=64)
             if "one short of the 20" in (m.condition or "")]
    assert len(short) == 1 and len(short[0].arguments["root_cause"]) == 19


def test_a_moment_refused_as_in_the_future_is_sent_not_after_today() -> None:
    """``2026-12-09 is in the future; `on` is when the reply came`` teaches that `on` takes moments up to today:
    the next valid call sends one, and the lesson survives a checkpoint."""
    import datetime as dt

    from toolatlas.offline.stated import stated_past

    tool = ToolSpec(server="s", name="set_status", description="Record a reply to an application.", input_schema={
        "type": "object", "required": ["row", "on"],
        "properties": {"row": {"type": "integer"}, "on": {"type": "string", "format": "date",
                                                           "description": "When the reply came."}}})
    specs = {"set_status": infer_arguments(tool)}
    later = (dt.date.today() + dt.timedelta(days=2)).isoformat()
    refusal = f"{later} is in the future; `on` is when the reply came."
    assert stated_past(specs["set_status"], {"row": 2, "on": later}, refusal) == ["on"]
    assert stated_past(specs["set_status"], {"row": 2, "on": later}, "Row 1 is not an application row") == []
    taught = TaughtArguments(specs, {"set_status": tool})
    taught.learn(tool, {"row": 2, "on": later}, refusal)
    assert [s.name for s in specs["set_status"] if s.past] == ["on"]
    restored = TaughtArguments({"set_status": infer_arguments(tool)}, {"set_status": tool})
    restored.load(taught.dump())
    assert [s.name for s in restored.args["set_status"] if s.past] == ["on"]


def test_a_length_in_a_unit_is_the_size_of_a_thing_and_what_holds_it_is_larger() -> None:
    """``piece_width_mm`` is a leaflet's width, not a count; ``sheet_width_mm`` three times it (the piece fits on the
    sheet), a ``bleed_mm`` a few millimetres; a resolution and a paper weight what print work uses."""
    tool = ToolSpec(server="s", name="imposition_calculator", description="Fit pieces on a press sheet.", input_schema={
        "type": "object", "required": ["sheet_width_mm", "piece_width_mm", "bleed_mm", "resolution_dpi", "paper_gsm",
                                       "margin_inches"],
        "properties": {name: {"type": "number"} for name in
                       ("sheet_width_mm", "piece_width_mm", "bleed_mm", "resolution_dpi", "paper_gsm", "margin_inches")}})
    synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
    for variant in range(3):
        planned = synth.valid_arguments(tool, infer_arguments(tool), variant)
        assert planned is not None
        sizes = planned.arguments
        assert sizes["sheet_width_mm"] == 3 * sizes["piece_width_mm"] and sizes["piece_width_mm"] >= 90
        assert 2 <= sizes["bleed_mm"] <= 10 and sizes["resolution_dpi"] >= 72 and sizes["paper_gsm"] >= 90
        assert 0.1 <= sizes["margin_inches"] <= 0.5  # "inches" spells the unit "inch"


def test_a_new_path_refused_beside_its_source_is_written_in_another_folder(seed_facts: dict[str, EnvironmentFacts]) -> None:
    """``Output path is outside EXCEL_OUTPUT_ROOTS`` for an output planned beside its source (inside the root) teaches
    that `output_path` is written in another folder of the state: the next valid call plans it there. A path that
    escaped the root (the misuse that refusal is for) teaches nothing."""
    from toolatlas.offline.stated import stated_elsewhere

    tool = ToolSpec(server="s", name="write_csv", description="Write a cleaned table as CSV.", input_schema={
        "type": "object", "required": ["path", "output_path"],
        "properties": {"path": {"type": "string", "description": "Path of the workbook to read."},
                       "output_path": {"type": "string", "description": "Path of the CSV to write."}}})
    specs = {"write_csv": infer_arguments(tool)}
    synth = ValueSynth(seed_facts["filesystem"], ValuePool(), random.Random(0))
    before = synth.valid_arguments(tool, specs["write_csv"], 0)
    assert before is not None
    source_folder = before.arguments["path"].rsplit("/", 1)[0]
    assert before.arguments["output_path"].rsplit("/", 1)[0] == source_folder
    refusal = "Output path is outside EXCEL_OUTPUT_ROOTS."
    escaped = {**before.arguments, "output_path": "${root}/../outside.csv"}
    assert stated_elsewhere(specs["write_csv"], escaped, refusal) == []
    taught = TaughtArguments(specs, {"write_csv": tool})
    taught.learn(tool, before.arguments, refusal)
    assert [s.name for s in specs["write_csv"] if s.elsewhere] == ["output_path"]
    after = synth.valid_arguments(tool, specs["write_csv"], 0)
    assert after is not None and after.arguments["output_path"].rsplit("/", 1)[0] != after.arguments["path"].rsplit("/", 1)[0]
    restored = TaughtArguments({"write_csv": infer_arguments(tool)}, {"write_csv": tool})
    restored.load(taught.dump())
    assert [s.name for s in restored.args["write_csv"] if s.elsewhere] == ["output_path"]
