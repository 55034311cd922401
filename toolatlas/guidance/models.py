"""Guidance as typed fields (paper 001 measured the difference against one flat string).

The plan first: the task's operations in order, each with the tool that does it, the gaps (an
operation no tool does, and the composition that does it), and what a server's descriptions all
say. Then for each tool: what it is for, the operative clauses of its documentation (marked
``documented``, ``verified`` or ``contradicted`` by the atlas), its verified uses (``when``), the
task-relevant boundaries to avoid with the exact error the server gives (``when_not``), verified
compositions; applicable strategies as ordered steps; an exemplar trace. Every atlas item carries
the id of the entry it comes from, and its evidence probe ids, so an agent (or its developer)
can check it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from toolatlas.models import Frozen

__all__ = [
    "BoundaryNote",
    "CompositionNote",
    "DocumentedNote",
    "GapNote",
    "Guidance",
    "NavigationStep",
    "PlanStep",
    "ServerNote",
    "StrategyGuidance",
    "ToolGuidance",
    "TraceExemplar",
    "UseNote",
]


class UseNote(Frozen):
    """A verified use (``when``) of a tool."""

    text: str
    example_arguments: dict | None = None
    entry_id: str
    support: int = 1
    confidence: float = 0.0
    evidence: list[str] = Field(default_factory=list)
    """Probe ids of the calls that verified it."""


class BoundaryNote(Frozen):
    """Where a tool fails (``when_not``): the triggering condition and the error the server gives."""

    condition: str
    error: str
    outcome: str
    reported_as_success: bool = False
    entry_id: str
    support: int = 1
    confidence: float = 0.0
    evidence: list[str] = Field(default_factory=list)
    also: list[str] = Field(default_factory=list)
    """Other served tools (``server.tool``) with a boundary whose error differs from this one only in
    harvested or random names: said once, here, for all of them."""
    weight: float = 0.0
    """How likely the task is to hit it: its match with the task plus what any task using the tool meets
    (a natural failure, an ordering) and what the task's own values imply; a budget drops the lightest first."""
    cut: bool = False
    """Not a refusal: one step past a limit the description states, the call went through with its answer
    cut at the limit (``error`` quotes the answer): a task asking for more gets no more."""
    verdict: bool = False
    """Not a refusal: the tool judges what it is given and its answer said no (``"is_valid": false``), quoted in
    ``error``."""


class CompositionNote(Frozen):
    """A verified composition with a peer tool (``minted``: the peer's verified answers carry the identifier this
    tool takes, and a made-up one failed)."""

    peer: str
    relation: Literal["data", "state", "retry", "minted"]
    text: str
    weight: float = 0.0
    entry_id: str
    evidence: list[str] = Field(default_factory=list)


class DocumentedNote(Frozen):
    """An operative clause of the tool's own description (a limit, a matching rule, a failure condition)."""

    text: str
    status: Literal["documented", "verified", "contradicted"] = "documented"
    """``verified``: an atlas entry agrees; ``contradicted``: one disagrees (see ``note``)."""
    entry_id: str | None = None
    note: str = ""
    """What the atlas observed when it disagrees, or the server's answer that verified the clause."""


class ServerNote(DocumentedNote):
    """A clause most of a server's tool descriptions repeat, said once for the server."""

    server: str


class PlanStep(Frozen):
    """One operation of the task and the tool that does it."""

    operation: str
    tool: str
    """``server.tool``."""
    composes: str | None = None
    """The operation no tool does that this step is part of (``copy``)."""
    feeds: str | None = None
    """The next planned tool its output was verified to supply (a data edge), if any."""


class GapNote(Frozen):
    """An operation no tool does, and how to do it with the tools there are."""

    operation: str
    text: str
    tools: list[str] = Field(default_factory=list)
    """``server.tool`` names of the composition, and of a tool that looks like it does it but does not."""


class ToolGuidance(Frozen):
    server: str
    tool: str
    purpose: str = ""
    relevance: float = 0.0
    operations: list[str] = Field(default_factory=list)
    """What the task's plan uses it for (empty: a related tool outside the plan)."""
    documented: list[DocumentedNote] = Field(default_factory=list)
    when: list[UseNote] = Field(default_factory=list)
    when_not: list[BoundaryNote] = Field(default_factory=list)
    compositions: list[CompositionNote] = Field(default_factory=list)


class StrategyGuidance(Frozen):
    id: str
    server: str
    title: str
    when: str
    steps: list[str]
    pitfalls: list[str] = Field(default_factory=list)
    traces: list[str] = Field(default_factory=list)


class TraceExemplar(Frozen):
    id: str
    server: str
    task: str
    steps: list[tuple[str, str]]
    """(tool, rationale) pairs."""
    tips: list[str] = Field(default_factory=list)
    resolved: int = 0
    runs: int = 0


class NavigationStep(Frozen):
    """One read of the traversal: ``read_trace``, ``expand``, ``read_tool`` or ``read_strategy``."""

    operation: Literal["read_trace", "expand", "read_tool", "read_strategy"]
    target: str
    score: float


class Guidance(Frozen):
    """Task-conditioned guidance from an atlas."""

    task: str
    plan: list[PlanStep] = Field(default_factory=list)
    gaps: list[GapNote] = Field(default_factory=list)
    notes: list[ServerNote] = Field(default_factory=list)
    tools: list[ToolGuidance] = Field(default_factory=list)
    strategies: list[StrategyGuidance] = Field(default_factory=list)
    exemplars: list[TraceExemplar] = Field(default_factory=list)
    trail: list[NavigationStep] = Field(default_factory=list)
    """The traversal that gathered it, in order."""
    tokens: int = 0
    """Approximate size of the text rendering (4 characters a token)."""
    navigator: str = "offline"
    """What gathered it: ``offline`` (scored traversal), ``static`` (no traversal), ``llm``, or
    ``offline (…)`` when an LLM navigator could not, with the reason."""

    def to_text(self) -> str:
        """A compact text rendering of the same typed fields (for prompts)."""
        from toolatlas.guidance.text import render_text

        return render_text(self)
