"""The messages of the guidance service, shared by the MCP tools, the HTTP API and the replicas.

One request model in (:class:`GuidanceRequest`, bounds included), small result models out, and
the settings one serving process is started with (:class:`ReplicaSettings`). The bounds are named
constants so that the MCP input schemas advertise the same limits the HTTP API enforces.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolatlas.guidance.atlas import CACHE_SIZE
from toolatlas.guidance.models import StrategyGuidance, TraceExemplar
from toolatlas.models import Frozen

__all__ = [
    "BUDGET_MAX",
    "DEFAULT_BUDGET",
    "DEFAULT_K_R",
    "DEFAULT_MAX_TOKENS",
    "K_R_MAX",
    "MAX_TOKENS_MAX",
    "MAX_TOKENS_MIN",
    "SEARCH_K_MAX",
    "TASK_MAX_CHARS",
    "GuidanceFormat",
    "GuidanceRequest",
    "GuidanceTokens",
    "Health",
    "ReadBudget",
    "ReplicaSettings",
    "SeedTraces",
    "ServerList",
    "ServerSummary",
    "StrategyList",
    "TaskText",
    "TraceList",
]

TASK_MAX_CHARS = 2000
"""Longest task description accepted (a task, not a document)."""
BUDGET_MAX = 64
"""Largest read budget B of one traversal."""
K_R_MAX = 16
"""Most seed traces k_r of one traversal."""
MAX_TOKENS_MIN, MAX_TOKENS_MAX = 50, 16_000
"""Bounds of the requested guidance size (approximate tokens)."""
SEARCH_K_MAX = 20
"""Most traces one ``search_traces`` returns."""


DEFAULT_BUDGET, DEFAULT_K_R, DEFAULT_MAX_TOKENS = 8, 3, 1200
"""The paper's defaults: B = 8 reads from k_r = 3 seed traces, guidance of ~1,200 tokens."""

TaskText = Annotated[
    str, Field(min_length=1, max_length=TASK_MAX_CHARS, description="What the agent is about to do, in plain words.")
]
ServerNames = Annotated[
    list[str] | None, Field(min_length=1, description="Only these servers (names from list_servers); default: all.")
]
ReadBudget = Annotated[int, Field(ge=1, le=BUDGET_MAX, description="How many atlas reads the traversal may make (B).")]
SeedTraces = Annotated[int, Field(ge=1, le=K_R_MAX, description="How many nearest traces the traversal starts from.")]
GuidanceTokens = Annotated[
    int, Field(ge=MAX_TOKENS_MIN, le=MAX_TOKENS_MAX, description="Approximate size limit of the guidance, in tokens.")
]
GuidanceFormat = Annotated[
    Literal["json", "text"], Field(description="The typed fields as JSON, or a compact text rendering for a prompt.")
]


class GuidanceRequest(Frozen):
    """``POST /v1/guidance`` and the ``get_guidance`` tool: a task and how much to read."""

    task: TaskText
    servers: ServerNames = None
    budget: ReadBudget = DEFAULT_BUDGET
    k_r: SeedTraces = DEFAULT_K_R
    max_tokens: GuidanceTokens = DEFAULT_MAX_TOKENS
    format: GuidanceFormat = "json"


class ServerSummary(Frozen):
    """One server of the atlas: its tools and how much experience it holds."""

    name: str
    tools: list[str]
    traces: int = 0
    strategies: int = 0


class ServerList(Frozen):
    """``GET /v1/servers`` and the ``list_servers`` tool: the valid server and tool names."""

    atlas: str
    servers: list[ServerSummary]


class TraceList(Frozen):
    """Traces, nearest first (``search_traces``) or a trace's neighbours (``expand``)."""

    traces: list[TraceExemplar]


class StrategyList(Frozen):
    """The strategies induced from a trace (``read_strategy``)."""

    strategies: list[StrategyGuidance]


class Health(Frozen):
    """``GET /v1/health``: what this serving process holds, and which process it is."""

    status: Literal["ok"] = "ok"
    atlas: str
    servers: int
    tools: int
    traces: int
    pid: int
    """The serving process (a uvicorn worker or a Ray Serve replica): tells replicas apart."""


class ReplicaSettings(Frozen):
    """How one serving process builds the service: the atlas snapshot it loads and the options.

    Crosses a process boundary (an environment variable for uvicorn workers, an init argument
    for Ray Serve replicas), so every replica serves the same snapshot with the same options.
    """

    snapshot: str
    """Path of the ``atlas.json`` export every replica loads (none of them opens the store)."""
    token: str | None = Field(None, repr=False)
    """Bearer token the HTTP service requires (``None``: open)."""
    host: str = "127.0.0.1"
    """Address the service listens on (decides which ``Host`` headers the MCP endpoint accepts)."""
    cache_size: int = Field(CACHE_SIZE, ge=0)
    """Guidance answers cached per replica (0: every answer computed)."""
    log_level: str | None = None
    """Log level of the replica (``None``: ``$TOOLATLAS_LOG_LEVEL`` or warning)."""
    log_json: bool | None = None
    """One JSON object per log line (``None``: ``$TOOLATLAS_LOG_JSON``)."""
    write_tokens: list[str] = Field(default_factory=list, repr=False)
    """Tokens that may report outcomes (``POST /v1/outcomes``, ``report_outcome``); none: write-back off."""
    outcomes: str | None = None
    """The queue file reports are appended to (:mod:`toolatlas.trust.outcomes`)."""
    reports_per_minute: int = Field(60, ge=1)
    """Reports a minute each write token may send (per serving process)."""
    mcp_sessions: bool = False
    """``/mcp`` keeps sessions (an ``mcp-session-id``, server-sent event streams, GET and DELETE);
    ``False``: stateless with JSON answers, so any process can answer any request."""
