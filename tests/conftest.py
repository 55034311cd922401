"""Shared fixtures: a throwaway ToolAtlas home per test session, the demo catalogue, and the wild
catalogue's fast subset built once for every test that reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.home import Home
from toolatlas.logs import configure_logging

configure_logging("info")

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture()
def tmp_home(tmp_path: Path) -> Home:
    """An empty ToolAtlas home for one test."""
    return Home(tmp_path / "home").ensure()


@pytest.fixture(scope="session")
def wild_fast_subset(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The wild catalogue's fast subset built offline once (recall and consistency tests read it)."""
    from toolatlas.testing.wild import FAST_SUBSET, build_wild

    return build_wild(tmp_path_factory.mktemp("wild") / "atlas", FAST_SUBSET)
