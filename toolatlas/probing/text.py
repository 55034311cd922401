"""Normalising what servers say: back to placeholders, and down to a signature.

Two boundary observations are the same boundary when their error messages agree once the
incidental parts (paths, numbers, ids, quoted names) are masked.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

__all__ = [
    "ERROR_TEXT",
    "ELISION",
    "condition_signature",
    "EXCERPT_CHARS",
    "TAIL_CHARS",
    "error_message",
    "error_signature",
    "evidence_excerpt",
    "excerpts_agree",
    "looks_like_error",
    "MISSING_WORDS_CJK",
    "message_line",
    "names_temporary_folder",
    "object_message",
    "run_specific_masked",
    "tally_failure",
    "to_placeholders",
]

EXCERPT_CHARS = 400
"""Characters of the beginning of an output kept verbatim as evidence (and compared by replays)."""
TAIL_CHARS = 120
"""Characters of the end of a longer output kept beside its beginning."""
ELISION = "\n…\n"
"""What stands between the beginning and the end of an output too long to keep whole."""


def evidence_excerpt(text: str) -> str:
    """What of an answer is kept as evidence: all of it when it fits, else its beginning and its end
    (verbatim, joined by :data:`ELISION`). The end is where a long JSON document states its sums
    (``"count": 1``, ``"viewCount": 1``) and a traceback its exception."""
    if len(text) <= EXCERPT_CHARS + TAIL_CHARS + len(ELISION):
        return text
    return text[:EXCERPT_CHARS] + ELISION + text[-TAIL_CHARS:]


def excerpts_agree(text: str, kept: str) -> bool:
    """Whether an answer shows what an excerpt kept of another: the same :func:`evidence_excerpt`, or,
    against an excerpt that kept only a beginning cut at :data:`EXCERPT_CHARS`, the same beginning."""
    if evidence_excerpt(text) == kept:
        return True
    return len(kept) == EXCERPT_CHARS and ELISION not in kept and text[:EXCERPT_CHARS] == kept

ERROR_TEXT = re.compile(
    r"^\s*(?:\W{0,3})(?:errors?\b|[\w ]{0,30}error:|[\w ]{0,30}\bfailed:|\w*Error:|exception\b|traceback\b|failed\b|failure\b|fatal\b|"
    r"invalid\b|cannot\b|can't\b|could not\b|unable to\b|permission denied|access denied|not found\b|no such\b|"
    r"no action (?:was )?taken\b|"
    r"unknown (?:tool|argument|parameter)|unknown [\w ]{1,30}['\"`]|input validation error|mcp error|(?-i:E[A-Z]{3,})\b:|"
    r"[^\n;:,]{0,120}? already exists\b|[^\n;:,]{0,80}? (?:is|are) not (?:configured|set up|enabled)\b|"
    r"no (?:\w+ )?\w*[^s\s\W] (?:with|named|called) (?:the )?\w+(?: ['\"`]?[^\s'\"`]*['\"`]?)?\s*[.!]?$|"
    r"no\b[^\n.]{0,60}[.;,]?\s*(?:please\s+)?[^\n]{0,60}\b(?:first|beforehand)\b|"
    r"[\u3040-\u30ff\u4e00-\u9fff]{0,8}(?:错误|失败|未找到|找不到|不存在|无法|无效|异常|エラー|失敗|見つかりません|存在しません|無効))",
    re.IGNORECASE,
)
"""Text that starts like this reads as an error (``ENOENT:``-style codes in capitals only: ``Echo:`` is
not one; ``Unknown memory type 'x'``; ``Note already exists: a.md``; ``sync is not configured``; a lookup
of one thing by a field that found none, ``No entry with id 3.``, not a filter's empty result, ``No entries
with tag x``; ``No action taken. Specify entry_id, …``), in English or in the Chinese and Japanese words for
error, failed, not found, does not exist, unable and invalid, after a few words of what failed (``未找到key 'x'
的条目``, ``操作失败``). On an ok result it is a failure only with evidence besides: :mod:`toolatlas.probing.evidence`."""

_MINTED_ID = re.compile(r"(?<![0-9A-Za-z])(?=[a-z]{0,63}\d)(?=[a-z]*\d+[a-z]+\d)[0-9a-z]{12,64}(?![0-9A-Za-z])")
"""An id a server minted in base 36 (``mxawa0xp2h87byufydf``): twelve or more lower-case letters and
digits, the digits in two runs at least (``report2024`` is a word and a number)."""

_MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bprobe[\w.-]*", re.IGNORECASE), "<new>"),
    (re.compile(r"\b[\w.]*[-_](?=[0-9a-f]{0,3}\d)[0-9a-f]{4}\b"), "<new>"),  # a name a probe made up (``no_such_table_7a3a``)
    (re.compile(r"\$\{[a-z_]+\}(?:/[^\s'\"`,;:)\]}]*)?"), "<path>"),
    (re.compile(r"(?<![\w.])/(?:[\w.@+-]+/)*[\w.@+-]+"), "<path>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"\b[0-9a-f]{7,64}\b"), "<hex>"),
    (_MINTED_ID, "<id>"),
    (re.compile(r"'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|`[^`\n]{0,200}`"), "<s>"),
    (re.compile(r"\b\d+(?:\.\d+)?\b"), "<n>"),
    (re.compile(r"\s+"), " "),
]


_RUN_SPECIFIC: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9A-Za-z])", re.I), "<id>"),
    (re.compile(r"\bprobe[\w-]*", re.I), "<new>"),
    (_MINTED_ID, "<id>"),
    (re.compile(r"(?<![0-9A-Za-z])(?=[a-f]{0,63}\d)(?=\d{0,63}[a-f])[0-9a-f]{8,64}(?![0-9A-Za-z])"), "<id>"),
    (re.compile(r"(?<![0-9A-Za-z.])\d{10,}(?![0-9A-Za-z])"), "<id>"),  # a Unix time, a counter
    (re.compile(r"(?<=[A-Za-z])([-_])(?=[a-f]{0,3}\d)(?=\d{0,3}[a-f])[0-9a-f]{4}(?![0-9A-Za-z])"), r"\1<new>"),
]


_TEMPORARY = re.compile(r"(?:\$\{home\}|\$\{tmp\}|(?<![\w.])/tmp|(?<![\w.])/var/tmp)/(?:tmp|[\w.-]*?[_-])"
                        r"(?=[a-z0-9_]{8}(?![\w.-]))(?=[a-z_]{0,7}\d)[a-z0-9_]{8}(?![\w.-])")
"""A folder a server's process made for itself under its home or the system's temporary folder: Python's
``mkdtemp`` names it by a prefix and eight random characters (``${home}/image_editor_owfkvez6``), one name per
process (the one in ten with no digit among the eight is not told apart from a word)."""


def names_temporary_folder(text: str) -> bool:
    """Whether an answer names a temporary folder its server's process made (:data:`_TEMPORARY`): the same call
    answers another name after the server restarts."""
    return bool(_TEMPORARY.search(text))


def run_specific_masked(name: str) -> str:
    """A name (a file a server wrote, an item key) with what one run made of it masked: a UUID, a hex
    or base-36 id, a Unix time, a name a probe made up (``.history/history_<id>.json``,
    ``notes_<new>.md``) — what another run of the same call writes under another name is the same
    item. A date or a number in a name stays (``minutes-2024-05.pdf``)."""
    for pattern, mask in _RUN_SPECIFIC:
        name = pattern.sub(mask, name)
    return name


@functools.lru_cache(maxsize=256)
def _replacements(variables: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``(concrete value, placeholder name)`` pairs in the order they are replaced."""
    # Longest value first; on a tie the kind's own name (``repo``) wins over ``root`` and ``home``.
    return tuple(
        sorted(
            ((v, k) for k, v in variables if v and len(v) >= 4),
            key=lambda p: (-len(p[0]), p[1] in ("root", "home"), p[1]),
        )
    )


def to_placeholders(value: Any, variables: dict[str, str]) -> Any:
    """Replace an instance's concrete paths by their placeholders (longest first), recursively."""
    pairs = _replacements(tuple(variables.items()))
    if not pairs:
        return value

    def swap(text: str) -> str:
        for concrete, name in pairs:
            if concrete in text:
                text = text.replace(concrete, "${" + name + "}")
        return text

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return swap(item)
        if isinstance(item, list):
            return [walk(v) for v in item]
        if isinstance(item, dict):
            return {k: walk(v) for k, v in item.items()}
        return item

    return walk(value)


def _masked(text: str) -> str:
    for pattern, mask in _MASKS:
        text = pattern.sub(mask, text)
    return text


_QUOTED_NAME = re.compile(r"`([^`\n]{1,200})`")
_NAME_ROOT = re.compile(r"[^.\[\]]+")


def condition_signature(condition: str, arguments: Collection[str], *, limit: int = 160) -> str:
    """A planned condition (`` `source` is an empty string (with `graph` given)``) down to a signature:
    masked like an error message, except the quoted names of ``arguments`` (a locator into one,
    ``items[0].name``, by its first part): which argument a condition breaks is what it is about, so
    the same break of two arguments is two signatures, never one."""
    pieces, last = [], 0
    for match in _QUOTED_NAME.finditer(condition):
        root = _NAME_ROOT.match(match.group(1))
        if root is not None and root.group(0) in arguments:
            pieces += [_masked(condition[last:match.start()]), match.group(0)]
            last = match.end()
    pieces.append(_masked(condition[last:]))
    return "".join(pieces).strip()[:limit]


_FIELD = re.compile(r'"([^"\n]{1,40})": ((?:"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)),?')
"""A scalar field of a JSON object printed over several lines, on a line of its own."""


def message_line(text: str) -> str:
    """What an answer says on one line: its first line, or — for a JSON object printed over several lines,
    whose first line is only ``{`` — its fields as ``key: value`` pairs (``aligned: true, ids: ["x"]``); of
    such an object kept cut (:data:`ELISION`), the scalar fields it shows whole; of a pydantic validation error,
    the field and message of its first violation after its head (``1 validation error for XArguments: params.status:
    Input should be 'solved' or 'gave_up'``)."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    if _VALIDATION.search(first):
        return _with_validation_detail(first, text)
    if first not in ("{", "["):
        return first
    value = parse_answer(text)
    if value is None:  # kept cut (its beginning and end): the fields it still shows whole
        lines = text.strip().splitlines()
        indent = len(lines[1]) - len(lines[1].lstrip(" ")) if len(lines) > 1 else 0
        fields = (_FIELD.fullmatch(line[indent:]) for line in lines[1:]  # a top-level field: at the first indent
                  if line.startswith(" " * indent) and not line[indent:indent + 1].isspace())
        return ", ".join(f"{m.group(1)}: {m.group(2)}" for m in fields if m) or first
    if isinstance(value, dict):
        return ", ".join(f"{key}: {json.dumps(item, ensure_ascii=False)}" for key, item in value.items())
    return json.dumps(value, ensure_ascii=False)


def error_signature(text: str, *, limit: int = 160, echoes: Iterable[str] = ()) -> str:
    """The error message with paths, times, ids, quoted values and numbers masked (a JSON answer that
    gives no reason: its fields, :func:`message_line`). ``echoes``: the call's own values, masked where the
    message repeats one as a whole word (``Invalid pins for STM32``, ``Database not found: demo``), so the same
    failure met with other values has one signature."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    tallied = tally_failure(text) if not ERROR_TEXT.match(first) else None
    if tallied:  # "Extraction completed … Failed: 1 … Error: <reason>": the reason the tally gives
        first = tallied
    elif first in ("{", "[") or first.startswith(('{"', "[{", "{'")):  # a JSON (or repr) result: its reason
        first = json_error_reason(text) or message_line(text)
    elif first.rstrip().endswith(("{", "[")):  # "Error calling tool 'x': {" and a JSON body: its reason too
        lead = first.rstrip()[:-1]
        reason = json_error_reason(text.strip()[len(lead):])
        if reason:
            first = f"{lead.rstrip()} {reason}"
    wrapped = _WRAPPED.match(first.strip())
    body = (wrapped.group("body") or wrapped.group("single")) if wrapped else ""
    if len(body.split()) >= _SENTENCE_WORDS:  # Error: "Key 'x' not found. …"
        first = wrapped.group("lead") + body if wrapped else first
    if _VALIDATION.search(first):  # "1 validation error for XArguments" and, below it, which field and why
        first = _with_validation_detail(first, text)
    for value in echoes:
        if len(value.strip()) >= _ECHO_CHARS and value in first:
            first = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", _ECHO_MASK, first)
    return _masked(first).strip()[:limit]


_ECHO_CHARS = 3
"""Characters a value of the call needs to be masked where the message repeats it (not ``a``, ``id``)."""
_ECHO_MASK = "<s>"


_VALIDATION = re.compile(r"\b\d+ validation errors? for \w+(?:\[[\w.-]+\])?\s*$")  # FastMCP's ``call[get_workouts]`` too


def is_validation_head(line: str) -> bool:
    """Whether ``line`` is the head every violation of a pydantic input model shares (``1 validation error for X``)."""
    return bool(_VALIDATION.search(line))
"""The first line of a pydantic validation error: the same for every violation of a tool's input model."""
_DETAIL_TYPE = re.compile(r"\s*\[type=[^\]]*\]?.*$")


def _with_validation_detail(first: str, text: str) -> str:
    """A pydantic validation error's first line with its first violation's field and message after it."""
    return ": ".join([first.rstrip(), *_validation_detail(text)])


def _validation_detail(text: str) -> list[str]:
    """The first violation a pydantic validation error lists: its field (``params.status``) and its message
    (``Input should be 'solved' or 'gave_up'``), without the ``[type=…, input_value=…]`` that repeats the value."""
    lines = [line.strip() for line in text.strip().splitlines()[1:3]]
    if len(lines) < 2 or not lines[0] or not lines[1]:
        return []
    return [lines[0], _DETAIL_TYPE.sub("", lines[1])]


_WRAPPED = re.compile(r"""(?P<lead>[^"'`\n]{0,40}?:\s*|)(?:"(?P<body>[^"\n]+)"|'(?P<single>[^'\n]+)')[.!]?$""")
"""A message whose words all sit in one pair of quotes (a server that prints the repr of its exception)."""
_SENTENCE_WORDS = 3
"""Words a quoted body needs to be the message itself rather than a value (``Error: 'column'``)."""


MAX_PARSE_CHARS = 200_000
"""Longest answer read as a document (a longer one is searched as text)."""


_DECODER = json.JSONDecoder()


def _json_sequence(text: str) -> list[Any] | None:
    """The JSON documents ``text`` holds one after another (``{…}\n{…}``: the items of a list a server returned as
    one content block each), as a list; None unless it is two or more of them and nothing else."""
    documents, at = [], 0
    while at < len(text):
        try:
            document, end = _DECODER.raw_decode(text, at)
        except ValueError:
            return None
        documents.append(document)
        at = end
        while at < len(text) and text[at].isspace():
            at += 1
    return documents if len(documents) > 1 else None


def parse_answer(text: str) -> Any:
    """The document an answer's text is: JSON, else a sequence of JSON documents (a list), else the repr of a Python
    dict, list or tuple (``{'success': False, 'error': "Deck 'X' not found"}``, what a Python server that returns
    ``str(result)`` sends), read as literals only; None for any other text (or one longer than
    :data:`MAX_PARSE_CHARS`)."""
    stripped = (text or "").strip()
    if not stripped or len(stripped) > MAX_PARSE_CHARS or stripped[0] not in "[{(":
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    sequence = _json_sequence(stripped)
    if sequence is not None:
        return sequence
    try:
        return ast.literal_eval(stripped)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def looks_like_error(text: str) -> bool:
    """Whether an ok result's text reports a failure: it starts like an error message, it is JSON
    whose result (or one of its items, for a batch) is an error with its reason, or it is a tally of
    a batch in which nothing succeeded and something failed."""
    if ERROR_TEXT.match(text or "") or tally_failure(text or ""):
        return True
    first, *rest = (text or "").strip().splitlines() or [""]
    if _MISSING_LINE.fullmatch(first.strip()) and all(_HINT_LINE.match(line) for line in rest if line.strip()):
        return True  # "Document notes.docx does not exist", and what there is instead on the lines below
    stripped = (text or "").lstrip()
    if not stripped.startswith(("{", "[")):
        return False
    value = parse_answer(stripped)
    if value is None:  # cut short: its verdict and reason, where the cut left them (parsed once, not again)
        return _cut_reason(stripped) is not None
    return bool(_json_error(value, depth=0))


_TALLY_NONE_DONE = re.compile(
    r"^\W{0,4}(?:succeeded|successful|success(?:es)?|ok|passed|done)\s*:\s*0\s*$", re.IGNORECASE | re.MULTILINE
)
_TALLY_FAILED = re.compile(r"^\W{0,4}(?:failed|failures?|errors?)\s*:\s*[1-9]\d*\s*$", re.IGNORECASE | re.MULTILINE)
_TALLY_REASON = re.compile(r"^\W{0,4}(?:error|reason)\s*:\s*(\S[^\n]*)$", re.IGNORECASE | re.MULTILINE)


def tally_failure(text: str) -> str | None:
    """The reason a batch's tally gives when nothing of the batch succeeded (``Succeeded: 0`` and
    ``Failed: 1`` on lines of their own, under a heading such as ``Extraction completed``): its first
    ``Error: <reason>`` line, else its count of failures; None for any other answer (a batch with one
    success did what it could)."""
    failed = _TALLY_FAILED.search(text)
    if failed is None or not _TALLY_NONE_DONE.search(text):
        return None
    reason = _TALLY_REASON.search(text)
    return reason.group(1).strip() if reason else failed.group(0).strip()


MISSING_WORDS_CJK = "不存在|未找到|找不到|存在しません|見つかりません"
"""The Chinese and Japanese words for "does not exist" and "not found"."""
_MISSING_LINE = re.compile(
    r"(?:\W{1,3}\s*)?[A-Z][\w ]{0,40}\S{0,2000}? (?:does not exist|doesn't exist|not found|was not found|could not be found)"
    r"(?: (?:on|for)(?: [\w -]{1,40})?)?[.!]?"  # the place it is not on may be the call's value, taken out
    rf"|[^\n]{{1,200}}(?:{MISSING_WORDS_CJK})[。！.!]?",
)
"""A one-line answer that says the thing it was asked about is not there (``❌ Pin 9 not found on ESP32``); not
``… not found in x``, what a search that found nothing says."""
_ABSENT = re.compile(rf"\b(?:not found|does not exist|doesn't exist|no such)\b|{MISSING_WORDS_CJK}", re.IGNORECASE)


def says_absent(text: str) -> bool:
    """Whether an answer says the thing it was asked about is not there (``Pin 1000000000 not found on ESP32``,
    ``no such table``): a lookup's miss, whatever value made it."""
    return bool(_ABSENT.search(text))


_HINT_LINE = re.compile(r"\W{0,3}\s*(?:available|valid|supported|known|allowed|existing|did you mean)\b", re.IGNORECASE)
"""A line under a refusal that names what the call could have asked for instead (``Available pins: 0, 1, 2``)."""
_FAILED = frozenset({"error", "failed", "failure", "fail", "timeout", "timed_out"})
_VERDICT_KEYS = ("result", "status", "outcome", "state")
"""Keys a JSON answer states its verdict under (``"status": "error"``)."""
"""Verdicts of a JSON answer that failed (a run stopped by its time limit answers ``"status": "timeout"``)."""
_REASON_KEYS = ("reason", "message", "error_message", "errorMessage", "error", "detail", "details", "msg")
_REASON_KEY = f"(?:{'|'.join(_REASON_KEYS)})(?:_en|En)?"
"""The reason keys as a regular expression's alternatives (for answers cut off before they parse), each also in its
English variant (``message_en``)."""
_LOCALISED = re.compile(r"(?P<key>[a-z]+)(?:[_-](?P<lang>[a-z]{2})(?:[_-][a-z]{2})?|(?P<cap>[A-Z][a-z]))")
"""A key of a message in one language (``message_en``, ``message_pt``, ``messageEn``)."""


def object_message(value: Mapping[str, Any], keys: Iterable[str] = _REASON_KEYS) -> str:
    """The message of a JSON object (an error, a finding): its first non-empty string under ``keys``, else under one
    of them in a language of its own (``message_en`` over ``message_pt``: English first, then as written); ``""``."""
    message = next((value[k] for k in keys if isinstance(value.get(k), str) and value[k].strip()), "")
    if message:
        return message
    wanted = {k.lower() for k in keys}
    localised = []
    for key, text in value.items():
        match = _LOCALISED.fullmatch(str(key))
        if match and match["key"] in wanted and isinstance(text, str) and text.strip():
            localised.append(((match["lang"] or match["cap"]).lower() != "en", text))
    return min(localised, key=lambda pair: pair[0])[1] if localised else ""


def error_message(value: Mapping[str, Any], keys: Iterable[str] = _REASON_KEYS) -> str:
    """The message of a JSON answer's ``error``: the string, or an error object's message (:func:`object_message`,
    under ``keys``); ``""`` when it has none."""
    error = value.get("error")
    if isinstance(error, Mapping):
        return object_message(error, keys)
    return error if isinstance(error, str) else ""


_CUT_VERDICT = re.compile(
    rf'"(?:result|status|outcome|state)"\s*:\s*"(?:{"|".join(sorted(_FAILED))})"'
    r'|^\s*\{\s*"error"\s*:\s*\{',
    re.IGNORECASE,
)
"""A failed verdict of a cut answer, or an answer that is an error object (``{"error": {"kind": …``)."""
_CUT_FALSE = re.compile(r'"(?:success|ok)"\s*:\s*false', re.IGNORECASE)
"""``"success": false`` of a cut answer: its verdict only at the answer's top level (not a nested record's)."""
_CUT_REASON = re.compile(rf'"{_REASON_KEY}"\s*:\s*("(?:[^"\\\n]|\\.)*")')
_CUT_OPEN_REASON = re.compile(rf'"{_REASON_KEY}"\s*:\s*"((?:[^"\\\n]|\\.){{1,200}})')
"""A reason whose string the cut ends inside (an answer that repeats a huge argument): its first characters."""
_CUT_REACH = 300
"""How far after a failed verdict the reason of a cut-off JSON result is looked for."""


def _top_level(match: re.Match[str] | None, text: str) -> re.Match[str] | None:
    """``match`` if it sits in the outermost object of ``text`` (one brace open before it), else None."""
    if match is None:
        return None
    before = text[: match.start()]
    return match if before.count("{") - before.count("}") == 1 and "[" not in before else None


def json_error_reason(text: str) -> str | None:
    """The reason a JSON result that failed gives (``Hash mismatch - file has been modified``) — also
    when the text is a JSON result cut short (an evidence excerpt): the first reason after its
    failed verdict, so a boundary's signature is the same from its evidence as from a full answer."""
    value = parse_answer(text)
    if value is None:
        return _cut_reason(text)
    return _json_error(value, depth=0) or None


def _cut_reason(text: str) -> str | None:
    """The reason of a JSON result cut short that failed: the first reason after its failed verdict, where the cut
    left it (:func:`json_error_reason` of a text that does not parse)."""
    verdict = _CUT_VERDICT.search(text) or _top_level(_CUT_FALSE.search(text), text)
    reason = _CUT_REASON.search(text, verdict.end(), verdict.end() + _CUT_REACH) if verdict else None
    if reason is None:
        cut = _CUT_OPEN_REASON.search(text, verdict.end(), verdict.end() + _CUT_REACH) if verdict else None
        return cut.group(1) + "…" if cut and verdict and not _CUT_REASON.search(text, verdict.end()) else None
    try:
        return json.loads(reason.group(1)) or None
    except ValueError:
        return None


def _json_error(value: Any, depth: int) -> str:
    """The reason of a JSON object saying it failed (``"result": "error"``, ``"success": false``, ``"found": false``
    beside a message), at the top or up to two levels down (the items of a batch, keyed or listed); ``""`` if none
    did."""
    if depth > 2:
        return ""
    if isinstance(value, dict):
        verdict = [value.get(k) for k in _VERDICT_KEYS]
        stated = any(isinstance(v, str) and v.lower() in _FAILED for v in verdict)
        failed = stated or value.get("success") is False or value.get("ok") is False or value.get("found") is False
        reason = object_message(value)
        if stated and not reason and depth == 0:  # the call's own failed status, its reason under a key of its own
            reason = next((v for k, v in value.items() if k not in _VERDICT_KEYS and isinstance(v, str)
                           and " " in v.strip()), "")  # ("explanation": "Model validation failed with 1 error(s)…")
        if failed and reason:
            return reason
        message = error_message(value)  # {"error": {"kind": "illegal_move", "message": "..."}} too
        if depth == 0 and message and not any(
            value.get(k) is True for k in ("success", "ok")
        ):  # {"error": "Todo with ID 'x' not found", ...}
            return message
        items = list(value.values())
    elif isinstance(value, list):
        items = value[:20]
    else:
        return ""
    return next((r for item in items if isinstance(item, dict | list) and (r := _json_error(item, depth + 1))), "")
