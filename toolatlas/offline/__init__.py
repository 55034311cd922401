"""The offline (no-LLM) probing engine: facts, argument kinds, valid calls and boundary mutations.

The natural path of data::

    snapshot ──extract_facts──▶ EnvironmentFacts ─┐
    ToolSpec ──infer_arguments──▶ [ArgSpec] ──────┼─▶ ValueSynth.valid_arguments ──▶ PlannedCall
    outputs ──ValuePool.harvest──▶ HarvestRef ────┤                 │
    errors ──ValuePool.harvest_error──▶ HarvestRef┘                 │
                                                  boundary_mutations ◀┘ ──▶ [Mutation]

An :class:`ArgSpec` carries its kind (:mod:`.kinds`, :mod:`.lexicon`), the values its description
names (:mod:`.hints`) and its own schema; :mod:`.semantic` gives realistic values per kind,
:mod:`.schemas` judges every value against the schema and draws from it when nothing fits, and
:mod:`.answers` / :mod:`.retries` turn what listings and errors name into values and retries.

The kinds and harvested values a probe carries (:class:`~toolatlas.probing.values.ArgKind`,
:class:`~toolatlas.probing.values.HarvestRef`) live with the probe models. The names below are
imported on first use (PEP 562), so that importing one module of the engine does not load all of it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolatlas.offline.facts import EnvironmentFacts, extract_facts
    from toolatlas.offline.harvest import ValuePool, looks_like_error, normalise
    from toolatlas.offline.kinds import (
        ArgSpec,
        ToolEffect,
        ToolObject,
        infer_arguments,
        sql_statement_kind,
        tool_effect,
        tool_object,
    )
    from toolatlas.offline.mutations import Mutation, MutationKind, boundary_mutations
    from toolatlas.offline.values import PlannedCall, ValueSynth

__all__ = [
    "ArgSpec",
    "EnvironmentFacts",
    "Mutation",
    "MutationKind",
    "PlannedCall",
    "ToolEffect",
    "ToolObject",
    "ValuePool",
    "ValueSynth",
    "boundary_mutations",
    "extract_facts",
    "infer_arguments",
    "looks_like_error",
    "normalise",
    "sql_statement_kind",
    "tool_effect",
    "tool_object",
]

_MODULE_OF = {
    **dict.fromkeys(("EnvironmentFacts", "extract_facts"), "toolatlas.offline.facts"),
    **dict.fromkeys(("ValuePool", "looks_like_error", "normalise"), "toolatlas.offline.harvest"),
    **dict.fromkeys(("ArgSpec", "ToolEffect", "ToolObject", "infer_arguments", "sql_statement_kind",
                     "tool_effect", "tool_object"), "toolatlas.offline.kinds"),
    **dict.fromkeys(("Mutation", "MutationKind", "boundary_mutations"), "toolatlas.offline.mutations"),
    **dict.fromkeys(("PlannedCall", "ValueSynth"), "toolatlas.offline.values"),
}
"""Where each name imported on first use lives."""


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'toolatlas.offline' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
