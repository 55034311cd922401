"""Why a task's likely failure was not warned of: the first of five causes that explains it.

A warning can be missing because the atlas never found the failure, because the task went to other
servers, because the failing tool was not served, because the text budget cut the warning, or because
another finding of a served tool outranked it. Each is checked by asking again with one thing changed
(the task's own servers named, no budget), so the cause is the first change that makes the warning
appear — a diagnosis for development tasks, not a score.
"""

from __future__ import annotations

from enum import StrEnum

from toolatlas.evaluation.metrics import AtlasGuidance, boundary_included
from toolatlas.evaluation.tasks import EvalTask
from toolatlas.graph.models import EntryKind
from toolatlas.guidance.render import compress

__all__ = ["MissCause", "miss_cause"]

UNBOUNDED_TOKENS = 100_000
"""A budget no guidance reaches: asked with it, nothing is cut."""


class MissCause(StrEnum):
    """Why a likely failure was not warned of (checked in this order)."""

    NOT_IN_ATLAS = "not in the atlas"
    """No finding, clause or description of the failing tool says it."""
    ROUTING = "routing"
    """Warned once the task's own servers are named."""
    NOT_SERVED = "tool not served"
    """The failing tool is not among the tools served."""
    BUDGET = "budget"
    """Warned without the token budget."""
    RANKED_OUT = "ranked out"
    """The tool is served with room to spare, but with other findings."""


def _in_atlas(system: AtlasGuidance, task: EvalTask) -> bool:
    """Whether anything the atlas holds about the failing tools says one of the task's failure phrases."""
    view = system.atlas.view
    phrases = [p.lower() for p in task.boundary_phrases]
    keys = [k for k in view.tool_keys if not task.boundary_tools or f"{k[0]}.{k[1]}" in task.boundary_tools]
    for key in keys:
        texts = [view.tool_nodes[key].description]
        for kind in (EntryKind.BOUNDARY, EntryKind.AFFORDANCE):
            for entry in view.entries_of(key[0], key[1], kind):
                texts += [entry.text, entry.condition or "", entry.error_signature or "",
                          *(evidence.excerpt for evidence in entry.evidence[:1])]
        if any(p in text.lower() for text in texts for p in phrases):
            return True
    return False


def miss_cause(system: AtlasGuidance, task: EvalTask) -> MissCause | None:
    """Why ``system`` did not warn of ``task``'s likely failure (None: it did, or the task has none)."""
    if not task.boundary_hint:
        return None
    phrases, about = task.boundary_phrases, task.boundary_tools
    guidance = system.guide(task.text)
    if boundary_included(guidance, phrases, about):
        return None
    if not _in_atlas(system, task):
        return MissCause.NOT_IN_ATLAS
    if boundary_included(system.guide(task.text, set(task.servers)), phrases, about):
        return MissCause.ROUTING
    served = {f"{t.server}.{t.tool}" for t in guidance.tools}
    if about and not served & set(about):  # (with no tool named, any served tool could have warned)
        return MissCause.NOT_SERVED
    walk = system.navigator.walk(system.atlas.view, task.text, servers=None, k_r=system.k_r, budget=system.budget)
    if boundary_included(compress(system.atlas.view, walk, max_tokens=UNBOUNDED_TOKENS, docs_ratio=None),
                         phrases, about):
        return MissCause.BUDGET
    return MissCause.RANKED_OUT
