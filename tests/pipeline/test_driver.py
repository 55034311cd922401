"""The build's driver over a placement that loses servers: a lost round is run again from the last
durable start, and the atlas is the one a build that lost nothing makes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from small_builds import REPO, ROUNDS, SERVERS, atlas, catalogue_at, planned_by_count

from toolatlas.config import Catalogue
from toolatlas.home import Home
from toolatlas.pipeline.driver import CatalogueBuild
from toolatlas.pipeline.local import LocalPlacement, StoreWriter
from toolatlas.pipeline.persistence import StoreSink
from toolatlas.store.paths import AtlasPaths, open_store
from toolatlas.testing.placements import LosingPlacement
from toolatlas.workspace import Workspace


def losing_build(catalogue: Catalogue, losses: list[tuple[str, int]], lose_opening: tuple[str, ...] = ()):
    """Build the servers with the driver over a placement that loses ``losses``; the driver and placement."""
    store = open_store(catalogue)
    workspace = Workspace(catalogue, Home(REPO / ".toolatlas"))
    sink = StoreSink(store, AtlasPaths(catalogue))
    placement = LosingPlacement(LocalPlacement(workspace, rounds=ROUNDS), losses, lose_opening=lose_opening)
    driver = CatalogueBuild(catalogue, placement, sink, StoreWriter(sink), rounds=ROUNDS)
    try:
        with planned_by_count():  # as the reference it is compared with
            asyncio.run(driver.run([catalogue.server(s) for s in SERVERS]))
    finally:
        store.close()
    return driver, placement


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, small_build) -> dict:  # type: ignore[no-untyped-def]
    """The atlas of the build that lost nothing."""
    return atlas(catalogue_at(small_build(tmp_path_factory.mktemp("driver") / "reference")))


class TestLostRounds:
    def test_lost_rounds_are_run_again_to_the_same_atlas(self, reference: dict, tmp_path: Path) -> None:
        """Rounds lost after their work was done (the first, a later one, one twice) are redone: same records, same counts."""
        catalogue = catalogue_at(tmp_path / "lossy")
        losses = [("memory", 0), ("memory", 2), ("time", 1), ("time", 1)]
        driver, placement = losing_build(catalogue, losses)
        assert placement.lost == driver.redone and sorted(driver.redone) == sorted(losses)
        assert driver.statuses == {"memory": "ok", "time": "ok"}
        assert atlas(catalogue) == reference

    def test_a_server_lost_whenever_it_is_placed_fails_alone(self, reference: dict, tmp_path: Path) -> None:
        """A server whose worker is lost at every opening is reported failed with a coverage row; the other is built."""
        catalogue = catalogue_at(tmp_path / "unplaceable")
        driver, _ = losing_build(catalogue, [], lose_opening=("time",))
        assert driver.statuses["memory"] == "ok"
        assert driver.statuses["time"].startswith("failed") and "lost" in driver.statuses["time"]
        store = open_store(catalogue)
        try:
            assert {n.server for n in store.all("tools")} == {"memory"}
        finally:
            store.close()
