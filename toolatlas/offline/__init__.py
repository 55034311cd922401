"""The offline (no-LLM) probing engine: facts, argument kinds, valid calls and boundary mutations.

The natural path of data::

    snapshot ──extract_facts──▶ EnvironmentFacts ─┐
    ToolSpec ──infer_arguments──▶ [ArgSpec] ──────┼─▶ ValueSynth.valid_arguments ──▶ PlannedCall
    outputs ──ValuePool.harvest──▶ HarvestRef ────┘                 │
                                                  boundary_mutations ◀┘ ──▶ [Mutation]
"""

from toolatlas.offline.facts import EnvironmentFacts, extract_facts
from toolatlas.offline.harvest import HarvestRef, ValuePool, looks_like_error, normalise
from toolatlas.offline.kinds import (
    ArgKind,
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
    "ArgKind",
    "ArgSpec",
    "EnvironmentFacts",
    "HarvestRef",
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
