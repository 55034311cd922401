"""Formats a description states for a string, which outrank what the argument's name suggests.

A ``time`` described ``Format: YYYY-MM-DD HH:mm:ss.SSS`` is a date and time, not a time of day; a
``path`` described ``Dot/bracket notation path … "data.users"`` is a path into a document, not a
file. :func:`stated_moment` reads a date template (``YYYY-MM-DD``, ``MM/DD/YYYY``, with or without
``HH:mm[:ss[.SSS]]``) or an example that is a date (``e.g. 2025-03-23 12:30:00``) and says how a value
must be written; :func:`moment_text` writes one that way. :func:`names_a_notation` tells a path
in a notation other than the file system's.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Moment", "moment_text", "names_a_notation", "stated_moment"]

_DATE_TEMPLATE = re.compile(
    r"\b(?P<date>yyyy[-/.]mm[-/.]dd|mm[-/.]dd[-/.]yyyy|dd[-/.]mm[-/.]yyyy)"
    r"(?:(?P<sep>[ t]|'t')(?P<time>hh:mm(?::ss(?:\.s{1,6})?)?))?",
    re.IGNORECASE,
)
_DATE_EXAMPLE = re.compile(
    r"\b(?:e\.g\.?|eg\.|for example|examples?|such as|like)\s*[:,]?\s*[\"'`]?"
    r"(?P<date>\d{4}-\d{2}-\d{2})(?:(?P<sep>[ T])(?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?))?",
    re.IGNORECASE,
)
_NOTATION = re.compile(
    r"\b(?:dot|bracket|dotted)(?:\s*/\s*|\s+(?:or|and)\s+)?(?:bracket|dot)?[\s-]+notation\b|\bjson\s?path\b"
    r"|\bkey\s+path\b|\bdot-separated\b|\bpath\s+(?:in|into|within)\s+the\s+(?:document|object|json)\b",
    re.IGNORECASE,
)


class Moment(NamedTuple):
    """How a stated date (and time) is written."""

    order: str
    """``ymd``, ``mdy`` or ``dmy``."""
    divider: str
    """Between the date's parts: ``-``, ``/``, ``.``."""
    separator: str | None
    """Between date and time (``" "``, ``"T"``); None: a date alone."""
    time: str
    """``hh:mm``, ``hh:mm:ss`` or ``hh:mm:ss.`` plus the fraction's digits (``hh:mm:ss.sss``)."""


def stated_moment(description: str) -> Moment | None:
    """The date format a description states by a template or a dated example, None without one."""
    template = _DATE_TEMPLATE.search(description)
    if template is not None:
        date = template.group("date").lower()
        order = "ymd" if date.startswith("y") else "mdy" if date.startswith("m") else "dmy"
        separator = template.group("sep")
        separator = None if separator is None else ("T" if "t" in separator.lower() else " ")
        return Moment(order, date[4] if order == "ymd" else date[2], separator, (template.group("time") or "").lower())
    example = _DATE_EXAMPLE.search(description)
    if example is not None:
        clock = example.group("time") or ""
        shape = re.sub(r"\d", "s", clock)
        time = {5: "hh:mm", 8: "hh:mm:ss"}.get(len(clock), "hh:mm:ss." + shape[9:]) if clock else ""
        return Moment("ymd", "-", example.group("sep") if clock else None, time)
    return None


def moment_text(moment: Moment, day: str, clock: str) -> str:
    """``day`` (``YYYY-MM-DD``) and ``clock`` (``HH:MM:SS``) written the stated way."""
    year, month, date = day.split("-")
    parts = {"ymd": (year, month, date), "mdy": (month, date, year), "dmy": (date, month, year)}[moment.order]
    text = moment.divider.join(parts)
    if moment.separator is None or not moment.time:
        return text
    written = clock[:5] if moment.time == "hh:mm" else clock[:8]
    if "." in moment.time:
        written += "." + "0" * len(moment.time.split(".", 1)[1])
    return f"{text}{moment.separator}{written}"


def names_a_notation(description: str) -> bool:
    """Whether a path is said to be written in a notation into a document (dot/bracket, JSONPath), not a file's."""
    return bool(_NOTATION.search(description))
