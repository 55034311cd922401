"""The instrument a request names: "Use *Python* to list the files", "In *Python*, add up the squares", "Using *SQL*,
count the orders".

A tool that runs a language — its purpose says it executes, runs or evaluates something written in it ("Execute
*Python* code", "Execute a *SQL* query", "Execute a *JSONPath* expression") — is what a request that names that
language as the means of its work asks for, whatever the work is: listing files, summing numbers. The operation
words of such a request ("list", "add up") describe what the code does, not a tool to call; the language says which
tool. The language of a tool is the capitalised words between its verb and what it runs (``Python``, ``SQL``,
``BQL``), read from its own description; the request names one as an instrument right after "use", "using", "in" or
"with" (an article aside).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["languages", "named_instruments", "runners_of", "runs_files"]

_RUNS = re.compile(r"\b(?:runs?|execute[sd]?|evaluates?)\s+((?:[\w+#/.()-]+\s+){0,5}?)"
                   r"(code|scripts?|files?|quer(?:y|ies)|statements?|expressions?|programs?|snippets?)\b",
                   re.IGNORECASE)
"""What a purpose says its tool runs: the words between the verb and the kind of text run."""
_ARTICLES = frozenset({"a", "an", "the", "one", "some", "your", "my"})
_INSTRUMENT = re.compile(r"\b(?:use|using|in|with)\s+(?:(?:a|an|the|some|plain)\s+)?([A-Za-z][\w+#-]*)", re.IGNORECASE)
"""Where a request names the means of its work: the word after "use", "using", "in", "with"."""


def languages(purpose: str) -> frozenset[str]:
    """The languages a tool's purpose says it runs, lower-cased: the words written with a capital (``Python``,
    ``SQL``, ``JSONPath``) between "execute"/"run"/"evaluate" and the kind of text it runs."""
    match = _RUNS.search(purpose)
    if not match:
        return frozenset()
    words = (w.strip(".,;:()") for w in match.group(1).split() if not w.endswith(")"))
    return frozenset(w.lower() for w in words if w and w.lower() not in _ARTICLES and w[:1].isupper())


def runs_files(purpose: str) -> bool:
    """Whether what a tool's purpose says it runs is a file or a script (named by a path), not text passed to it."""
    match = _RUNS.search(purpose)
    return match is not None and match.group(2).lower().startswith(("file", "script"))


def named_instruments(task: str, runners: Mapping[tuple[str, str], frozenset[str]]) -> list[tuple[str, str]]:
    """The tools of ``runners`` (tool → the languages it runs) whose language ``task`` names as the means of its
    work ("Use Python to …"), in ``runners``' order."""
    named = {m.group(1).lower() for m in _INSTRUMENT.finditer(task)}
    return [key for key, spoken in runners.items() if spoken & named] if named else []


def runners_of(purposes: Iterable[tuple[tuple[str, str], str]]) -> dict[tuple[str, str], frozenset[str]]:
    """Tool → the languages its purpose says it runs, for the tools that run one."""
    return {key: found for key, purpose in purposes if (found := languages(purpose))}
