"""Guidance as text within a token budget: the compact rendering for prompts, and the trims that fit it.

The rendering is terse on purpose — guidance pays its way in tokens: the plan, gaps and server notes
first, then per tool its purpose, documented clauses (marked verified or contradicted), verified uses,
the boundaries to avoid with the server's exact error, verified compositions; strategies and an
exemplar last. When the text is over budget the least useful items go first (see :func:`fit`).
"""

from __future__ import annotations

from toolatlas.guidance.models import DocumentedNote, Guidance, PlanStep, ToolGuidance

__all__ = ["ERROR_CHARS", "fit", "render_text"]

ERROR_CHARS = 110
"""Characters of a server's error shown in the text rendering (the typed field keeps the first line)."""


def _tokens(characters: int) -> int:
    """What a text of so many characters costs (4 characters a token)."""
    return characters // 4 + 1


def _drop_last(field: str):
    return lambda g: g.model_copy(update={field: getattr(g, field)[:-1]}) if getattr(g, field) else None


def fit(guidance: Guidance, max_tokens: int) -> Guidance:
    """Drop the least useful items until the text rendering fits: the exemplar, strategies,
    compositions, accepted misuses, what related tools say (their names stay, on the one line of related
    tools, which the budget does not count), clauses beyond one per tool, the purposes of tools that say
    nothing else, the use notes (a second boundary with the server's own words tells more than the
    arguments that worked), boundaries beyond one per tool (the lightest first), the rest of the
    clauses, the purposes (an agent has every tool's description already; what the atlas verified it
    has only here), what the plan's steps were verified to feed, the last boundaries, the related tools'
    names, then whole tools from the last (the plan and the first tool stay)."""
    trims = [
        _drop_last("exemplars"),
        _drop_last("strategies"),
        lambda g: _per_tool(g, "compositions", 0),
        lambda g: _per_tool(g, "when", 1),
        lambda g: _related(g, named=True),
        lambda g: _per_tool(g, "documented", 1),
        lambda g: _unsaid(g, bare=True),
        lambda g: _per_tool(g, "when", 0),
        lambda g: _lightest(g, 1),
        lambda g: _per_tool(g, "documented", 0),
        lambda g: _unsaid(g),
        _unfed,
        lambda g: _lightest(g, 0),
        lambda g: _related(g),
        lambda g: g.model_copy(update={"tools": g.tools[:-1]}) if len(g.tools) > 1 else None,
    ]
    characters = len(render_text(guidance, also=False))
    for trim in trims:
        while _tokens(characters) > max_tokens:
            smaller = trim(guidance)
            if smaller is None:
                break
            guidance, characters = smaller, len(render_text(smaller, also=False))
    line = _also_line(guidance)
    if line:  # the rendering puts it on a line of its own
        characters += len(line) + (1 if characters else 0)
    return guidance.model_copy(update={"tokens": _tokens(characters)})


def _unfed(guidance: Guidance) -> Guidance | None:
    """The plan without what each step was verified to feed (the order of its steps says most of it)."""
    if not any(step.feeds for step in guidance.plan):
        return None
    return guidance.model_copy(update={"plan": [step.model_copy(update={"feeds": None}) for step in guidance.plan]})


def _unsaid(guidance: Guidance, *, bare: bool = False) -> Guidance | None:
    """Drop the purpose of the last tool that still has one (its name stays: it is still served);
    ``bare``: only of a tool that has nothing else to say (no clause, use or boundary), whose name
    tells an agent almost as much, and never the first tool's — before a tool that does loses a boundary.
    Past that, the first tool's purpose goes too: an agent has every description already, a boundary only here."""
    for index in range(len(guidance.tools) - 1, 0 if bare else -1, -1):
        tool = guidance.tools[index]
        if bare and (tool.documented or tool.when or tool.when_not or tool.compositions):
            continue
        if tool.purpose:
            tools = list(guidance.tools)
            tools[index] = tools[index].model_copy(update={"purpose": ""})
            return guidance.model_copy(update={"tools": tools})
    return None


def _related(guidance: Guidance, *, named: bool = False) -> Guidance | None:
    """Drop the last tool outside the plan; ``named``: only what it says (it stays served by name, on the
    one line of related tools: an agent holds its description already, and a name costs a few tokens)."""
    for index in range(len(guidance.tools) - 1, -1, -1):
        tool = guidance.tools[index]
        if tool.operations or not _operations(guidance) or (named and _bare(tool)):
            continue
        if not named:
            return guidance.model_copy(update={"tools": guidance.tools[:index] + guidance.tools[index + 1:]})
        tools = list(guidance.tools)
        tools[index] = tool.model_copy(update={"purpose": "", "documented": [], "when": [], "when_not": [],
                                               "compositions": []})
        return guidance.model_copy(update={"tools": tools})
    return None


def _operations(guidance: Guidance) -> bool:
    """Whether the plan asks for operations (not only for what discovers the place to work in): the tools
    outside it are then only related."""
    return any(step.operation != "discover" for step in guidance.plan)


def _also_line(guidance: Guidance) -> str:
    """The one line of the tools served by name only ("" when there are none)."""
    bare = [f"{tool.server}.{tool.tool}" for tool in guidance.tools if _bare(tool)]
    return "## Also: " + ", ".join(bare) if bare else ""


def _bare(tool: ToolGuidance) -> bool:
    """Whether a tool says nothing but its name."""
    return not (tool.purpose or tool.documented or tool.when or tool.when_not or tool.compositions)


def _lightest(guidance: Guidance, keep: int) -> Guidance | None:
    """Drop the lightest last boundary among the tools that still have more than ``keep`` (the one the
    task is least likely to hit: its weight times its tool's relevance — a heavy failure of a tool the task
    barely points at weighs little; between equals, the least relevant tool's)."""
    trimmable = [i for i, tool in enumerate(guidance.tools) if len(tool.when_not) > keep]
    if not trimmable:
        return None
    index = min(trimmable, key=lambda i: (guidance.tools[i].when_not[-1].weight * guidance.tools[i].relevance, -i))
    tools = list(guidance.tools)
    tools[index] = tools[index].model_copy(update={"when_not": tools[index].when_not[:-1]})
    return guidance.model_copy(update={"tools": tools})


def _per_tool(guidance: Guidance, field: str, keep: int) -> Guidance | None:
    """Trim ``field`` of the least relevant tool that still has more than ``keep`` items."""
    for index in range(len(guidance.tools) - 1, -1, -1):
        items = getattr(guidance.tools[index], field)
        if len(items) > keep:
            tools = list(guidance.tools)
            tools[index] = tools[index].model_copy(update={field: items[:-1]})
            return guidance.model_copy(update={"tools": tools})
    return None


_PLAIN_OUTCOMES = frozenset({"tool_error", "ok"})
"""Outcomes the rendering leaves unsaid: a quoted error after "avoid" is a failed call (one passed off
as a success is said so); a timeout or a protocol error is named."""

_RELATIONS = {"data": "its output feeds `{}`", "state": "`{}` sees what it changes",
              "retry": "after it fails, `{}` succeeds"}


def _without_purpose(condition: str, purpose: str) -> str:
    """``condition`` without a parenthesis that repeats the tool's purpose, said just above it."""
    said = purpose.strip().rstrip(".").lower()
    if not said:
        return condition
    at = condition.lower().find(f" ({said})")
    return condition[:at] + condition[at + len(said) + 3:] if at >= 0 else condition


def _marked(note: DocumentedNote) -> str:
    if note.status == "verified":
        return f"{note.text} (verified: “{note.note}”)" if note.note else f"{note.text} (verified)"
    if note.status == "contradicted":
        return f"{note.text} (but the atlas saw: {note.note})"
    return note.text


def render_text(guidance: Guidance, *, also: bool = True) -> str:
    """The guidance as a compact prompt: plan, gaps, server notes, then tools, the related tools served by
    name only on one line (``also=False``: not), strategies, example."""
    servers = {step.tool.split(".", 1)[0] for step in guidance.plan}
    short = len(servers) <= 1

    def named(tool: str) -> str:
        return tool.split(".", 1)[1] if short else tool

    lines = []  # no echo of the task: the agent has it, and every token of guidance must pay its way
    if guidance.plan:
        runs: list[list[PlanStep]] = []  # a tool planned for several operations in a row is said once
        for step in guidance.plan:
            if runs and runs[-1][0].tool == step.tool:
                runs[-1].append(step)
            else:
                runs.append([step])
        steps = [f"{named(run[0].tool)} ("
                 + ", ".join(f"{s.operation}{f' for {s.composes}' if s.composes else ''}" for s in run)
                 + f"{f'; verified to feed {named(run[-1].feeds)}' if run[-1].feeds else ''})" for run in runs]
        lines.append("Plan: " + " → ".join(steps))
    lines += [f"- {gap.text}" for gap in guidance.gaps]
    lines += [f"{note.server}: {_marked(note)}" for note in guidance.notes]
    for tool in guidance.tools:
        if _bare(tool):
            continue
        lines.append(f"## {tool.server}.{tool.tool}" + (f" — {tool.purpose}" if tool.purpose else ""))
        lines += [f"- documented: {_marked(note)}" for note in tool.documented]
        lines += [f"- verified: {use.text}" for use in tool.when]
        for boundary in tool.when_not:
            outcome = ("" if boundary.verdict else "reported as success" if boundary.reported_as_success else
                       "" if boundary.outcome in _PLAIN_OUTCOMES else boundary.outcome)
            error = boundary.error[:ERROR_CHARS]
            shared = f" (also {', '.join(f'`{named(t)}`' for t in boundary.also)})" if boundary.also else ""
            condition = _without_purpose(boundary.condition, tool.purpose)
            said = "says no" if boundary.verdict else "limit" if boundary.cut else "avoid"  # not every one a refusal
            lines.append(f"- {said}{shared}: {condition}{f' → {outcome}' if outcome else ''}: “{error}”")
        for composition in tool.compositions:
            if composition.relation == "minted":  # said whole: which argument, from which answer
                lines.append(f"- {composition.text}")
                continue
            lines.append(f"- verified: {_RELATIONS.get(composition.relation, '{}').format(composition.peer)}")
    if also and (line := _also_line(guidance)):
        lines.append(line)
    for strategy in guidance.strategies:
        lines.append(f"## Strategy: {strategy.title} (when {strategy.when})")
        lines += [f"{i}. {step}" for i, step in enumerate(strategy.steps, 1)]
    for trace in guidance.exemplars:
        lines.append(f"## Example: {trace.task} ({trace.resolved}/{trace.runs} resolved)")
        lines += [f"{i}. `{tool}` — {why}" for i, (tool, why) in enumerate(trace.steps, 1)]
    return "\n".join(lines)
