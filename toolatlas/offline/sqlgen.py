"""SQL statements written from database facts: valid reads and writes, and statements that break a rule.

A valid INSERT satisfies the table's constraints by construction: values of ordinary columns
come from a real sample row (so CHECKs hold), foreign keys take an existing parent key, unique
keys get a fresh value shaped like the existing ones (``ELC-0001`` → ``ELC-4821``,
``ada.1@example.com`` → ``probe.ab12@example.com``). The same facts give the statements that
must be refused: NULL in a NOT NULL column, a duplicate unique value, a CHECK-violating value,
a dangling foreign key.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from toolatlas.offline.dbfacts import ColumnFact, DatabaseFacts, TableFact

__all__ = ["SqlWriter", "literal", "quote_ident"]

_PLAIN_IDENT = re.compile(r"[a-z_][a-z0-9_]*")
_RESERVED = {
    "order",
    "group",
    "user",
    "table",
    "select",
    "from",
    "where",
    "limit",
    "check",
    "default",
    "key",
    "index",
}
_NUMERIC = re.compile(r"int|real|floa|doub|num|dec|serial", re.IGNORECASE)
_TEXTUAL = re.compile(r"char|text|clob|string", re.IGNORECASE)


def quote_ident(name: str) -> str:
    """An identifier as SQL: bare when plain lower-case, else double-quoted (``schema.table`` per part)."""
    if "." in name and not name.startswith('"'):
        return ".".join(quote_ident(part) for part in name.split("."))
    if _PLAIN_IDENT.fullmatch(name) and name not in _RESERVED:
        return name
    return '"' + name.replace('"', '""') + '"'


def literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def _join_value(value: Any) -> Any:
    """A sample value as a join compares it (lists and objects compare as nothing)."""
    return value if isinstance(value, str | int | float) and not isinstance(value, bool) else None


def _numeric(column: ColumnFact) -> bool:
    return bool(_NUMERIC.search(column.type))


def _textual(column: ColumnFact) -> bool:
    return bool(_TEXTUAL.search(column.type)) or not column.type


class SqlWriter:
    """Writes statements against the tables of one database's facts; choices are drawn from ``rng``."""

    def __init__(self, facts: DatabaseFacts, rng: random.Random) -> None:
        self.facts = facts
        self.rng = rng

    # -- reads ------------------------------------------------------------------------------------

    def select(self, variant: int = 0) -> str | None:
        """A realistic SELECT: filtered and ordered, then an aggregate, a join, a view, then plain scans."""
        tables = [t for t in self.facts.tables if t.columns]
        if not tables:
            return "SELECT 1 AS probe"
        shapes = [self._filtered, self._grouped, self._joined, self._view]
        for offset in range(len(shapes)):
            if variant + offset >= len(shapes):
                break
            statement = shapes[variant + offset](tables)
            if statement:
                return statement
        table = tables[variant % len(tables)]
        return f"SELECT * FROM {quote_ident(table.name)} LIMIT 5"

    def _filtered(self, tables: list[TableFact]) -> str | None:
        for table in sorted(tables, key=lambda t: not (self._label_column(t) and self._measure_column(t))):
            label, measure = self._label_column(table), self._measure_column(table)
            if label is None or measure is None:
                continue
            values = sorted(
                v for row in table.sample_rows if isinstance(v := row.get(measure.name), int | float)
            )
            threshold = values[len(values) // 2] if values else 0
            m = quote_ident(measure.name)
            return (
                f"SELECT {quote_ident(label.name)}, {m} FROM {quote_ident(table.name)} "
                f"WHERE {m} > {literal(threshold)} ORDER BY {m} LIMIT 5"
            )
        return None

    def bound_select(self, style: str) -> tuple[str, dict[str, Any] | list[Any]] | None:
        """The filtered SELECT with its threshold passed as a bound parameter, in the placeholder
        ``style`` the server documents (``:name``, ``%(name)s``, ``?``), and the parameters to send."""
        statement = self._filtered([t for t in self.facts.tables if t.columns])
        found = re.search(r"WHERE (\S+) > (\S+) ORDER", statement or "")
        if statement is None or found is None:
            return None
        column, value = found.group(1).strip('"'), json.loads(found.group(2))
        name = re.sub(r"\W+", "_", column).lower()
        placeholder = {"named": f":{name}", "pyformat": f"%({name})s", "qmark": "?"}[style]
        bound = statement.replace(f"> {found.group(2)} ORDER", f"> {placeholder} ORDER")
        return bound, ([value] if style == "qmark" else {name: value})

    def _grouped(self, tables: list[TableFact]) -> str | None:
        for table in tables:
            for column in table.columns:
                if (
                    _textual(column)
                    and not column.unique
                    and not column.primary_key
                    and column.references is None
                ):
                    values = [row.get(column.name) for row in table.sample_rows]
                    if len(set(values)) < len(values) or column.checks:
                        c = quote_ident(column.name)
                        return (
                            f"SELECT {c}, COUNT(*) AS n FROM {quote_ident(table.name)} GROUP BY {c} "
                            f"ORDER BY n DESC LIMIT 5"
                        )
        return None

    def _joined(self, tables: list[TableFact]) -> str | None:
        for table in tables:
            for fk in table.foreign_keys:
                parent = self.facts.table(fk.table)
                if parent is None or len(fk.columns) != 1:
                    continue
                label = self._label_column(parent) or parent.columns[0]
                on = f"p.{quote_ident(fk.ref_columns[0])} = t.{quote_ident(fk.columns[0])}"
                first = quote_ident(table.columns[0].name)
                return (
                    f"SELECT t.{first}, p.{quote_ident(label.name)} FROM {quote_ident(table.name)} AS t "
                    f"JOIN {quote_ident(parent.name)} AS p ON {on} LIMIT 5"
                )
        return self._joined_on_shared_column(tables)

    @staticmethod
    def _joined_on_shared_column(tables: list[TableFact]) -> str | None:
        """Two tables no foreign key links, joined on a column both have whose sample values meet
        (``Sales.Region = Targets.Region``); never on two primary keys or a bare ``id``."""
        for table in tables:
            for other in tables:
                if other is table:
                    continue
                for column in table.columns:
                    shared = next((c for c in other.columns if c.name == column.name), None)
                    if shared is None or column.name.lower() == "id":
                        continue
                    if column.primary_key and shared.primary_key:
                        continue
                    mine = {_join_value(row.get(column.name)) for row in table.sample_rows} - {None}
                    theirs = {_join_value(row.get(shared.name)) for row in other.sample_rows} - {None}
                    if not mine & theirs:
                        continue
                    first = next((c for c in table.columns if c.name != column.name), column)
                    label = next((c for c in other.columns if c.name != shared.name), shared)
                    on = quote_ident(column.name)
                    return (
                        f"SELECT t.{quote_ident(first.name)}, p.{quote_ident(label.name)} "
                        f"FROM {quote_ident(table.name)} AS t "
                        f"JOIN {quote_ident(other.name)} AS p ON p.{on} = t.{on} LIMIT 5"
                    )
        return None

    def _view(self, _tables: list[TableFact]) -> str | None:
        return f"SELECT * FROM {quote_ident(self.facts.views[0])} LIMIT 5" if self.facts.views else None

    @staticmethod
    def _label_column(table: TableFact) -> ColumnFact | None:
        text = [c for c in table.columns if _textual(c) and c.references is None]
        named = [c for c in text if re.search(r"name|title|label", c.name)]
        return next(iter(named or text), None)

    @staticmethod
    def _measure_column(table: TableFact) -> ColumnFact | None:
        numbers = [c for c in table.columns if _numeric(c) and not c.primary_key and c.references is None]
        return next(iter(numbers), None)

    # -- writes -----------------------------------------------------------------------------------

    def insert(self, variant: int = 0, tag: str = "") -> str | None:
        """An INSERT that satisfies NOT NULL, UNIQUE, CHECK and FOREIGN KEY constraints."""
        tables = sorted(self.facts.tables, key=lambda t: (bool(t.foreign_keys), len(t.primary_key) > 1))
        tables = [t for t in tables if t.columns]
        if not tables:
            return None
        table = tables[variant % len(tables)]
        values = self.row_values(table, full=variant > 0, tag=tag)
        if values == {}:  # no column needs a value: name them all (``INSERT INTO t () VALUES ()`` is no SQL)
            values = self.row_values(table, full=True, tag=tag)
        if not values:
            return None
        columns = ", ".join(quote_ident(c) for c in values)
        rendered = ", ".join(literal(v) for v in values.values())
        return f"INSERT INTO {quote_ident(table.name)} ({columns}) VALUES ({rendered})"

    def row_values(self, table: TableFact, *, full: bool = False, tag: str = "") -> dict[str, Any] | None:
        """Column → value for a new row of ``table`` that breaks no constraint the facts know of."""
        sample = self.rng.choice(table.sample_rows) if table.sample_rows else {}
        for _attempt in range(20):
            values: dict[str, Any] = {}
            for column in table.columns:
                if (
                    column.auto
                    or (not full and not column.not_null)
                    or (column.default is not None and not full)
                ):
                    continue
                value = self._column_value(table, column, sample, tag)
                if value is None and column.not_null:
                    return None
                if value is not None:
                    values[column.name] = value
            if all(
                self._fresh_key(table, key.columns, values) for key in table.unique if len(key.columns) > 1
            ):
                return values
        return None

    def _column_value(self, table: TableFact, column: ColumnFact, sample: dict[str, Any], tag: str) -> Any:
        if column.references is not None:
            parent = self.facts.table(column.references.table)
            key = (
                next((u for u in parent.unique if u.columns == column.references.ref_columns), None)
                if parent
                else None
            )
            return self.rng.choice(key.existing)[0] if key and key.existing else sample.get(column.name)
        if column.unique or (column.primary_key and len(table.primary_key) == 1):
            existing = {row[0] for u in table.unique if u.columns == [column.name] for row in u.existing}
            seed = sample.get(column.name)
            return self.unique_like(seed if seed is not None else self._typed_default(column), existing, tag)
        if column.name in sample and sample[column.name] is not None:
            return sample[column.name]
        return self._typed_default(column)

    @staticmethod
    def _fresh_key(table: TableFact, columns: list[str], values: dict[str, Any]) -> bool:
        if not all(c in values for c in columns):
            return True
        wanted = [values[c] for c in columns]
        return all(row != wanted for u in table.unique if u.columns == columns for row in u.existing)

    @staticmethod
    def _typed_default(column: ColumnFact) -> Any:
        kind = column.type.lower()
        if "bool" in kind:
            return True
        if "date" in kind or "time" in kind or column.name.endswith(("_at", "_on", "date")):
            return "2024-03-14" if "date" in kind or column.name.endswith("_on") else "2024-03-14 10:30:00"
        if "int" in kind or "serial" in kind:
            return 1
        if _NUMERIC.search(kind):
            return 1.5
        return "probe"

    def unique_like(self, seed: Any, existing: set[Any], tag: str) -> Any:
        """A value shaped like ``seed`` that is not in ``existing``."""
        for attempt in range(50):
            if isinstance(seed, bool):
                candidate: Any = not seed
            elif isinstance(seed, int):
                numbers = [v for v in existing if isinstance(v, int)]
                candidate = max(numbers, default=seed) + 1 + self.rng.randrange(100)
            elif isinstance(seed, float):
                candidate = round(seed + 1 + self.rng.random() * 100, 2)
            elif isinstance(seed, str) and "@" in seed:
                candidate = f"probe.{tag or 'x'}{attempt or ''}@{seed.split('@', 1)[1]}"
            elif isinstance(seed, str) and re.search(r"\d{3,}$", seed):
                width = (
                    4 if attempt < 25 else 3
                )  # keep the shape (prefix, length) of codes like ISBNs and SKUs
                head = seed[: len(seed) - width] if len(seed) > width else ""
                candidate = head + str(self.rng.randrange(10**width)).zfill(min(width, len(seed)))
            else:
                candidate = f"{seed}-{tag or 'probe'}{attempt or ''}"
            if candidate not in existing:
                return candidate
        return None

    def update(self, variant: int = 0) -> str | None:
        """An UPDATE of one ordinary column of one existing row, to a value another row already holds."""
        options = []
        for table in self.facts.tables:
            if not table.primary_key or len(table.sample_rows) < 2:
                continue
            for column in table.columns:
                if not (column.primary_key or column.unique or column.auto or column.references):
                    options.append((table, column))
        if not options:
            return None
        # quantities and states first (stock, status), names and labels last: an edit, not a rename
        options.sort(
            key=lambda o: (
                not _numeric(o[1]) and not o[1].checks,
                bool(re.search(r"name|title|label", o[1].name)),
            )
        )
        table, column = options[variant % len(options)]
        rows = list(table.sample_rows)
        target = rows[variant % len(rows)]
        donor = next((r for r in rows if r.get(column.name) != target.get(column.name)), rows[-1])
        where = " AND ".join(f"{quote_ident(k)} = {literal(target[k])}" for k in table.primary_key)
        return (
            f"UPDATE {quote_ident(table.name)} SET {quote_ident(column.name)} = "
            f"{literal(donor.get(column.name))} WHERE {where}"
        )

    def delete(self, variant: int = 0) -> str | None:
        """A DELETE of one existing row, from a table no foreign key points at when there is one."""
        referenced = set(self.facts.referenced_tables)
        tables = [t for t in self.facts.tables if t.primary_key and t.sample_rows]
        tables = [t for t in tables if t.name not in referenced] or tables
        if not tables:
            return None
        table = tables[variant % len(tables)]
        row = table.sample_rows[variant % len(table.sample_rows)]
        where = " AND ".join(f"{quote_ident(k)} = {literal(row[k])}" for k in table.primary_key)
        return f"DELETE FROM {quote_ident(table.name)} WHERE {where}"

    def create_table(self, name: str, variant: int = 0) -> str:
        """A CREATE TABLE for a new table ``name``: plain, then with constraints, then with a foreign key."""
        ident = quote_ident(name)
        if variant % 3 == 1:
            return (
                f"CREATE TABLE {ident} (id INTEGER PRIMARY KEY, note TEXT NOT NULL DEFAULT '', "
                f"score INTEGER CHECK (score >= 0))"
            )
        parent = next((t for t in self.facts.tables if len(t.primary_key) == 1), None)
        if variant % 3 == 2 and parent is not None:
            key = parent.primary_key[0]
            reference = quote_ident(parent.name.split(".")[-1] + "_id")
            return (
                f"CREATE TABLE {ident} (id INTEGER PRIMARY KEY, {reference} "
                f"INTEGER REFERENCES {quote_ident(parent.name)} ({quote_ident(key)}), note TEXT)"
            )
        return f"CREATE TABLE {ident} (id INTEGER PRIMARY KEY, label TEXT NOT NULL, created_at TEXT)"

    def statement(self, kind: str, variant: int = 0, tag: str = "") -> str | None:
        """A valid statement of ``kind``: select, insert, update, delete or ddl."""
        match kind:
            case "select":
                return self.select(variant)
            case "insert":
                return self.insert(variant, tag)
            case "update":
                return self.update(variant)
            case "delete":
                return self.delete(variant)
            case "ddl":
                return self.create_table(f"probe_{tag or 'table'}", variant)
        return None

    # -- statements that must be refused -----------------------------------------------------------

    def violations(self, tag: str = "") -> list[tuple[str, str, str]]:
        """``(constraint, condition, INSERT)`` triples, each breaking exactly one constraint of one table."""
        found: dict[str, tuple[str, str, str]] = {}
        for table in sorted(self.facts.tables, key=lambda t: bool(t.foreign_keys)):
            base = self.row_values(table, full=False, tag=tag)
            if base is None:
                continue
            for constraint, column, value, condition in self._breaks(table, base):
                if constraint not in found:
                    broken = {**base, column.name: value}
                    cols = ", ".join(quote_ident(c) for c in broken)
                    vals = ", ".join(literal(v) for v in broken.values())
                    found[constraint] = (
                        constraint,
                        condition,
                        f"INSERT INTO {quote_ident(table.name)} ({cols}) VALUES ({vals})",
                    )
        return list(found.values())

    def _breaks(self, table: TableFact, base: dict[str, Any]) -> list[tuple[str, ColumnFact, Any, str]]:
        out: list[tuple[str, ColumnFact, Any, str]] = []
        where = table.name
        for column in table.columns:
            if column.name not in base:
                continue
            if column.not_null and not column.primary_key and column.references is None:
                out.append(
                    ("not_null", column, None, f"NOT NULL column `{where}.{column.name}` is set to NULL")
                )
            if column.unique and not column.auto:
                key = next((u for u in table.unique if u.columns == [column.name] and u.existing), None)
                if key is not None:
                    out.append(
                        (
                            "unique",
                            column,
                            key.existing[0][0],
                            f"UNIQUE column `{where}.{column.name}` repeats an existing value",
                        )
                    )
            if column.references is not None:
                parent = self.facts.table(column.references.table)
                key = (
                    next((u for u in parent.unique if u.columns == column.references.ref_columns), None)
                    if parent
                    else None
                )
                numbers = [r[0] for r in key.existing if isinstance(r[0], int)] if key else []
                if numbers:
                    out.append(
                        (
                            "foreign_key",
                            column,
                            max(numbers) + 1000,
                            f"`{where}.{column.name}` references a missing `{column.references.table}` row",
                        )
                    )
            for check in column.checks:
                value = _violating(check, column.name)
                if value is not None:
                    out.append(("check", column, value, f"`{where}.{column.name}` violates CHECK ({check})"))
                    break
        return out


def _violating(check: str, column: str) -> Any:
    """A value of ``column`` that fails ``check``, for the simple shapes of CHECK; else ``None``."""
    check = check.strip()
    while check.startswith("(") and check.endswith(")") and _balanced(check[1:-1]):
        check = check[1:-1].strip()
    name = rf'"?{re.escape(column)}"?'
    number = r"(-?\d+(?:\.\d+)?)"
    if m := re.fullmatch(rf"{name}\s*(>=|>|<=|<)\s*{number}", check):
        bound = float(m.group(2)) if "." in m.group(2) else int(m.group(2))
        return {">": bound, ">=": bound - 1, "<": bound, "<=": bound + 1}[m.group(1)]
    if m := re.fullmatch(rf"{name}\s+BETWEEN\s+{number}\s+AND\s+{number}", check, re.IGNORECASE):
        return int(float(m.group(2))) + 1
    if re.fullmatch(rf"{name}\s+IN\s*\(.*\)", check, re.IGNORECASE):
        return "probe_invalid"
    if m := re.fullmatch(rf"(?:length|char_length)\s*\(\s*{name}\s*\)\s*=\s*(\d+)", check, re.IGNORECASE):
        return "X" * (int(m.group(1)) + 1)
    if re.search(rf"{name}\s*~|position\s*\(.*\bIN\s+{name}\s*\)", check, re.IGNORECASE):
        return "invalid"
    return None


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return False
    return depth == 0
