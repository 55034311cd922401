"""A catalogue of the in-library server that reports errors in text, as isError and not at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from reporting_kit import reporting_catalogue, started_executor

from toolatlas.config import Catalogue


@pytest.fixture()
def reporting(tmp_path: Path) -> Catalogue:
    return reporting_catalogue(tmp_path)


@pytest.fixture()
async def executor(reporting: Catalogue, tmp_path: Path):
    async with started_executor(reporting, tmp_path / "home") as running:
        yield running
