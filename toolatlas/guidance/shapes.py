"""The shapes of literal values: what kind of thing a value in a request (or a verified call) is.

"1500 * 1.04^10" is an arithmetic expression, "notes/todo.txt" a relative path to a text file,
"2024-03-01" a date. A request rarely names the kind of its values; a tool's documentation and the
values it was verified on do. :func:`value_shapes` names the kinds (``shape:expression``…) for
routing; :func:`shape_words` says them in the words a tool's documentation would use, so lexical
matching can meet them.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["FORMAT_WORDS", "SHAPE_WORDS", "changes_data", "shape_words", "value_shapes"]

_TOKEN = re.compile(r"[^\s,;?!()\[\]{}\"'`<>|]+")
_EXPRESSION = re.compile(r"\d[\d.]*\s*[+*^%×]\s*[\d.(]|\d[\d.]*\s+[-/÷]\s+[\d.(]")
"""A number, an operator and a number; a minus or a slash only between spaces ("2024-01-02", "1/2/2024"
are dates)."""
_NAMED_EXPRESSION = re.compile(r"(?<![\w/.])[A-Za-z_]\w*\s+[*^%×+]\s+[\d(]|[\d)]\s+[*^%×+]\s+[A-Za-z_]\w*(?![\w/.])")
"""A name and a number joined by an operator, spaced ("rate * 12", "12 * rate"): an expression over a
variable (not "C++" or a glob's "*.txt")."""
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"^\d{1,2}:\d{2}(?::\d{2})?$")
_TIME_12H = re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)(?![a-z])", re.IGNORECASE)
_EMAIL = re.compile(r"^[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+$")
_EXTENSION = re.compile(r"[A-Za-z0-9_\-]\.([A-Za-z][A-Za-z0-9]{0,4})$")
_CHANGE_STATEMENT = re.compile(
    r"^\s*(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|merge\s+into|delete\s+from|update\s+\S+\s+set)\b",
    re.IGNORECASE)
"""A statement that changes rows (standard SQL's data-changing statements, not a sentence that begins "Update…")."""


def changes_data(value: str) -> bool:
    """Whether a value is a statement that changes data (``INSERT INTO …``, ``UPDATE …``, ``DELETE FROM …``)."""
    return bool(_CHANGE_STATEMENT.match(value))


SHAPE_WORDS = {
    "shape:expression": "expression",
    "shape:date": "date",
    "shape:time": "time",
    "shape:time_12h": "12-hour clock",
    "shape:email": "email",
}
"""How a tool's documentation names a value of each shape. A path says itself ("notes/team.md" has
its folder, name and extension as words): naming it a *file* as well would pull every file tool in."""
FORMAT_WORDS = {
    "shape:ext_txt": "text",
    "shape:ext_md": "markdown text",
    "shape:ext_docx": "word document",
    "shape:ext_xlsx": "spreadsheet workbook",
    "shape:ext_ods": "spreadsheet workbook",
    "shape:ext_js": "javascript",
    "shape:ext_py": "python",
}
"""What a file's extension abbreviates (``.txt`` a text, ``.docx`` a Word document): the tool that reads
that format says so, though a request names only the file."""


@lru_cache(maxsize=1 << 14)
def shape_words(text: str, *, formats: bool = True) -> str:
    """The documentation's words for the shapes of the values in ``text`` ("" when it has none); without
    ``formats``, not the words for the formats of its files (they say what a tool reads, not what risks)."""
    said = {**SHAPE_WORDS, **FORMAT_WORDS} if formats else SHAPE_WORDS
    return " ".join(sorted({said[shape] for shape in value_shapes(text) if shape in said}))


def value_shapes(text: str) -> frozenset[str]:
    """The shapes of the literal values in ``text``: ``shape:expression`` (a number, an operator, a
    number; ``shape:named_expression`` as well when a name stands for a number: "rate * 12"),
    ``shape:relative_path`` / ``shape:absolute_path`` (a file name with a folder),
    ``shape:ext_<x>`` and ``shape:file`` (a file name with an extension), ``shape:date``, ``shape:time``
    (and ``shape:time_12h`` for "9:15 am"), ``shape:email``."""
    return _shapes(text)


@lru_cache(maxsize=1 << 14)
def _shapes(text: str) -> frozenset[str]:
    found = {"shape:expression"} if _EXPRESSION.search(text) else set()
    if _NAMED_EXPRESSION.search(text):
        found |= {"shape:expression", "shape:named_expression"}
    if _TIME_12H.search(text):
        found |= {"shape:time", "shape:time_12h"}
    for token in _TOKEN.findall(text):
        token = token.rstrip(".:")
        if _EMAIL.match(token):
            found.add("shape:email")
            continue
        if "://" in token:
            continue  # an address, not a file (its last part may end like one)
        extension = _EXTENSION.search(token)
        if extension and not token.replace(".", "").isdigit():
            found |= {f"shape:ext_{extension.group(1).lower()}", "shape:file"}
            if "/" in token:
                found.add("shape:absolute_path" if token.startswith(("/", "${")) else "shape:relative_path")
        if _DATE.match(token):
            found.add("shape:date")
        if _TIME.match(token):
            found.add("shape:time")
    return frozenset(found)
