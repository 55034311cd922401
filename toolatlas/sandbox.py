"""A sandbox: one environment instance with the MCP server process bound to it.

The unit an executor owns. Its cycle per probe is ``call...`` → :meth:`Sandbox.freeze_and_reset`
(the post-state moves out for the verifier, the instance is restored at once, so the executor
never waits on verification). The server runs with ``HOME``, ``TMPDIR`` and its working
directory inside the instance's ``home/``, and its arguments point into the instance's
``state/`` — nothing outside the instance is handed to it. A stdio server also runs in the OS
sandbox its :class:`~toolatlas.confinement.Confiner` builds: the instance folder is the only
place it can write, and the rest of the machine it cannot see (:mod:`toolatlas.confinement`).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path
from typing import Any

import structlog

from toolatlas.client import HttpEndpoint, ServerConnection, StdioLaunch
from toolatlas.client.held import held_files
from toolatlas.config.servers import HttpTransport, ServerSpec, StdioTransport
from toolatlas.confinement import Confiner, confiner_for, grant_for
from toolatlas.environments import Environment, FrozenState, Instance, Snapshot, StateDigest, render_template
from toolatlas.errors import ConfigError, SandboxError
from toolatlas.logs import retire_stderr_log
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.runtimes import ResolvedRuntime

__all__ = ["Sandbox", "launch_for"]

log = structlog.get_logger(__name__)

DIGEST_TIMEOUT_S = 120.0
"""The longest wait for one state digest (a tree walk stops itself sooner: ``reading.DIGEST_DEADLINE_S``)."""


def launch_for(
    spec: ServerSpec, runtime: ResolvedRuntime, variables: dict[str, str], *, batch: bool = False
) -> StdioLaunch | HttpEndpoint:
    """The process (or URL) for a server bound to an instance, placeholders filled from ``variables``;
    ``batch`` schedules the process as batch work (:attr:`StdioLaunch.batch`)."""
    transport = spec.transport
    if isinstance(transport, HttpTransport):
        headers = {k: render_template(v, variables, field=f"transport.headers.{k}") for k, v in transport.headers.items()}
        return HttpEndpoint(render_template(transport.url, variables, field="transport.url"), headers)
    assert isinstance(transport, StdioTransport)
    command = transport.command or runtime.command
    if command is None:
        raise ConfigError(None, [(f"servers[{spec.name}].transport.command", "no command and the runtime provides none")])
    command = render_template(command, variables, field=f"servers[{spec.name}].transport.command")
    args = [
        render_template(a, variables, field=f"servers[{spec.name}].transport.args[{i}]")
        for i, a in enumerate(transport.args)
    ]
    env = {
        "HOME": variables["home"],
        "TMPDIR": variables["home"],
        **runtime.env,
        **{k: render_template(v, variables, field=f"servers[{spec.name}].transport.env.{k}") for k, v in transport.env.items()},
    }
    cwd = render_template(transport.cwd, variables, field=f"servers[{spec.name}].transport.cwd") if transport.cwd else variables["home"]
    return StdioLaunch(command=command, args=args, env=env, cwd=cwd, batch=batch)


class Sandbox:
    """One server bound to one private environment instance."""

    def __init__(
        self,
        spec: ServerSpec,
        environment: Environment,
        snapshot: Snapshot,
        runtime: ResolvedRuntime,
        *,
        instances_dir: Path,
        logs_dir: Path | None = None,
        confiner: Confiner | None = None,
        base_dir: Path | None = None,
        source: Path | None = None,
    ) -> None:
        self.spec = spec
        self.environment = environment
        self.snapshot = snapshot
        self.runtime = runtime
        self.instances_dir = instances_dir
        self.logs_dir = logs_dir
        self.confiner: Confiner = confiner if confiner is not None else confiner_for(spec)
        """The OS sandbox of a stdio server: bubblewrap unless the catalogue opts the server out."""
        self.base_dir = base_dir
        """The catalogue's folder: relative ``sandbox.read_only`` paths are resolved against it."""
        self.source = source
        """The catalogue file, named in configuration errors."""
        self.instance: Instance | None = None
        self.connection: ServerConnection | None = None
        self._discarding: asyncio.Future[None] | None = None
        """The deletion of a state :meth:`restore` moved aside, running in the background."""
        self.restart_on_reset = (
            spec.restart_on_reset if spec.restart_on_reset is not None else environment.restart_on_reset
        )
        self._log = log.bind(server=spec.name)

    @property
    def tools(self) -> list[ToolSpec]:
        return self.connection.tools if self.connection else []

    async def start(self) -> None:
        """Prepare a private instance of the snapshot and start the server against it."""
        slot = self.instances_dir / f"{self.spec.name}-{uuid.uuid4().hex[:10]}"
        self.instance = await asyncio.to_thread(self.environment.prepare, self.snapshot, slot)
        # probing is throughput work: a server woken by a request must not preempt the client
        # that feeds the others (+5% probes/s at 100 servers on 2 cores: benchmarks/scale.py)
        launch = launch_for(self.spec, self.runtime, self.instance.variables, batch=True)
        try:
            if isinstance(launch, StdioLaunch):
                grant = grant_for(
                    self.spec, self.runtime, launch,
                    writable=[self.instance.slot], scratch=str(self.instance.home),
                    base_dir=self.base_dir, source=self.source,
                )  # fmt: skip
                launch = self.confiner.wrap(launch, grant)
        except BaseException:
            await self.close()
            raise
        stderr_log = self.logs_dir / f"{self.spec.name}.{slot.name}.stderr.log" if self.logs_dir else None
        self.connection = ServerConnection(self.spec.name, launch, self.spec.limits, stderr_log=stderr_log)
        try:
            await self.connection.start()
        except BaseException:
            await self.close()
            raise

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None) -> CallOutcome:
        assert self.connection is not None, "start() the sandbox first"
        outcome = await self.connection.call(tool, arguments, timeout=timeout)
        return outcome

    def variables(self) -> dict[str, str]:
        """The instance's placeholder values, plus ``${sandbox}``: the instance folder (state + home)."""
        assert self.instance is not None
        return {**self.instance.variables, "sandbox": self.instance.slot}

    def _learn_restart(self) -> None:
        """Restart the server after every reset from the first time it holds its state open where a reset cannot reach
        it (:meth:`~toolatlas.environments.base.Environment.held_open`), unless the catalogue decided; said once. Else
        the files it holds open are the instance's :attr:`~toolatlas.environments.base.Instance.held`: the reset
        writes them back in place."""
        assert self.instance is not None
        if self.restart_on_reset or self.spec.restart_on_reset is not None:
            return
        pid = self.connection.pid if self.connection is not None else None
        held = tuple(held_files(pid, str(self.instance.state))) if pid is not None else ()
        if self.environment.held_open(self.instance, held):
            self.restart_on_reset = True
            self._log.info("restart_on_reset", held=[os.path.relpath(f, self.instance.state) for f in held[:3]],
                           reason="the server holds its state open where a reset cannot reach it (a file the snapshot "
                                  "has not, a SQLite database in WAL mode)")
        elif held != self.instance.held:  # written back in place by the reset
            self.instance = self.instance.model_copy(update={"held": held})

    async def reset(self) -> None:
        """Restore the instance to the snapshot in place (restarting the server if the kind requires it, or if it
        holds the state open where a reset cannot reach it)."""
        assert self.instance is not None and self.connection is not None
        self._learn_restart()
        await self._reset_in_place()

    async def _reset_in_place(self) -> None:
        assert self.instance is not None and self.connection is not None
        if not self.environment.quick_reset(self.instance):
            await asyncio.to_thread(self.environment.reset, self.instance)
        if self.restart_on_reset:
            await self.connection.restart()

    async def restore(self) -> None:
        """Bring the instance back to the snapshot the quickest way when nobody needs the changed
        state: a small file is restored in place; anything else is moved aside (O(1)), reset, and
        deleted in the background while the server works on (one deletion behind at most)."""
        assert self.instance is not None and self.connection is not None
        self._learn_restart()
        if self.environment.quick_reset(self.instance):
            if self.restart_on_reset:
                await self.connection.restart()
            return
        frozen = await self._freeze_and_reset()
        if self._discarding is not None:
            await self._discarding
        self._discarding = asyncio.ensure_future(self.discard(frozen))

    async def freeze_and_reset(self) -> FrozenState:
        """Move the post-state out for verification and restore the instance at once."""
        self._learn_restart()  # before the state moves out
        return await self._freeze_and_reset()

    async def _freeze_and_reset(self) -> FrozenState:
        assert self.instance is not None and self.connection is not None
        target = self.instances_dir / "frozen" / f"{self.instance.id}-{uuid.uuid4().hex[:8]}"
        frozen = await asyncio.to_thread(self.environment.freeze, self.instance, target)
        await self._reset_in_place()
        return frozen

    async def digest(self, state: Snapshot | Instance | FrozenState | None = None) -> StateDigest:
        """The digest of a state (the instance's by default); off the event loop unless it is quick."""
        target = state if state is not None else self.instance
        assert target is not None
        quick = self.environment.quick_digest(target)
        if quick is not None:
            return quick
        try:
            return await asyncio.wait_for(asyncio.to_thread(self.environment.digest, target), DIGEST_TIMEOUT_S)
        except TimeoutError as exc:
            kind = self.environment.kind
            raise SandboxError(f"describing the {kind} state took over {DIGEST_TIMEOUT_S:g}s") from exc

    async def discard(self, frozen: FrozenState) -> None:
        await asyncio.to_thread(self.environment.discard, frozen)

    async def close(self) -> None:
        """Stop the server and delete the instance (shielded: runs even when cancelled). The server
        is terminated, not asked to exit: whatever it could still flush lives in the instance,
        which goes next, and its orderly exit would only cost CPU the rest of the build needs."""
        try:
            if self.connection is not None:
                await asyncio.shield(self.connection.close(graceful=False))
                if self.connection.stderr_log is not None:
                    retire_stderr_log(self.connection.stderr_log)
        finally:
            if self._discarding is not None:
                discarding, self._discarding = self._discarding, None
                await asyncio.shield(asyncio.gather(discarding, return_exceptions=True))
            if self.instance is not None:
                instance, self.instance = self.instance, None
                await asyncio.shield(asyncio.to_thread(self.environment.discard, instance))

    async def __aenter__(self) -> Sandbox:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


def is_infrastructure_failure(outcome: CallOutcome) -> bool:
    """Crashes and hangs leave the instance in an unknown state: the caller should reset it."""
    return outcome.outcome in (OutcomeClass.CRASH, OutcomeClass.TIMEOUT)
