"""A build's probe log (what came back when, the probes done after a moment) and the choice of its topology."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.errors import ConfigError
from toolatlas.pipeline.driver import choose_topology
from toolatlas.pipeline.rate import Batch, ProbeLog
from toolatlas.probing.models import BatchSummary

REPO = Path(__file__).resolve().parents[2]


def summary(ended_at: list[float]) -> BatchSummary:
    return BatchSummary(infrastructure_errors=[], calls=len(ended_at), resets=0, ended_at=ended_at)


class TestProbeLog:
    def test_end_times_move_to_this_process_clock(self) -> None:
        """The hosts' wall-clock end times land between the batch's sending and its return on the perf_counter clock."""
        log = ProbeLog()
        sent = time.perf_counter()
        log.record(sent, 2, summary([time.time(), time.time()]))
        [batch] = log.batches
        assert batch.probes == log.probes == 2 and batch.sent == sent
        assert all(sent - 0.05 <= t <= batch.back + 0.05 for t in batch.ended)

    def test_probes_after_a_moment_count_exactly_or_pro_rata(self) -> None:
        """With end times, the probes that ended after a moment count; without them, a batch spanning it counts pro rata."""
        log = ProbeLog()
        log.batches = [Batch(0.0, 2.0, 4, (0.5, 1.0, 1.5, 2.0)), Batch(2.0, 4.0, 2, ()), Batch(4.0, 5.0, 1, (5.0,))]
        assert log.after(1.0) == 2 + 2 + 1  # two of the first batch ended after 1.0; the rest entirely after
        assert log.after(3.0) == 1 + 1  # half of the batch without end times, all of the last
        assert log.after(1.0, exact=False) == 4 * 0.5 + 2 + 1
        assert log.after(5.0) == 0 and log.after(-1.0) == log.probes == 7


class TestTopology:
    def test_auto_is_colocated_for_one_executor_and_split_for_more(self) -> None:
        """``auto`` colocates a server's roles when it has one executor per server, and splits them otherwise."""
        catalogue = load_catalogue(REPO / "configs" / "demo.toml")
        assert catalogue.build.executors_per_server == 1
        assert choose_topology(catalogue, "auto", config="demo.toml") == "colocated"
        assert choose_topology(catalogue, "split", config="demo.toml") == "split"
        two = catalogue.model_copy(update={"build": catalogue.build.model_copy(update={"executors_per_server": 2})})
        assert choose_topology(two, "auto", config="demo.toml") == "split"

    def test_pools_is_chosen_never_defaulted_to(self) -> None:
        """``pools`` (verifiers as a pool of their own) holds one executor per server or several; ``auto`` never picks it."""
        catalogue = load_catalogue(REPO / "configs" / "demo.toml")
        two = catalogue.model_copy(update={"build": catalogue.build.model_copy(update={"executors_per_server": 2})})
        assert [choose_topology(c, "pools", config="demo.toml") for c in (catalogue, two)] == ["pools", "pools"]
        assert "pools" not in {choose_topology(c, "auto", config="demo.toml") for c in (catalogue, two)}

    @pytest.mark.parametrize(("topology", "field"), [("mesh", "topology"), ("colocated", "build.executors_per_server")])
    def test_an_impossible_topology_names_the_file_and_field(self, topology: str, field: str) -> None:
        """An unknown topology, or colocated roles for several executors per server, is a ConfigError naming the field."""
        catalogue = load_catalogue(REPO / "configs" / "demo.toml")
        two = catalogue.model_copy(update={"build": catalogue.build.model_copy(update={"executors_per_server": 2})})
        with pytest.raises(ConfigError) as raised:
            choose_topology(two, topology, config="demo.toml")
        assert "demo.toml" in str(raised.value) and field in str(raised.value)
