"""npm runtimes: one pinned ``package@version`` per local prefix, launched from ``node_modules/.bin``.

Layout: ``<home>/runtimes/npm/<package, '@' dropped, '/' as '+'>@<version>/``. The prefix is built
in a temporary sibling and renamed into place (``.bin`` entries are relative links, so the
prefix can move). The executable is ``<prefix>/node_modules/.bin/<bin>``, where ``bin`` defaults
to the package's only ``bin`` entry. The server process gets ``node``'s folder first on PATH,
because npm executables start with ``#!/usr/bin/env node``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolatlas.config.servers import NpmRuntime, ServerSpec, StdioTransport
from toolatlas.errors import RuntimeInstallError
from toolatlas.home import Home
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
    "MIN_NODE_MAJOR",
    "NPM_INSTALL_TIMEOUT_S",
    "NodeToolchain",
    "choose_bin",
    "find_node",
    "install_npm",
    "npm_prefix",
    "resolve_npm",
]

MIN_NODE_MAJOR = 18
NPM_INSTALL_TIMEOUT_S = 900.0
NODE_PROBE_TIMEOUT_S = 20.0
_INSTALL_HINT = "install Node.js >= 18 with npm (https://nodejs.org, or e.g. `apt-get install nodejs npm`)"


@dataclass(frozen=True)
class NodeToolchain:
    """The ``node`` and ``npm`` executables found on PATH, and node's version."""

    node: Path
    npm: Path
    version: str

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env["PATH"] = prepend_path(self.node.parent, base=env.get("PATH", os.defpath))
        env.update(npm_config_update_notifier="false", npm_config_fund="false", npm_config_audit="false")
        return env


def find_node(server: str = "?") -> NodeToolchain:
    """``node`` (>= :data:`MIN_NODE_MAJOR`) and ``npm`` from PATH, or an error saying what to install."""
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        missing = [name for name, found in (("node", node), ("npm", npm)) if found is None]
        verb = "are" if len(missing) > 1 else "is"
        raise RuntimeInstallError(
            f"server {server!r} needs npm, but {' and '.join(missing)} {verb} not on PATH: {_INSTALL_HINT}"
        )
    probe = run_tool([node, "--version"], server=server, timeout_s=NODE_PROBE_TIMEOUT_S)
    version = probe.output.strip().lstrip("v")
    match = re.match(r"^(\d+)\.", version)
    if probe.returncode != 0 or match is None:
        raise RuntimeInstallError(
            f"server {server!r}: `{node} --version` failed: {probe.tail}; {_INSTALL_HINT}"
        )
    if int(match.group(1)) < MIN_NODE_MAJOR:
        raise RuntimeInstallError(
            f"server {server!r}: node {version} at {node} is too old (need >= {MIN_NODE_MAJOR}); "
            + _INSTALL_HINT
        )
    return NodeToolchain(Path(node).resolve(), Path(npm), version)


def npm_prefix(runtime: NpmRuntime, home: Home) -> Path:
    """The prefix folder of one ``package@version``."""
    name = re.sub(r"[^A-Za-z0-9._+-]", "_", runtime.package.lstrip("@").replace("/", "+"))
    return home.runtimes / "npm" / f"{name}@{runtime.version}"


def _target(spec: ServerSpec, runtime: NpmRuntime, home: Home) -> InstallTarget:
    identity = {"kind": "npm", "package": runtime.package, "version": runtime.version}
    return InstallTarget(spec.name, "npm", npm_prefix(runtime, home), identity)


def install_npm(spec: ServerSpec, runtime: NpmRuntime, home: Home, *, force: bool = False) -> ResolvedRuntime:
    """Install ``package@version`` into its prefix (nothing to do when it is there) and resolve it."""
    target = _target(spec, runtime, home)

    def build(prefix: Path) -> dict[str, Any]:
        node = find_node(spec.name)
        (prefix / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        run = run_tool(
            [
                node.npm,
                "install",
                "--prefix",
                prefix,
                "--no-audit",
                "--no-fund",
                "--omit=dev",
                f"{runtime.package}@{runtime.version}",
            ],
            server=spec.name,
            timeout_s=NPM_INSTALL_TIMEOUT_S,
            env=node.env(),
            cwd=prefix,
        )
        if run.returncode != 0:
            raise RuntimeInstallError(
                f"server {spec.name!r}: npm install {runtime.package}@{runtime.version} failed "
                f"(exit {run.returncode}):\n{run.tail}"
            )
        manifest = _manifest(prefix, runtime)
        if manifest is None:
            raise RuntimeInstallError(
                f"server {spec.name!r}: npm reported success but node_modules/{runtime.package}/package.json "
                f"is missing:\n{run.tail}"
            )
        return {
            "node": str(node.node),
            "node_version": node.version,
            "installed_version": manifest.get("version"),
        }

    provision(target, build, in_place=False, force=force)
    return resolve_npm(spec, runtime, home)


def resolve_npm(spec: ServerSpec, runtime: NpmRuntime, home: Home) -> ResolvedRuntime:
    """Where the installed package's executable is; raises if it is not installed or ambiguous."""
    target = _target(spec, runtime, home)
    marker = read_marker(target.final, target.identity)
    if marker is None:
        raise not_installed(spec.name, f"npm package {runtime.package}@{runtime.version}")
    prefix = target.final
    bin_dir = prefix / "node_modules" / ".bin"
    requested = spec.transport.command if isinstance(spec.transport, StdioTransport) else None
    if requested:
        command = locate_command(spec.name, requested, bin_dir)
    else:
        name = choose_bin(_manifest(prefix, runtime) or {}, runtime.package, runtime.bin, server=spec.name)
        command = bin_dir / name
        if not command.exists():
            present = sorted(p.name for p in bin_dir.iterdir()) if bin_dir.is_dir() else []
            raise RuntimeInstallError(
                f"server {spec.name!r}: {command} does not exist; executables in {bin_dir}: "
                f"{', '.join(present) or '(none)'}"
            )
    env = {}
    if marker.get("node"):  # npm executables run `#!/usr/bin/env node`: the node we installed with
        node_dir = str(Path(marker["node"]).parent)
        path = os.environ.get("PATH", os.defpath)
        env["PATH"] = path if node_dir in path.split(os.pathsep) else prepend_path(node_dir, base=path)
    return ResolvedRuntime(
        server=spec.name,
        kind="npm",
        command=str(command),
        location=str(prefix),
        env=env,
        version=marker.get("installed_version") or runtime.version,
    )


def choose_bin(manifest: dict[str, Any], package: str, configured: str | None, *, server: str = "?") -> str:
    """The executable to run: ``configured`` if given, else the package's only ``bin`` entry."""
    declared = manifest.get("bin")
    if isinstance(declared, str):
        names = [package.rsplit("/", 1)[-1]]
    elif isinstance(declared, dict):
        names = sorted(declared)
    else:
        names = []
    if configured:
        return configured
    if len(names) == 1:
        return names[0]
    if not names:
        raise RuntimeInstallError(
            f"server {server!r}: npm package {package} declares no executables "
            "(no 'bin' in its package.json); set transport.command"
        )
    raise RuntimeInstallError(
        f"server {server!r}: npm package {package} has several executables ({', '.join(names)}); "
        "choose one with runtime.bin"
    )


def _manifest(prefix: Path, runtime: NpmRuntime) -> dict[str, Any] | None:
    try:
        return json.loads(
            (prefix / "node_modules" / runtime.package / "package.json").read_text(encoding="utf-8")
        )
    except (OSError, ValueError):
        return None
