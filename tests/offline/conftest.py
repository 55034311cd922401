"""Shared fixtures of the offline-engine tests: the demo servers' real tool schemas and seed facts.

``toolspecs/*.json`` are ``ToolSpec`` dumps of the demo servers' ``tools/list`` (the postgres
dump without its bulky output schemas); the seeds are materialised once per session.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolatlas.environments import (
    DirectoryEnvironment,
    GitEnvironment,
    JsonFileEnvironment,
    SqliteEnvironment,
)
from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts, extract_facts

SPECS = Path(__file__).parent / "toolspecs"
SEEDS = {
    "filesystem": (DirectoryEnvironment(), "demo.filesystem"),
    "sqlite": (SqliteEnvironment(), "demo.sqlite"),
    "git": (GitEnvironment(), "demo.git"),
    "memory": (JsonFileEnvironment("memory.jsonl"), "demo.memory"),
}


class DemoTools:
    """The demo servers' dumped tool lists: ``demo_tools("git", "git_log")``, ``demo_tools.all("git")``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def all(self, server: str) -> list[ToolSpec]:
        return [ToolSpec(**raw) for raw in json.loads((self.folder / f"{server}.json").read_text())]

    def __call__(self, server: str, name: str) -> ToolSpec:
        return next(t for t in self.all(server) if t.name == name)


@pytest.fixture(scope="session")
def demo_tools() -> DemoTools:
    return DemoTools(SPECS)


@pytest.fixture(scope="session")
def seed_paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Server name → the materialised seed snapshot (a folder or a file)."""
    root = tmp_path_factory.mktemp("offline-seeds")
    return {
        server: Path(environment.materialise(None, seed, root / server).path)
        for server, (environment, seed) in SEEDS.items()
    }


@pytest.fixture(scope="session")
def seed_facts(seed_paths: dict[str, Path]) -> dict[str, EnvironmentFacts]:
    """Server name → facts of its seed (``time`` has none)."""
    facts = {server: extract_facts(SEEDS[server][0].kind, path) for server, path in seed_paths.items()}
    facts["time"] = extract_facts("none", None)
    return facts
