"""Values a text names: examples and allowed values in a description, the fix an error suggests.

A maintainer's words carry values: "one of: a, b, c", "e.g. `#ff0000`", "such as 'Sales'",
"Supported units: m, km, mi", and errors that name the way out — "Available sheets: 'Sales',
'Targets'", "did you mean 'celsius'?", "must be one of [...]", zod's "Expected 'a' | 'b',
received 'c'", pydantic's "Input should be 'a' or 'b'", a pattern quoted as what a value must match. :func:`description_values` reads a
description's choices and examples; :func:`error_values` reads what an error names, with the
noun that introduced the list ("sheets", "units") and, when the error says it, the argument.
Both share one list reader (:func:`listed_items`): bracketed, quoted or bare comma lists.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from toolatlas.offline.patterns import shortest_match

__all__ = [
    "NamedValues",
    "description_values",
    "documented_arguments",
    "error_ranges",
    "error_values",
    "example_calls",
    "letter_range",
    "listed_items",
    "pattern_values",
    "sql_examples",
    "without_echo",
]

MAX_ITEMS = 60

_ITEM = re.compile(r"[\w.+\-/#°%:$@*]+(?: [\w.+\-/#°%:$@*]+){0,4}")
_BARE_ITEM = re.compile(r"[\w.+\-/#°%$@]{1,40}")
_QUOTED = re.compile(r"""(?:'([^'\n]{1,60})'|"([^"\n]{0,60})"|`([^`\n]{1,60})`)""")
_SEPARATOR = re.compile(r"^\s*(?:,|\||/|;)?\s*(?:\b(?:or|and)\b\s*)?$")
_END = re.compile(r"\.(?:\s|$|(?=[\"'}\]]))|[;\n)]|\s\((?!\w+\))|$")  # a sentence may end inside a JSON string
_TAIL = re.compile(r"\s*(?:,?\s*(?:etc\.?|\.\.\.|…)|\bor\s+(?:more|others?)\b).*$", re.IGNORECASE)


class NamedValues(NamedTuple):
    """Values one phrase of a text names."""

    values: list[str]
    noun: str
    """The words that introduced them ("sheets", "units"; empty when none)."""
    complete: bool
    """The phrase lists *every* accepted value ("must be one of"), not a suggestion ("did you mean")."""
    argument: str | None = None
    """The argument the text says the values are for (zod's ``path``, pydantic's location line)."""


def _unquote(text: str) -> str:
    return text.strip().strip("'\"`").strip()


_GLOSS = re.compile(r"\s\([^()\n]{1,40}\)(?=\s*(?:,|;|\.(?:\s|$)|$|\s+(?:or|and)\b))")
"""A short gloss in parentheses after a listed item (``CONNECT (1)``, ``m (metres)``): not part of the item."""


def listed_items(span: str) -> list[str]:
    """The items a list at the start of ``span`` holds: ``[a, b]``, ``'a', 'b' or 'c'``, ``a, b, c`` (a line that ends
    on a comma goes on on the next); codes written as aliases of each other (``FACP/FADT``) are each an item."""
    span = _WRAPPED.sub(", ", span.lstrip(" :\t"))
    if not span:
        return []
    if span[0] in "[({":
        close = {"[": "]", "(": ")", "{": "}"}[span[0]]
        end = span.find(close)
        inner = span[1:end] if end > 0 else span[1:]
        quoted = [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(inner)]
        items = quoted or [_unquote(p) for p in re.split(r"[,|]", inner)]
        return _clean(items)
    first = _QUOTED.match(span)
    if first:
        items, position = [], 0
        for match in _QUOTED.finditer(span):
            if not _SEPARATOR.match(span[position : match.start()]) and items:
                break
            items.append(next(g for g in match.groups() if g is not None))
            position = match.end()
        return _clean_quoted(items)
    span = _GLOSS.sub("", span)
    closing = _END.search(span)
    body = _TAIL.sub("", span[: closing.start() if closing else len(span)])
    parts = [p.strip() for p in re.split(r",\s*(?:or|and)\s+|,|\||\s+or\s+|\s+and\s+", body)]  # "a, b, or c"
    items = []
    for part in parts:
        if not _BARE_ITEM.fullmatch(part):
            break
        items.append(part)
    return _clean(items)


def _clean_quoted(items: list[str]) -> list[str]:
    """Items the description put in quotes: the quotes say where each ends, so any characters are
    kept (``$.orders[*].total``, ``items[0].tags``); the quotes themselves never are."""
    kept = [i.strip() for i in items if i.strip() and "..." not in i and "…" not in i]
    return list(dict.fromkeys(kept))[:MAX_ITEMS]


def _clean(items: list[str]) -> list[str]:
    kept = [
        alias
        for i in items
        if i and i.strip() and _ITEM.fullmatch(i.strip()) and "..." not in i and "…" not in i  # not cut
        for alias in (i.strip().split("/") if _ALIASES.fullmatch(i.strip()) else [i.strip()])
    ]
    return list(dict.fromkeys(kept))[:MAX_ITEMS]


_WRAPPED = re.compile(r",[ \t]*\n[ \t]*")
"""A list's comma at the end of a line: the list goes on on the next."""
_ALIASES = re.compile(r"[A-Z0-9_]{2,}(?:/[A-Z0-9_]{2,})+")
"""Codes written as aliases of one another (``FACP/FADT``, ``APIC/MADT``)."""


# -- descriptions -----------------------------------------------------------------------------

_EXAMPLE_LEAD = re.compile(
    r"\b(?:e\.g\.|eg\.|e\.g|for example|for instance|such as|examples?|like|i\.e\.)\s*[:,]?\s*", re.IGNORECASE
)
_CHOICE_LEAD = re.compile(
    r"(?:\b(?:valid|allowed|possible|accepted|supported|available|known)\s+(?:values|options|choices)\b"
    r"|\b(?:one of|must be one of|options are|options|choices|either)\b"
    r"|\b(?:supported|available|valid|allowed|accepted)\s+(?:[a-z]+\s){0,2}?(?:[a-z]+s)\b\s*(?:are|include)?)"
    r"\s*(?:are|is|include)?\s*:?\s*",
    re.IGNORECASE,
)


_LABEL_LEAD = re.compile(r"\s*[A-Za-z][\w ]{0,30}?(?::|\s[-–—])\s+")
"""A short label opening a description (``What to export:``, ``Object type -``): the list after it, when it is one,
is the set."""
_OPEN_LIST = re.compile(r"\betc\b|\.\.\.|…|\band (?:more|others|so on)\b", re.IGNORECASE)
"""A list that says it goes on: its items are examples, not the set."""
MIN_LABELLED = 3
"""Items a list after such a label needs to be a set (two may be a pair of examples)."""
_BACKTICKED = re.compile(r"`([^`\n]{1,40})`")
_REFERS_TO = re.compile(r"\b(?:see|from|via|call|calling|run|running)\s*$", re.IGNORECASE)
"""Words before a backticked name that point at where values come from (``see `list_sources```), not at one."""


def description_values(description: str) -> tuple[list[str], list[str]]:
    """``(choices, examples)`` a description lists; choices need two or more members."""
    examples: list[str] = []
    spans: list[tuple[int, int]] = []
    for lead in _EXAMPLE_LEAD.finditer(description):
        rest = description[lead.end() :]
        found = listed_items(rest) or _symbolic_example(rest)
        examples.extend(found)
        spans.append((lead.start(), lead.end() + _span_length(rest)))
    outside = description
    for start, end in reversed(spans):
        outside = outside[:start] + " " + outside[end:]
    choices: list[str] = []
    for lead in _CHOICE_LEAD.finditer(outside):
        found = listed_items(outside[lead.end() :])
        if len(found) >= 2:
            choices = found
            break
    if not examples:  # a literal set in backticks is a value the author had in mind (``Use `auto` to...``)
        examples = [
            m.group(1).strip() for m in _BACKTICKED.finditer(outside)
            if _ITEM.fullmatch(m.group(1).strip()) and not _REFERS_TO.search(outside[:m.start()])
        ]
    if not choices and (label := _LABEL_LEAD.match(outside)):  # "What to export: invoices, customers, products"
        found = listed_items(outside[label.end():])
        if len(found) >= MIN_LABELLED and _OPEN_LIST.search(outside[label.end():]):  # "…, plastic-white, etc."
            examples = examples or found
        elif len(found) >= MIN_LABELLED:
            choices = found
    if not choices:
        quoted = [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(outside)]
        quoted = [q for q in quoted if re.fullmatch(r"[\w.-]+", q)]
        if len(set(quoted)) >= 2 and re.search(r"\bor\b|\|", outside):
            choices = list(dict.fromkeys(quoted))
    return choices, list(dict.fromkeys(examples))


def named_values(text: str, name: str) -> tuple[list[str], list[str]]:
    """``(choices, examples)`` a text lists for the noun an argument is named after: ``Operators: eq, neq,
    gt``, ``operator (eq, neq, gt)``, ``Type of filter (blur, sharpen, grayscale)`` (for ``filter_type``), ``The
    operators are `eq`, `neq`, `gt``` and ``; unit is kg or lb`` are choices, ``operations like replace, extract,
    split`` examples."""
    words = [re.escape(w) for w in re.findall(r"[a-z]+|[A-Z][a-z]*", name) if w]
    if not words or not text:
        return [], []
    phrase = r"\b" + r"[\s_-]*".join(words) + r"(?:e?s)?\b"
    if len(words) == 2:  # ``filter_type`` is also said "Type of filter (blur, sharpen, …)"
        phrase = rf"(?:{phrase}|\b{words[1]}(?:e?s)?\s+of\s+{words[0]}(?:e?s)?\b)"
    for pattern in (rf"(?:^|[.\n])\s*(?:[-*]\s*)?{phrase}\s*:\s*", rf"{phrase}\s*(?=\()", rf"\bthe\s+{phrase}\s+are\s+",
                    rf"(?:^|[;.\n])\s*{phrase}\s+(?:is|must be)\s+(?:one of\s+|either\s+)?(?=[^,;.\n]+\bor\b)"):
        for match in re.finditer(pattern, text, re.IGNORECASE):
            found = listed_items(text[match.end():])
            if len(found) >= (2 if ":" in match.group(0) or " or" in text[match.end():match.end() + 60] else 3):
                return found, []
    like = re.search(rf"{phrase}\s+(?:like|such as|e\.g\.,?|including)\s+", text, re.IGNORECASE)
    return [], listed_items(text[like.end():]) if like else []


def _span_length(rest: str) -> int:
    end = _END.search(rest)
    return end.end() if end else len(rest)


def _symbolic_example(rest: str) -> list[str]:
    """A bare example with spaces that is clearly a value, not prose (``2 + 3 * 4``, ``0 9 * * 1-5``)."""
    end = _END.search(rest)
    text = rest[: end.start() if end else len(rest)].strip().rstrip(",")
    if 0 < len(text) <= 40 and re.search(r"[\d*+=/^#:%]", text) and not re.search(r"[A-Za-z]{4,}\s", text):
        return [text]
    return []


_ARGS_SECTION = re.compile(r"^\s*(?:Args|Arguments|Parameters|Params)\s*:\s*$", re.MULTILINE | re.IGNORECASE)
_ARG_LINE = re.compile(r"^(\s+)([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:\s*(\S.*)$")
_PARAM_LINE = re.compile(r":param\s+(?:\w+\s+)?([A-Za-z_]\w*)\s*:\s*(.+)")
_LETTERS = re.compile(r"\(\s*A\s*-\s*Z\s*\)|\bA to Z\b|single (?:upper-?case )?letter", re.IGNORECASE)


_BULLET_ARG = re.compile(r"^(\s*)[-*•]\s+`?([A-Za-z_]\w*)`?\s*:\s+(\S.*)$")


def _bulleted(description: str) -> dict[str, str]:
    """Per-argument text of bullets that open with a name and a colon (``- path: a directory of raw tables``), each
    with the lines indented under it."""
    found: dict[str, str] = {}
    current: str | None = None
    indent = 0
    for line in description.splitlines():
        match = _BULLET_ARG.match(line)
        if match:
            current, indent = match.group(2), len(match.group(1))
            found.setdefault(current, match.group(3).strip())
        elif current is not None and line.strip() and len(line) - len(line.lstrip()) > indent:
            found[current] += " " + line.strip()
        else:
            current = None
    return found


_PARAGRAPH_ARG = re.compile(r"^\s*([a-z][a-z0-9]*(?:_[a-z0-9]+)*)\s*:\s+(\S.*)$")


def _paragraphs(description: str) -> dict[str, str]:
    """Per-argument text of paragraphs that open with a name in lower case and a colon (``occ_code: 6-digit SOC code
    without dash (e.g., '151252' …)``, its lines at the paragraph's own indent up to a blank line)."""
    found: dict[str, str] = {}
    for paragraph in re.split(r"\n\s*\n", description):
        lines = [line for line in paragraph.splitlines() if line.strip()]
        match = _PARAGRAPH_ARG.match(lines[0]) if lines else None
        if match:
            found.setdefault(match.group(1), " ".join([match.group(2).strip(), *(line.strip() for line in lines[1:])]))
    return found


def documented_arguments(description: str) -> dict[str, str]:
    """Per-argument text of a docstring's ``Args:`` section (Google style), ``:param x:`` lines, bullets that open
    with an argument's name (``- path: a directory of raw tables``) or paragraphs that do (``occ_code: 6-digit SOC
    code …``)."""
    found = {m.group(1): m.group(2).strip() for m in _PARAM_LINE.finditer(description)}
    for name, text in [*_bulleted(description).items(), *_paragraphs(description).items()]:
        found.setdefault(name, text)
    section = _ARGS_SECTION.search(description)
    if section is None:
        return found
    indent: int | None = None
    current: str | None = None
    for line in description[section.end() :].splitlines():
        if not line.strip():
            if current is not None:
                break  # a blank line ends the section
            continue
        match = _ARG_LINE.match(line)
        if match and (indent is None or len(match.group(1)) == indent):
            indent = len(match.group(1))
            current = match.group(2)
            found[current] = match.group(3).strip()
        elif current is not None and indent is not None and len(line) - len(line.lstrip()) > indent:
            found[current] += " " + line.strip()  # a wrapped line of the same argument
        else:
            break
    return found


_EXAMPLES_SECTION = re.compile(r"^\s*(?:Examples?|Example queries|Example usage)\s*:\s*$", re.MULTILINE | re.IGNORECASE)


def example_section(description: str, tool: str) -> tuple[str, list[str]]:
    """The text before a docstring's ``Examples:`` section and the section's lines, each a whole value the tool
    takes (``layer == "ARQ" and type in ("TEXT","MTEXT")``): indented under the heading, up to a blank line or the
    next heading. A call of the tool (read by :func:`example_calls`), a prompt (``>>>``) or a ``name: text`` line
    is no such value. No section: the whole description and no lines."""
    section = _EXAMPLES_SECTION.search(description)
    if section is None:
        return description, []
    found: list[str] = []
    for line in description[section.end():].lstrip("\n").splitlines():
        text = line.strip()
        if not text:
            break
        if _ARG_LINE.match(line) or text.endswith(":") or text.startswith((">>>", "#", "-", "*")) or f"{tool}(" in text:
            if found:
                break
            continue
        found.append(text)
    return description[:section.start()], found


def letter_range(description: str) -> list[str]:
    """``Priority (A-Z)``: a single letter is wanted; the first few, as examples."""
    return ["A", "B", "C"] if _LETTERS.search(description) else []


_SQL_EXAMPLE = re.compile(
    r"\b(?:SELECT\s[^;\n]*?\bFROM\s+[\"\w]+|INSERT\s+INTO\s+[\"\w]+|UPDATE\s+[\"\w]+\s+SET\b"
    r"|DELETE\s+FROM\s+[\"\w]+|CREATE\s+TABLE\s+[\"\w]+)[^;\n]*",
)


def sql_examples(description: str) -> list[str]:
    """Whole SQL statements a description shows (``Example: UPDATE Sales SET x = 1 WHERE id = 2``), each
    within one sentence (``SQL SELECT statement to execute. … FROM Sales`` is prose, not a statement)."""
    found = []
    for sentence in re.split(r"(?<=[\w')\]])\.\s", description):
        for match in _SQL_EXAMPLE.finditer(sentence):
            statement = match.group(0).strip().rstrip(".")
            if statement.count("'") % 2 == 0 and statement.count("(") == statement.count(")"):
                found.append(statement)  # a statement cut short in the description is no example
    return found


# -- errors -----------------------------------------------------------------------------------

_ERROR_LEADS: tuple[tuple[re.Pattern[str], bool], ...] = (
    (re.compile(r"\bdid you mean\s*:?\s*", re.IGNORECASE), False),
    (
        re.compile(
            r"\b(?P<noun>(?:available|supported|valid|allowed|possible|accepted|known|existing|configured|registered|defined)"
            r"(?:\s+[a-z_]+){0,3}?)\s*(?:\b(?:are|is|include)\b|:)\s*:?\s*",
            re.IGNORECASE,
        ),
        True,
    ),
    (re.compile(r"\b(?:must|should) be (?:one of|either|in)?\s*:?\s*", re.IGNORECASE), True),
    (re.compile(r"\bexpected (?:one of\s*)?:?\s*(?=['\"`\[])", re.IGNORECASE), True),
    (re.compile(r"\b(?:use|try|choose)(?: one of)?\s*:\s*", re.IGNORECASE), False),
    # a sentence that opens "Use a, b, or c." (a hint under a refusal): a list of two or more, no colon
    (re.compile(r"(?:^|(?<=[.!?\"'{:;]))\s*(?:use|try|choose)\s+(?:one of\s+)?(?=[\w-]+,\s*[\w-]+)", re.IGNORECASE
                | re.MULTILINE), False),
    (re.compile(r"\b(?P<noun>[a-z_]+s)[\"']?\s*:\s*(?=['\"`\[])", re.IGNORECASE), True),  # "sheets: [...]"
    (re.compile(r"\b(?P<noun>[a-z_]+s)\s+(?:present|available|found|known|loaded)\s*:\s*", re.IGNORECASE), True),
    (re.compile(r"\bnot (?:in|one of)\s*:?\s*", re.IGNORECASE), True),
    (re.compile(r"\b(?:e\.g\.|for example|such as)\s*,?\s*:?\s*", re.IGNORECASE), False),  # "(e.g. DN13 or DN13la)"
)
_NOT_NOUNS = frozenset(
    {
        "error",
        "errors",
        "warning",
        "info",
        "message",
        "details",
        "detail",
        "reason",
        "value",
        "input",
        "received",
        "got",
        "given",
        "output",
        "result",
        "response",
        "note",
        "hint",
        "code",
        "status",
        "path",
        "loc",
        "location",
        "type",
        "msg",
        "expected",
        "file",
        "format",
    }
)
_RECEIVED = re.compile(r"\b(?:received|got|given)\s+['\"`]([^'\"`]{0,80})['\"`]", re.IGNORECASE)
_ZOD_PATH = re.compile(r'"path"\s*:\s*\[\s*"([^"]+)"')
_PYDANTIC_LOCATION = re.compile(
    r"^\s*([A-Za-z_][\w.\[\]]*)\n\s+(?:Input should|Value error|Field required)", re.M
)


_ECHO = re.compile(r"\[type=[^\]]*\]|\binput_value=.*?(?=, input_type=|\]|$)", re.DOTALL)
"""Pydantic's echo of the refused input (``[type=missing, input_value={...}]``): it names no fix."""


def without_echo(text: str) -> str:
    """``text`` without pydantic's echo of the refused input (``[type=…, input_value=None, input_type=…]``): the
    echo's words name neither a fix nor a field."""
    return _ECHO.sub(" ", text)


_RANGE = re.compile(
    r"(?:\(\s*|\[\s*|\bbetween\s+|\bfrom\s+|\brange\s+(?:is\s+)?|\b(?:are|is)\s+)"
    r"(?P<low>-?\d+)\s*(?:-|–|\.\.|,|\bto\b|\band\b)\s*(?P<high>-?\d+)\s*[)\]]?",
    re.IGNORECASE,
)
"""A span of valid positions an error states: ``(0-4)``, ``[1, 10]``, ``between 1 and 10``, ``from 0 to 3``,
``data rows are 2–13``."""
_RANGE_FILLERS = frozenset(
    "a an the has have had is are be must should it its of in within valid value values only "
    "document file there contains total range index between from out not number".split()
)


_HOLDS = re.compile(r"\b(?:has|have|contains|holds)\s+(?:only\s+)?(?P<count>\d{1,6})\s+(?P<noun>[A-Za-z]+)", re.IGNORECASE)
"""A count of what there is: ``Presentation has 1 slides``."""
_PAST_THE_END = re.compile(r"\bnot found\b|\bout of (?:range|bounds)\b|\binvalid\b|\bexceeds?\b|\bbeyond\b|\bno such\b",
                           re.IGNORECASE)


def error_ranges(text: str) -> list[NamedValues]:
    """Numeric spans an error states as valid, each as its two ends (``Document has 1 tables (0-0)``:
    ``0``), with the noun just before it (``tables``); an empty span (``(0--1)``, nothing valid) names
    nothing. An error refusing a position past the end that counts what there is (``Slide index 5 not found.
    Presentation has 2 slides.``) names the first and last positions counted from zero (``0``, ``1``), after
    the noun counted (``slides``)."""
    found: list[NamedValues] = []
    if _PAST_THE_END.search(text) and not _RANGE.search(text):
        for match in _HOLDS.finditer(text):
            count = int(match.group("count"))
            if count >= 1:
                found.append(NamedValues(list(dict.fromkeys(["0", str(count - 1)])), match.group("noun").lower(), False))
    for match in _RANGE.finditer(text):
        low, high = int(match.group("low")), int(match.group("high"))
        if high < low:
            continue
        before = re.findall(r"[A-Za-z_]+", text[max(0, match.start() - 60) : match.start()])
        nouns = [w for w in before if w.lower() not in _RANGE_FILLERS][-2:]
        found.append(NamedValues(list(dict.fromkeys([str(low), str(high)])), " ".join(nouns).lower(), False))
    return found


_MUST_MATCH = re.compile(
    r"(?P<noun>(?:[A-Za-z_]+\s+){0,3}?)(?:doesn't|does not|didn't|did not|must|should|has to|needs to)\s+match"
    r"(?:\s+(?:the\s+)?(?:pattern|regex|regular expression|format))?\s*:?\s*"
    r"(?:'(?P<single>[^'\n]{1,200})'|\"(?P<double>[^\"\n]{1,200})\"|`(?P<tick>[^`\n]{1,200})`|/(?P<slash>[^/\n]{1,200})/)",
    re.IGNORECASE,
)
"""An error quoting the pattern a value must match: ``YAML frontmatter doesn't match '---\\n(.*)\\n---'``."""


def pattern_values(text: str) -> list[NamedValues]:
    """The shortest match of each pattern an error says a value must match (:func:`shortest_match`), with
    the words before it (``yaml frontmatter``): a value the check accepts."""
    found = []
    for match in _MUST_MATCH.finditer(text):
        pattern = next(g for g in (match.group("single"), match.group("double"), match.group("tick"),
                                   match.group("slash")) if g is not None)
        example = shortest_match(pattern)
        if example:
            found.append(NamedValues([example], " ".join(match.group("noun").split()).lower(), False))
    return found


def error_values(text: str) -> list[NamedValues]:
    """Every list of values an error text names, most explicit phrasing first, and the shortest match of
    a pattern it says a value must match (:func:`pattern_values`); then the numeric spans it states as
    valid (:func:`error_ranges`)."""
    found: list[NamedValues] = pattern_values(text)
    text = without_echo(text)
    received = {m.group(1) for m in _RECEIVED.finditer(text)}
    zod = _ZOD_PATH.search(text)
    location = _PYDANTIC_LOCATION.search(text)
    argument = zod.group(1) if zod else (location.group(1) if location else None)
    seen: set[tuple[str, ...]] = set()
    for lead, complete in _ERROR_LEADS:
        for match in lead.finditer(text):
            values = [v for v in listed_items(text[match.end() :]) if v not in received]
            key = tuple(values)
            if not values or key in seen:
                continue
            seen.add(key)
            noun = (match.groupdict().get("noun") or "").lower()
            if noun in _NOT_NOUNS or noun.startswith(("unknown", "invalid")):
                continue
            found.append(NamedValues(values, noun, complete, argument))
    return found + [r for r in error_ranges(text) if tuple(r.values) not in seen]


MAX_CALL_CHARS = 2000
"""Longest example call read from a description."""


def example_calls(description: str, tool: str, parameters: Sequence[str]) -> list[dict[str, Any]]:
    """Whole calls of ``tool`` a description shows as code (``>>> write_stl([[0,0,0], [1,0,0], [0,1,0]], [[0,0,1]],
    "output.stl")``), as arguments by name: positional ones in the order the schema lists its parameters, keyword
    ones by their name. A call with a value that is no literal, or more positional values than parameters, is no
    example."""
    calls = []
    for match in re.finditer(rf"(?<![\w.]){re.escape(tool)}\(", description):
        node = _call_at(description, match.end() - 1)
        if node is None or len(node.args) > len(parameters):
            continue
        try:
            arguments = {name: _as_json(ast.literal_eval(arg)) for name, arg in zip(parameters, node.args, strict=False)}
            arguments |= {k.arg: _as_json(ast.literal_eval(k.value)) for k in node.keywords
                          if k.arg is not None and k.arg in parameters}
        except (ValueError, TypeError, SyntaxError, RecursionError):
            continue
        if arguments:
            calls.append(arguments)
    return calls


def _as_json(value: Any) -> Any:
    """A literal of an example call as JSON holds it: a tuple is an array (``"coordinates": (0, 0)``); an elided
    part (``[...]``) makes it no example (TypeError)."""
    if value is Ellipsis:
        raise TypeError("an elided value")
    if isinstance(value, tuple | list):
        return [_as_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_json(v) for k, v in value.items()}
    return value


def _call_at(text: str, opening: int) -> ast.Call | None:
    """The Python call whose argument list opens at ``text[opening]``: the shortest span up to a ``)`` that parses."""
    end = opening
    while (end := text.find(")", end + 1, opening + MAX_CALL_CHARS)) != -1:
        try:
            node = ast.parse(f"f{text[opening:end + 1]}", mode="eval").body
        except (SyntaxError, ValueError, RecursionError):  # a bracket inside a literal; a null byte; deep nesting
            continue
        return node if isinstance(node, ast.Call) else None
    return None
