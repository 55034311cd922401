"""MCPMark's filesystem tasks as guidance-evaluation tasks, read from the user's own checkout.

MCPMark (github.com/eval-sys/mcpmark) keeps each task in a folder
``tasks/<service>/<level>/<instance>/<task>/`` with the instruction an agent is given
(``description.md``), its metadata (``meta.json``, whose ``meta_data.stateContent`` lists the
instance's initial tree) and a programmatic verifier (``verify.py``). The initial directories are
the benchmark's *test environments*: ``<checkout>/test_environments/<instance>`` by default, or
under ``$FILESYSTEM_TEST_ROOT`` (MCPMark's own variable), which its pipeline downloads.

Nothing of MCPMark is shipped with ToolAtlas: the importer reads a checkout the user points it at
(``--mcpmark PATH`` or ``$TOOLATLAS_MCPMARK``). What ToolAtlas ships is its own annotation of each
development task (:data:`ANNOTATIONS`: the tools a correct solution needs and the failure it
runs into, written from the task and its verifier). A task whose files, annotation or initial
state are missing is listed as unavailable with the reason, never silently dropped.

Only the instances of :data:`DEVELOPMENT_INSTANCES` are read unless the caller names others: the
rest (:data:`HELD_OUT_INSTANCES`) are kept for independent evaluation, and their folders are never
opened here by default.
"""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from toolatlas.errors import ConfigError
from toolatlas.evaluation.tasks import EvalTask, parse_task

__all__ = [
    "ANNOTATIONS",
    "CHECKOUT_ENV",
    "DEVELOPMENT_INSTANCES",
    "HELD_OUT_INSTANCES",
    "TASK_FILES",
    "TEST_ROOT_ENV",
    "McpmarkTask",
    "Unavailable",
    "discover",
    "evaluation_tasks",
    "locate_checkout",
    "materialise_states",
    "parse_tree",
]

CHECKOUT_ENV = "TOOLATLAS_MCPMARK"
"""Environment variable naming an MCPMark checkout (when ``--mcpmark`` is not given)."""
TEST_ROOT_ENV = "FILESYSTEM_TEST_ROOT"
"""MCPMark's own variable for where its filesystem test environments live (relative to the checkout)."""
TASK_FILES = ("description.md", "meta.json", "verify.py")
DEVELOPMENT_INSTANCES = ("file_context", "file_property", "student_database", "threestudio")
"""The instances the paper's cross-environment split builds memory on (its Table 7, train side)."""
HELD_OUT_INSTANCES = ("desktop", "desktop_template", "folder_structure", "legal_document", "papers",
                      "votenet")
"""Kept for independent evaluation: never read unless a caller names them."""
ANNOTATIONS = Path(__file__).resolve().parent / "mcpmark_filesystem.toml"
"""ToolAtlas's annotations of the development tasks (needed tools, likely failure)."""

_TREE_MARKS = ("├── ", "└── ")


@dataclass(frozen=True)
class McpmarkTask:
    """One MCPMark task folder as found in a checkout."""

    key: str
    """``<level>/<instance>/<task>``, e.g. ``standard/file_context/file_splitting``."""
    service: str
    level: str
    instance: str
    folder: Path
    instruction: str = ""
    """The text of ``description.md``: what the agent is told."""
    tree: str = ""
    """``meta_data.stateContent`` of ``meta.json``: the initial tree, as text."""
    state: Path | None = None
    """The instance's initial directory, when the test environment is present."""
    missing: tuple[str, ...] = ()
    """Task files that are absent or unreadable."""


@dataclass(frozen=True)
class Unavailable:
    """A task that cannot be evaluated, and why."""

    key: str
    reasons: tuple[str, ...]


def locate_checkout(path: str | Path | None = None) -> Path:
    """The MCPMark checkout at ``path`` (else ``$TOOLATLAS_MCPMARK``); a clear error when there is none."""
    given = path if path is not None else os.environ.get(CHECKOUT_ENV)
    if not given:
        hint = f"no MCPMark checkout: pass --mcpmark PATH or set ${CHECKOUT_ENV}"
        raise ConfigError(None, [("mcpmark", hint)])
    root = Path(given).expanduser().resolve()
    if not (root / "tasks").is_dir():
        raise ConfigError(str(root), [("mcpmark", "not an MCPMark checkout (it has no tasks/ folder)")])
    return root


def _test_root(checkout: Path, test_root: str | Path | None) -> Path:
    chosen = test_root if test_root is not None else os.environ.get(TEST_ROOT_ENV)
    if not chosen:
        return checkout / "test_environments"
    path = Path(chosen).expanduser()
    return path if path.is_absolute() else checkout / path


def _read_task(folder: Path, key: str, service: str, level: str, instance: str, states: Path) -> McpmarkTask:
    missing = [name for name in TASK_FILES if not (folder / name).is_file()]
    instruction, tree = "", ""
    try:
        if "description.md" not in missing:
            instruction = (folder / "description.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        missing.append("description.md (unreadable)")
    try:
        if "meta.json" not in missing:
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            data = (meta.get("meta_data") or {}) if isinstance(meta, dict) else {}
            tree = str(data.get("stateContent") or "") if isinstance(data, dict) else ""
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        missing.append("meta.json (not valid JSON)")
    state = states / instance
    return McpmarkTask(key=key, service=service, level=level, instance=instance, folder=folder,
                       instruction=instruction, tree=tree, state=state if state.is_dir() else None,
                       missing=tuple(missing))


def discover(
    checkout: str | Path | None = None,
    *,
    service: str = "filesystem",
    instances: Iterable[str] = DEVELOPMENT_INSTANCES,
    test_root: str | Path | None = None,
) -> list[McpmarkTask]:
    """Every task folder of ``service`` for the given instances, sorted by key.

    Only the folders of the named instances are opened; the others are skipped by name.
    """
    root = locate_checkout(checkout)
    wanted = set(instances)
    states = _test_root(root, test_root)
    found = []
    service_dir = root / "tasks" / service
    if not service_dir.is_dir():
        raise ConfigError(str(root), [("mcpmark", f"the checkout has no tasks/{service}/ folder")])
    for level in sorted(p for p in service_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for instance in sorted(wanted):
            instance_dir = level / instance
            if not instance_dir.is_dir():
                continue
            folders = sorted(p for p in instance_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
            for folder in folders:
                key = f"{level.name}/{instance}/{folder.name}"
                found.append(_read_task(folder, key, service, level.name, instance, states))
    return found


@dataclass
class _Annotations:
    server: str
    tasks: dict[str, dict] = field(default_factory=dict)


def _load_annotations(path: Path) -> _Annotations:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(str(path), [("", f"cannot read the annotations: {exc}")]) from exc
    server = data.get("server")
    rows = data.get("tasks")
    problems: list[tuple[str, str]] = []
    if not isinstance(server, str) or not server:
        problems.append(("server", "required: the catalogue name of the server the tasks use"))
    if not isinstance(rows, list) or not all(isinstance(r, dict) and isinstance(r.get("key"), str)
                                             for r in rows):
        problems.append(("tasks", "a list of tables, each with a 'key'"))
    if problems:
        raise ConfigError(str(path), problems)
    assert isinstance(server, str) and isinstance(rows, list)  # checked above
    return _Annotations(server=server, tasks={row["key"]: row for row in rows})


def _qualified(names: object, server: str) -> object:
    """``tool`` / ``a|b`` names of an annotation as ``server.tool`` (anything else is left as given)."""
    if not isinstance(names, list):
        return names
    return ["|".join(part if "." in part else f"{server}.{part.strip()}" for part in str(n).split("|"))
            if isinstance(n, str) else n for n in names]


def evaluation_tasks(
    tasks: Iterable[McpmarkTask], annotations: str | Path = ANNOTATIONS, *, split: str = "dev"
) -> tuple[list[EvalTask], list[Unavailable]]:
    """The annotated, complete tasks as :class:`EvalTask` (their instruction as the request), and the
    rest with the reasons they cannot be evaluated. A malformed annotation is a :class:`ConfigError`."""
    notes = _load_annotations(Path(annotations))
    ready: list[EvalTask] = []
    unavailable: list[Unavailable] = []
    problems: list[tuple[str, str]] = []
    for task in tasks:
        reasons = [f"missing {name}" for name in task.missing]
        row = notes.tasks.get(task.key)
        if row is None:
            reasons.append("no annotation (needed tools and likely failure)")
        if task.state is None and not task.tree:
            reasons.append(f"no initial state (no test environment for {task.instance!r} "
                           "and no tree in meta.json)")
        if reasons or row is None:
            unavailable.append(Unavailable(key=task.key, reasons=tuple(reasons)))
            continue
        raw = {name: value for name, value in row.items() if name != "key"}
        raw.update(id=task.key, split=split, text=task.instruction,
                   needed=_qualified(row.get("needed"), notes.server))
        if "boundary_tools" in raw:
            raw["boundary_tools"] = _qualified(raw["boundary_tools"], notes.server)
        parsed = parse_task(raw, f"annotation {task.key}", problems)
        if parsed is not None:
            ready.append(parsed)
    if problems:
        raise ConfigError(str(annotations), problems)
    return ready, unavailable


def parse_tree(text: str) -> list[tuple[str, bool]]:
    """The entries of a ``tree``-style listing as (path relative to its root, is a directory).

    The first line is the root (``name/``); each further line is ``├── name`` or ``└── name`` after
    its indentation, a trailing ``/`` marking a directory. Lines that are not entries are ignored.
    """
    entries: list[tuple[str, bool]] = []
    stack: list[tuple[int, str]] = []
    for line in text.splitlines()[1:]:
        column = next((line.find(mark) for mark in _TREE_MARKS if mark in line), -1)
        if column < 0:
            continue
        name = line[column + len(_TREE_MARKS[0]):].strip()
        if not name or name in (".", "..") or "/" in name.rstrip("/"):
            continue
        while stack and stack[-1][0] >= column:
            stack.pop()
        is_dir = name.endswith("/")
        path = "/".join([*(part for _, part in stack), name.rstrip("/")])
        entries.append((path, is_dir))
        if is_dir:
            stack.append((column, name.rstrip("/")))
    return entries


def materialise_states(tasks: Iterable[McpmarkTask], destination: str | Path) -> dict[str, str]:
    """Lay out each instance's initial directory under ``destination/<instance>`` (replacing what is there).

    A present test environment is copied as it is (``"test environment"``). Without one, the tree
    listed in ``meta.json`` is rebuilt with placeholder file contents (``"tree listing"``): the
    names and nesting are the benchmark's, the contents are not. Returns instance → source.
    """
    destination = Path(destination)
    chosen: dict[str, McpmarkTask] = {}
    for task in tasks:
        best = chosen.get(task.instance)
        if best is None or (best.state is None and task.state is not None) or (not best.tree and task.tree):
            chosen[task.instance] = task
    sources = {}
    for instance, task in sorted(chosen.items()):
        target = destination / instance
        if target.exists():
            shutil.rmtree(target)
        if task.state is not None:
            shutil.copytree(task.state, target, symlinks=True)
            sources[instance] = "test environment"
            continue
        entries = parse_tree(task.tree)
        if not entries:
            continue
        target.mkdir(parents=True)
        for relative, is_dir in entries:
            path = target / relative
            if is_dir:
                path.mkdir(parents=True, exist_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(f"placeholder for {instance}/{relative}\n")
        sources[instance] = "tree listing"
    return sources


def main(argv: list[str] | None = None) -> int:
    """``python -m toolatlas.evaluation.mcpmark``: list the development tasks, lay out their directories."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--mcpmark", help=f"an MCPMark checkout (default: ${CHECKOUT_ENV})")
    parser.add_argument("--test-root", help=f"its filesystem test environments (default: ${TEST_ROOT_ENV}, "
                                            "else <checkout>/test_environments)")
    parser.add_argument("--states", default=".toolatlas/mcpmark/filesystem",
                        help="where to lay out the instances' initial directories "
                             "(configs/mcpmark.toml reads them here)")
    args = parser.parse_args(argv)
    tasks = discover(args.mcpmark, test_root=args.test_root)
    ready, unavailable = evaluation_tasks(tasks)
    for task in ready:
        print(f"available    {task.id}")
    for item in unavailable:
        print(f"unavailable  {item.key}: {'; '.join(item.reasons)}")
    for instance, source in materialise_states(tasks, args.states).items():
        print(f"state        {instance}: {source} → {Path(args.states) / instance}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
