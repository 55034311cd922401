"""Prepare+discard and reset latency per environment kind, as a ratio to the plain baseline.

Baselines, measured interleaved in the same run: ``cp -a`` of the snapshot + ``rm -rf`` for the
file-backed kinds, ``createdb -T`` + ``dropdb`` for PostgreSQL. Target: ≤ 1.5× the baseline.

    .venv/bin/python benchmarks/env_reset.py [--iterations 40] [--no-postgres]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import interleaved, median_ms, save  # noqa: E402

from toolatlas.config import PostgresSettings  # noqa: E402
from toolatlas.environments import (  # noqa: E402
    DirectoryEnvironment,
    GitEnvironment,
    JsonFileEnvironment,
    SqliteEnvironment,
)
from toolatlas.home import Home  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402

FILE_KINDS = [
    ("directory", DirectoryEnvironment(), "demo.filesystem"),
    ("sqlite", SqliteEnvironment(), "demo.sqlite"),
    ("git", GitEnvironment(), "demo.git"),
    ("json_file", JsonFileEnvironment("memory.jsonl"), "demo.memory"),
]


def bench_file_kind(name, env, seed, work: Path, iterations: int) -> dict:
    snapshot = env.materialise(None, seed, work / "snapshots" / name)
    counter = iter(range(10**9))

    def ours() -> None:
        instance = env.prepare(snapshot, work / "slots" / f"{name}-{next(counter)}")
        env.discard(instance)

    def baseline() -> None:
        dest = work / "baseline" / f"{name}-{uuid.uuid4().hex}"
        subprocess.run(["cp", "-a", snapshot.path, str(dest)], check=True)
        subprocess.run(["rm", "-rf", str(dest)], check=True)

    (work / "baseline").mkdir(exist_ok=True)
    mine, theirs = interleaved(ours, baseline, iterations)
    instance = env.prepare(snapshot, work / "slots" / f"{name}-reset")
    reset_mine, reset_theirs = interleaved(lambda: env.reset(instance), baseline, iterations)
    env.discard(instance)
    return {
        "kind": name,
        "prepare_discard_ms": median_ms(mine),
        "baseline_ms": median_ms(theirs),
        "ratio": median_ms(mine) / median_ms(theirs),
        "reset_ms": median_ms(reset_mine),
        "reset_ratio": median_ms(reset_mine) / median_ms(reset_theirs),
        "baseline": "cp -a + rm -rf",
    }


def bench_postgres(home: Home, iterations: int) -> dict:
    from toolatlas.environments.pgcluster import PostgresCluster
    from toolatlas.environments.postgres import PostgresEnvironment

    cluster = PostgresCluster.for_settings(PostgresSettings(port=55499), home)
    cluster.ensure_running()
    env = PostgresEnvironment(cluster)
    snapshot = env.materialise(None, "demo.postgres", home.snapshots / "bench-postgres")
    bindir = cluster.bindir
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    connection = ["-h", cluster.host, "-p", str(cluster.port), "-U", "postgres"]
    counter = iter(range(10**9))

    def ours() -> None:
        instance = env.prepare(snapshot, home.instances / f"bench-pg-{next(counter)}")
        env.discard(instance)

    def baseline() -> None:
        name = f"bench_{uuid.uuid4().hex[:12]}"
        subprocess.run([*as_postgres, str(bindir / "createdb"), *connection, "-T", snapshot.path, name], check=True)
        subprocess.run([*as_postgres, str(bindir / "dropdb"), *connection, name], check=True)

    try:
        mine, theirs = interleaved(ours, baseline, iterations)
        instance = env.prepare(snapshot, home.instances / "bench-pg-reset")
        reset_mine, reset_theirs = interleaved(lambda: env.reset(instance), baseline, iterations)
        env.discard(instance)
    finally:
        env.close()
        cluster.stop()
    return {
        "kind": "postgres",
        "prepare_discard_ms": median_ms(mine),
        "baseline_ms": median_ms(theirs),
        "ratio": median_ms(mine) / median_ms(theirs),
        "reset_ms": median_ms(reset_mine),
        "reset_ratio": median_ms(reset_mine) / median_ms(reset_theirs),
        "baseline": "createdb -T + dropdb",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    configure_logging()
    home = Home.default().ensure()
    rows = []
    with tempfile.TemporaryDirectory(dir=home.instances) as tmp:
        work = Path(tmp)
        for name, env, seed in FILE_KINDS:
            rows.append(bench_file_kind(name, env, seed, work, args.iterations))
            print(f"  measured {name}", flush=True)
        shutil.rmtree(work / "baseline", ignore_errors=True)
    if not args.no_postgres:
        rows.append(bench_postgres(home, args.iterations))
    print(f"\nprepare+discard and reset vs baseline, median of {args.iterations} interleaved runs (target ratio <= 1.5)")
    print(f"{'kind':<10} {'ours ms':>8} {'base ms':>8} {'ratio':>6} {'reset ms':>9} {'ratio':>6}  baseline")
    for r in rows:
        verdict = "ok" if r["ratio"] <= 1.5 else "OVER"
        print(
            f"{r['kind']:<10} {r['prepare_discard_ms']:8.2f} {r['baseline_ms']:8.2f} {r['ratio']:6.2f} "
            f"{r['reset_ms']:9.2f} {r['reset_ratio']:6.2f}  {r['baseline']}  [{verdict}]"
        )
    print(f"\nsaved {save('env_reset', {'iterations': args.iterations, 'rows': rows})}")


if __name__ == "__main__":
    main()
