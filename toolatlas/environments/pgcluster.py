"""The private PostgreSQL cluster behind ``postgres`` environments: find the binaries, init, start, stop.

ToolAtlas runs its own throwaway cluster (never the machine's): one data directory under
``<home>/postgres/<port>/``, listening on ``127.0.0.1:<port>`` only, with its unix socket in
the same folder and trust authentication for local connections. PostgreSQL refuses to run as
root, so when ToolAtlas runs as root every server-side binary runs as the configured OS user
(``runuser -u postgres --``), which owns the folder.

Folder layout::

    <home>/postgres/<port>/data/        PGDATA (or ``[postgres] data_dir``)
    <home>/postgres/<port>/run/         unix socket directory
    <home>/postgres/<port>/server.log   server log (its tail is shown when a start fails)
    <home>/postgres/<port>/.lock        flock held around init/start/stop

:meth:`PostgresCluster.ensure_running` is idempotent and safe to call from several processes
at once: the file lock serialises init and start, and a cluster that is already up is reused.
"""

from __future__ import annotations

import fcntl
import glob
import hashlib
import os
import pwd
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import psycopg
import structlog

from toolatlas.config.catalogue import PostgresSettings
from toolatlas.errors import BackendError
from toolatlas.home import Home

__all__ = ["DB_USER", "PostgresCluster", "find_bindir"]

log = structlog.get_logger(__name__)

DB_USER = "postgres"
"""The superuser every connection uses (``initdb -U postgres``), whatever the OS user."""
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 30
INITDB_TIMEOUT_S = 120
LOCK_TIMEOUT_S = START_TIMEOUT_S + INITDB_TIMEOUT_S
COMMAND_TIMEOUT_S = 30
CONNECT_TIMEOUT_S = 10
STATEMENT_TIMEOUT_MS = 120_000
DEFAULT_BINDIR_GLOBS: tuple[str, ...] = ("/usr/lib/postgresql/*/bin",)
REQUIRED_BINARIES = ("initdb", "pg_ctl", "postgres", "psql")
BUILD_TAG_VARIABLE = "TOOLATLAS_BUILD_TAG"
"""What :mod:`toolatlas.confinement.reaper` marks a build's processes with (kept off the cluster's)."""
_SOCKET_PATH_MAX = 100  # sun_path is 108 bytes; leave room for ".s.PGSQL.<port>.lock"

# Throwaway sandboxes: durability buys nothing here, so the server never waits for the disk.
_SERVER_SETTINGS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}


def find_bindir(configured: str | None, *, search: Sequence[str] = DEFAULT_BINDIR_GLOBS) -> Path:
    """The folder holding the PostgreSQL server binaries.

    ``configured`` (``[postgres] bindir``) wins and is not second-guessed; otherwise
    ``pg_config --bindir``, otherwise the highest version matching ``search``.
    """
    looked: list[str] = []
    if configured:
        path = Path(configured).expanduser()
        missing = _missing_binaries(path)
        if not missing:
            return path
        raise BackendError(
            f"PostgreSQL binaries {', '.join(missing)} not found in {path} (from [postgres] bindir); "
            "point [postgres] bindir at the folder holding initdb and pg_ctl"
        )
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=True
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError) as exc:
            looked.append(f"{pg_config} --bindir (failed: {exc})")
        else:
            if out and not _missing_binaries(Path(out)):
                return Path(out)
            looked.append(f"{pg_config} --bindir ({out or 'empty'}: no server binaries)")
    else:
        looked.append("pg_config (not on PATH)")
    for pattern in search:
        candidates = sorted(glob.glob(pattern), key=_version_key, reverse=True)
        for candidate in candidates:
            if not _missing_binaries(Path(candidate)):
                return Path(candidate)
        looked.append(f"{pattern} ({'no complete match' if candidates else 'no match'})")
    raise BackendError(
        "PostgreSQL server binaries (initdb, pg_ctl, postgres, psql) not found; looked in: "
        + "; ".join(looked)
        + ". Install the PostgreSQL server package, or set "
        + '`bindir = "/path/to/bin"` under [postgres] in the catalogue.'
    )


def _missing_binaries(folder: Path) -> list[str]:
    return [name for name in REQUIRED_BINARIES if not os.access(folder / name, os.X_OK)]


def _version_key(path: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", path))


class PostgresCluster:
    """One private PostgreSQL cluster: where it lives, how to start it, how to connect to it."""

    def __init__(
        self,
        folder: Path,
        *,
        port: int = 55432,
        host: str = "127.0.0.1",
        data_dir: Path | None = None,
        bindir: str | None = None,
        os_user: str = "postgres",
    ) -> None:
        self.folder = folder
        self.port = port
        self.host = host
        self.data_dir = data_dir or folder / "data"
        self.log_file = folder / "server.log"
        self._configured_bindir = bindir
        self._bindir: Path | None = None
        self.os_user = os_user
        self._user: pwd.struct_passwd | None = None

    @classmethod
    def for_settings(cls, settings: PostgresSettings, home: Home) -> PostgresCluster:
        folder = home.postgres / str(settings.port)
        data_dir = Path(settings.data_dir).expanduser() if settings.data_dir else None
        return cls(
            folder,
            port=settings.port,
            host=settings.host,
            data_dir=data_dir,
            bindir=settings.bindir,
            os_user=settings.os_user,
        )

    # -- addresses ------------------------------------------------------------------------------

    def uri(self, database: str) -> str:
        """``postgresql://postgres@127.0.0.1:PORT/DB`` — what servers get as ``${database_uri}``."""
        return f"postgresql://{DB_USER}@{self.host}:{self.port}/{quote(database, safe='')}"

    dsn = uri  # a URI is a valid libpq DSN

    @property
    def socket_dir(self) -> Path:
        """``<folder>/run``, or a short folder under the temp dir when that path is too long for a socket."""
        preferred = self.folder / "run"
        if len(f"{preferred}/.s.PGSQL.{self.port}.lock") <= _SOCKET_PATH_MAX:
            return preferred
        tag = hashlib.sha256(str(self.folder).encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"toolatlas-pg-{tag}"

    @property
    def bindir(self) -> Path:
        if self._bindir is None:
            self._bindir = find_bindir(self._configured_bindir)
        return self._bindir

    def connect(self, database: str = "postgres") -> psycopg.Connection:
        """An autocommit connection with bounded connect and statement waits."""
        try:
            return psycopg.connect(
                self.uri(database),
                autocommit=True,
                connect_timeout=CONNECT_TIMEOUT_S,
                options=f"-c statement_timeout={STATEMENT_TIMEOUT_MS} -c lock_timeout={STATEMENT_TIMEOUT_MS}",
                application_name="toolatlas",
            )
        except psycopg.OperationalError as exc:
            raise BackendError(
                f"cannot connect to PostgreSQL database {database!r} at {self.uri(database)}: {exc}"
            ) from exc

    # -- lifecycle ------------------------------------------------------------------------------

    def ensure_running(self) -> None:
        """Initialise the cluster if needed and start it if it is not running (idempotent, process-safe)."""
        bindir = self.bindir
        user = self._run_as()
        self._make_folder(self.folder, user, mode=0o755)
        if user is not None:
            self._check_traversable(self.folder, user)
        with self._locked():
            if self._status() == 0:
                return
            self._check_port_free()
            if not (self.data_dir / "PG_VERSION").exists():
                self._initdb(bindir, user)
            socket_dir = self.socket_dir
            self._make_folder(socket_dir, user, mode=0o755)
            options = {
                "port": str(self.port),
                "listen_addresses": self.host,
                "unix_socket_directories": str(socket_dir),
                **_SERVER_SETTINGS,
            }
            opts = " ".join(f"-c {shlex.quote(f'{k}={v}')}" for k, v in options.items())
            started = time.monotonic()
            result = self._run(
                [
                    str(bindir / "pg_ctl"),
                    "start",
                    "-D",
                    str(self.data_dir),
                    "-l",
                    str(self.log_file),
                    "-w",
                    "-t",
                    str(START_TIMEOUT_S),
                    "-o",
                    opts,
                ],
                timeout=START_TIMEOUT_S + 10,
            )
            if result.returncode != 0:
                raise BackendError(
                    f"PostgreSQL failed to start (data dir {self.data_dir}, port {self.port}): "
                    f"{(result.stdout + result.stderr).strip()}\n"
                    f"--- {self.log_file} (tail) ---\n{self._log_tail()}"
                )
            log.info(
                "postgres_started",
                port=self.port,
                data_dir=str(self.data_dir),
                duration_ms=round((time.monotonic() - started) * 1000),
            )

    def stop(self) -> None:
        """Stop the cluster (fast shutdown); nothing happens when it is not running."""
        if not (self.data_dir / "PG_VERSION").exists():
            return
        with self._locked():
            if self._status() != 0:
                return
            result = self._run(
                [
                    str(self.bindir / "pg_ctl"),
                    "stop",
                    "-D",
                    str(self.data_dir),
                    "-m",
                    "fast",
                    "-w",
                    "-t",
                    str(STOP_TIMEOUT_S),
                ],
                timeout=STOP_TIMEOUT_S + 10,
            )
            if result.returncode != 0:
                raise BackendError(
                    f"PostgreSQL did not stop (data dir {self.data_dir}): {result.stderr.strip()}"
                )
            log.info("postgres_stopped", port=self.port)

    def is_running(self) -> bool:
        return (self.data_dir / "PG_VERSION").exists() and self._status() == 0

    # -- internals ------------------------------------------------------------------------------

    def _status(self) -> int:
        """``pg_ctl status``: 0 running, 3 not running, 4 no usable data dir."""
        return self._run([str(self.bindir / "pg_ctl"), "status", "-D", str(self.data_dir)]).returncode

    def _initdb(self, bindir: Path, user: pwd.struct_passwd | None) -> None:
        self._make_folder(self.data_dir, user, mode=0o700)
        result = self._run(
            [
                str(bindir / "initdb"),
                "-D",
                str(self.data_dir),
                "-U",
                DB_USER,
                "--auth=trust",
                "--encoding=UTF8",
                "--no-locale",
                "--no-sync",
            ],
            timeout=INITDB_TIMEOUT_S,
        )
        if result.returncode != 0:
            raise BackendError(
                f"initdb failed for {self.data_dir}: {(result.stdout + result.stderr).strip()[-2000:]}"
            )
        log.info("postgres_initialised", data_dir=str(self.data_dir))

    def _check_port_free(self) -> None:
        try:
            with socket.create_connection((self.host, self.port), timeout=1):
                pass
        except OSError:
            return
        raise BackendError(
            f"port {self.port} on {self.host} is already in use by something other than the ToolAtlas "
            f"cluster in {self.data_dir}; set [postgres] port to a free port"
        )

    def _run_as(self) -> pwd.struct_passwd | None:
        """The OS user server binaries run as when we are root; ``None`` when we run them ourselves."""
        if os.geteuid() != 0:
            return None
        if self._user is not None:
            return self._user
        try:
            user = pwd.getpwnam(self.os_user)
        except KeyError:
            raise BackendError(
                f"running as root, but the OS user {self.os_user!r} that must own the PostgreSQL cluster "
                "does not exist; create it or set [postgres] os_user"
            ) from None
        if user.pw_uid == 0:
            raise BackendError(
                f"[postgres] os_user {self.os_user!r} is root; PostgreSQL refuses to run as root"
            )
        self._user = user
        return user

    @staticmethod
    def _check_traversable(folder: Path, user: pwd.struct_passwd) -> None:
        groups = {user.pw_gid} | {g for g in os.getgrouplist(user.pw_name, user.pw_gid)}
        for parent in [*reversed(folder.absolute().parents), folder.absolute()]:
            try:
                st = parent.stat()
            except FileNotFoundError:
                return
            if st.st_uid == user.pw_uid:
                ok = st.st_mode & 0o100
            elif st.st_gid in groups:
                ok = st.st_mode & 0o010
            else:
                ok = st.st_mode & 0o001
            if not ok:
                raise BackendError(
                    f"the PostgreSQL cluster runs as OS user {user.pw_name!r}, which cannot enter {parent} "
                    f"(mode {oct(st.st_mode & 0o777)}); put the ToolAtlas home elsewhere or allow it "
                    "(chmod o+x)"
                )

    @staticmethod
    def _make_folder(path: Path, user: pwd.struct_passwd | None, *, mode: int) -> None:
        path.mkdir(parents=True, exist_ok=True)
        if user is not None:
            st = path.stat()
            if st.st_uid != user.pw_uid:
                os.chown(path, user.pw_uid, user.pw_gid)
        os.chmod(path, mode)

    def _run(
        self, argv: list[str], *, timeout: float = COMMAND_TIMEOUT_S
    ) -> subprocess.CompletedProcess[str]:
        user = self._run_as()
        command = Path(argv[0]).name
        if user is not None:
            argv = ["runuser", "-u", user.pw_name, "--", *argv]
        try:
            return subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=self.folder,
                stdin=subprocess.DEVNULL,
                # the cluster outlives builds: not a process the build's reaper may stop
                env={k: v for k, v in os.environ.items() if k != BUILD_TAG_VARIABLE},
            )
        except subprocess.TimeoutExpired as exc:
            raise BackendError(f"{command} did not finish within {timeout:g}s: {shlex.join(argv)}") from exc
        except OSError as exc:
            raise BackendError(f"cannot run {shlex.join(argv)}: {exc}") from exc

    def _log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError as exc:
            return f"<cannot read {self.log_file}: {exc}>"

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold ``<folder>/.lock`` (flock) so that only one process initialises or starts the cluster."""
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        with open(self.folder / ".lock", "a") as handle:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise BackendError(
                            f"another process held {self.folder / '.lock'} for more than {LOCK_TIMEOUT_S}s "
                            "while starting PostgreSQL"
                        ) from None
                    time.sleep(0.05)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
