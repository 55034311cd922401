"""The paper's method with an LLM, on top of the offline engine's verified facts.

After a server's offline rounds, :class:`MethodStage` runs Memory Bootstrapping (seed tasks per
tool with executable verifiers, plus verified offline chains written up as tasks), then R rounds
of Capability Exploration (boundary and affordance probe tasks for the frontier's target tools).
Every task is run N times by an agent in fresh sandboxes, judged by its verifier, and induced
into the graph: the calls by the rule-based inducer, the trace, capability entries and
strategies by the LLM inducer (citation-checked).
"""

from toolatlas.method.stage import MethodStage, llm_rounds

__all__ = ["MethodStage", "llm_rounds"]
