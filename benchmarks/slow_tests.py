"""The tests marked slow: scale and end-to-end variants that the default run (``make test``) leaves out.

Runs ``pytest -m slow`` from the repository's root with this interpreter; any further argument goes
to pytest (a path, ``-k EXPR``, ``-x``). Prints how many tests ran, by outcome, and the wall time;
exits with pytest's status.

    .venv/bin/python benchmarks/slow_tests.py [PYTEST ARGS ...]        (make slow)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO, save


def outcomes(junit: Path) -> dict[str, int]:
    """Tests by outcome in a JUnit report pytest wrote (nothing when it wrote none: a usage error)."""
    if not junit.exists() or junit.stat().st_size == 0:
        return {}
    suite = ET.parse(junit).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    if suite is None:
        return {}
    counts = {key: int(suite.get(key, 0)) for key in ("tests", "failures", "errors", "skipped")}
    counts["passed"] = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    return counts


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="slow-tests-") as tmp:
        junit = Path(tmp) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-m", "slow", f"--junit-xml={junit}", *sys.argv[1:]]
        started = time.monotonic()
        status = subprocess.run(command, cwd=REPO, check=False).returncode
        seconds = time.monotonic() - started
        counts = outcomes(junit)
    tally = ", ".join(f"{counts[k]} {k}" for k in ("passed", "failures", "errors", "skipped") if counts.get(k))
    print(f"\nslow tests: {counts.get('tests', 0)} run ({tally or 'none'}) in {seconds / 60:.1f} min "
          f"({seconds:.0f} s), pytest exit {status}")
    print(f"results: {save('slow_tests', {**counts, 'seconds': round(seconds, 1), 'argv': sys.argv[1:], 'exit': status})}")
    return status


if __name__ == "__main__":
    sys.exit(main())
