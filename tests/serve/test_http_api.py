"""The HTTP JSON API, over real HTTP, against ``toolatlas serve CONFIG --transport http`` in a subprocess.

Every answer is checked against the library reading the same store (``Atlas.open``): the service
serves the catalogue's atlas, nothing more or less, and refuses what it must.
"""

from __future__ import annotations

import json

import httpx
import pytest
from service_process import SERVERS, TASKS, TOKEN, BuiltAtlas, start_service

from toolatlas.guidance import Guidance, StrategyGuidance, ToolGuidance, TraceExemplar
from toolatlas.serve import Health, ServerList, TraceList
from toolatlas.serve.http_api import MAX_BODY_BYTES
from toolatlas.serve.process import ServiceProcess

pytestmark = pytest.mark.servers


class TestGuidance:
    @pytest.mark.parametrize("task", TASKS)
    def test_guidance_equals_the_library(self, client: httpx.Client, built: BuiltAtlas, task: str) -> None:
        """POST /v1/guidance answers the typed guidance Atlas.guide gives for the same task."""
        response = client.post("/v1/guidance", json={"task": task})
        assert response.status_code == 200 and response.headers["content-type"] == "application/json"
        assert Guidance.model_validate_json(response.content) == built.atlas.guide(task)

    def test_options_reach_the_traversal(self, client: httpx.Client, built: BuiltAtlas) -> None:
        """budget, k_r, max_tokens and servers are passed to the walk as given."""
        ask = {"task": TASKS[2], "servers": ["git"], "budget": 3, "k_r": 1, "max_tokens": 300}
        answer = Guidance.model_validate_json(client.post("/v1/guidance", json=ask).content)
        expected = built.atlas.guide(TASKS[2], servers=["git"], budget=3, k_r=1, max_tokens=300)
        assert answer == expected and len(answer.trail) <= 3 and {t.server for t in answer.tools} == {"git"}

    def test_text_rendering(self, client: httpx.Client, built: BuiltAtlas) -> None:
        """format=text answers the compact text rendering of the same guidance."""
        response = client.post("/v1/guidance", json={"task": TASKS[0], "format": "text"})
        assert response.headers["content-type"].startswith("text/plain")
        assert response.text == built.atlas.guide(TASKS[0]).to_text()


class TestTraversal:
    def test_servers_lists_the_built_servers_and_tools(self, client: httpx.Client, built: BuiltAtlas) -> None:
        """GET /v1/servers names every server and tool of the atlas, with its trace counts."""
        listing = ServerList.model_validate_json(client.get("/v1/servers").content)
        assert sorted(s.name for s in listing.servers) == sorted(SERVERS)
        assert {(s.name, t) for s in listing.servers for t in s.tools} == set(built.atlas.view.tool_keys)
        assert sum(s.traces for s in listing.servers) == len(built.atlas.view.traces)

    def test_search_then_read_expand_and_strategies(self, client: httpx.Client, built: BuiltAtlas) -> None:
        """search → read → similar → strategies answer what the library's operations answer."""
        found = TraceList.model_validate_json(client.get("/v1/traces", params={"task": "convert time", "k": 2}).content)
        assert found.traces == built.atlas.search_traces("convert time", k=2) and len(found.traces) == 2
        with_strategies = next(t for t in built.atlas.view.traces.values() if t.strategies)
        trace = TraceExemplar.model_validate_json(client.get(f"/v1/traces/{with_strategies.id}").content)
        assert trace == built.atlas.read_trace(with_strategies.id)
        similar = TraceList.model_validate_json(client.get(f"/v1/traces/{trace.id}/similar").content)
        assert similar.traces == built.atlas.expand(trace.id)
        strategies = client.get(f"/v1/traces/{trace.id}/strategies").json()["strategies"]
        assert [StrategyGuidance.model_validate(s) for s in strategies] == built.atlas.read_strategy(trace.id) != []

    def test_search_within_servers(self, client: httpx.Client) -> None:
        """server= restricts the search to those servers."""
        query = {"task": "a call that fails when", "k": 20}
        everywhere = TraceList.model_validate_json(client.get("/v1/traces", params=query).content)
        in_git = TraceList.model_validate_json(client.get("/v1/traces", params={**query, "server": "git"}).content)
        assert {t.server for t in everywhere.traces} == set(SERVERS)
        assert in_git.traces and {t.server for t in in_git.traces} == {"git"}

    def test_read_tool(self, client: httpx.Client, built: BuiltAtlas) -> None:
        """GET /v1/tools/{server}/{tool} answers the tool's verified uses and boundaries."""
        tool = ToolGuidance.model_validate_json(client.get("/v1/tools/time/convert_time").content)
        assert tool == built.atlas.read_tool("time", "convert_time") and tool.when and tool.when_not

    def test_health(self, client: httpx.Client, service: ServiceProcess, built: BuiltAtlas) -> None:
        """GET /v1/health counts what the process serves and names the process."""
        health = Health.model_validate_json(client.get("/v1/health").content)
        assert (health.status, health.traces, health.servers) == ("ok", len(built.atlas.view.traces), len(SERVERS))
        assert health.pid == service.pid


class TestErrors:
    def test_unknown_trace_is_404(self, client: httpx.Client) -> None:
        """An unknown trace id is a 404 whose message says where ids come from."""
        for suffix in ("", "/similar", "/strategies"):
            response = client.get(f"/v1/traces/no-such-trace{suffix}")
            assert response.status_code == 404 and "no trace 'no-such-trace'" in response.json()["error"]
            assert "search_traces" in response.json()["error"]

    def test_unknown_tool_and_server_are_404_naming_the_valid_ones(self, client: httpx.Client) -> None:
        """An unknown tool lists the server's tools; an unknown server lists the servers."""
        tool = client.get("/v1/tools/time/no_such_tool")
        assert tool.status_code == 404 and "convert_time" in tool.json()["error"]
        server = client.get("/v1/tools/nowhere/convert_time")
        assert server.status_code == 404 and "git, time" in server.json()["error"]

    def test_body_that_is_not_json_is_400(self, client: httpx.Client) -> None:
        """A body that does not parse is a 400 that says so."""
        response = client.post("/v1/guidance", content=b"{task: nope")
        assert response.status_code == 400 and response.json()["error"] == "request body is not valid JSON"

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({}, "task"),
            ({"task": ""}, "task"),
            ({"task": "x" * 2001}, "task"),
            ({"task": "commit", "budget": 0}, "budget"),
            ({"task": "commit", "k_r": "many"}, "k_r"),
            ({"task": "commit", "max_tokens": 10}, "max_tokens"),
            ({"task": "commit", "format": "xml"}, "format"),
            ({"task": "commit", "servers": []}, "servers"),
            ({"task": "commit", "tsk": "typo"}, "tsk"),
        ],
    )
    def test_invalid_field_is_422_naming_it(self, client: httpx.Client, body: dict, field: str) -> None:
        """Each invalid or unknown field comes back as a 422 whose detail names that field."""
        response = client.post("/v1/guidance", json=body)
        assert response.status_code == 422
        assert response.json()["error"] == "invalid guidance request"
        assert field in [d["loc"] for d in response.json()["detail"]]

    def test_unknown_server_filter_is_422(self, client: httpx.Client) -> None:
        """servers naming a server the atlas lacks is a 422 listing the atlas' servers."""
        response = client.post("/v1/guidance", json={"task": "commit", "servers": ["svn"]})
        assert response.status_code == 422
        assert "'svn'" in response.json()["error"] and "git, time" in response.json()["error"]

    @pytest.mark.parametrize(("params", "field"), [({"k": "3"}, "task"), ({"task": "commit", "k": "two"}, "k")])
    def test_invalid_search_is_422_naming_the_parameter(self, client: httpx.Client, params: dict, field: str) -> None:
        """A search without a task, or with a k that is not a number, names the parameter."""
        response = client.get("/v1/traces", params=params)
        assert response.status_code == 422 and response.json()["detail"][0]["loc"] == field

    def test_search_k_out_of_range_is_422(self, client: httpx.Client) -> None:
        """k beyond the allowed range is refused with the range."""
        response = client.get("/v1/traces", params={"task": "commit", "k": "500"})
        assert response.status_code == 422 and "k must be from 1 to 20" in response.json()["error"]

    def test_oversized_body_is_413(self, client: httpx.Client) -> None:
        """A body larger than the limit is refused before it is parsed."""
        response = client.post("/v1/guidance", content=json.dumps({"task": "x" * (MAX_BODY_BYTES + 1)}))
        assert response.status_code == 413

    def test_unknown_path_and_wrong_method(self, client: httpx.Client) -> None:
        """Unknown paths are 404 and wrong methods 405, in the same JSON error shape."""
        assert client.get("/v1/nothing").status_code == 404 and "error" in client.get("/v1/nothing").json()
        wrong = client.get("/v1/guidance")
        assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"


class TestBearerToken:
    @pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}])
    def test_missing_or_wrong_token_is_401(self, service: ServiceProcess, headers: dict) -> None:
        """Without the exact bearer token, the API and the MCP endpoint answer 401 and nothing else."""
        for method, path in (("POST", "/v1/guidance"), ("GET", "/v1/servers"), ("POST", "/mcp")):
            response = httpx.request(method, service.url + path, headers=headers, json={"task": "commit"})
            assert response.status_code == 401, path
            assert response.headers["www-authenticate"].startswith("Bearer")
            assert "bearer token" in response.json()["error"]

    def test_the_scheme_is_case_insensitive_and_must_be_bearer(self, service: ServiceProcess) -> None:
        """`bearer` in any case is accepted; another scheme, no token or a wrong one is 401."""
        for header, status in ((f"bearer {TOKEN}", 200), (f"BEARER {TOKEN}", 200), (f"Basic {TOKEN}", 401),
                               ("Bearer", 401), (f"Bearer {TOKEN}x", 401)):
            response = httpx.get(f"{service.url}/v1/servers", headers={"Authorization": header})
            assert response.status_code == status, header

    def test_health_needs_no_token(self, service: ServiceProcess) -> None:
        """Load balancers can probe /v1/health without the token."""
        assert httpx.get(f"{service.url}/v1/health").status_code == 200

    def test_no_token_configured_means_open(self, built: BuiltAtlas) -> None:
        """A service started without a token answers without one."""
        open_service = start_service(str(built.config))
        try:
            response = httpx.post(f"{open_service.url}/v1/guidance", json={"task": TASKS[0]})
            assert response.status_code == 200
            assert Guidance.model_validate_json(response.content) == built.atlas.guide(TASKS[0])
        finally:
            open_service.stop()


class TestMetrics:
    def test_requests_latency_cache_and_records_are_exposed(self, client: httpx.Client) -> None:
        """Prometheus text: requests by route template and status, a latency histogram, the guidance
        cache, and the loaded atlas's records by status."""
        task = {"task": "What time is it in Tokyo right now?"}
        assert client.post("/v1/guidance", json=task).status_code == 200
        assert client.post("/v1/guidance", json=task).status_code == 200
        assert client.get("/v1/tools/time/no_such_tool").status_code == 404
        text = client.get("/metrics").text
        lines = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                 if line and not line.startswith("#")}

        def value(prefix: str) -> float:
            return sum(v for k, v in lines.items() if k.startswith(prefix))

        assert value('toolatlas_requests_total{route="/v1/guidance",method="POST",status="200"') >= 2
        assert value('toolatlas_requests_total{route="/v1/tools/{server}/{tool}",method="GET",status="404"') >= 1
        assert value('toolatlas_request_seconds_count{route="/v1/guidance"') >= 2
        assert value("toolatlas_guidance_cache_hits_total") >= 1
        assert value('toolatlas_atlas_records{layer="entries",status="active"') > 0
        assert "# TYPE toolatlas_request_seconds histogram" in text

    def test_metrics_need_the_token(self, service: ServiceProcess) -> None:
        """/metrics answers 401 without the service's token."""
        assert httpx.get(f"{service.url}/metrics").status_code == 401
