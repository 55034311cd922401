"""``toolatlas outcomes --engine ray``: agents' reports replayed as one Ray task per server; the driver
keeps the store and admits only what the replay confirmed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

from toolatlas.trust.outcomes import OutcomeQueue, OutcomeReport  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.servers


@pytest.mark.slow  # 18 s; the same admission runs in process in tests/trust/test_writeback.py's TestAdmission (default suite)
class TestAdmissionOnRay:
    def test_a_true_report_is_admitted_and_a_false_one_rejected(self, tmp_path: Path, built_release) -> None:  # type: ignore[no-untyped-def]
        config = built_release(tmp_path, rounds=0, rollouts=1)
        queue = OutcomeQueue(config.parent / "atlas" / "outcomes.jsonl")
        queue.append(OutcomeReport(server="versioned", tool="shout", arguments={"text": "hi"}, outcome="ok"), "agent")
        queue.append(OutcomeReport(server="versioned", tool="shout", arguments={"text": "hi"}, outcome="error"), "agent")
        done = subprocess.run([sys.executable, "-m", "toolatlas", "outcomes", str(config), "--engine", "ray"],
                              capture_output=True, text=True, timeout=600, cwd=REPO, check=False,
                              env={**os.environ, "TOOLATLAS_HOME": str(REPO / ".toolatlas")})
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
        assert "1 admitted, 1 rejected" in done.stdout
        rejected = [json.loads(line) for line in (config.parent / "atlas" / "outcomes.rejected.jsonl").read_text().splitlines()]
        assert [r["admission"]["replayed_outcome"] for r in rejected] == ["ok"]
