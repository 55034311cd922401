"""A misuse the tool accepts is served under the argument it broke: the same break of two arguments is
two entries, each with the evidence of its own argument. The real ``wallclock`` server over stdio
(``join_words`` accepts an empty word on either side), run by the executor and verifier the build uses."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolatlas.config import parse_catalogue
from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.home import Home
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.probing.text import condition_signature
from toolatlas.workspace import Workspace


def emptied(n: int, argument: str) -> Probe:
    """A boundary probe of ``join_words`` with ``argument`` an empty string."""
    arguments = {"first": "ice", "second": "cream", argument: ""}
    step = ProbeStep(tool="join_words", arguments=arguments, mutation="empty_value", expect="error",
                     condition=f"`{argument}` is an empty string")
    return Probe(id=f"p{n}", server="wallclock", round=1, direction=Direction.BOUNDARY, target="join_words",
                 task="t", steps=[step])


class TestConditionSignature:
    def test_the_arguments_a_condition_names_stay_and_values_are_masked(self) -> None:
        """Argument names (a locator by its first part) stay in a condition's signature; quoted values,
        numbers and names a probe made up are masked."""
        names = {"source", "graph", "elementIds"}
        assert condition_signature("`source` is an empty string (with `graph` given)", names) == \
            "`source` is an empty string (with `graph` given)"
        assert condition_signature("`elementIds[0]` is `x7`, 3 KB long", names) == "`elementIds[0]` is <s>, <n> KB long"
        assert condition_signature("an argument the schema does not declare (`probe_unknown_6839`) is passed", names) == \
            "an argument the schema does not declare (<s>) is passed"


@pytest.mark.servers
class TestToleratedMisuses:
    async def test_the_same_break_of_two_arguments_is_two_entries(self, tmp_path: Path) -> None:
        """An empty `first` and an empty `second`, both accepted, are two tolerated misuses; each
        entry names its argument, and every call of its evidence has that argument empty."""
        server = {"name": "wallclock", "environment": {"kind": "none"},
                  "transport": {"command": sys.executable, "args": ["-m", "toolatlas.testing.servers.wallclock"]}}
        catalogue = parse_catalogue({"servers": [server]}, tmp_path / "catalogue.toml")
        executor = Executor(Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("wallclock")), "t")
        await executor.start()
        try:
            graph = ServerGraph("wallclock", executor.sandbox.tools)
            inducer = Inducer(graph)
            for n, argument in enumerate(["first", "second", "first"]):
                rollout, verdict = await executor.run_verified(emptied(n, argument))
                assert not verdict.steps[0].failed
                inducer.induce(rollout, verdict)
        finally:
            await executor.close()
        tolerated = [e for e in graph.entries_of("join_words", EntryKind.AFFORDANCE) if e.signature.startswith("tolerates:")]
        by_argument = {argument: [e for e in tolerated if f"`{argument}`" in e.text] for argument in ("first", "second")}
        assert len(tolerated) == 2 and all(len(found) == 1 for found in by_argument.values())
        for argument, (entry,) in by_argument.items():
            assert all(item.arguments[argument] == "" for item in entry.evidence)
        assert by_argument["first"][0].support == 2
