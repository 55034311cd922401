"""``demo.filesystem``: a small, realistic project tree for probing a filesystem server.

It holds what filesystem tools trip over: nested and empty folders, a hidden file, names with
spaces and non-ASCII characters, a large log, a binary file, an executable script and a
read-only file, beside ordinary docs, code, CSV/JSON data and configuration (35 files).
"""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import UTC, datetime
from pathlib import Path

from toolatlas.environments.seeds._registry import FIXED_EPOCH, Draw, pin_times, seed, write_bytes, write_text

__all__ = ["build_project_tree"]

# A valid 4×4 RGB PNG (striped blue and white), kept as bytes so no zlib version can change it.
LOGO_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d494844520000000400000004080200000026930929000000144944415478da63908b3a"
    "01470cbf9000034e1900091921716b53e9ab0000000049454e44ae426082"
)

CATEGORIES = {
    "ELC": (
        "Electronics",
        ["USB-C Cable", "Wireless Mouse", "Keyboard", "Monitor Stand", "Webcam", "Headset"],
    ),
    "OFF": ("Office", ["Notebook", "Stapler", "Desk Lamp", "Paper Tray", "Whiteboard Marker", "Binder"]),
    "KIT": ("Kitchen", ["Coffee Mug", "Water Bottle", "Tea Kettle", "Lunch Box", "Cutting Board"]),
    "TOL": ("Tools", ["Screwdriver Set", "Tape Measure", "Cordless Drill", "Utility Knife", "Level"]),
    "GRD": ("Garden", ["Watering Can", "Pruning Shears", "Seed Tray", "Garden Hose", "Gloves"]),
}
FINISHES = ["Basic", "Pro", "Compact", "Deluxe", "Eco", "Mini", "XL"]
SUPPLIERS = [
    ("Northwind Traders", "Seattle", "US"),
    ("Contoso Supply", "Dublin", "IE"),
    ("Fabrikam GmbH", "Berlin", "DE"),
    ("Tailspin Parts", "Toronto", "CA"),
    ("Litware Ltd", "Manchester", "GB"),
    ("Adatum Components", "Lyon", "FR"),
    ("Wingtip Goods", "Austin", "US"),
    ("Proseware Inc", "Osaka", "JP"),
    ("Lucerne Trading", "Zürich", "CH"),
    ("Woodgrove Wholesale", "Melbourne", "AU"),
    ("Alpine Ski House", "Innsbruck", "AT"),
    ("Coho Imports", "Porto", "PT"),
]

TEXT_FILES: dict[str, str] = {
    "README.md": """# inventory

A small command-line tool that tracks stock levels for a shop and prints monthly reports.

## Quick start

```sh
pip install -e .
inventory import data/products.csv
inventory report --month 2024-03
```

See `docs/guides/getting-started.md` for a longer walk-through and `docs/api.md` for the
Python API. Settings live in `config/settings.yaml`; secrets go in `.env` (see `.env.example`).
""",
    "CHANGELOG.md": """# Changelog

## 0.3.0 - 2024-03-15
- Monthly reports grouped by category.
- `inventory export --format json`.

## 0.2.0 - 2024-02-01
- Suppliers table and `data/suppliers.csv` import.

## 0.1.0 - 2024-01-10
- First release: products, stock movements, CSV import.
""",
    "LICENSE": """MIT License

Copyright (c) 2024 Inventory Authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software
and associated documentation files (the "Software"), to deal in the Software without
restriction, subject to the following conditions: the above copyright notice and this
permission notice shall be included in all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
""",
    "pyproject.toml": """[project]
name = "inventory"
version = "0.3.0"
requires-python = ">=3.10"
dependencies = ["pyyaml>=6"]

[project.scripts]
inventory = "inventory.cli:main"
""",
    "Makefile": """.PHONY: test lint report

test:
\tpytest -q

lint:
\truff check src tests

report:
\tinventory report --month $(MONTH)
""",
    ".gitignore": "__pycache__/\n*.pyc\n.env\n.venv/\nlogs/*.log\n",
    ".env.example": "INVENTORY_DB_URL=sqlite:///inventory.db\nINVENTORY_API_KEY=changeme\nINVENTORY_DEBUG=false\n",
    "docs/index.md": """# Inventory documentation

- [Architecture](architecture.md)
- [API reference](api.md)
- [Getting started](guides/getting-started.md)
- [Deployment](guides/deployment.md)
- [Caching and tuning](guides/advanced/tuning/caching.md)
""",
    "docs/architecture.md": """# Architecture

The CLI (`inventory.cli`) parses commands and calls the storage layer (`inventory.storage`),
which keeps products and stock movements in SQLite. Reports (`inventory.reports`) read from
storage only. Configuration is loaded once from `config/settings.yaml`.
""",
    "docs/api.md": """# API reference

## `inventory.models.Product`
A product: `sku`, `name`, `category`, `price_cents`, `stock`.

## `inventory.storage.Storage`
- `add(product)`: insert or update by SKU.
- `get(sku)`: the product, or `None`.
- `low_stock(threshold=5)`: products whose stock is below `threshold`.
""",
    "docs/guides/getting-started.md": """# Getting started

1. Copy `.env.example` to `.env` and set `INVENTORY_API_KEY`.
2. Import the sample data: `inventory import data/products.csv`.
3. Print a report: `inventory report --month 2024-03`.
""",
    "docs/guides/deployment.md": """# Deployment

Run `scripts/deploy.sh <host>`; it copies the wheel and restarts the service. Logs are
written to `logs/app.log` and rotated daily.
""",
    "docs/guides/advanced/tuning/caching.md": """# Caching

`storage.cache_size` in `config/settings.yaml` bounds the in-memory product cache (default
512 entries). Raise it when reports scan more than a few thousand products.
""",
    "src/inventory/__init__.py": '"""Track stock levels and print reports."""\n\n__version__ = "0.3.0"\n',
    "src/inventory/models.py": '''"""Domain models."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    category: str
    price_cents: int
    stock: int = 0

    @property
    def price(self) -> float:
        return self.price_cents / 100
''',
    "src/inventory/storage.py": '''"""SQLite-backed storage for products."""

import sqlite3

from inventory.models import Product


class Storage:
    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path)
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS products (sku TEXT PRIMARY KEY, name TEXT, category TEXT,"
            " price_cents INTEGER, stock INTEGER)"
        )

    def add(self, product: Product) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO products VALUES (?, ?, ?, ?, ?)",
            (product.sku, product.name, product.category, product.price_cents, product.stock),
        )

    def get(self, sku: str) -> Product | None:
        row = self.conn.execute("SELECT * FROM products WHERE sku = ?", (sku,)).fetchone()
        return Product(*row) if row else None

    def low_stock(self, threshold: int = 5) -> list[Product]:
        rows = self.conn.execute("SELECT * FROM products WHERE stock < ?", (threshold,))
        return [Product(*row) for row in rows]
''',
    "src/inventory/cli.py": '''"""Command-line entry point."""

import argparse


def main() -> None:
    parser = argparse.ArgumentParser(prog="inventory")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("import").add_argument("csv_path")
    sub.add_parser("report").add_argument("--month", required=True)
    args = parser.parse_args()
    print(f"running {args.command}")
''',
    "src/inventory/reports/__init__.py": '"""Reports over stored products."""\n',
    "src/inventory/reports/monthly.py": '''"""Monthly stock report grouped by category."""

from collections import defaultdict

from inventory.models import Product


def by_category(products: list[Product]) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for product in products:
        totals[product.category] += product.stock
    return dict(sorted(totals.items()))
''',
    "tests/test_models.py": """from inventory.models import Product


def test_price_is_in_units():
    assert Product("ELC-0001", "Cable", "Electronics", 1299).price == 12.99
""",
    "tests/test_storage.py": """from inventory.models import Product
from inventory.storage import Storage


def test_add_then_get():
    storage = Storage(":memory:")
    storage.add(Product("OFF-0002", "Stapler", "Office", 850, 3))
    assert storage.get("OFF-0002").stock == 3
""",
    "config/settings.yaml": """app:
  name: inventory
  environment: development
  debug: false
storage:
  url: sqlite:///inventory.db
  cache_size: 512
reports:
  currency: EUR
  low_stock_threshold: 5
  categories: [Electronics, Office, Kitchen, Tools, Garden]
""",
    "config/logging.yaml": """version: 1
handlers:
  file:
    class: logging.handlers.TimedRotatingFileHandler
    filename: logs/app.log
    when: midnight
root:
  level: INFO
  handlers: [file]
""",
    "notes/meeting notes.md": """# Weekly sync - 2024-03-11

- Ana: supplier import is done; needs review.
- Ben: report totals are off by one for March; investigating.
- Next: decide on the caching default before 0.4.0.
""",
    "notes/réunion 2024.md": """# Réunion de lancement - 8 janvier 2024

Présents : Chloé, Étienne, Zoë.

- Objectif : première version publiée avant la fin du mois.
- Étienne s'occupe de l'import CSV ; Chloé des rapports.
""",
    "notes/todo.txt": "- [x] CSV import\n- [ ] JSON export\n- [ ] supplier lead times\n- [ ] translate\n",
}
EXECUTABLES = {
    "scripts/deploy.sh": """#!/bin/sh
set -eu
host="${1:?usage: deploy.sh <host>}"
scp dist/inventory-*.whl "$host:/opt/inventory/"
ssh "$host" systemctl restart inventory
""",
}
READ_ONLY = {"LICENSE"}


@seed("demo.filesystem", kind="directory")
def build_project_tree(dest: Path) -> None:
    """Write the project tree into the new folder ``dest``."""
    dest.mkdir()
    for rel, text in TEXT_FILES.items():
        write_text(dest / rel, text, 0o444 if rel in READ_ONLY else 0o644)
    for rel, text in EXECUTABLES.items():
        write_text(dest / rel, text, 0o755)
    write_text(dest / "data/products.csv", _products_csv())
    write_text(dest / "data/suppliers.csv", _csv(["id", "name", "city", "country"], _suppliers()))
    write_text(
        dest / "data/categories.json", _json([{"code": c, "name": n} for c, (n, _) in CATEGORIES.items()])
    )
    write_text(dest / "data/orders/sample_order.json", _json(_sample_order()))
    write_text(dest / "data/archive/2023/q4/summary.json", _json(_quarter_summary()))
    app_log = _app_log()
    write_text(dest / "logs/app.log", app_log)
    write_text(
        dest / "logs/error.log", "".join(line for line in app_log.splitlines(True) if " ERROR " in line)
    )
    write_bytes(dest / "assets/logo.png", LOGO_PNG)
    (dest / "empty").mkdir()
    for folder, dirs, _files in os.walk(dest):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)
    os.chmod(dest, 0o755)
    pin_times(dest)


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _csv(header: list[str], rows: list[list[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def _suppliers() -> list[list[object]]:
    return [[i, name, city, country] for i, (name, city, country) in enumerate(SUPPLIERS, start=1)]


def _products_csv() -> str:
    """200 products; names with a comma and quotes exercise CSV quoting."""
    draw = Draw(20240101)
    codes = list(CATEGORIES)
    rows: list[list[object]] = []
    for product_id in range(1, 201):
        code = codes[(product_id - 1) % len(codes)]
        category, nouns = CATEGORIES[code]
        name = f"{draw.pick(nouns)} {draw.pick(FINISHES)}"
        if product_id % 50 == 0:
            name = f'{name}, "limited" edition'
        price = draw.between(199, 24999)
        rows.append(
            [
                product_id,
                f"{code}-{product_id:04d}",
                name,
                category,
                f"{price / 100:.2f}",
                draw.between(0, 250),
                draw.between(1, len(SUPPLIERS)),
            ]
        )
    return _csv(["id", "sku", "name", "category", "price", "stock", "supplier_id"], rows)


def _sample_order() -> dict[str, object]:
    return {
        "order_id": "ORD-2024-0042",
        "placed_at": "2024-03-14T10:32:00Z",
        "customer": {"name": "Grace Hopper", "email": "grace@example.com"},
        "items": [
            {"sku": "ELC-0001", "quantity": 2, "unit_price": 12.99},
            {"sku": "OFF-0002", "quantity": 1, "unit_price": 8.5},
        ],
        "status": "shipped",
    }


def _quarter_summary() -> dict[str, object]:
    return {
        "quarter": "2023-Q4",
        "revenue_eur": 48210.75,
        "orders": 612,
        "top_categories": ["Electronics", "Office", "Tools"],
        "months": {"2023-10": 15102.4, "2023-11": 14877.1, "2023-12": 18231.25},
    }


LOG_EVENTS = [
    ("INFO", "inventory.cli", "command started command=report month=2024-03"),
    ("INFO", "inventory.storage", "query finished table=products rows={n} duration_ms={ms}"),
    ("DEBUG", "inventory.storage", "cache hit sku={sku}"),
    ("INFO", "inventory.http", "GET /api/products/{sku} status=200 duration_ms={ms}"),
    ("INFO", "inventory.http", "POST /api/orders status=201 duration_ms={ms}"),
    ("WARNING", "inventory.stock", "low stock sku={sku} stock={n}"),
    ("WARNING", "inventory.http", "GET /api/products/{sku} status=404 duration_ms={ms}"),
    ("ERROR", "inventory.storage", "database is locked retry={n} sku={sku}"),
    ("ERROR", "inventory.http", "POST /api/orders status=500 error=TimeoutError duration_ms={ms}"),
]
LOG_WEIGHTS = [6, 10, 8, 12, 5, 3, 2, 1, 1]


def _app_log(target_bytes: int = 150_000) -> str:
    """Timestamped log lines (about 150 KB) starting 2024-03-01, mostly INFO, a few ERRORs."""
    draw = Draw(7)
    weighted = [event for event, weight in zip(LOG_EVENTS, LOG_WEIGHTS, strict=True) for _ in range(weight)]
    millis = (FIXED_EPOCH + 60 * 86_400) * 1000
    lines: list[str] = []
    size = 0
    while size < target_bytes:
        millis += draw.between(50, 9_000)
        level, logger, template = draw.pick(weighted)
        stamp = datetime.fromtimestamp(millis // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        message = template.format(
            n=draw.between(1, 40),
            ms=draw.between(2, 900),
            sku=f"{draw.pick(list(CATEGORIES))}-{draw.between(1, 200):04d}",
        )
        line = f"{stamp}.{millis % 1000:03d}Z {level:<7} {logger:<18} {message}\n"
        lines.append(line)
        size += len(line)
    return "".join(lines)
