"""``GuidanceReplica``: the guidance service (HTTP API + MCP endpoint) as a Ray Serve deployment.

Each replica is a plain class that builds the same ASGI app as ``toolatlas serve`` from
:class:`ReplicaSettings`. Every replica loads the one snapshot named in the settings (an
``atlas.json`` export written once by the driver, or the export given), so no replica opens the
embedded store and none contends for its lock. On a multi-node cluster the snapshot path must be
readable on every node (shared storage).

Serve runs in its throughput-optimised mode with HAProxy ingress (:data:`SERVE_ENVIRONMENT`):
HAProxy on the service port spreads connections over the replicas, and each replica answers HTTP
itself. Serve's default path (its Python proxy, then an actor call into the replica) cost ~5 ms of
CPU per request on the 2-core benchmark machine — 8x the work of answering
(``benchmarks/guidance_load.py``). The variables must be in the environment of every Ray process:
a local instance started here inherits them; on a cluster, set them where ``ray start`` runs.

    toolatlas serve CONFIG --transport http --engine ray-serve --replicas 2 --port 8600
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

SERVE_ENVIRONMENT = {
    "RAY_SERVE_THROUGHPUT_OPTIMIZED": "1",
    "RAY_SERVE_ENABLE_HA_PROXY": "1",
    "RAY_SERVE_DIRECT_INGRESS_MIN_DRAINING_PERIOD_S": "5",
}
"""Ray Serve settings read when ``ray.serve`` is imported (defaults: a value already set wins). A
stopping replica is drained for 5 s (Serve's default is 30 s): ample for answers that take
milliseconds, and stopping the service takes seconds, not half a minute."""
for _name, _value in SERVE_ENVIRONMENT.items():
    os.environ.setdefault(_name, _value)

import ray  # noqa: E402
import structlog  # noqa: E402
from ray import serve  # noqa: E402
from starlette.types import ASGIApp  # noqa: E402

from toolatlas.errors import ToolAtlasError  # noqa: E402
from toolatlas.serve.models import ReplicaSettings  # noqa: E402
from toolatlas.serve.process import free_port  # noqa: E402
from toolatlas.serve.runner import app_from_settings  # noqa: E402

__all__ = [
    "APPLICATION",
    "SERVE_ENVIRONMENT",
    "GuidanceReplica",
    "free_serve_port",
    "guidance_application",
    "replica_port_ranges",
    "serve_on_ray",
    "start_serve",
]

log = structlog.get_logger(__name__)

APPLICATION = "toolatlas-guidance"
"""Name of the Serve application (and of its one deployment)."""
REPLICA_CPUS = 1.0
"""CPUs a replica reserves: answering is single-threaded, CPU-bound Python."""
SERVE_LOGGING = {"enable_access_log": False, "log_level": "WARNING"}
"""Serve writes an access-log line per request by default, in the proxy and the replica; the service
logs its own request lines at debug level instead (``toolatlas --log-level debug serve``)."""
MAX_ONGOING_REQUESTS = 64
"""Requests one replica takes at once (Serve's default of 5 starves a sub-millisecond async handler)."""


class GuidanceReplica:
    """One replica of the guidance service: the HTTP API and MCP endpoint over the shared snapshot."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = ReplicaSettings.model_validate(settings)

    def __serve_build_asgi_app__(self) -> ASGIApp:
        return app_from_settings(self.settings)


def guidance_application(settings: ReplicaSettings, *, replicas: int) -> serve.Application:
    """The Serve application: ``replicas`` copies of :class:`GuidanceReplica` behind Serve's proxy."""
    deployment = serve.deployment(
        serve.ingress()(GuidanceReplica),
        name=APPLICATION,
        num_replicas=replicas,
        max_ongoing_requests=MAX_ONGOING_REQUESTS,
        ray_actor_options={"num_cpus": REPLICA_CPUS},
        logging_config=SERVE_LOGGING,
    )
    return deployment.bind(settings.model_dump())


def start_serve(settings: ReplicaSettings, *, port: int, replicas: int) -> None:
    """Deploy the service on the connected Ray cluster, its proxy on ``settings.host:port``.

    Returns once every replica answers (Serve's HTTP proxy is then listening).
    """
    if replicas < 1:
        raise ToolAtlasError("--replicas must be at least 1")
    taken = next((r for r in replica_port_ranges() if port in r), None)
    if taken is not None:
        raise ToolAtlasError(f"port {port} is in {taken.start}-{taken.stop - 1}, where Ray Serve gives replicas their "
                             "own ports; choose another")
    cpus = ray.cluster_resources().get("CPU", 0)
    if replicas * REPLICA_CPUS > cpus:
        raise ToolAtlasError(f"{replicas} replica(s) need {replicas * REPLICA_CPUS:g} CPUs; "
                             f"the Ray cluster has {cpus:g}")
    started = time.monotonic()
    serve.start(http_options={"host": settings.host, "port": port}, logging_config=SERVE_LOGGING)
    serve.run(guidance_application(settings, replicas=replicas), name=APPLICATION, route_prefix="/")
    log.info("ray_serve_ready", replicas=replicas, port=port, seconds=round(time.monotonic() - started, 1))


def replica_port_ranges() -> list[range]:
    """The ports Serve hands its replicas (direct ingress HTTP and gRPC): the service port must be elsewhere."""
    from ray.serve._private import constants

    return [
        range(constants.RAY_SERVE_DIRECT_INGRESS_MIN_HTTP_PORT, constants.RAY_SERVE_DIRECT_INGRESS_MAX_HTTP_PORT + 1),
        range(constants.RAY_SERVE_DIRECT_INGRESS_MIN_GRPC_PORT, constants.RAY_SERVE_DIRECT_INGRESS_MAX_GRPC_PORT + 1),
    ]


def free_serve_port() -> int:
    """A free port for the service outside :func:`replica_port_ranges` (tests, benchmarks)."""
    return free_port(outside=replica_port_ranges())


def serve_on_ray(settings: ReplicaSettings, *, port: int, replicas: int, address: str | None = None) -> None:
    """``toolatlas serve --engine ray-serve``: connect to Ray (``address``, else ``$RAY_ADDRESS``, else
    a local instance), deploy, and serve until interrupted."""
    from toolatlas.confinement.reaper import ProcessReaper

    address = address or os.environ.get("RAY_ADDRESS")
    reaper = None
    if address:
        ray.init(address=address, log_to_driver=False)
    else:  # the local instance is ours: it goes when we do, however we go
        reaper = ProcessReaper()
        ray.init(address="local", include_dashboard=False, log_to_driver=False, _node_ip_address=os.environ.get("TOOLATLAS_RAY_NODE_IP"))
    signal.signal(signal.SIGTERM, _interrupt)  # a supervisor's stop shuts the deployment down cleanly too
    try:
        start_serve(settings, port=port, replicas=replicas)
        while True:
            time.sleep(3600)
    finally:
        serve.shutdown()
        ray.shutdown()
        if reaper is not None:
            reaper.stop()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
