"""Arguments bound to what an earlier step of the same probe answered.

Some servers mint an identifier when a call creates something in their memory (a session, a handle,
a job) and ignore any the caller suggests: that identifier exists only in that process, from that
call on. A literal copied from an earlier probe names nothing in a fresh sandbox, so a later step
carries a reference instead — ``${step0.session_id}``: the value at ``session_id`` of step 0's
answer — and the executor fills it just before the call. The reference stays in the probe, the
atlas' evidence and its replays (it is what makes them replayable); the value the server saw is in
the call's outcome.

A path is dotted keys from the top of the answer (:func:`answer_fields`: its structured content, else
its text when that is whole JSON, else the ``Label: value`` lines of its text — ``Search ID: 3f2a9c1b``
is ``search_id``); a key not found on that path is looked for anywhere in the answer (first match,
breadth first). A reference that cannot be filled is sent as it is (the call then fails as with
any unknown value: evidence, not a crash).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolatlas.models import CallOutcome
from toolatlas.probing.text import parse_answer

__all__ = [
    "answer_document", "answer_fields", "bind_outputs", "bound_references", "document_of", "labelled_fields",
    "output_ref", "parse_ref", "returned_text", "shifted_references", "value_at", "wraps_text",
]

_OUTPUT_REF = re.compile(r"^\$\{step(\d+)\.([^{}\s]+)\}$")
_LABELLED_LINE = re.compile(r"([A-Za-z][A-Za-z0-9]*(?:[ _-][A-Za-z0-9]+){0,3}):[ \t]*(\S+)[ \t]*")
"""``Search ID: 3f2a9c1b``: a label of one to four words at the start of a line, one word of value."""
WRAPPED_CHARS = 200
"""Characters of a text compared with the one string of a structured content that may only wrap it."""


def output_ref(step: int, path: str) -> str:
    """The reference to the value at ``path`` of step ``step``'s answer."""
    return f"${{step{step}.{path}}}"


def parse_ref(value: Any) -> tuple[int, str] | None:
    """(step, path) of a whole-string reference, else None."""
    if not isinstance(value, str) or not value.startswith("${step"):
        return None
    match = _OUTPUT_REF.match(value)
    return (int(match.group(1)), match.group(2)) if match else None


def bound_references(arguments: Any) -> list[tuple[int, str]]:
    """Every output reference in a JSON-like value."""
    if isinstance(arguments, Mapping):
        return [ref for value in arguments.values() for ref in bound_references(value)]
    if isinstance(arguments, list):
        return [ref for value in arguments for ref in bound_references(value)]
    ref = parse_ref(arguments)
    return [ref] if ref else []


def shifted_references(arguments: Any, by: int, before: int) -> Any:
    """``arguments`` with every reference to a step before ``before`` (the position of the step that holds
    them) pointing ``by`` steps later: the chain gained steps before them. A reference to a later step
    came from another chain and names no step of this one; it is left as it is."""
    if isinstance(arguments, Mapping):
        return {k: shifted_references(v, by, before) for k, v in arguments.items()}
    if isinstance(arguments, list):
        return [shifted_references(v, by, before) for v in arguments]
    ref = parse_ref(arguments)
    return output_ref(ref[0] + by, ref[1]) if ref and ref[0] < before else arguments


def document_of(structured: Any, excerpt: str) -> Any:
    """A result's document: its structured content, else its text when that is whole JSON (or a Python repr of
    one, :func:`~toolatlas.probing.text.parse_answer`)."""
    if structured is not None:
        return structured
    text = excerpt.strip()
    if not text.startswith(("{", "[")):
        return None
    return parse_answer(text)


def returned_text(structured: Any, text: str) -> bool:
    """Whether a structured content is what the Python SDK makes of a tool that returns a string: ``{"result":
    "<that string>"}`` (:func:`wraps_text`) — the string is the tool's answer (a JSON one is read as JSON), where
    another single key (``{"content": "<a file's text>"}``) holds what the tool read."""
    return isinstance(structured, Mapping) and list(structured) == ["result"] and wraps_text(structured, text)


def wraps_text(structured: Any, text: str) -> bool:
    """Whether a structured content only wraps an answer's text: one key holding that very string
    (``{"result": "Search ID: …"}``, what a framework makes of a tool that returns a string)."""
    if not isinstance(structured, Mapping) or len(structured) != 1:
        return False
    (value,) = structured.values()
    text = (text or "").strip()
    return isinstance(value, str) and bool(text) and value.strip()[:WRAPPED_CHARS] == text[:WRAPPED_CHARS]


def labelled_fields(text: str) -> dict[str, str]:
    """The ``Label: value`` lines of a text answer, keyed by the label's words in lower case joined with
    ``_`` (``Search ID: 3f2a9c1b`` → ``{"search_id": "3f2a9c1b"}``): only lines that start at the margin
    (an indented line belongs to a record listed below it) and hold one word of value; the first of a label wins."""
    fields: dict[str, str] = {}
    for line in (text or "").splitlines():
        match = _LABELLED_LINE.fullmatch(line.rstrip())
        if match:
            key = "_".join(word.lower() for word in re.split(r"[ _-]+", match.group(1)))
            fields.setdefault(key, match.group(2))
    return fields


def answer_fields(structured: Any, excerpt: str) -> Any:
    """What of an answer a later call can take values from: its JSON (structured content, else text that
    is whole JSON — also when the structured content only wraps that text), else the ``Label: value``
    lines of its text (:func:`labelled_fields`), else None."""
    if structured is not None and not wraps_text(structured, excerpt):
        return structured
    document = document_of(None, excerpt)
    if document is not None:
        return document
    return labelled_fields(excerpt) or structured


def answer_document(outcome: CallOutcome) -> Any:
    """An answer's values for later steps (:func:`answer_fields` of its structured content and text)."""
    return answer_fields(outcome.structured, outcome.excerpt)


def value_at(document: Any, path: str) -> Any:
    """The scalar at dotted ``path`` of ``document`` (a key elsewhere in it when the path misses), or None."""
    node = document
    for key in path.split("."):
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            node = None
            break
    if _scalar(node):
        return node
    last = path.rsplit(".", 1)[-1]
    frontier = [document]
    while frontier:
        found: list[Any] = []
        for item in frontier:
            if isinstance(item, Mapping):
                if last in item and _scalar(item[last]):
                    return item[last]
                found.extend(item.values())
            elif isinstance(item, list):
                found.extend(item)
        frontier = found
    return None


def bind_outputs(arguments: Any, answers: Mapping[int, Any]) -> Any:
    """``arguments`` with every reference to a step in ``answers`` (step → JSON answer) filled."""
    if isinstance(arguments, Mapping):
        return {k: bind_outputs(v, answers) for k, v in arguments.items()}
    if isinstance(arguments, list):
        return [bind_outputs(v, answers) for v in arguments]
    ref = parse_ref(arguments)
    if ref is None or ref[0] not in answers:
        return arguments
    value = value_at(answers[ref[0]], ref[1])
    return arguments if value is None else value


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool) and value != ""
