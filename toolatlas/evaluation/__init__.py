"""Guidance quality over a task set: recall@5 of needed tools and boundary inclusion, against a docs-only baseline."""

from toolatlas.evaluation.metrics import (
    Answer,
    AtlasGuidance,
    DocsOnly,
    K,
    Retriever,
    Summary,
    TaskResult,
    boundary_included,
    complete_at,
    evaluate,
    recall_at,
    summarise,
    warnings,
)
from toolatlas.evaluation.tasks import DEMO_TASKS, SPLITS, EvalTask, check_tools, load_tasks

__all__ = [
    "DEMO_TASKS",
    "SPLITS",
    "Answer",
    "AtlasGuidance",
    "DocsOnly",
    "EvalTask",
    "K",
    "Retriever",
    "Summary",
    "TaskResult",
    "boundary_included",
    "check_tools",
    "complete_at",
    "evaluate",
    "load_tasks",
    "recall_at",
    "summarise",
    "warnings",
]
