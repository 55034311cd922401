"""Shared fixtures: a throwaway ToolAtlas home per test session, and the demo catalogue."""

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
