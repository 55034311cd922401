"""When a successful result reports an error: only on positive evidence, never for an echo.

An ``ok`` result (``isError`` false) whose text reads like an error may still be the tool's
normal answer: an echo of an input that itself reads like an error, a log that starts with
``ERROR``, a document about failures. It is counted as an error only when

1. its text still starts like an error once every argument value it repeats is taken out (so a
   result that echoes its input is never an error by its words), and
2. one piece of positive evidence backs those words:

   - *about the call*: the text names one of the call's argument values or argument names (``no
     such file: notes/a.md``, ``invalid value for base``);
   - *a bare message*: the whole result is a short message (a line or two), not content (structured
     content that only wraps that text is no content either);
   - *not the verified shape*: the tool declares an output schema and this result carries no
     structured content (a conforming result has the shape its successes have);
   - *no effect where one is promised*: the tool says it changes state (its annotations, a
     description that starts with a verb of change, or such a verb in its name) and the state did
     not change;
   - *a step that must come first*: the first line asks for one (``Please add test cases first``,
     ``No project selected``);
   - *the tool's own action failed*: the first line names every word of the tool's name
     (``Failed to convert document to PDF`` from ``convert_to_pdf``).

A short message whose value is what a failed computation prints (``NaN``, ``Invalid Date``: ``The
number of days in month is NaN.``) is an error too, unless the call itself carried that word: it
starts like an answer, but the value it answers is the sign of a failure.

A result that reports it found nothing to act on (``No occurrences of 'x' found.``) does not start
like an error; from a tool that promises a change and made none, it is one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.bindings import wraps_text
from toolatlas.probing.text import json_error_reason, looks_like_error, parse_answer, tally_failure
from toolatlas.probing.verdicts import judged_no

__all__ = ["NOTHING_DONE", "argument_values", "error_evidence", "names_a_change", "promises_change", "without_echoes"]

BARE_MESSAGE_CHARS = 300
"""A result this short (and of at most :data:`BARE_MESSAGE_LINES` lines) is a message, not content."""
BARE_MESSAGE_LINES = 2
ECHO_MIN_CHARS = 3
"""Argument values shorter than this are too common to be recognised as repeated."""
_PREFIX_CHARS = 16
"""A value cut off by the excerpt is recognised by at least this many leading characters."""

_CHANGE_VERBS = frozenset(
    "add append apply archive assign clear commit copy create delete drop edit erase insert install "
    "link make merge mkdir move post push put remove rename replace reset restore revert save send set "
    "stage store tag unstage update upload upsert write".split()
)
_FIRST_WORD = re.compile(r"[A-Za-z]+")
_NAME_WORD = re.compile(r"[A-Za-z][a-z]*|[0-9]+")
_FIRST_STEP = re.compile(
    r"\b(?:add|create|define|set ?up|initiali[sz]e|call|run|open|load|select|register|configure|connect|start|"
    r"make|provide|upload|install)\b[^.\n]{0,60}\b(?:first|beforehand|before (?:calling|using|running))\b"
    r"|\bno\b[^.\n]{0,40}\b(?:defined|created|loaded|configured|selected|registered|initiali[sz]ed|opened|set up)"
    r"(?: yet)?\b",
    re.IGNORECASE,
)
"""Words that ask for a step before the call (what the server needs done first)."""
_FAILED_VALUE = re.compile(r"(?<![\w-])(?:NaN|Invalid Date)(?![\w-])")
"""What a failed number or date computation prints in place of its value (JavaScript's renderings)."""
NOTHING_DONE = re.compile(
    r"^\s*(?:no\b[^\n.]{0,80}?\b(?:found|matched|to (?:replace|update|delete|change|remove))\b"
    r"|nothing (?:to|was)\b|0 (?:occurrences|matches|items|rows)\b[^\n]{0,40}\b(?:replaced|updated|changed|deleted|removed))",
    re.IGNORECASE,
)
"""A report that the call found nothing to act on."""
_NAME_FILLERS = frozenset({"to", "of", "and", "or", "the", "a", "an", "by", "for", "from", "in", "on", "with", "as"})


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)


def argument_values(*arguments: Mapping[str, Any] | None) -> list[str]:
    found = {v for args in arguments if args for v in _strings(args) if len(v.strip()) >= ECHO_MIN_CHARS}
    return sorted(found, key=len, reverse=True)


def without_echoes(text: str, values: Iterable[str]) -> tuple[str, bool]:
    """``text`` with every repeated argument value taken out (also one the excerpt cut short), and
    whether any was there."""
    found = False
    for value in values:
        if value in text:
            text, found = text.replace(value, " "), True
            continue
        head = value[:_PREFIX_CHARS]
        at = text.find(head) if len(head) >= _PREFIX_CHARS else -1
        if at >= 0 and value.startswith(text[at:]):  # the excerpt ends inside the value
            text, found = text[:at], True
    return text, found


EMPTY_ANSWER = re.compile(
    r"^\W{0,3}\s*(?:\[\s*\]|\{\s*\}|none\b|nothing\b|0 (?:\w+ ){0,2}(?:results?|entries|items|matches|records|rows)\b|"
    r"no (?:\w+ ){0,2}(?:results?|entries|items|matches|records|rows|notes|memories|documents|files|terms)\b)",
    re.IGNORECASE,
)
"""An answer that opens by saying it holds nothing (``No entries with tag 'aut'.``, ``0 results``, ``[]``)."""


_COUNT_WORD = r"(?:total|count|match(?:es)?|found|results?|hits|num(?:ber)?)"
_NONE_COUNTED = re.compile(rf'^\s*\{{\s*"{_COUNT_WORD}(?:_?{_COUNT_WORD})?"\s*:\s*0\s*[,}}]', re.IGNORECASE)
"""A JSON answer that opens with a count of none (``{"total": 0, "items": []}``, ``{"total_found": 0, …}``,
``{"resultCount": 0, …}``)."""


_COUNT_KEY = re.compile(rf"{_COUNT_WORD}(?:_?{_COUNT_WORD})?", re.IGNORECASE)


def found_nothing(text: str) -> bool:
    """Whether an answer reports that it found nothing: nothing to act on, an empty listing, or a count of none —
    first, or beside what the call asked (``{"query": "ledger", "count": 0, "hits": []}``: every list of it empty,
    an object that only says the call's values back left aside)."""
    if NOTHING_DONE.match(text) or EMPTY_ANSWER.match(text) or _NONE_COUNTED.match(text):
        return True
    if not text.lstrip().startswith("{"):
        return False
    document = parse_answer(text)
    if not isinstance(document, dict):
        return False
    counted = [v for k, v in document.items() if _COUNT_KEY.fullmatch(k) and isinstance(v, int) and not isinstance(v, bool)]
    return counted == [0] and all(v == [] for v in document.values()
                                  if isinstance(v, list | dict) and v != {} and not _said_back(v))


def _said_back(value: object) -> bool:
    """Whether a part of an answer holds no content of its own: an object of scalars whose text was all echoed (the
    filters a query answers beside its results, ``"filters": {"entity_id": "bramble", "limit": 10}`` with the
    call's values taken out)."""
    return isinstance(value, dict) and all(
        v is None or isinstance(v, bool | int | float) or (isinstance(v, str) and not v.strip()) for v in value.values())


_READ_ONE_VERBS = frozenset("view get read show open describe display fetch load print cat".split())
_MANY_WORDS = frozenset("all list many every each query sql search status log history diff result data".split())
"""Words after a read verb that make it a listing, a query or a report (``read_query``, ``show_status``)."""
_NO_MATCH = re.compile(r"^\W{0,3}\s*no\b[^\n.]{0,60}\b(?:found|match(?:es|ing|ed)?|exists?)\b", re.IGNORECASE)
"""A read that found nothing by the name given (``No files found matching example``)."""


def reads_one(spec: ToolSpec | None) -> bool:
    """Whether a tool reads the one thing its call names (``view_file``, ``get_pin_info``; "View a GEDCOM file"):
    a read verb first, and no plural or "all" after it — not a listing or a search, whose empty answer is an
    answer."""
    if spec is None:
        return False
    words = _name_words(spec.name)
    if len(words) < 2:
        words = [w.lower() for w in _FIRST_WORD.findall(spec.description or "")[:3]]
    if len(words) < 2 or words[0] not in _READ_ONE_VERBS:
        return False
    target = next((w for w in words[1:] if w not in ("a", "an", "the", "one")), "")
    plural = target.endswith("s") and not target.endswith(("ss", "us", "is"))
    return bool(target) and target not in _MANY_WORDS and not plural


def promises_change(spec: ToolSpec | None) -> bool:
    """Whether a tool says it changes state: annotated so, or described starting with a verb of change."""
    if spec is None:
        return False
    hints = spec.annotations
    if hints.read_only is True:
        return False
    if hints.destructive is True or hints.read_only is False:
        return True
    match = _FIRST_WORD.search(spec.description or "")
    return _verb_of_change([match.group(0).lower() if match else ""]) or names_a_change(spec)


def names_a_change(spec: ToolSpec) -> bool:
    """Whether a tool's own name holds a verb of change (``create_view``, ``save_query``, ``memory_create``); a word
    after the first ending in ``s`` is a plural noun, not a verb (``acpi_sets`` lists sets)."""
    words = _name_words(spec.name)
    return _verb_of_change(words[:1]) or any(word in _CHANGE_VERBS for word in words[1:])


def _verb_of_change(words: list[str]) -> bool:
    """Whether a word where a verb stands is one of change, as written or in its third person (``creates``)."""
    return any(form in _CHANGE_VERBS for word in words for form in (word, word.removesuffix("s"), word.removesuffix("es")))


def _name_words(name: str) -> list[str]:
    return [w.lower() for w in _NAME_WORD.findall(name) if w.lower() not in _NAME_FILLERS]


def _names_own_action(line: str, spec: ToolSpec | None) -> bool:
    """Whether ``line`` names every word of the tool's name (``convert``, ``pdf`` for ``convert_to_pdf``)."""
    words = [w for w in _name_words(spec.name) if len(w) >= 3] if spec is not None else []
    return bool(words) and all(
        re.search(rf"\b{re.escape(w[: max(4, len(w) - 2)])}", line, re.IGNORECASE) for w in words
    )


def _text_only(outcome: CallOutcome) -> bool:
    """Whether a result is its text alone: no structured content, or one that only wraps the text
    (``{"result": "Error: ..."}``, what a framework makes of a tool that returns a string)."""
    return outcome.structured is None or wraps_text(outcome.structured, outcome.excerpt)


def _echoes_each(text: str, arguments: Mapping[str, Any] | None, spec: ToolSpec | None) -> bool:
    """Whether an answer repeats the value of each of two or more required arguments (``No commits found between
    v1.6.0 and v1.5.0``): it speaks of the very range or pair the call named."""
    required = spec.required if spec is not None else []
    given = [str(arguments[name]) for name in required if arguments and isinstance(arguments.get(name), str | int)]
    return len(required) >= 2 and len(given) == len(required) and all(len(v) >= 2 and v in text for v in given)


def _bare(text: str) -> bool:
    """Whether a result is a short message (a line or two), not content."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return len(lines) <= BARE_MESSAGE_LINES and len(text.strip()) <= BARE_MESSAGE_CHARS


def error_evidence(
    outcome: CallOutcome,
    arguments: Mapping[str, Any] | None = None,
    spec: ToolSpec | None = None,
    *,
    changed: bool | None = None,
    rendered: Mapping[str, Any] | None = None,
) -> str | None:
    """Why an ``ok`` result reports an error (see the module docstring), or None when it does not.

    ``arguments`` are the call's (as planned), ``rendered`` the same with placeholders filled (the
    values the server saw; the outcome's own record of them counts too); ``changed``: whether the
    call changed the environment (None: unknown).
    """
    if outcome.outcome is not OutcomeClass.OK:
        return None
    text = outcome.excerpt or ""
    values = argument_values(arguments, rendered, outcome.arguments)
    if not looks_like_error(text):
        if _FAILED_VALUE.search(without_echoes(text, values)[0]) and _text_only(outcome) and _bare(text):
            return "the value answered is what a failed computation prints"
        if changed is False and promises_change(spec) and NOTHING_DONE.match(without_echoes(text, values)[0]):
            return "found nothing to change where the tool promises a change"
        remainder, echoed = without_echoes(text, values)
        if reads_one(spec) and echoed and _NO_MATCH.match(remainder):  # it says so of the name the call gave
            return "found nothing where the tool reads the one thing the call names"
        if _NO_MATCH.match(remainder) and _bare(text) and _echoes_each(text, arguments, spec):
            return "found nothing between the things the call names"
        return None
    if judged_no(text, spec, changed=changed) is not None:  # a validator's no, with its error object: its verdict
        return None  # (hidden_failure), not a failure to judge
    reason = json_error_reason(text)  # {"status": "error", …}, "Succeeded: 0 … Failed: 1" — not a record's own
    if (reason and reason.strip() not in values) or tally_failure(text):  # (a record stored with the error it was given)
        return "the result says it failed"
    remainder, echoed = without_echoes(text, values)
    if not looks_like_error(remainder.strip()):
        return None
    names = [n for n in (spec.properties if spec is not None else {}) if len(n) >= ECHO_MIN_CHARS]
    if echoed or any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", remainder, re.I) for n in names):
        return "error words about the call's arguments"
    if _text_only(outcome) and _bare(text):
        return "the whole result is an error message"
    if spec is not None and spec.output_schema and outcome.structured is None:
        return "not the shape of the tool's successful results (no structured content)"
    if changed is False and promises_change(spec):
        return "no change although the tool says it changes state"
    first = next((line for line in remainder.strip().splitlines() if line.strip()), "")
    if _FIRST_STEP.search(first):
        return "it asks for a step that must come first"
    if _names_own_action(first, spec):
        return "the failure names the tool's own action"
    return None
