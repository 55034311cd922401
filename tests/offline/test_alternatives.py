"""Alternatives learned from errors: arguments the server takes one at a time, then planned that way."""

from __future__ import annotations

import random

from toolatlas.config import ServerSpec
from toolatlas.graph.state import ServerGraph
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.offline.alternatives import Alternatives, stated_alternatives, with_alternatives
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.mutations import MutationKind, boundary_mutations
from toolatlas.offline.proposer import OfflineProposer
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult, StepVerdict, Verdict

FOOTNOTE = ToolSpec(
    server="s",
    name="add_footnote",
    description="Add a footnote to a paragraph.",
    input_schema={
        "type": "object",
        "properties": {
            "label": {"type": "string"},
            "search_text": {"type": "string"},
            "paragraph_index": {"type": "integer"},
            "footnote_text": {"type": "string"},
        },
        "required": ["label"],
    },
)
NEEDED = '{"success":false,"message":"Must provide either search_text or paragraph_index"}'
BOTH = '{"success":false,"message":"Cannot provide both search_text and paragraph_index"}'


def planned(specs, variants: int = 4) -> list[set[str]]:
    synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
    calls = [synth.valid_arguments(FOOTNOTE, specs, v) for v in range(variants)]
    return [set(c.arguments) for c in calls if c is not None]


class TestStatedAlternatives:
    def test_an_error_that_needs_one_of_two(self) -> None:
        """``Must provide either a or b``: the two optional arguments, one of them needed."""
        assert stated_alternatives(FOOTNOTE, NEEDED) == Alternatives(("search_text", "paragraph_index"), True)

    def test_an_error_that_refuses_both(self) -> None:
        """``Cannot provide both a and b``: the two exclude each other; neither is said to be needed."""
        assert stated_alternatives(FOOTNOTE, BOTH) == Alternatives(("search_text", "paragraph_index"), False)

    def test_an_error_naming_arguments_without_such_words_states_nothing(self) -> None:
        """Arguments named in an error about something else are no alternatives; nor is a required one."""
        assert stated_alternatives(FOOTNOTE, "search_text and paragraph_index point at different paragraphs") is None
        assert stated_alternatives(FOOTNOTE, "Must provide either label or search_text") is None


class TestPlannedWithAlternatives:
    def test_every_variant_gives_exactly_one(self) -> None:
        """Once learned, each variant gives one of the alternatives (variants alternate between them)."""
        specs = with_alternatives(infer_arguments(FOOTNOTE), Alternatives(("search_text", "paragraph_index"), True))
        given = [names & {"search_text", "paragraph_index"} for names in planned(specs)]
        assert all(len(g) == 1 for g in given), given
        assert {"search_text"} in given and {"paragraph_index"} in given

    def test_without_the_lesson_calls_give_none_or_both(self) -> None:
        """The schema alone says nothing: the required-only call gives neither, the full one both."""
        given = [names & {"search_text", "paragraph_index"} for names in planned(infer_arguments(FOOTNOTE))]
        assert set() in given and {"search_text", "paragraph_index"} in given

    def test_alternatives_given_together_is_a_boundary_probe(self) -> None:
        """The learned pair is probed together (conflicting arguments)."""
        specs = with_alternatives(infer_arguments(FOOTNOTE), Alternatives(("search_text", "paragraph_index"), True))
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        call = synth.valid_arguments(FOOTNOTE, specs, 0)
        assert call is not None
        found = boundary_mutations(FOOTNOTE, specs, call.arguments, synth, cap=100)
        together = [m for m in found if m.name is MutationKind.CONFLICTING_ARGUMENTS]
        assert together and {"search_text", "paragraph_index"} <= set(together[0].arguments)


class TestProposerLearns:
    def test_an_observed_error_changes_later_plans(self) -> None:
        """The proposer reads a failed call's error and plans the tool's next calls with one alternative."""
        graph = ServerGraph("s", [FOOTNOTE])
        proposer = OfflineProposer(graph, None, ServerSpec(name="s", transport={"command": "x"}), random.Random(0))
        step = ProbeStep(tool="add_footnote", arguments={"label": "a"})
        probe = Probe(id="p1", server="s", round=0, direction=Direction.SEED, target="add_footnote", task="t", steps=[step])
        outcome = CallOutcome(server="s", tool="add_footnote", arguments=step.arguments, outcome=OutcomeClass.OK,
                              excerpt=NEEDED)
        verdict = StepVerdict(index=0, tool="add_footnote", outcome=OutcomeClass.OK, failed=True,
                              reported_as_success=True, error_text=NEEDED)
        proposer.observe(Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)]),
                         Verdict(probe_id="p1", server="s", resolved=False, steps=[verdict]))
        given = [names & {"search_text", "paragraph_index"} for names in planned(proposer.args["add_footnote"])]
        assert all(len(g) == 1 for g in given), given
        state = proposer.exploration_state()
        fresh = OfflineProposer(ServerGraph("s", [FOOTNOTE]), None, ServerSpec(name="s", transport={"command": "x"}),
                                random.Random(0))
        fresh.restore_exploration_state(state)
        assert fresh.args["add_footnote"] == proposer.args["add_footnote"]


LOAD = ToolSpec(
    server="s",
    name="tables_load",
    description="Load a set of tables and register it under `name`.\n\nPass exactly one source:\n"
                "    - port: a live VM's debugger port.\n    - path: a directory of raw tables.",
    input_schema={
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "port": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
            "path": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["name"],
    },
)


def test_of_alternatives_one_is_needed_the_seed_call_takes_the_local_one() -> None:
    """``pass exactly one of port= or path=``: the seed call (variant 0) gives the folder, not the port a sandbox
    without a network cannot reach (the next variant tries the port); the bullet says the path is a directory."""
    alternatives = stated_alternatives(LOAD, "pass exactly one of port= (live VM) or path= (directory of tables)")
    assert alternatives == Alternatives(("port", "path"), True)
    specs = with_alternatives(infer_arguments(LOAD), alternatives)
    assert next(s for s in specs if s.name == "path").kind.value == "dir_path"
    synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
    given = [set(synth.valid_arguments(LOAD, specs, v).arguments) - {"name"} for v in range(2)]
    assert given == [{"path"}, {"port"}]
