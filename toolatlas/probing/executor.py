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
from toolatlas.probing.clock import carries_clock, later_second, second_after
from toolatlas.probing.models import Check, Direction, Probe, Rollout, StepResult, Verdict
from toolatlas.probing.own_state import OwnState
from toolatlas.probing.text import evidence_excerpt, to_placeholders
from toolatlas.probing.verifier import Verifier, step_failed
from toolatlas.sandbox import Sandbox

__all__ = ["Executor"]

log = structlog.get_logger(__name__)


class Executor:
    """Owns one sandbox and runs probes in it, one at a time.

    After the last step the instance is digested: a probe that left it exactly as the snapshot
    (every read-only probe) needs no freeze and no reset — the sandbox goes straight on; one that
    changed it (or crashed or hung the server) is frozen for the verifier and reset, or, when it
    is verified right here (:meth:`run_verified`), restored without keeping the changed state.

    What the server keeps in its own memory is kept fresh too (:mod:`toolatlas.probing.own_state`):
    after a probe that left its argument-free readers answering otherwise than a fresh server (where
    the environment holds no state: or whose call of a tool that says it changes state succeeded), the
    server is cleared by its own clearing tool or restarted — every probe starts from what a fresh
    server holds, as far as can be seen.

    A replay whose output matched the original call is repeated once more, from the snapshot, in
    a later second of the clock (:mod:`toolatlas.probing.clock`); only then is the call
    deterministic — unless the replay itself began in a later second than it was planned in
    (:attr:`Probe.planned_at`). The wait is paid once per batch at most: :meth:`run_verified` with
    ``defer=True`` sets such replays aside, ``settle(ready_only=True)`` between probes repeats
    those whose later second has come, and :meth:`settle` waits for the rest at the end.
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
        self._unsettled: list[tuple[Rollout, Verdict]] = []
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
        if self.own_state is not None:
            done = await self.own_state.keep_fresh(self.sandbox, calls, restored=restored)
            if done:
                log.debug("own_state_refreshed", executor=self.name, probe=probe.id, how=done)

    def _specs(self) -> dict[str, ToolSpec]:
        return {t.name: t for t in self.sandbox.tools}

    @property
    def verifier(self) -> Verifier:
        """A verifier of this sandbox's rollouts: the snapshot's digest and the live tools' schemas
        (the sandbox's MCP client has validated every structured result already)."""
        if self._verifier is None:
            assert self.snapshot_digest is not None, "start() the executor first"
            tools = {t.name: t for t in self.sandbox.tools}
            self._verifier = Verifier(self.sandbox.environment, self.snapshot_digest, tools, outputs_validated=True)
        return self._verifier

    async def run_verified(self, probe: Probe, *, defer: bool = False) -> tuple[Rollout, Verdict] | None:
        """Run a probe and verify it here, from the digests the rollout carries: no post-state is
        kept (a changed instance is restored the quickest way). The rollout comes back without its
        digests — what an inducer in another process reads, and a fraction of the bytes.

        A replay that still looks deterministic is repeated in a later second first — right away,
        or with ``defer`` set aside (None is returned) until :meth:`settle`."""
        rollout = await self.run(probe, keep_post_state=False)
        verdict = self.verifier.verify(rollout)
        if any(step.output_changed for step in verdict.steps) and self.sandbox.connection is not None:
            # the server changed its own state, which no reset of the environment undoes: start it afresh
            # (where the environment holds no state, the probe's own-state check has done so already)
            if self.own_state is None or self.own_state.environment_holds_state:
                await self.sandbox.connection.restart()
        if verdict.deterministic and self.repeat_in_later_second and not _crossed_a_second(rollout):
            if defer:
                self._unsettled.append((rollout.for_induction(), verdict))
                return None
            return (await self._settle([(rollout.for_induction(), verdict)]))[0]
        return rollout.for_induction(), verdict

    async def settle(self, *, ready_only: bool = False) -> list[tuple[Rollout, Verdict]]:
        """The replays set aside, in the order they ran, each repeated once from the snapshot in a
        second of the clock later than any of them ran in: one wait for all of them. With
        ``ready_only``, only the first ones whose later second has begun already (no wait): a
        caller with more probes to run repeats those in between, and waits only for the rest."""
        unsettled = self._unsettled
        if ready_only:
            now = time.time()
            ready = 0
            while ready < len(unsettled) and later_second([unsettled[ready][0].steps[0].outcome]) <= now:
                ready += 1
            unsettled = unsettled[:ready]
        self._unsettled = self._unsettled[len(unsettled) :]
        return await self._settle(unsettled)

    async def run_batch(self, probes: list[Probe]) -> tuple[list[tuple[Rollout, Verdict]], list[float]]:
        """Run and verify ``probes`` one after the other, in their order: each verified rollout, and
        when each probe ended (``time.time()``; the replays repeated in a later second end together,
        after one wait at most)."""
        verified: list[tuple[Rollout, Verdict] | None] = []
        ended: list[float] = []
        settled: list[tuple[Rollout, Verdict]] = []
        for probe in probes:
            verified.append(await self.run_verified(probe, defer=True))
            if verified[-1] is not None:
                ended.append(time.time())
            settled += await self.settle(ready_only=True)  # their later second has come
        settled += await self.settle()
        replays = iter(settled)
        ended += [time.time()] * (len(verified) - len(ended))
        return [item if item is not None else next(replays) for item in verified], ended

    async def _settle(self, unsettled: list[tuple[Rollout, Verdict]]) -> list[tuple[Rollout, Verdict]]:
        if not unsettled:
            return []
        t0 = time.perf_counter()
        wait = later_second(r.steps[0].outcome for r, _ in unsettled) - time.time()
        if wait > 0:
            await asyncio.sleep(wait)
        waited = time.perf_counter() - t0
        settled = []
        for rollout, verdict in unsettled:
            settled.append((rollout, await self._repeat_later(rollout, verdict)))
        log.debug(
            "replays_repeated_later",
            executor=self.name,
            replays=len(settled),
            waited_ms=round(waited * 1000, 1),
            total_ms=round((time.perf_counter() - t0) * 1000, 1),
            nondeterministic=sum(v.deterministic is False for _, v in settled),
        )
        return settled

    async def _repeat_later(self, rollout: Rollout, verdict: Verdict) -> Verdict:
        """The replayed call once more, from the snapshot: a different output (or one showing the
        clock) makes the verdict non-deterministic."""
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
            return verdict
        if outcome.outcome in (OutcomeClass.CRASH, OutcomeClass.TIMEOUT):  # the server broke: nothing learned
            return verdict
        same = _normalised(outcome, rollout) == _normalised(rollout.steps[0].outcome, rollout)
        if same and not carries_clock(outcome):
            return verdict
        return _with_determinism(verdict, False, "output differs in a later second")

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


def _crossed_a_second(rollout: Rollout) -> bool:
    """Whether a replay began in a later second of the clock than the one it was planned in (so than
    the original call it is compared with): it needs no repeat."""
    planned_at = rollout.probe.planned_at
    if planned_at is None or not rollout.steps:
        return False
    return rollout.steps[0].outcome.started_at.timestamp() >= second_after(planned_at)


def _normalised(outcome: CallOutcome, rollout: Rollout) -> str:
    return evidence_excerpt(to_placeholders(outcome.excerpt, rollout.variables))


def _with_determinism(verdict: Verdict, deterministic: bool, detail: str) -> Verdict:
    checks = [c for c in verdict.checks if c.name != "deterministic"]
    checks.append(Check(name="deterministic", passed=True, detail=detail))
    return verdict.model_copy(update={"deterministic": deterministic, "checks": checks})

