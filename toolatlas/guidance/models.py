"""Guidance as typed fields (paper 001 measured the difference against one flat string).

For each relevant tool: what to use it for (``when``), what not (``when_not``), the boundaries
to avoid with the exact error the server gives, useful compositions; applicable strategies as
ordered steps; one or two exemplar traces. Every item carries the id of the atlas entry it comes
from, and its evidence probe ids, so an agent (or its developer) can check it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from toolatlas.models import Frozen

__all__ = [
    "BoundaryNote",
    "CompositionNote",
    "Guidance",
    "NavigationStep",
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


class CompositionNote(Frozen):
    """A verified composition with a peer tool."""

    peer: str
    relation: Literal["data", "state", "retry"]
    text: str
    weight: float = 0.0
    entry_id: str
    evidence: list[str] = Field(default_factory=list)


class ToolGuidance(Frozen):
    server: str
    tool: str
    purpose: str = ""
    relevance: float = 0.0
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
    tools: list[ToolGuidance] = Field(default_factory=list)
    strategies: list[StrategyGuidance] = Field(default_factory=list)
    exemplars: list[TraceExemplar] = Field(default_factory=list)
    trail: list[NavigationStep] = Field(default_factory=list)
    """The traversal that gathered it, in order."""
    tokens: int = 0
    """Approximate size of the text rendering (4 characters a token)."""

    def to_text(self) -> str:
        """A compact text rendering of the same typed fields (for prompts)."""
        from toolatlas.guidance.render import render_text

        return render_text(self)
