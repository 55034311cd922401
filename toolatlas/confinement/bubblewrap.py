"""The server sandbox built with bubblewrap (``bwrap``), the kernel's namespaces and limits.

One confined server is started as::

    sh -c LAUNCHER  <pids cgroup> <max> <seccomp file>   prlimit --as --cpu --nofile --fsize --core
        bwrap --unshare-user --disable-userns --cap-drop ALL --unshare-pid --unshare-ipc --unshare-uts
              --unshare-cgroup-try [--unshare-net] --die-with-parent --new-session --seccomp 3
              --proc /proc --dev /dev --ro-bind <system and runtime paths> --bind <instance> ...
              --chdir <home> -- <server command>

- the launcher joins the sandbox's own ``pids`` cgroup (:mod:`.cgroups`) and opens the seccomp
  program (:mod:`.seccomp`) as fd 3, then ``prlimit`` sets the rlimits every process inherits;
- bubblewrap builds a root of its own: :mod:`.view`'s read-only paths, the writable paths of the
  :class:`~.base.Grant` at the same absolute paths (so the server's arguments and outputs read as
  they would outside), the instance's home as ``/tmp`` (unless the instance itself lives under
  ``/tmp``), a synthetic ``/etc/passwd``; everything else, bubblewrap's own root and ``/dev``
  included, is read-only;
- no capability is left (as root, bubblewrap would otherwise keep them all, and a read-only bind
  could be remounted writable); no nested user namespace; its own PID namespace: when the
  sandbox's first process dies, the kernel kills every process in it, so nothing a server forks,
  double-forks or ``setsid``-s outlives it; ``--die-with-parent`` ties the sandbox to the process
  that started it (``PR_SET_PDEATHSIG``), so a killed driver takes its servers with it;
- ``network = "none"``: a network namespace and no internet socket at all; ``"loopback"``: a
  network namespace with its own loopback; ``"host"``: this machine's network.

The CPU limit is a window: :class:`SandboxHooks` moves the server's soft ``RLIMIT_CPU`` forward as
calls arrive, so a busy server is never cut off, while one that spins with nothing asked of it is
killed (``SIGXCPU``); the hard limit, ``cpu_lifetime_s``, bounds a server that raises its own.
"""

from __future__ import annotations

import functools
import grp
import math
import os
import pwd
import resource
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import structlog

from toolatlas.client import StdioLaunch
from toolatlas.confinement.base import Grant
from toolatlas.confinement.cgroups import PidsCgroups, pids_cgroups
from toolatlas.confinement.seccomp import SUPPORTED_MACHINES, filter_program, program_name
from toolatlas.confinement.view import system_view
from toolatlas.errors import ConfinementError

__all__ = ["LAUNCHER_EXIT", "BubblewrapConfiner", "SandboxHooks", "bubblewrap_available"]

log = structlog.get_logger(__name__)

LAUNCHER_EXIT = 125
"""Exit status of the launcher when it cannot set the sandbox up (its reason is on stderr)."""
PROBE_TIMEOUT_S = 10.0
"""How long the one-off check that bubblewrap works here may take."""
_LAUNCHER = rf"""
cgroup=$1 max=$2 filter=$3
shift 3
if [ -n "$cgroup" ]; then
  mkdir "$cgroup/$$" && echo "$max" >"$cgroup/$$/pids.max" && echo $$ >"$cgroup/$$/cgroup.procs" || {{
    echo "toolatlas: cannot enter the sandbox's pids cgroup $cgroup/$$" >&2; exit {LAUNCHER_EXIT}; }}
fi
exec "$@" 3<"$filter"
"""
"""The launcher (``sh -c``): join the sandbox's pids cgroup, open the seccomp program as fd 3, exec."""
START_CPU_S = 30
"""CPU seconds a server may spend starting, on top of its first window: the first request renews the window
from what start-up used (importing the mcp package alone takes over a second; a JVM or a model far more)."""

INSTALL_HINT = "install it: `apt-get install bubblewrap` (Debian/Ubuntu), `dnf install bubblewrap` (Fedora)"


class BubblewrapConfiner:
    """Confines each server it wraps with bubblewrap (see the module docstring)."""

    mechanism = "bubblewrap"

    def __init__(self) -> None:
        self.tools = bubblewrap_available()
        self.cgroups = pids_cgroups()
        self.support = _support_folder()

    def wrap(self, launch: StdioLaunch, grant: Grant) -> StdioLaunch:
        bwrap, prlimit, shell = self.tools
        limits = grant.limits
        network = grant.network != "none"
        program = filter_program(network=network)
        seccomp = self.support / program_name(program)
        if not seccomp.exists():
            _write_atomically(seccomp, program)
        cgroup = str(self.cgroups.prepare()) if self.cgroups is not None else ""
        lifetime = limits.cpu_lifetime_s
        rlimits = [
            _rlimit("as", resource.RLIMIT_AS, limits.memory_mb << 20),
            _rlimit("cpu", resource.RLIMIT_CPU, min(limits.cpu_s + START_CPU_S, lifetime), lifetime),
            _rlimit("nofile", resource.RLIMIT_NOFILE, limits.open_files),
            _rlimit("fsize", resource.RLIMIT_FSIZE, limits.file_size_mb << 20),
            "--core=0:0",
        ]
        inner: list[str] = []
        if self.cgroups is None:  # per-sandbox count inside its own user namespace (see .cgroups)
            inner = [prlimit, f"--nproc={limits.processes}:{limits.processes}", "--"]
        args = [
            "-c", _LAUNCHER, "toolatlas-sandbox", cgroup, str(limits.processes), str(seccomp),
            prlimit, *rlimits, "--",
            bwrap, *self._namespaces(grant), *self._filesystem(grant, launch),
            "--", *inner, launch.command, *launch.args,
        ]  # fmt: skip
        hooks = SandboxHooks(grant.server, limits.cpu_s, limits.cpu_lifetime_s, self.cgroups)
        return replace(launch, command=shell, args=args, hooks=hooks, confinement=self.mechanism)

    def _namespaces(self, grant: Grant) -> list[str]:
        flags = [
            "--unshare-user", "--disable-userns", "--cap-drop", "ALL",
            "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--seccomp", "3",
        ]  # fmt: skip
        if grant.network != "host":
            flags.append("--unshare-net")
        return flags

    def _filesystem(self, grant: Grant, launch: StdioLaunch) -> list[str]:
        paths, links = system_view(host_network=grant.network == "host")
        args = ["--proc", "/proc", "--dev", "/dev"]
        for path in [*paths, *grant.read_only]:
            args += ["--ro-bind-try", path, path]
        for target, link in links:
            args += ["--symlink", target, link]
        args += ["--ro-bind", str(self.support / "passwd"), "/etc/passwd"]
        args += ["--ro-bind", str(self.support / "group"), "/etc/group"]
        for path in grant.writable:
            args += ["--bind", path, path]
        if not any(_within(path, "/tmp") for path in [*grant.writable, *grant.read_only]):
            args += ["--bind", grant.scratch, "/tmp"]  # else /tmp holds those paths, and nothing else
        # bubblewrap's own root (and /dev) would take any file in memory, without bound
        args += ["--remount-ro", "/", "--remount-ro", "/dev"]
        if launch.cwd:
            args += ["--chdir", launch.cwd]
        return args


class SandboxHooks:
    """Per sandbox: renews the server's CPU window as calls arrive, removes its cgroup when it has exited."""

    def __init__(self, server: str, cpu_s: int, cpu_lifetime_s: int, cgroups: PidsCgroups | None) -> None:
        self.server = server
        self.cpu_s = cpu_s
        self.cpu_lifetime_s = cpu_lifetime_s
        self.cgroups = cgroups
        self.interval_s = cpu_s / (2 * (os.cpu_count() or 1))
        """Wall-clock seconds between two renewals: half the time all cores need to use up a window."""
        self._launcher: int | None = None
        self._server_pid: int | None = None
        self._renewed_at = 0.0
        self._renewable = True
        self._lock = threading.Lock()

    def started(self, pid: int) -> None:
        with self._lock:  # the first request renews: start-up is not spent from the first window
            self._launcher, self._server_pid, self._renewed_at = pid, None, 0.0

    def working(self, pid: int) -> None:
        now = time.monotonic()
        if not self._renewable or now - self._renewed_at < self.interval_s:
            return
        with self._lock:
            self._renewed_at = now
            self._renew(pid)

    def stopped(self, pid: int) -> None:
        if self.cgroups is not None:
            self.cgroups.release(pid)

    def _renew(self, launcher: int) -> None:
        if self._server_pid is None or not os.path.exists(f"/proc/{self._server_pid}"):
            self._server_pid = sandboxed_process(launcher)
        if self._server_pid is None:
            return
        used = cpu_seconds(self._server_pid)
        if used is None:
            return
        try:
            _soft, hard = resource.prlimit(self._server_pid, resource.RLIMIT_CPU)
            soft = math.ceil(used) + self.cpu_s
            if hard != resource.RLIM_INFINITY:
                soft = min(soft, hard)
            resource.prlimit(self._server_pid, resource.RLIMIT_CPU, (soft, hard))
        except ProcessLookupError:
            self._server_pid = None
        except OSError as exc:  # not ours to change (another user's process): the first window is the budget
            self._renewable = False
            log.info("cpu_window_not_renewable", server=self.server, error=str(exc))


def _rlimit(name: str, which: int, soft: int, hard: int | None = None) -> str:
    """A ``prlimit`` option ``soft:hard`` (hard defaults to soft), never above this process's own hard
    limit (which only privilege could raise)."""
    hard = soft if hard is None else hard
    _current, ceiling = resource.getrlimit(which)
    if ceiling != resource.RLIM_INFINITY:
        soft, hard = min(soft, ceiling), min(hard, ceiling)
    return f"--{name}={soft}:{hard}"


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def sandboxed_process(launcher: int) -> int | None:
    """The host pid of the server inside a sandbox: the first process below bubblewrap's own."""
    pid = launcher
    for _ in range(6):
        children = _children(pid)
        if not children:
            return None
        pid = children[0]
        if _command_name(pid) != "bwrap":
            return pid
    return None


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of a process (all its threads)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _command_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@functools.cache
def bubblewrap_available() -> tuple[str, str, str]:
    """``(bwrap, prlimit, sh)``, checked once per process by starting an empty sandbox; raises
    :class:`ConfinementError` saying what is missing otherwise."""
    import platform

    if platform.machine() not in SUPPORTED_MACHINES:
        machines = sorted(SUPPORTED_MACHINES)
        raise ConfinementError(f"the server sandbox supports {machines}, not {platform.machine()}")
    bwrap, prlimit, shell = shutil.which("bwrap"), shutil.which("prlimit"), shutil.which("sh") or "/bin/sh"
    if bwrap is None:
        raise ConfinementError(f"every server runs in a bubblewrap sandbox, and `bwrap` is not on PATH; {INSTALL_HINT}")
    if prlimit is None:
        raise ConfinementError("the server sandbox needs `prlimit` (util-linux) on PATH for its resource limits")
    probe = [
        bwrap, "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--unshare-pid", "--unshare-net",
        "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true",
    ]  # fmt: skip
    try:
        done = subprocess.run(probe, capture_output=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfinementError(f"bubblewrap ({bwrap}) could not be run: {exc}") from exc
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip()[-500:]
        raise ConfinementError(
            f"bubblewrap ({bwrap}) cannot create the namespaces a server sandbox needs here: {reason} "
            "(unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone=1, "
            "or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)"
        )
    return bwrap, prlimit, shell


@functools.cache
def _support_folder() -> Path:
    """A private folder with the files every sandbox binds: seccomp programs, ``/etc/passwd``, ``/etc/group``."""
    folder = Path(tempfile.gettempdir()) / f"toolatlas-confinement-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if folder.is_symlink() or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise ConfinementError(f"{folder} is not a private folder of this user; remove it and retry")
    uid, gid = os.getuid(), os.getgid()
    user = _name(lambda: pwd.getpwuid(uid).pw_name, "toolatlas")
    group = _name(lambda: grp.getgrgid(gid).gr_name, "toolatlas")
    passwd = f"{user}:x:{uid}:{gid}:{user}:/tmp:/bin/sh\n" "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    groups = f"{group}:x:{gid}:\nnogroup:x:65534:\n"
    for name, text in (("passwd", passwd), ("group", groups)):
        path = folder / name
        if not path.exists() or path.read_text() != text:
            _write_atomically(path, text.encode())
    return folder


def _name(lookup, fallback: str) -> str:  # type: ignore[no-untyped-def]
    try:
        return lookup()
    except KeyError:
        return fallback


def _write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    temporary.write_bytes(data)
    temporary.chmod(0o644)
    os.replace(temporary, path)
