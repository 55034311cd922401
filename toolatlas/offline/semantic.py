"""Realistic values for arguments with a well-known syntax: what a person would type there.

A colour is ``#1e90ff``, a unit pair converts (``km`` → ``mi``, never ``km`` → ``kg``), an
expression evaluates, a cron line has five fields, a base-N number has digits of the base its
sibling names, a cell range spans cells. :func:`semantic_value` lists the candidates of a kind in
order of trust — values harvested from the server (outputs, listings), the description's allowed
values and examples, the schema's examples and default, then the kind's own realistic values —
keeps those the argument's schema accepts, and picks the variant's one (never a value already used
in the same call). Nothing here carries filesystem or git habits into a value.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Any

from toolatlas.offline.kinds import ArgSpec
from toolatlas.offline.schemas import Unsatisfiable, conforms
from toolatlas.offline.targets import Candidate
from toolatlas.probing.values import ArgKind

if TYPE_CHECKING:
    from toolatlas.offline.values import CallDraft, ValueSynth

__all__ = ["UNIT_DIMENSIONS", "dimension_of", "incompatible_unit", "near_misses", "semantic_value"]


UNIT_DIMENSIONS: dict[str, list[tuple[str, str]]] = {
    "length": [
        ("km", "kilometer"),
        ("m", "meter"),
        ("mi", "mile"),
        ("ft", "foot"),
        ("cm", "centimeter"),
        ("in", "inch"),
        ("mm", "millimeter"),
        ("yd", "yard"),
    ],
    "mass": [("kg", "kilogram"), ("lb", "pound"), ("g", "gram"), ("oz", "ounce")],
    "temperature": [("C", "celsius"), ("F", "fahrenheit"), ("K", "kelvin")],
    "volume": [("l", "liter"), ("ml", "milliliter"), ("gal", "gallon")],
    "time": [("h", "hour"), ("min", "minute"), ("s", "second"), ("d", "day")],
    "data": [("MB", "megabyte"), ("KB", "kilobyte"), ("GB", "gigabyte"), ("B", "byte")],
    "speed": [("km/h", "kilometers per hour"), ("mph", "miles per hour"), ("m/s", "meters per second")],
    "area": [("m2", "square meter"), ("ha", "hectare"), ("acre", "acre")],
}
_DIMENSION_WORDS = {
    "length": "length distance",
    "mass": "mass weight",
    "temperature": "temperature temp",
    "volume": "volume capacity",
    "time": "time duration",
    "data": "data storage digital bytes",
    "speed": "speed velocity",
    "area": "area",
}
_SPELLINGS = {
    name: dim
    for dim, units in UNIT_DIMENSIONS.items()
    for symbol, long in units
    for name in (
        symbol.lower(),
        long,
        long + "s",
        long.replace("meter", "metre"),
        long.replace("liter", "litre"),
    )
} | {"feet": "length", "inches": "length", "°c": "temperature", "°f": "temperature", "degc": "temperature"}

_FIXED: dict[ArgKind, tuple[str, ...]] = {
    ArgKind.CRON: ("*/5 * * * *", "0 9 * * 1-5", "30 2 1 * *", "0 0 * * 0"),
    ArgKind.IP_ADDRESS: ("192.168.1.10", "10.0.0.1", "8.8.8.8", "172.16.0.5"),  # the third public: outside the third network
    ArgKind.CIDR: ("192.168.1.0/24", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"),
    ArgKind.HOSTNAME: ("example.com", "www.example.org", "api.example.net", "localhost"),  # names with dots first
    ArgKind.HASH_ALGORITHM: ("sha256", "md5", "sha1", "sha512"),
    ArgKind.NUMERIC_STRING: ("42", "3.5", "1000", "7"),
    ArgKind.LOCALE: ("en-US", "fr-FR", "de-DE", "ja-JP"),
    ArgKind.LANGUAGE_CODE: ("en", "fr", "de", "es"),
    ArgKind.COUNTRY_CODE: ("US", "FR", "DE", "JP"),
    ArgKind.CURRENCY: ("USD", "EUR", "GBP", "JPY"),
    ArgKind.CELL: ("A1", "B2", "C3", "D4"),
    ArgKind.CELL_RANGE: ("A1:C3", "A1:B2", "B2:D5", "A1:A10"),
    ArgKind.FORMULA: ("=SUM(A1:A3)", "=A1*2", "=AVERAGE(B1:B4)", "=MAX(A1:C3)"),
    ArgKind.MIME_TYPE: ("text/plain", "application/json", "text/csv", "image/png"),
    ArgKind.VERSION: ("1.2.3", "2.0.0", "0.9.1", "10.4.0"),
    ArgKind.PHONE: ("+14155552671", "+442071838750", "+33142685300", "+81312345678"),
    ArgKind.PROGRAMMING_LANGUAGE: ("python", "javascript", "typescript", "go"),
    ArgKind.BASE64: ("aGVsbG8gd29ybGQ=", "VG9vbEF0bGFz", "eyJhIjogMX0=", "U2FtcGxlIHRleHQ="),
    ArgKind.ENCODING: ("utf-8", "ascii", "latin-1", "utf-16"),
    ArgKind.COMMAND: ("echo hello", "pwd", "ls", "date"),
}
_HEX_COLOURS = ("#1e90ff", "#ff6347", "#2e8b57", "#ffd700")
_COMPOUND_UNITS = ("kg*m/s^2", "kW*hour", "km/h")
_EXPRESSIONS = ("2 + 3 * 4", "(10 - 4) / 3", "2^10", "sqrt(16) + 2")
"""Plain arithmetic, parentheses, a power, a function call: what people type into a calculator."""
_BASE_NAMES = {
    "binary": 2,
    "bin": 2,
    "octal": 8,
    "oct": 8,
    "decimal": 10,
    "dec": 10,
    "hex": 16,
    "hexadecimal": 16,
}
_NUMBERS = (255, 42, 1000, 7)


def dimension_of(unit: str) -> str | None:
    """The dimension a unit's spelling belongs to (``km`` → ``length``), if known."""
    return _SPELLINGS.get(unit.strip().lower())


def incompatible_unit(unit: str) -> str | None:
    """A unit of another dimension in the same spelling (``km`` → ``kg``): a conversion that cannot be."""
    dimension = dimension_of(unit)
    if dimension is None:
        return None
    symbols = any(unit == symbol for symbol, _long in UNIT_DIMENSIONS[dimension])
    other = "mass" if dimension != "mass" else "length"
    symbol, long = UNIT_DIMENSIONS[other][0]
    return symbol if symbols else long


_NEAR_MISSES: dict[ArgKind, tuple[tuple[str, str], ...]] = {
    ArgKind.EXPRESSION: (
        ("1 / 0", "divides by zero"),
        ("2 + * 3", "is not a well-formed expression"),
        ("no_such_function(2)", "calls a function that does not exist"),
        ("2 < 3", "is a comparison, not arithmetic"),
        ("[1, 2] + [3]", "adds lists, not numbers"),
    ),
    ArgKind.FORMULA: (("=SUM(A1:A3", "is a formula with an unclosed parenthesis"),),
    ArgKind.COLOUR: (
        ("#12345", "is a hex colour with five digits"),
        ("#gggggg", "is not a valid hex colour"),
    ),
    ArgKind.CRON: (
        ("61 * * * *", "has a minute field out of range (61)"),
        ("* * *", "has three fields, not five"),
    ),
    ArgKind.IP_ADDRESS: (("256.1.1.1", "is not a valid IP address (octet 256)"),),
    ArgKind.CIDR: (("10.0.0.0/33", "has a prefix length over 32"),),
    ArgKind.REGEX: (("([a-z", "is not a valid regular expression (unclosed group)"),),
    ArgKind.CELL: (("A0", "names row 0, which does not exist"), ("1A", "is not an A1 cell reference")),
    ArgKind.CELL_RANGE: (("A1:", "is a range with no end cell"),),
    ArgKind.UNIT: (("furlongs_per_fortnight_x", "is not a known unit"),),
    ArgKind.DURATION: (("P1X", "is not a valid duration"),),
    ArgKind.CURRENCY: (("XYZ", "is not an ISO 4217 currency code"),),
    ArgKind.LOCALE: (("xx-YY", "is not a known locale"),),
    ArgKind.LANGUAGE_CODE: (("zz", "is not an ISO 639 language code"),),
    ArgKind.COUNTRY_CODE: (("ZZ", "is not an ISO 3166 country code"),),
    ArgKind.NUMERIC_STRING: (("forty-two", "is a number written in words"),),
    ArgKind.BASE_N_NUMBER: (("xyz!", "has digits of no base"),),
    ArgKind.HASH: (("abc123", "is too short for a digest"),),
    ArgKind.HASH_ALGORITHM: (("sha999", "is not a hash algorithm"),),
    ArgKind.MIME_TYPE: (("textplain", "is not a type/subtype MIME type"),),
    ArgKind.VERSION: (("1.2.x", "is not a version number"),),
    ArgKind.BASE64: (("not base64!", "is not base64"),),
    ArgKind.ENCODING: (("utf-99", "is not a text encoding"),),
    ArgKind.COMMAND: (("no_such_command_xyz", "runs a program that does not exist"),),
    ArgKind.SHEET_NAME: (("No Such Sheet", "names a sheet that does not exist"),),
}
"""Per kind, values that look right but are not: what a careful server refuses, with why."""


_CODE_LIMITS = {
    "python": (
        ("import subprocess\nprint(subprocess.run(['true']).returncode)\n", "starts a process (what a sandbox forbids)"),
        ("print(eval('2 + 3'))\n", "evaluates text as code (what a sandbox forbids)"),
        ("import time\ntime.sleep(12)\nprint('done')\n", "runs for 12 seconds (past a time limit)"),
        ("print(undefined_name)\n", "uses a name nothing defines"),
        ("def broken(:\n    pass\n", "is not valid syntax"),
    ),
}
"""Per language, code that a careful runner refuses or stops: what its sandbox forbids (starting a
process, evaluating text as code), what outruns its time limit, and plain mistakes."""
_PYTHON = re.compile(r"^\s*(?:def |import |from \w+ import |print\()", re.MULTILINE)


def near_misses(spec: ArgSpec, value: Any) -> list[tuple[str, str]]:
    """``(value, why)`` near-misses of ``value`` for the argument's kind (none the schema itself forbids)."""
    if spec.fresh:
        return []  # a new name is free text: nothing to get wrong about it
    known = _NEAR_MISSES.get(spec.kind, ())
    if spec.kind is ArgKind.IP_ADDRESS and re.search(r"mask\b", spec.name.lower()):
        known = (("255.255.0.255", "is not a contiguous mask"), ("/24", "is a prefix length, not a dotted mask"))
    if spec.kind is ArgKind.CODE and isinstance(value, str) and _PYTHON.search(value):
        known = _CODE_LIMITS["python"]
    return [(v, why) for v, why in known if v != value and conforms(v, spec.json_schema)]


_ADDRESS_SYNTAX = {
    ArgKind.IP_ADDRESS: re.compile(r"\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:]*"),
    ArgKind.CIDR: re.compile(r"(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:]*)/\d{1,3}"),
}
"""What an address or a network looks like: a harvested value of another shape is not one."""


def semantic_value(synth: ValueSynth, spec: ArgSpec, draft: CallDraft) -> Any:
    """The variant's value for a semantic kind, from the most trusted candidates that fit the schema."""
    pooled = synth.targets.pooled(spec.kind)
    if spec.kind is ArgKind.HASH:  # a fingerprint read together with the very thing the call names
        named = {v for v in draft.scope.values() if isinstance(v, str)} | ({draft.file} if draft.file else set())
        matching = [c for c in pooled if c.ref is not None and c.ref.context in named]
        pooled = matching or [c for c in pooled if c.ref is None or c.ref.context is None]
    if spec.kind is ArgKind.IP_ADDRESS and re.search(r"mask\b", spec.name.lower()):  # a mask is no host's address
        pooled = [c for c in pooled if str(c.value).startswith("255.")]
    if spec.kind in _ADDRESS_SYNTAX:  # a harvested word (a field name) is no address
        pooled = [c for c in pooled if _ADDRESS_SYNTAX[spec.kind].fullmatch(str(c.value))]
    stated = [Candidate(str(v)) for v in [*spec.enum, *spec.examples]]
    default = (
        [Candidate(spec.default)]
        if spec.has_default and isinstance(spec.default, str) and spec.default
        else []
    )
    own = [Candidate(v) for v in _generated(synth, spec, draft)]
    candidates = [c for c in [*pooled, *stated, *default, *own] if conforms(c.value, spec.json_schema)]
    if spec.kind is ArgKind.UNIT:
        candidates = _same_dimension(candidates, draft)
    if spec.enum_from_description and spec.enum:  # the description's list is the whole set
        allowed = {str(v) for v in spec.enum}
        candidates = [c for c in candidates if c.value in allowed] or candidates
    if not candidates:
        raise Unsatisfiable(f"no {spec.kind.value} fits the schema of {spec.path}")
    deduped = list({c.value: c for c in reversed(candidates)}.values())[::-1]
    return draft.pick(spec.kind, deduped)


def _generated(synth: ValueSynth, spec: ArgSpec, draft: CallDraft) -> list[str]:
    text = f"{spec.name} {spec.description}".lower()
    match spec.kind:
        case ArgKind.IP_ADDRESS if re.search(r"mask\b", text):  # subnet_mask, netmask: dotted, contiguous
            return ["255.255.255.0", "255.255.0.0", "255.255.255.192"]
        case ArgKind.COLOUR:
            if re.search(r"\brgb\b", text) and "hex" not in text:
                return ["rgb(30, 144, 255)", "rgb(255, 99, 71)", "rgb(46, 139, 87)"]
            if re.search(r"\bhsl\b", text) and "hex" not in text:
                return ["hsl(210, 100%, 56%)", "hsl(9, 100%, 64%)"]
            if re.search(r"\bnamed?\b|css colou?r name", text) and "hex" not in text:
                return ["red", "steelblue", "gold", "seagreen"]
            return list(_HEX_COLOURS)
        case ArgKind.EXPRESSION:
            if re.search(r"\bsolve|equation\b", f"{text} {draft.text}") and re.search(
                r"\bvariable|\bx\b", text
            ):
                return ["2*x + 3 = 7", "x^2 - 4 = 0"]
            return list(_EXPRESSIONS)
        case ArgKind.UNIT:
            symbols = not re.search(r"\b(full|long) names?\b|\bspelled\b", text)
            dims = list(UNIT_DIMENSIONS.values())
            single = [(u[0] if symbols else u[1]) for units in dims for u in units[:2]] + [
                (u[1] if symbols else u[0]) for units in dims for u in units[:2]
            ]
            if re.search(r"\bexpr(ession)?s?\b|\bcompound|\bproducts?\b|\bcombination", f"{text} {draft.text}"):
                single[1:1] = list(_COMPOUND_UNITS)  # a compound is a different capability: try one early
            return single
        case ArgKind.DURATION:
            if "iso" in text or spec.format == "duration" or not re.search(r"\b\d+\s*[smhd]\b", text):
                return ["PT1H30M", "PT15M", "P1D", "PT45S"]
            return ["1h30m", "15m", "2h", "45s"]
        case ArgKind.HASH:
            algorithm = _sibling_algorithm(draft) or next(
                (a for a in ("sha512", "sha256", "sha1", "md5") if a in text), "sha256"
            )
            return [
                hashlib.new(algorithm, word.encode()).hexdigest() for word in ("hello world", "ToolAtlas")
            ]
        case ArgKind.BASE_N_NUMBER:
            base = _sibling_base(draft) or _named_base(text)
            return [_digits(n, base or 10) for n in _NUMBERS] if base else ["1010", "101", "11", "1"]
        case ArgKind.CODE:
            language = next(
                (str(v).lower() for v in draft.scope.values() if str(v).lower() in _SNIPPETS), "python"
            )
            return list(_SNIPPETS[language])
        case ArgKind.COMMAND:
            programs = ("echo", "ls", "pwd", "date")
            takes_args = any(s.kind is ArgKind.ARRAY for s in draft.scope_specs.values())
            return list(programs) if takes_args else list(_FIXED[ArgKind.COMMAND])
        case ArgKind.SHEET_NAME:
            if spec.fresh:
                return [f"Report {synth.tag()}"]
            return ["Sheet1", "Sheet2"]
    return list(_FIXED.get(spec.kind, ()))


_SNIPPETS = {
    "python": ("def add(a, b):\n    return a + b\n\nprint(add(2, 3))\n", "print('hello')\n"),
    "javascript": ("function add(a, b) {\n  return a + b;\n}\nconsole.log(add(2, 3));\n",),
    "typescript": ("const add = (a: number, b: number): number => a + b;\nconsole.log(add(2, 3));\n",),
    "go": ('package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(2 + 3)\n}\n',),
    "sql": ("SELECT 1 AS one;",),
}


def _same_dimension(candidates: list[Candidate], draft: CallDraft) -> list[Candidate]:
    """Units of the dimension a sibling already fixed (another unit, or a category like ``length``)."""
    wanted: str | None = None
    for name, value in draft.scope.items():
        sibling = draft.scope_specs.get(name)
        if not isinstance(value, str) or sibling is None:
            continue
        if sibling.kind is ArgKind.UNIT:
            wanted = dimension_of(value) or wanted
        else:
            wanted = next(
                (d for d, words in _DIMENSION_WORDS.items() if value.lower() in words.split()), wanted
            )
        if wanted:
            break
    if wanted is None:
        return candidates
    same = [c for c in candidates if dimension_of(c.value) == wanted]
    return same or [c for c in candidates if dimension_of(c.value) is None] or candidates


def _sibling_algorithm(draft: CallDraft) -> str | None:
    for value in draft.scope.values():
        name = str(value).lower().replace("-", "")
        if name in ("md5", "sha1", "sha256", "sha512", "sha224", "sha384"):
            return name
    return None


def _sibling_base(draft: CallDraft) -> int | None:
    """The base a sibling argument chose (``from_base=16``, ``base="hex"``), if any."""
    for name, value in draft.scope.items():
        words = name.lower()
        if not re.search(r"base|radix|from|format|system", words):
            continue
        if isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 36:
            return value
        if isinstance(value, str):
            if value.isdigit() and 2 <= int(value) <= 36:
                return int(value)
            if value.lower() in _BASE_NAMES:
                return _BASE_NAMES[value.lower()]
    return None


def _named_base(text: str) -> int | None:
    for word, base in _BASE_NAMES.items():
        if re.search(rf"\b{word}\b", text) and not re.search(r"\bbase\b|\bradix\b", text):
            return base
    return None


def _digits(number: int, base: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while number:
        number, rest = divmod(number, base)
        out = digits[rest] + out
    return out or "0"
