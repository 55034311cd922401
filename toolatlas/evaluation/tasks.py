"""The evaluation task set: user requests over the demo catalogue, with the tools they need.

The tasks live in the versioned data file ``demo_tasks.toml`` beside this module. A task's
``needed`` tools are *needs*: each need is one tool, or a few interchangeable ones (``a|b``, e.g.
the deprecated and the current file reader), and is met when any of them is served.

A task may name the failure an agent doing the obvious thing runs into: ``boundary_hint`` is a
phrase (or a list of phrases, any of which will do) that a warning about it contains, and
``boundary_tools`` (optional) the ``server.tool`` names the warning must be about — a phrase such
as "does not exist" only counts on the tool that fails that way.

A malformed task file is a :class:`~toolatlas.errors.ConfigError` that lists every problem
(task id and field) at once.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from toolatlas.errors import ConfigError

__all__ = ["DEMO_TASKS", "SPLITS", "EvalTask", "check_tools", "load_tasks", "parse_task"]

DEMO_TASKS = Path(__file__).resolve().parent / "demo_tasks.toml"
"""The demo catalogue's task set."""

Split = Literal["dev", "held"]
SPLITS: tuple[str, ...] = get_args(Split)
"""``dev`` tasks may be looked at while tuning guidance; ``held`` tasks only measure it."""

_FIELDS = {"id", "split", "text", "needed", "failure", "boundary_hint", "boundary_tools"}


@dataclass(frozen=True)
class EvalTask:
    """One user request, the tools a correct solution needs, and the boundary it runs into (if any)."""

    id: str
    split: Split
    text: str
    needed: tuple[tuple[str, ...], ...]
    """Needs, each a tuple of interchangeable ``server.tool`` names."""
    failure: str | None = None
    """The failure this task runs into, in plain words (for reports)."""
    boundary_hint: str | None = None
    """A phrase of a warning about the failure this task runs into (its condition, error or clause)."""
    boundary_alternatives: tuple[str, ...] = ()
    """Other phrases that name the same failure (any one will do)."""
    boundary_tools: tuple[str, ...] = ()
    """The ``server.tool`` names a warning must be about to count (empty: any tool)."""

    @property
    def boundary_phrases(self) -> tuple[str, ...]:
        """Every phrase that names the task's failure (empty when it has none)."""
        return (self.boundary_hint, *self.boundary_alternatives) if self.boundary_hint else ()

    @property
    def tools(self) -> set[str]:
        """Every ``server.tool`` named by the needs."""
        return {tool for need in self.needed for tool in need}

    @property
    def servers(self) -> set[str]:
        return {tool.split(".", 1)[0] for tool in self.tools}


def _is_tool_name(name: str) -> bool:
    server, dot, tool = name.partition(".")
    return bool(dot and server and tool and not any(c.isspace() for c in name))


def parse_task(raw: object, where: str, problems: list[tuple[str, str]]) -> EvalTask | None:
    """One task table, or ``None`` (with its problems appended) when it is malformed."""
    if not isinstance(raw, dict):
        problems.append((where, "a task is a table"))
        return None
    found = len(problems)
    for name in sorted(set(raw) - _FIELDS):
        problems.append((f"{where}.{name}", "unknown field"))
    for name in ("id", "split", "text"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            problems.append((f"{where}.{name}", "required, a non-empty string"))
    if raw.get("split") not in SPLITS and isinstance(raw.get("split"), str):
        problems.append((f"{where}.split", f"must be one of {', '.join(SPLITS)}, not {raw['split']!r}"))
    needed = raw.get("needed")
    if not isinstance(needed, list) or not needed or not all(isinstance(n, str) for n in needed):
        problems.append((f"{where}.needed", "required, a non-empty list of 'server.tool' (alternatives joined by '|')"))
        needs: tuple[tuple[str, ...], ...] = ()
    else:
        needs = tuple(tuple(part.strip() for part in need.split("|")) for need in needed)
        for need, text in zip(needs, needed, strict=True):
            if not all(_is_tool_name(tool) for tool in need):
                problems.append((f"{where}.needed", f"{text!r}: every alternative is 'server.tool'"))
    hints = raw.get("boundary_hint")
    hints = [hints] if isinstance(hints, str) else hints
    if hints is not None and (not isinstance(hints, list) or not hints
                              or not all(isinstance(h, str) and h.strip() for h in hints)):
        problems.append((f"{where}.boundary_hint", "a non-empty string, or a list of them, when given"))
    about = raw.get("boundary_tools", [])
    if not isinstance(about, list) or not all(isinstance(t, str) and _is_tool_name(t) for t in about):
        problems.append((f"{where}.boundary_tools", "a list of 'server.tool' names"))
    elif about and not hints:
        problems.append((f"{where}.boundary_tools", "given without a boundary_hint"))
    failure = raw.get("failure")
    if failure is not None and (not isinstance(failure, str) or not failure.strip()):
        problems.append((f"{where}.failure", "a non-empty string when given"))
    if len(problems) > found:
        return None
    return EvalTask(id=raw["id"], split=raw["split"], text=" ".join(raw["text"].split()), needed=needs,
                    failure=failure, boundary_hint=hints[0] if hints else None, boundary_alternatives=tuple(hints[1:]) if hints else (),
                    boundary_tools=tuple(about))


def load_tasks(path: str | Path = DEMO_TASKS, *, split: Split | None = None) -> list[EvalTask]:
    """The tasks of a task file (all, or one split), in file order."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(str(path), [("", f"cannot read the task file: {exc}")]) from exc
    raws = data.get("tasks", [])
    if not isinstance(raws, list) or not raws:
        raise ConfigError(str(path), [("tasks", "the file has no [[tasks]]")])
    problems: list[tuple[str, str]] = []
    tasks = []
    for index, raw in enumerate(raws):
        label = f"tasks[{index}]"
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            label += f" ({raw['id']})"
        task = parse_task(raw, label, problems)
        if task is not None:
            tasks.append(task)
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            problems.append((f"task {task.id}", "duplicate id"))
        seen.add(task.id)
    if split is not None and split not in SPLITS:
        problems.append(("split", f"must be one of {', '.join(SPLITS)}, not {split!r}"))
    if problems:
        raise ConfigError(str(path), problems)
    return [t for t in tasks if split is None or t.split == split]


def check_tools(tasks: Iterable[EvalTask], known: Iterable[str], *, file: str | None = None) -> None:
    """Raise :class:`ConfigError` naming every ``server.tool`` of a task that ``known`` does not hold."""
    names = set(known)
    problems = [(f"task {task.id}", f"needs {tool!r}, which the atlas does not have")
                for task in tasks for tool in sorted(task.tools - names)]
    if problems:
        raise ConfigError(file, problems)
