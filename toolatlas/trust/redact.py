"""Exports without private values (``toolatlas export --redact``): an atlas built on private data can be
published.

What the atlas says comes from real calls on real states, so its evidence and texts can carry what
the builder would not publish: absolute paths of the machine, hostnames and addresses, credentials
a tool echoed, e-mail addresses, and whatever else the catalogue lists (``[trust] redact``). Redaction
replaces each such value, wherever it occurs in the records (entries and their evidence, traces,
strategies, coverage details), by a placeholder of its kind — ``<redacted:path:1>`` — the same value
always by the same placeholder, so an entry's text still quotes its evidence (the load-time integrity
check holds) and two mentions of one path still read as one. Sandbox paths are already written as
``${root}``-style placeholders and are left alone, as are the tools' own names, descriptions and
schemas (the server's public interface). A server's lexicon (the words its answers said, one by one)
is dropped: no pattern finds a private value in separate words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

__all__ = ["PATTERNS", "Redactor", "redact_document"]

_SECRETS = [
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----",
    r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key id
    r"\bgh[pousr]_[A-Za-z0-9]{30,}\b",  # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{30,}\b",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b",  # Slack
    r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b",  # OpenAI / Anthropic style keys
    r"\bAIza[0-9A-Za-z_-]{35}\b",  # Google API key
    r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b",  # JSON Web Token
]

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("secret", re.compile("|".join(f"(?:{p})" for p in _SECRETS))),
    ("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")),
    ("url", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s\"'<>`)\]]+")),
    ("address", re.compile(r"(?<![\w.])(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?![\w.])")),
    ("host", re.compile(r"(?<![\w.@/\x00-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
                        r"(?:com|net|org|io|dev|app|cloud|internal|local|lan|corp|intra|home|edu|gov)(?![\w.-])")),
    ("path", re.compile(r"(?<![\w$}:/.~\x00-])(?:/[A-Za-z0-9._@+-]+)+/?|(?<![\w])[A-Za-z]:\\[^\s\"'`<>|]+|~/[^\s\"'`<>|]+")),
]
"""Kinds of private value and how each is found, in the order they are replaced (a URL before the host
and path inside it)."""

_KEYED_SECRET = re.compile(
    r"(?i)((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)[\"']?\s*[=:]\s*[\"']?)([^\s\"',;}]{4,})")
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}|<redacted:[a-z]+:\d+>")
_KEEP = frozenset({"input_schema", "description", "name", "schema_hash", "id", "signature", "tool", "server",
                   "peer", "kind", "status", "outcome", "effect", "family", "relation", "fingerprint",
                   "arguments_exercised", "arguments_total", "neighbours", "summarises", "probe_ids"})
"""Fields that hold the public interface, identities or enumerations: never rewritten."""


@dataclass
class Redactor:
    """Replaces private values by placeholders, consistently over one document."""

    listed: list[str] = field(default_factory=list)
    """Values the catalogue lists (``[trust] redact``), replaced wherever they occur."""
    seen: dict[str, str] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)

    def _matched(self, kind: str, match: re.Match[str]) -> str:
        return self._placeholder(kind, match.group(0))

    def _placeholder(self, kind: str, value: str) -> str:
        if value not in self.seen:
            self.counts[kind] += 1
            self.seen[value] = f"<redacted:{kind}:{self.counts[kind]}>"
        return self.seen[value]

    def text(self, text: str) -> str:
        """``text`` with every private value replaced (placeholders already in it are kept)."""
        kept: list[str] = []

        def hold(match: re.Match[str]) -> str:  # placeholders survive the patterns untouched
            kept.append(match.group(0))
            return f"\x00{len(kept) - 1}\x00"

        text = _PLACEHOLDER.sub(hold, text)
        for value in sorted(self.listed, key=len, reverse=True):
            if value and value in text:
                text = text.replace(value, self._placeholder("private", value))
        text = _KEYED_SECRET.sub(lambda m: m.group(1) + self._placeholder("secret", m.group(2)), text)
        for kind, pattern in PATTERNS:
            text = pattern.sub(partial(self._matched, kind), text)
        return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)

    def value(self, value: Any, key: str | None = None) -> Any:
        """A JSON value with its strings redacted (keys and public fields left as they are). A server's
        lexicon goes whole: its words, each apart, are no value a pattern or a listed phrase finds."""
        if key in _KEEP:
            return value
        if key == "lexicon":
            return []
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        return value


def redact_document(document: dict[str, Any], listed: Iterable[str] = ()) -> tuple[dict[str, Any], Counter[str]]:
    """An export document with its private values replaced, and how many distinct values of each
    kind were found. The signature, if any, no longer holds and is removed (sign after redacting)."""
    redactor = Redactor(listed=[value for value in listed if value])
    redacted = {key: (value if key in ("schema", "catalogue", "generated_at") else redactor.value(value, key))
                for key, value in document.items() if key != "signature"}
    return redacted, redactor.counts
