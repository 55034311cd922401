"""Catalogue models for one MCP server: runtime, transport, environment and limits."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

__all__ = [
    "CommandEnv",
    "CommandRuntime",
    "DirectoryEnv",
    "EnvironmentSpec",
    "GitEnv",
    "HttpTransport",
    "JsonFileEnv",
    "Limits",
    "Network",
    "NoEnv",
    "NpmRuntime",
    "PostgresEnv",
    "PypiRuntime",
    "RuntimeSpec",
    "SandboxSpec",
    "ServerSpec",
    "SmokeCall",
    "SqliteEnv",
    "StdioTransport",
    "TransportSpec",
]

_NPM_EXACT = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
_PEP440_EXACT = re.compile(r"^\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?$")
_SERVER_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")


class Spec(BaseModel):
    """Base for configuration models: unknown keys are errors (a typo must not be ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --- runtimes -------------------------------------------------------------------------------


class NpmRuntime(Spec):
    """A server published on npm, installed at a pinned version into its own local prefix."""

    kind: Literal["npm"]
    package: str
    version: str = Field(description="exact version, e.g. 2026.8.31 (no ranges: builds must be reproducible)")
    bin: str | None = Field(None, description="executable name; defaults to the package's only bin entry")

    @field_validator("version")
    @classmethod
    def _pinned(cls, value: str) -> str:
        if not _NPM_EXACT.match(value):
            raise ValueError(f"must be an exact version like 1.2.3, got {value!r}")
        return value


class PypiRuntime(Spec):
    """A server published on PyPI, installed at a pinned version into a venv of its own.

    Servers written for another major version of the ``mcp`` SDK crash when they share our
    environment, so each gets its own venv; ``requirements`` pins what it needs (e.g. ``mcp<2``).
    """

    kind: Literal["pypi"]
    package: str
    version: str
    requirements: list[str] = Field(default_factory=list, description="extra pip requirements installed beside it")
    no_deps: bool = Field(False, description="install the package without its declared dependencies")
    python: str | None = Field(None, description="interpreter version for the venv, e.g. '3.12' (default: ours)")
    entry: str | None = Field(None, description="console script to run; defaults to the package name")

    @field_validator("version")
    @classmethod
    def _pinned(cls, value: str) -> str:
        if not _PEP440_EXACT.match(value):
            raise ValueError(f"must be an exact version like 1.2.3, got {value!r}")
        return value

    @field_validator("python")
    @classmethod
    def _python_version(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^3\.\d+$", value):
            raise ValueError(f"must be a Python minor version like '3.12', got {value!r}")
        return value


class CommandRuntime(Spec):
    """A server that is already on this machine: the transport's command runs as given."""

    kind: Literal["command"]


RuntimeSpec = Annotated[NpmRuntime | PypiRuntime | CommandRuntime, Field(discriminator="kind")]


# --- transports ------------------------------------------------------------------------------


class StdioTransport(Spec):
    """Launch the server as a subprocess and speak MCP over its stdin/stdout.

    ``command`` may be omitted when the runtime provides the executable. ``args``, ``env`` and
    ``cwd`` may use ``${placeholders}`` filled from the environment instance (``${root}``,
    ``${db_path}``, ``${repo}``, ``${file}``, ``${database_uri}``, ``${home}``) .
    """

    kind: Literal["stdio"] = "stdio"
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None


class HttpTransport(Spec):
    """Connect to a running server over MCP streamable HTTP."""

    kind: Literal["http"]
    url: str
    headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"must be an http:// or https:// URL, got {value!r}")
        return value


TransportSpec = Annotated[StdioTransport | HttpTransport, Field(discriminator="kind")]


# --- environments ----------------------------------------------------------------------------


class _SnapshotSource(Spec):
    """Where an environment's snapshot comes from: a path (relative to the config file) or a seed."""

    snapshot: str | None = Field(None, description="path to the snapshot source, relative to the config file")
    seed: str | None = Field(None, description="name of a built-in deterministic seed generator, e.g. demo.filesystem")

    @model_validator(mode="after")
    def _one_source(self) -> _SnapshotSource:
        if (self.snapshot is None) == (self.seed is None):
            raise ValueError("give exactly one of 'snapshot' or 'seed'")
        return self


class DirectoryEnv(_SnapshotSource):
    """A directory tree; the instance is a private copy. Placeholder: ``${root}``."""

    kind: Literal["directory"]


class SqliteEnv(_SnapshotSource):
    """One SQLite database file (snapshot: a .db file, or a .sql script). Placeholder: ``${db_path}``."""

    kind: Literal["sqlite"]


class GitEnv(_SnapshotSource):
    """A git repository with its history and refs. Placeholder: ``${repo}``."""

    kind: Literal["git"]


class JsonFileEnv(_SnapshotSource):
    """A service whose whole state is one JSON or JSON-lines file. Placeholder: ``${file}``."""

    kind: Literal["json_file"]
    filename: str = "state.json"


class PostgresEnv(_SnapshotSource):
    """A PostgreSQL database cloned from a template database (snapshot: a .sql script).

    Placeholders: ``${database_uri}``, ``${database}``. The cluster is the one in the
    catalogue's ``[postgres]`` section, started by ToolAtlas when needed.
    """

    kind: Literal["postgres"]


class CommandEnv(Spec):
    """An environment driven by user commands (run with ``sh -c``, placeholders allowed).

    ``prepare`` must create the instance state under ``${root}`` from ``${snapshot}``;
    ``digest`` (optional) prints ``key<TAB>value`` lines describing the state, so verifiers can
    diff it; ``discard`` (optional) releases anything outside ``${root}``.
    """

    kind: Literal["command"]
    snapshot: str | None = Field(None, description="path handed to the commands as ${snapshot}")
    prepare: str
    digest: str | None = None
    discard: str | None = None
    timeout_s: float = Field(60.0, gt=0)


class NoEnv(Spec):
    """No state: the server gets a scratch directory (``${root}``) and nothing is snapshotted."""

    kind: Literal["none"] = "none"


EnvironmentSpec = Annotated[
    DirectoryEnv | SqliteEnv | GitEnv | JsonFileEnv | PostgresEnv | CommandEnv | NoEnv,
    Field(discriminator="kind"),
]


# --- limits and the server -------------------------------------------------------------------


class Limits(Spec):
    """Per-server bounds. Every wait on the server has one of these timeouts."""

    call_timeout_s: float = Field(20.0, gt=0, description="one tools/call, start to answer")
    start_timeout_s: float = Field(60.0, gt=0, description="process start plus MCP initialize")
    list_timeout_s: float = Field(20.0, gt=0, description="tools/list")
    max_output_bytes: int = Field(16_384, gt=0, description="excerpt kept per call result")
    max_message_bytes: int = Field(8 * 1024 * 1024, gt=0, description="largest JSON-RPC line accepted")
    concurrency: int = Field(4, gt=0, description="calls in flight on one server session")
    max_restarts: int = Field(5, ge=0, description="consecutive failed starts before the server is given up")
    # -- what the OS sandbox allows the server process (see toolatlas.confinement) --------------
    memory_mb: int = Field(4096, ge=64, description="address space of each process (RLIMIT_AS), MiB")
    cpu_s: int = Field(
        60, gt=0, description="CPU seconds a server may use per call window (soft RLIMIT_CPU, renewed as calls arrive)"
    )
    cpu_lifetime_s: int = Field(
        3600, gt=0, description="CPU seconds one server process may use in all (hard RLIMIT_CPU; a restart renews it)"
    )
    open_files: int = Field(1024, ge=32, description="open file descriptors per process (RLIMIT_NOFILE)")
    processes: int = Field(256, ge=8, description="processes and threads in the sandbox together")
    file_size_mb: int = Field(1024, gt=0, description="largest file the server may write (RLIMIT_FSIZE), MiB")


class SmokeCall(Spec):
    """A known-good call used by ``toolatlas demo`` / health checks; placeholders allowed in string args."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


Network = Literal["none", "loopback", "host"]
"""What a sandboxed server may reach: ``none`` (no socket of an internet family at all), ``loopback`` (a
loopback interface of its own: it can talk to itself, never to this machine's services) or ``host``
(this machine's network, and through it anything it can reach)."""


class SandboxSpec(Spec):
    """How a stdio server is confined (see ``toolatlas.confinement``): on by default, opt out explicitly."""

    enabled: bool = Field(
        True, description="run the server in the OS sandbox; false runs it unconfined, with a warning in the build output"
    )
    read_only: list[str] = Field(
        default_factory=list,
        description="more paths the server may read (absolute, or relative to the catalogue file), e.g. a data folder",
    )


class ServerSpec(Spec):
    """One MCP server of a catalogue and the sandbox it runs against."""

    name: str
    description: str = ""
    runtime: RuntimeSpec = CommandRuntime(kind="command")
    transport: TransportSpec = StdioTransport()
    environment: EnvironmentSpec = NoEnv()
    limits: Limits = Limits()
    sandbox: SandboxSpec = SandboxSpec()
    network: Network = Field(
        "none", validate_default=True, description="what the server may reach from its sandbox: none, loopback or host"
    )
    smoke: SmokeCall | None = None
    restart_on_reset: bool | None = Field(
        None,
        description="restart the server after every environment reset (default: the environment kind decides)",
    )
    enabled: bool = True
    tags: list[str] = Field(default_factory=list)
    docs: list[str] = Field(
        default_factory=list,
        description=(
            "usage documentation (files or globs, relative to the catalogue file) the LLM task proposer "
            "quotes snippets from, e.g. the server's README"
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _stdio_by_default(cls, data: Any) -> Any:
        transport = data.get("transport") if isinstance(data, dict) else None
        if isinstance(transport, dict) and "kind" not in transport:
            data = {**data, "transport": {"kind": "stdio", **transport}}
        return data

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _SERVER_NAME.match(value):
            raise ValueError("must be lowercase letters, digits, '-' or '_' (max 63), starting with a letter or digit")
        return value

    @model_validator(mode="after")
    def _command_known(self) -> ServerSpec:
        if (
            isinstance(self.transport, StdioTransport)
            and self.transport.command is None
            and isinstance(self.runtime, CommandRuntime)
        ):
            raise ValueError("transport.command is required when runtime.kind is 'command'")
        if isinstance(self.transport, HttpTransport) and not isinstance(self.runtime, CommandRuntime):
            raise ValueError("an http transport connects to a running server; use runtime.kind = 'command'")
        return self

    @field_validator("network")
    @classmethod
    def _database_reachable(cls, value: str, info: ValidationInfo) -> str:
        environment, sandbox = info.data.get("environment"), info.data.get("sandbox")
        if isinstance(environment, PostgresEnv) and value != "host" and (sandbox is None or sandbox.enabled):
            raise ValueError(
                "a postgres environment is a database the server reaches over TCP on this machine; "
                'set network = "host"'
            )
        return value
