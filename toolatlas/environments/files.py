"""Environment kinds whose whole state is one file or one folder: directory, SQLite, git, JSON file.

They share one mechanism: the snapshot is a content-addressed copy of the state entry; an
instance holds a private copy at ``<slot>/state/<entry>``; freezing moves the state out and reset
copies the snapshot back. The entry itself keeps its identity: a server may hold it across calls
— a SQLite connection or a document loaded once holds the file, a server started in the folder
holds it as its working directory — and a new entry at the same path would leave the server on the
old one: writing to a file nobody digests, refused outright (SQLite: "attempt to write a readonly
database" once its file was replaced), or listing a folder that is gone. So a folder's *content*
moves out (one rename per child) and the snapshot's content is copied into the same folder; a
single file is frozen by copy and reset in place: the snapshot's bytes written into the same file,
which every open handle then reads. They differ in how a source is
turned into a snapshot and in how a state is described item by item (:meth:`_items`).

Describing a state can cost far more than reading it (a SQLite digest queries every table, a
git digest runs git three times), and an executor digests after every call. So those kinds
memoise digests by a *fingerprint*: a hash of every byte the description is computed from (the
entry, its mode bits and symlinks, and SQLite's journal files). Equal bytes give an equal
description, so a hit is exact; a state the probe left untouched is recognised at the cost of
reading it once.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import threading
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from toolatlas.environments import seeds
from toolatlas.environments.base import FrozenState, Instance, Snapshot, StateDigest, remove_tree
from toolatlas.environments.reading import (
    SPECIAL_ITEM,
    describe_entry,
    open_in_wal_mode,
    read_regular,
    tree_items,
)
from toolatlas.errors import SandboxError, SnapshotError
from toolatlas.models import canonical_json

__all__ = [
    "DirectoryEnvironment",
    "FileStateEnvironment",
    "GitEnvironment",
    "JsonFileEnvironment",
    "SqliteEnvironment",
    "tree_items",
]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _copy_entry(source: Path, dest: Path) -> None:
    """Copy a file or a whole tree, preserving modes, times and symlinks (like ``cp -a``)."""
    if source.is_dir():
        shutil.copytree(source, dest, symlinks=True)
    else:
        shutil.copy2(source, dest, follow_symlinks=False)


@functools.lru_cache(maxsize=256)
def _pristine(snapshot: str) -> tuple[bytes, int] | None:
    """The bytes and mode bits of a small single-file snapshot (None when it is larger than
    QUICK_BYTES, a folder or a symlink). Snapshots are content-addressed and never change."""
    try:
        info = os.lstat(snapshot)
        if not stat.S_ISREG(info.st_mode) or info.st_size > QUICK_BYTES:
            return None
        return Path(snapshot).read_bytes(), stat.S_IMODE(info.st_mode)
    except OSError:
        return None


DIGEST_MEMO_SIZE = 64
"""Digests an environment keeps by fingerprint (the snapshot's, and the few states probes leave)."""
QUICK_BYTES = 64 * 1024
"""A single-file state up to this size is read (for a memoised digest) or restored on the caller's thread."""


class DigestMemo:
    """A bounded, thread-safe ``fingerprint → digest`` map (least recently used goes first)."""

    def __init__(self, size: int = DIGEST_MEMO_SIZE) -> None:
        self.size = size
        self._digests: OrderedDict[str, StateDigest] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, fingerprint: str) -> StateDigest | None:
        with self._lock:
            digest = self._digests.get(fingerprint)
            if digest is not None:
                self._digests.move_to_end(fingerprint)
            return digest

    def put(self, fingerprint: str, digest: StateDigest) -> None:
        with self._lock:
            self._digests[fingerprint] = digest
            self._digests.move_to_end(fingerprint)
            while len(self._digests) > self.size:
                self._digests.popitem(last=False)


def _plain_folder(path: Path) -> bool:
    """Whether ``path`` is a folder itself (not a symlink to one)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _relative(held: Sequence[str], entry: Path) -> frozenset[str]:
    """The held files under the folder ``entry``, relative to it."""
    prefix = f"{entry}/"
    return frozenset(f.removeprefix(prefix) for f in held if f.startswith(prefix))


def _on_the_way(name: str, held: frozenset[str]) -> bool:
    """Whether the folder ``name`` (relative) holds a held file."""
    return any(f.startswith(f"{name}/") for f in held)


def _freeze_children(entry: Path, target: Path, held: frozenset[str], within: str = "") -> None:
    """Move what the folder ``entry`` holds into the new folder ``target`` (each child one rename), but a file the server
    holds open (``held``, relative to the state's root), which is copied and stays where the server has it, and a
    folder on the way to one, made anew and gone through."""
    target.mkdir()
    for child in os.scandir(entry):
        name = f"{within}{child.name}"
        if name in held and child.is_file(follow_symlinks=False):
            shutil.copy2(child.path, target / child.name, follow_symlinks=False)
        elif child.is_dir(follow_symlinks=False) and _on_the_way(name, held):
            _freeze_children(Path(child.path), target / child.name, held, f"{name}/")
        else:
            os.replace(child.path, target / child.name)
    shutil.copystat(entry, target, follow_symlinks=False)


def _reset_children(entry: Path, source: Path, held: frozenset[str], within: str = "") -> None:
    """Make the folder ``entry`` hold what ``source`` holds: each child removed and copied anew, but a file the server
    holds open that ``source`` has too, written back in place (its handle sees the snapshot's bytes), and a folder on
    the way to one, gone through."""
    os.chmod(entry, stat.S_IMODE(os.lstat(entry).st_mode) | stat.S_IRWXU)  # the server may have locked it
    kept: set[str] = set()
    for child in os.scandir(entry):
        name, original = f"{within}{child.name}", source / child.name
        if name in held and child.is_file(follow_symlinks=False) and original.is_file() and not original.is_symlink():
            kept.add(child.name)
        elif child.is_dir(follow_symlinks=False) and _on_the_way(name, held) and _plain_folder(original):
            kept.add(child.name)
        else:
            remove_tree(Path(child.path))
    for child in os.scandir(source):
        target = entry / child.name
        if child.name in kept and child.is_dir(follow_symlinks=False):
            _reset_children(target, Path(child.path), held, f"{within}{child.name}/")
        elif child.name in kept:
            with open(child.path, "rb") as pristine:
                data, mode = pristine.read(), stat.S_IMODE(os.fstat(pristine.fileno()).st_mode)
            if not _rewrite(target, data, mode):  # made read-only: replaced (the server's handle keeps the old)
                remove_tree(target)
                shutil.copy2(child.path, target, follow_symlinks=False)
            shutil.copystat(child.path, target, follow_symlinks=False)
        elif child.is_dir(follow_symlinks=False):
            shutil.copytree(child.path, target, symlinks=True)
        else:
            shutil.copy2(child.path, target, follow_symlinks=False)
    shutil.copystat(source, entry, follow_symlinks=False)


def _rewrite(entry: Path, data: bytes, mode: int) -> bool:
    """Write ``data`` over the plain file ``entry`` in place (same file: open handles see it) and
    set its mode; False when the file cannot be opened for writing (the server made it read-only)."""
    try:
        fd = os.open(entry, os.O_WRONLY | os.O_NOFOLLOW)
    except PermissionError:
        return False
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.ftruncate(fd, len(data))
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    return True


def _bytes_fingerprint(paths: list[str]) -> str:
    """Hash of the files' bytes, each tagged with its position in ``paths`` (a missing file is skipped;
    a special file or one past the read cap contributes its description, never its content)."""
    h = hashlib.sha256()
    for position, path in enumerate(paths):
        try:
            data = read_regular(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            data = f"unreadable:{exc.errno}"
        if isinstance(data, str):
            data = b"\0" + data.encode()
        h.update(f"{position}:{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


class FileStateEnvironment:
    """Shared mechanism of the file-backed kinds; subclasses set the class attributes below."""

    memoise_digests: ClassVar[bool] = True
    """Whether digests are memoised by fingerprint (not for plain trees: hashing them is the digest)."""

    def __init__(self) -> None:
        self._memo = DigestMemo()

    kind: ClassVar[str]
    entry: ClassVar[str]
    """Name of the state entry inside ``<slot>/state/``."""
    variable: ClassVar[str]
    """The placeholder that names the entry in server args (``root``, ``db_path``...)."""
    restart_on_reset: ClassVar[bool] = False

    # -- snapshot ----------------------------------------------------------------------------

    def materialise(self, source: Path | None, seed: str | None, target_dir: Path) -> Snapshot:
        target_dir.mkdir(parents=True, exist_ok=True)
        staging = target_dir / f".staging-{uuid.uuid4().hex}"
        staging.mkdir()
        try:
            built = staging / self.entry
            if seed is not None:
                seeds.generate(seed, self.kind, built)
            else:
                assert source is not None
                self._check_source(source)
                self._build_from_source(source, built)
            content_hash = _sha(canonical_json(self._items(built)).encode())
            final = target_dir / content_hash
            if not final.exists():
                os.replace(staging, final)
        finally:
            remove_tree(staging)
        path = final / self.entry
        return Snapshot(kind=self.kind, path=str(path), content_hash=content_hash)

    def _check_source(self, source: Path) -> None:
        if not source.exists():
            raise SnapshotError(f"{self.kind} snapshot source {source} does not exist")
        if not os.access(source, os.R_OK):
            raise SnapshotError(f"{self.kind} snapshot source {source} is not readable")

    def _build_from_source(self, source: Path, dest: Path) -> None:
        try:
            _copy_entry(source, dest)
        except OSError as exc:
            raise SnapshotError(f"cannot copy {self.kind} snapshot source {source}: {exc}") from exc

    # -- instances ---------------------------------------------------------------------------

    def prepare(self, snapshot: Snapshot, slot: Path) -> Instance:
        home, state = slot / "home", slot / "state"
        try:
            home.mkdir(parents=True, exist_ok=True)
            state.mkdir(parents=True, exist_ok=True)
            _copy_entry(Path(snapshot.path), state / self.entry)
        except OSError as exc:
            raise SandboxError(f"cannot prepare a {self.kind} instance in {slot}: {exc}") from exc
        variables = {"root": str(state / self.entry), "home": str(home), self.variable: str(state / self.entry)}
        return Instance(
            kind=self.kind, id=slot.name, slot=str(slot), snapshot=snapshot, variables=variables | snapshot.variables
        )

    def reset(self, instance: Instance) -> None:
        entry = instance.state / self.entry
        try:
            if not self._is_dir and self._rewritable(entry):
                with open(instance.snapshot.path, "rb") as source:
                    data, mode = source.read(), stat.S_IMODE(os.fstat(source.fileno()).st_mode)
                if _rewrite(entry, data, mode):
                    return
            if self._is_dir and _plain_folder(entry):  # the same folder: a server working in it stays there
                _reset_children(entry, Path(instance.snapshot.path), _relative(instance.held, entry))
                return
            remove_tree(entry)
            _copy_entry(Path(instance.snapshot.path), entry)
        except OSError as exc:
            raise SandboxError(f"cannot reset {self.kind} instance {instance.id}: {exc}") from exc

    def freeze(self, instance: Instance, target: Path) -> FrozenState:
        entry = instance.state / self.entry
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            if not self._is_dir and self._rewritable(entry):  # the server may hold it open: it stays
                shutil.copy2(entry, target, follow_symlinks=False)
            elif self._is_dir and _plain_folder(entry):  # its content moves out, the folder stays
                _freeze_children(entry, target, _relative(instance.held, entry))
            elif entry.exists() or entry.is_symlink():
                os.replace(entry, target)
            elif self._is_dir:
                target.mkdir()
        except OSError as exc:
            raise SandboxError(f"cannot freeze {self.kind} instance {instance.id}: {exc}") from exc
        return FrozenState(
            kind=self.kind, instance_id=instance.id, path=str(target), variables={self.variable: str(target)}
        )

    def digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest:
        path = self._entry_path(state)
        special = describe_entry(str(path), folder=self._is_dir)
        if special is not None:  # never opened: a FIFO would block, a symlink lead anywhere
            return StateDigest(kind=self.kind, items={SPECIAL_ITEM: special})
        if not path.exists():
            return StateDigest(kind=self.kind, items={})
        if not self.memoise_digests:
            return StateDigest(kind=self.kind, items=self._items(path))
        fingerprint = self._fingerprint(path)
        digest = self._memo.get(fingerprint)
        if digest is None:
            digest = StateDigest(kind=self.kind, items=self._items(path))
            self._memo.put(fingerprint, digest)
        return digest

    def quick_digest(self, state: Snapshot | Instance | FrozenState) -> StateDigest | None:
        """A memoised digest of a small single-file state (one read and one hash); else None."""
        if self._is_dir or not self.memoise_digests:
            return None
        # string paths and one stat: this runs after every probe, on the event loop
        path = os.path.join(state.slot, "state", self.entry) if isinstance(state, Instance) else state.path
        try:
            found = os.lstat(path)
        except FileNotFoundError:
            return StateDigest(kind=self.kind, items={})
        if not stat.S_ISREG(found.st_mode):
            special = describe_entry(path, folder=False)
            return StateDigest(kind=self.kind, items={SPECIAL_ITEM: special}) if special else None
        if found.st_size > QUICK_BYTES:
            return None
        return self._memo.get(_bytes_fingerprint(self._fingerprint_files(path)))

    def quick_reset(self, instance: Instance) -> bool:
        """Restore a small single-file snapshot right away from its bytes (kept in memory: a
        snapshot never changes): written into the entry in place when it is still a plain file
        (:meth:`_rewritable`), else to a sibling renamed over whatever the server left there."""
        if self._is_dir:
            return False
        pristine = _pristine(instance.snapshot.path)
        if pristine is None:
            return False
        data, mode = pristine
        entry = instance.state / self.entry
        staging = entry.with_name(f".{entry.name}.restoring")
        try:
            if self._rewritable(entry) and _rewrite(entry, data, mode):
                return True
            fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fchmod(fd, mode)
            finally:
                os.close(fd)
            os.replace(staging, entry)
        except IsADirectoryError:  # the server made a folder of it: the general reset removes trees
            staging.unlink(missing_ok=True)
            self.reset(instance)
        except OSError as exc:
            raise SandboxError(f"cannot reset {self.kind} instance {instance.id}: {exc}") from exc
        return True

    def held_open(self, instance: Instance, held: Sequence[str] = ()) -> bool:
        if self._is_dir and held:  # a held file the snapshot has is written back in place (Instance.held); one it
            snapshot = Path(instance.snapshot.path)  # has not would be removed under the server
            entry = instance.state / self.entry
            if any(not os.path.isfile(snapshot / os.path.relpath(f, entry)) for f in held):
                return True
        return open_in_wal_mode(self._entry_path(instance))  # a file is rewritten in place, but not its write-ahead log

    def _rewritable(self, entry: Path) -> bool:
        """Whether a single-file state can be reset in place: still one plain file (not a symlink,
        a folder or a second name of another file) with none of the files its engine writes beside
        it (a journal to replay over the restored bytes, a write-ahead log read with them)."""
        try:
            info = os.lstat(entry)
        except OSError:
            return False
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            return False
        return not any(os.path.lexists(p) for p in self._fingerprint_files(str(entry))[1:])

    def _entry_path(self, state: Snapshot | Instance | FrozenState) -> Path:
        return state.state / self.entry if isinstance(state, Instance) else Path(state.path)

    def discard(self, state: Instance | FrozenState) -> None:
        remove_tree(Path(state.slot) if isinstance(state, Instance) else Path(state.path))

    # -- kind-specific ---------------------------------------------------------------------------

    _is_dir: ClassVar[bool] = True

    def _items(self, path: Path) -> dict[str, str]:
        raise NotImplementedError

    def _fingerprint(self, path: Path) -> str:
        """A hash of everything :meth:`_items` reads at ``path`` (bytes, modes, symlinks)."""
        if path.is_dir() and not path.is_symlink():
            return _sha(canonical_json(tree_items(path)).encode())
        return _bytes_fingerprint(self._fingerprint_files(str(path)))

    def _fingerprint_files(self, path: str) -> list[str]:
        """The files a single-file state is read with (their bytes are its fingerprint)."""
        return [path]


class DirectoryEnvironment(FileStateEnvironment):
    """A folder tree (the filesystem server's allowed directory)."""

    kind = "directory"
    entry = "root"
    variable = "root"
    memoise_digests = False

    def _check_source(self, source: Path) -> None:
        super()._check_source(source)
        if not source.is_dir():
            raise SnapshotError(f"directory snapshot source {source} is not a folder")

    def _items(self, path: Path) -> dict[str, str]:
        return tree_items(path)


class SqliteEnvironment(FileStateEnvironment):
    """One SQLite database file; a ``.sql`` source is executed into a fresh database."""

    kind = "sqlite"
    entry = "db.sqlite"
    variable = "db_path"
    _is_dir = False

    def _fingerprint_files(self, path: str) -> list[str]:
        """The database file and the journals SQLite reads with it (a WAL holds committed rows)."""
        return [path, path + "-wal", path + "-journal"]

    def _build_from_source(self, source: Path, dest: Path) -> None:
        if source.suffix.lower() == ".sql":
            try:
                script = source.read_text(encoding="utf-8")
                with sqlite3.connect(dest) as conn:
                    conn.executescript(script)
                conn.close()
            except (OSError, UnicodeDecodeError, sqlite3.Error) as exc:
                raise SnapshotError(f"cannot build SQLite snapshot from {source}: {exc}") from exc
            return
        try:
            with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(dest) as dst:
                src.backup(dst)
            src.close()
            dst.close()
        except sqlite3.Error as exc:
            raise SnapshotError(f"{source} is not a readable SQLite database: {exc}") from exc

    def _items(self, path: Path) -> dict[str, str]:
        """Schema entries and rows: ``schema:<name>`` and ``<table>#<rowid>`` (or a row hash without rowid)."""
        items: dict[str, str] = {}
        for companion in self._fingerprint_files(str(path))[1:]:
            special = describe_entry(companion, folder=False)
            if special is not None:  # SQLite would open it (and wait on a FIFO)
                return {f"{SPECIAL_ITEM}{companion[len(str(path)):]}": special}
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        except sqlite3.Error as exc:
            return {"<unreadable>": str(exc)}
        try:
            schema = conn.execute(
                "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
            ).fetchall()
            for kind, name, sql in schema:
                items[f"schema:{kind}:{name}"] = _sha((sql or "").encode())
            for kind, name, sql in schema:
                if kind != "table":
                    continue
                quoted = '"' + name.replace('"', '""') + '"'
                without_rowid = "WITHOUT ROWID" in (sql or "").upper()
                if without_rowid:
                    for row in conn.execute(f"SELECT * FROM {quoted}"):
                        row_hash = _sha(canonical_json(list(row)).encode())
                        items[f"{name}#{row_hash}"] = row_hash
                else:
                    for row in conn.execute(f"SELECT rowid, * FROM {quoted}"):
                        items[f"{name}#{row[0]}"] = _sha(canonical_json(list(row[1:])).encode())
        except sqlite3.Error as exc:
            items["<unreadable>"] = str(exc)
        finally:
            conn.close()
        return items


class GitEnvironment(FileStateEnvironment):
    """A git repository: refs, HEAD, the index and the work tree are all part of the state."""

    kind = "git"
    entry = "repo"
    variable = "repo"

    def _check_source(self, source: Path) -> None:
        super()._check_source(source)
        if not (source / ".git").exists():
            raise SnapshotError(f"git snapshot source {source} is not a git work tree (no .git)")

    def _items(self, path: Path) -> dict[str, str]:
        items = {f"worktree:{k}": v for k, v in tree_items(path, exclude=frozenset({".git"})).items()}
        if not (path / ".git").exists():
            return items
        refs = self._git(path, "for-each-ref", "--format=%(refname) %(objectname)")
        for line in refs.splitlines():
            name, _, sha = line.partition(" ")
            items[f"ref:{name}"] = sha
        head = self._git(path, "symbolic-ref", "-q", "HEAD", check=False).strip()
        items["HEAD"] = head or self._git(path, "rev-parse", "HEAD", check=False).strip()
        for line in self._git(path, "ls-files", "--stage").splitlines():
            meta, _, file_name = line.partition("\t")
            items[f"index:{file_name}"] = meta
        items.update(self._unstaged(path))
        return items

    def _unstaged(self, repo: Path) -> dict[str, str]:
        """``unstaged:<path>`` for every tracked file whose work tree differs from the index (``M``
        modified, ``D`` deleted): whether staging a file changes anything depends on it, and the
        index and work-tree items alone cannot tell (their values are not comparable)."""
        status = self._git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=no", check=False)
        items: dict[str, str] = {}
        records = iter(status.split("\0"))
        for record in records:
            if len(record) < 4:
                continue
            if record[0] in "RC":  # a rename or copy in the index: the next record is its source
                next(records, None)
            if record[1] not in " ?!":
                items[f"unstaged:{record[3:]}"] = record[1]
        return items

    @staticmethod
    def _git(repo: Path, *args: str, check: bool = True) -> str:
        result = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
            timeout=30,
        )
        if check and result.returncode != 0:
            raise SandboxError(f"git {' '.join(args)} failed in {repo}: {result.stderr.strip()}")
        return result.stdout


def _record_key(record: object) -> str:
    """A readable key for a JSON-lines record: ``entity:Ada``, ``relation:Ada>works_at>Acme``, or its hash."""
    if isinstance(record, dict):
        kind = str(record.get("type", "record"))
        if "name" in record:
            return f"{kind}:{record['name']}"
        if "from" in record and "to" in record:
            return f"{kind}:{record['from']}>{record.get('relationType', '')}>{record['to']}"
    return f"record:{_sha(canonical_json(record).encode())}"


class JsonFileEnvironment(FileStateEnvironment):
    """A service whose state is one JSON document or a JSON-lines file (e.g. the memory server)."""

    kind = "json_file"
    entry = "state.json"
    variable = "file"
    _is_dir = False

    def __init__(self, filename: str = "state.json") -> None:
        super().__init__()
        self.entry = filename  # type: ignore[misc]  # a per-instance override of the class default

    def _items(self, path: Path) -> dict[str, str]:
        """Top-level keys of a JSON object, items of a JSON array, records of JSON lines (by name), else lines."""
        raw = read_regular(str(path))
        if isinstance(raw, str):  # past the read cap (special files never get here)
            return {SPECIAL_ITEM if raw.startswith("special") else "<large file>": raw}
        text = raw.decode("utf-8", errors="replace")
        try:
            document = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError:
            document = None
        if isinstance(document, dict):
            return {f"key:{k}": _sha(canonical_json(v).encode()) for k, v in document.items()}
        if isinstance(document, list):
            return {f"item:{_sha(canonical_json(v).encode())}": "1" for v in document}
        items: dict[str, str] = {}
        for number, line in enumerate(text.splitlines()):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                items[f"line:{number}"] = _sha(line.encode())
                continue
            key = _record_key(record)
            while key in items:  # the same record twice is two items
                key += "+"
            items[key] = _sha(canonical_json(record).encode())
        return items
