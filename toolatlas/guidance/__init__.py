"""Guidance for any agent: Dynamic Memory Traversal over an atlas, compressed into typed fields."""

from toolatlas.guidance.atlas import Atlas, AtlasView
from toolatlas.guidance.models import (
    BoundaryNote,
    CompositionNote,
    Guidance,
    NavigationStep,
    StrategyGuidance,
    ToolGuidance,
    TraceExemplar,
    UseNote,
)
from toolatlas.guidance.navigator import Navigator, OfflineNavigator, StaticNavigator, Traversal

__all__ = [
    "Atlas",
    "AtlasView",
    "BoundaryNote",
    "CompositionNote",
    "Guidance",
    "NavigationStep",
    "Navigator",
    "OfflineNavigator",
    "StaticNavigator",
    "StrategyGuidance",
    "ToolGuidance",
    "TraceExemplar",
    "Traversal",
    "UseNote",
]
