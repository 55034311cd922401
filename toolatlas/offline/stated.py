"""What a value must be, learned from the server's refusal of one that was not (its kind; a path that must be
relative).

A schema often types an argument as a plain string and leaves its format to the server's validation,
which names it when it refuses a value: ``network_base: Input is not a valid IPv4 address
[type=ip_v4_address]``, ``network: Expected 4 octets in 'example'``, ``Input should be a valid UUID``.
:func:`stated_kinds` reads such an error: the argument it is about (the field line of a pydantic
error, else the argument whose value the message repeats) and the kind of value the message names.
:class:`~toolatlas.offline.taught.TaughtArguments` writes the kind into the tool's argument specs, so
every later call sends a value of that kind (an address, a network, a date) instead of a word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolatlas.offline.kinds import AT_LEAST, CHARACTERS, GENERIC_KINDS, PATH_KINDS, ArgSpec
from toolatlas.probing.values import ArgKind

__all__ = ["STATED_FORMATS", "stated_elsewhere", "stated_future", "stated_kinds", "stated_lengths", "stated_past",
           "stated_relative", "stated_unreachable"]

STATED_FORMATS: tuple[tuple[re.Pattern[str], ArgKind], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), kind)
    for pattern, kind in (
        (r"\bip_v[46]_(?:network|interface)\b|\bip_any_network\b|\bvalid IP(?:v[46])? (?:network|interface)\b"
         r"|\bnot an? IP(?:v[46])? network\b|appear to be an IPv4 or IPv6 network", ArgKind.CIDR),
        (r"\bip_v[46]_address\b|\bip_any_address\b|\bvalid IP(?:v[46])? address\b|\bnot an? IP(?:v[46])? address\b"
         r"|\bExpected 4 octets\b|appear to be an IPv4 or IPv6 address", ArgKind.IP_ADDRESS),
        (r"\burl_(?:parsing|type|scheme)\b|\bvalid (?:URL|URI)\b|\bnot an? (?:URL|URI)\b", ArgKind.URL),
        (r"\buuid_(?:parsing|type|version)\b|\bvalid UUID\b|\bnot an? (?:valid )?UUID\b", ArgKind.UUID),
        (r"\bdatetime_(?:parsing|type|from_date_parsing)\b|\bvalid datetime\b|\bYYYY-MM-DD[T ]HH\b", ArgKind.DATETIME),
        (r"\bdate_(?:parsing|type|from_datetime_parsing|from_datetime_inexact)\b|\bvalid date\b"
         r"|\bnot an? (?:valid )?(?:ISO(?: 8601)? )?date\b|\bYYYY-MM-DD\b|\bInvalid isoformat string\b", ArgKind.DATE),
        (r"\btime_(?:parsing|type)\b|\bvalid time\b|\bHH:MM\b", ArgKind.TIME_OF_DAY),
        (r"\bjson_(?:invalid|type)\b|\bvalid JSON\b|\binvalid JSON\b", ArgKind.JSON),
        (r"\bvalid e-?mail\b|\bnot an? (?:valid )?e-?mail\b", ArgKind.EMAIL),
    )
)
"""The words (or pydantic error types) that name the kind of value a field takes, most specific first: a network
before an address, a datetime before a date."""

_PYDANTIC_FIELD = re.compile(r"^(?P<field>[A-Za-z_][\w.\[\]]*)$")


def _kind_of(message: str) -> ArgKind | None:
    return next((kind for pattern, kind in STATED_FORMATS if pattern.search(message)), None)


def stated_kinds(specs: list[ArgSpec], arguments: Mapping[str, Any], error: str) -> list[tuple[str, ArgKind]]:
    """The ``(argument, kind)`` pairs an error of a call with ``arguments`` states, for top-level arguments
    whose kind says little (:data:`~toolatlas.offline.kinds.GENERIC_KINDS`) or is another address kind (an
    address given where a network is wanted); the kind must differ from the argument's."""
    by_name = {spec.name: spec for spec in specs}
    found: dict[str, ArgKind] = {}
    lines = [line.strip() for line in error.splitlines()]
    for at, line in enumerate(lines[:-1]):  # pydantic: the field on its own line, its message below it
        field = _PYDANTIC_FIELD.match(line)
        if field is None:
            continue
        name = re.split(r"[.\[]", field.group("field"))[-1] if field.group("field") not in by_name else field.group("field")
        kind = _kind_of(lines[at + 1])
        if name in by_name and kind is not None:
            found.setdefault(name, kind)
    if not found:  # one sentence: the argument whose value it repeats, else the field it is about
        kind = _kind_of(error)
        echoed = [n for n, v in arguments.items() if isinstance(v, str) and len(v) >= 3 and v in error]
        if kind is not None and len(echoed) == 1 and echoed[0] in by_name:
            found[echoed[0]] = kind
        elif kind is not None and not echoed:
            found.update(dict.fromkeys(_subject_arguments(by_name, arguments, error), kind))
    taught = [(name, kind) for name, kind in found.items() if _teachable(by_name[name], kind)]
    nature = _path_nature(by_name, arguments, error)
    return taught + [nature] if nature and nature not in taught else taught


_NOT_A_FILE = re.compile(r"\bnot an? (?:regular |valid )?file\b|\bis an? (?:directory|folder)\b|\bIsADirectoryError\b"
                         r"|\bexpected an? file\b", re.IGNORECASE)
_NOT_A_FOLDER = re.compile(r"\bnot an? (?:valid )?(?:directory|folder|dir)\b|\bNotADirectoryError\b"
                           r"|\bexpected an? (?:directory|folder)\b", re.IGNORECASE)
_EXISTING = (ArgKind.FILE_PATH, ArgKind.DIR_PATH, ArgKind.PATH)


def _path_nature(by_name: Mapping[str, ArgSpec], arguments: Mapping[str, Any], error: str) -> tuple[str, ArgKind] | None:
    """``(argument, kind)`` when a refusal says the path it repeats is not a file (``DBC path is not a file:
    ${root}``: a file path is wanted) or not a directory (``not a directory: …/dsdt.dat``: a folder is), for the
    argument that gave the longest path the refusal repeats."""
    wanted = (ArgKind.FILE_PATH if _NOT_A_FILE.search(error)
              else ArgKind.DIR_PATH if _NOT_A_FOLDER.search(error) else None)
    if wanted is None:
        return None
    echoed = sorted(((len(v), n) for n, v in arguments.items() if n in by_name and by_name[n].kind in _EXISTING
                     and isinstance(v, str) and v and v in error), reverse=True)
    if not echoed or (len(echoed) > 1 and echoed[0][0] == echoed[1][0]):
        return None
    name = echoed[0][1]
    return (name, wanted) if by_name[name].kind is not wanted else None


_SUBJECT = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s+(?:must|should|has to|needs to) be\b")
"""The field a one-sentence refusal is about: ``start_date must be YYYY-MM-DD``."""
_KIND_WORDS = frozenset({"date", "time", "datetime", "value", "format", "input", "field", "string", "arg", "argument"})


def _subject_arguments(by_name: Mapping[str, ArgSpec], arguments: Mapping[str, Any], error: str) -> list[str]:
    """The arguments of the call a refusal's subject names: itself when it is one, else those of its words
    (``start`` of ``start_date`` for ``first_start`` and ``second_start``) — a server often validates an
    argument under its own internal name."""
    subject = _SUBJECT.search(error)
    if subject is None:
        return []
    name = subject.group(1)
    if name in by_name:
        return [name] if name in arguments else []
    words = set(re.split(r"_+", name.lower())) - _KIND_WORDS
    return [n for n in arguments if n in by_name and words & set(re.split(r"_+", n.lower()))]


_ADDRESSES = frozenset({ArgKind.IP_ADDRESS, ArgKind.CIDR, ArgKind.HOSTNAME})


def _teachable(spec: ArgSpec, kind: ArgKind) -> bool:
    """Whether the error may change the argument's kind: one that says little, or one address kind for another."""
    if spec.kind is kind or spec.enum or spec.json_type not in ("string", "any"):
        return False
    return spec.kind in GENERIC_KINDS or (spec.kind in _ADDRESSES and kind in _ADDRESSES)


_RELATIVE_ONLY = re.compile(
    r"\bnon-?relative\b|\bmust be (?:a )?relative\b|\bonly relative\b|\brelative paths? (?:only|required|expected)\b"
    r"|\babsolute paths? (?:are|is) not (?:allowed|supported|permitted)\b|\bmust not be (?:an )?absolute\b",
    re.IGNORECASE,
)


def stated_relative(specs: list[ArgSpec], arguments: Mapping[str, Any], error: str) -> list[str]:
    """The path arguments an error that refuses absolute paths is about (``Non-relative patterns are
    unsupported``): those the call gave an absolute path (under the root placeholder or ``/``)."""
    if not _RELATIVE_ONLY.search(error):
        return []
    return [spec.name for spec in specs
            if spec.kind in PATH_KINDS and not spec.relative and isinstance(arguments.get(spec.name), str)
            and arguments[spec.name].startswith(("${", "/"))]


_PAST = re.compile(
    r"\b(?:is|are|was|lies|falls) in the past\b|\bcannot be in the past\b|\bmust (?:not be in the past|be in the future"
    r"|be a future|be (?:on or )?after (?:today|now|the current date))\b|\bpast dates? (?:is|are) not (?:allowed|accepted)\b",
    re.IGNORECASE,
)
_MOMENTS = frozenset({ArgKind.DATE, ArgKind.DATETIME})


_FUTURE = re.compile(
    r"\b(?:is|are|was|lies|falls) in the future\b|\bcannot be in the future\b|\bmust (?:not be in the future|be in the past"
    r"|be a past|be (?:on or )?before (?:today|now|the current date))\b|\bfuture dates? (?:is|are) not (?:allowed|accepted)\b",
    re.IGNORECASE,
)


def stated_future(specs: list[ArgSpec], arguments: Mapping[str, Any], error: str) -> list[str]:
    """The date arguments an error that refuses a moment in the past is about (``due_date 2026-11-28 is in the
    past``): those whose value it repeats or whose name it gives, else the call's only one."""
    return _refused_moments(specs, arguments, error, _PAST, "future")


def stated_past(specs: list[ArgSpec], arguments: Mapping[str, Any], error: str) -> list[str]:
    """The date arguments an error that refuses a moment in the future is about (``2026-12-09 is in the future;
    `on` is when the reply came``), as :func:`stated_future` finds them."""
    return _refused_moments(specs, arguments, error, _FUTURE, "past")


def _refused_moments(specs: list[ArgSpec], arguments: Mapping[str, Any], error: str, refusal: re.Pattern[str],
                     flag: str) -> list[str]:
    if not refusal.search(error):
        return []
    moments = [s.name for s in specs
               if s.kind in _MOMENTS and not getattr(s, flag) and isinstance(arguments.get(s.name), str)]
    named = [n for n in moments if arguments[n] in error or re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", error)]
    return named or (moments if len(moments) == 1 else [])


_UNREACHABLE = re.compile(
    r"\b(?:could ?not|couldn't|cannot|can't|failed to|unable to) (?:connect|reach)\b|\bconnection refused\b"
    r"|\bname or service not known\b|\btemporary failure in name resolution\b|\bno route to host\b"
    r"|\bnetwork is unreachable\b|\bconnection timed out\b|\bgetaddrinfo failed\b",
    re.IGNORECASE,
)
"""A refusal saying the server could not reach the network service a call pointed it at."""


def stated_unreachable(specs: list[ArgSpec], arguments: Mapping[str, Any], error: str) -> list[str]:
    """The optional arguments of a call the server could not reach a service with (``could not connect to gdbstub
    on 127.0.0.1:8080``): those whose value the refusal repeats. A sandbox has no network: another way in (a
    folder of the same tables) is what the calls after it take."""
    if not _UNREACHABLE.search(error):
        return []
    return [spec.name for spec in specs
            if not spec.required and not spec.unreachable and _repeated(arguments.get(spec.name), error)]


def _repeated(value: Any, error: str) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    text = str(value)
    return len(text) >= 2 and re.search(rf"(?<![\w.]){re.escape(text)}(?![\w])", error) is not None


_TOO_SHORT = re.compile(rf"\b(?:{AT_LEAST}|(?:longer|more) than)\s+(\d{{1,4}})" + CHARACTERS, re.IGNORECASE)
"""A refusal stating the fewest characters a value takes (``Write at least 20 characters explaining WHY``, pydantic's
``String should have at least 3 characters``)."""


def stated_lengths(specs: list[ArgSpec], arguments: Mapping[str, Any], error: str) -> list[tuple[str, int]]:
    """The ``(argument, fewest characters)`` pairs a refusal of a too-short value states (``root_cause is too vague.
    Write at least 20 characters``): the text arguments shorter than that whose name it gives, else the call's only
    one; an argument whose schema or description already states it is left alone."""
    found = _TOO_SHORT.search(error)
    if found is None:
        return []
    least = int(found.group(1)) + (1 if found.group(0).lower().startswith(("longer", "more")) else 0)
    if least <= 1:  # an empty value refused: what the empty-value misuse is about, no length to learn
        return []
    short = [s.name for s in specs if s.json_type in ("string", "any") and not s.enum
             and (s.min_length or 0) < least and isinstance(arguments.get(s.name), str)
             and "${" not in arguments[s.name] and len(arguments[s.name]) < least]
    named = [n for n in short if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", error)]
    return [(n, least) for n in (named or (short if len(short) == 1 else []))]


_OUTSIDE = re.compile(r"\boutside\b[^.\n]{0,40}?(?:root|director|folder|allow|permit|writ)", re.IGNORECASE)
"""A refusal of a path outside the folders the server may write to: ``Output path is outside EXCEL_OUTPUT_ROOTS``."""


def stated_elsewhere(specs: list[ArgSpec], arguments: Mapping[str, Any], error: str) -> list[str]:
    """The new-path arguments a refusal of a path outside the folders the server writes to is about, when the call
    gave them a path inside the root (a path that escapes it is the misuse that error is for): those whose value
    it repeats or whose name's words it says (``Output path`` of ``output_path``), else the call's only one."""
    if not _OUTSIDE.search(error):
        return []
    inside = [s.name for s in specs if s.kind is ArgKind.NEW_PATH and not s.elsewhere
              and isinstance(arguments.get(s.name), str) and arguments[s.name].startswith("${root}/")
              and ".." not in arguments[s.name]]
    words = set(re.findall(r"[a-z]+", error.lower()))
    named = [n for n in inside if arguments[n] in error or set(re.findall(r"[a-z]+", n.lower())) <= words]
    return named or (inside if len(inside) == 1 else [])
