"""Real environment states for verifier tests: a seeded snapshot, and a post-state frozen after a change."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolatlas.environments import (
    DirectoryEnvironment,
    Environment,
    FrozenState,
    GitEnvironment,
    Instance,
    JsonFileEnvironment,
    Snapshot,
    SqliteEnvironment,
)


@dataclass(frozen=True)
class States:
    """A snapshot (the untouched initial state) and the state frozen after ``change`` ran on an instance."""

    environment: Environment
    initial: Snapshot
    post: FrozenState


StatesFactory = Callable[[str, Callable[[Path], None]], States]

_ENVIRONMENTS: dict[str, tuple[Callable[[], Environment], str]] = {
    "directory": (DirectoryEnvironment, "demo.filesystem"),
    "sqlite": (SqliteEnvironment, "demo.sqlite"),
    "git": (GitEnvironment, "demo.git"),
    "json_file": (lambda: JsonFileEnvironment("memory.jsonl"), "demo.memory"),
}


@pytest.fixture()
def make_states(tmp_path: Path) -> StatesFactory:
    """``make_states(kind, change)``: materialise the kind's demo seed, change an instance, freeze it."""

    def build(kind: str, change: Callable[[Path], None]) -> States:
        factory, seed = _ENVIRONMENTS[kind]
        environment = factory()
        snapshot = environment.materialise(None, seed, tmp_path / "snapshots" / kind)
        instance: Instance = environment.prepare(snapshot, tmp_path / "instances" / kind)
        change(Path(instance.variables["root"]))
        post = environment.freeze(instance, tmp_path / "frozen" / kind)
        return States(environment, snapshot, post)

    return build
