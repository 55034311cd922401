"""The catalogue: a set of MCP servers plus build, store, LLM and PostgreSQL settings."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, PrivateAttr, model_validator

from toolatlas.config.servers import ServerSpec, Spec

__all__ = ["BuildSettings", "Catalogue", "LlmSettings", "PostgresSettings", "StoreSettings"]


class BuildSettings(Spec):
    """The method's knobs (paper Appendix B defaults) and the build's budgets."""

    seed_tasks_per_tool: int = Field(3, ge=1, description="k: seed tasks (chains) per tool in bootstrap")
    rollouts_per_task: int = Field(4, ge=1, description="N: rollouts per seed task")
    rounds: int = Field(3, ge=0, description="R: capability-exploration rounds")
    subgraph_size: int = Field(4, ge=1, description="K: related tools sampled per round")
    boundary_probes_per_tool: int = Field(3, ge=0, description="boundary probes per target tool per round")
    affordance_probes_per_tool: int = Field(3, ge=0, description="affordance probes per target tool per round")
    probe_budget_per_round: int = Field(200, ge=1, description="probes per server per round")
    executors_per_server: int = Field(1, ge=1, description="sandboxed executors per server")
    seed: int = Field(0, description="random seed: the same seed gives the same atlas")


class StoreSettings(Spec):
    """Where the atlas graph lives."""

    backend: Literal["edge", "local", "remote", "memory"] = "edge"
    path: str = ".toolatlas/atlas"
    url: str | None = None
    api_key_env: str | None = None


class LlmSettings(Spec):
    """An OpenAI-compatible endpoint. Absent: the offline backend runs every role."""

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = Field(60.0, gt=0)
    max_concurrency: int = Field(8, ge=1)
    role_models: dict[str, str] = Field(default_factory=dict, description="per-role model overrides")


class PostgresSettings(Spec):
    """The private PostgreSQL cluster ToolAtlas starts for ``postgres`` environments."""

    port: int = Field(55432, ge=1024, le=65535)
    host: str = "127.0.0.1"
    data_dir: str | None = Field(None, description="default: <toolatlas home>/postgres/<port>/data")
    bindir: str | None = Field(None, description="default: pg_config --bindir, or /usr/lib/postgresql/*/bin")
    os_user: str = Field("postgres", description="OS user that owns the cluster when ToolAtlas runs as root")


class Catalogue(Spec):
    """A catalogue of MCP servers; loaded from TOML by :func:`toolatlas.config.load_catalogue`."""

    version: Literal[1] = 1
    name: str = "catalogue"
    description: str = ""
    servers: list[ServerSpec] = Field(default_factory=list)
    build: BuildSettings = BuildSettings()
    store: StoreSettings = StoreSettings()
    llm: LlmSettings | None = None
    postgres: PostgresSettings = PostgresSettings()

    _source: Path | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _unique_names(self) -> Catalogue:
        seen: set[str] = set()
        for server in self.servers:
            if server.name in seen:
                raise ValueError(f"server name {server.name!r} is used more than once")
            seen.add(server.name)
        return self

    @property
    def source(self) -> Path | None:
        """The file this catalogue was loaded from (relative paths in it are relative to its folder)."""
        return self._source

    @property
    def base_dir(self) -> Path:
        return self._source.parent if self._source else Path.cwd()

    def resolve(self, relative: str) -> Path:
        """A path from the catalogue, resolved against the catalogue file's folder."""
        path = Path(relative).expanduser()
        return path if path.is_absolute() else (self.base_dir / path).resolve()

    def server(self, name: str) -> ServerSpec:
        for server in self.servers:
            if server.name == name:
                return server
        raise KeyError(name)

    @property
    def enabled_servers(self) -> list[ServerSpec]:
        return [s for s in self.servers if s.enabled]
