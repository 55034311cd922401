"""Environments with snapshot and reset: the Protocol and the typed handles it deals in.

An environment kind turns a *snapshot source* (a path or a seed) into a content-addressed
:class:`Snapshot`, prepares private :class:`Instance` s from it that an MCP server is bound to,
restores an instance to the snapshot in place (:meth:`Environment.reset`), freezes the state a
server left behind into a :class:`FrozenState` for verifiers, and describes any of these states
as a :class:`StateDigest` so that verifiers can diff before and after.

Instance layout on disk (every kind)::

    <slot>/state/   what the snapshot restores (a tree, a .db file, a repo, a JSON file)
    <slot>/home/    HOME, TMPDIR and working directory of the server process: never snapshotted

The server is started with its working directory in ``home/``, never inside ``state/``, so
freezing (which moves ``state/`` away) never pulls the ground from under the process.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import Field

from toolatlas.errors import ConfigError
from toolatlas.models import Frozen

__all__ = [
    "GENERATED_VALUES",
    "Environment",
    "FrozenState",
    "Instance",
    "Snapshot",
    "StateDiff",
    "StateDigest",
    "render_template",
    "remove_tree",
]


class Snapshot(Frozen):
    """An immutable, materialised starting state, addressed by the hash of its content."""

    kind: str
    path: str
    """Where the materialised snapshot lives (a folder, a file, or for PostgreSQL a template database name)."""
    content_hash: str
    variables: dict[str, str] = Field(default_factory=dict)


class Instance(Frozen):
    """A private, mutable copy of a snapshot that one server process is bound to."""

    kind: str
    id: str
    slot: str
    """The instance folder: ``state/`` and ``home/`` live under it."""
    snapshot: Snapshot
    variables: dict[str, str]
    """Placeholder values for the server's args/env: ``root``, ``home`` and the kind's own (``db_path``, ...)."""
    held: tuple[str, ...] = ()
    """Files of the state its server holds open (absolute paths; the sandbox reads them from the running server): a
    folder's reset and freeze keep these where they are, written back in place, so the server's handle sees the
    reset."""

    @property
    def home(self) -> Path:
        return Path(self.slot) / "home"

    @property
    def state(self) -> Path:
        return Path(self.slot) / "state"


class FrozenState(Frozen):
    """The state a server left behind, moved out of the instance so the instance can be reset at once."""

    kind: str
    instance_id: str
    path: str
    variables: dict[str, str] = Field(default_factory=dict)


class StateDiff(Frozen):
    """What differs between two digests, by item key."""

    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def summary(self, limit: int = 5) -> str:
        if self.empty:
            return "no change"
        parts = []
        for label, keys in (("added", self.added), ("removed", self.removed), ("changed", self.changed)):
            if keys:
                shown = ", ".join(keys[:limit]) + (f", +{len(keys) - limit} more" if len(keys) > limit else "")
                parts.append(f"{label}: {shown}")
        return "; ".join(parts)


class StateDigest(Frozen):
    """A state as ``item key → content hash`` (files, table rows, refs, JSON records...)."""

    kind: str
    items: dict[str, str]

    def diff(self, after: StateDigest) -> StateDiff:
        before_keys, after_keys = set(self.items), set(after.items)
        return StateDiff(
            added=sorted(after_keys - before_keys),
            removed=sorted(before_keys - after_keys),
            changed=sorted(k for k in before_keys & after_keys if self.items[k] != after.items[k]),
        )


@runtime_checkable
class Environment(Protocol):
    """A kind of sandboxed state an MCP server works against, with snapshot and reset."""

    kind: ClassVar[str]
    restart_on_reset: ClassVar[bool]
    """Whether a server bound to an instance must be restarted after a reset (it holds connections)."""

    def held_open(self, instance: Instance, held: Sequence[str] = ()) -> bool:
        """Whether a server holds the instance's state open where a reset cannot reach it (a SQLite database in WAL
        mode; of ``held``, the files of the instance the server has open, one its reset cannot write back in place):
        then it is restarted after each reset, as :attr:`restart_on_reset` would."""
        ...

    def materialise(self, source: Path | None, seed: str | None, target_dir: Path) -> Snapshot:
        """Build the snapshot from a path or a named seed under ``target_dir`` (idempotent)."""
        ...

    def prepare(self, snapshot: Snapshot, slot: Path) -> Instance:
        """Create a private instance of ``snapshot`` in the empty folder ``slot``."""
        ...

    def reset(self, instance: Instance) -> None:
        """Restore the instance's state to its snapshot, in place (same paths, same names)."""
        ...

    def freeze(self, instance: Instance, target: Path) -> FrozenState:
        """Move the instance's current state to ``target`` for inspection; the instance is then empty until reset."""
        ...

    def digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest:
        """Describe a state item by item."""
        ...

    def quick_digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest | None:
        """The state's digest if it costs next to nothing (a small state seen before, an empty
        folder), so a caller on an event loop need not hand it to a worker thread; else None."""
        ...

    def quick_reset(self, instance: Instance) -> bool:
        """Reset the instance now if that costs next to nothing (a small file); False when the
        caller should run :meth:`reset` in a worker thread."""
        ...

    def discard(self, state: Instance | FrozenState) -> None:
        """Delete an instance or a frozen state and everything it holds (never the snapshot)."""
        ...


_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

GENERATED_VALUES: dict[str, str] = {"oversized_text": "x" * 100_000}
"""Placeholders every instance fills the same way: values too large to carry in a probe or an atlas
record, made when a call is rendered. ``${oversized_text}`` is the 100 KB string of a boundary probe:
carried literally, it made a probe's id, every entry it supports (example and evidence arguments),
each checkpoint and each stored point 100 KB larger."""


def render_template(text: str, variables: dict[str, str], *, field: str = "", keep_unknown: bool = False) -> str:
    """Fill ``${name}`` placeholders from ``variables``, then :data:`GENERATED_VALUES`; an unknown
    one is a :class:`ConfigError` naming ``field`` (``keep_unknown``: left as it is — a record's
    instance placeholders, when only the generated values matter).

    Only the braced form is a placeholder, so shell text such as ``$(cmd)`` or ``$HOME`` in a
    command environment passes through untouched.
    """

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        value = variables.get(name, GENERATED_VALUES.get(name))
        if value is None and keep_unknown:
            return match.group(0)
        if value is None:
            known = ", ".join(f"${{{k}}}" for k in sorted({*variables, *GENERATED_VALUES}))
            raise ConfigError(None, [(field, f"unknown placeholder ${{{name}}}; known here: {known}")])
        return value

    return _PLACEHOLDER.sub(fill, text)


def render_value(value: Any, variables: dict[str, str], *, field: str = "", keep_unknown: bool = False) -> Any:
    """Fill placeholders in every string of a JSON-like value (for smoke-call arguments;
    ``keep_unknown``: see :func:`render_template`)."""
    if isinstance(value, str):
        return render_template(value, variables, field=field, keep_unknown=keep_unknown)
    if isinstance(value, list):
        return [render_value(v, variables, field=f"{field}[{i}]", keep_unknown=keep_unknown)
                for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: render_value(v, variables, field=f"{field}.{k}", keep_unknown=keep_unknown) for k, v in value.items()}
    return value


def remove_tree(path: Path) -> None:
    """Delete a file or folder if it exists, including entries a server made unreadable or read-only
    (a special file is unlinked, never opened)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):  # a file, symlink, FIFO, socket or device: never opened
        path.unlink(missing_ok=True)
        return
    try:
        shutil.rmtree(path)
    except OSError:
        os.chmod(path, 0o700)
        for folder, dirs, _files in os.walk(path):
            for name in dirs:
                os.chmod(os.path.join(folder, name), 0o700)
        shutil.rmtree(path)
