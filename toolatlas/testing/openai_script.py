"""Scripts for the scripted OpenAI-compatible server: ordered rules, replies, faults.

A :class:`Script` answers each chat request with the first live :class:`Rule` whose
:class:`Match` accepts it. A rule responds with a :class:`Reply` (text, tool calls, a JSON
object), a :class:`Fault`, or a *policy*: a callable given the parsed
:class:`~toolatlas.testing.openai_wire.ChatRequest` that returns either (a string is a text
reply, a dict a JSON reply). A rule with ``times=n`` answers n requests and then steps aside,
which is how a test scripts "first malformed, then valid"::

    script = Script()
    script.add(Fault.malformed_json(), times=1, role="proposer")
    script.add({"tasks": ["..."]}, role="proposer")
    script.add(lambda request: Reply.call("read_file", {"path": "a.txt"}), role="agent", tools=True)
    script.inject(Fault.rate_limit(retry_after=0.1))   # the very next request, whatever it is

Faults: an HTTP status (429 with Retry-After, 500, 503...), a delay before answering (to make
clients time out), malformed JSON content, an answer that violates the requested schema, and a
connection dropped mid-response. Queued faults (:meth:`Script.inject`) come before any rule.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from toolatlas.llm.roles import role_tag
from toolatlas.testing.openai_wire import ChatRequest

__all__ = ["Fault", "Match", "Policy", "Reply", "Rule", "Script", "ScriptedCall", "Step", "role_tag"]


@dataclass(frozen=True)
class ScriptedCall:
    """One tool call a scripted reply makes (``arguments`` may be a raw string, to script bad JSON)."""

    name: str
    arguments: dict[str, Any] | str
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """A successful answer: text, and/or tool calls; token counts are computed unless given."""

    content: str | None = None
    tool_calls: tuple[ScriptedCall, ...] = ()
    finish_reason: str | None = None  # default: "tool_calls" when there are calls, else "stop"
    completion_tokens: int | None = None
    prompt_tokens: int | None = None

    @classmethod
    def say(cls, text: str) -> Reply:
        return cls(content=text)

    @classmethod
    def json(cls, value: Any) -> Reply:
        """A structured answer: ``value`` serialised as the message content."""
        return cls(content=json.dumps(value))

    @classmethod
    def call(
        cls, name: str, arguments: dict[str, Any] | str | None = None, *, id: str | None = None
    ) -> Reply:
        """One tool call (finish reason ``tool_calls``)."""
        return cls(tool_calls=(ScriptedCall(name, arguments if arguments is not None else {}, id),))

    @classmethod
    def calls(cls, *calls: ScriptedCall, content: str | None = None) -> Reply:
        """Parallel tool calls, optionally with text beside them."""
        return cls(content=content, tool_calls=tuple(calls))


FaultKind = Literal["status", "delay", "malformed_json", "invalid_schema", "drop"]


@dataclass(frozen=True)
class Fault:
    """A misbehaviour of the endpoint."""

    kind: FaultKind
    status: int = 500
    retry_after: float | None = None
    seconds: float = 0.0
    text: str = ""

    @classmethod
    def http(cls, status: int, message: str = "", *, retry_after: float | None = None) -> Fault:
        """An HTTP error with an OpenAI error body (and a Retry-After header when given)."""
        return cls(
            "status", status=status, retry_after=retry_after, text=message or f"scripted HTTP {status}"
        )

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0) -> Fault:
        return cls.http(429, "Rate limit reached (scripted)", retry_after=retry_after)

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        return cls.http(status, "The server had an error while processing your request (scripted)")

    @classmethod
    def unavailable(cls, retry_after: float | None = None) -> Fault:
        return cls.http(503, "The engine is currently overloaded (scripted)", retry_after=retry_after)

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Wait ``seconds``, then answer from the rules (a client with a shorter timeout gives up)."""
        return cls("delay", seconds=seconds)

    @classmethod
    def malformed_json(cls, text: str = '{"answer": "unterminated') -> Fault:
        """A 200 answer whose content is not JSON."""
        return cls("malformed_json", status=200, text=text)

    @classmethod
    def invalid_schema(cls) -> Fault:
        """A 200 answer whose content is JSON that violates the requested schema."""
        return cls("invalid_schema", status=200)

    @classmethod
    def drop(cls) -> Fault:
        """Start the response, then close the connection mid-body."""
        return cls("drop", status=200)


Policy = Callable[[ChatRequest], "Reply | Fault | str | dict[str, Any]"]
Respond = Reply | Fault | Policy | str | dict[str, Any]


@dataclass(frozen=True)
class Match:
    """A request predicate; every field that is set must hold.

    ``user`` and ``system`` are regular expressions searched in the last user message and the
    system prompt; ``tools`` / ``structured`` test for the presence of tools / a JSON schema;
    ``tool`` for one offered tool; ``where`` is any predicate.
    """

    role: str | None = None
    model: str | None = None
    user: str | None = None
    system: str | None = None
    tools: bool | None = None
    tool: str | None = None
    structured: bool | None = None
    schema: str | None = None
    where: Callable[[ChatRequest], bool] | None = None

    def accepts(self, request: ChatRequest) -> bool:
        checks = (
            self.role is None or request.role == self.role,
            self.model is None or request.model == self.model,
            self.user is None or re.search(self.user, request.last_user_text) is not None,
            self.system is None or re.search(self.system, request.system_text) is not None,
            self.tools is None or bool(request.tools) == self.tools,
            self.tool is None or self.tool in request.tool_names,
            self.structured is None or (request.json_schema is not None) == self.structured,
            self.schema is None or request.schema_name == self.schema,
        )
        return all(checks) and (self.where is None or self.where(request))


@dataclass(frozen=True)
class Rule:
    """When ``match`` accepts: wait ``delay_s``, then respond; live for ``times`` requests (None: always)."""

    match: Match
    respond: Respond
    times: int | None = None
    delay_s: float = 0.0
    name: str = ""


@dataclass(frozen=True)
class Step:
    """What the server does with one request: wait, then send ``response`` (None: no rule matched)."""

    response: Reply | Fault | None
    delay_s: float = 0.0
    rule: int | None = None
    error: str | None = None  # a policy raised: the server answers 400 with this message


class Script:
    """Ordered rules plus a queue of faults; thread-safe (the server runs in its own thread)."""

    def __init__(self, rules: Iterable[Rule] = (), *, models: Iterable[str] = ("scripted-model",)) -> None:
        self.rules: list[Rule] = list(rules)
        self.models = list(models)
        self._uses: list[int] = [0] * len(self.rules)
        self._faults: deque[Fault] = deque()
        self._lock = threading.RLock()  # a policy may add rules

    def add(
        self,
        respond: Respond,
        *,
        times: int | None = None,
        delay_s: float = 0.0,
        name: str = "",
        **match: Any,
    ) -> Script:
        """Append a rule; keyword arguments are :class:`Match` fields. Returns the script, for chaining."""
        with self._lock:
            self.rules.append(Rule(Match(**match), respond, times, delay_s, name))
            self._uses.append(0)
        return self

    def inject(self, *faults: Fault) -> Script:
        """Queue faults for the next requests, one each, before any rule is consulted."""
        with self._lock:
            self._faults.extend(faults)
        return self

    def uses(self, index: int) -> int:
        """How many requests rule ``index`` answered."""
        return self._uses[index]

    @property
    def pending_faults(self) -> int:
        return len(self._faults)

    def next_step(self, request: ChatRequest) -> Step:
        """Consume what answers ``request``: queued faults first, then the first live matching rule.

        Delays (queued, or returned by a rule) add up and let resolution go on; any other fault
        or a reply ends it.
        """
        delay = 0.0
        with self._lock:
            while self._faults:
                fault = self._faults.popleft()
                if fault.kind != "delay":
                    return Step(fault)
                delay += fault.seconds
            for index, rule in enumerate(self.rules):
                if (rule.times is not None and self._uses[index] >= rule.times) or not rule.match.accepts(
                    request
                ):
                    continue
                self._uses[index] += 1
                delay += rule.delay_s
                try:
                    response = _coerce(rule.respond(request) if callable(rule.respond) else rule.respond)
                except Exception as exc:  # a test's policy is broken: say so in the HTTP answer
                    return Step(None, delay, index, error=f"rule {rule.name or index} raised {exc!r}")
                if isinstance(response, Fault) and response.kind == "delay":
                    delay += response.seconds
                    continue
                return Step(response, delay, index)
        return Step(None, delay)


def _coerce(response: Reply | Fault | str | dict[str, Any]) -> Reply | Fault:
    if isinstance(response, str):
        return Reply.say(response)
    if isinstance(response, dict):
        return Reply.json(response)
    if isinstance(response, Reply | Fault):
        return response
    raise TypeError(
        f"a rule must respond with a Reply, a Fault, a str or a dict, not {type(response).__name__}"
    )
