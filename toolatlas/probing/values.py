"""The values a probe carries: what an argument's value means (:class:`ArgKind`), and a value harvested
from an earlier output together with where it was seen (:class:`HarvestRef`).

The offline engine infers kinds from a tool's schema (:mod:`toolatlas.offline.kinds`) and harvests
values from outputs (:mod:`toolatlas.offline.harvest`); a :class:`~toolatlas.probing.models.Probe`
records the harvested values it uses (its data-flow provenance), so their vocabulary lives with the probe.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

from toolatlas.models import Frozen

__all__ = ["MADE_UP", "ArgKind", "HarvestRef", "names_made_up", "scalars"]

MADE_UP = re.compile(r"(?:\bno_such_[a-z_]*|(?:^|/)missing)_[0-9a-f]{4}(?![0-9a-z])|\bno-such-[a-z]+-[0-9a-f]{4}(?![0-9a-z])"
                     r"|^No [Ss]uch [A-Za-z]+ [0-9a-f]{4}$")
"""The names a boundary probe invents to name nothing (:mod:`toolatlas.offline.mutators`): ``no_such_object_3f2a``,
``no-such-page-3f2a`` (beside hyphenated names), ``no-such-branch-3f2a``,
``${root}/missing_3f2a.md``, ``No Such Entity 3f2a`` — four hex digits of the build's rng."""


def names_made_up(arguments: Any) -> bool:
    """Whether a call's arguments hold a name invented to name nothing (:data:`MADE_UP`), at any depth."""
    if isinstance(arguments, str):
        return bool(MADE_UP.search(arguments))
    if isinstance(arguments, Mapping):  # a map argument's keys are names too (``{"no_such_merchant_3f2a": …}``)
        return any(names_made_up(k) or names_made_up(v) for k, v in arguments.items())
    if isinstance(arguments, list):
        return any(names_made_up(v) for v in arguments)
    return False


class ArgKind(StrEnum):
    """What an argument's value means (one value per argument, the most specific that fits)."""

    FILE_PATH = "file_path"
    DIR_PATH = "dir_path"
    PATH = "path"
    """An existing file or directory."""
    NEW_PATH = "new_path"
    """A path the call creates (or overwrites)."""
    REPO_PATH = "repo_path"
    SQL = "sql"
    """Any statement."""
    SQL_QUERY_READ = "sql_query_read"
    SQL_QUERY_WRITE = "sql_query_write"
    SQL_DDL = "sql_ddl"
    TIMEZONE = "timezone"
    TIME_OF_DAY = "time_of_day"
    DATETIME = "datetime"
    DATE = "date"
    URL = "url"
    EMAIL = "email"
    UUID = "uuid"
    IDENTIFIER = "identifier"
    """The name or id of some existing (or, with ``fresh``, new) thing."""
    BRANCH = "branch"
    REVISION = "revision"
    ENTITY_NAME = "entity_name"
    ENTITY_TYPE = "entity_type"
    RELATION_TYPE = "relation_type"
    OBSERVATION = "observation"
    TABLE_NAME = "table_name"
    COLUMN_NAME = "column_name"
    SCHEMA_NAME = "schema_name"
    TEXT = "text"
    """Free content: a file body, a message, a note."""
    EXISTING_TEXT = "existing_text"
    """A verbatim excerpt of existing content (the "old" text of a search-and-replace)."""
    SEARCH_QUERY = "search_query"
    GLOB = "glob"
    REGEX = "regex"
    ENUM = "enum"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    STRING = "string"
    ARRAY = "array"
    OBJECT = "object"
    JSON = "json"
    """JSON text."""
    EXPRESSION = "expression"
    """A mathematical expression that evaluates (``2 + 3 * 4``)."""
    FORMULA = "formula"
    """A spreadsheet formula (``=SUM(A1:A3)``)."""
    UNIT = "unit"
    """A unit of measure (``km``); two in one call share a dimension."""
    COLOUR = "colour"
    DURATION = "duration"
    CRON = "cron"
    IP_ADDRESS = "ip_address"
    CIDR = "cidr"
    HOSTNAME = "hostname"
    HASH = "hash"
    """A digest in hex."""
    HASH_ALGORITHM = "hash_algorithm"
    BASE_N_NUMBER = "base_n_number"
    """Digits of a number written in some base (the base is often a sibling argument)."""
    NUMERIC_STRING = "numeric_string"
    """A number passed as a string."""
    LOCALE = "locale"
    LANGUAGE_CODE = "language_code"
    COUNTRY_CODE = "country_code"
    CURRENCY = "currency"
    CELL = "cell"
    CELL_RANGE = "cell_range"
    SHEET_NAME = "sheet_name"
    COMMAND = "command"
    """A shell command line (or the program of one)."""
    MIME_TYPE = "mime_type"
    VERSION = "version"
    PHONE = "phone"
    PROGRAMMING_LANGUAGE = "programming_language"
    CODE = "code"
    """Source code to run, format or analyse."""
    BASE64 = "base64"
    ENCODING = "encoding"
    ANY = "any"


class HarvestRef(Frozen):
    """One value seen in an output, and where it was seen."""

    kind: ArgKind
    value: str
    tool: str
    probe_id: str
    context: str | None = None
    """What the value belongs to: the entity of an observation, the table of a column."""
    created: bool = False
    """The value names something a call created: it exists only after that call, in that instance."""
    argument: str | None = None
    """``tool:path`` of the argument an error named this value for (``Available sheets: ...``)."""
    failed_arguments: dict[str, Any] | None = None
    """The arguments of the failed call whose error named the value (to retry it, corrected)."""
    failed_after: list[dict[str, Any]] | None = None
    """The calls (``tool``, ``arguments``) the failed call was made after in its probe, those that did not fail: a
    retry makes them first (``Slide index 5 not found. Presentation has 1 slides`` is met only once a deck exists)."""
    locator: str | None = None
    """Where in ``failed_arguments`` the corrected value goes (``sheet``, ``ranges[0]``)."""


def scalars(value: Any) -> Iterator[Any]:
    """Every value inside ``value`` (a call's arguments, an answer) that is neither a container nor null."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from scalars(item)
    elif isinstance(value, list):
        for item in value:
            yield from scalars(item)
    elif value is not None:
        yield value
