"""Load tests of a guidance service (``toolatlas loadtest``): closed-loop clients, latency against load.

:mod:`.generator` runs the clients (in a child process, or as Ray actors on a cluster) and counts
each measured window into mergeable histograms (:mod:`.histogram`); :mod:`.targets` says what is sent
(the HTTP API or MCP tool calls, from a task mix); :mod:`.report` renders the table and the plot.
"""

from toolatlas.loadtest.generator import LevelResult, LoadGenerator, Target, WindowCounts, drive, summarise
from toolatlas.loadtest.histogram import LatencyHistogram
from toolatlas.loadtest.targets import atlas_tasks, http_target, mcp_target, read_tasks

__all__ = ["LatencyHistogram", "LevelResult", "LoadGenerator", "Target", "WindowCounts", "atlas_tasks", "drive",
           "http_target", "mcp_target", "read_tasks", "summarise"]
