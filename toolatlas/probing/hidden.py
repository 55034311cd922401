"""Failures an ok answer hides, told by what the call was known to break.

:func:`~toolatlas.probing.evidence.error_evidence` judges an answer by its words. Twelve answers read
like successes and are not, and (but for a verdict, a note, a cut and a moved number) only the call's own misuse
shows it:

- **a malformed value answered with nothing found.** A boundary probe sent a value of the argument's
  kind that is not well-formed (a regular expression that does not compile, a date of month 13) and
  the tool answered that it found nothing (``No matches found for pattern: ([a-z``): a value that
  cannot be read cannot have been looked for, so the error was swallowed and reported as an empty
  result — what a caller with a typo would take for "not there".
- **an answer about another name.** A boundary probe sent a name the server gave with a suffix no name has
  (``Two Sum_3f2a``), and the answer speaks of the name it was made from and never of the one sent
  (``Logged: Two Sum — solved``): the server took the closest name it knows for the one given, and acted on
  what the caller did not name.
- **an action claimed on what does not exist.** The call names something the build invented to name
  nothing (:data:`~toolatlas.probing.values.MADE_UP`: a made-up id, a path of no file), nothing
  changed, and the answer says the tool's own action was done (``File removed: notes/missing_3f2a.md``,
  ``{"aligned": true}`` for ``no_such_object_3f2a``): the server reports a success it did not have. The
  invented name tells, not the state's "names nothing yet" (the use of an argument that names what a
  call makes: an alias a document is loaded under), nor which probe made the call — the same call is
  judged the same wherever it is made (a boundary probe, a retry, a replay). A tool whose verb makes or
  opens things is never judged so, nor is an answer that says the action was not needed
  (``already``, ``not``, ``0 removed``), nor a call that changed the state.

- **part of a word answered with nothing found.** A boundary probe sent the inner part of a word of a query
  (``idget`` of ``widget``) and the tool answered it found nothing: it matches whole words (or stems), not text
  inside them — a caller searching part of a name takes the empty answer for "not there". So with a name
  inflected, stripped of its prefix or written in another case, and with a search for another field of a record
  a working query found (a contact's owner): the field is not searched. A value outside the set an argument
  lists answered with nothing found (``"total_found": 0`` for ``object_type="OU"``) is a filter that takes any
  value and matches nothing, where a refusal would have named the set.
- **a made-up name listed as not found.** The call names something invented to name nothing, and a line of
  the answer lists it as not found (``未找到的keys: ['no_such_object_1db5']`` under ``成功写入 0 个条目``): the
  answer leads with what the tool did, and the part of the call that named nothing is said below it — a batch
  that went through in part, or not at all, reported as a success.

- **a value it could not read reported as a finding.** A boundary probe sent a value that does not parse (SQL
  with ``SELEC``, a malformed expression) and the tool answered successfully, naming it as one of its findings
  (``Found unparsable section: 'SELEC id FROM t'`` among a linter's violations): a caller checking the answer's
  verdict or count takes unreadable input for input with a finding.

- **a negative verdict.** A tool that judges what it is given (a validator, a checker: :func:`judges`) answered
  successfully, changed nothing, and its verdict is no (``"is_valid": false``, ``"valid": false`` with findings,
  ``❌ CONFLICTS (Must Fix):`` over the pins in conflict): what the call gave does not pass — the answer a caller
  must read, not the tool failing, whatever the call was.
- **a note that the value was not taken.** A JSON answer's note or warning (``"note"``, ``"notes"``, ``"warnings"``)
  names a value of the call as unknown, not present, not valid (``message type 'POWR' not present in this log.``,
  ``unknown tuning area 'filters'; valid: notch, pid, autotune. Running all.``): the server answered, for
  something other than what was asked — a caller who reads the results and not the note takes them for an answer.
- **an answer cut short.** A call's text answer says it holds only part of what was asked (``(TRUNCATED: showing
  ~3986 of ~5308 tokens)``, ``[OUTPUT TRUNCATED …]``): a caller who reads it takes a part for the whole — unless
  the call asked past a limit the description states (then the cut is the limit, a tolerance).
- **a change of what is locked.** A boundary probe gave a tool that changes or deletes the id of a record the
  server's own listing marks locked (``"locked": true``), and the call went through — it changed the state, or
  answered that it did (``Successfully updated segment '1'``) — without a word of the lock: the server keeps a
  lock it does not honour.
- **a number moved without a word.** A call sent a number at an edge (zero, negative, 10^9) and the JSON answer
  reports another under the same field (``"quantity": 1.0`` for a quantity of 0, ``"limit": 200`` for 10^9): the
  server took a value the caller did not give. Fields an answer tallies its own results in (``count``,
  ``total``) are not read so.

All are failures reported as success (:attr:`~toolatlas.probing.models.StepVerdict.reported_as_success`),
with the answer as their evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from toolatlas.models import CallOutcome, OutcomeClass, ToolSpec
from toolatlas.probing.bindings import document_of
from toolatlas.probing.evidence import NOTHING_DONE, argument_values, found_nothing, without_echoes
from toolatlas.probing.text import MISSING_WORDS_CJK, parse_answer
from toolatlas.probing.values import MADE_UP, names_made_up
from toolatlas.probing.verdicts import NEGATIVE_VERDICT, WORD, judged_no, lead_words

__all__ = ["CREATING_VERBS", "TOLD_BY_MISUSE", "action_participles", "claims_action", "hidden_failure",
           "ignored_value", "mirror_index", "reason_quote"]

MALFORMED = "malformed_value"
FRAGMENT = "word_fragment"
ABSENT = "nonexistent_reference"
NAME_PART = "name_part"
LOOKED_UP = frozenset({"inflected_form", "stripped_prefix", "case_changed", "name_for_code", NAME_PART})
"""Misuses of a lookup whose empty answer is their failure: a word inflected, a code without its letters, a name
written in another case (``Sana`` for ``sana``), one word of a name."""
OTHER_FIELD = "other_field"
"""A search for another field of a record a working query is in: an empty answer is a field the search does not
read."""
OUTSIDE_SET = "invalid_enum"
"""A value outside the set of values an argument lists: an empty answer is a filter that takes any value and
matches nothing, where a refusal would have named the set."""
MIRRORED = frozenset({OUTSIDE_SET})
"""Misuses made right after the same call with a value it takes, and judged against it (:func:`ignored_value`): a
proposer plans the pair, a retry or a replay makes it again (:func:`mirror_index`)."""
LOCKED = "locked_target"
LIMIT = "past_stated_limit"
_CUT_SHORT = re.compile(r"\bTRUNCATED\b|(?i:\[(?:output|content|response|result|text)s? (?:was |is )?truncated\b"
                        r"|\((?:output |content |response )?truncated[:;,)]|\btruncated (?:at|to|after) \d)")
"""A notice in a text answer that it stops before the end of what was asked: ``(TRUNCATED: showing ~3986 of ~5308
tokens)``, ``[OUTPUT TRUNCATED - Use read_log_paginated …]``, ``(truncated to 5 rows)`` — not a JSON flag beside a
page of results the call's own limit asked for."""
_LOCK_WORDS = re.compile(r"\block(?:ed|s)?\b|\bread[- ]?only\b|\bprotected\b|\bimmutable\b|\bfrozen\b", re.IGNORECASE)
"""Words of an answer that speak of the lock (``skipped: segment 1 is locked``): the server knew it."""
CREATING_VERBS = frozenset(
    "add append create import init insert load make mkdir new open post put register save set start store upload "
    "write".split()
)
"""Verbs of tools whose use is to bring into existence (or into the server's memory) what they name."""
_NEGATION = re.compile(r"\b(?:not|no|nothing|none|never|already|failed|false|0)\b", re.IGNORECASE)
_SHORT_VERB = 3
"""Verbs shorter than this (``rm``) are never taken for the action: their past forms are not words."""


def _past(verb: str) -> set[str]:
    """The past participles of a regular verb: ``remove`` → removed, ``lock`` → locked, ``drop`` → dropped."""
    if verb.endswith("e"):
        return {verb + "d"}
    forms = {verb + "ed"}
    if re.search(r"[^aeiou][aeiou][bdgmnpt]$", verb):
        forms.add(verb + verb[-1] + "ed")
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        forms.add(verb[:-1] + "ied")
    return forms


NOT_TAKEN = "its note says a value the call gave was not taken"
_NOTE_KEYS = ("note", "notes", "warning", "warnings", "caveat", "caveats")
_NOTE_KEY = re.compile(r"['\"](?:note|notes|warning|warnings|caveat|caveats)['\"]\s*:")
_NOTE_FIELD = re.compile(r'"(?:note|notes|warning|warnings|caveat|caveats)"\s*:\s*\[?\s*"((?:[^"\\\n]|\\.){1,300})"')
"""A note of a JSON answer cut short, where the cut left it."""
_NOT_TAKEN_WORDS = re.compile(
    r"\b(?:unknown|unrecogni[sz]ed|unsupported|invalid|ignored|no such|not (?:present|found|in|available|recogni[sz]ed"
    r"|supported|valid|known)|(?:does|do) not (?:exist|have|contain|hold))\b", re.IGNORECASE)
_NOTE_CHARS = 200


def not_taken_note(text: str, values: Sequence[str]) -> str | None:
    """The note or warning of a JSON answer (:data:`_NOTE_KEYS`, a string or a list of them) that names a value of the
    call, quoted, with words saying it was not taken (unknown, not present, not valid…), cut to :data:`_NOTE_CHARS`;
    None for any other answer."""
    head = text.lstrip()
    if not head.startswith("{") or _NOTE_KEY.search(head) is None:  # read after every ok answer: no note, no parse
        return None
    document = document_of(None, head)
    notes: list[str] = []
    if isinstance(document, Mapping):
        for key in _NOTE_KEYS:
            found = document.get(key)
            if isinstance(found, str):
                notes.append(found)
            elif isinstance(found, list):
                notes += [n for n in found if isinstance(n, str)]
    else:
        notes = [m.group(1) for m in _NOTE_FIELD.finditer(head)]
    quoted = [v for v in values if len(v) >= 2]
    for note in notes:
        if _NOT_TAKEN_WORDS.search(note) and any(re.search(rf"['\"`]{re.escape(v)}['\"`]", note) for v in quoted):
            return note.strip()[:_NOTE_CHARS]
    return None


def reason_quote(reason: str) -> str:
    """The answer's words a failure's reason quotes (``… negative: “"is_valid": false”``), or ``""``."""
    return reason.partition("“")[2].removesuffix("”")


def action_participles(spec: ToolSpec) -> set[str]:
    """How an answer says the tool's action was done: the past participles of the verbs that start its
    name and its description (``align_elements`` → aligned; ``rm`` "Remove a file." → removed); none for a
    tool whose action creates."""
    words = lead_words(spec)
    if any(w in CREATING_VERBS for w in words):
        return set()
    return {form for w in words if len(w) >= _SHORT_VERB for form in _past(w)}


def claims_action(text: str, spec: ToolSpec | None, values: list[str]) -> bool:
    """Whether an answer says the tool's action was done: a JSON answer holds its participle as a key set
    to true (``"aligned": true``), a text answer's first line holds it with no word that takes it back
    (``File removed: x``, not ``Nothing removed``). The call's own values are taken out first."""
    participles = action_participles(spec) if spec is not None else set()
    if not participles:
        return False
    stripped = text.strip()
    if stripped.startswith("{"):
        document = parse_answer(stripped)
        if isinstance(document, Mapping):
            return any(document.get(key) is True for key in document if str(key).lower() in participles)
    remainder, _echoed = without_echoes(stripped, values)
    first = next((line for line in remainder.splitlines() if line.strip()), "")
    said = {w.lower() for w in WORD.findall(first)}
    return bool(said & participles) and not _NEGATION.search(first)


def hidden_failure(
    outcome: CallOutcome,
    spec: ToolSpec | None,
    *,
    mutation: str | None,
    changed: bool | None,
    arguments: Mapping[str, Any] | None = None,
    rendered: Mapping[str, Any] | None = None,
) -> str | None:
    """Why an ok answer that reads as a success is a failure given what the call broke (``mutation``: its
    boundary probe's family; see the module docstring), or None. ``changed``: whether it changed the
    environment (None: unknown)."""
    if outcome.outcome is not OutcomeClass.OK:
        return None
    text = outcome.excerpt or ""
    values = argument_values(arguments, rendered, outcome.arguments)
    if mutation == MALFORMED and NOTHING_DONE.match(without_echoes(text, values)[0]):
        return "a malformed value answered as if nothing was found"
    empty = not text.strip() or found_nothing(without_echoes(text, values)[0])  # no content at all is nothing too
    if mutation == FRAGMENT and empty:
        return "part of a word finds nothing"
    if mutation in LOOKED_UP and empty:
        return "the lookup finds nothing for the value as written"
    if mutation == OTHER_FIELD and empty:
        return "the search finds nothing for a value its record holds in another field"
    if mutation == OUTSIDE_SET and empty:
        return "a value outside the set it lists is not refused: it finds nothing"
    if mutation in UNREADABLE:
        finding = _finding(text, values)
        if finding is not None:
            return f"it reports the value it could not read as a finding, not as an error: “{finding}”"
    verdict = judged_no(text, spec, changed=changed)
    if verdict is not None:
        return f"{NEGATIVE_VERDICT}: “{verdict}”"
    noted = not_taken_note(text, values)
    if noted is not None:
        return f"{NOT_TAKEN}: “{noted}”"
    made_up = names_made_up(arguments) or names_made_up(rendered)
    if (made_up or mutation == ABSENT) and not text.strip() and changed is not True:
        return "it answers nothing at all for what does not exist"
    if made_up and changed is not True and claims_action(text, spec, values):
        return "it claims its action on what does not exist, and nothing changed"
    if made_up and _listed_missing(text):
        return "its answer lists what the call named as not found"
    if mutation != LIMIT and _CUT_SHORT.search(without_echoes(text, values)[0]):
        return "the answer says it holds only part of what was asked (cut short)"
    if mutation == LOCKED and (changed or not empty):  # it went through: changed the state, or answered it did
        if not _LOCK_WORDS.search(without_echoes(text, values)[0]):
            return "it changes a record its own listing marks locked, and says nothing of the lock"
    if mutation == NEAR_NAME:
        if empty:  # a typo of a name it lists: neither refused nor corrected
            return "a name it does not know, near one it does, is not refused: it finds nothing"
        taken = _closest_taken(text, values)
        if taken is not None:
            return f"it answered for `{taken}`, the closest name it knows, not for the name given"
    if mutation == NAME_PART and not empty:
        taken = _one_holder(text, values)
        if taken is not None:
            return f"it answered for `{taken}` alone, one of the names holding the word given, without saying so"
    return _coerced(text, arguments)


def ignored_value(outcome: CallOutcome, mirror: CallOutcome, arguments: Mapping[str, Any],
                  mirrored: Mapping[str, Any]) -> str | None:
    """Why an ok answer to a value outside an argument's set is a failure, given the answer of the same call with a
    value it takes (``mirror``, made with ``mirrored``, right before: :attr:`~toolatlas.probing.models.ProbeStep.mirrors`):
    the two answers are the same but for the values the calls differ in — the value was ignored, or taken for the one
    the other call sent (a ``"daily"`` compounding answered exactly as ``"monthly"``). None when they differ, when
    either answer is cut or not ok, or when the calls differ in more than one argument."""
    if outcome.outcome is not OutcomeClass.OK or mirror.outcome is not OutcomeClass.OK:
        return None
    if outcome.truncated or mirror.truncated or not outcome.excerpt.strip():
        return None
    differ = [k for k in {*arguments, *mirrored} if arguments.get(k, _ABSENT) != mirrored.get(k, _ABSENT)]
    if len(differ) != 1:
        return None
    (name,) = differ
    values = [v for v in (arguments.get(name), mirrored.get(name)) if isinstance(v, str | int | float) and str(v)]

    def masked(text: str) -> str:
        for value in sorted(values, key=lambda v: -len(str(v))):
            text = re.sub(rf"(?<![\w.-]){re.escape(str(value))}(?![\w.-])", "<v>", text)
        return text

    pieces = masked(outcome.excerpt).split("<v>")
    if len(pieces) > 1:  # the answer repeats the value given: where the other answer has the value it took
        pattern = re.escape(pieces[0]) + r"(.{1,60}?)" + re.escape(pieces[1]) + "".join(
            r"\1" + re.escape(p) for p in pieces[2:])
        taken = re.fullmatch(pattern, masked(mirror.excerpt), re.DOTALL)
        said = taken.group(1) if taken is not None else None
    else:
        said = "" if masked(outcome.excerpt) == masked(mirror.excerpt) else None
    if said is None:
        return None
    if name not in mirrored:
        took = f" (`{said}`)" if said and said != "<v>" else ""
        return f"it answered exactly as the same call without `{name}`{took}: the value given was ignored"
    return f"it answered exactly as for `{mirrored[name]}`: the value given was taken for it"


_ABSENT = object()


def mirror_index(before: Sequence[str], tool: str, family: str | None) -> int | None:
    """Where, among the tools called ``before`` a misuse of ``family``, the call it is judged against sits
    (:func:`ignored_value`): a value outside an argument's set is made right after the same call of ``tool`` with a
    value it takes — so a retry or a replay of the misuse compares it again. None for any other misuse."""
    if family in MIRRORED and before and before[-1] == tool:
        return len(before) - 1
    return None


_MISSING = re.compile(rf"\b(?:not found|not exist|does not exist|doesn't exist|missing|unknown)\b|{MISSING_WORDS_CJK}",
                      re.IGNORECASE)
"""Words of a line that says what it names is not there."""


def _listed_missing(text: str) -> bool:
    """Whether an answer lists a made-up name (:data:`~toolatlas.probing.values.MADE_UP`) as not there: a line
    that holds both (``未找到的keys: ['no_such_object_1db5']``, ``Missing ids: no_such_object_3f2a``) — an answer
    whose first line reports what it did (``成功追加 0 个条目``, ``Exported 2 entries``) while a later one says
    part of the call named nothing."""
    if any(MADE_UP.search(line) and _MISSING.search(MADE_UP.sub("", line)) for line in text.splitlines()):
        return True
    document = parse_answer(text)
    return document is not None and _keyed_missing(document, False)


_MISSING_KEY = re.compile(
    r"(?:^|_)(?:not_?found|missing|unknown|unmatched|(?:zero|no)_match(?:es|ed)?|nonexistent|not_?exist(?:ing)?)(?:_|$)")
"""The key of a JSON answer's part that lists what was not there: ``merchants_with_zero_matches``, ``not_found``,
``missingIds``."""


def _keyed_missing(node: Any, under: bool) -> bool:
    """Whether a JSON answer holds a made-up name under a key that says what it lists was not there
    (``{"merchants_with_zero_matches": ["no_such_merchant_clean_3f2a"]}``)."""
    if isinstance(node, str):
        return under and bool(MADE_UP.search(node))
    if isinstance(node, list):
        return any(_keyed_missing(item, under) for item in node)
    if isinstance(node, dict):
        for key, value in node.items():
            if under and MADE_UP.search(str(key)):  # ``{"not_found": {"no_such_x_3f2a": …}}``
                return True
            snake = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", str(key)).lower()
            if _keyed_missing(value, under or bool(_MISSING_KEY.search(snake))):
                return True
    return False


UNREADABLE = frozenset({MALFORMED, "sql_syntax_error"})
"""Misuses that send a value the server cannot read (a malformed value, SQL that does not parse)."""
TOLD_BY_MISUSE = frozenset({MALFORMED, FRAGMENT, OTHER_FIELD, OUTSIDE_SET, *LOOKED_UP, *UNREADABLE})
"""Misuses whose failure only the misuse tells (an empty answer to part of a word, a finding on SQL that does not
parse): the same call made without knowing it broke something is judged by its words alone, and contradicts nothing."""
_CANNOT_READ = re.compile(
    r"\b(?:unpars(?:e)?able|parse error|parsing error|syntax error|invalid syntax|malformed|"
    r"(?:could ?not|couldn't|cannot|can't|failed to|unable to) parse)\b",
    re.IGNORECASE,
)
_FINDING_CHARS = 160


def _finding(text: str, values: list[str]) -> str | None:
    """The line of an answer that says what it was given could not be read (``Found unparsable section: …``; the
    call's own values taken out first), cut to :data:`_FINDING_CHARS`; of a JSON field, its value."""
    for line in text.splitlines():
        if _CANNOT_READ.search(without_echoes(line, values)[0]) is None:
            continue
        stripped = line.strip().strip(",").strip()
        if stripped.startswith('"') and '":' in stripped:  # a JSON field: its value
            stripped = stripped.split('":', 1)[1].strip().strip('"')
        return stripped[:_FINDING_CHARS]
    return None


NEAR_NAME = "near_name"
_SUFFIXED = re.compile(r"^(?P<base>.{3,}?)_[0-9a-f]{4}$")
"""A name with the suffix a boundary probe adds to a name the server gave (:mod:`toolatlas.offline.mutators`)."""


_NAMED = re.compile(r"\"([^\"\n]{3,80})\"")
"""A JSON string of an answer."""


def _one_holder(text: str, values: list[str]) -> str | None:
    """The one name of an answer that holds a word the call sent (``Claire Dawson`` for ``Dawson``), when no other
    name of the answer holds it: the lookup picked one of the names holding the word (a name-part probe is made only
    of a word two or more names hold). None when the answer names several (a search) or none."""
    for value in values:
        if not re.fullmatch(r"[A-Z][a-z]{2,}", value):
            continue
        word = re.compile(rf"(?<![\w=,]){re.escape(value)}(?!\w)")
        names = {n.strip() for n in _NAMED.findall(text) if word.search(n) and n.strip() != value
                 and "," not in n and "=" not in n and "@" not in n}
        if len(names) == 1:
            return names.pop()
    return None


def _closest_taken(text: str, values: list[str]) -> str | None:
    """The name a suffixed value was made from, when the answer speaks of it and never of the value sent (an
    answer that quotes the value back refused it: ``no problem found matching 'Two Sum_3f2a'``)."""
    for value in values:
        match = _SUFFIXED.match(value)
        if match and value not in text and match.group("base") in text:
            return match.group("base")
    return None


EDGE_NUMBER = 10**9
"""From this size on (or at zero and below) a number a call sends is at an edge a server may silently move it off."""
_TALLIES = frozenset({"count", "total", "n", "size", "length", "matches", "results"})
"""Names an answer gives its own tallies (how many it found), whatever number the call sent under them."""


def _coerced(text: str, arguments: Mapping[str, Any] | None) -> str | None:
    """How an answer reports a number the call sent at an edge (zero, negative, :data:`EDGE_NUMBER` and more) as
    another under the same field name, in a record that says back another number of the call as sent (a line
    ``{"fair_market_value": 450.0, "quantity": 1.0}`` for an item of 450 and quantity 0): the record is the call's
    own, and the server moved the value without saying so. A record that says back no other number is a result
    (a conversion's ``"value"``), not an echo. None when the answer is no JSON."""
    sent: dict[str, list[float]] = {}
    for record in _records(arguments or {}):
        for name, number in _numbers(record).items():
            sent.setdefault(name, []).append(number)
    edges = {name for name, values in sent.items() if name.lower() not in _TALLIES
             and any(v <= 0 or abs(v) >= EDGE_NUMBER for v in values)}
    document = document_of(None, text) if edges else None
    for record in _records(document):
        numbers = _numbers(record)
        echoed = [k for k, v in numbers.items() if k in sent and v in sent[k] and k.lower() not in _TALLIES]
        for name in edges & numbers.keys():
            if numbers[name] not in sent[name] and any(k != name for k in echoed):
                edge = next(v for v in sent[name] if v <= 0 or abs(v) >= EDGE_NUMBER)
                return f"it takes `{name}` {_plain(edge)} as {_plain(numbers[name])}, and says nothing of it"
    return None


def _numbers(record: Mapping[str, Any]) -> dict[str, float]:
    """The numbers of one object, by field name."""
    return {str(k): float(v) for k, v in record.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def _records(node: Any) -> list[Mapping[str, Any]]:
    """Every object of a JSON-like tree."""
    if isinstance(node, Mapping):
        return [node, *(r for v in node.values() for r in _records(v))]
    if isinstance(node, list):
        return [r for item in node for r in _records(item)]
    return []


def _plain(number: float) -> str:
    return str(int(number)) if number.is_integer() else str(number)
