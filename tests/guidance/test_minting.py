"""Identifiers one tool mints and another takes: the minter planned first, and where the value comes from said."""

from __future__ import annotations

from toolatlas.graph.models import EntryKind
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.guidance.minting import identifier, required_arguments
from toolatlas.models import Effect, OutcomeClass

from .conftest import entry, node


def jobs(*, made_up_fails: bool = True) -> AtlasView:
    """A job runner: `start_job` answers a `job_id`, `get_job_status` and `cancel_job` take one (the canceller echoes
    it back); with ``made_up_fails`` the status tool was seen refusing an id the probe made up."""
    tools = [node("jobs", "start_job", "Start a background job.", ("command",), read_only=False),
             node("jobs", "get_job_status", "Get the status of a job.", ("job_id",), read_only=True),
             node("jobs", "cancel_job", "Cancel a job.", ("job_id",), read_only=False)]
    found = [
        entry("jobs", "start_job", EntryKind.AFFORDANCE, when="start a job", effect=Effect.MUTATING,
              arguments={"command": "sleep 1"}, excerpt='{"job_id": "j-7731", "status": "started"}'),
        entry("jobs", "cancel_job", EntryKind.AFFORDANCE, when="cancel a job", effect=Effect.MUTATING,
              arguments={"job_id": "j-7731"}, excerpt='{"job_id": "j-7731", "status": "cancelled"}'),
    ]
    if made_up_fails:
        found.append(entry("jobs", "get_job_status", EntryKind.BOUNDARY, outcome=OutcomeClass.TOOL_ERROR,
                           condition='called with `job_id` = "example"', error_signature="Job 'example' not found",
                           excerpt="Job 'example' not found", arguments={"job_id": "example"}))
    return AtlasView(tools, found, [], [])


class TestMinters:
    def test_identifiers_and_wrapped_arguments(self) -> None:
        """An identifier is named by its last word; the required arguments of a wrapping object are read through
        ``$defs``."""
        assert identifier("session_id") and identifier("requestId") and identifier("cursor")
        assert not identifier("video") and not identifier("path")
        schema = {"$defs": {"In": {"type": "object", "properties": {"session_id": {}, "code": {}},
                                   "required": ["session_id"]}},
                  "properties": {"params": {"$ref": "#/$defs/In"}}, "required": ["params"]}
        assert required_arguments(schema) == ("session_id",)

    def test_the_tool_whose_answer_carries_the_id_mints_it(self) -> None:
        """`start_job` answers a `job_id` without being given one: it mints what `get_job_status` takes; `cancel_job`
        only echoes the id it was given; without a refused made-up id nothing is minted."""
        assert jobs().server_profiles["jobs"].minters == {"get_job_status": {"job_id": frozenset({"start_job"})}}
        assert "get_job_status" not in jobs(made_up_fails=False).server_profiles["jobs"].minters


class TestMintedPlans:
    def test_the_minter_goes_first_and_the_source_is_said(self) -> None:
        """"Show me the status of my job": `start_job` is planned before `get_job_status`, whose guidance says its
        `job_id` is the one `start_job` answers with."""
        guidance = Atlas(jobs()).guide("Show me the status of my job.", docs_ratio=None)
        plan = [s.tool for s in guidance.plan]
        assert plan.index("jobs.start_job") < plan.index("jobs.get_job_status")
        assert "`job_id`: the `job_id` `start_job` answers with" in guidance.to_text()
        unproven = Atlas(jobs(made_up_fails=False)).guide("Show me the status of my job.", docs_ratio=None)
        assert "jobs.start_job" not in [s.tool for s in unproven.plan]
