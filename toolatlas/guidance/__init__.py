"""Guidance for any agent: Dynamic Memory Traversal over an atlas, compressed into typed fields."""

from toolatlas.guidance.atlas import Atlas, AtlasView
from toolatlas.guidance.models import (
    BoundaryNote,
    CompositionNote,
    DocumentedNote,
    GapNote,
    Guidance,
    NavigationStep,
    PlanStep,
    ServerNote,
    StrategyGuidance,
    ToolGuidance,
    TraceExemplar,
    UseNote,
)
from toolatlas.guidance.navigator import (
    AsyncNavigator,
    Navigator,
    OfflineNavigator,
    StaticNavigator,
    Traversal,
)

__all__ = [
    "AsyncNavigator",
    "Atlas",
    "AtlasView",
    "BoundaryNote",
    "CompositionNote",
    "DocumentedNote",
    "GapNote",
    "Guidance",
    "LlmNavigation",
    "LlmNavigator",
    "NavigationStep",
    "Navigator",
    "OfflineNavigator",
    "PlanStep",
    "ServerNote",
    "StaticNavigator",
    "StrategyGuidance",
    "ToolGuidance",
    "TraceExemplar",
    "Traversal",
    "UseNote",
]


def __getattr__(name: str):
    """``LlmNavigator`` / ``LlmNavigation`` on first use: the offline path never imports the LLM client."""
    if name in ("LlmNavigator", "LlmNavigation"):
        from toolatlas.guidance import llm_navigator

        return getattr(llm_navigator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
