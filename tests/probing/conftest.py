"""A catalogue of the in-library server that reports errors in text, as isError and not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.config import Catalogue, parse_catalogue
from toolatlas.home import Home
from toolatlas.probing.executor import Executor
from toolatlas.testing import reporting_server_command
from toolatlas.workspace import Workspace


@pytest.fixture()
def reporting(tmp_path: Path) -> Catalogue:
    seed = tmp_path / "seed.json"
    seed.write_text('{"colour": "blue"}')
    command, args = reporting_server_command("--state", "${file}")
    server = {
        "name": "reporting",
        "transport": {"command": command, "args": args},
        "environment": {"kind": "json_file", "snapshot": str(seed)},
    }
    return parse_catalogue({"servers": [server]}, tmp_path / "catalogue.toml")


@pytest.fixture()
async def executor(reporting: Catalogue, tmp_path: Path):
    workspace = Workspace(reporting, Home(tmp_path / "home"))
    running = Executor(workspace.sandbox(reporting.server("reporting")), "test")
    await running.start()
    try:
        yield running
    finally:
        await running.close()
