"""The LLM navigator: Dynamic Memory Traversal (paper §3.3) with an LLM choosing each read.

The walk starts from the k_r traces nearest the task (read into the initial context, as in the
paper). Then, up to ``budget`` times, the navigator (prompt ``navigator``) sees the task, a
summary of the context so far and the operations open to it, with their targets —

* ``read_trace`` a trace reached by an expansion;       * ``expand`` a read trace's similar traces;
* ``read_tool`` a tool of a read trace, a co-usage peer of a read tool, or one retrieved for the task;
* ``read_strategy`` the strategies of a read trace;     * ``stop`` when the context is sufficient —

and answers with one choice. A target that was not offered is ignored and counted (the decision
is spent: the budget bounds the LLM calls as well as the reads). Then the compressor (prompt
``compressor``) turns what was read into typed guidance with every item tied to its entry id
(:mod:`toolatlas.guidance.llm_compress`). An endpoint failure or a malformed answer during the
walk, or a walk whose every decision named something not offered, is recorded and the guidance
is the offline traversal's instead (:attr:`Guidance.navigator` says so, with the reason); a failed
compression falls back to the offline compression of what the LLM read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field

from toolatlas.errors import LlmError
from toolatlas.guidance.llm_compress import (
    CompressionAnswer,
    candidates,
    candidates_json,
    compressed_guidance,
)
from toolatlas.guidance.models import Guidance, NavigationStep
from toolatlas.guidance.navigator import OfflineNavigator, Traversal
from toolatlas.guidance.render import compress
from toolatlas.llm import LlmClient, TokenUsage
from toolatlas.prompts import load_prompt

if TYPE_CHECKING:
    from toolatlas.guidance.atlas import AtlasView

__all__ = ["LlmNavigation", "LlmNavigator", "NavigatorChoice"]

log = structlog.get_logger(__name__)

ToolKey = tuple[str, str]
Operation = Literal["read_trace", "expand", "read_tool", "read_strategy"]
TOOL_CANDIDATES = 8
"""Tools retrieved for the task and offered from the start (beside those the reads lead to)."""


class NavigatorChoice(BaseModel):
    """One navigation decision."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    operation: Literal["read_trace", "expand", "read_tool", "read_strategy", "stop"]
    target: str | None = Field(description="the target exactly as offered; null for stop")
    reason: str = Field("", description="why, in a few words")


@dataclass
class LlmNavigation:
    """One guidance request on the LLM path: the guidance, the walk, and what it cost."""

    guidance: Guidance
    traversal: Traversal
    decisions: int = 0
    """Navigator answers asked for (at most the budget)."""
    stopped: str = ""
    """``sufficient`` (the navigator said stop), ``budget``, ``no_options`` or ``llm_failure``."""
    invalid: list[str] = field(default_factory=list)
    """Choices ignored because their operation/target was not offered."""
    dropped: list[str] = field(default_factory=list)
    """Compression items dropped because they named no read entry."""
    failures: list[str] = field(default_factory=list)
    llm_calls: int = 0
    usage: TokenUsage = field(default_factory=TokenUsage)
    latency_ms: float = 0.0
    fallback: str = ""
    """Why the guidance is the offline traversal's ("" when the LLM's walk stands)."""


class _Context:
    """What the walk has read, and which reads are open next."""

    def __init__(self, view: AtlasView, task: str, servers: set[str] | None) -> None:
        self.view, self.servers = view, servers
        self.walk = Traversal(task=task)
        self.trace_rel = view.trace_relevance(task, servers)
        self.tool_rel = view.tool_relevance(task, servers)
        self.reachable: dict[str, float] = {}
        """Unread traces reached by an expansion, with their score."""
        self.expanded: set[str] = set()
        self.tool_offers: dict[ToolKey, float] = dict(
            sorted(self.tool_rel.items(), key=lambda kv: (-kv[1], kv[0]))[:TOOL_CANDIDATES])

    def _allowed(self, server: str) -> bool:
        return self.servers is None or server in self.servers

    def seed(self, k_r: int) -> None:
        for trace_id, score in sorted(self.trace_rel.items(), key=lambda kv: (-kv[1], kv[0]))[:k_r]:
            self.read("read_trace", trace_id, score)

    # -- what is open -----------------------------------------------------------------------------

    def options(self) -> dict[str, dict[str, str]]:
        """Operation → {target: what it is}, nothing read twice."""
        view, walk = self.view, self.walk
        traces = {t: view.traces[t].task for t in sorted(self.reachable, key=lambda t: -self.reachable[t])}
        expand = {t: f"{len(self._similar(t))} similar trace(s) of “{view.traces[t].task[:80]}”"
                  for t in walk.traces if t not in self.expanded and self._similar(t)}
        tools = {f"{k[0]}/{k[1]}": view.tool_nodes[k].description.split(". ")[0][:100]
                 for k, _ in sorted(self.tool_offers.items(), key=lambda kv: (-kv[1], kv[0])) if k not in walk.tools}
        strategies = {t: "; ".join(view.strategies[s].title for s in self._strategies(t))
                      for t in walk.traces if self._strategies(t)}
        found = {"read_trace": traces, "expand": expand, "read_tool": tools, "read_strategy": strategies}
        return {op: targets for op, targets in found.items() if targets}

    def _similar(self, trace_id: str) -> list[str]:
        return [t for t in self.view.traces[trace_id].similar
                if t in self.view.traces and t not in self.walk.traces and self._allowed(self.view.traces[t].server)]

    def _strategies(self, trace_id: str) -> list[str]:
        return [s for s in self.view.traces[trace_id].strategies
                if s in self.view.strategies and s not in self.walk.strategies]

    def resolve(self, operation: str, target: str | None, options: dict[str, dict[str, str]]) -> str | None:
        """The offered target a choice names (a bare tool name counts when only one tool has it)."""
        offered = options.get(operation, {})
        if target in offered:
            return target
        if operation == "read_tool" and target:
            matches = [t for t in offered if t.split("/", 1)[1] == target]
            return matches[0] if len(matches) == 1 else None
        return None

    # -- reading -----------------------------------------------------------------------------------

    def read(self, operation: Operation, target: str, score: float | None = None) -> None:
        """Read ``target`` (a trace id, or ``server/tool``) and open what it leads to."""
        readers = {"read_tool": self._read_tool, "read_trace": self._read_trace, "expand": self._expand,
                   "read_strategy": self._read_strategy}
        value = readers[operation](target, score)
        self.walk.trail.append(NavigationStep(operation=operation, target=target, score=round(value, 4)))

    def _read_tool(self, target: str, score: float | None) -> float:
        server, tool = target.split("/", 1)
        value = self.tool_offers.pop((server, tool), self.tool_rel.get((server, tool), 0.0))
        self.walk.tools[(server, tool)] = round(value, 4)
        for peer, weight in self.view.co_usage((server, tool)).items():
            self._offer_tool(peer, value * weight)
        return value

    def _read_trace(self, target: str, score: float | None) -> float:
        value = self.reachable.pop(target, 0.0) if score is None else score
        trace = self.view.traces[target]
        self.walk.traces[target] = round(value, 4)
        for tool in trace.tools:
            self._offer_tool((trace.server, tool), 0.5 * value)
        return value

    def _expand(self, target: str, score: float | None) -> float:
        base = self.walk.traces[target]
        for other in self._similar(target):
            weight = self.view.traces[target].similar[other]
            self.reachable[other] = max(self.reachable.get(other, 0.0),
                                        weight * max(self.trace_rel.get(other, 0.0), 0.3 * base))
        self.expanded.add(target)
        return base

    def _read_strategy(self, target: str, score: float | None) -> float:
        base = self.walk.traces[target]
        for strategy in self._strategies(target):
            self.walk.strategies[strategy] = base
        return base

    def _offer_tool(self, key: ToolKey, score: float) -> None:
        if key in self.view.tool_nodes and key not in self.walk.tools and self._allowed(key[0]):
            self.tool_offers[key] = max(self.tool_offers.get(key, 0.0), score)

    # -- what the navigator is shown ------------------------------------------------------------------

    def summary(self) -> str:
        view, walk = self.view, self.walk
        lines = []
        for trace_id in walk.traces:
            trace = view.traces[trace_id]
            steps = " → ".join(s.tool for s in trace.steps) or "(no steps)"
            tips = f"; tips: {' / '.join(trace.tips[:2])}" if trace.tips else ""
            lines.append(f"- trace {trace_id} ({trace.resolved}/{trace.runs} resolved): “{trace.task}” — {steps}{tips}")
        for server, tool in walk.tools:
            entries = view.by_tool.get((server, tool), {})
            counts = ", ".join(f"{len(items)} {kind.value}" for kind, items in entries.items() if items) or "no entries"
            peers = ", ".join(sorted(f"{p[1]}" for p in view.co_usage((server, tool)))) or "none"
            lines.append(f"- tool {server}/{tool}: {counts}; composes with: {peers}")
        for strategy_id in walk.strategies:
            strategy = view.strategies[strategy_id]
            lines.append(f"- strategy {strategy_id}: {strategy.title} (when {strategy.when})")
        return "\n".join(lines) or "(nothing yet)"


class LlmNavigator:
    """Navigates an atlas with an LLM and compresses what it read with an LLM (role ``navigator``)."""

    def __init__(self, llm: LlmClient) -> None:
        self.llm = llm

    async def guide(self, atlas: AtlasView, task: str, *, servers: set[str] | None, k_r: int, budget: int,
                    max_tokens: int) -> Guidance:
        """Task-conditioned guidance (the :class:`~toolatlas.guidance.navigator.AsyncNavigator` protocol)."""
        return (await self.navigate(atlas, task, servers=servers, k_r=k_r, budget=budget, max_tokens=max_tokens)).guidance

    async def navigate(self, atlas: AtlasView, task: str, *, servers: set[str] | None = None, k_r: int = 3,
                       budget: int = 8, max_tokens: int = 1200) -> LlmNavigation:
        """Walk (at most ``budget`` navigator decisions), then compress; with what it cost."""
        context = _Context(atlas, task, servers)
        context.seed(k_r)
        result = LlmNavigation(guidance=Guidance(task=task), traversal=context.walk)
        label = next(iter(servers)) if servers and len(servers) == 1 else None
        result.stopped = await self._walk(context, result, budget, label)
        unusable = self._unusable(result)
        if unusable is not None:  # the offline traversal instead of a walk that went nowhere
            result.fallback = unusable
            result.traversal = OfflineNavigator().walk(atlas, task, servers=servers, k_r=k_r, budget=budget)
            guidance = compress(atlas, result.traversal, max_tokens=max_tokens)
            result.guidance = guidance.model_copy(update={"navigator": f"offline ({unusable})"})
            log.warning("llm_navigator_fell_back", task=task[:80], reason=unusable, failures=result.failures[:2])
            return result
        result.guidance = await self._compress(atlas, context.walk, result, max_tokens, label)
        log.info("llm_guidance", task=task[:80], decisions=result.decisions, stopped=result.stopped,
                 invalid=len(result.invalid), dropped=len(result.dropped), tokens=result.usage.total_tokens)
        return result

    @staticmethod
    def _unusable(result: LlmNavigation) -> str | None:
        """Why the LLM's walk cannot be the guidance's: the endpoint failed during it, or every decision
        it made named something it was not offered (None when the walk stands)."""
        if result.stopped == "llm_failure":
            return f"the LLM navigator failed: {result.failures[-1][:160]}" if result.failures else "the LLM navigator failed"
        if result.decisions and len(result.invalid) == result.decisions:
            return f"the LLM navigator's {result.decisions} decision(s) named nothing it was offered"
        return None

    async def _walk(self, context: _Context, result: LlmNavigation, budget: int, label: str | None) -> str:
        while result.decisions < budget:
            options = context.options()
            if not options:
                return "no_options"
            result.decisions += 1
            shown = {op: [{"target": t, "about": about} for t, about in targets.items()] for op, targets in options.items()}
            choice = await self._ask("navigator", NavigatorChoice, result, label, task=context.walk.task,
                                     context=context.summary(), options=json.dumps(shown, ensure_ascii=False),
                                     remaining=budget - result.decisions + 1)
            if choice is None:
                return "llm_failure"
            if choice.operation == "stop":
                return "sufficient"
            target = context.resolve(choice.operation, choice.target, options)
            if target is None:
                result.invalid.append(f"{choice.operation}({choice.target!r}): not offered")
                continue
            context.read(choice.operation, target)
        return "budget"

    async def _compress(self, view: AtlasView, walk: Traversal, result: LlmNavigation, max_tokens: int,
                        label: str | None) -> Guidance:
        pool = candidates(view, walk)
        answer = await self._ask("compressor", CompressionAnswer, result, label, task=walk.task,
                                 read=candidates_json(pool), max_tokens=max_tokens)
        if answer is None:
            guidance = compress(view, walk, max_tokens=max_tokens)
            return guidance.model_copy(update={"navigator": "llm (offline compression: the LLM compressor failed)"})
        return compressed_guidance(answer, pool, max_tokens=max_tokens, dropped=result.dropped).model_copy(
            update={"navigator": "llm"})

    async def _ask(self, prompt_name: str, answer: type[BaseModel], result: LlmNavigation, label: str | None,
                   **values: object) -> Any:
        prompt = load_prompt(prompt_name)
        try:
            reply = await self.llm.complete(prompt.role, prompt.messages(**values), response_model=answer, server=label)
        except LlmError as exc:
            result.failures.append(f"{prompt_name}: {exc}")
            return None
        result.llm_calls += 1
        result.usage = result.usage + reply.usage
        result.latency_ms += reply.latency_ms
        if reply.failure is not None:
            result.failures.append(f"{prompt_name}: {reply.failure.error}")
        return reply.parsed
