"""What every runtime kind shares: the resolved runtime, the install marker, the lock, subprocesses.

A runtime lives in one folder under ``<home>/runtimes`` whose name is derived from everything
that changes what gets installed, so a changed spec is a different folder. The folder counts as
installed only when it holds the marker file ``.toolatlas-runtime.json`` and the marker's
``identity`` equals the spec's; the marker is written last (atomically), so a half-finished
install is never mistaken for a complete one::

    runtimes/npm/modelcontextprotocol+server-memory@2026.8.31/      complete (has the marker)
    runtimes/npm/modelcontextprotocol+server-memory@2026.8.31.tmp-…  being built, renamed into place
    runtimes/npm/.modelcontextprotocol+server-memory@2026.8.31.lock  flock held while installing

Kinds whose result can move (npm prefixes) are built in a temporary sibling and renamed into
place; kinds whose result cannot (venvs embed their own path in every script) are built in
place under the lock, with the marker as the only sign of completion. Either way, a folder
without a valid marker is wiped and built again.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
from pydantic import Field

from toolatlas.errors import RuntimeInstallError
from toolatlas.models import Frozen, utcnow

__all__ = [
    "INSTALL_LOCK_TIMEOUT_S",
    "MARKER_NAME",
    "InstallTarget",
    "ResolvedRuntime",
    "ToolRun",
    "locate_command",
    "not_installed",
    "output_tail",
    "prepend_path",
    "provision",
    "read_marker",
    "run_tool",
]

log = structlog.get_logger(__name__)

MARKER_NAME = ".toolatlas-runtime.json"
MARKER_FORMAT = 1
INSTALL_LOCK_TIMEOUT_S = 1800.0
"""How long an install waits for another process installing the same runtime."""
_LOCK_POLL_S = 0.2
_TAIL_LINES = 25
_NOISE_PREFIXES = ("WARNING: Location '",)
"""pip lines about unreachable extra index locations: machine noise, not the cause of a failure."""


class ResolvedRuntime(Frozen):
    """Where an installed server runtime is and how to launch it."""

    server: str
    kind: str
    """``npm``, ``pypi`` or ``command``."""
    command: str | None
    """Absolute path of the executable to launch; None when the transport is used as given (http)."""
    location: str | None
    """The npm prefix or the venv folder; None for ``command`` runtimes."""
    env: dict[str, str] = Field(default_factory=dict)
    """Variables to set on top of the launcher's environment (``PATH`` is complete, additions first)."""
    version: str | None = None
    """The installed package version; None for ``command`` runtimes."""


@dataclass(frozen=True)
class InstallTarget:
    """One runtime folder to provision: who asked, where it goes and what makes it what it is."""

    server: str
    kind: str
    final: Path
    identity: dict[str, Any]
    """Everything that changes what is installed; compared with the marker's copy."""

    @property
    def lock_path(self) -> Path:
        return self.final.parent / f".{self.final.name}.lock"


@dataclass(frozen=True)
class ToolRun:
    """A finished subprocess of an installer (npm, venv, pip): exit code and merged output."""

    argv: tuple[str, ...]
    returncode: int
    output: str
    seconds: float

    @property
    def tail(self) -> str:
        return output_tail(self.output)


def not_installed(server: str, what: str) -> RuntimeInstallError:
    return RuntimeInstallError(
        f"server {server!r}: {what} is not installed; run `toolatlas servers install CONFIG`"
    )


def read_marker(folder: Path, identity: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The marker of a complete install in ``folder`` (matching ``identity`` if given), else None."""
    try:
        marker = json.loads((folder / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or marker.get("format") != MARKER_FORMAT:
        return None
    if identity is not None and marker.get("identity") != dict(identity):
        return None
    return marker


def _write_marker(
    folder: Path, target: InstallTarget, details: Mapping[str, Any], seconds: float
) -> dict[str, Any]:
    marker = {
        "format": MARKER_FORMAT,
        "kind": target.kind,
        "identity": target.identity,
        "installed_by": target.server,
        "installed_at": utcnow().isoformat(),
        "seconds": round(seconds, 3),
        **details,
    }
    staging = folder / f"{MARKER_NAME}.partial"
    staging.write_text(json.dumps(marker, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(staging, folder / MARKER_NAME)
    return marker


# --- locking ---------------------------------------------------------------------------------

_thread_locks: dict[Path, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


@contextlib.contextmanager
def _install_lock(target: InstallTarget, timeout_s: float = INSTALL_LOCK_TIMEOUT_S) -> Iterator[None]:
    """Exclusive right to build ``target``: a thread lock in this process plus an flock across processes."""
    with _thread_locks_guard:
        local = _thread_locks.setdefault(target.lock_path, threading.Lock())
    deadline = time.monotonic() + timeout_s
    if not local.acquire(timeout=timeout_s):
        raise RuntimeInstallError(
            f"server {target.server!r}: timed out waiting for another install of {target.final}"
        )
    try:
        target.lock_path.parent.mkdir(parents=True, exist_ok=True)
        with open(target.lock_path, "a+b") as handle:
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise RuntimeInstallError(
                            f"server {target.server!r}: another process has been installing {target.final} "
                            f"for over {timeout_s:.0f} s (lock {target.lock_path})"
                        ) from None
                    time.sleep(_LOCK_POLL_S)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    finally:
        local.release()


# --- the staged install ----------------------------------------------------------------------


def provision(
    target: InstallTarget,
    build: Callable[[Path], Mapping[str, Any]],
    *,
    in_place: bool,
    force: bool = False,
) -> dict[str, Any]:
    """Make sure ``target`` is installed and return its marker.

    ``build(folder)`` fills an empty ``folder`` and returns details for the marker. With
    ``in_place=False`` the folder is a temporary sibling renamed into place when complete;
    with ``in_place=True`` it is the final folder itself. Nothing happens when a matching
    marker is already there (unless ``force``).
    """
    if not force and (marker := read_marker(target.final, target.identity)) is not None:
        return marker
    with _install_lock(target):
        if not force and (marker := read_marker(target.final, target.identity)) is not None:
            return marker  # another process finished it while we waited
        _clear_leftovers(target.final)
        started = time.monotonic()
        log.info(
            "runtime_install_started", server=target.server, kind=target.kind, location=str(target.final)
        )
        folder = (
            target.final
            if in_place
            else target.final.with_name(f"{target.final.name}.tmp-{os.getpid()}-{secrets.token_hex(3)}")
        )
        _remove(folder)
        folder.mkdir(parents=True)
        try:
            details = build(folder)
            marker = _write_marker(folder, target, details, time.monotonic() - started)
            if not in_place:
                _swap_into_place(folder, target.final)
        except BaseException:
            _remove(folder)
            log.warning(
                "runtime_install_failed",
                server=target.server,
                kind=target.kind,
                seconds=round(time.monotonic() - started, 3),
            )
            raise
        log.info(
            "runtime_installed",
            server=target.server,
            kind=target.kind,
            seconds=round(time.monotonic() - started, 3),
            location=str(target.final),
        )
        return marker


def _clear_leftovers(final: Path) -> None:
    """Remove what crashed installs left: temp siblings and a final folder without a valid marker."""
    for stale in final.parent.glob(f"{final.name}.tmp-*"):
        log.info("runtime_leftover_removed", path=str(stale))
        _remove(stale)
    for stale in final.parent.glob(f"{final.name}.old-*"):
        _remove(stale)
    if final.exists() and read_marker(final) is None:
        log.info("runtime_incomplete_removed", path=str(final))
        _remove(final)
    # a complete folder being rebuilt (force, or another identity) is replaced only by a finished build


def _swap_into_place(built: Path, final: Path) -> None:
    old = None
    if final.exists():
        old = final.with_name(f"{final.name}.old-{os.getpid()}-{secrets.token_hex(3)}")
        os.rename(final, old)
    os.rename(built, final)
    if old is not None:
        _remove(old)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        shutil.rmtree(path, ignore_errors=True)


# --- subprocesses ----------------------------------------------------------------------------


def run_tool(
    argv: Sequence[str | os.PathLike[str]],
    *,
    server: str,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> ToolRun:
    """Run an installer subprocess with merged output; a timeout kills its whole process group.

    A non-zero exit is returned, not raised (the caller knows what it means); a missing
    executable or a timeout raises :class:`RuntimeInstallError`.
    """
    args = tuple(os.fspath(a) for a in argv)
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
        )
    except OSError as exc:
        raise RuntimeInstallError(f"server {server!r}: cannot run {args[0]}: {exc}") from exc
    try:
        output, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        raise RuntimeInstallError(
            f"server {server!r}: `{' '.join(args[:4])} …` did not finish within {timeout_s:.0f} s\n"
            + output_tail(output.decode(errors="replace"))
        ) from None
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    return ToolRun(args, process.returncode, output.decode(errors="replace"), time.monotonic() - started)


def output_tail(text: str, lines: int = _TAIL_LINES) -> str:
    """The last ``lines`` meaningful lines of a tool's output (machine noise dropped)."""
    kept = [line for line in text.splitlines() if line.strip() and not line.startswith(_NOISE_PREFIXES)]
    return "\n".join(kept[-lines:])


def prepend_path(*folders: str | Path, base: str | None = None) -> str:
    """A ``PATH`` value with ``folders`` first, then ``base`` (default: this process's PATH)."""
    rest = base if base is not None else os.environ.get("PATH", os.defpath)
    parts = [os.fspath(f) for f in folders]
    parts += [p for p in rest.split(os.pathsep) if p and p not in parts]
    return os.pathsep.join(parts)


def locate_command(server: str, command: str, folder: Path | None = None) -> Path:
    """A transport's command as an absolute path: ``folder``'s executable of that name first, then PATH."""
    if folder is not None and "/" not in command and (folder / command).exists():
        return folder / command
    found = shutil.which(command)
    if found is None:
        where = f"neither in {folder} nor on PATH" if folder is not None else "not found on PATH"
        raise RuntimeInstallError(f"server {server!r}: command {command!r} is {where}")
    return Path(found).absolute()
