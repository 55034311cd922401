"""The stateless kind (``none``) and the generic kind driven by user commands (``command``)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from toolatlas.config.servers import CommandEnv
from toolatlas.environments.base import FrozenState, Instance, Snapshot, StateDigest, remove_tree, render_template
from toolatlas.environments.reading import open_in_wal_mode, tree_items
from toolatlas.errors import SandboxError, SnapshotError

__all__ = ["CommandEnvironment", "NoEnvironment"]


class NoEnvironment:
    """No state: the server gets an empty scratch folder as ``${root}``; reset empties it."""

    kind: ClassVar[str] = "none"
    restart_on_reset: ClassVar[bool] = False

    def materialise(self, source: Path | None, seed: str | None, target_dir: Path) -> Snapshot:
        return Snapshot(kind=self.kind, path="", content_hash="empty")

    def prepare(self, snapshot: Snapshot, slot: Path) -> Instance:
        root, home = slot / "state" / "root", slot / "home"
        root.mkdir(parents=True, exist_ok=True)
        home.mkdir(parents=True, exist_ok=True)
        return Instance(
            kind=self.kind, id=slot.name, slot=str(slot), snapshot=snapshot, variables={"root": str(root), "home": str(home)}
        )

    def held_open(self, instance: Instance, held: Sequence[str] = ()) -> bool:
        return bool(held)  # a file of the scratch folder a reset empties

    def reset(self, instance: Instance) -> None:
        root = instance.state / "root"
        remove_tree(root)
        root.mkdir(parents=True)

    def freeze(self, instance: Instance, target: Path) -> FrozenState:
        root = instance.state / "root"
        target.parent.mkdir(parents=True, exist_ok=True)
        if root.exists():
            os.replace(root, target)
        else:
            target.mkdir()
        return FrozenState(kind=self.kind, instance_id=instance.id, path=str(target), variables={"root": str(target)})

    def digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest:
        if isinstance(state, Snapshot):
            return StateDigest(kind=self.kind, items={})
        path = state.state / "root" if isinstance(state, Instance) else Path(state.path)
        return StateDigest(kind=self.kind, items=tree_items(path) if path.exists() else {})

    def quick_digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest | None:
        """The snapshot's and an untouched (empty) folder's digest: nothing; else None."""
        if isinstance(state, Snapshot) or _is_empty(state.state / "root" if isinstance(state, Instance) else Path(state.path)):
            return StateDigest(kind=self.kind, items={})
        return None

    def quick_reset(self, instance: Instance) -> bool:
        """An empty scratch folder is already reset."""
        return _is_empty(instance.state / "root")

    def discard(self, state: Instance | FrozenState) -> None:
        remove_tree(Path(state.slot) if isinstance(state, Instance) else Path(state.path))


def _placeholders(text: str, variables: dict[str, str], root: Path) -> str:
    """``text`` with the instance's concrete folders written as ``${root}`` and ``${home}``."""
    folders = (("root", str(root)), ("root", variables.get("root", "")), ("home", variables.get("home", "")))
    for name, value in folders:
        if value and len(value) > 1 and value in text:
            text = text.replace(value, "${" + name + "}")
    return text


def _is_empty(folder: Path) -> bool:
    """True for an existing folder with nothing in it."""
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is None
    except (FileNotFoundError, NotADirectoryError):
        return False


class CommandEnvironment:
    """State prepared, described and released by user commands (``sh -c``, placeholders filled).

    ``prepare`` gets ``${snapshot}`` (the configured path) and ``${root}`` (an empty folder to
    fill); reset re-runs it on an emptied ``${root}``. ``digest`` prints ``key<TAB>value`` lines;
    without it the tree under ``${root}`` is hashed.

    The snapshot is only a path the commands read, so its digest is the digest of a state freshly
    prepared from it (in a scratch folder, once per snapshot): what every reset restores, and what a
    verifier compares a tool's post-state with. The instance's own paths in the digest command's
    output are written back as placeholders, so two instances of the same state digest alike.
    """

    kind: ClassVar[str] = "command"
    restart_on_reset: ClassVar[bool] = False

    def __init__(self, spec: CommandEnv, base_dir: Path) -> None:
        self.spec = spec
        self.base_dir = base_dir
        self._snapshot_digests: dict[tuple[str, str], StateDigest] = {}
        self._lock = threading.Lock()

    def _run(self, command: str, variables: dict[str, str], field: str) -> str:
        script = render_template(command, variables, field=f"environment.{field}")
        try:
            result = subprocess.run(
                ["sh", "-c", script],
                capture_output=True,
                text=True,
                timeout=self.spec.timeout_s,
                cwd=variables.get("home") or None,
            )
        except subprocess.TimeoutExpired as exc:
            raise SandboxError(f"environment.{field} command timed out after {self.spec.timeout_s}s: {script}") from exc
        if result.returncode != 0:
            raise SandboxError(
                f"environment.{field} command failed (exit {result.returncode}): {script}\n{result.stderr.strip()}"
            )
        return result.stdout

    def materialise(self, source: Path | None, seed: str | None, target_dir: Path) -> Snapshot:
        snapshot = self.spec.snapshot
        path = str((self.base_dir / snapshot).resolve()) if snapshot else ""
        if path and not os.path.exists(path):
            raise SnapshotError(f"command snapshot {path} does not exist")
        content_hash = hashlib.sha256(path.encode()).hexdigest()[:32]
        return Snapshot(kind=self.kind, path=path, content_hash=content_hash, variables={"snapshot": path})

    def prepare(self, snapshot: Snapshot, slot: Path) -> Instance:
        root, home = slot / "state" / "root", slot / "home"
        root.mkdir(parents=True, exist_ok=True)
        home.mkdir(parents=True, exist_ok=True)
        variables = {"root": str(root), "home": str(home), "snapshot": snapshot.path}
        self._run(self.spec.prepare, variables, "prepare")
        return Instance(kind=self.kind, id=slot.name, slot=str(slot), snapshot=snapshot, variables=variables)

    def held_open(self, instance: Instance, held: Sequence[str] = ()) -> bool:
        return bool(held) or open_in_wal_mode(instance.state / "root")  # a reset removes the folder's files

    def reset(self, instance: Instance) -> None:
        root = instance.state / "root"
        remove_tree(root)
        root.mkdir(parents=True)
        self._run(self.spec.prepare, dict(instance.variables), "prepare")

    def freeze(self, instance: Instance, target: Path) -> FrozenState:
        root = instance.state / "root"
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(root, target)
        variables = {**instance.variables, "root": str(target)}
        return FrozenState(kind=self.kind, instance_id=instance.id, path=str(target), variables=variables)

    def digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest:
        if isinstance(state, Snapshot):
            return self._snapshot_digest(state)
        variables = dict(state.variables)
        path = Path(variables["root"]) if isinstance(state, Instance) else Path(state.path)
        if self.spec.digest:
            output = self._run(self.spec.digest, {**variables, "root": str(path)}, "digest")
            items = {}
            for line in output.splitlines():
                key, sep, value = line.partition("\t")
                if key:
                    shown = _placeholders(value, variables, path) if sep else ""
                    items[_placeholders(key, variables, path)] = shown
            return StateDigest(kind=self.kind, items=items)
        return StateDigest(kind=self.kind, items=tree_items(path) if path.exists() else {})

    def _snapshot_digest(self, snapshot: Snapshot) -> StateDigest:
        """The digest of a state prepared from ``snapshot`` in a scratch slot (then discarded)."""
        key = (snapshot.path, snapshot.content_hash)
        with self._lock:
            known = self._snapshot_digests.get(key)
            if known is not None:
                return known
            slot = Path(tempfile.mkdtemp(prefix="toolatlas-snapshot-"))
            instance = None
            try:
                instance = self.prepare(snapshot, slot / "instance")
                digest = self.digest(instance)
            finally:
                if instance is not None:
                    self.discard(instance)
                remove_tree(slot)
            self._snapshot_digests[key] = digest
            return digest

    def quick_digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest | None:
        return None  # user commands: always off the caller's thread

    def quick_reset(self, instance: Instance) -> bool:
        return False

    def discard(self, state: Instance | FrozenState) -> None:
        if self.spec.discard:
            root = state.variables.get("root", "") if isinstance(state, Instance) else state.path
            self._run(self.spec.discard, {**state.variables, "root": root}, "discard")
        remove_tree(Path(state.slot) if isinstance(state, Instance) else Path(state.path))
