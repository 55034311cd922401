"""The guidance service as a Ray Serve deployment on a real local Ray instance.

Two replicas load one snapshot written by the driver (none opens the store); requests reach them
through Serve's HTTP proxy, over the HTTP API and the MCP endpoint alike.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from service_process import TASKS, TOKEN, BuiltAtlas, mcp_over_http, pids_answering

from toolatlas.errors import ToolAtlasError
from toolatlas.guidance import Guidance
from toolatlas.serve import ReplicaSettings, write_snapshot

ray = pytest.importorskip("ray")

from toolatlas.actors.serve import free_serve_port, replica_port_ranges, start_serve  # noqa: E402

pytestmark = pytest.mark.servers

REPLICAS = 2
HEADERS = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def deployment(built: BuiltAtlas, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Two replicas behind Serve's proxy on a free port; the URL. The local Ray instance is shut down at
    the end, and Serve's actors with it: a graceful ``serve.shutdown()`` first would only wait (~6 s)
    for the replicas that instance stops anyway."""
    snapshot = write_snapshot(built.atlas, Path(tmp_path_factory.mktemp("ray-serve")) / "atlas.json")
    port = free_serve_port()
    ray.init(address="local", include_dashboard=False, num_cpus=REPLICAS, log_to_driver=False,
             _node_ip_address=os.environ.get("TOOLATLAS_RAY_NODE_IP"))
    try:
        start_serve(ReplicaSettings(snapshot=str(snapshot), token=TOKEN), port=port, replicas=REPLICAS)
        yield f"http://127.0.0.1:{port}"
    finally:
        ray.shutdown()


class TestRayServe:
    def test_guidance_equals_the_library(self, deployment: str, built: BuiltAtlas) -> None:
        """POST /v1/guidance through Serve answers what Atlas.guide answers."""
        with httpx.Client(base_url=deployment, headers=HEADERS, timeout=10.0) as client:
            for task in TASKS:
                answer = client.post("/v1/guidance", json={"task": task})
                assert answer.status_code == 200
                assert Guidance.model_validate_json(answer.content) == built.atlas.guide(task)

    def test_every_replica_answers(self, deployment: str) -> None:
        """Concurrent requests are spread over both replica processes."""
        assert len(asyncio.run(pids_answering(deployment, REPLICAS))) == REPLICAS

    async def test_mcp_through_serve(self, deployment: str, built: BuiltAtlas) -> None:
        """The MCP endpoint works through Serve's proxy, with the same guidance."""
        async with mcp_over_http(deployment, HEADERS) as client:
            result = await client.call_tool("get_guidance", {"task": TASKS[2]})
            missing = await client.call_tool("read_trace", {"trace_id": "no-such-trace"})
        assert Guidance.model_validate(result.structured_content) == built.atlas.guide(TASKS[2])
        assert missing.is_error and "no trace 'no-such-trace'" in missing.content[0].text

    def test_token_and_errors_survive_serve(self, deployment: str) -> None:
        """Serve passes the service's own answers through: 401 without the token, 404 and 422 with it."""
        assert httpx.post(f"{deployment}/v1/guidance", json={"task": "commit"}).status_code == 401
        with httpx.Client(base_url=deployment, headers=HEADERS, timeout=10.0) as client:
            assert client.get("/v1/traces/no-such-trace").status_code == 404
            invalid = client.post("/v1/guidance", json={"task": "commit", "budget": 0})
            assert invalid.status_code == 422 and invalid.json()["detail"][0]["loc"] == "budget"

    def test_replica_ports_are_the_ones_serve_uses(self) -> None:
        """The replica port ranges read from the environment agree with what the installed Serve uses."""
        from ray.serve._private import constants  # only here: the check that the public settings still match

        assert replica_port_ranges() == [
            range(constants.RAY_SERVE_DIRECT_INGRESS_MIN_HTTP_PORT, constants.RAY_SERVE_DIRECT_INGRESS_MAX_HTTP_PORT + 1),
            range(constants.RAY_SERVE_DIRECT_INGRESS_MIN_GRPC_PORT, constants.RAY_SERVE_DIRECT_INGRESS_MAX_GRPC_PORT + 1),
        ]

    def test_a_port_serve_gives_replicas_is_refused(self) -> None:
        """The service port cannot be one Serve hands its replicas (they would fight over it)."""
        port = replica_port_ranges()[0].start
        with pytest.raises(ToolAtlasError, match=f"port {port} is in"):
            start_serve(ReplicaSettings(snapshot="unused.json"), port=port, replicas=1)
