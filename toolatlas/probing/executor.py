"""The executor: runs probes in one sandbox — run the steps, freeze the post-state, reset.

A chain stops at the first step that was expected to succeed and did not (the rest would be
built on a broken premise); the state is then frozen and the instance restored to the snapshot.
A crash or hang of the server also ends the chain: the instance is reset and the server restarts
on its next call.
"""

from __future__ import annotations

import asyncio
import time

import structlog

from toolatlas.environments import StateDigest, render_value
from toolatlas.errors import SandboxError, ServerStartError
from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.bindings import answer_document, bind_outputs, bound_references
from toolatlas.probing.clock import later_second
from toolatlas.probing.determinism import verified, wants_later_second
from toolatlas.probing.models import Direction, Probe, Rollout, StepResult, Verdict
from toolatlas.probing.own_state import OwnState
from toolatlas.probing.verifier import Verifier, step_failed
from toolatlas.sandbox import Sandbox

__all__ = ["Executor"]

log = structlog.get_logger(__name__)


class Executor:
    """Owns one sandbox and runs probes in it, one at a time.

    After the last step the instance is digested: a probe that left it exactly as the snapshot
    (every read-only probe) needs no freeze and no reset — the sandbox goes straight on; one that
    changed it (or crashed or hung the server) is frozen for the verifier and reset, or, when the
    verifier reads the digests the rollout carries (:meth:`execute`: verified right here by
    :meth:`run_verified`, or by a verifier in another process), restored without keeping the changed state.

    What the server keeps in its own memory is kept fresh too (:mod:`toolatlas.probing.own_state`):
    after a probe that left its argument-free readers answering otherwise than a fresh server (where
    the environment holds no state: or whose call of a tool that says it changes state succeeded), the
    server is cleared by its own clearing tool or restarted — every probe starts from what a fresh
    server holds, as far as can be seen.

    A replay whose output matched the original call is repeated once more, from the snapshot, in
    a later second of the clock (:mod:`toolatlas.probing.determinism`); only then is the call
    deterministic — unless the replay itself began in a later second than it was planned in
    (:attr:`Probe.planned_at`). The wait is paid once per batch at most: :meth:`execute` with
    ``defer=True`` sets such replays aside, ``settle_rollouts(ready_only=True)`` between probes
    repeats those whose later second has come, and :meth:`settle_rollouts` waits for the rest at the end.
    """

    repeat_in_later_second = True
    """Whether a deterministic-looking replay is repeated in a later second (what a benchmark turns off
    to measure what the repeats cost)."""

    def __init__(self, sandbox: Sandbox, name: str) -> None:
        self.sandbox = sandbox
        self.name = name
        self.probes_run = 0
        self.resets = 0
        self.snapshot_digest: StateDigest | None = None
        self._verifier: Verifier | None = None
        self._unsettled: list[Rollout] = []
        self.own_state: OwnState | None = None
        """The readers of the server's own state, and what keeps it fresh between probes."""

    async def start(self) -> None:
        await self.sandbox.start()
        self.snapshot_digest = await self.sandbox.digest(self.sandbox.snapshot)
        self.own_state = await OwnState.read_fresh(self.sandbox)

    async def _keep_own_state_fresh(self, probe: Probe, calls: list[tuple[str, dict, CallOutcome]], *,
                                    restored: bool) -> None:
        """Bring the server back to what a fresh one holds after ``calls`` (tool, planned arguments,
        outcome) changed its own state (:meth:`OwnState.keep_fresh`)."""
        if self.own_state is None:
            return
        done = await self.own_state.keep_fresh(self.sandbox, calls, restored=restored)
        if not done:
            return
        log.debug("own_state_refreshed", executor=self.name, probe=probe.id, how=done)
        # what brought the memory back may have written to the instance (a deleting tool that saves the
        # whole list, with a backup beside it): the next probe starts from the snapshot all the same
        if self.snapshot_digest is not None and await self.sandbox.digest() != self.snapshot_digest:
            await self.sandbox.restore()
            self.resets += 1
            log.debug("own_state_refresh_restored", executor=self.name, probe=probe.id, how=done)

    def _specs(self) -> dict[str, ToolSpec]:
        return {t.name: t for t in self.sandbox.tools}

    @property
    def verifier(self) -> Verifier:
        """A verifier of this sandbox's rollouts: the snapshot's digest and the live tools' schemas
        (the sandbox's MCP client has validated every structured result already)."""
        if self._verifier is None:
            assert self.snapshot_digest is not None, "start() the executor first"
            self._verifier = Verifier.of_live(self.sandbox.environment, self.snapshot_digest, self.sandbox.tools)
        return self._verifier

    async def execute(self, probe: Probe, *, defer: bool = False) -> Rollout | None:
        """Run a probe for a verifier here or in another process: no post-state is kept (a changed
        instance is restored the quickest way); the rollout carries the digests verification reads.

        A probe whose reads show the server changed its own state, which no reset of the environment
        undoes, is followed by a restart of the server before the next probe (where the environment
        holds no state, the probe's own-state check has done so already): whether its reads show it
        is the verifier's judgement, made here too for the probes that compare reads. A replay that
        still looks deterministic is repeated in a later second, its outcome carried on the rollout
        (:mod:`toolatlas.probing.determinism`) — right away, or with ``defer`` set aside (None is
        returned) until :meth:`settle_rollouts`."""
        return (await self._execute(probe, defer=defer))[0]

    async def _execute(self, probe: Probe, *, defer: bool = False) -> tuple[Rollout | None, Verdict | None]:
        """:meth:`execute`, and the verdict it reached on the rollout it returns, if it judged one."""
        rollout = await self.run(probe, keep_post_state=False)
        connection = self.sandbox.connection
        verdict = None
        if (connection is not None and (self.own_state is None or self.own_state.environment_holds_state)
                and any(step.compares is not None for step in probe.steps)):
            verdict = self.verifier.verify(rollout)
            if any(step.output_changed for step in verdict.steps):
                await connection.restart()
        if self.repeat_in_later_second and wants_later_second(rollout):
            if defer:
                self._unsettled.append(rollout)
                return None, None
            return (await self._settle([rollout]))[0], None  # the later second is part of the verdict
        return rollout, verdict

    async def run_verified(self, probe: Probe, *, defer: bool = False) -> tuple[Rollout, Verdict] | None:
        """:meth:`execute` a probe and verify it here: the rollout without its digests (what an inducer
        in another process reads, and a fraction of the bytes) and its verdict; None when deferred. A
        verdict :meth:`execute` reached already (to decide a restart) is not reached twice."""
        rollout, verdict = await self._execute(probe, defer=defer)
        return None if rollout is None else verified(self.verifier, rollout, verdict)

    async def settle(self, *, ready_only: bool = False) -> list[tuple[Rollout, Verdict]]:
        """:meth:`settle_rollouts`, each verified here."""
        return [verified(self.verifier, rollout) for rollout in await self.settle_rollouts(ready_only=ready_only)]

    async def settle_rollouts(self, *, ready_only: bool = False) -> list[Rollout]:
        """The replays set aside, in the order they ran, each repeated once from the snapshot in a
        second of the clock later than any of them ran in: one wait for all of them. With
        ``ready_only``, only the first ones whose later second has begun already (no wait): a
        caller with more probes to run repeats those in between, and waits only for the rest."""
        unsettled = self._unsettled
        if ready_only:
            now = time.time()
            ready = 0
            while ready < len(unsettled) and later_second([unsettled[ready].steps[0].outcome]) <= now:
                ready += 1
            unsettled = unsettled[:ready]
        self._unsettled = self._unsettled[len(unsettled) :]
        return await self._settle(unsettled)

    async def run_batch(self, probes: list[Probe]) -> tuple[list[tuple[Rollout, Verdict]], list[float]]:
        """:meth:`execute_batch`, each rollout verified here."""
        judged: dict[int, Verdict] = {}
        rollouts, ended = await self.execute_batch(probes, judged=judged)
        return [verified(self.verifier, rollout, judged.get(id(rollout))) for rollout in rollouts], ended

    async def execute_batch(self, probes: list[Probe], *, judged: dict[int, Verdict] | None = None,
                            ) -> tuple[list[Rollout], list[float]]:
        """Run ``probes`` one after the other, in their order: each rollout, for a verifier, and when
        each probe ended (``time.time()``; the replays repeated in a later second end together,
        after one wait at most). ``judged`` receives the verdicts reached on the way (by ``id`` of the
        rollout: a probe that compares reads is judged to decide on a restart)."""
        executed: list[Rollout | None] = []
        ended: list[float] = []
        settled: list[Rollout] = []
        for probe in probes:
            rollout, verdict = await self._execute(probe, defer=True)
            executed.append(rollout)
            if rollout is not None and verdict is not None and judged is not None:
                judged[id(rollout)] = verdict
            if executed[-1] is not None:
                ended.append(time.time())
            settled += await self.settle_rollouts(ready_only=True)  # their later second has come
        settled += await self.settle_rollouts()
        replays = iter(settled)
        ended += [time.time()] * (len(executed) - len(ended))
        return [item if item is not None else next(replays) for item in executed], ended

    async def _settle(self, unsettled: list[Rollout]) -> list[Rollout]:
        if not unsettled:
            return []
        t0 = time.perf_counter()
        wait = later_second(r.steps[0].outcome for r in unsettled) - time.time()
        if wait > 0:
            await asyncio.sleep(wait)
        waited = time.perf_counter() - t0
        settled = [await self._repeat_later(rollout) for rollout in unsettled]
        log.debug(
            "replays_repeated_later",
            executor=self.name,
            replays=len(settled),
            waited_ms=round(waited * 1000, 1),
            total_ms=round((time.perf_counter() - t0) * 1000, 1),
        )
        return settled

    async def _repeat_later(self, rollout: Rollout) -> Rollout:
        """The replayed call once more, from the snapshot, carried on the rollout (unchanged when the
        sandbox failed: nothing was learned)."""
        step = rollout.probe.steps[0]
        try:
            arguments = render_value(step.arguments, self.sandbox.variables())
            outcome = await self.sandbox.call(step.tool, arguments, timeout=step.timeout_s)
            restored = await self.sandbox.digest() != self.snapshot_digest
            if restored:
                await self.sandbox.restore()
            await self._keep_own_state_fresh(rollout.probe, [(step.tool, step.arguments, outcome)], restored=restored)
        except (ServerStartError, SandboxError) as exc:
            log.warning(
                "clock_replay_failed", server=rollout.probe.server, probe=rollout.probe.id, error=str(exc)[:300]
            )
            return rollout
        return rollout.model_copy(update={"later": outcome})

    async def close(self) -> None:
        await self.sandbox.close()

    async def run(self, probe: Probe, *, keep_post_state: bool = True) -> Rollout:
        """Run a probe's steps; a changed (or broken) instance is then frozen for a verifier or a
        judge to inspect and reset — or, without ``keep_post_state``, just restored (:meth:`Sandbox.restore`)."""
        t0 = time.perf_counter()
        variables = self.sandbox.variables()
        steps: list[StepResult] = []
        aborted_at: int | None = None
        wanted = {ref[0] for step in probe.steps for ref in bound_references(step.arguments)}
        answers: dict[int, object] = {}  # the answers later steps are bound to (step → JSON)
        try:
            for index, step in enumerate(probe.steps):
                arguments = render_value(step.arguments, variables)
                if answers:
                    arguments = bind_outputs(arguments, answers)
                outcome = await self.sandbox.call(step.tool, arguments, timeout=step.timeout_s)
                last = index == len(probe.steps) - 1
                digest = await self.sandbox.digest() if not last else None
                steps.append(StepResult(index=index, outcome=outcome, digest_after=digest))
                if index in wanted and outcome.ok:
                    answers[index] = answer_document(outcome)
                if outcome.outcome in (OutcomeClass.CRASH, OutcomeClass.TIMEOUT) and not last:
                    aborted_at = index
                    break
                if step.expect == "ok" and probe.direction is not Direction.BOUNDARY and not last:
                    spec = self._specs().get(step.tool)
                    if step_failed(outcome, step.arguments, spec, rendered=arguments)[0]:
                        aborted_at = index
                        break
            final = await self.sandbox.digest()
            broke = any(s.outcome.outcome in (OutcomeClass.CRASH, OutcomeClass.TIMEOUT) for s in steps)
            frozen = None
            reset = broke or final != self.snapshot_digest
            if reset and keep_post_state:
                frozen = await self.sandbox.freeze_and_reset()
            elif reset:
                await self.sandbox.restore()
            self.resets += reset
            calls = [(probe.steps[s.index].tool, probe.steps[s.index].arguments, s.outcome) for s in steps]
            await self._keep_own_state_fresh(probe, calls, restored=reset)
        except (ServerStartError, SandboxError) as exc:
            log.warning("probe_infrastructure_error", server=probe.server, probe=probe.id, error=str(exc)[:300])
            return Rollout(
                probe=probe,
                steps=steps,
                executor=self.name,
                variables=variables,
                duration_ms=(time.perf_counter() - t0) * 1000,
                infrastructure_error=str(exc),
            )
        self.probes_run += 1
        return Rollout(
            probe=probe,
            steps=steps,
            frozen=frozen,
            reset=reset,
            final_digest=final,
            aborted_at=aborted_at,
            executor=self.name,
            variables=variables,
            duration_ms=(time.perf_counter() - t0) * 1000,
        )

