"""The MCP conformance suite's generic server scenarios against ``serve`` and ``proxy`` over HTTP.

Installs the suite (``@modelcontextprotocol/conformance``, pinned: the newest release that runs on
Node 20) under ``.toolatlas/tools/conformance`` once, builds a small atlas (the demo's ``memory``
server, bootstrap only) into a scratch store, and runs each scenario against three endpoints:
``serve`` stateless (the default), ``serve --mcp-sessions``, and ``proxy`` in front of ``memory``
(sandbox mode). Prints passed/failed/warnings per scenario and endpoint; exit 1 on any failure.

    .venv/bin/python benchmarks/conformance.py [--scenario NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import demo_atlas_export, save

from toolatlas.logs import configure_logging
from toolatlas.serve.process import ServiceProcess, free_port

REPO = Path(__file__).resolve().parents[1]
HOME = REPO / ".toolatlas"
SUITE = "@modelcontextprotocol/conformance@0.1.12"
SCENARIOS = ("server-initialize", "ping", "tools-list", "resources-list", "prompts-list",
             "server-sse-multiple-streams", "dns-rebinding-protection")
SERVER = "memory"
_TALLY = re.compile(r"Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings")


def install_suite() -> Path:
    """The suite's command, installed with npm on first use."""
    folder = HOME / "tools" / "conformance"
    command = folder / "node_modules" / ".bin" / "conformance"
    if not command.exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--prefix", str(folder), SUITE], check=True)
    return command


@contextmanager
def proxy_endpoint(config: Path, export: Path) -> Iterator[str]:
    """``toolatlas proxy CONFIG --server SERVER --sandbox --transport http`` until the block ends."""
    port = free_port()
    command = [sys.executable, "-m", "toolatlas", "proxy", str(config), "--server", SERVER, "--sandbox",
               "--atlas", str(export), "--transport", "http", "--port", str(port)]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/mcp", timeout=1)
            except urllib.error.HTTPError:
                break  # it answers (a GET without a session is refused)
            except OSError:
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def run_scenario(suite: Path, url: str, scenario: str) -> dict[str, int]:
    done = subprocess.run([str(suite), "server", "--url", url, "--scenario", scenario],
                          capture_output=True, text=True, timeout=120, check=False)
    tally = _TALLY.search(done.stdout + done.stderr)
    if tally is None:
        return {"passed": 0, "checks": 0, "failed": 1, "warnings": 0}
    passed, checks, failed, warnings = map(int, tally.groups())
    return {"passed": passed, "checks": checks, "failed": failed, "warnings": warnings}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", help="only these scenarios (repeatable)")
    args = parser.parse_args()
    configure_logging("warning")
    scenarios = args.scenario or list(SCENARIOS)
    suite = install_suite()
    results: dict[str, dict[str, dict[str, int]]] = {}
    with tempfile.TemporaryDirectory(prefix="toolatlas-conformance-") as scratch:
        _, export = asyncio.run(demo_atlas_export(Path(scratch), [SERVER], rounds=0))
        config = REPO / "configs" / "demo.toml"
        with ServiceProcess("--atlas", str(export), cwd=REPO) as stateless:
            results["serve"] = {s: run_scenario(suite, f"{stateless.url}/mcp", s) for s in scenarios}
        with ServiceProcess("--atlas", str(export), "--mcp-sessions", cwd=REPO) as stateful:
            results["serve --mcp-sessions"] = {s: run_scenario(suite, f"{stateful.url}/mcp", s) for s in scenarios}
        with proxy_endpoint(config, export) as url:
            results["proxy"] = {s: run_scenario(suite, url, s) for s in scenarios}
    width = max(map(len, scenarios))
    print(f"{'scenario':<{width}}  " + "  ".join(f"{name:>22}" for name in results))
    for scenario in scenarios:
        cells = []
        for tally in (results[name][scenario] for name in results):
            cell = f"{tally['passed']}/{tally['checks']}" + (f" {tally['failed']} failed" if tally["failed"] else "")
            cells.append(f"{cell + (' (warning)' if tally['warnings'] else ''):>22}")
        print(f"{scenario:<{width}}  " + "  ".join(cells))
    failed = sum(t["failed"] for by_scenario in results.values() for t in by_scenario.values())
    print(f"results: {save('conformance', {'suite': SUITE, 'results': results})}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
