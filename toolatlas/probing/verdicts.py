"""A judging tool's verdict: whether a validator's or a checker's answer says no to what it was given, in its words.

A tool that judges what it is given (``validate_cpf``, ``check_pin_conflict``; "Check if …": :func:`judges`) answers
a negative verdict as a success — ``"is_valid": false``, ``"valid": false`` beside its findings or its error object,
``❌ CONFLICTS (Must Fix):`` over the pins in conflict. That answer is the tool doing its work on input that does not
pass, not the tool failing: :func:`negative_verdict` reads it, and the error evidence of
:mod:`~toolatlas.probing.evidence` leaves it to :func:`~toolatlas.probing.hidden.hidden_failure`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from toolatlas.models import ToolSpec
from toolatlas.probing.bindings import document_of
from toolatlas.probing.text import error_message, object_message

__all__ = ["JUDGING_VERBS", "NEGATIVE_VERDICT", "WORD", "judges", "judged_no", "lead_words", "negative_verdict"]

WORD = re.compile(r"[A-Za-z][a-z]*")


def lead_words(spec: ToolSpec) -> list[str]:
    """The first word of a tool's name and of its description, lower-cased: where its verb stands."""
    return [w.lower() for w in WORD.findall(spec.name)[:1] + WORD.findall(spec.description or "")[:1]]


NEGATIVE_VERDICT = "its verdict on what it was given is negative"
_VERDICT_KEYS = ("valid", "is_valid", "isValid", "passed", "pass", "compliant", "conforms", "balanced", "matches",
                 "is_match", "in_range", "within_range", "consistent", "compatible", "is_compatible")
"""Keys of a JSON answer whose false value is the answer's verdict on the call's input (not a failure to answer)."""
_VERDICT_LINE = re.compile(rf'^\s{{0,2}}"(?:{"|".join(_VERDICT_KEYS)})"\s*:\s*false\b', re.MULTILINE)
_FIRST_MESSAGE = re.compile(r'"(?:message|description|reason|detail)"\s*:\s*"([^"\n]{1,160})"')
_CROSS_LINE = re.compile(r"^\s*[❌✗✘]\s*(?P<line>\S[^\n]{0,160})$", re.MULTILINE)
_BULLET = re.compile(r"^\s*[•*-]\s+(?P<line>\S[^\n]{0,160})$", re.MULTILINE)


JUDGING_VERBS = frozenset("validate check verify lint test audit detect assess evaluate compare".split())
"""Verbs of tools whose use is to judge what they are given: their answer is a verdict."""


def judges(spec: ToolSpec | None) -> bool:
    """Whether a tool judges what it is given (``validate_ach_file``, ``check_pin_conflict``; "Check if …")."""
    if spec is None:
        return False
    return any(w in JUDGING_VERBS for w in lead_words(spec))


_FAILED_STATUS = frozenset("invalid fail failed failure error errors rejected noncompliant non-compliant".split())
"""Values of a JSON answer's ``status`` (``result``, ``verdict``) that say what it was given did not pass."""
_STATUS_KEYS = ("status", "result", "verdict")
_FINDING_KEYS = ("errors", "findings", "violations", "issues", "problems")
_MESSAGE_KEYS = ("message", "description", "reason", "detail", "error")


def _json_verdict(text: str) -> str | None:
    """The verdict of an answer that is a whole JSON object, when it is no: its first error or finding (a string, or
    an object's message), else the verdict key as written (``"status": "invalid"``). None when it is not JSON or its
    top level says no verdict (a nested flag is part of what it reports, not its verdict)."""
    document = document_of(None, text)
    if not isinstance(document, Mapping):
        return None
    said = next((f'"{key}": false' for key in _VERDICT_KEYS if document.get(key) is False), None)
    if said is None:
        said = next((f'"{key}": "{document[key]}"' for key in _STATUS_KEYS
                     if isinstance(document.get(key), str) and document[key].strip().lower() in _FAILED_STATUS), None)
    if said is None:
        return None
    for key in _FINDING_KEYS:
        findings = document.get(key)
        for finding in findings if isinstance(findings, list) else ():
            if isinstance(finding, str) and finding.strip():
                return finding.strip()[:160]
            if isinstance(finding, Mapping) and (message := object_message(finding, _MESSAGE_KEYS)):
                return message.strip()[:160]
    error = error_message(document, _MESSAGE_KEYS)  # or its error: {"code": "INVALID_CHECKSUM", "message_en": "…"}
    return error.strip()[:160] if error.strip() else said


def judged_no(text: str, spec: ToolSpec | None, *, changed: bool | None) -> str | None:
    """The negative verdict (:func:`negative_verdict`) of a judging tool's answer that changed nothing, or None."""
    return negative_verdict(text) if changed is not True and judges(spec) else None


def negative_verdict(text: str) -> str | None:
    """What an answer that judged its input says of it, when the judgement is no, in its own words: of a JSON answer
    whose top-level verdict is no (``"is_valid": false``, ``"status": "invalid"``), its first error or finding, else
    that verdict; of a line marked with a cross (``❌ CONFLICTS (Must Fix):``), the first item under it, else the line.
    None when the answer judged nothing or said yes; a first line that is itself an error is an error, not a verdict."""
    head = text.lstrip()
    if head.startswith("{"):
        judged = _json_verdict(head)
        if judged is not None:
            return judged
        verdict = _VERDICT_LINE.search(head[:600])  # a JSON answer cut short: its verdict line
        if verdict is not None:
            message = _FIRST_MESSAGE.search(head, verdict.end())
            return message.group(1) if message else verdict.group(0).strip()
    crossed = _CROSS_LINE.search(text)
    if crossed is None or not text[:crossed.start()].strip():  # an answer that opens with ❌ is an error
        return None
    line = crossed.group("line").strip("* ").rstrip()
    if line.endswith(":"):  # a heading: what it lists is the verdict
        item = _BULLET.search(text, crossed.end())
        if item is not None:
            return item.group("line").strip()
    return line
