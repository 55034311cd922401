"""Probes for the reporting server's tests, planned by hand."""

from __future__ import annotations

from toolatlas.probing.models import Direction, Probe, ProbeStep


def probe(*steps: ProbeStep, direction: Direction = Direction.AFFORDANCE, **fields) -> Probe:
    listed = list(steps)
    return Probe(
        id=Probe.make_id("reporting", 0, direction, listed),
        server="reporting",
        round=0,
        direction=direction,
        target=listed[0].tool,
        task="test",
        steps=listed,
        **fields,
    )
