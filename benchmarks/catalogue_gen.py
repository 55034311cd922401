"""Write a generated catalogue of N stateful MCP servers (and their seed states) for scale runs.

Kinds (notes, kv, todo, inventory, counter) cycle round-robin; each server is its own variant
and runs as a real process over stdio against a ``json_file`` environment. The catalogue loads
like any other and builds with ``toolatlas build DEST/catalogue.toml``.

    .venv/bin/python benchmarks/catalogue_gen.py 120 /tmp/stateful-120 [--seed 0]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from toolatlas.config import load_catalogue
from toolatlas.testing.catalogues import generate_catalogue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("n", type=int, help="number of servers")
    parser.add_argument("dest", type=Path, help="folder to write catalogue.toml and seeds/ into")
    parser.add_argument(
        "--seed", type=int, default=0, help="another seed gives other variants and other seed states"
    )
    args = parser.parse_args()
    if args.n < 1:
        parser.error("n must be at least 1")
    path = generate_catalogue(args.n, args.dest, seed=args.seed)
    catalogue = load_catalogue(path)
    kinds = sorted({tag for server in catalogue.servers for tag in server.tags if tag != "generated"})
    print(
        f"{path}: {len(catalogue.servers)} servers ({', '.join(kinds)}), "
        f"seed states in {path.parent / 'seeds'}"
    )


if __name__ == "__main__":
    main()
