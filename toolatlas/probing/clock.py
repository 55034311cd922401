"""Determinism across time: outputs that carry the clock, and when a later second has begun.

A replay that gives the same output as the original call may only have been fast: a tool that
answers with the current time (to the second), a random id or a counter can repeat itself within
the same second, or from a fresh process. Two mechanisms make "deterministic" a claim that holds:

- :func:`carries_clock` — the output shows the wall-clock time of the call itself (an ISO 8601
  date-time, or Unix seconds or milliseconds, within :data:`CLOCK_WINDOW_S` of when the call ran,
  and not an argument's value): non-deterministic at once, no wait needed;
- :func:`without_clock` — the output with every reading of the present clock masked (a date-time
  or Unix time near the call, today's date, a time of day): two answers of a read that differ only
  there differ because time passed, not because anything changed;
- :func:`later_second` — when a replay has to run again in another second of the clock (the
  executor waits for it once for a whole batch of replays, then repeats each call from the
  snapshot: a timestamp, a random id or a counter then shows as a different output). A replay
  that itself began in a second later than the one it was planned in needs no repeat: the call it
  is compared with ran before the planning, so the two already lie in different seconds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta

from toolatlas.models import CallOutcome

__all__ = ["CLOCK_WINDOW_S", "SECOND_MARGIN_S", "carries_clock", "later_second", "second_after", "without_clock"]

CLOCK_WINDOW_S = 300.0
"""A time this close to the call (either way) is the call's own clock reading."""
SECOND_MARGIN_S = 0.02
"""How far past the next whole second a repeated call starts (clock reads are not simultaneous)."""

_ISO = re.compile(
    r"(?<!\d)(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?"
    r"\s?(Z|[+-]\d{2}:?\d{2})?(?!\d)"
)
_EPOCH = re.compile(r"(?<![\d.])(\d{10}|\d{13})(?:\.\d+)?(?![\d])")


def _readings(text: str) -> Iterable[tuple[datetime, bool]]:
    """``(time, aware)`` for each date-time or Unix timestamp in ``text``."""
    for match in _ISO.finditer(text):
        year, month, day, hour, minute, second, zone = match.groups()
        try:
            when = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0))
        except ValueError:
            continue
        if zone:
            offset = 0 if zone == "Z" else (1 if zone[0] == "+" else -1) * (
                int(zone[1:3]) * 60 + int(zone[-2:])
            )
            yield (when - timedelta(minutes=offset)).replace(tzinfo=UTC), True
        else:
            yield when, False
    for match in _EPOCH.finditer(text):
        value = int(match.group(1))
        seconds = value / 1000 if len(match.group(1)) == 13 else value
        try:
            yield datetime.fromtimestamp(seconds, UTC), True
        except (OverflowError, OSError, ValueError):
            continue


def carries_clock(outcome: CallOutcome) -> bool:
    """Whether the output shows the time the call ran at (not a time given in its arguments)."""
    text = outcome.excerpt or ""
    if outcome.structured is not None:
        text += "\n" + repr(outcome.structured)
    given = repr(outcome.arguments)
    at = outcome.started_at if outcome.started_at.tzinfo else outcome.started_at.replace(tzinfo=UTC)
    local = datetime.now().astimezone().utcoffset() or timedelta(0)
    window = timedelta(seconds=CLOCK_WINDOW_S)
    for when, aware in _readings(text):
        if aware:
            candidates = [when]
        else:  # a naive time: UTC or this machine's local time (a server in another zone says its offset)
            candidates = [when.replace(tzinfo=UTC), (when - local).replace(tzinfo=UTC)]
        if any(abs(c - at) <= window for c in candidates) and not _given(when, given):
            return True
    return False


PRESENT_S = 2 * 86400.0
"""A dated reading this close to the call (either way, any time zone) reads the present clock."""
CLOCK_MASK = "<clock>"
_DATE = re.compile(r"(?<![\d/-])(\d{4})-(\d{2})-(\d{2})(?![\d/-])")
_SLASHED = re.compile(r"(?<![\d/])(\d{1,4})/(\d{1,2})/(\d{2,4})(?![\d/])")
_TIME_OF_DAY = re.compile(r"(?<![\d:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d+)?)?(?:\s?[AaPp]\.?[Mm]\b\.?)?(?![\d:])")


def without_clock(text: str, at: datetime | None = None) -> str:
    """``text`` with every reading of the present clock masked: a date-time or a Unix time (seconds or
    milliseconds) within :data:`PRESENT_S` of ``at`` (the call's start, else now), a date of those
    days (``2025-03-23``, ``03/23/2025``), and any time of day (``20:41:07``, ``8:41 PM``: no date says
    when it is). What is left is what the answer says besides the time it was given at."""
    moment = (at if at is not None and at.tzinfo else (at or datetime.now(UTC)).replace(tzinfo=UTC)).timestamp()

    def present(when: datetime) -> bool:
        return abs(when.replace(tzinfo=when.tzinfo or UTC).timestamp() - moment) <= PRESENT_S

    def dated(match: re.Match[str]) -> str:
        when = next(iter(_readings(match.group(0))), None)
        return CLOCK_MASK if when is not None and present(when[0]) else match.group(0)

    def day(*fields: str) -> Callable[[re.Match[str]], str]:
        def check(match: re.Match[str]) -> str:
            parts = dict(zip(fields, (int(g) for g in match.groups()), strict=True))
            year = parts["y"] + (2000 if parts["y"] < 100 else 0)
            try:
                return CLOCK_MASK if present(datetime(year, parts["m"], parts["d"], 12)) else match.group(0)
            except ValueError:
                return match.group(0)
        return check

    text = _ISO.sub(dated, text)
    text = _EPOCH.sub(dated, text)
    text = _DATE.sub(day("y", "m", "d"), text)
    text = _SLASHED.sub(lambda m: (day("y", "m", "d") if len(m.group(1)) == 4 else day("m", "d", "y"))(m), text)
    return _TIME_OF_DAY.sub(CLOCK_MASK, text)


def _given(when: datetime, arguments: str) -> bool:
    return when.strftime("%Y-%m-%d") in arguments and when.strftime("%H:%M") in arguments


def later_second(outcomes: Iterable[CallOutcome]) -> float:
    """The Unix time by which a second has begun that is later than every second these calls ran in."""
    ends = [o.started_at.timestamp() + o.latency_ms / 1000 for o in outcomes]
    return second_after(max(ends, default=0.0))


def second_after(moment: float) -> float:
    """The Unix time by which a second of the clock later than ``moment``'s has begun."""
    return math.floor(moment) + 1 + SECOND_MARGIN_S
