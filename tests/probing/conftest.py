"""A catalogue of the in-library server that reports errors in text, as isError and not at all."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from reporting_kit import reporting_catalogue, started_executor

from toolatlas.config import Catalogue
from toolatlas.probing.executor import Executor


@pytest.fixture()
def reporting(tmp_path: Path) -> Catalogue:
    return reporting_catalogue(tmp_path)


@pytest.fixture()
async def executor(reporting: Catalogue, tmp_path: Path):
    async with started_executor(reporting, tmp_path / "home") as running:
        yield running


@pytest_asyncio.fixture(scope="class", loop_scope="class")
async def class_executor(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Executor]:
    """One executor of the reporting server for a class's tests, which run on the class's event loop
    (``pytest.mark.asyncio(loop_scope="class")``): it restores the seeded state after every probe that
    changed it, as in a build, so each test's calls start from the seed as on a fresh executor."""
    folder = tmp_path_factory.mktemp("reporting")
    async with started_executor(reporting_catalogue(folder), folder / "home") as running:
        yield running
