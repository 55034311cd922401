"""Reading a database through a server's own query tool: tables, columns, keys, checks, samples.

Behind an opaque environment (a database file a ``command`` prepares, a remote service) the
snapshot tells the planner nothing; the server's SQL tool can. :class:`SqlIntrospection` asks a
SELECT-taking tool the catalogue questions each dialect answers, keeps the first family that
answers, and fills the same :class:`~toolatlas.offline.dbfacts.DatabaseFacts` the snapshot readers
fill — so valid INSERTs, constraint violations and real SELECTs follow as they do for a known
database::

    SQLite            sqlite_master, pragma_table_info(), pragma_index_list() / _info(), pragma_foreign_key_list()
    PostgreSQL, DuckDB, MySQL, SQL Server
                      information_schema.tables / columns / table_constraints / key_column_usage / check_constraints
    anything else     SHOW TABLES (names only)

then per table a few sample rows, the row count and the values its unique keys already hold.
Every question costs one call; the number of tables read is bounded.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from toolatlas.offline.dbfacts import (
    SAMPLE_ROWS,
    ColumnFact,
    DatabaseFacts,
    ForeignKeyFact,
    TableFact,
    UniqueFact,
    check_clauses,
    plain,
)
from toolatlas.offline.sqlgen import literal, quote_ident

__all__ = ["Ask", "MAX_TABLES", "SqlIntrospection"]

log = structlog.get_logger(__name__)

Ask = Callable[[str], Awaitable[list[dict[str, Any]] | None]]
"""Run one SELECT through the server: its rows, or ``None`` when the server refused it."""

MAX_TABLES = 8
"""Tables read in detail (a planner needs a few real targets, not an inventory)."""
UNIQUE_VALUES = 200
_SYSTEM_SCHEMAS = "('information_schema', 'pg_catalog', 'sys', 'mysql', 'performance_schema')"


def _get(row: dict[str, Any], *names: str) -> Any:
    """A row's value under any of ``names`` (lower-case; the row's keys are compared lower-cased)."""
    lowered = {str(k).lower(): v for k, v in row.items()}
    for name in names:
        if name in lowered:
            return lowered[name]
    return None


class SqlIntrospection:
    """Builds database facts from the answers of one query tool."""

    def __init__(self, ask: Ask) -> None:
        self.ask = ask
        self.dialect = ""

    async def facts(self) -> DatabaseFacts | None:
        """The database as the tool shows it, or ``None`` when no catalogue question was answered."""
        for reader in (self._sqlite, self._information_schema, self._show_tables):
            found = await reader()
            if found is not None:
                tables, views = found
                detailed = [await self._detail(t) for t in tables[:MAX_TABLES]]
                log.info("database_introspected", dialect=self.dialect, tables=len(tables), views=len(views))
                schemas = ["main"] if self.dialect == "sqlite" else ["public"]
                return DatabaseFacts(dialect=self.dialect, schemas=schemas, tables=detailed, views=views)
        return None

    # -- catalogues ---------------------------------------------------------------------------------

    async def _sqlite(self) -> tuple[list[TableFact], list[str]] | None:
        rows = await self.ask(
            "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        )
        if rows is None or any(_get(r, "type") not in ("table", "view") for r in rows):
            return None
        self.dialect = "sqlite"
        tables = []
        for row in rows:
            if _get(row, "type") != "table":
                continue
            name, sql = str(_get(row, "name")), str(_get(row, "sql") or "")
            tables.append(await self._sqlite_table(name, sql))
        return tables, [str(_get(r, "name")) for r in rows if _get(r, "type") == "view"]

    async def _sqlite_table(self, name: str, create_sql: str) -> TableFact:
        quoted = literal(name)
        info = await self.ask(f"SELECT * FROM pragma_table_info({quoted})") or []
        pk = [str(_get(r, "name")) for r in sorted((r for r in info if _get(r, "pk")), key=lambda r: _get(r, "pk"))]
        rowid_alias = len(pk) == 1 and "WITHOUT ROWID" not in create_sql.upper() and any(
            str(_get(r, "type") or "").upper() == "INTEGER" for r in info if _get(r, "name") == pk[0]
        )
        keys: list[tuple[list[str], bool]] = [(pk, True)] if pk else []
        for index in await self.ask(f"SELECT * FROM pragma_index_list({quoted})") or []:
            if _get(index, "unique") and not _get(index, "partial") and _get(index, "origin") != "pk":
                members = await self.ask(f"SELECT * FROM pragma_index_info({literal(str(_get(index, 'name')))})") or []
                unique = [str(_get(m, "name")) for m in members if _get(m, "name") is not None]
                if unique and unique not in [k for k, _ in keys]:
                    keys.append((unique, False))
        fks = [
            ForeignKeyFact(columns=[str(_get(r, "from"))], table=str(_get(r, "table")), ref_columns=[str(_get(r, "to"))])
            for r in await self.ask(f"SELECT * FROM pragma_foreign_key_list({quoted})") or []
            if _get(r, "to") is not None
        ]
        checks = check_clauses(create_sql)
        columns = [
            ColumnFact(
                name=str(_get(r, "name")),
                type=str(_get(r, "type") or ""),
                primary_key=str(_get(r, "name")) in pk,
                not_null=bool(_get(r, "notnull")) or (str(_get(r, "name")) in pk and not rowid_alias),
                unique=[str(_get(r, "name"))] in [k for k, _ in keys],
                default=None if _get(r, "dflt_value") is None else str(_get(r, "dflt_value")),
                auto=rowid_alias and str(_get(r, "name")) == pk[0],
                references=next((fk for fk in fks if fk.columns == [str(_get(r, "name"))]), None),
                checks=[c for c in checks if re.search(rf"\b{re.escape(str(_get(r, 'name')))}\b", c)],
            )
            for r in info
        ]
        return TableFact(
            name=name, columns=columns, unique=[UniqueFact(columns=c, primary=p) for c, p in keys],
            foreign_keys=fks, checks=checks,
        )

    async def _information_schema(self) -> tuple[list[TableFact], list[str]] | None:
        listed = await self.ask(
            "SELECT table_schema, table_name, table_type FROM information_schema.tables "
            f"WHERE table_schema NOT IN {_SYSTEM_SCHEMAS} ORDER BY table_schema, table_name"
        )
        if listed is None:
            return None
        self.dialect = "information_schema"
        columns = await self.ask(
            "SELECT table_schema, table_name, column_name, data_type, is_nullable, column_default "
            f"FROM information_schema.columns WHERE table_schema NOT IN {_SYSTEM_SCHEMAS} "
            "ORDER BY table_schema, table_name, ordinal_position"
        ) or []
        keys = await self.ask(
            "SELECT tc.table_name, tc.constraint_name, tc.constraint_type, kcu.column_name "
            "FROM information_schema.table_constraints tc JOIN information_schema.key_column_usage kcu "
            "ON kcu.constraint_name = tc.constraint_name AND kcu.table_name = tc.table_name "
            "WHERE tc.constraint_type IN ('PRIMARY KEY', 'UNIQUE') ORDER BY tc.table_name, kcu.ordinal_position"
        ) or []
        checks = await self.ask(
            "SELECT tc.table_name, cc.check_clause FROM information_schema.table_constraints tc "
            "JOIN information_schema.check_constraints cc ON cc.constraint_name = tc.constraint_name "
            "WHERE tc.constraint_type = 'CHECK'"
        ) or []
        names = [(str(_get(r, "table_schema")), str(_get(r, "table_name")), str(_get(r, "table_type") or "")) for r in listed]
        schemas = {s for s, _n, _t in names}
        default = "public" if "public" in schemas else "main" if "main" in schemas else (sorted(schemas) or [""])[0]
        label = lambda schema, name: name if schema == default else f"{schema}.{name}"  # noqa: E731
        tables, views = [], []
        for schema, name, kind in names:
            if "VIEW" in kind.upper():
                views.append(label(schema, name))
                continue
            own = [c for c in columns if _get(c, "table_name") == name and str(_get(c, "table_schema")) == schema]
            constraint: dict[str, tuple[str, list[str]]] = {}
            for k in keys:
                if _get(k, "table_name") == name:
                    entry = constraint.setdefault(str(_get(k, "constraint_name")), (str(_get(k, "constraint_type")), []))
                    entry[1].append(str(_get(k, "column_name")))
            unique = [UniqueFact(columns=cols, primary=kind_ == "PRIMARY KEY") for kind_, cols in constraint.values()]
            pk = next((u.columns for u in unique if u.primary), [])
            clauses = [
                str(_get(c, "check_clause")) for c in checks
                if _get(c, "table_name") == name and "IS NOT NULL" not in str(_get(c, "check_clause")).upper()
            ]
            tables.append(TableFact(
                name=label(schema, name),
                columns=[
                    ColumnFact(
                        name=str(_get(c, "column_name")),
                        type=str(_get(c, "data_type") or ""),
                        primary_key=str(_get(c, "column_name")) in pk,
                        not_null=str(_get(c, "is_nullable")).upper() in ("NO", "FALSE"),
                        unique=any(u.columns == [str(_get(c, "column_name"))] for u in unique),
                        default=None if _get(c, "column_default") is None else str(_get(c, "column_default")),
                        auto=bool(re.search(r"nextval|identity|autoincrement", str(_get(c, "column_default") or ""), re.I)),
                        checks=[x for x in clauses if re.search(rf"\b{re.escape(str(_get(c, 'column_name')))}\b", x)],
                    )
                    for c in own
                ],
                unique=unique,
                checks=clauses,
            ))
        return tables, views

    async def _show_tables(self) -> tuple[list[TableFact], list[str]] | None:
        rows = await self.ask("SHOW TABLES")
        if not rows:
            return None
        self.dialect = "unknown"
        names = [str(next(iter(r.values()))) for r in rows if r]
        return [TableFact(name=n) for n in names], []

    # -- per table ----------------------------------------------------------------------------------

    async def _detail(self, table: TableFact) -> TableFact:
        """Samples, the row count and the values unique keys hold (one call each)."""
        ident = quote_ident(table.name)
        samples = await self.ask(f"SELECT * FROM {ident} LIMIT {SAMPLE_ROWS}") or []
        counted = await self.ask(f"SELECT COUNT(*) AS n FROM {ident}") or [{}]
        count = next((v for v in counted[0].values() if isinstance(v, int)), len(samples))
        columns = table.columns or [ColumnFact(name=str(k), type=_type_of(v)) for k, v in (samples[0] if samples else {}).items()]
        unique = []
        for key in table.unique:
            select = ", ".join(quote_ident(c) for c in key.columns)
            held = await self.ask(f"SELECT {select} FROM {ident} LIMIT {UNIQUE_VALUES}") or []
            existing = [[plain(_get(r, c.lower())) for c in key.columns] for r in held]
            unique.append(key.model_copy(update={"existing": existing}))
        return table.model_copy(update={
            "columns": columns, "row_count": count, "unique": unique,
            "sample_rows": [{str(k): plain(v) for k, v in r.items()} for r in samples],
        })


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "INTEGER"
    if isinstance(value, float):
        return "REAL"
    return "TEXT"
