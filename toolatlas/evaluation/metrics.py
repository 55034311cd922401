"""Guidance quality: recall@5 of needed tools, boundary inclusion, tokens and latency.

Two kinds of system answer the same tasks:

* :class:`AtlasGuidance` — ``Atlas.guide`` (Dynamic Memory Traversal, then compression), timed
  without the atlas' answer cache, with any navigator (the ablations swap it);
* :class:`DocsOnly` — the baseline an agent has without an atlas: BM25 over each tool's raw name
  and description (the same stemmed :class:`LexicalIndex` the atlas uses), top 5. It warns of a
  failure only when the raw description of a served tool happens to state it.

recall@5 is the share of a task's needs met by the first 5 tools served, in the order served;
complete@5 the share of tasks with every need met; boundary inclusion ("the likely failure
warned") is the share of tasks with a ``boundary_hint`` whose answer holds a warning that contains
one of its phrases (case-insensitive) about one of its ``boundary_tools`` (any tool when none are
named). A warning is a boundary (condition or error), an operative clause of the documentation, a
gap note, a server note (about all of the server's tools) or a strategy's steps and pitfalls.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Protocol

from toolatlas.evaluation.tasks import EvalTask
from toolatlas.guidance.atlas import Atlas, AtlasView
from toolatlas.guidance.index import LexicalIndex
from toolatlas.guidance.models import Guidance
from toolatlas.guidance.navigator import Navigator
from toolatlas.guidance.render import compress
from toolatlas.store.atlas import record_text

__all__ = [
    "Answer",
    "AtlasGuidance",
    "DocsOnly",
    "K",
    "Retriever",
    "Summary",
    "TaskResult",
    "boundary_included",
    "complete_at",
    "evaluate",
    "recall_at",
    "summarise",
    "warnings",
]

K = 5
"""Tools of an answer that count for recall."""


@dataclass
class Answer:
    """What a system served for one task: tools in rank order, whether the hinted boundary is in it, its size."""

    ranked: list[str]
    boundary: bool
    tokens: int
    seconds: float


class Retriever(Protocol):
    """A system under evaluation."""

    name: str

    def answer(self, task: EvalTask) -> Answer: ...


def recall_at(ranked: Sequence[str], needed: Sequence[Sequence[str]], k: int = K) -> float:
    """Share of the needs met by the first ``k`` tools (a need is met by any of its alternatives)."""
    if not needed:
        return 1.0
    top = set(ranked[:k])
    return sum(1 for need in needed if top.intersection(need)) / len(needed)


def complete_at(ranked: Sequence[str], needed: Sequence[Sequence[str]], k: int = K) -> bool:
    """Whether the first ``k`` tools meet every need."""
    return recall_at(ranked, needed, k) == 1.0


def warnings(guidance: Guidance) -> list[tuple[frozenset[str], str]]:
    """Every warning of the guidance: (the ``server.tool`` names it is about, its text). A name
    ``server.*`` stands for every tool of the server."""
    found: list[tuple[frozenset[str], str]] = []
    for tool in guidance.tools:
        about = frozenset({f"{tool.server}.{tool.tool}"})
        found += [(about | set(b.also), f"{b.condition}\n{b.error}") for b in tool.when_not]
        found += [(about, f"{d.text}\n{d.note}") for d in tool.documented]
    found += [(frozenset(gap.tools), gap.text) for gap in guidance.gaps]
    found += [(frozenset({f"{note.server}.*"}), f"{note.text}\n{note.note}") for note in guidance.notes]
    for strategy in guidance.strategies:
        text = "\n".join([*strategy.steps, *strategy.pitfalls])
        found.append((frozenset({f"{strategy.server}.*"}), text))
    return found


def _about(about: frozenset[str], tools: Sequence[str]) -> bool:
    return not tools or any(t in about or f"{t.split('.', 1)[0]}.*" in about for t in tools)


def _phrases(hint: str | Sequence[str] | None) -> list[str]:
    if not hint:
        return []
    return [hint.lower()] if isinstance(hint, str) else [h.lower() for h in hint if h]


def boundary_included(guidance: Guidance, hint: str | Sequence[str] | None, tools: Sequence[str] = ()) -> bool:
    """Whether some warning of the guidance about one of ``tools`` (any, when empty) names the hinted
    failure: contains one of the ``hint`` phrases."""
    phrases = _phrases(hint)
    return any(_about(about, tools) and any(p in text.lower() for p in phrases)
               for about, text in warnings(guidance)) if phrases else False


class AtlasGuidance:
    """``Atlas.guide`` as a system: the navigator's walk, compressed to guidance, timed without the answer cache."""

    def __init__(self, atlas: Atlas, *, name: str = "atlas", budget: int = 8, k_r: int = 3, max_tokens: int = 1200,
                 navigator: Navigator | None = None, right_servers: bool = False) -> None:
        self.atlas, self.name = atlas, name
        self.right_servers = right_servers
        """Ask for each task's own servers only (what routing among all servers costs, by comparison)."""
        self.budget, self.k_r, self.max_tokens = budget, k_r, max_tokens
        self.navigator = navigator or atlas.navigator

    def guide(self, text: str, servers: set[str] | None = None) -> Guidance:
        """What ``Atlas.guide`` answers (for all servers, or ``servers``), computed afresh."""
        walk = self.navigator.walk(self.atlas.view, text, servers=servers, k_r=self.k_r, budget=self.budget)
        return compress(self.atlas.view, walk, max_tokens=self.max_tokens)

    def answer(self, task: EvalTask) -> Answer:
        t0 = time.perf_counter()
        guidance = self.guide(task.text, set(task.servers) if self.right_servers else None)
        seconds = time.perf_counter() - t0
        return Answer(ranked=[f"{t.server}.{t.tool}" for t in guidance.tools],
                      boundary=boundary_included(guidance, task.boundary_phrases, task.boundary_tools),
                      tokens=guidance.tokens, seconds=seconds)


class DocsOnly:
    """The docs-only baseline: BM25 over the raw tool name + description of every tool, top ``k``."""

    def __init__(self, view: AtlasView, *, k: int = K, name: str = "docs-only") -> None:
        self.name, self.k = name, k
        self.keys = list(view.tool_keys)
        self.descriptions = [view.tool_nodes[key].description for key in self.keys]
        self.index = LexicalIndex([record_text(view.tool_nodes[key]) for key in self.keys])

    def answer(self, task: EvalTask) -> Answer:
        t0 = time.perf_counter()
        hits = self.index.top(task.text, self.k)
        served = [(f"{self.keys[i][0]}.{self.keys[i][1]}", self.descriptions[i]) for i, _ in hits]
        text = "\n".join(f"## {name} — {' '.join(description.split())}" for name, description in served)
        seconds = time.perf_counter() - t0
        phrases = _phrases(task.boundary_phrases)
        warned = any(_about(frozenset({name}), task.boundary_tools) and any(p in description.lower() for p in phrases)
                     for name, description in served)
        return Answer(ranked=[name for name, _ in served], boundary=warned, tokens=len(text) // 4 + 1, seconds=seconds)


@dataclass
class TaskResult:
    """One task's outcome for one system."""

    task: str
    split: str
    recall: float
    boundary: bool | None
    """Whether the hinted boundary was served (``None``: the task has no hint)."""
    tokens: int
    seconds: float
    top: list[str]
    missed: list[str] = field(default_factory=list)
    """Needs not met by the top ``K`` (alternatives joined by ``|``)."""


def evaluate(system: Retriever, tasks: Iterable[EvalTask], *, repeat: int = 1) -> list[TaskResult]:
    """Every task answered by ``system`` (latency: the median of ``repeat`` answers)."""
    results = []
    for task in tasks:
        answers = [system.answer(task) for _ in range(max(1, repeat))]
        answer = answers[0]
        top = answer.ranked[:K]
        results.append(TaskResult(
            task=task.id, split=task.split, recall=recall_at(answer.ranked, task.needed),
            boundary=answer.boundary if task.boundary_hint else None, tokens=answer.tokens,
            seconds=statistics.median(a.seconds for a in answers), top=top,
            missed=["|".join(need) for need in task.needed if not set(top).intersection(need)],
        ))
    return results


@dataclass
class Summary:
    """Aggregates of a system over a set of tasks."""

    system: str
    tasks: int
    recall_at_5: float
    complete_at_5: float
    """Share of tasks with every need in the top 5."""
    boundary_tasks: int
    boundary_inclusion: float
    mean_tokens: float
    p50_ms: float

    def as_dict(self) -> dict:
        return asdict(self)


def summarise(system: str, results: Sequence[TaskResult]) -> Summary:
    """Means over tasks; boundary inclusion over the tasks that have a hint."""
    hinted = [r for r in results if r.boundary is not None]
    n = len(results)
    return Summary(
        system=system, tasks=n,
        recall_at_5=round(sum(r.recall for r in results) / n, 4) if n else 0.0,
        complete_at_5=round(sum(1 for r in results if not r.missed) / n, 4) if n else 0.0,
        boundary_tasks=len(hinted),
        boundary_inclusion=round(sum(1 for r in hinted if r.boundary) / len(hinted), 4) if hinted else 0.0,
        mean_tokens=round(sum(r.tokens for r in results) / n, 1) if n else 0.0,
        p50_ms=round(statistics.median(r.seconds for r in results) * 1000, 3) if n else 0.0,
    )
