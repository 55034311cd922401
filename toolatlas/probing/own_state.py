"""The server's own state: what a server keeps in memory between calls, read through its own tools.

Where the environment holds no state (kind ``none``) no digest sees what a server remembers — the
test cases a regex server was given, the tables an in-memory database was asked to create. A
server process lives across many probes, so without care one probe's calls would decide what the
next one sees, and the next one's evidence (its own calls before the one recorded) would not
replay on a fresh server. The executor therefore keeps every probe on the state a fresh server
has, as far as the server's own reads show it:

- **readers** are the server's argument-free read tools — no required argument, annotated
  read-only or described (or named) by a verb of reading, and not saying they change state;
- **the fresh answer** of each reader is read twice on a freshly started server; a reader whose
  two answers differ, or that shows the clock of the call, shows nothing stable and is dropped (as
  is one that takes longer than :data:`QUICK_READ_MS`: it would be asked after every probe);
- **after a probe** the server is restarted when a call of a tool that says it changes state
  (:func:`~toolatlas.probing.evidence.promises_change`) succeeded — its readers may not show all it
  changed (a row inserted where the readers list tables) — or when the readers, asked again after a
  probe that called anything but readers, answer otherwise than the fresh server did (or no longer
  answer): then a tool changed the server's state without saying so.

A read costs a call (milliseconds); a restart costs a server start (about a second), paid only
after a successful change or a change seen. What a tool that does not say it changes state changes
where no reader shows it stays unseen.
"""

from __future__ import annotations

import re

import structlog

from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.clock import carries_clock
from toolatlas.probing.evidence import promises_change

__all__ = ["READ_TIMEOUT_S", "OwnState", "is_state_reader"]

log = structlog.get_logger(__name__)

READ_TIMEOUT_S = 2.0
"""Longest wait for one reader's answer (an ordinary read takes milliseconds)."""
QUICK_READ_MS = 250.0
"""A tool slower than this on a fresh server is no reader: it would be asked after every probe."""
MAX_READERS = 3
"""Readers asked after a probe (the first by name): enough to see a server's few collections."""

_READ_VERBS = frozenset("get list show read describe view count fetch find search display return".split())
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _reads(text: str) -> bool:
    """Whether ``text`` (a description, a tool name) starts with a verb of reading."""
    match = _WORDS.search(text or "")
    word = match.group(0).lower() if match else ""
    return word in _READ_VERBS or word.removesuffix("s") in _READ_VERBS


def is_state_reader(spec: ToolSpec) -> bool:
    """Whether a tool can be asked at any time, with no argument, what the server holds: no required
    argument, and annotated read-only or described (or named) by a verb of reading, never a change."""
    hints = spec.annotations
    if spec.required or promises_change(spec) or hints.read_only is False or hints.destructive:
        return False
    return bool(hints.read_only) or _reads(spec.description) or _reads(spec.name)


def _usable(outcome: CallOutcome) -> bool:
    """An answer a reader can be judged by: it came, quickly, and does not show the clock."""
    if outcome.outcome in (OutcomeClass.CRASH, OutcomeClass.TIMEOUT):
        return False
    return outcome.latency_ms <= QUICK_READ_MS and not carries_clock(outcome)


def _answer(outcome: CallOutcome) -> str:
    return f"{outcome.outcome.value}:{outcome.excerpt}"


class OwnState:
    """The readers of one server and their answers on a fresh server."""

    def __init__(self, fresh: dict[str, str]) -> None:
        self.fresh = fresh
        """Reader name → its answer on a freshly started server."""

    @property
    def readers(self) -> list[str]:
        return sorted(self.fresh)

    @classmethod
    async def read_fresh(cls, sandbox) -> OwnState:
        """Choose the readers of a freshly started server (``sandbox``) and keep their answers."""
        fresh: dict[str, str] = {}
        for spec in sorted(sandbox.tools, key=lambda t: t.name):
            if len(fresh) >= MAX_READERS or not is_state_reader(spec):
                continue
            first = await sandbox.call(spec.name, {}, timeout=READ_TIMEOUT_S)
            if not _usable(first):
                continue
            second = await sandbox.call(spec.name, {}, timeout=READ_TIMEOUT_S)
            if _usable(second) and _answer(first) == _answer(second):
                fresh[spec.name] = _answer(first)
        log.debug("own_state_readers", server=sandbox.spec.name, readers=sorted(fresh))
        return cls(fresh)

    async def changed(self, sandbox, tools: list[str]) -> list[str]:
        """The readers whose answer now differs from the fresh server's (a failed read counts), after
        calls of ``tools`` (none is asked after calls of readers alone)."""
        differ: list[str] = []
        if all(tool in self.fresh for tool in tools):
            return differ
        for name, answer in self.fresh.items():
            outcome = await sandbox.call(name, {}, timeout=READ_TIMEOUT_S)
            if _answer(outcome) != answer:
                differ.append(name)
        return differ

    async def restart(self, sandbox) -> None:
        """Start the server afresh and take the new process's answers as the fresh ones (an answer
        may name the process: its id, its start). The old process's state is thrown away: it is
        stopped without an orderly exit."""
        await sandbox.connection.restart(graceful=False)
        for name in list(self.fresh):
            self.fresh[name] = _answer(await sandbox.call(name, {}, timeout=READ_TIMEOUT_S))
