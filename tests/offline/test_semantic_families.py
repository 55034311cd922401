"""Semantic boundary families: misuse an agent cannot read off the JSON Schema, probed on the demo tools."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.mutations import SEMANTIC_FAMILIES, Mutation, MutationKind, boundary_mutations, exclusive_pairs
from toolatlas.offline.values import ValueSynth

if TYPE_CHECKING:
    from conftest import DemoTools


def mutate(facts: EnvironmentFacts, spec: ToolSpec) -> list[Mutation]:
    synth = ValueSynth(facts, ValuePool(), random.Random(0))
    specs = infer_arguments(spec)
    call = synth.valid_arguments(spec, specs, 0)
    assert call is not None
    return boundary_mutations(spec, specs, call.arguments, synth, cap=60)


def of(mutations: list[Mutation], family: MutationKind) -> list[Mutation]:
    return [m for m in mutations if m.name is family]


class TestFiles:
    def test_an_edit_whose_old_text_does_not_occur(self, demo_tools: DemoTools, seed_facts) -> None:
        """edit_file gets a no-match edit: its oldText replaced by text that is not in the file."""
        found = of(mutate(seed_facts["filesystem"], demo_tools("filesystem", "edit_file")), MutationKind.NO_MATCH_EDIT)
        assert found and found[0].target_arg == "edits[0].oldText" and found[0].expected_failure
        assert "not in the file" in found[0].arguments["edits"][0]["oldText"]

    def test_a_write_under_a_missing_folder_onto_a_directory_and_under_a_file(self, demo_tools, seed_facts) -> None:
        """write_file is probed with a missing parent, an existing directory as the file, and a file as the parent."""
        mutations = mutate(seed_facts["filesystem"], demo_tools("filesystem", "write_file"))
        folders = set(seed_facts["filesystem"].tree.folders)
        files = {f.path for f in seed_facts["filesystem"].tree.files}
        assert "/missing_" in of(mutations, MutationKind.MISSING_PARENT)[0].arguments["path"]
        assert of(mutations, MutationKind.PATH_IS_DIRECTORY)[0].arguments["path"] in folders
        parent = of(mutations, MutationKind.PATH_IS_FILE)[0].arguments["path"].rsplit("/", 1)[0]
        assert parent in files

    def test_every_path_taking_tool_gets_an_escape(self, demo_tools: DemoTools, seed_facts) -> None:
        """Each filesystem tool with a path argument, reading or writing, has a path_escape mutation."""
        for tool in demo_tools.all("filesystem"):
            if not tool.required:
                continue
            assert of(mutate(seed_facts["filesystem"], tool), MutationKind.PATH_ESCAPE), tool.name


class TestReferencesAndKinds:
    def test_a_write_into_a_view(self, demo_tools: DemoTools, seed_facts) -> None:
        """A write statement aimed at a view of the database is a wrong-kind-of-object probe."""
        found = of(mutate(seed_facts["sqlite"], demo_tools("sqlite", "write_query")), MutationKind.WRONG_OBJECT_KIND)
        view = seed_facts["sqlite"].database.views[0]
        assert found and view in found[0].arguments["query"] and found[0].expected_failure

    def test_an_integer_id_no_record_has(self) -> None:
        """An integer id argument gets an id beyond any record; a count does not."""
        tool = ToolSpec(server="s", name="complete_task", description="Mark a task done.", input_schema={
            "type": "object", "required": ["task_id"],
            "properties": {"task_id": {"type": "integer"}, "limit": {"type": "integer"}}})
        found = of(mutate(EnvironmentFacts(kind="none"), tool), MutationKind.NONEXISTENT_REFERENCE)
        assert [m.target_arg for m in found] == ["task_id"] and found[0].arguments["task_id"] == 999_999


class TestOptionCombinations:
    def test_options_a_description_calls_mutually_exclusive(self) -> None:
        """Two optional flags whose description says they exclude each other are probed together."""
        tool = ToolSpec(server="s", name="list_tasks", description="List tasks.", input_schema={
            "type": "object", "properties": {
                "done_only": {"type": "boolean", "description": "Only done tasks. Mutually exclusive with pending_only."},
                "pending_only": {"type": "boolean", "description": "Only pending tasks."},
                "query": {"type": "string", "description": "Text to look for."}}})
        assert exclusive_pairs(tool, infer_arguments(tool)) == {frozenset({"done_only", "pending_only"})}
        together = of(mutate(EnvironmentFacts(kind="none"), tool), MutationKind.CONFLICTING_ARGUMENTS)
        assert together and {"done_only", "pending_only"} <= set(together[0].arguments)

    def test_unrelated_options_are_not_called_exclusive(self, demo_tools: DemoTools) -> None:
        """git_branch's contains / not_contains carry no exclusion words: no pair is invented."""
        tool = demo_tools("git", "git_branch")
        assert exclusive_pairs(tool, infer_arguments(tool)) == set()


def test_semantic_families_are_families() -> None:
    """Every family the frontier favours is one the mutators produce (or the proposer's duplicate create)."""
    assert SEMANTIC_FAMILIES - {f.value for f in MutationKind} == {"duplicate_create", "repeated_change"}
