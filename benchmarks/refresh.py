"""What a refresh saves: refresh of the demo catalogue after one tool changed, against a full rebuild
in the same run; and what ``verify`` costs against the build it checks.

The catalogue is the demo's five servers plus ``versioned`` (:mod:`toolatlas.testing.servers.versioned`)
at release 1, built whole (offline, in this process, the catalogue's rounds) into a fresh store. Then
``versioned`` moves to release 3, whose only change is one tool's interface (``add_note`` gains an
argument), and

1. **refresh** brings the first store up to date (:func:`toolatlas.lifecycle.refresh.refresh_catalogue`);
2. **rebuild** builds the changed catalogue whole into a second fresh store;
3. **verify** replays every served affordance and boundary of the rebuilt atlas.

Printed: probes and wall time of refresh against rebuild (goal: ≤ 0.2× the rebuild's probes), whether
the unchanged tools' knowledge after the refresh equals the rebuild's (entry ids and support: the
same seed gives the same entries), and verify's agreement and wall time against its build's.

    nice -n 10 .venv/bin/python benchmarks/refresh.py [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import save  # noqa: E402

from toolatlas.config import Catalogue, StoreSettings, load_catalogue  # noqa: E402
from toolatlas.graph.models import EntryStatus  # noqa: E402
from toolatlas.lifecycle.refresh import refresh_catalogue  # noqa: E402
from toolatlas.lifecycle.verify import verify_catalogue  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.pipeline.catalogue import build_catalogue  # noqa: E402
from toolatlas.store.paths import open_store  # noqa: E402
from toolatlas.testing.releases import release_catalogue  # noqa: E402
from toolatlas.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def catalogue_at(tmp: Path, release: int, store: Path) -> Catalogue:
    """The demo catalogue plus the ``versioned`` server at ``release``, its atlas in ``store``."""
    demo = load_catalogue(REPO / "configs" / "demo.toml")
    versioned = load_catalogue(release_catalogue(tmp / f"release-{release}", release)).server("versioned")
    return demo.model_copy(update={"servers": [*demo.servers, versioned],
                                   "store": StoreSettings(backend="edge", path=str(store))})


def knowledge(catalogue: Catalogue, servers: set[str]) -> dict[str, int]:
    """Active entry id → support, of ``servers``."""
    store = open_store(catalogue)
    try:
        return {e.id: e.support for e in store.all("entries") if e.server in servers and e.status is EntryStatus.ACTIVE}
    finally:
        store.close()


async def measure(tmp: Path, rounds: int | None) -> dict:
    first = catalogue_at(tmp, 1, tmp / "refreshed")
    store = open_store(first)
    try:
        t0 = time.perf_counter()
        built = await build_catalogue(Workspace(first), store, rounds=rounds)
        print(f"  first build: {built.probes} probes in {time.perf_counter() - t0:.1f}s", flush=True)
    finally:
        store.close()

    changed = catalogue_at(tmp, 3, tmp / "refreshed")
    store = open_store(changed)
    try:
        t0 = time.perf_counter()
        results = await refresh_catalogue(Workspace(changed), store, changed.servers, rounds=rounds)
        refresh_s = time.perf_counter() - t0
    finally:
        store.close()
    refresh_probes = sum(r.probes for r in results)
    fates = {tool: fate.value for r in results if r.plan for tool, fate in r.plan.fates.items() if fate.value != "kept"}
    print(f"  refresh: {refresh_probes} probes in {refresh_s:.1f}s ({fates})", flush=True)

    rebuilt = catalogue_at(tmp, 3, tmp / "rebuilt")
    store = open_store(rebuilt)
    try:
        t0 = time.perf_counter()
        report = await build_catalogue(Workspace(rebuilt), store, rounds=rounds)
        rebuild_s = time.perf_counter() - t0
        print(f"  rebuild: {report.probes} probes in {rebuild_s:.1f}s", flush=True)
        t0 = time.perf_counter()
        verified = await verify_catalogue(Workspace(rebuilt), store, rebuilt.servers)
        verify_s = time.perf_counter() - t0
    finally:
        store.close()

    unchanged = {s.name for s in changed.servers if s.name != "versioned"}
    mine, theirs = knowledge(changed, unchanged), knowledge(rebuilt, unchanged)
    same = mine == theirs
    agreed = sum(r.verdict == "agreed" for r in verified.replays)
    figures = {
        "refresh_probes": refresh_probes,
        "rebuild_probes": report.probes,
        "probe_ratio": round(refresh_probes / report.probes, 4),
        "refresh_seconds": round(refresh_s, 2),
        "rebuild_seconds": round(rebuild_s, 2),
        "time_ratio": round(refresh_s / rebuild_s, 3),
        "unchanged_entries": len(theirs),
        "unchanged_equal_to_rebuild": same,
        "fates": fates,
        "verify_replays": len(verified.replays),
        "verify_agreed": agreed,
        "verify_seconds": round(verify_s, 2),
        "verify_to_build_time": round(verify_s / rebuild_s, 3),
    }
    print(f"\nrefresh after one tool changed: {refresh_probes} probes vs {report.probes} for a rebuild "
          f"= {figures['probe_ratio']:.3f}x (goal <= 0.2x); wall {refresh_s:.1f}s vs {rebuild_s:.1f}s "
          f"= {figures['time_ratio']:.2f}x")
    print(f"unchanged servers' knowledge equal to the rebuild's: {same} ({len(mine)} vs {len(theirs)} active entries)")
    print(f"verify --all of the rebuilt atlas: {agreed}/{len(verified.replays)} agreed in {verify_s:.1f}s "
          f"= {figures['verify_to_build_time']:.2f}x its build's wall time")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=None, help="exploration rounds (default: the catalogue's)")
    args = parser.parse_args()
    configure_logging("warning")
    with tempfile.TemporaryDirectory(prefix="refresh-") as tmp:
        figures = asyncio.run(measure(Path(tmp), args.rounds))
    print(f"results: {save('refresh', figures)}")


if __name__ == "__main__":
    main()
