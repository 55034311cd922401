"""``demo.sqlite``: a shop database (customers, products, orders, order items) with real constraints.

20 customers (four never ordered), 15 products (one never sold, one out of stock), 40 orders
and exactly 100 order items; foreign keys, NOT NULL, UNIQUE and CHECK constraints, two indexes
and the ``order_totals`` view. The whole database is written by one script in one transaction,
so the same SQLite library always produces the same bytes.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from toolatlas.environments.seeds._registry import FIXED_EPOCH, Draw, pin_times, seed
from toolatlas.errors import SnapshotError

__all__ = ["SCHEMA", "build_shop"]

SCHEMA = """
CREATE TABLE customers (
    id          INTEGER PRIMARY KEY,
    email       TEXT    NOT NULL UNIQUE,
    name        TEXT    NOT NULL,
    country     TEXT    NOT NULL CHECK (length(country) = 2),
    created_at  TEXT    NOT NULL
);
CREATE TABLE products (
    id           INTEGER PRIMARY KEY,
    sku          TEXT    NOT NULL UNIQUE,
    name         TEXT    NOT NULL,
    category     TEXT    NOT NULL,
    price_cents  INTEGER NOT NULL CHECK (price_cents > 0),
    stock        INTEGER NOT NULL DEFAULT 0 CHECK (stock >= 0)
);
CREATE TABLE orders (
    id           INTEGER PRIMARY KEY,
    customer_id  INTEGER NOT NULL REFERENCES customers (id) ON DELETE RESTRICT,
    ordered_at   TEXT    NOT NULL,
    status       TEXT    NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'paid', 'shipped', 'cancelled'))
);
CREATE TABLE order_items (
    order_id          INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    product_id        INTEGER NOT NULL REFERENCES products (id) ON DELETE RESTRICT,
    quantity          INTEGER NOT NULL CHECK (quantity > 0),
    unit_price_cents  INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    PRIMARY KEY (order_id, product_id)
);
CREATE INDEX idx_orders_customer_id ON orders (customer_id);
CREATE INDEX idx_order_items_product_id ON order_items (product_id);
CREATE VIEW order_totals AS
    SELECT o.id AS order_id, c.name AS customer, o.ordered_at, o.status,
           COUNT(*) AS item_count, SUM(i.quantity * i.unit_price_cents) AS total_cents
    FROM orders AS o
    JOIN customers AS c ON c.id = o.customer_id
    JOIN order_items AS i ON i.order_id = o.id
    GROUP BY o.id;
"""

CUSTOMERS = [
    ("Ada Lovelace", "GB"),
    ("Grace Hopper", "US"),
    ("Alan Turing", "GB"),
    ("Katherine Johnson", "US"),
    ("José Álvarez", "ES"),
    ("Zoë Müller", "DE"),
    ("Haruki Tanaka", "JP"),
    ("Amara Okafor", "NG"),
    ("Lucía Fernández", "AR"),
    ("Mateo Rossi", "IT"),
    ("Chloé Dubois", "FR"),
    ("Sven Andersson", "SE"),
    ("Priya Sharma", "IN"),
    ("Liam O'Connor", "IE"),
    ("Fatima Zahra", "MA"),
    ("Wei Chen", "CN"),
    ("Olivia Brown", "CA"),
    ("Noah Wilson", "AU"),
    ("Ana Silva", "BR"),
    ("Jakub Nowak", "PL"),
]
PRODUCTS = [
    ("ELC-0001", "USB-C Cable 2m", "Electronics", 1299, 140),
    ("ELC-0002", "Wireless Mouse", "Electronics", 2499, 65),
    ("ELC-0003", "Mechanical Keyboard", "Electronics", 8999, 22),
    ("ELC-0004", '27" Monitor', "Electronics", 22900, 7),
    ("OFF-0001", "A5 Notebook", "Office", 450, 300),
    ("OFF-0002", "Stapler", "Office", 850, 48),
    ("OFF-0003", "Desk Lamp", "Office", 3450, 0),
    ("KIT-0001", "Coffee Mug", "Kitchen", 990, 120),
    ("KIT-0002", "Water Bottle 750ml", "Kitchen", 1850, 75),
    ("KIT-0003", "Tea Kettle", "Kitchen", 3999, 14),
    ("TOL-0001", "Screwdriver Set", "Tools", 2750, 33),
    ("TOL-0002", "Cordless Drill", "Tools", 11900, 9),
    ("GRD-0001", "Watering Can", "Garden", 1590, 41),
    ("GRD-0002", "Pruning Shears", "Garden", 2290, 27),
    ("GRD-0003", "Garden Hose 25m", "Garden", 4490, 12),
]
STATUSES = ["shipped", "shipped", "shipped", "paid", "paid", "pending", "cancelled"]


@seed("demo.sqlite", kind="sqlite")
def build_shop(dest: Path) -> None:
    """Create the shop database file at ``dest``."""
    conn = sqlite3.connect(dest, isolation_level=None)
    try:
        conn.execute("PRAGMA page_size = 4096")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.executescript(f"BEGIN;\n{SCHEMA}\n{_data_sql()}\nCOMMIT;")
        violations = conn.execute("PRAGMA foreign_key_check").fetchall()
    finally:
        conn.close()
    if violations:  # pragma: no cover - a bug in the data above
        raise SnapshotError(f"demo.sqlite data violates foreign keys: {violations[:3]}")
    pin_times(dest)


def _data_sql() -> str:
    draw = Draw(1234)
    statements: list[str] = []
    for number, (name, country) in enumerate(CUSTOMERS, start=1):
        email = name.lower().replace("'", "").split()[0] + f".{number}@example.com"
        created = _timestamp(-200 * 86_400 + number * 7 * 86_400 + draw.between(0, 86_399))
        statements.append(_insert("customers", number, email, name, country, created))
    for number, row in enumerate(PRODUCTS, start=1):
        statements.append(_insert("products", number, *row))
    seconds = 3 * 86_400
    for order_id in range(1, 41):
        seconds += draw.between(2 * 3_600, 9 * 86_400 // 2)
        customer = draw.between(1, 16)  # customers 17-20 never ordered
        statements.append(_insert("orders", order_id, customer, _timestamp(seconds), draw.pick(STATUSES)))
        chosen: list[int] = []
        while len(chosen) < 2 + order_id % 2:  # 20 orders of two items, 20 of three
            product = draw.between(1, 14)  # product 15 never sold
            if product not in chosen:
                chosen.append(product)
        for product in chosen:
            price = PRODUCTS[product - 1][3]
            unit_price = price * 9 // 10 if draw.chance(0.15) else price
            statements.append(_insert("order_items", order_id, product, draw.between(1, 5), unit_price))
    return "\n".join(statements)


def _timestamp(offset_seconds: int) -> str:
    return datetime.fromtimestamp(FIXED_EPOCH + offset_seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _insert(table: str, *values: int | str) -> str:
    rendered = ", ".join(str(v) if isinstance(v, int) else "'" + v.replace("'", "''") + "'" for v in values)
    return f"INSERT INTO {table} VALUES ({rendered});"
