"""The catalogue: a set of MCP servers plus build, store, LLM and PostgreSQL settings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, PrivateAttr, field_validator, model_validator

from toolatlas.config.servers import ServerSpec, Spec
from toolatlas.errors import ToolAtlasError

__all__ = [
    "AblationSettings",
    "MethodSettings",
    "BuildSettings",
    "Catalogue",
    "EmbedderSettings",
    "LLM_ROLES",
    "LlmSettings",
    "ModelPrice",
    "PostgresSettings",
    "StoreSettings",
    "TrustSettings",
]


class AblationSettings(Spec):
    """Switches that remove one part of the method, for evaluation (paper Table 4); all on by default.

    ``boundary_probes`` / ``affordance_probes`` act at build time (no probes or probe tasks of that
    direction, offline or LLM); ``capability_layer`` / ``strategy_layer`` at build time (nothing
    written to that layer) and at guidance time (nothing served from it); ``traversal`` at guidance
    time (static top-k tool retrieval instead of Dynamic Memory Traversal).
    """

    boundary_probes: bool = True
    affordance_probes: bool = True
    capability_layer: bool = True
    strategy_layer: bool = True
    traversal: bool = True


class MethodSettings(Spec):
    """The LLM method's rollouts and task sources (used only when an ``[llm]`` endpoint is configured)."""

    agent: Literal["react", "codeact", "switchact"] = Field(
        "switchact", description="the rollout agent (the paper's default: SwitchAct, both interfaces)"
    )
    max_turns: int = Field(12, ge=1, description="agent turns per rollout")
    rollout_timeout_s: float = Field(180.0, gt=0, description="wall time per rollout")
    chain_tasks_per_server: int = Field(6, ge=0, description="verified offline chains written up as seed tasks")
    exploratory_temperatures: list[float] = Field(
        default_factory=lambda: [0.2, 0.5, 0.8],
        description="rollouts after the first (which runs at temperature 0), in turn (paper 004's exploratory range)",
    )


class BuildSettings(Spec):
    """The method's knobs (paper Appendix B defaults) and the build's budgets."""

    seed_tasks_per_tool: int = Field(3, ge=1, le=1000, description="k: seed tasks (chains) per tool in bootstrap")
    rollouts_per_task: int = Field(4, ge=1, le=1000, description="N: rollouts per seed task")
    rounds: int = Field(3, ge=0, le=1000, description="R: capability-exploration rounds")
    subgraph_size: int = Field(6, ge=1, le=1000, description="K: related tools sampled per round")
    boundary_probes_per_tool: int = Field(3, ge=0, le=10_000, description="boundary probes per target tool per round")
    affordance_probes_per_tool: int = Field(3, ge=0, le=10_000, description="affordance probes per target tool per round")
    probe_budget_per_round: int = Field(200, ge=1, le=1_000_000, description="probes per server per round")
    executors_per_server: int = Field(1, ge=1, le=256, description="sandboxed executors per server")
    seed: int = Field(0, description="random seed: the same seed gives the same atlas")
    plan_by: Literal["time", "count"] = Field(
        "time",
        description="time: a costly tool's probes are held to its share of the build's time (a plan then follows "
        "what calls cost on this machine); count: probes are planned by count alone, the same atlas from the "
        "same seed on any machine, however slow a tool",
    )
    method: MethodSettings = MethodSettings()
    ablation: AblationSettings = AblationSettings()

    @property
    def boundary_per_tool(self) -> int:
        """Boundary probes per target tool per round, after the ablation switch."""
        return self.boundary_probes_per_tool if self.ablation.boundary_probes else 0

    @property
    def affordance_per_tool(self) -> int:
        """Affordance probes per target tool per round, after the ablation switch."""
        return self.affordance_probes_per_tool if self.ablation.affordance_probes else 0


class EmbedderSettings(Spec):
    """How texts become vectors: always a lexical (BM25-style sparse) vector, and optionally a dense one."""

    dense: Literal["none", "sentence", "openai"] = Field(
        "none",
        description="sentence: local all-MiniLM-L6-v2 (the 'dense' extra); openai: an embeddings endpoint",
    )
    model: str | None = Field(None, description="openai: the embedding model id")
    base_url: str | None = Field(None, description="openai: OpenAI-compatible endpoint (default: OpenAI's)")
    api_key_env: str | None = Field("OPENAI_API_KEY", description="openai: variable holding the API key")
    dimensions: int | None = Field(None, gt=0, description="openai: vector size (default: one probe call)")
    timeout_s: float = Field(30.0, gt=0, description="openai: seconds per embeddings request")
    avg_doc_len: float = Field(40.0, gt=0, description="assumed mean document length in terms (BM25 b-norm)")

    @model_validator(mode="after")
    def _openai_needs_model(self) -> EmbedderSettings:
        if self.dense == "openai" and not self.model:
            raise ValueError("dense = 'openai' needs a model")
        return self


class StoreSettings(Spec):
    """Where the atlas graph lives and how its texts are embedded."""

    backend: Literal["edge", "local", "remote", "memory"] = Field(
        "edge",
        description="edge: Qdrant Edge in-process (default); local: qdrant-client on disk; "
        "remote: a Qdrant server at url; memory: qdrant-client in memory (tests)",
    )
    path: str = Field(".toolatlas/atlas", description="edge/local: the atlas folder (default: .toolatlas/atlas/<catalogue name>)")
    url: str | None = Field(None, description="remote: the Qdrant server URL")
    api_key_env: str | None = Field(None, description="remote: variable holding the Qdrant API key")
    embedder: EmbedderSettings = EmbedderSettings()

    @model_validator(mode="after")
    def _remote_needs_url(self) -> StoreSettings:
        if self.backend == "remote" and not self.url:
            raise ValueError("backend = 'remote' needs a url")
        return self


LLM_ROLES: tuple[str, ...] = ("proposer", "decompiler", "verifier", "agent", "inducer", "navigator")
"""The roles an LLM can play in a build (keys of ``role_models`` / ``role_temperatures``).

proposer: seed and probe tasks; decompiler: verified chains written up as tasks; verifier:
executable verifiers; agent: ReAct / CodeAct / SwitchAct rollouts; inducer: trace reflection,
capability and strategy aggregation; navigator: memory traversal and guidance compression.
"""


class ModelPrice(Spec):
    """What one model costs, in currency units (USD by convention) per million tokens."""

    input_per_1m: float = Field(ge=0, description="price of 1M prompt tokens")
    output_per_1m: float = Field(ge=0, description="price of 1M completion tokens")

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_1m + completion_tokens * self.output_per_1m) / 1_000_000


class LlmSettings(Spec):
    """An OpenAI-compatible endpoint. Absent: the offline backend runs every role."""

    base_url: str = Field(description="e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1 (vLLM)")
    model: str = Field(description="the default model id for every role")
    api_key_env: str = Field("OPENAI_API_KEY", description="variable holding the API key (local: unset)")
    timeout_s: float = Field(60.0, gt=0, description="seconds per HTTP request (one attempt)")
    max_concurrency: int = Field(8, ge=1, description="requests in flight to base_url, all roles")
    max_retries: int = Field(4, ge=0, description="retries on 429, 5xx, timeouts and connection errors")
    backoff_base_s: float = Field(0.5, gt=0, description="first backoff; doubles per retry (with jitter)")
    backoff_cap_s: float = Field(20.0, gt=0, description="longest backoff between two retries")
    structured_output_retries: int = Field(
        2, ge=0, description="re-asks with the validation error after a malformed structured answer"
    )
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = Field(
        "max_tokens",
        description="the request field that caps the answer (OpenAI reasoning models: max_completion_tokens)",
    )
    role_models: dict[str, str] = Field(default_factory=dict, description="per-role model overrides")
    role_temperatures: dict[str, float] = Field(
        default_factory=dict, description="per-role default temperature (a call may override it)"
    )
    prices: dict[str, ModelPrice] = Field(default_factory=dict, description="per-model prices")
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="extra JSON fields sent with every request (e.g. reasoning_effort)"
    )

    @field_validator("role_models", "role_temperatures")
    @classmethod
    def _known_roles(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(value) - set(LLM_ROLES))
        if unknown:
            names = ", ".join(map(repr, unknown))
            raise ValueError(f"unknown role(s) {names}; roles are {', '.join(LLM_ROLES)}")
        return value

    @field_validator("role_temperatures")
    @classmethod
    def _temperature_range(cls, value: dict[str, float]) -> dict[str, float]:
        for role, temperature in value.items():
            if not 0.0 <= temperature <= 2.0:
                raise ValueError(f"{role}: temperature must be between 0 and 2, got {temperature}")
        return value

    def model_for(self, role: str) -> str:
        """The model a role uses: its override, else the default model."""
        return self.role_models.get(role, self.model)


class PostgresSettings(Spec):
    """The private PostgreSQL cluster ToolAtlas starts for ``postgres`` environments."""

    port: int = Field(55432, ge=1024, le=65535)
    host: str = "127.0.0.1"
    data_dir: str | None = Field(None, description="default: <toolatlas home>/postgres/<port>/data")
    bindir: str | None = Field(None, description="default: pg_config --bindir, or /usr/lib/postgresql/*/bin")
    os_user: str = Field("postgres", description="OS user that owns the cluster when ToolAtlas runs as root")


class TrustSettings(Spec):
    """What a deployment of this catalogue trusts, and what its published exports leave out."""

    keys: list[str] = Field(
        default_factory=list,
        description="public keys (KEY.pub files, relative to this file): an exported atlas given to guide, serve "
                    "or proxy with --atlas is loaded only when signed by one of them (as --trust)",
    )
    redact: list[str] = Field(
        default_factory=list,
        description="values `export --redact` replaces wherever they occur, besides the paths, hosts, addresses, "
                    "e-mail addresses and credentials it finds itself",
    )


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
    trust: TrustSettings = TrustSettings()

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

    @property
    def atlas_dir(self) -> Path:
        """Where this catalogue's atlas lives: ``[store] path``, or, when the catalogue does not
        say, ``.toolatlas/atlas/<catalogue name>`` beside it (two catalogues in one folder do not
        share an atlas)."""
        if "path" in self.store.model_fields_set:
            return self.resolve(self.store.path)
        slug = "".join(c if c.isalnum() or c in "-_" else "_" for c in self.name).strip("_") or "catalogue"
        return self.resolve(self.store.path) / slug

    def server(self, name: str) -> ServerSpec:
        for server in self.servers:
            if server.name == name:
                return server
        raise KeyError(name)

    @property
    def enabled_servers(self) -> list[ServerSpec]:
        return [s for s in self.servers if s.enabled]

    def servers_named(self, names: Sequence[str] | None) -> list[ServerSpec]:
        """The servers ``names`` names (every enabled server when there are none); an error listing the
        catalogue's servers when one is not in it."""
        if not names:
            return self.enabled_servers
        known = {s.name for s in self.servers}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ToolAtlasError(f"unknown server(s) {', '.join(unknown)}; the catalogue has "
                                 f"{', '.join(s.name for s in self.servers)}")
        return [self.server(n) for n in names]
