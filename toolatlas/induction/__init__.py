"""Memory Induction with an LLM (paper §3.1): trace reflection, capability and strategy aggregation.

::

    inducer = LlmInducer(llm)                       # LlmClient; ablations: capability_layer=, strategy_layer=
    report = await inducer.induce_task(task, rollouts, verdicts, graph)
    report = await inducer.aggregate_strategies(graph, round=1)
    report.drop_counts                              # {"entry:signature_mismatch": 2, "step:tool_not_called": 1}

Every record an LLM writes cites the rollouts, calls or traces it rests on, and is checked in
code before it reaches the :class:`~toolatlas.graph.state.ServerGraph`; it merges with the
offline inducer's records by the same content-derived ids.
"""

from toolatlas.induction.citations import Checked, check_entry, normalise_error
from toolatlas.induction.inducer import LlmInducer, OfflineAbsorb
from toolatlas.induction.models import (
    CallRef,
    CapabilityAnswer,
    Drop,
    InductionReport,
    LlmFailureNote,
    ProposedEntry,
    ProposedStrategy,
    ReflectedStep,
    ReflectedTip,
    ReflectionAnswer,
    StrategyAnswer,
)
from toolatlas.induction.rollouts import CallRecord, TaskRollouts
from toolatlas.induction.strategies import trace_groups

__all__ = [
    "CallRecord",
    "CallRef",
    "CapabilityAnswer",
    "Checked",
    "Drop",
    "InductionReport",
    "LlmFailureNote",
    "LlmInducer",
    "OfflineAbsorb",
    "ProposedEntry",
    "ProposedStrategy",
    "ReflectedStep",
    "ReflectedTip",
    "ReflectionAnswer",
    "StrategyAnswer",
    "TaskRollouts",
    "check_entry",
    "normalise_error",
    "trace_groups",
]
