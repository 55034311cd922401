"""Sandboxed environments with snapshot and reset, one module per family of kinds.

:func:`environment_for` builds the environment a server's spec asks for; the PostgreSQL kind is
imported lazily (it needs a running cluster, which it starts on first use).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from toolatlas.config.servers import (
    CommandEnv,
    DirectoryEnv,
    EnvironmentSpec,
    GitEnv,
    JsonFileEnv,
    NoEnv,
    PostgresEnv,
    SqliteEnv,
)
from toolatlas.environments.base import (
    GENERATED_VALUES,
    Environment,
    FrozenState,
    Instance,
    Snapshot,
    StateDiff,
    StateDigest,
    render_template,
    render_value,
)
from toolatlas.environments.files import (
    DirectoryEnvironment,
    GitEnvironment,
    JsonFileEnvironment,
    SqliteEnvironment,
)
from toolatlas.environments.scratch import CommandEnvironment, NoEnvironment

if TYPE_CHECKING:
    from toolatlas.config.catalogue import PostgresSettings
    from toolatlas.home import Home

__all__ = [
    "GENERATED_VALUES",
    "CommandEnvironment",
    "DirectoryEnvironment",
    "Environment",
    "FrozenState",
    "GitEnvironment",
    "Instance",
    "JsonFileEnvironment",
    "NoEnvironment",
    "Snapshot",
    "SqliteEnvironment",
    "StateDiff",
    "StateDigest",
    "environment_for",
    "placeholders_for",
    "render_template",
    "render_value",
]


def environment_for(
    spec: EnvironmentSpec, *, base_dir: Path, home: Home, postgres: PostgresSettings | None = None
) -> Environment:
    """The environment implementation for one server's ``environment`` section."""
    match spec:
        case DirectoryEnv():
            return DirectoryEnvironment()
        case SqliteEnv():
            return SqliteEnvironment()
        case GitEnv():
            return GitEnvironment()
        case JsonFileEnv():
            return JsonFileEnvironment(spec.filename)
        case NoEnv():
            return NoEnvironment()
        case CommandEnv():
            return CommandEnvironment(spec, base_dir)
        case PostgresEnv():
            from toolatlas.config.catalogue import PostgresSettings
            from toolatlas.environments.pgcluster import PostgresCluster
            from toolatlas.environments.postgres import PostgresEnvironment

            cluster = PostgresCluster.for_settings(postgres or PostgresSettings(), home)
            return PostgresEnvironment(cluster)
    raise TypeError(f"no environment for {spec!r}")  # pragma: no cover - the union is closed


_INSTANCE_HOME = frozenset({"root", "home"})


def placeholders_for(spec: EnvironmentSpec) -> frozenset[str]:
    """The ``${name}`` placeholders a server's launch config may use on this kind of environment:
    what an instance of it fills, plus :data:`GENERATED_VALUES`."""
    match spec:
        case DirectoryEnv() | NoEnv():
            names = _INSTANCE_HOME
        case SqliteEnv():
            names = _INSTANCE_HOME | {SqliteEnvironment.variable}
        case GitEnv():
            names = _INSTANCE_HOME | {GitEnvironment.variable}
        case JsonFileEnv():
            names = _INSTANCE_HOME | {JsonFileEnvironment.variable}
        case CommandEnv():
            names = _INSTANCE_HOME | {"snapshot"}
        case PostgresEnv():
            names = _INSTANCE_HOME | {"database", "database_uri"}
        case _:  # pragma: no cover - the union is closed
            raise TypeError(f"no environment for {spec!r}")
    return frozenset(names | GENERATED_VALUES.keys())
