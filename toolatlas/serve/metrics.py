"""Prometheus metrics of a serving process (``GET /metrics``, the text exposition format).

Per process: with several uvicorn workers or Ray Serve replicas each keeps its own counts and a
scrape reaches one of them (scrape each, or sum by ``pid``). What is counted:

- ``toolatlas_requests_total{route, method, status}`` — requests answered (the route as a template:
  ``/v1/tools/{server}/{tool}``, so names do not explode the label set);
- ``toolatlas_request_seconds{route}`` — a latency histogram (sum and count included);
- ``toolatlas_guidance_cache_{hits,misses}_total`` — answers served from the guidance cache or computed;
- ``toolatlas_atlas_records{layer, status}`` — what the loaded atlas holds, served or not;
- ``toolatlas_reports_total{result}`` — agents' reports queued or refused (when write-back is on).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter, defaultdict

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BUCKETS", "Metrics", "MetricsMiddleware", "route_of"]

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Upper bounds (seconds) of the latency histogram's buckets."""

_TEMPLATES = {"tools": "/v1/tools/{server}/{tool}", "traces": "/v1/traces/{trace_id}"}


def route_of(path: str) -> str:
    """The route template of a request path (ids and names replaced by their parameter)."""
    parts = path.strip("/").split("/")
    if len(parts) >= 3 and parts[0] == "v1" and parts[1] in _TEMPLATES:
        if parts[1] == "traces" and len(parts) == 4:
            return f"/v1/traces/{{trace_id}}/{parts[3]}"
        return _TEMPLATES[parts[1]]
    return path if path in ("/metrics", "/mcp") or path.startswith("/v1/") else "other"


class Metrics:
    """The counts of one serving process (thread-safe: the offline guide runs inline, others on threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: Counter[tuple[str, str, int]] = Counter()
        self.buckets: dict[str, list[int]] = defaultdict(lambda: [0] * len(BUCKETS))
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.counts: Counter[str] = Counter()
        self.reports: Counter[str] = Counter()
        self.cache = (0, 0)
        self.records: dict[tuple[str, str], int] = {}

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        with self._lock:
            self.requests[(route, method, status)] += 1
            self.seconds[route] += seconds
            self.counts[route] += 1
            bucket = self.buckets[route]
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    bucket[i] += 1

    def report(self, result: str) -> None:
        with self._lock:
            self.reports[result] += 1

    def render(self) -> str:
        """The exposition text."""
        pid = os.getpid()
        lines = [
            "# HELP toolatlas_requests_total Requests answered, by route template, method and status.",
            "# TYPE toolatlas_requests_total counter",
        ]
        with self._lock:
            for (route, method, status), count in sorted(self.requests.items()):
                lines.append(f'toolatlas_requests_total{{route="{route}",method="{method}",status="{status}",'
                             f'pid="{pid}"}} {count}')
            lines += ["# HELP toolatlas_request_seconds Time to answer a request, by route template.",
                      "# TYPE toolatlas_request_seconds histogram"]
            for route in sorted(self.buckets):
                for bound, count in zip(BUCKETS, self.buckets[route], strict=True):
                    lines.append(f'toolatlas_request_seconds_bucket{{route="{route}",le="{bound}",pid="{pid}"}} {count}')
                lines.append(f'toolatlas_request_seconds_bucket{{route="{route}",le="+Inf",pid="{pid}"}} '
                             f"{self.counts[route]}")
                lines.append(f'toolatlas_request_seconds_sum{{route="{route}",pid="{pid}"}} {self.seconds[route]:.6f}')
                lines.append(f'toolatlas_request_seconds_count{{route="{route}",pid="{pid}"}} {self.counts[route]}')
            hits, misses = self.cache
            lines += ["# HELP toolatlas_guidance_cache_hits_total Guidance answers served from the cache.",
                      "# TYPE toolatlas_guidance_cache_hits_total counter",
                      f'toolatlas_guidance_cache_hits_total{{pid="{pid}"}} {hits}',
                      "# HELP toolatlas_guidance_cache_misses_total Guidance answers computed.",
                      "# TYPE toolatlas_guidance_cache_misses_total counter",
                      f'toolatlas_guidance_cache_misses_total{{pid="{pid}"}} {misses}',
                      "# HELP toolatlas_atlas_records Records of the loaded atlas, by layer and status.",
                      "# TYPE toolatlas_atlas_records gauge"]
            for (layer, state), count in sorted(self.records.items()):
                lines.append(f'toolatlas_atlas_records{{layer="{layer}",status="{state}",pid="{pid}"}} {count}')
            if self.reports:
                lines += ["# HELP toolatlas_reports_total Agents' reports of calls, queued or refused.",
                          "# TYPE toolatlas_reports_total counter"]
                for result, count in sorted(self.reports.items()):
                    lines.append(f'toolatlas_reports_total{{result="{result}",pid="{pid}"}} {count}')
        return "\n".join(lines) + "\n"


class MetricsMiddleware:
    """ASGI middleware: every HTTP request's route, status and time into a :class:`Metrics`."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), 500

        async def noting(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noting)
        finally:
            self.metrics.observe(route_of(scope["path"]), scope["method"], status, time.perf_counter() - started)
