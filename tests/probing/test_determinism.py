"""Determinism by replay across a second of the clock: a tool whose output carries the time, a random
id or a counter is never marked deterministic; a pure tool is. Real MCP servers over stdio: the demo
catalogue's ``time`` server and the in-library reporting server."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from reporting_kit import probe

from toolatlas.config import load_catalogue
from toolatlas.home import Home
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.pipeline.shard import ServerShard
from toolatlas.probing.clock import carries_clock, later_second
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, ProbeStep, Verdict
from toolatlas.probing.text import evidence_excerpt, to_placeholders
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]


async def replay(executor: Executor, tool: str, *, defer: bool = False, planned_before: float | None = None,
                 **arguments) -> Verdict | None:
    """The original call, then its replay (as the proposer plans one) with the original's output as
    reference; ``planned_before``: the replay was planned right after the original and runs that many
    seconds later."""
    step = ProbeStep(tool=tool, arguments=arguments, expect="ok")
    original, _ = await executor.run_verified(probe(step))
    reference = evidence_excerpt(to_placeholders(original.steps[0].outcome.excerpt, original.variables))
    planned = probe(step, step, direction=Direction.REPLAY, replay_of="p0", reference_excerpt=reference)
    if planned_before is not None:
        planned = planned.model_copy(update={"planned_at": time.time()})
        await asyncio.sleep(planned_before)
    verified = await executor.run_verified(planned, defer=defer)
    return None if verified is None else verified[1]


class TestTheDemoTimeServer:
    async def test_get_current_time_is_not_deterministic(self, tmp_path: Path) -> None:
        """The time server's current time carries the clock: never deterministic."""
        demo = load_catalogue(REPO / "configs" / "demo.toml")
        executor = Executor(Workspace(demo, Home(REPO / ".toolatlas")).sandbox(demo.server("time")), "time")
        try:
            await executor.start()
        except Exception as exc:  # pragma: no cover - the demo servers are provisioned by make test
            pytest.skip(f"the demo time server is not installed here: {exc}")
        try:
            verdict = await replay(executor, "get_current_time", timezone="Europe/London")
            assert verdict is not None and verdict.deterministic is False
        finally:
            await executor.close()


@pytest.mark.asyncio(loop_scope="class")
class TestAcrossASecond:
    """On one executor of the reporting server for the class: each test settles every replay it set aside,
    and the executor restores the seeded state after any probe that changed it."""

    async def test_a_pure_tool_stays_deterministic(self, class_executor: Executor) -> None:
        """Same output from the snapshot, in another second too: deterministic (inline and batched)."""
        verdict = await replay(class_executor, "double", number=21)
        assert verdict is not None and verdict.deterministic is True and verdict.idempotent is True
        assert await replay(class_executor, "double", defer=True, number=4) is None
        [(rollout, settled)] = await class_executor.settle()
        assert settled.deterministic is True and rollout.steps[0].outcome.excerpt == "8"

    async def test_a_clock_reading_is_not_deterministic(self, class_executor: Executor) -> None:
        """A date-time of the call in the output decides at once, without waiting."""
        verdict = await replay(class_executor, "now")
        assert verdict is not None and verdict.deterministic is False

    async def test_a_time_of_day_differs_in_a_later_second(self, class_executor: Executor) -> None:
        """``HH:MM:SS`` repeats within its second; the batched repeat in a later second tells."""
        for _ in range(5):
            first = await replay(class_executor, "clock", defer=True)
            if first is None:  # looked deterministic: the original and its replay ran in one second
                [(_, settled)] = await class_executor.settle()
                assert settled.deterministic is False
                assert any(c.detail == "output differs in a later second" for c in settled.checks)
                return
            assert first.deterministic is False  # the replay had crossed a second by itself: retry
        pytest.fail("no replay ran within the second of its original call")

    async def test_replays_whose_later_second_has_come_need_no_wait(self, class_executor: Executor) -> None:
        """Between probes, a replay set aside is repeated as soon as its later second has begun."""
        assert await replay(class_executor, "double", defer=True, number=5) is None
        await asyncio.sleep(1.1)
        assert await replay(class_executor, "double", defer=True, number=6) is None
        ready = await class_executor.settle(ready_only=True)
        assert [r.steps[0].outcome.excerpt for r, _ in ready] == ["10"]
        [(rollout, verdict)] = await class_executor.settle()
        assert rollout.steps[0].outcome.excerpt == "12" and verdict.deterministic is True

    async def test_a_replay_planned_in_an_earlier_second_needs_no_repeat(self, class_executor: Executor) -> None:
        """A replay that starts in a later second than it was planned in (so than its original call)
        is settled at once: a pure tool is deterministic without being set aside, a time of day
        differs from its original and is not."""
        verdict = await replay(class_executor, "double", defer=True, planned_before=1.05, number=7)
        assert verdict is not None and verdict.deterministic is True
        clock = await replay(class_executor, "clock", defer=True, planned_before=1.05)
        assert clock is not None and clock.deterministic is False
        assert await class_executor.settle() == []

    async def test_a_replay_planned_within_its_second_is_still_repeated(self, class_executor: Executor) -> None:
        """A replay that starts in the second it was planned in is set aside for a later second."""
        for _ in range(5):
            if await replay(class_executor, "double", defer=True, planned_before=0.0, number=8) is None:
                [(_, settled)] = await class_executor.settle()
                assert settled.deterministic is True
                return
        pytest.fail("no replay started within the second it was planned in")

    async def test_one_wait_for_a_whole_batch(self, class_executor: Executor) -> None:
        """Replays set aside come back in order, after a single wait for the next second."""
        for number in (1, 2, 3):
            assert await replay(class_executor, "double", defer=True, number=number) is None
        settled = await class_executor.settle()
        assert [r.steps[0].outcome.excerpt for r, _ in settled] == ["2", "4", "6"]
        assert await class_executor.settle() == []


    async def test_a_batch_keeps_its_order_with_replays_set_aside(self, class_executor: Executor) -> None:
        """A batch of originals and replays comes back verified in the order it was given, with one end time per probe."""
        originals = [probe(ProbeStep(tool="double", arguments={"number": n}, expect="ok")) for n in (11, 12)]
        first, _ = await class_executor.run_verified(originals[0])
        reference = evidence_excerpt(to_placeholders(first.steps[0].outcome.excerpt, first.variables))
        step = ProbeStep(tool="double", arguments={"number": 11}, expect="ok")
        again = probe(step, step, direction=Direction.REPLAY, replay_of="p0", reference_excerpt=reference)
        before = time.time()
        verified, ended = await class_executor.run_batch([again, originals[1]])
        assert [r.steps[0].outcome.excerpt for r, _ in verified] == ["22", "24"]
        assert verified[0][1].deterministic is True  # the replay was repeated in a later second
        assert len(ended) == 2 and before <= min(ended) and ended == sorted(ended)

class TestPlanningTime:
    def test_a_shard_stamps_its_replays_with_the_time_it_planned_them(self) -> None:
        """Replays leave the planner with its clock reading; other probes carry none."""
        step = ProbeStep(tool="double", arguments={"number": 1})
        planned = [probe(step, step, direction=Direction.REPLAY), probe(step)]
        before = time.time()
        stamped = ServerShard._stamped(ServerShard.__new__(ServerShard), planned)
        assert before <= (stamped[0].planned_at or 0) <= time.time() and stamped[1].planned_at is None


def at(text: str, when: datetime, **arguments) -> CallOutcome:
    return CallOutcome(server="s", tool="t", outcome=OutcomeClass.OK, excerpt=text, arguments=arguments, started_at=when)


class TestClockReadings:
    def test_the_forms_of_a_clock_reading(self) -> None:
        """ISO 8601 with or without a zone, Unix seconds and milliseconds, near the call: the clock."""
        now = datetime.now(UTC).replace(microsecond=0)
        assert carries_clock(at(now.isoformat(), now))
        assert carries_clock(at(now.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"), now))
        london = now.astimezone(UTC) + timedelta(hours=5, minutes=30)
        assert carries_clock(at(london.strftime("%Y-%m-%dT%H:%M:%S+05:30"), now))
        assert carries_clock(at(f"created {int(now.timestamp())}", now))
        assert carries_clock(at(f'{{"ts": {int(now.timestamp() * 1000)}}}', now))

    def test_times_that_are_not_the_call_s(self) -> None:
        """A fixed date, or a time the call was given, is not a clock reading."""
        now = datetime.now(UTC).replace(microsecond=0)
        assert not carries_clock(at("released 2019-05-04T10:00:00Z", now))
        given = now.strftime("%Y-%m-%d %H:%M")
        assert not carries_clock(at(f"{given} in Tokyo is ...", now, time=given))
        assert not carries_clock(at("42 apples", now))

    def test_a_later_second(self) -> None:
        """The repeat starts in a second after every call of the batch ended."""
        start = datetime(2026, 1, 1, 12, 0, 0, 900_000, tzinfo=UTC)
        calls = [at("x", start), at("y", start).model_copy(update={"latency_ms": 200.0})]
        assert later_second(calls) == pytest.approx(start.replace(microsecond=0).timestamp() + 2.02)


class TestTemporaryFolders:
    """A server that writes its results into a folder ``mkdtemp`` made when its process started answers the same
    within one process and another name after a restart: its replay is no proof of determinism."""

    @staticmethod
    def replay(answer: str, original: str):
        from toolatlas.probing.models import Direction, Probe, ProbeStep, Rollout, StepResult

        step = ProbeStep(tool="crop_image", arguments={"path": "${root}/a.png"})
        probe = Probe(id="p1", server="images", round=1, direction=Direction.REPLAY, target="crop_image",
                      task="replay", steps=[step], replay_of="p0", reference_excerpt=original)
        outcome = CallOutcome(server="images", tool="crop_image", outcome=OutcomeClass.OK, excerpt=answer)
        return Rollout(probe=probe, steps=[StepResult(index=0, outcome=outcome)])

    def test_an_answer_naming_a_temporary_folder_is_not_deterministic(self) -> None:
        from toolatlas.probing.determinism import looks_deterministic

        made = '{"output_path": "${home}/image_editor_owfkvez6/a_cropped.png", "width": 40}'
        assert looks_deterministic(self.replay(made, made)) == (
            False, "output names a temporary folder of the server's process")
        kept = '{"output_path": "${root}/products/a_cropped.png", "width": 40}'
        assert looks_deterministic(self.replay(kept, kept)) == (True, "same output")

    def test_what_a_temporary_folder_looks_like(self) -> None:
        from toolatlas.probing.text import names_temporary_folder

        assert names_temporary_folder("/tmp/tmpab12cd_e/out.png")
        for text in ("${home}/notebook-logs/a.log", "${root}/image_editor_owfkvez6/x",
                     "${home}/image_editor_thumbnai/x", "/tmp/report_2024_final1/x"):
            assert not names_temporary_folder(text), text
