"""Reading a state a server left behind without ever blocking on it or reading it without bound.

A state folder is the server's to change: it can turn its state file into a FIFO (an ``open`` waits
for a writer forever), a symlink to ``/dev/zero`` or to a file outside the instance (a read never
ends, or shows what the server was not allowed to see), or fill it with huge files. Every digest
reads through here:

- an entry is looked at with ``lstat`` and opened with ``O_NOFOLLOW | O_NONBLOCK``, then checked
  again on the open descriptor: only regular files are read; a symlink is described by its target
  text, never followed; a FIFO, socket or device is described as a *special file* of its kind;
- a file is hashed up to :data:`FILE_HASH_BYTES` (its size is part of the description, so growth
  past the cap still shows) and parsed only up to :data:`PARSE_BYTES`;
- a tree walk stops at :data:`TREE_ENTRIES` entries or when its deadline passes, and says so in
  an item of its own (an incomplete description differs from the snapshot's: "changed", never
  "unchanged" by omission).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from collections.abc import Iterator

__all__ = [
    "DIGEST_DEADLINE_S",
    "FILE_HASH_BYTES",
    "INCOMPLETE_ITEM",
    "PARSE_BYTES",
    "SPECIAL_ITEM",
    "TREE_ENTRIES",
    "describe_entry",
    "file_hash",
    "open_in_wal_mode",
    "read_regular",
    "special_file",
    "tree_items",
]

FILE_HASH_BYTES = 256 << 20
"""Bytes of one file a digest hashes; beyond them only the size tells."""
PARSE_BYTES = 32 << 20
"""Bytes of a single-file state read into memory to be described record by record."""
TREE_ENTRIES = 100_000
"""Entries of a tree a digest describes before it stops."""
DIGEST_DEADLINE_S = 60.0
"""Seconds one digest may take; past them it stops and records that it is incomplete."""
SPECIAL_ITEM = "<special file>"
"""The item of a state whose entry is not a regular file (or folder, for tree kinds)."""
INCOMPLETE_ITEM = "<digest incomplete>"
SQLITE_MAGIC = b"SQLite format 3\x00"
SQLITE_LOGS = ("-wal", "-journal")
"""Files SQLite writes beside an open database that hold part of its content: a write-ahead log holds committed
pages not yet copied into the file, a rollback journal the pages a transaction is changing."""
SQLITE_INDEX = "-shm"
"""The shared-memory index SQLite keeps beside a database in WAL mode: derived from the log, never content."""

_KINDS = (
    (stat.S_ISFIFO, "fifo"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)


def special_file(mode: int, path: str = "") -> str | None:
    """``special file: <kind>`` for anything a digest must not open (a symlink names its target);
    None for a regular file or a folder."""
    if stat.S_ISLNK(mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"special file: symlink -> {target}"
    for test, kind in _KINDS:
        if test(mode):
            return f"special file: {kind}"
    return None


class _NotRegular(Exception):
    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


def _open_regular(path: str) -> tuple[int, os.stat_result]:
    """An open descriptor on a regular file, never following a symlink and never waiting on a FIFO
    (nor opening a device: its type is looked at first, and again on the descriptor)."""
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise _NotRegular(special_file(info.st_mode, path) or "special file: folder")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):
            info = os.lstat(path)
            raise _NotRegular(special_file(info.st_mode, path) or f"unreadable:{exc.errno}") from exc
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise _NotRegular(special_file(info.st_mode, path) or "special file: not a regular file")
    return fd, info


def read_regular(path: str, limit: int = PARSE_BYTES) -> bytes | str:
    """The bytes of a regular file (at most ``limit``: a larger one is described, not read);
    otherwise the description of what is there. Raises FileNotFoundError for nothing there."""
    try:
        fd, info = _open_regular(path)
    except _NotRegular as exc:
        return exc.description
    try:
        if info.st_size > limit:
            return f"large file: {info.st_size} bytes, {_hash_fd(fd)}"
        data = b"".join(_chunks(fd, limit + 1))
        if len(data) > limit:  # grew while being read
            return f"large file: over {limit} bytes"
        return data
    finally:
        os.close(fd)


def _hash_fd(fd: int) -> str:
    h = hashlib.sha256()
    for chunk in _chunks(fd, FILE_HASH_BYTES):
        h.update(chunk)
    return h.hexdigest()[:32]


def _chunks(fd: int, limit: int) -> Iterator[bytes]:
    """What ``fd`` holds from where it stands, up to ``limit`` bytes, a MiB at a time."""
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return
        yield chunk
        left -= len(chunk)


def file_hash(path: str) -> str:
    """``<hash><x|->`` of a regular file's bytes (up to the cap, plus its size past it) and executable
    bit; the description of anything else."""
    try:
        fd, info = _open_regular(path)
    except _NotRegular as exc:
        return exc.description
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    try:
        digest = _hash_fd(fd)
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    finally:
        os.close(fd)
    if info.st_size > FILE_HASH_BYTES:
        digest += f"+{info.st_size}"
    return digest + ("x" if os.access(path, os.X_OK) else "-")


def describe_entry(path: str, *, folder: bool) -> str | None:
    """What a state entry is when it is not what its kind expects (a regular file, or a folder
    for ``folder``): its special-file description; None when it is the expected type or absent."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if folder and stat.S_ISDIR(info.st_mode):
        return None
    if not folder and stat.S_ISREG(info.st_mode):
        return None
    if stat.S_ISDIR(info.st_mode):
        return "special file: folder"
    if stat.S_ISREG(info.st_mode):
        return "special file: regular file"
    return special_file(info.st_mode, path)


def _sqlite_databases(folder: str, files: list[str], sides: tuple[str, ...] = (*SQLITE_LOGS, SQLITE_INDEX)) -> set[str]:
    """The SQLite databases among ``files`` that have one of the ``sides`` files beside them (a log or the index by
    default; read by their header)."""
    names = set(files)
    found: set[str] = set()
    for name in names:
        base = next((name[: -len(s)] for s in sides if name.endswith(s)), None)
        if base is None or base not in names or base in found:
            continue
        if _header(os.path.join(folder, base), len(SQLITE_MAGIC)) == SQLITE_MAGIC:
            found.add(base)
    return found


def _header(path: str, size: int) -> bytes:
    """The first ``size`` bytes of a regular file (nothing for anything else)."""
    try:
        fd, _info = _open_regular(path)
    except (_NotRegular, OSError):
        return b""
    try:
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _beside(name: str, databases: set[str]) -> str | None:
    """The suffix ``name`` has as a side file of one of ``databases`` (``-wal`` of ``memory.db-wal``), or None."""
    return next((s for s in (*SQLITE_LOGS, SQLITE_INDEX) if name.endswith(s) and name[: -len(s)] in databases), None)


def _logs(path: str) -> str:
    """What the logs beside the database at ``path`` add to its description: the hash of each that holds
    anything. A database opened (an empty log and an index appear) reads as unchanged; a write kept in its log
    changes the database, not a file of its own."""
    out = ""
    for suffix in SQLITE_LOGS:
        try:
            info = os.lstat(path + suffix)
        except FileNotFoundError:
            continue
        if not (stat.S_ISREG(info.st_mode) and info.st_size == 0):  # a FIFO or a link in its place is told
            out += f" {suffix[1:]}:{file_hash(path + suffix)}"
    return out


WAL_SCAN_ENTRIES = 10_000
"""Entries of a tree looked through for a database held open in WAL mode before the look stops."""
_WAL_MARKS = (SQLITE_LOGS[0], SQLITE_INDEX)
"""The files beside a database held open in WAL mode: its write-ahead log and its shared-memory index."""


def open_in_wal_mode(path: str | os.PathLike[str]) -> bool:
    """Whether a SQLite database at ``path`` (the file, or any file in the folder) is held open in WAL mode: its
    write-ahead log lies beside it (with its shared-memory index, or none in exclusive locking mode); SQLite
    removes both when the last connection closes. A process holding it so reads through the log, its index and its
    own page cache, so bytes written back into the file under it (a reset in place) are not what it sees next."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        folder, name = os.path.split(path)
        present = [name, *(name + m for m in _WAL_MARKS if os.path.exists(path + m))]
        return bool(_sqlite_databases(folder, present, _WAL_MARKS))
    seen = 0
    for folder, dirs, files in os.walk(path):
        dirs.sort()
        if _sqlite_databases(folder, files, _WAL_MARKS):
            return True
        seen += len(files) + len(dirs)
        if seen > WAL_SCAN_ENTRIES:
            return False
    return False


def tree_items(
    root: str | os.PathLike[str],
    *,
    exclude: frozenset[str] = frozenset(),
    deadline_s: float = DIGEST_DEADLINE_S,
    max_entries: int = TREE_ENTRIES,
) -> dict[str, str]:
    """``relative path → description`` for every entry under ``root``.

    Files hash their bytes and executable bit, symlinks their target (never followed), folders
    just exist, FIFOs, sockets and devices are special files (never opened). A SQLite database is one
    item with the logs SQLite keeps beside it while it is open (:data:`SQLITE_LOGS`; its index
    :data:`SQLITE_INDEX` is left out): the folder of a server holding a database open holds the same
    content as the one it started with until something is written.
    """
    items: dict[str, str] = {}
    root = os.fspath(root)
    stop = time.monotonic() + deadline_s
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in exclude)
        rel_folder = os.path.relpath(folder, root)
        for name in dirs:
            path = os.path.join(folder, name)
            rel = os.path.normpath(os.path.join(rel_folder, name))
            items[rel + "/"] = "link:" + os.readlink(path) if os.path.islink(path) else "dir"
        databases = _sqlite_databases(folder, files)
        for name in sorted(files):
            path = os.path.join(folder, name)
            rel = os.path.normpath(os.path.join(rel_folder, name))
            if _beside(name, databases) is not None:
                continue  # described with its database
            if os.path.islink(path):
                items[rel] = "link:" + os.readlink(path)
            else:
                items[rel] = file_hash(path) + (_logs(path) if name in databases else "")
        if len(items) >= max_entries or time.monotonic() > stop:
            why = f"more than {max_entries} entries" if len(items) >= max_entries else f"over {deadline_s:g}s"
            items[INCOMPLETE_ITEM] = why
            break
    return items
