"""A build killed between any two of its durable writes, resumed (and killed again), ends with the atlas
of the build that was never interrupted — nothing lost, nothing counted twice."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from folders import copy_folder
from small_builds import REPO, ROUNDS, SERVERS, atlas, catalogue_at, planned_by_count

from toolatlas.config import Catalogue
from toolatlas.home import Home
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.store.paths import AtlasPaths, open_store
from toolatlas.testing.kills import BuildKilled, KillingSink
from toolatlas.workspace import Workspace


def build(catalogue: Catalogue, *, resume: bool = False, kill_at: int | None = None) -> KillingSink:
    """Build the servers (a sink that never kills, with ``kill_at`` None), planned by count as the build
    it extends (:func:`~small_builds.planned_by_count`); the sink, with its writes."""
    store = open_store(catalogue)
    sink = KillingSink(store, AtlasPaths(catalogue), kill_at)
    try:
        with planned_by_count():
            asyncio.run(build_catalogue(Workspace(catalogue, Home(REPO / ".toolatlas")), store, rounds=ROUNDS,
                                        resume=resume, servers=[catalogue.server(s) for s in SERVERS], sink=sink))
    finally:
        store.close()
    return sink


@pytest.fixture(scope="module")
def earlier(tmp_path_factory: pytest.TempPathFactory, small_build) -> tuple[Path, dict, int]:  # type: ignore[no-untyped-def]
    """An atlas an earlier build left (the one the killed builds extend), the atlas an uninterrupted
    second build makes of it, and how many durable writes that second build makes."""
    root = tmp_path_factory.mktemp("killed")
    small_build(root / "earlier")
    copy_folder(root / "earlier", root / "reference")
    reference = catalogue_at(root / "reference")
    writes = len((build(reference)).writes)
    return root / "earlier", atlas(reference), writes


def killed_and_resumed(earlier: Path, target: Path, rng: random.Random, writes: int) -> tuple[dict, list[int]]:
    """Extend a copy of ``earlier``: killed at a random write, resumed and maybe killed again, then
    resumed to the end; the atlas and the kill points."""
    copy_folder(earlier, target)
    catalogue = catalogue_at(target)
    kills = [rng.randrange(1, writes)]  # killed before its first write, a build has not begun: nothing to resume
    with pytest.raises(BuildKilled):
        build(catalogue, kill_at=kills[0])
    while rng.random() < 0.5:
        kills.append(rng.randrange(writes // 2 + 1))
        try:
            build(catalogue, resume=True, kill_at=kills[-1])
        except BuildKilled:
            continue
        break
    build(catalogue, resume=True)
    return atlas(catalogue), kills


class TestKilledBuild:
    def test_the_writes_include_every_step_of_every_round(self, earlier: tuple[Path, dict, int]) -> None:
        """The uninterrupted build writes an opening, then records, flush, coverage and checkpoint per round per server."""
        _path, expected, writes = earlier
        assert expected["entries"] and writes == len(SERVERS) * (1 + 4 * (ROUNDS + 1)) + 2

    # seeds 2 and 3 (8 s each), slow: more random kill points of the same resume
    @pytest.mark.parametrize("seed", [0, 1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)])
    def test_resumed_build_equals_the_uninterrupted_one(
        self, earlier: tuple[Path, dict, int], tmp_path: Path, seed: int
    ) -> None:
        """Killed at seeded random writes (once or more), the resumed build ends with the same records and counts."""
        path, expected, writes = earlier
        resumed, kills = killed_and_resumed(path, tmp_path / "atlas", random.Random(seed), writes)
        assert resumed == expected, f"kills at writes {kills}"

    @pytest.mark.slow
    @pytest.mark.timeout(3600)
    def test_resumed_build_equals_the_uninterrupted_one_at_many_points(
        self, earlier: tuple[Path, dict, int], tmp_path: Path
    ) -> None:
        """Killed at forty seeded random points in all: every resumed build ends with the uninterrupted atlas."""
        path, expected, writes = earlier
        rng = random.Random(21)
        for trial in range(40):
            resumed, kills = killed_and_resumed(path, tmp_path / f"atlas{trial}", rng, writes)
            assert resumed == expected, f"kills at writes {kills}"
