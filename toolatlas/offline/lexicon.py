"""Words that name a well-known value syntax: colours, units, cron lines, addresses, codes, cells...

:func:`semantic_kind` reads a string argument's name (split into words), its description and the
tool's text, and returns the kind of syntax its value follows (an :class:`ArgKind` value), or
``None`` when nothing specific fits. The first rule that fits wins; rules rely on words any
maintainer would use ("unit", "hex colour", "cron expression", "A1 notation"), never on a
particular server's tools.
"""

from __future__ import annotations

import re

__all__ = ["SELECTOR_WORDS", "SHEET_CONTEXT", "semantic_kind"]

SELECTOR_WORDS = frozenset(
    {"type", "kind", "mode", "format", "order", "sort", "by", "level", "method", "strategy", "direction"}
)
SHEET_CONTEXT = re.compile(r"\b(sheets?|worksheets?|spreadsheets?|workbooks?|excel|xlsx|cells?)\b")
_CODE_CONTEXT = re.compile(
    r"\b(programming|source code|code snippet|syntax|compile|interpreter|snippet)\b"
    r"|\b(python|javascript|typescript|js|ruby|lua|bash|shell|r|julia|go|rust|java|php|perl) code\b"
    r"|\bcode to (execute|run|evaluate)\b"
)
"""Words that make a ``code`` argument source code (``Python code to execute``), not a postal or error code."""
_NUMERIC = re.compile(r"\b(number|numeric|numerical|amount|quantity|decimal|integer|float|digits?)\b")
_BASES = re.compile(r"\b(base|radix|binary|octal|hexadecimal|hex|base-?\d+)\b")


def semantic_kind(words: list[str], description: str, tool_text: str, *, parent: list[str]) -> str | None:
    """The syntax a string argument named ``words`` follows, or ``None``."""
    w, desc, last = set(words), description.lower(), (words[-1] if words else "")
    if last in SELECTOR_WORDS and len(words) > 1:  # ``content_type``, ``hash_type``: selectors of a kind
        if w & {"mime", "content", "media"}:
            return "mime_type"
        return None
    for rule in _RULES:
        found = rule(w, last, desc, tool_text)
        if found:
            return found
    return None


def _time_and_schedule(w: set[str], last: str, desc: str, text: str) -> str | None:
    if w & {"cron", "crontab"} or re.search(r"\bcron\b", desc):
        return "cron"
    if w & {"duration", "interval", "period", "ttl", "elapsed"} or "iso 8601 duration" in desc:
        return "duration"
    return None


def _maths(w: set[str], last: str, desc: str, text: str) -> str | None:
    units = re.search(r"\bunits?\b", desc) and not re.search(r"\bmath(ematical)?\b|\barithmetic\b", desc)
    if w & {"unit", "units", "uom"} or (
        w & {"from", "to", "source", "target", "expr", "expression"} and units
    ):
        return "unit"
    if "formula" in w and SHEET_CONTEXT.search(f"{desc} {text}"):
        return "formula"
    if w & {"expression", "expr", "equation", "formula", "calculation", "math"} or re.search(
        r"\b(math(ematical)?|arithmetic) expression\b", desc
    ):
        return "expression" if not re.search(r"\b(regex|regular|cron|jq|jsonpath|xpath)\b", desc) else None
    bases = _BASES.search(f"{desc} {' '.join(w)}")
    numberish = w & {"number", "value", "num", "digits", "input", "n", "hex", "binary", "octal", "bin", "oct"}
    if bases and numberish and not w & {"base", "radix"} and not re.search(r"\bcolou?r", desc):
        return "base_n_number"
    if numberish and w & {"number", "num", "value", "amount", "quantity", "n"} and _NUMERIC.search(desc):
        return "numeric_string"
    if w & {"amount", "quantity"}:
        return "numeric_string"
    return None


_IP_CONTEXT = re.compile(r"\b(?:ip(?:v[46])?|cidr|subnet|netmask)\b")
"""Words that put a ``network`` or a ``mask`` among IP addresses (not a social or a neural network)."""


def _network(w: set[str], last: str, desc: str, text: str) -> str | None:
    if w & {"mask", "netmask"} and _IP_CONTEXT.search(f"{desc} {text} {' '.join(w)}"):
        return "ip_address"  # a dotted mask (255.255.255.0): an address's syntax
    if "network" in w and _IP_CONTEXT.search(f"{desc} {text}"):
        return "cidr"
    if w & {"cidr", "subnet", "netmask", "prefix"} and re.search(
        r"\bcidr|subnet|network\b", f"{desc} {text}"
    ):
        return "cidr"
    if w & {"cidr", "subnet"} or re.search(r"\bcidr\b", desc):
        return "cidr"
    if w & {"ip", "ipv4", "ipv6", "ipaddress", "ipaddr"} or re.search(r"\bip(v[46])? address\b", desc):
        return "ip_address"
    if w & {"hostname", "host", "domain", "fqdn"} and not re.search(r"\burl\b", desc):
        return "hostname"
    if last.endswith("name") and re.search(r"\b(?:dns|domain|host)[ -]?names?\b|\bfqdn\b", desc):
        return "hostname"  # ``qname``: "Optional DNS name filter"
    return None


def _encodings(w: set[str], last: str, desc: str, text: str) -> str | None:
    if w & {"algorithm", "algo"} and re.search(r"\b(hash|md5|sha-?\d*|digest|checksum)\b", f"{desc} {text}"):
        return "hash_algorithm"
    if w & {"hash", "digest", "checksum"}:
        return "hash"
    if w & {"base64", "b64"} or ("base64" in desc and re.search(r"\bdecod", text)):
        return "base64"
    if w & {"encoding", "charset", "codec"}:
        return "encoding"
    if w & {"mime", "mimetype"}:
        return "mime_type"
    if w & {"uuid", "guid"}:
        return "uuid"
    return None


def _places_and_people(w: set[str], last: str, desc: str, text: str) -> str | None:
    if w & {"locale"} or re.search(r"\bbcp ?47\b", desc):
        return "locale"
    if w & {"lang", "language", "languages"}:
        return "programming_language" if _CODE_CONTEXT.search(f"{desc} {text}") else "language_code"
    if w & {"country"} or re.search(r"\biso 3166\b", desc):
        return "country_code"
    if w & {"currency", "currencies"} or re.search(r"\biso 4217\b|\bcurrency code", desc):
        return "currency"
    if w & {"phone", "telephone", "mobile", "msisdn"}:
        return "phone"
    return None


_WORKBOOK = re.compile(r"\b(sheets?|worksheets?|spreadsheets?|workbooks?|excel|xlsx)\b")
"""What makes a tool's text about spreadsheets (a ``cell`` alone may be a published table's: "BLS did not publish the
cell")."""


def _spreadsheets(w: set[str], last: str, desc: str, text: str) -> str | None:
    sheets = SHEET_CONTEXT.search(desc) or _WORKBOOK.search(text)
    if w & {"sheet", "worksheet", "sheets", "worksheets"} or ("tab" in w and sheets):
        return "sheet_name"
    if not sheets and not re.search(r"\ba1\b", desc):
        return None
    if last in {"name", "names", "id"} and re.search(r"\b(sheets?|worksheets?|tabs?)\b", desc):
        return "sheet_name"  # "Name of the existing sheet to duplicate"
    if w & {"range", "area", "region"} or re.search(r"\ba1:[a-z]+\d+\b|\brange\b.*\ba1\b", desc):
        return "cell_range"
    if w & {"cell", "address", "position"} or re.search(r"\ba1\b|\bcell reference\b|\bcell\b", desc):
        return "cell"
    return None


def _programs(w: set[str], last: str, desc: str, text: str) -> str | None:
    if w & {"command", "cmd", "commandline", "shell"} and not re.search(r"\bsql\b|\bquery\b", desc):
        return "command"
    if w & {"colour", "color", "colours", "colors", "background", "foreground", "fill"} and (
        w & {"colour", "color", "colours", "colors"} or re.search(r"\bcolou?r", desc)
    ):
        return "colour"
    if w & {"hex", "rgb", "hsl"} and re.search(r"\bcolou?r", f"{desc} {text}"):
        return "colour"
    if w & {"version", "semver"}:
        return "version"
    programs = w & {"snippet", "script", "program"} and w <= {
        "code",
        "source",
        "snippet",
        "program",
        "script",
        "src",
    }
    if programs or (w & {"code", "source"} and _CODE_CONTEXT.search(f"{desc} {text}")):
        return "code"
    return None


_RULES = (_time_and_schedule, _maths, _network, _encodings, _places_and_people, _spreadsheets, _programs)
