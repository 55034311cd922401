"""The offline engine against the real demo servers: planned valid calls succeed, boundary probes mostly fail.

For each demo server (PostgreSQL excluded: its test port belongs to another suite), every tool
gets valid calls for variants 0..2 built from the snapshot's facts and from values harvested
along the way; placeholders are rendered for a real sandbox and the real server is called. A
valid call "works" when its outcome is ``ok`` and its text is not an error report (some servers
return ``Database error: ...`` as ok text). Then a sample of the boundary mutations that a
careful server should refuse is sent, and the share refused is measured.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.environments import render_value
from toolatlas.home import Home
from toolatlas.models import CallOutcome, OutcomeClass
from toolatlas.offline import (
    ValuePool,
    ValueSynth,
    boundary_mutations,
    extract_facts,
    infer_arguments,
    looks_like_error,
)
from toolatlas.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
DEMO = load_catalogue(REPO / "configs" / "demo.toml")
VARIANTS = 3
MUTATIONS_PER_TOOL = 6
MIN_VALID_OK = 0.8
MIN_REFUSED = 0.5


def works(outcome: CallOutcome) -> bool:
    """An ``ok`` outcome whose text is not an error report."""
    return outcome.outcome is OutcomeClass.OK and not looks_like_error(outcome.excerpt)


@dataclass
class Measurement:
    valid: list[tuple[str, bool, str]] = field(default_factory=list)
    refused: list[tuple[str, bool, str]] = field(default_factory=list)
    data_flow: int = 0

    @staticmethod
    def share(rows: list[tuple[str, bool, str]]) -> float:
        return sum(ok for _, ok, _ in rows) / max(len(rows), 1)

    def failures(self) -> str:
        return "\n".join(f"{what}: {excerpt[:160]!r}" for what, ok, excerpt in self.valid if not ok)


@pytest.fixture(scope="module")
def workspace() -> Workspace:
    return Workspace(DEMO, Home(REPO / ".toolatlas"))


async def measure(workspace: Workspace, server: str) -> Measurement:
    spec = DEMO.server(server)
    snapshot = workspace.snapshot(spec)
    facts = extract_facts(snapshot.kind, snapshot.path or None)
    pool = ValuePool()
    synth = ValueSynth(facts, pool, random.Random(11))
    result = Measurement()
    async with workspace.sandbox(spec) as sandbox:
        variables = sandbox.variables()
        for tool in sandbox.tools:
            specs = infer_arguments(tool)
            for variant in range(VARIANTS):
                planned = synth.valid_arguments(tool, specs, variant)
                if planned is None:
                    result.valid.append((f"{tool.name} v{variant} (no plan)", False, ""))
                    continue
                outcome = await sandbox.call(tool.name, render_value(planned.arguments, variables))
                result.valid.append(
                    (f"{tool.name} v{variant} {planned.arguments}", works(outcome), outcome.excerpt)
                )
                result.data_flow += bool(planned.used_values) and works(outcome)
                pool.harvest(
                    tool,
                    outcome.excerpt,
                    outcome.structured,
                    variables,
                    f"{tool.name}/{variant}",
                    arguments=planned.arguments,
                    ok=works(outcome),
                )
            await sandbox.reset()
        for tool in sandbox.tools:
            specs = infer_arguments(tool)
            planned = synth.valid_arguments(tool, specs, 0)
            if planned is None:
                continue
            for mutation in boundary_mutations(tool, specs, planned.arguments, synth, cap=MUTATIONS_PER_TOOL):
                if mutation.expected_failure:
                    outcome = await sandbox.call(tool.name, render_value(mutation.arguments, variables))
                    result.refused.append(
                        (f"{tool.name} {mutation.name}", not works(outcome), outcome.excerpt)
                    )
            await sandbox.reset()
    return result


@pytest.mark.servers
class TestDemoServersEndToEnd:
    @pytest.mark.parametrize("server", ["filesystem", "memory", "git", "sqlite", "time"])
    async def test_valid_calls_work_and_boundaries_are_refused(
        self, workspace: Workspace, server: str, record_property: pytest.RecordProperty
    ) -> None:
        """At least 80% of planned valid calls work, most expected-failure probes are refused, data flows."""
        result = await measure(workspace, server)
        valid, refused = Measurement.share(result.valid), Measurement.share(result.refused)
        record_property("valid_ok", f"{valid:.0%} of {len(result.valid)}")
        record_property("mutations_refused", f"{refused:.0%} of {len(result.refused)}")
        print(
            f"{server}: valid ok {valid:.0%} of {len(result.valid)}; "
            f"refused {refused:.0%} of {len(result.refused)}; "
            f"data-flow calls {result.data_flow}"
        )
        assert valid >= MIN_VALID_OK, result.failures()
        assert refused >= MIN_REFUSED
        assert result.data_flow > 0, "no call used a harvested value"
