"""Limits a description states, and the calls that go just past them.

A description that says ``A single SQL statement``, ``results are capped at 25 rows`` or ``at most 10
items`` states a boundary the JSON Schema does not carry. What the server does one step past it is
what an agent needs to know — a refusal (``only a single SQL statement is allowed``), a cut result
(``truncated to 25 rows``), or nothing at all — so each stated limit becomes one call just past it
(family ``past_stated_limit``, either outcome informative, recorded as the server answers):

- *a single statement* (of an SQL argument): the valid statement twice, joined by ``;``;
- *one record* (``one FASTA record``, ``a single entry`` of a text argument whose valid value is a record under a
  header line, ``>name`` then its lines): the record twice, one after the other — two records;
- *N rows at most* (of an argument that takes a SELECT): every row of a table the facts of the
  state know to hold more than N, else a query that counts to N + 1 (a recursive common table
  expression, standard SQL);
- *N items at most* (of an array argument the schema does not bound): N + 1 items, the valid
  call's own items repeated.

The limit is read from the argument's own description, then from the tool's.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from toolatlas.offline.kinds import ArgSpec
from toolatlas.offline.mutators import Found, MutationContext
from toolatlas.offline.sqlgen import quote_ident
from toolatlas.probing.values import ArgKind

__all__ = ["StatedCap", "limit_mutations", "stated_cap", "states_single_statement"]

FAMILY = "past_stated_limit"
MAX_CAP = 1000
"""A stated cap above this is not probed past (the call would cost more than it tells)."""
_ONE = r"\b(?:a\s+single|single|one|only\s+one|exactly\s+one)\s+(?:[a-z]+\s+)?"
"""A description saying one of a thing, and one word before the thing (``a single SQL``, ``one FASTA``)."""
_SINGLE_STATEMENT = re.compile(
    _ONE + r"(?:statement|query)\b(?!\s+or\b)|\bone\s+(?:[a-z]+\s+)?statement\s+(?:per|at\s+a)\b",
    re.IGNORECASE,
)
_SINGLE_RECORD = re.compile(
    _ONE + r"(?P<noun>record|entry|sequence|document|message|block)\b(?!\s+(?:or|per)\b)", re.IGNORECASE)
_HEADED = re.compile(r"[^\w\s]\S*[^\n]*\n\s*\S")
"""A value that is a record under a header line: a marker and a name (``>egfp_primer``), then at least one line."""
_NOUNS = r"(rows?|results?|records?|items?|entries|elements?|lines?|matches)"
_CAP = re.compile(
    r"\b(?:capped|limited|truncated|restricted|cut(?:\s+off)?)\s+(?:at|to)\s+(\d+)\s+" + _NOUNS
    + r"|\b(?:at\s+most|up\s+to|no\s+more\s+than|a\s+maximum\s+of|maximum\s+of|max(?:imum)?\.?)\s+(\d+)\s+" + _NOUNS,
    re.IGNORECASE,
)
_ROW_NOUNS = frozenset({"row", "rows", "result", "results", "record", "records", "line", "lines", "match", "matches"})


class StatedCap(NamedTuple):
    """A cap a description states: ``capped at 25 rows`` → ``(25, "rows")``."""

    number: int
    noun: str


def stated_cap(text: str) -> StatedCap | None:
    """The first cap a text states (``capped at 25 rows`` → ``(25, "rows")``), None without one."""
    match = _CAP.search(text)
    if match is None:
        return None
    number, noun = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
    return StatedCap(int(number), noun.lower())


def states_single_statement(text: str) -> bool:
    """Whether a text says one statement is taken (``A single SQL statement``, ``one statement per call``)."""
    return bool(_SINGLE_STATEMENT.search(text))


def limit_mutations(spec: ArgSpec, locator: str, value: Any, ctx: MutationContext) -> list[Found]:
    """One call just past each limit the argument's or the tool's description states."""
    texts = [spec.description, ctx.text]
    arg = f"`{spec.name}`"
    out: list[Found] = []
    if spec.kind in (ArgKind.SQL, ArgKind.SQL_QUERY_READ, ArgKind.SQL_QUERY_WRITE) and isinstance(value, str):
        statement = value.strip().rstrip(";").strip()
        if statement and any(states_single_statement(t) for t in texts):
            out.append((FAMILY, locator, f"{statement}; {statement}",
                        f"{arg} holds two statements joined by `;` where the description says a single one", False))
        cap = next((c for t in texts if (c := stated_cap(t)) is not None and c.noun in _ROW_NOUNS), None)
        if cap is not None and cap.number < MAX_CAP and spec.kind is not ArgKind.SQL_QUERY_WRITE:
            out.append(_past_row_cap(spec, locator, cap, ctx))
    elif isinstance(value, str) and _HEADED.match(value.strip()) and (single := _SINGLE_RECORD.search(spec.description)):
        record = value.strip()
        out.append((FAMILY, locator, f"{record}\n{record}",
                     f"{arg} holds two {single.group('noun').lower()}s, one after the other, where its description "
                     f"says one", False))
    elif spec.kind is ArgKind.ARRAY and isinstance(value, list) and value and spec.max_items is None:
        cap = stated_cap(spec.description)
        if cap is not None and cap.number < MAX_CAP and cap.noun not in _ROW_NOUNS:
            items = [value[i % len(value)] for i in range(cap.number + 1)]
            out.append((FAMILY, locator, items,
                        f"{arg} has {cap.number + 1} items, one more than the {cap.number} its description allows", False))
    return out


def _past_row_cap(spec: ArgSpec, locator: str, cap: StatedCap, ctx: MutationContext) -> Found:
    """A SELECT whose answer has more rows than ``cap``: a table known to hold more, else a count to cap + 1."""
    writer = ctx.synth.sql
    tables = [t for t in (writer.facts.tables if writer is not None else []) if t.row_count > cap.number]
    arg = f"`{spec.name}`"
    if tables:
        table = min(tables, key=lambda t: (t.row_count, t.name))
        return (FAMILY, locator, f"SELECT * FROM {quote_ident(table.name)}",
                f"{arg} selects all {table.row_count} rows of `{table.name}`, more than the {cap.number} "
                f"{cap.noun} the description caps a result at", False)
    n = cap.number + 1
    query = f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) SELECT i FROM n"
    return (FAMILY, locator, query,
            f"{arg} selects {n} rows, one more than the {cap.number} {cap.noun} the description caps a result at", False)
