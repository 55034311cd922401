"""A task's plan: its operations, clause by clause, each mapped to the tool that performs it.

The request is cut into clauses (sentences, lines, list items). In each clause every operation
it asks for (:mod:`toolatlas.guidance.operations`) goes to the tool, among the servers the task
is routed to, that performs it best: how strongly the tool says it does the operation (its name
more than its description) times how well the tool's text matches *that clause* — "create a new
directory" picks the directory creator, "create a file with the answer" the file writer. How
much the atlas holds about a tool plays no part: a tool with fifty entries and one with two are
chosen alike.

An operation no tool performs is a gap: with a composition (copy = read + write) its steps are
planned instead and the gap is said; a content search where the only search tool matches names
is a gap of the same kind (read the things and look). A server's discovery tool goes first when
its output supplies an argument the planned tools require (the allowed root before any path); a tool
that changes something named by nothing in the request is preceded by the read-only tool whose answers
show such names (the status before staging the pending changes).

Routing: the servers the request is about (:mod:`toolatlas.guidance.routing`), each with a weight
that grades its tools between routed servers; a caller's explicit server list replaces it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from toolatlas.graph.models import CoUsageRelation
from toolatlas.guidance.index import terms
from toolatlas.guidance.instruments import named_instruments, runs_files
from toolatlas.guidance.minting import required_arguments
from toolatlas.guidance.operations import (
    CHANGES,
    OPERATIONS,
    Mention,
    asks_about_named,
    asks_for_members,
    content_search,
    expanded,
    many,
    mentions,
    name_search,
    names_something,
    objects,
)
from toolatlas.guidance.shapes import value_shapes

if TYPE_CHECKING:
    from toolatlas.guidance.atlas import AtlasView

__all__ = ["MAX_TOOLS", "Gap", "Plan", "Step", "clauses_of", "make_plan"]

ToolKey = tuple[str, str]

MAX_TOOLS = 5
"""Tools a plan keeps (the ones an agent reads first)."""
ROUTED_FLOOR = 0.7
"""Weight of a step by a tool of the routed server that scores least (the best server's: 1)."""
OFF_ROUTE = 0.4
"""Weight of a tool of a server the task was not routed to (it can still win an operation it matches well)."""
OFF_ROUTE_MATCH = 0.3
"""…and only when it matches the whole task at least this well (best = 1)."""
MIN_STEP = 0.3
SOLE_MATCH = 0.3
"""…but the only tool of the task's servers named for an operation is a step whenever it matches the whole
task at least this well (best = 1)."""
WORD_SHARE = 0.5
"""Of the operations one word asks for ("add": create, edit), those whose best tool scores at least this share of
the best one's are planned (the word means what a tool does best)."""
ALTERNATIVE_SHARE = 0.9
"""A second tool for the same operation is kept when its step scores at least this share of the best one's."""
"""A step needs at least this score (a tool that only *says* the operation, matching nothing of the clause,
is not one)."""
_GOAL = frozenset({"write", "create", "edit", "delete", "move", "copy", "merge", "split", "convert"})
"""Operations that change state: what the task is for (kept first when a plan has too many tools)."""
_CHANGES = CHANGES
"""Changes a server's executor makes when none of its tools is named for them (see :func:`_stand_ins`)."""
STAND_IN = 0.5
"""How strongly an executor does a change it is not named for (as a description that only mentions it)."""
_ENABLING = frozenset({CoUsageRelation.STATE, CoUsageRelation.DATA})
"""Relations of a boundary to the tool that proved its cause: a change it makes first (state), an
identifier it mints that the call must pass on (data, :mod:`toolatlas.graph.bound`)."""
_CLAUSE = re.compile(r"(?:\n+|(?<=[.!?;:])\s+|\s+-\s+|(?:^|\s)\*\s+|\s+\d+\.\s+)")
_EMPHASIS = re.compile(r"\*\*(?=\S)|(?<=\S)\*\*")


@dataclass(frozen=True)
class Step:
    """One operation of a clause and the tool that does it."""

    operation: str
    tool: ToolKey
    score: float
    clause: int
    composes: str | None = None
    """The gap operation this step is part of (``copy`` for a read planned to copy)."""


@dataclass(frozen=True)
class Gap:
    """An operation no tool does, and the tools that do it together (or the documented reason)."""

    operation: str
    tools: tuple[ToolKey, ...]
    because: ToolKey | None = None
    """The tool that looks like it does it but does not (a name-only search for a content search)."""


@dataclass
class Plan:
    task: str
    clauses: list[str]
    steps: list[Step] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    discovery: list[ToolKey] = field(default_factory=list)
    servers: set[str] = field(default_factory=set)
    """The servers the task was routed to."""
    weights: dict[str, float] = field(default_factory=dict)
    """The routed servers' scores (best = 1); empty when the caller named the servers."""

    @property
    def route(self) -> set[str] | dict[str, float]:
        """The route as tools are weighted by it: the scored servers, or the caller's set."""
        return self.weights or self.servers
    relevance: dict[ToolKey, float] = field(default_factory=dict)
    """Every tool's match with the whole task (best = 1), before routing."""

    def kept(self) -> list[Step]:
        """The steps worth a tool: for each operation, its best tool and those almost as good (several
        mentions of "read" need one reader, not three)."""
        best: dict[str, float] = {}
        for step in self.steps:
            best[step.operation] = max(best.get(step.operation, 0.0), step.score)
        return [step for step in self.steps if step.score >= ALTERNATIVE_SHARE * best[step.operation]]

    @property
    def tools(self) -> list[ToolKey]:
        """Discovery first, then every planned tool in the order its first step comes (at most
        :data:`MAX_TOOLS`)."""
        order: dict[ToolKey, int] = {key: -1 for key in self.discovery}
        steps = self.kept()
        for index, step in enumerate(steps):
            order.setdefault(step.tool, index)
        keys = list(order)
        if len(keys) > MAX_TOOLS:
            worth: dict[ToolKey, float] = {key: 10.0 for key in self.discovery}
            for step in steps:
                bonus = 1.5 if (step.composes or step.operation) in _GOAL else 1.0
                worth[step.tool] = worth.get(step.tool, 0.0) + step.score * bonus
            kept = set(sorted(keys, key=lambda k: (-worth[k], order[k]))[:MAX_TOOLS])
            keys = [k for k in keys if k in kept]
        return keys

    @property
    def operations(self) -> list[str]:
        """Every operation of the plan, in order."""
        return list(dict.fromkeys(step.composes or step.operation for step in self.steps))

    def operations_of(self, key: ToolKey) -> list[str]:
        return [step.composes or step.operation for step in self.kept() if step.tool == key]

    def clauses_of(self, key: ToolKey) -> list[str]:
        return [self.clauses[step.clause] for step in self.kept() if step.tool == key]


def _named(word: str) -> bool:
    return names_something(word)


def clauses_of(task: str) -> list[str]:
    """The clauses of a request: lines, sentences and list items, without markup."""
    plain = _EMPHASIS.sub("", task)  # **bold** marks words, not the end of a clause
    parts = (re.sub(r"[#*`>|_]{2,}|^#+\s*", " ", part).strip() for part in _CLAUSE.split(plain))
    return [p for p in parts if len(p) > 2]


def _best(view: AtlasView, op: str, relevance: dict[ToolKey, float], candidates: list[ToolKey],
          batch: bool, routed: set[str] | dict[str, float], whole: dict[ToolKey, float], named: bool = False,
          near: frozenset[str] = frozenset(), peers: dict[ToolKey, float] | None = None,
          task_words: frozenset[str] = frozenset(), stand_in: bool = False) -> tuple[ToolKey, float] | None:
    """The tool that best does ``op`` here; ``peers``: tools a verified composition ties to the step this
    one serves (the reader an edit was verified with), favoured by the edge's weight; ``stand_in``: the
    candidates are executors standing in for a change no tool is named for (:func:`_stand_ins`)."""
    best = None
    for key in candidates:
        profile = view.profiles[key]
        strength = STAND_IN if stand_in else profile.operations.get(op, 0.0)
        if not strength or (key[0] not in routed and whole.get(key, 0.0) < OFF_ROUTE_MATCH):
            continue
        score = (0.5 + 0.5 * strength) * (0.2 + relevance.get(key, 0.0))
        if key[0] not in routed:
            score *= OFF_ROUTE
        elif isinstance(routed, dict):
            score *= ROUTED_FLOOR + (1 - ROUTED_FLOOR) * routed[key[0]]
        if named and not view.tool_nodes[key].input_schema.get("properties"):
            score *= 0.5  # a tool that takes nothing cannot be pointed at the thing the task names
        if profile.deprecated:
            score *= 0.5
        if op == "read" and profile.batch:
            score *= 1.3 if batch else 0.8  # many things: one call for all; one thing: the plain reader
        if profile.objects and profile.objects & near:
            score *= 1.5  # its name says what it acts on, and the task names that
        if peers:
            score *= 1.0 + 2.0 * peers.get(key, 0.0)
        if best is None or (score, key) > (best[1], best[0]):
            best = (key, score)
    if best is None:
        return None
    only = [k for k in candidates
            if k[0] in routed and (stand_in or view.profiles[k].operations.get(op, 0.0) >= 1.0)]
    objects = view.profiles[best[0]].objects - frozenset(terms(best[0][0]))  # a `tables` server's table: implied
    # the one tool of the task's servers named for the operation does it, however little the words near the
    # operation match it — unless its name says it acts on something the task never mentions; so does the one
    # executor standing in (its name says how it acts, not on what)
    sole = (only == [best[0]] and (stand_in or not objects or bool(objects & task_words))
            and whole.get(best[0], 0.0) >= SOLE_MATCH)
    return best if best[1] >= MIN_STEP or sole else None


def make_plan(view: AtlasView, task: str, servers: set[str] | None = None) -> Plan:
    """The plan of ``task`` over the atlas (restricted to ``servers`` when given)."""
    plan = Plan(task=task, clauses=clauses_of(task))
    whole = view.tool_relevance(task, servers, routed=False, answers=False)
    plan.relevance = view.tool_relevance(task, servers, routed=False)
    if servers:
        plan.servers = set(servers) & set(view.servers)
    else:
        plan.weights = dict(view.route_weights(task))
        plan.servers = set(plan.weights)
    candidates = [key for key in view.tool_keys if servers is None or key[0] in plan.servers]
    batch = many(task)
    task_words = frozenset(terms(expanded(task)))
    memo: dict[str, dict[ToolKey, float]] = {}
    executors: dict[str, list[ToolKey]] = {}

    def matching(text: str) -> dict[ToolKey, float]:
        """Tool relevance of a clause or an object, computed once per request (mentions repeat)."""
        if text not in memo:
            memo[text] = view.tool_relevance(text, servers, routed=False, answers=False) if text else {}
        return memo[text]

    for index, clause in enumerate(plan.clauses):
        found_in = mentions(clause, view.verbs)
        if not found_in and asks_for_members(clause):  # "which files are inside backup.tar.gz?": list it
            found_in = (Mention("list", " ".join(w for w in clause.split() if _named(w)), True),)
        elif all(m.operation != "read" for m in found_in) and asks_about_named(clause):
            # "what does line 137 of `a/b.py` return?", "what is the output of … in `a/b.py`?": read it
            found_in = (Mention("read", " ".join(w for w in clause.split() if _named(w)), True), *found_in)
        if not found_in:
            continue
        in_clause = matching(objects(clause))
        introduced = _introduced(clause)
        chosen: list[tuple[Mention, dict[ToolKey, float], list[ToolKey], tuple[ToolKey, float] | None]] = []
        for mention in found_in:
            op = mention.operation
            if op == "read" and _of_properties(mention.words):
                continue  # "read the metadata of all files": the inspection its object asks for does it
            near = matching(objects(mention.words))
            relevance = {k: 0.6 * near.get(k, 0.0) + 0.4 * in_clause.get(k, 0.0)
                         for k in set(near) | set(in_clause)}
            if op == "search" and content_search(clause):
                finders = [k for k in candidates if view.profiles[k].operations.get("search", 0.0) >= 1.0]
                finders = [k for k in finders if k[0] in plan.servers] or finders  # the task's servers first
                inner = [k for k in finders if not name_search(view.tool_nodes[k].description)]
                if not inner:
                    _compose(view, plan, index, "search", ("read",), (relevance, whole), candidates, batch,
                             because=max(finders, key=lambda k: (relevance.get(k, 0.0), k), default=None))
                    continue
                candidates_here = inner
            else:
                candidates_here = candidates
            words = frozenset(terms(expanded(mention.words)))
            found = _best(view, op, relevance, candidates_here, batch, plan.route, whole, mention.named,
                          words, task_words=task_words)
            if op in _CHANGES:  # a server's executor, where none of its tools is named for the change
                if op not in executors:
                    executors[op] = _stand_ins(view, op, candidates, plan.servers)
                standing = _best(view, op, relevance, executors[op], batch, plan.route, whole, mention.named, words,
                                 task_words=task_words, stand_in=True) if executors[op] else None
                if standing is not None and (found is None or standing[1] > found[1]):
                    found = standing
            chosen.append((mention, relevance, candidates_here, found))
        best_of_word: dict[int, float] = {}
        for mention, _, _, found in chosen:
            if found is not None:
                best_of_word[mention.position] = max(best_of_word.get(mention.position, 0.0), found[1])
        for mention, relevance, candidates_here, found in chosen:
            op = mention.operation
            best = best_of_word.get(mention.position)
            if best is not None and (found is None or found[1] < WORD_SHARE * best):
                continue  # one word, several operations ("add": create or edit): the one a tool does best
            if found is not None:
                for first in (OPERATIONS[op].before if op in OPERATIONS else ()):
                    ahead = _best(view, first, relevance, candidates, batch, {found[0][0]}, whole,
                                  mention.named, peers=view.co_usage(found[0]))
                    if (ahead is not None and all(s.tool != ahead[0] for s in plan.steps)
                            and ahead[0][0] == found[0][0]):
                        plan.steps.append(Step(operation=first, tool=ahead[0], score=ahead[1], clause=index))
                for key in (found[0], *_siblings(view, op, found[0], candidates_here, introduced)):
                    if all((s.operation, s.tool) != (op, key) for s in plan.steps):
                        plan.steps.append(Step(operation=op, tool=key, score=found[1], clause=index))
            elif op in OPERATIONS and OPERATIONS[op].composition:
                _compose(view, plan, index, op, OPERATIONS[op].composition, (relevance, whole), candidates,
                         batch)
    _instrument(view, plan, servers)
    _enable(view, plan)
    _mint(view, plan)
    _load(view, plan)
    if not names_something(task):
        _inspect(view, plan)
    _discover(view, plan, () if plan.steps or names_something(task) else _answering(view, plan))
    return plan


def _instrument(view: AtlasView, plan: Plan, servers: set[str] | None) -> None:
    """A request that names a language as the means of its work ("Use Python to list the files", "In Python, add
    up the squares") is done by the tool that runs that language (:mod:`toolatlas.guidance.instruments`): it goes
    first, its server joins the route, and the steps other servers' tools took for that clause go — its operation
    words say what the code does, not which tool to call. A tool that runs files is chosen only for a request that
    names a file."""
    runners = named_instruments(plan.task, view.runners)
    runners = [k for k in runners if (servers is None or k[0] in servers)
               and (not runs_files(view.profiles[k].purpose) or "shape:file" in value_shapes(plan.task))]
    if not runners:
        return
    best = max(runners, key=lambda k: (plan.relevance.get(k, 0.0), k))
    clause = next((i for i, text in enumerate(plan.clauses) if best in named_instruments(text, view.runners)), 0)
    plan.steps = [s for s in plan.steps if s.clause != clause or s.tool[0] == best[0]]
    if all(s.tool != best for s in plan.steps):
        score = max((s.score for s in plan.steps), default=1.0)
        plan.steps.insert(0, Step(operation="run", tool=best, score=score, clause=clause))
    plan.servers.add(best[0])
    if plan.weights:
        plan.weights[best[0]] = max(plan.weights.values())


def _answering(view: AtlasView, plan: Plan) -> tuple[ToolKey, ...]:
    """For a request that asks for no operation ("what should I work on next?"): the tool of the task's
    servers that matches it best, the one an agent calls to answer it."""
    routed = view.routed(plan.relevance, plan.route)
    best = max((k for k in routed if k[0] in plan.servers), key=lambda k: (routed[k], k), default=None)
    return (best,) if best is not None else ()


_INDEFINITE = frozenset({"a", "an", "another"})


def _introduced(clause: str) -> frozenset[str]:
    """The stems of the things a clause introduces with an indefinite article ("with *a paragraph*"), not
    those it refers to ("in *the* test directory")."""
    words = [w.strip(".,;:!?'\"()`*").lower() for w in clause.split()]
    return frozenset(stem for before, word in zip(words, words[1:], strict=False) if before in _INDEFINITE
                     for stem in terms(word))


_ARTICLES = frozenset({"a", "an", "the", "its", "their", "his", "her", "my", "our", "your"})


def _of_properties(words: str) -> bool:
    """Whether an operation's object is a thing's properties ("metadata of all files", "the sizes"): what
    an inspection reads, not the thing's contents."""
    first = next((w for w in words.lower().split() if w.strip("*`'\"") not in _ARTICLES), "")
    return bool(set(terms(first)) & OPERATIONS["inspect"].task_words)


def _siblings(view: AtlasView, op: str, chosen: ToolKey, candidates: list[ToolKey],
              introduced: frozenset[str]) -> list[ToolKey]:
    """The other tools of ``chosen``'s server named for ``op`` whose names say they act on things the clause
    also introduces ("add a heading *with a paragraph* under it": the heading adder and the paragraph
    adder) — one operation over several new things needs a tool for each."""
    done = view.profiles[chosen].objects
    return [key for key in candidates
            if key[0] == chosen[0] and key != chosen and view.profiles[key].operations.get(op, 0.0) >= 1.0
            and view.profiles[key].objects and view.profiles[key].objects <= introduced
            and not view.profiles[key].objects & done]


def _stand_ins(view: AtlasView, op: str, candidates: list[ToolKey], servers: set[str]) -> list[ToolKey]:
    """The tools that make a change ``op`` on the task's servers none of whose tools is named for it: a
    server's executors — tools that change state (declared or verified) or were verified to take statements
    that change data, and are named for no change at all (``execute_query``: its statements insert, update
    and delete; on a read-only connection it is still the tool a change is tried with, and refused by). The
    tools verified on such statements, when there are any, before those only seen changing something."""
    named = {k[0] for k in candidates if view.profiles[k].operations.get(op, 0.0)}
    found = [k for k in candidates if k[0] in servers and k[0] not in named
             and (view.profiles[k].mutating or view.profiles[k].executes)
             and not _CHANGES & set(view.profiles[k].operations)]
    return [k for k in found if view.profiles[k].executes] or found  # statements that change data: the surest


def _inspect(view: AtlasView, plan: Plan) -> None:
    """Look before changing: a planned tool that changes state and needs a reference the request does not
    name (the files to stage) gets, first, the read-only tool whose verified answers show such references
    (:mod:`toolatlas.guidance.supply`) and that matches the task best — unless a tool already planned
    before it, or the server's discovery tool, supplies them."""
    index = 0
    while index < len(plan.steps):
        step = plan.steps[index]
        server, tool = step.tool
        profile = view.server_profiles[server]
        discovered = {arg for supplied in profile.discovery.values() for arg in supplied}
        earlier = {s.tool[1] for s in plan.steps[:index]}
        for argument, tools in sorted(profile.suppliers.get(tool, {}).items()):
            if argument in discovered or tools & earlier or not view.profiles[step.tool].mutating:
                continue
            look = max(sorted(tools), key=lambda name: plan.relevance.get((server, name), 0.0))
            plan.steps.insert(index, Step(operation="inspect", tool=(server, look), score=step.score,
                                          clause=step.clause))
            index += 1
            break
        index += 1


def _mint(view: AtlasView, plan: Plan) -> None:
    """An identifier a planned tool takes and refused when made up comes from the answer of the tool that mints it
    (:mod:`toolatlas.guidance.minting`): that tool goes first — the one matching the task best — unless a tool
    already planned before it mints it or the server's discovery tool supplies it."""
    index = 0
    while index < len(plan.steps):
        step = plan.steps[index]
        server, tool = step.tool
        earlier = {s.tool[1] for s in plan.steps[:index]}
        profile = view.server_profiles[server]
        discovered = {arg for supplied in profile.discovery.values() for arg in supplied}
        for argument, tools in sorted(profile.minters.get(tool, {}).items()):
            if tools & earlier or argument in discovered:
                continue
            first = max(sorted(tools), key=lambda name: (_can_call(view, (server, name), plan.task),
                                                         plan.relevance.get((server, name), 0.0)))
            operations = view.profiles[(server, first)].operations
            operation = max(operations, key=lambda op: (operations[op], op)) if operations else step.operation
            plan.steps.insert(index, Step(operation=operation, tool=(server, first), score=step.score,
                                          clause=step.clause))
            index += 1
            break
        index += 1


_FILE_ARGUMENT = frozenset(terms("file path filename"))


def _can_call(view: AtlasView, key: ToolKey, task: str) -> bool:
    """Whether a tool can be called with what the task gives: one that requires a file or a path only when the
    task names a file."""
    needs_file = any(set(terms(argument)) & _FILE_ARGUMENT
                     for argument in required_arguments(view.tool_nodes[key].input_schema))
    return not needs_file or "shape:file" in value_shapes(task)


_SOURCE_FILE = re.compile(r"\bfrom\s+`?[\w./-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b")
"""A file a request takes something from (``from data/suppliers.csv``): a source to read, not a target."""


def _load(view: AtlasView, plan: Plan) -> None:
    """A file the request names reaches a server whose planned tools take no file (they work on what the
    server holds: a session, a loaded document) only through the server's tool that reads a file into it:
    that tool — verified on files, named or described to read — goes before them. Where no server of the plan
    reads files and the file is where something comes from, the reader of files of a server the request is
    routed to goes first (a CSV loaded into a database's table: the file server's reader, then the table's)."""
    if "shape:file" not in value_shapes(plan.task):
        return
    for server in dict.fromkeys(step.tool[0] for step in plan.steps):
        planned = [step for step in plan.steps if step.tool[0] == server]
        if any(view.profiles[step.tool].files for step in planned):
            continue
        readers = [k for k in view.tool_keys if k[0] == server and view.profiles[k].files
                   and view.profiles[k].operations.get("read", 0.0)]
        if readers:
            reader = max(readers, key=lambda k: (view.profiles[k].operations["read"], plan.relevance.get(k, 0.0), k))
            first = planned[0]
            plan.steps.insert(plan.steps.index(first), Step(operation="read", tool=reader, score=first.score,
                                                            clause=first.clause))
    if plan.steps and _SOURCE_FILE.search(plan.task) and not any(view.profiles[s.tool].files for s in plan.steps):
        # the file is a source ("from data/suppliers.csv") and no server of the plan reads files: a routed
        # server's reader of files reads it first
        readers = [k for k in view.tool_keys if k[0] in plan.servers and view.profiles[k].files
                   and view.profiles[k].operations.get("read", 0.0) >= 1.0]
        if readers:
            reader = max(readers, key=lambda k: (plan.weights.get(k[0], 1.0), plan.relevance.get(k, 0.0), k))
            first = plan.steps[0]
            plan.steps.insert(0, Step(operation="read", tool=reader, score=first.score, clause=first.clause))


def _enable(view: AtlasView, plan: Plan) -> None:
    """Put a step's proven enabler before it: a planned tool that was verified to fail on the state
    as it is and to succeed, the same call, once another tool changed the state — or with the identifier
    another tool minted in the server's process passed on (a boundary whose peer is that tool) — needs
    that tool first: the plan would otherwise end in that failure."""
    from toolatlas.graph.models import EntryKind

    index = 0
    while index < len(plan.steps):
        step = plan.steps[index]
        planned = {s.tool for s in plan.steps[: index + 1]}
        for boundary in view.by_tool.get(step.tool, {}).get(EntryKind.BOUNDARY, []):
            enabler = (step.tool[0], boundary.peer or "")
            if boundary.relation not in _ENABLING or enabler in planned or enabler not in view.profiles:
                continue
            operations = view.profiles[enabler].operations
            operation = max(operations, key=lambda op: (operations[op], op)) if operations else step.operation
            plan.steps.insert(index, Step(operation=operation, tool=enabler, score=step.score, clause=step.clause))
            index += 1
            break
        index += 1


def _compose(view: AtlasView, plan: Plan, clause: int, op: str, parts: tuple[str, ...],
             relevances: tuple[dict[ToolKey, float], dict[ToolKey, float]], candidates: list[ToolKey],
             batch: bool, because: ToolKey | None = None) -> None:
    """Plan the composition that does ``op`` (each part matched to the clause, else to the whole task)."""
    chosen = []
    routed = [k for k in candidates if k[0] in plan.servers]  # a composition stays on the task's servers
    for part in parts:
        found = (_best(view, part, relevances[0], routed, batch, plan.route, relevances[1])
                 or _best(view, part, relevances[1], routed, batch, plan.route, relevances[1]))
        if found is None:
            return
        chosen.append((part, *found))
    for part, key, score in chosen:
        if all((s.operation, s.tool, s.composes) != (part, key, op) for s in plan.steps):
            plan.steps.append(Step(operation=part, tool=key, score=score, clause=clause, composes=op))
    if all(gap.operation != op for gap in plan.gaps):
        plan.gaps.append(Gap(operation=op, tools=tuple(key for _, key, _ in chosen), because=because))


def _discover(view: AtlasView, plan: Plan, answering: tuple[ToolKey, ...] = ()) -> None:
    """Put a server's discovery tool first when its output supplies what a planned tool requires (or the
    tool ``answering`` a request with no operation: "the next task" needs the request it belongs to)."""
    planned = {step.tool for step in plan.kept()} | set(answering)
    for server in sorted({key[0] for key in planned}):
        for tool, supplied in sorted(view.server_profiles[server].discovery.items()):
            key = (server, tool)
            fed = [k for k in planned if k[0] == server and k != key]
            if any(supplied & set(view.profiles[k].required) for k in fed):
                plan.discovery.append(key)
