"""Ablation switches (``[build.ablation]``): each removes its part of the method, and only that part.

Real offline builds of the demo time server (bootstrap + three exploration rounds), with and
without each switch, compared on what they planned and stored.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from toolatlas.config import AblationSettings, StoreSettings, load_catalogue
from toolatlas.guidance import Atlas, StaticNavigator
from toolatlas.home import Home
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.pipeline.server import ServerBuild
from toolatlas.probing.models import Direction
from toolatlas.store.paths import open_store
from toolatlas.workspace import Workspace

pytestmark = pytest.mark.servers

REPO = Path(__file__).resolve().parents[2]


def build(**switches: bool):
    """One time-server build with the given switches: the directions it ran per round, and its graph."""
    demo = load_catalogue(REPO / "configs" / "demo.toml")
    settings = demo.build.model_copy(update={"ablation": AblationSettings(**switches)})
    catalogue = demo.model_copy(update={"build": settings})
    ran: list[tuple[int, Direction]] = []
    server = ServerBuild(
        Workspace(catalogue, Home(REPO / ".toolatlas")),
        catalogue.server("time"),
        settings,
        on_probe=lambda rollout, verdict, delta: ran.append((rollout.probe.round, rollout.probe.direction)),
        rounds=3,
    )
    asyncio.run(server.run())
    return ran, server.shard.graph


@pytest.fixture(scope="module")
def full():
    return build()


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A time-server atlas (bootstrap + three rounds) in a fresh store; the catalogue that points at it."""
    demo = load_catalogue(REPO / "configs" / "demo.toml")
    catalogue = demo.model_copy(
        update={"store": StoreSettings(backend="edge", path=str(tmp_path_factory.mktemp("atlas")))}
    )
    store = open_store(catalogue)
    try:
        asyncio.run(build_catalogue(Workspace(catalogue, Home(REPO / ".toolatlas")), store,
                                    servers=[catalogue.server("time")], rounds=3))
    finally:
        store.close()
    return catalogue


class TestBuildTimeSwitches:
    def test_the_full_method_explores_both_directions_and_distils_strategies(self, full):
        """The baseline the switches are measured against: round 1 has boundary and affordance probes."""
        ran, graph = full
        directions = {d for r, d in ran if r >= 1}
        assert {Direction.BOUNDARY, Direction.AFFORDANCE} <= directions
        assert graph.strategies

    def test_without_boundary_probes_no_round_explores_outward(self):
        """boundary_probes = false: no boundary probe after bootstrap, affordances still explored."""
        ran, _graph = build(boundary_probes=False)
        directions = {d for r, d in ran if r >= 1}
        assert Direction.BOUNDARY not in directions
        assert Direction.AFFORDANCE in directions

    def test_without_affordance_probes_no_round_explores_inward(self):
        """affordance_probes = false: no affordance probe after bootstrap, boundaries still explored."""
        ran, _graph = build(affordance_probes=False)
        directions = {d for r, d in ran if r >= 1}
        assert Direction.AFFORDANCE not in directions
        assert Direction.BOUNDARY in directions

    def test_without_the_strategy_layer_no_strategy_is_distilled(self):
        """strategy_layer = false: traces are still written, strategies are not."""
        _ran, graph = build(strategy_layer=False)
        assert graph.traces and not graph.strategies


class TestGuidanceTimeSwitches:
    @staticmethod
    def opened(catalogue, **switches: bool) -> Atlas:
        build = catalogue.build.model_copy(update={"ablation": AblationSettings(**switches)})
        return Atlas.open(catalogue.model_copy(update={"build": build}))

    def test_the_full_atlas_serves_entries_strategies_and_traverses(self, stored):
        """The baseline: entries and strategies are served, and the walk reads traces."""
        atlas = self.opened(stored)
        assert not isinstance(atlas.navigator, StaticNavigator)
        assert atlas.view.entries and atlas.view.strategies
        guidance = atlas.guide("What time is it in Tokyo when it is 9am in New York?")
        assert any(step.operation == "read_trace" for step in guidance.trail)

    def test_without_the_capability_layer_no_entry_is_served(self, stored):
        atlas = self.opened(stored, capability_layer=False)
        assert not atlas.view.entries
        guidance = atlas.guide("What time is it in Tokyo when it is 9am in New York?")
        assert guidance.tools and not any(t.when or t.when_not or t.compositions for t in guidance.tools)

    def test_without_the_strategy_layer_no_strategy_is_served(self, stored):
        atlas = self.opened(stored, strategy_layer=False)
        assert not atlas.view.strategies
        assert not atlas.guide("What time is it in Tokyo when it is 9am in New York?").strategies

    def test_without_traversal_the_static_reader_answers(self, stored):
        """traversal = false: only tools are read, no trace or strategy is followed."""
        atlas = self.opened(stored, traversal=False)
        assert isinstance(atlas.navigator, StaticNavigator)
        guidance = atlas.guide("What time is it in Tokyo when it is 9am in New York?")
        assert guidance.trail and {step.operation for step in guidance.trail} == {"read_tool"}
