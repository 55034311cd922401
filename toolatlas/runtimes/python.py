"""PyPI runtimes: one venv per server spec, with the interpreter version it asks for.

Layout: ``<home>/runtimes/py/<package>-<version>-<hash8>/`` where ``hash8`` covers the Python
minor version, the extra requirements and ``no_deps``: a changed spec is a new venv. Venvs
embed their own path in every script, so a venv is built in place under the install lock and
is complete only once its marker is written.

Installing: ``pip install package==version requirements...`` in one resolution (so e.g.
``mcp<2`` constrains the package's own dependencies), or, with ``no_deps``, the package alone
with ``--no-deps`` and then the requirements in a second call (whose own dependencies are
installed). pip's configuration (indexes, constraints) is left as the machine has it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from toolatlas.config.servers import PypiRuntime, ServerSpec, StdioTransport
from toolatlas.errors import RuntimeInstallError
from toolatlas.home import Home
from toolatlas.models import canonical_json
from toolatlas.runtimes.base import (
    InstallTarget,
    ResolvedRuntime,
    locate_command,
    not_installed,
    prepend_path,
    provision,
    read_marker,
    run_tool,
)

__all__ = [
    "PIP_INSTALL_TIMEOUT_S",
    "VENV_CREATE_TIMEOUT_S",
    "PythonInterpreter",
    "find_python",
    "install_pypi",
    "python_version_for",
    "resolve_pypi",
    "venv_dir",
]

log = structlog.get_logger(__name__)

VENV_CREATE_TIMEOUT_S = 300.0
PIP_INSTALL_TIMEOUT_S = 1800.0
PYTHON_PROBE_TIMEOUT_S = 20.0
_PROBE = "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3])"
_NOT_SCRIPTS = re.compile(r"^(python[\d.]*|pip[\d.]*|activate.*|Activate\.ps1|__pycache__)$")


@dataclass(frozen=True)
class PythonInterpreter:
    """An interpreter that ran and can create venvs: its path and full version."""

    path: Path
    version: str

    @property
    def minor(self) -> str:
        return ".".join(self.version.split(".")[:2])


def python_version_for(runtime: PypiRuntime) -> str:
    """The requested minor version, or ours."""
    return runtime.python or f"{sys.version_info.major}.{sys.version_info.minor}"


def venv_dir(runtime: PypiRuntime, home: Home) -> Path:
    """The venv folder of one runtime spec."""
    digest = hashlib.sha256(
        canonical_json(
            {
                "python": python_version_for(runtime),
                "requirements": sorted(runtime.requirements),
                "no_deps": runtime.no_deps,
            }
        ).encode()
    ).hexdigest()[:8]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", runtime.package)
    return home.runtimes / "py" / f"{name}-{runtime.version}-{digest}"


# --- interpreter discovery -------------------------------------------------------------------

_found: dict[str, PythonInterpreter] = {}
_found_guard = threading.Lock()


def _candidates(version: str) -> tuple[list[Path], list[str]]:
    """Where a ``pythonX.Y`` may be, best first (an override variable, us, PATH, pyenv, system folders),
    and a note for every place that had none."""
    exe = f"python{version}"
    found: list[Path] = []
    absent: list[str] = []
    variable = f"TOOLATLAS_PYTHON_{version.replace('.', '_')}"
    if override := os.environ.get(variable):
        found.append(Path(override).expanduser())
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        found.append(Path(sys.executable))
    if on_path := shutil.which(exe):
        found.append(Path(on_path))
    else:
        absent.append(f"{exe} on PATH (not found)")
    pyenv_versions = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    installed = [
        (int(folder.name.rsplit(".", 1)[1]), folder / "bin" / exe)
        for folder in pyenv_versions.glob(f"{version}.*")
        if re.fullmatch(rf"{re.escape(version)}\.\d+", folder.name)
    ]
    if not installed:
        absent.append(f"{pyenv_versions}/{version}.*/bin/{exe} (no such pyenv version)")
    found += [path for _patch, path in sorted(installed, reverse=True)]
    for folder in ("/usr/local/bin", "/usr/bin", "/opt/homebrew/bin"):
        path = Path(folder) / exe
        if path.exists():
            found.append(path)
        else:
            absent.append(f"{path} (missing)")
    return list(dict.fromkeys(found)), absent


def find_python(version: str, *, server: str = "?") -> PythonInterpreter:
    """A working interpreter of minor ``version`` (e.g. ``"3.12"``), each candidate verified by running it."""
    with _found_guard:
        if version in _found:
            return _found[version]
    candidates, tried = _candidates(version)
    for candidate in candidates:
        if not candidate.exists():
            tried.append(f"{candidate} (missing)")
            continue
        run = run_tool([candidate, "-c", _PROBE], server=server, timeout_s=PYTHON_PROBE_TIMEOUT_S)
        reported = run.output.strip().splitlines()[-1] if run.output.strip() else ""
        if run.returncode == 0 and re.fullmatch(rf"{re.escape(version)}\.\d+", reported):
            interpreter = PythonInterpreter(candidate, reported)
            with _found_guard:
                _found[version] = interpreter
            log.debug("python_found", version=version, path=str(candidate), full_version=reported)
            return interpreter
        reason = f"reports {reported}" if run.returncode == 0 else f"exit {run.returncode}: {run.tail[-200:]}"
        tried.append(f"{candidate} ({reason})")
    raise RuntimeInstallError(
        f"server {server!r}: no working Python {version} found (it must run and have the venv and ensurepip "
        f"modules); tried:\n  "
        + "\n  ".join(tried)
        + f"\ninstall Python {version} (e.g. `pyenv install {version}`) or set "
        f"TOOLATLAS_PYTHON_{version.replace('.', '_')} to its interpreter"
    )


# --- install and resolve ---------------------------------------------------------------------


def _target(spec: ServerSpec, runtime: PypiRuntime, home: Home) -> InstallTarget:
    identity = {
        "kind": "pypi",
        "package": runtime.package,
        "version": runtime.version,
        "python": python_version_for(runtime),
        "requirements": sorted(runtime.requirements),
        "no_deps": runtime.no_deps,
    }
    return InstallTarget(spec.name, "pypi", venv_dir(runtime, home), identity)


def _pip_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_USER")
    }
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PYTHONNOUSERSITE="1")
    return env


def install_pypi(
    spec: ServerSpec, runtime: PypiRuntime, home: Home, *, force: bool = False
) -> ResolvedRuntime:
    """Create the runtime's venv and pip-install into it (nothing to do when it is there), then resolve it."""
    target = _target(spec, runtime, home)
    pinned = f"{runtime.package}=={runtime.version}"

    def build(venv: Path) -> dict[str, Any]:
        interpreter = find_python(python_version_for(runtime), server=spec.name)
        env = _pip_env()
        made = run_tool(
            [interpreter.path, "-m", "venv", venv], server=spec.name, timeout_s=VENV_CREATE_TIMEOUT_S, env=env
        )
        if made.returncode != 0:
            raise RuntimeInstallError(
                f"server {spec.name!r}: creating a Python {interpreter.version} venv failed "
                f"(exit {made.returncode}):\n{made.tail}"
            )
        steps = (
            [["--no-deps", pinned], runtime.requirements]
            if runtime.no_deps
            else [[pinned, *runtime.requirements]]
        )
        for requirements in steps:
            if not requirements:
                continue
            run = run_tool(
                [venv / "bin" / "python", "-m", "pip", "install", "--progress-bar", "off", *requirements],
                server=spec.name,
                timeout_s=PIP_INSTALL_TIMEOUT_S,
                env=env,
            )
            if run.returncode != 0:
                raise RuntimeInstallError(
                    f"server {spec.name!r}: pip install {' '.join(requirements)} failed "
                    f"(exit {run.returncode}):\n{run.tail}"
                )
        return {"python": str(interpreter.path), "python_version": interpreter.version}

    provision(target, build, in_place=True, force=force)
    return resolve_pypi(spec, runtime, home)


def resolve_pypi(spec: ServerSpec, runtime: PypiRuntime, home: Home) -> ResolvedRuntime:
    """Where the installed server's console script is; raises if not installed or the script is missing."""
    target = _target(spec, runtime, home)
    if read_marker(target.final, target.identity) is None:
        raise not_installed(spec.name, f"PyPI package {runtime.package}=={runtime.version}")
    bin_dir = target.final / "bin"
    requested = spec.transport.command if isinstance(spec.transport, StdioTransport) else None
    if requested:
        command = locate_command(spec.name, requested, bin_dir)
    else:
        names = (
            [runtime.entry]
            if runtime.entry
            else list(
                dict.fromkeys(
                    [
                        runtime.package,
                        runtime.package.lower().replace("_", "-"),
                        runtime.package.lower().replace("-", "_"),
                    ]
                )
            )
        )
        existing = [bin_dir / name for name in names if (bin_dir / name).exists()]
        if not existing:
            scripts = sorted(p.name for p in bin_dir.iterdir() if not _NOT_SCRIPTS.match(p.name))
            raise RuntimeInstallError(
                f"server {spec.name!r}: {runtime.package}=={runtime.version} installed no console script "
                f"named {names[0]!r}; console scripts in {bin_dir}: {', '.join(scripts) or '(none)'} — "
                "set runtime.entry (or transport.command)"
            )
        command = existing[0]
    return ResolvedRuntime(
        server=spec.name,
        kind="pypi",
        command=str(command),
        location=str(target.final),
        env={"PATH": prepend_path(bin_dir)},
        version=runtime.version,
    )
