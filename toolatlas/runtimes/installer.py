"""Installing and resolving the runtime of one server, or of a whole catalogue concurrently."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed

import structlog

from toolatlas.config.catalogue import Catalogue
from toolatlas.config.servers import CommandRuntime, NpmRuntime, PypiRuntime, ServerSpec
from toolatlas.errors import ToolAtlasError
from toolatlas.home import Home
from toolatlas.models import Frozen
from toolatlas.runtimes.base import ResolvedRuntime
from toolatlas.runtimes.command import resolve_command
from toolatlas.runtimes.npm import install_npm, resolve_npm
from toolatlas.runtimes.python import install_pypi, resolve_pypi

__all__ = ["InstallResult", "install", "install_all", "resolve"]

log = structlog.get_logger(__name__)


class InstallResult(Frozen):
    """How provisioning one server's runtime ended: the resolved runtime, or the error message."""

    server: str
    kind: str
    ok: bool
    runtime: ResolvedRuntime | None = None
    error: str | None = None
    seconds: float


def install(spec: ServerSpec, home: Home, *, force: bool = False) -> ResolvedRuntime:
    """Install the runtime of ``spec`` unless it is installed already (or ``force``), and resolve it.

    Safe to call from several threads or processes at once; an installed runtime returns at once.
    """
    match spec.runtime:
        case NpmRuntime() as runtime:
            return install_npm(spec, runtime, home, force=force)
        case PypiRuntime() as runtime:
            return install_pypi(spec, runtime, home, force=force)
        case CommandRuntime():
            return resolve_command(spec)
    raise TypeError(f"unknown runtime {spec.runtime!r}")  # pragma: no cover - the union is closed


def resolve(spec: ServerSpec, home: Home) -> ResolvedRuntime:
    """Where the installed runtime of ``spec`` is; raises RuntimeInstallError if it is not installed."""
    match spec.runtime:
        case NpmRuntime() as runtime:
            return resolve_npm(spec, runtime, home)
        case PypiRuntime() as runtime:
            return resolve_pypi(spec, runtime, home)
        case CommandRuntime():
            return resolve_command(spec)
    raise TypeError(f"unknown runtime {spec.runtime!r}")  # pragma: no cover - the union is closed


def install_all(
    catalogue: Catalogue,
    home: Home,
    *,
    jobs: int = 2,
    force: bool = False,
    servers: Sequence[ServerSpec] | None = None,
    progress: Callable[[InstallResult], None] | None = None,
) -> dict[str, InstallResult]:
    """Install the runtimes of the catalogue's enabled servers (or of ``servers``), ``jobs`` at a time.

    Every server is attempted: a failure is recorded in its result, never raised. ``progress``
    is called with each result as it completes; the returned dict is in catalogue order.
    Servers sharing a runtime (same package, version and options) share one install.
    """
    servers = list(servers) if servers is not None else catalogue.enabled_servers
    home.ensure()
    results: dict[str, InstallResult] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="toolatlas-install") as pool:
        futures = {pool.submit(_install_one, spec, home, force): spec for spec in servers}
        for future in as_completed(futures):
            result = future.result()
            results[result.server] = result
            if progress is not None:
                try:
                    progress(result)
                except Exception:  # a broken progress display must not stop the installs
                    log.exception("install_progress_failed", server=result.server)
    ordered = {spec.name: results[spec.name] for spec in servers}
    failed = [name for name, result in ordered.items() if not result.ok]
    log.info("runtimes_installed", servers=len(ordered), failed=len(failed), failed_servers=failed)
    return ordered


def _install_one(spec: ServerSpec, home: Home, force: bool) -> InstallResult:
    started = time.monotonic()
    kind = spec.runtime.kind
    try:
        runtime = install(spec, home, force=force)
    except ToolAtlasError as exc:
        error = str(exc)
    except Exception as exc:  # an unexpected failure of one server must not stop the others
        log.exception("runtime_install_crashed", server=spec.name, kind=kind)
        error = f"{type(exc).__name__}: {exc}"
    else:
        return InstallResult(
            server=spec.name,
            kind=kind,
            ok=True,
            runtime=runtime,
            seconds=round(time.monotonic() - started, 3),
        )
    return InstallResult(
        server=spec.name, kind=kind, ok=False, error=error, seconds=round(time.monotonic() - started, 3)
    )
