"""Why a likely failure was not warned of, on a small atlas of two servers: each cause found by changing one thing."""

from __future__ import annotations

from toolatlas.evaluation import AtlasGuidance, EvalTask
from toolatlas.evaluation.misses import MissCause, miss_cause
from toolatlas.graph.models import Entry, EntryKind, Evidence, ToolNode
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.models import OutcomeClass


def tool(server: str, name: str, description: str) -> ToolNode:
    return ToolNode(id=f"{server}.{name}", server=server, tool=name, schema_hash="h", description=description,
                    input_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})


def failure(server: str, name: str, condition: str, error: str, support: int = 1) -> Entry:
    evidence = Evidence(probe_id=f"p-{name}-{support}", tool=name, outcome=OutcomeClass.TOOL_ERROR, excerpt=error)
    return Entry(id=f"{server}.{name}.{support}", kind=EntryKind.BOUNDARY, server=server, tool=name, schema_hash="h",
                 signature=f"{name}:{error}", text=f"`{name}` fails when {condition}", condition=condition,
                 error_signature=error, outcome=OutcomeClass.TOOL_ERROR, support=support, evidence=[evidence],
                 probe_ids=[evidence.probe_id])


def system() -> AtlasGuidance:
    """A garden server whose waterer fails on a dry well, and a notes server of six tools about a water log."""
    tools = [tool("garden", "water_plant", "Water a plant of the garden."),
             tool("garden", "list_plants", "List the plants of the garden."),
             *(tool("notes", f"note_{what}", f"Note {what} of the water log in the water log.")
               for what in ("water", "usage", "level", "rain", "flow", "cost"))]
    found = [failure("garden", "water_plant", "the well is dry", "Well is dry"),
             failure("garden", "water_plant", "`name` names a plant that does not exist", "Unknown plant", 9),
             failure("garden", "water_plant", "`name` names a plant of the garden not planted yet", "Not planted", 5),
             failure("notes", "note_water", "the log is full", "Log is full")]
    return AtlasGuidance(Atlas(AtlasView(tools, found, [], [])))


def task(text: str, hint: str, tool_name: str = "garden.water_plant") -> EvalTask:
    return EvalTask(id="t", split="dev", text=text, needed=((tool_name,),), boundary_hint=hint,
                    boundary_tools=(tool_name,))


class TestMissCause:
    def test_a_warned_failure_has_no_cause(self) -> None:
        """A failure the guidance warns of, or a task with none, is no miss."""
        assert miss_cause(system(), task("Water the rose in the garden", "Unknown plant")) is None
        assert miss_cause(system(), EvalTask(id="t", split="dev", text="Water the rose",
                                             needed=(("garden.water_plant",),))) is None

    def test_a_failure_nobody_found_is_not_in_the_atlas(self) -> None:
        """A failure no finding, clause or description of the failing tool says was never found."""
        assert miss_cause(system(), task("Water the rose in the garden", "frost")) is MissCause.NOT_IN_ATLAS

    def test_a_finding_outranked_by_another_is_ranked_out(self) -> None:
        """The waterer is served, with room to spare, but its better-matching failure is said instead."""
        cause = miss_cause(system(), task("Water the plant named rose that does not exist in the garden",
                                          "Well is dry"))
        assert cause is MissCause.RANKED_OUT

    def test_a_failure_of_a_server_the_task_was_not_sent_to_is_routing(self) -> None:
        """A request in the words of another server is warned once its own server is named."""
        cause = miss_cause(system(), task("Note the water level in the water log: the well is dry", "Well is dry"))
        assert cause is MissCause.ROUTING

    def test_a_failing_tool_left_out_is_not_served(self) -> None:
        """A request the waterer does not match, even on its own server, never has it served."""
        cause = miss_cause(system(), task("Note the rain, flow and cost in the water log", "Well is dry"))
        assert cause is MissCause.NOT_SERVED

    def test_a_warning_the_text_budget_cut(self) -> None:
        """A waterer served under a tiny token budget loses its warning; without the budget it says it."""
        tiny = AtlasGuidance(system().atlas, max_tokens=10)
        assert miss_cause(tiny, task("Water the rose from the dry well", "Well is dry")) is MissCause.BUDGET
