"""The server's own state: what a server keeps in memory between calls, read through its own tools.

A server process lives across many probes, and what it remembers is not always what its environment
holds. Where the environment holds no state (kind ``none``) no digest sees it at all — the test cases
a regex server was given, the tables an in-memory database was asked to create. Where it does, a
server may still keep a copy in memory (a todo list loaded once): after the instance is restored the
copy is stale. Either way one probe's calls would decide what the next one sees, and the next one's
evidence (its own calls before the one recorded) would not replay on a fresh sandbox. The executor
therefore keeps every probe on the state a fresh server has, as far as the server's own reads show:

- **readers** are the server's argument-free read tools — no required argument, annotated
  read-only or described (or named) by a verb of reading, and not saying they change state —,
  listings first (a listing of every collection shows a change to any of them; a getter of one
  object, one collection). A read that changes what the readers chosen before it show (a default
  graph made on its first use) is no reader: the server is restarted, and after
  :data:`MAX_DISTURBING` such reads no more readers are looked for;
- **the fresh answer** of each reader is read twice on a freshly started server; a reader whose
  two answers differ shows nothing stable and is dropped (as is one that does not answer within
  :data:`READ_TIMEOUT_S`, a margin wide enough that the choice does not depend on the machine's
  speed or load: the atlas must not). Answers are compared with the present clock masked
  (:func:`~toolatlas.probing.clock.without_clock`): a listing that says when each collection was
  created, a status line with the time of day, change every second with nothing changed;
- **when to ask**: where the environment holds no state, after every probe that called anything but
  readers; where it does, after every probe that called, successfully, a tool that is not a reader
  and is not declared read-only, and left the instance as it was (a document loaded into memory, a
  graph made on first use, change no file) — and after such a probe whose changes were undone by
  restoring the instance while one of those tools is not yet trusted. A tool is trusted once
  :data:`TRUSTED_AFTER` restored probes that called it were followed by the fresh answers (it keeps
  its state in the environment: asking further would cost calls and show nothing), and never once a
  probe that called it was followed by a change (a tool that opens a session in memory does so every
  time; trust earned by the server's other tools says nothing of it);
- an answer that differs from the fresh one (or a reader that no longer answers) is a change the
  restore did not undo: each name a listing newly shows is given to the server's tool that deletes
  such things by name (:mod:`~toolatlas.probing.deleters`: ``delete_graph``, ``close_session``), or
  else its **clearing tool** — an argument-free tool that says it clears, resets or reloads — is
  called, and when every reader then answers as fresh, the state is fresh again; otherwise (or at
  once, without either) the server is restarted;
- where the environment holds no state, a call of a tool that says it changes state
  (:func:`~toolatlas.probing.evidence.promises_change`) that succeeded while no reader shows a change
  may have changed what no reader shows (a row inserted where the readers list tables): the server is
  restarted — unless that call was the clearing tool's, whose effect is to leave what a fresh server has,
  or its statement only read (:func:`reads_only`: a SELECT through a tool that runs any SQL, whose
  name holds no verb of change — ``create_view`` given a SELECT makes a view).

A read costs a call (milliseconds), a deletion or a clearing a few; a restart costs a server start
(a second or more), paid only after a change the server's own tools cannot undo. What a tool that does not say
it changes state changes where no reader shows it stays unseen.
"""

from __future__ import annotations

import re
from typing import Any

import structlog

from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.bindings import answer_document
from toolatlas.probing.clock import without_clock
from toolatlas.probing.deleters import Deleter, find_deleters, new_names
from toolatlas.probing.evidence import names_a_change, promises_change
from toolatlas.probing.verifier import step_failed

__all__ = ["READ_TIMEOUT_S", "OwnState", "is_clearing", "is_state_reader", "reads_only"]

log = structlog.get_logger(__name__)

READ_TIMEOUT_S = 2.0
"""Longest wait for one reader's answer (an ordinary read takes milliseconds)."""
MAX_DISTURBING = 2
"""Argument-free reads found changing what the other readers show (each costs a restart) after which
no more readers are looked for."""
MAX_READERS = 3
"""Readers asked after a probe (listings first, then by name): enough to see a server's few collections."""
TRUSTED_AFTER = 8
"""Probes of a tool whose changes a restore undid, after which the readers answered as fresh: from
then on the tool is taken to keep what it changes in the environment, and a restore after it is no
longer followed by the readers."""

_READ_VERBS = frozenset("get list show read describe view count fetch find search display return".split())
_LIST_VERBS = frozenset("list enumerate".split())
_CLEAR_VERBS = frozenset("clear reset erase wipe purge empty reload refresh resync".split())
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _starts_with(text: str, verbs: frozenset[str]) -> bool:
    """Whether ``text`` (a description, a tool name) starts with one of ``verbs``."""
    match = _WORDS.search(text or "")
    word = match.group(0).lower() if match else ""
    return word in verbs or word.removesuffix("s") in verbs


def is_state_reader(spec: ToolSpec) -> bool:
    """Whether a tool can be asked at any time, with no argument, what the server holds: no required
    argument, and annotated read-only or described (or named) by a verb of reading, never a change."""
    hints = spec.annotations
    if spec.required or promises_change(spec) or hints.read_only is False or hints.destructive:
        return False
    return bool(hints.read_only) or _starts_with(spec.description, _READ_VERBS) or _starts_with(spec.name, _READ_VERBS)


_READ_STATEMENT = re.compile(r"^\s*\(*\s*(?:select|with|show|describe|explain|values)\b", re.IGNORECASE)
_WORDS_OF_CHANGE = re.compile(
    r"\b(?:insert|update|delete|merge|upsert|create|drop|alter|truncate|replace|rename|attach|detach|copy|"
    r"into|set|call|exec|execute|vacuum|analy[sz]e|install|load|import|export|checkpoint|pragma|begin|commit|"
    r"rollback|grant|revoke|lock|nextval|setval|setseed)\b",
    re.IGNORECASE,
)


def reads_only(arguments: dict) -> bool:
    """Whether a call's statement only reads: one of its arguments is an SQL statement that starts
    like a read (``SELECT``, ``WITH``, ``SHOW``…) and no argument holds a word that could make any
    statement change something (``INSERT``, ``INTO``, ``SET``, ``nextval``…, a second statement's
    verb included) — whatever the tool says of itself, such a call changed nothing."""
    texts = [value for value in arguments.values() if isinstance(value, str)]
    reads = any(_READ_STATEMENT.match(text) for text in texts)
    return reads and not any(_WORDS_OF_CHANGE.search(text) for text in texts)


def is_clearing(spec: ToolSpec) -> bool:
    """Whether a tool, with no argument, says it clears, resets or reloads what the server holds."""
    return not spec.required and (_starts_with(spec.description, _CLEAR_VERBS) or _starts_with(spec.name, _CLEAR_VERBS))


def _usable(outcome: CallOutcome) -> bool:
    """An answer a reader can be judged by: it came."""
    return outcome.outcome not in (OutcomeClass.CRASH, OutcomeClass.TIMEOUT)


def _lists(spec: ToolSpec) -> bool:
    """Whether a reader lists (named or described so): what it shows spans the server's collections."""
    return _starts_with(spec.name, _LIST_VERBS) or _starts_with(spec.description, _LIST_VERBS)


def _answer(outcome: CallOutcome) -> str:
    """A reader's answer as it is compared: its class and text, the present clock masked (a time of
    day in a status line changes every second with nothing changed)."""
    return f"{outcome.outcome.value}:{without_clock(outcome.excerpt, outcome.started_at)}"


class OwnState:
    """The readers of one server, their answers on a fresh server, and its clearing tool."""

    def __init__(self, fresh: dict[str, str], clearing: str | None = None, *, environment_holds_state: bool = False) -> None:
        self.fresh = fresh
        """Reader name → its answer on a freshly started server."""
        self.clearing = clearing if fresh else None
        """The argument-free tool that says it clears the server's state (None: restarts only). Without
        readers nothing shows what it cleared."""
        self.environment_holds_state = environment_holds_state
        self.quiet_calls: dict[str, int] = {}
        """Tool → probes that called it (successfully; it is no reader and not declared read-only) and
        after whose restore the readers answered as fresh (see :data:`TRUSTED_AFTER`)."""
        self.changers: set[str] = set()
        """Tools called in a probe after which a reader had changed: the readers are asked after every
        call of them."""
        self.documents: dict[str, Any] = {}
        """Reader name → its fresh answer's JSON, if it is JSON (what new names are told apart from)."""
        self.deleters: dict[str, Deleter] = {}
        """Reader name → the tool that deletes by name what it lists (:mod:`~toolatlas.probing.deleters`)."""
        self.restarts = 0
        self.clearings = 0
        self.deletions = 0

    @property
    def readers(self) -> list[str]:
        return sorted(self.fresh)

    @classmethod
    async def read_fresh(cls, sandbox) -> OwnState:
        """Choose the readers of a freshly started server (``sandbox``) and keep their answers; its
        environment's kind says whether a restore undoes what a probe changed."""
        state = cls({}, environment_holds_state=sandbox.environment.kind != "none")
        disturbing = 0
        for spec in sorted(sandbox.tools, key=lambda t: (not _lists(t), t.name)):
            if len(state.fresh) >= MAX_READERS or disturbing >= MAX_DISTURBING or not is_state_reader(spec):
                continue
            first = await sandbox.call(spec.name, {}, timeout=READ_TIMEOUT_S)
            if not _usable(first):
                continue
            second = await sandbox.call(spec.name, {}, timeout=READ_TIMEOUT_S)
            if not (_usable(second) and _answer(first) == _answer(second)):
                continue
            if state.fresh and await state.changed(sandbox, []):
                disturbing += 1  # reading it changed what the others show (a default graph made on first use)
                log.debug("own_state_reader_changes_state", server=sandbox.spec.name, reader=spec.name)
                await state.restart(sandbox, counted=False)
                continue
            state.fresh[spec.name] = _answer(first)
            state.documents[spec.name] = answer_document(first)
        state.clearing = next((t.name for t in sorted(sandbox.tools, key=lambda t: t.name)
                               if t.name not in state.fresh and is_clearing(t)), None) if state.fresh else None
        state.deleters = find_deleters(sandbox.tools, state.fresh)
        log.debug("own_state_readers", server=sandbox.spec.name, readers=sorted(state.fresh), clearing=state.clearing,
                  deleters={r: d.tool for r, d in state.deleters.items()})
        return state

    async def keep_fresh(self, sandbox, calls: list[tuple[str, dict, CallOutcome]], *, restored: bool) -> str:
        """After ``calls`` (tool, planned arguments, outcome) of a probe — ``restored``: the instance was
        restored after them — bring the server back to what a fresh one holds (see the module
        docstring): ``""`` when it had not changed, ``cleared`` or ``restarted``."""
        specs = {t.name: t for t in sandbox.tools}
        if self.environment_holds_state:
            acting = sorted({
                tool for tool, arguments, outcome in calls
                if tool not in self.fresh and not (specs.get(tool) and specs[tool].annotations.read_only)
                and not step_failed(outcome, arguments, specs.get(tool))[0]})
            if restored and not acting:  # what changed the instance said it only reads, or seemed to fail
                acting = sorted({tool for tool, _, _ in calls if tool not in self.fresh})
            trusted = all(t not in self.changers and self.quiet_calls.get(t, 0) >= TRUSTED_AFTER for t in acting)
            if not self.fresh or not acting or (restored and trusted):
                return ""
            seen, said = await self.changed(sandbox, []), []
            if seen:
                self.changers.update(acting)
            elif restored:
                for tool in acting:
                    self.quiet_calls[tool] = self.quiet_calls.get(tool, 0) + 1
        else:
            said = [tool for tool, arguments, outcome in calls if promises_change(specs.get(tool))
                    and not step_failed(outcome, arguments, specs.get(tool))[0]
                    and not (reads_only(arguments) and not names_a_change(specs[tool]))]
            seen = await self.changed(sandbox, [tool for tool, _, _ in calls])
        if seen and await self._delete_new(sandbox, seen):
            self.deletions += 1
            return "deleted"
        if seen and self.clearing is not None:
            cleared = await sandbox.call(self.clearing, {}, timeout=READ_TIMEOUT_S)
            if cleared.outcome is OutcomeClass.OK and not await self.changed(sandbox, [self.clearing]):
                self.clearings += 1
                return "cleared"
            log.debug("own_state_not_cleared", server=sandbox.spec.name, clearing=self.clearing)
            self.clearing = None  # it does not bring the fresh answers back: restarts from now on
        elif not seen and (not said or said[-1] == self.clearing):
            return ""
        log.debug("own_state_changed", server=sandbox.spec.name, changed_by=said, readers=seen)
        await self.restart(sandbox)
        return "restarted"

    async def changed(self, sandbox, tools: list[str]) -> list[str]:
        """The readers whose answer now differs from the fresh server's (a failed read counts), after
        calls of ``tools`` (none is asked after calls of readers alone; ``[]``: ask)."""
        differ: list[str] = []
        if tools and all(tool in self.fresh for tool in tools):
            return differ
        for name, answer in self.fresh.items():
            outcome = await sandbox.call(name, {}, timeout=READ_TIMEOUT_S)
            if _answer(outcome) != answer:
                differ.append(name)
        return differ

    async def _delete_new(self, sandbox, seen: list[str]) -> bool:
        """Give each name a changed listing newly shows to the listing's deleter; whether every reader
        then answers as fresh (:mod:`~toolatlas.probing.deleters`)."""
        called = False
        for reader in seen:
            deleter = self.deleters.get(reader)
            if deleter is None:
                continue
            now = answer_document(await sandbox.call(reader, {}, timeout=READ_TIMEOUT_S))
            for name in new_names(self.documents.get(reader), now, deleter.argument):
                await sandbox.call(deleter.tool, {deleter.argument: name}, timeout=READ_TIMEOUT_S)
                called = True
        return called and not await self.changed(sandbox, [])

    async def restart(self, sandbox, *, counted: bool = True) -> None:
        """Start the server afresh and take the new process's answers as the fresh ones (an answer
        may name the process: its id, its start). The old process's state is thrown away: it is
        stopped without an orderly exit. ``counted``: a restart a probe made necessary (not one of
        choosing the readers)."""
        await sandbox.connection.restart(graceful=False)
        self.restarts += counted
        for name in list(self.fresh):
            outcome = await sandbox.call(name, {}, timeout=READ_TIMEOUT_S)
            self.fresh[name], self.documents[name] = _answer(outcome), answer_document(outcome)
