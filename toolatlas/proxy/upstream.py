"""Where the proxied server runs: against the user's real environment, or a private sandbox copy.

A catalogue entry says how to launch a server (runtime, transport, limits); its ``${placeholders}``
(``${root}``, ``${db_path}``, ``${repo}``, ``${file}``…) name the environment the server works
on, and during a build each sandbox instance fills them. The proxy offers two ways to fill them:

- **deployment** (the default) — the proxy sits in front of a real deployment, so the server must
  work on the user's real data: placeholders are filled from ``--var NAME=VALUE`` (``${home}`` is
  the user's home), and the server runs with the user's ``HOME``, ``TMPDIR`` and working directory
  instead of a sandbox's. A placeholder without a value is a configuration error naming all of them.
- **sandbox** (``--sandbox``) — the server runs against a private copy of the catalogue's snapshot,
  discarded on exit, exactly as during a build: for the demo, and for tests that compare the proxy
  with a fresh server.

Either way a stdio server runs in the OS sandbox of a build (:mod:`toolatlas.confinement`),
unless its catalogue entry opts out. In a deployment, the writable paths are the ones the catalogue
names — the existing paths its placeholders' values point to (relative ones made absolute) — and
the server's ``HOME``, ``TMPDIR`` and working folder are a private scratch folder, unless the
catalogue names ``${home}`` or a ``cwd``; the rest of the user's files it cannot see.

Either way the session with the server speaks the handshake-era protocol (``initialize``), which
every server supports, so results pass through to handshake-era clients exactly as the server
sent them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import structlog

from toolatlas.client import HttpEndpoint, ServerConnection, StdioLaunch
from toolatlas.config import Catalogue, HttpTransport, ServerSpec, StdioTransport
from toolatlas.confinement import Unconfined, confiner_for, grant_for
from toolatlas.environments.base import remove_tree
from toolatlas.errors import ConfigError
from toolatlas.home import Home
from toolatlas.logs import retire_stderr_log
from toolatlas.sandbox import launch_for
from toolatlas.workspace import Workspace

__all__ = ["UPSTREAM_MODE", "Upstream", "deployment_launch", "deployment_variables", "open_upstream"]

log = structlog.get_logger(__name__)

UPSTREAM_MODE = "legacy"
"""The proxy's session with the server uses the ``initialize`` handshake (see the module docstring)."""
SANDBOX_HINT = " (or run with --sandbox against a copy of the catalogue's snapshot)"
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class Upstream:
    """The proxied server's live connection and the placeholder values of the environment it runs on."""

    connection: ServerConnection
    variables: dict[str, str]
    where: str
    """``deployment`` or the sandbox instance folder."""


def deployment_variables(given: Mapping[str, str]) -> dict[str, str]:
    """Placeholder values for a real deployment: ``${home}`` is the user's home, the rest is given."""
    return {"home": os.environ.get("HOME") or str(Path.home()), **given}


@asynccontextmanager
async def open_upstream(
    catalogue: Catalogue,
    server: str,
    *,
    sandbox: bool = False,
    variables: Mapping[str, str] | None = None,
    home: Home | None = None,
) -> AsyncIterator[Upstream]:
    """Start the catalogue's server ``server`` (deployment or sandbox), yield it, stop it on exit."""
    spec = _server(catalogue, server)
    workspace = Workspace(catalogue, home or Home.default())
    stderr_log = workspace.home.logs / f"proxy-{spec.name}.{os.getpid()}.stderr.log"
    if not sandbox:
        values = deployment_variables(variables or {})
        confined = _stdio(spec) and not isinstance(confiner_for(spec), Unconfined)
        if confined:
            values = _absolute_paths(values)
        launch = deployment_launch(catalogue, server, values, workspace.home)
        scratch = workspace.home.instances / f"proxy-{spec.name}-{uuid.uuid4().hex[:10]}"
        try:
            if confined and isinstance(launch, StdioLaunch):
                launch = _confined_deployment(catalogue, spec, workspace, launch, values, scratch)
            async with _connected(spec, launch, stderr_log) as connection:
                yield Upstream(connection, values, "deployment")
        finally:
            await asyncio.shield(asyncio.to_thread(remove_tree, scratch))
        return
    runtime = workspace.runtime(spec)
    environment, snapshot = workspace.environment(spec), workspace.snapshot(spec)
    slot = workspace.home.instances / f"proxy-{spec.name}-{uuid.uuid4().hex[:10]}"
    instance = await asyncio.to_thread(environment.prepare, snapshot, slot)
    try:
        values = {**instance.variables, **(variables or {})}
        launch = launch_for(spec, runtime, values)
        if isinstance(launch, StdioLaunch):
            grant = grant_for(
                spec, runtime, launch, writable=[instance.slot], scratch=str(instance.home),
                base_dir=catalogue.base_dir, source=catalogue.source,
            )  # fmt: skip
            launch = confiner_for(spec).wrap(launch, grant)
        async with _connected(spec, launch, stderr_log) as connection:
            yield Upstream(connection, values, str(slot))
    finally:
        await asyncio.shield(asyncio.to_thread(environment.discard, instance))


def deployment_launch(
    catalogue: Catalogue, server: str, values: Mapping[str, str], home: Home | None = None
) -> StdioLaunch | HttpEndpoint:
    """How to start ``server`` on the user's environment, placeholders filled from ``values``."""
    spec = _server(catalogue, server)
    _check_placeholders(catalogue, spec, values)
    runtime = Workspace(catalogue, home or Home.default()).runtime(spec)
    launch = launch_for(spec, runtime, dict(values))
    if not isinstance(launch, StdioLaunch):
        return launch
    env = {k: v for k, v in launch.env.items() if k not in ("HOME", "TMPDIR")}
    env.update({k: os.environ[k] for k in ("HOME", "TMPDIR") if k in os.environ})
    transport = spec.transport
    assert isinstance(transport, StdioTransport)
    env.update({key: launch.env[key] for key in transport.env})  # the catalogue's own values win
    return dataclasses.replace(launch, env=env, cwd=launch.cwd if transport.cwd else os.getcwd())


@asynccontextmanager
async def _connected(
    spec: ServerSpec, launch: StdioLaunch | HttpEndpoint, stderr_log: Path
) -> AsyncIterator[ServerConnection]:
    connection = ServerConnection(spec.name, launch, spec.limits, stderr_log=stderr_log, mode=UPSTREAM_MODE)
    try:
        async with connection:
            log.info("upstream_started", server=spec.name, pid=connection.pid, tools=len(connection.tools))
            yield connection
    finally:
        retire_stderr_log(stderr_log)


def _confined_deployment(
    catalogue: Catalogue,
    spec: ServerSpec,
    workspace: Workspace,
    launch: StdioLaunch,
    values: Mapping[str, str],
    scratch: Path,
) -> StdioLaunch:
    """The deployment's launch in the OS sandbox: the named paths writable, a scratch folder for the rest."""
    transport = spec.transport
    assert isinstance(transport, StdioTransport)
    (scratch / "home").mkdir(parents=True)
    named = [values[name] for name in sorted(_placeholders(spec)) if name in values]
    writable = [str(scratch), *(os.path.abspath(v) for v in named if os.path.isabs(v) and os.path.exists(v))]
    env = dict(launch.env)
    if "home" not in _placeholders(spec):
        env |= {"HOME": str(scratch / "home"), "TMPDIR": str(scratch / "home")}
    env |= {key: launch.env[key] for key in transport.env}  # the catalogue's own values win
    cwd = launch.cwd if transport.cwd else str(scratch / "home")
    launch = dataclasses.replace(launch, env=env, cwd=cwd)
    runtime = workspace.runtime(spec)
    grant = grant_for(
        spec, runtime, launch, writable=writable, scratch=str(scratch / "home"),
        base_dir=catalogue.base_dir, source=catalogue.source,
    )  # fmt: skip
    return confiner_for(spec).wrap(launch, grant)


def _absolute_paths(values: Mapping[str, str]) -> dict[str, str]:
    """Placeholder values that are relative paths to something that exists, made absolute (the
    sandboxed server does not run in the user's working folder)."""
    return {
        name: os.path.abspath(value) if value and not os.path.isabs(value) and os.path.exists(value) else value
        for name, value in values.items()
    }


def _placeholders(spec: ServerSpec) -> set[str]:
    """The placeholder names a stdio server's launch fields use."""
    transport = spec.transport
    if not isinstance(transport, StdioTransport):
        return set()
    texts = [transport.command or "", *transport.args, *transport.env.values(), transport.cwd or ""]
    return {name for text in texts for name in _PLACEHOLDER.findall(text)}


def _stdio(spec: ServerSpec) -> bool:
    return isinstance(spec.transport, StdioTransport)


def _server(catalogue: Catalogue, name: str) -> ServerSpec:
    try:
        return catalogue.server(name)
    except KeyError:
        known = ", ".join(s.name for s in catalogue.servers) or "none"
        problem = ("", f"no server {name!r} in the catalogue (it has: {known})")
        raise ConfigError(str(catalogue.source or ""), [problem]) from None


def _check_placeholders(catalogue: Catalogue, spec: ServerSpec, values: Mapping[str, str]) -> None:
    """Every placeholder of the launch config needs a value: name all the missing ones at once."""
    transport = spec.transport
    if isinstance(transport, HttpTransport):
        headers = {f"transport.headers.{k}": v for k, v in transport.headers.items()}
        fields = {"transport.url": transport.url, **headers}
    else:
        fields = {
            "transport.command": transport.command or "",
            **{f"transport.args[{i}]": a for i, a in enumerate(transport.args)},
            **{f"transport.env.{k}": v for k, v in transport.env.items()},
            "transport.cwd": transport.cwd or "",
        }
    problems = [
        (f"servers[{spec.name}].{field}", f"${{{name}}} has no value: give it with --var {name}=VALUE{SANDBOX_HINT}")
        for field, text in fields.items()
        for name in _PLACEHOLDER.findall(text)
        if name not in values
    ]
    if problems:
        raise ConfigError(str(catalogue.source or ""), problems)
