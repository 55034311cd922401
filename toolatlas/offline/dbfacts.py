"""Facts about a relational database: tables, columns, constraints, row counts, samples, views.

Two readers fill the same :class:`DatabaseFacts`: :func:`sqlite_facts` opens a SQLite file
read-only; :func:`postgres_facts` reads a PostgreSQL database through an open psycopg
connection or a DSN. Sample values are made JSON-safe (dates as ISO text, decimals as floats)
so that planners can render them back as SQL literals.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from toolatlas.models import Frozen

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "ColumnFact",
    "DatabaseFacts",
    "ForeignKeyFact",
    "TableFact",
    "UniqueFact",
    "check_clauses",
    "postgres_facts",
    "sqlite_facts",
]

SAMPLE_ROWS = 5
UNIQUE_VALUES = 500
"""Existing values kept per unique key: enough to pick a value that does not collide."""
CONNECT_TIMEOUT_S = 10


class ForeignKeyFact(Frozen):
    columns: list[str]
    table: str
    ref_columns: list[str]


class UniqueFact(Frozen):
    """A unique key (primary key, UNIQUE constraint or unique index) and the values it already holds."""

    columns: list[str]
    primary: bool = False
    existing: list[list[Any]] = Field(default_factory=list)


class ColumnFact(Frozen):
    name: str
    type: str
    """Declared type as written (``INTEGER``, ``text``, ``character(2)``)."""
    primary_key: bool = False
    not_null: bool = False
    unique: bool = False
    """The column alone is a unique key."""
    default: str | None = None
    auto: bool = False
    """The database fills it when omitted (rowid alias, identity, serial, generated)."""
    references: ForeignKeyFact | None = None
    checks: list[str] = Field(default_factory=list)
    """CHECK expressions that mention this column."""


class TableFact(Frozen):
    name: str
    """``products``; ``schema.table`` outside the default schema."""
    columns: list[ColumnFact] = Field(default_factory=list)
    row_count: int = 0
    sample_rows: list[dict[str, Any]] = Field(default_factory=list)
    unique: list[UniqueFact] = Field(default_factory=list)
    foreign_keys: list[ForeignKeyFact] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)

    def column(self, name: str) -> ColumnFact | None:
        return next((c for c in self.columns if c.name == name), None)

    @property
    def primary_key(self) -> list[str]:
        return next((u.columns for u in self.unique if u.primary), [])


class DatabaseFacts(Frozen):
    dialect: str
    """``sqlite`` or ``postgres``."""
    schemas: list[str] = Field(default_factory=list)
    tables: list[TableFact] = Field(default_factory=list)
    """In creation order."""
    views: list[str] = Field(default_factory=list)
    scope: dict[str, Any] = Field(default_factory=dict)
    """The arguments beside the statement that reached this database through a server's query tool
    (the file it opens, ``{"file": "${root}/sales.xlsx"}``): statements written from these facts go
    with them, as another file holds other tables."""

    def table(self, name: str) -> TableFact | None:
        return next((t for t in self.tables if t.name == name), None)

    @property
    def referenced_tables(self) -> list[str]:
        """Tables some foreign key points at (deleting their rows may be refused)."""
        return list(dict.fromkeys(fk.table for t in self.tables for fk in t.foreign_keys))


def plain(value: Any) -> Any:
    """A JSON-safe stand-in for a database value."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return None
    return str(value)


def check_clauses(create_sql: str) -> list[str]:
    """The expressions of every ``CHECK (...)`` in a CREATE TABLE statement, parentheses balanced."""
    clauses: list[str] = []
    for match in re.finditer(r"\bCHECK\s*\(", create_sql, re.IGNORECASE):
        depth, start = 1, match.end()
        for index in range(start, len(create_sql)):
            char = create_sql[index]
            depth += (char == "(") - (char == ")")
            if depth == 0:
                clauses.append(" ".join(create_sql[start:index].split()))
                break
    return clauses


def _mentions(expression: str, column: str) -> bool:
    return re.search(rf'(?<![\w"]){re.escape(column)}(?![\w"])|"{re.escape(column)}"', expression) is not None


# -- SQLite ---------------------------------------------------------------------------------------


def sqlite_facts(path: Path) -> DatabaseFacts:
    """Read the SQLite database at ``path`` without changing it (opened read-only)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        master = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        ).fetchall()
        tables = [_sqlite_table(conn, name, sql or "") for kind, name, sql in master if kind == "table"]
        views = [name for kind, name, _sql in master if kind == "view"]
    finally:
        conn.close()
    return DatabaseFacts(dialect="sqlite", schemas=["main"], tables=tables, views=views)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sqlite_table(conn: sqlite3.Connection, name: str, create_sql: str) -> TableFact:
    info = conn.execute(f"PRAGMA table_info({_quote(name)})").fetchall()  # cid, name, type, notnull, dflt, pk
    pk = [row[1] for row in sorted((r for r in info if r[5]), key=lambda r: r[5])]
    rowid_alias = len(pk) == 1 and next(r[2] for r in info if r[1] == pk[0]).upper() == "INTEGER"
    rowid_alias = rowid_alias and "WITHOUT ROWID" not in create_sql.upper()
    keys: list[tuple[list[str], bool]] = [(pk, True)] if pk else []
    for _seq, index, unique, origin, partial in conn.execute(f"PRAGMA index_list({_quote(name)})").fetchall():
        if unique and not partial and origin != "pk":
            columns = [r[2] for r in conn.execute(f"PRAGMA index_info({_quote(index)})").fetchall()]
            if None not in columns and columns not in [k for k, _ in keys]:
                keys.append((columns, False))
    foreign: dict[int, tuple[str, list[str], list[str | None]]] = {}
    for fk_id, _seq, parent, source, target, *_rest in conn.execute(
        f"PRAGMA foreign_key_list({_quote(name)})"
    ):
        entry = foreign.setdefault(fk_id, (parent, [], []))
        entry[1].append(source)
        entry[2].append(target)
    fks = []
    for parent, sources, targets in (foreign[k] for k in sorted(foreign)):
        if None in targets:
            parent_info = conn.execute(f"PRAGMA table_info({_quote(parent)})").fetchall()
            targets = [r[1] for r in sorted((r for r in parent_info if r[5]), key=lambda r: r[5])]
        fks.append(ForeignKeyFact(columns=sources, table=parent, ref_columns=[str(t) for t in targets]))
    checks = check_clauses(create_sql)
    columns = [
        ColumnFact(
            name=col,
            type=declared or "",
            primary_key=col in pk,
            not_null=bool(notnull) or (col in pk and not rowid_alias),
            unique=[col] in [k for k, _ in keys],
            default=default,
            auto=rowid_alias and col == pk[0],
            references=next((fk for fk in fks if fk.columns == [col]), None),
            checks=[c for c in checks if _mentions(c, col)],
        )
        for _cid, col, declared, notnull, default, _pk in info
    ]
    order = ", ".join(_quote(c) for c in pk) if pk else "rowid"
    cursor = conn.execute(f"SELECT * FROM {_quote(name)} ORDER BY {order} LIMIT {SAMPLE_ROWS}")
    names = [d[0] for d in cursor.description]
    samples = [{k: plain(v) for k, v in zip(names, row, strict=True)} for row in cursor.fetchall()]
    unique = [
        UniqueFact(
            columns=cols,
            primary=primary,
            existing=[
                [plain(v) for v in row]
                for row in conn.execute(
                    f"SELECT {', '.join(_quote(c) for c in cols)} FROM {_quote(name)} LIMIT {UNIQUE_VALUES}"
                )
            ],
        )
        for cols, primary in keys
    ]
    (count,) = conn.execute(f"SELECT count(*) FROM {_quote(name)}").fetchone()
    return TableFact(
        name=name,
        columns=columns,
        row_count=count,
        sample_rows=samples,
        unique=unique,
        foreign_keys=fks,
        checks=checks,
    )


# -- PostgreSQL -----------------------------------------------------------------------------------

_USER_SCHEMA = (
    "{col} NOT IN ('pg_catalog', 'information_schema') "
    "AND {col} NOT LIKE 'pg\\_toast%' AND {col} NOT LIKE 'pg\\_temp\\_%'"
)
_RELATIONS = f"""
SELECT n.nspname, c.relname, c.relkind, c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm') AND {_USER_SCHEMA.format(col="n.nspname")} ORDER BY n.nspname, c.oid
"""
_COLUMNS = """
SELECT a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
       pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated
FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
"""
_CONSTRAINTS = """
SELECT k.contype, k.conkey, k.confrelid, k.confkey, pg_get_constraintdef(k.oid)
FROM pg_constraint k WHERE k.conrelid = %s ORDER BY k.contype, k.conname
"""
_UNIQUE_INDEXES = """
SELECT i.indkey::int2[] FROM pg_index i
WHERE i.indrelid = %s AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
"""
_NAMES = """
SELECT c.oid, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = %s
"""


def postgres_facts(source: psycopg.Connection | str) -> DatabaseFacts:
    """Read a PostgreSQL database through ``source``: an open connection (left open) or a DSN."""
    import psycopg
    from psycopg import sql

    own = isinstance(source, str)
    if isinstance(source, str):
        conn = psycopg.connect(source, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
    else:
        conn = source
    try:
        with conn.transaction():
            user_schema = _USER_SCHEMA.format(col="nspname")
            query = f"SELECT nspname FROM pg_namespace WHERE {user_schema} ORDER BY nspname"
            schemas = [row[0] for row in conn.execute(query)]
            tables: list[TableFact] = []
            views: list[str] = []
            for schema, name, relkind, oid in conn.execute(_RELATIONS).fetchall():
                label = name if schema == "public" else f"{schema}.{name}"
                if relkind in ("v", "m"):
                    views.append(label)
                    continue
                ident = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(name))
                tables.append(_postgres_table(conn, oid, label, ident))
    finally:
        if own:
            conn.close()
    return DatabaseFacts(dialect="postgres", schemas=schemas, tables=tables, views=views)


def _postgres_table(conn: psycopg.Connection, oid: int, label: str, ident: Any) -> TableFact:
    from psycopg import sql

    rows = conn.execute(_COLUMNS, (oid,)).fetchall()
    by_number = {number: name for number, name, *_ in rows}
    keys: list[tuple[list[str], bool]] = []
    fks: list[ForeignKeyFact] = []
    checks: list[str] = []
    for contype, conkey, confrelid, confkey, definition in conn.execute(_CONSTRAINTS, (oid,)).fetchall():
        columns = [by_number[n] for n in conkey or [] if n in by_number]
        if contype == "p":
            keys.insert(0, (columns, True))
        elif contype == "u":
            keys.append((columns, False))
        elif contype == "f":
            _oid, schema, parent = _one(conn.execute(_NAMES, (confrelid,)).fetchone())
            parent_cols = {n: a for n, a, *_ in conn.execute(_COLUMNS, (confrelid,)).fetchall()}
            fks.append(
                ForeignKeyFact(
                    columns=columns,
                    table=parent if schema == "public" else f"{schema}.{parent}",
                    ref_columns=[parent_cols[n] for n in confkey or []],
                )
            )
        elif contype == "c":
            checks.extend(check_clauses(definition))
    for (indkey,) in conn.execute(_UNIQUE_INDEXES, (oid,)).fetchall():
        columns = [by_number[n] for n in indkey if n in by_number]
        if columns and columns not in [k for k, _ in keys]:
            keys.append((columns, False))
    pk = next((cols for cols, primary in keys if primary), [])
    columns = [
        ColumnFact(
            name=name,
            type=declared,
            primary_key=name in pk,
            not_null=bool(notnull),
            unique=[name] in [k for k, _ in keys],
            default=default,
            auto=bool(identity) or bool(generated) or (default or "").startswith("nextval("),
            references=next((fk for fk in fks if fk.columns == [name]), None),
            checks=[c for c in checks if _mentions(c, name)],
        )
        for _n, name, declared, notnull, default, identity, generated in rows
    ]
    order = sql.SQL(", ").join(sql.Identifier(c) for c in pk) if pk else sql.SQL("1")
    cursor = conn.execute(sql.SQL("SELECT * FROM {} ORDER BY {} LIMIT {}").format(ident, order, SAMPLE_ROWS))
    names = [d.name for d in cursor.description or []]
    samples = [{k: plain(v) for k, v in zip(names, row, strict=True)} for row in cursor.fetchall()]
    unique = []
    for cols, primary in keys:
        select = sql.SQL("SELECT {} FROM {} LIMIT {}").format(
            sql.SQL(", ").join(sql.Identifier(c) for c in cols), ident, UNIQUE_VALUES
        )
        existing = [[plain(v) for v in row] for row in conn.execute(select)]
        unique.append(UniqueFact(columns=cols, primary=primary, existing=existing))
    (count,) = _one(conn.execute(sql.SQL("SELECT count(*) FROM {}").format(ident)).fetchone())
    return TableFact(
        name=label,
        columns=columns,
        row_count=count,
        sample_rows=samples,
        unique=unique,
        foreign_keys=fks,
        checks=checks,
    )


def _one(row: tuple[Any, ...] | None) -> tuple[Any, ...]:
    if row is None:  # pragma: no cover - catalogue lookups of an oid we just read
        raise LookupError("expected one row")
    return row
