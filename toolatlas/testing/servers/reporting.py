"""A small MCP server whose results report errors in every way servers do, for the verifier's tests.

Run: ``python -m toolatlas.testing.servers.reporting --state PATH`` (a JSON object file). Tools:

=================  ===========================================================================
echo               answer ``Echo: <message>`` (whatever the message says)
repeat             answer the text itself, verbatim
lookup             a stored value; an unknown key answers ``Error: no entry named '<key>'`` as
                   an ordinary (``isError`` false) result
lookup_strict      the same, but an unknown key is a tool error (``isError`` true)
store              write a key: ``Stored <key>``; a key starting with ``ro-`` is refused with
                   ``Failed: read-only entry`` in an ordinary result, and nothing is written
log_tail           the server's log: lines that start with ``ERROR`` — content, not a failure
now                the current time (ISO 8601, seconds) and a fresh random request id
clock              the time of day only (``HH:MM:SS``): no date a reader could recognise as now
double             twice a number: a pure function
grow               a sum compounded over years at a rate ``monthly``, ``quarterly`` or ``annually`` as
                   JSON; any other frequency is taken, silently, for ``monthly`` (and echoed as given)
parse_pair         a ``key=value`` pair as JSON; anything else answers an error object,
                   ``{"error": {"kind": "invalid_pair", "message": ...}}``, in an ordinary result
run                a tiny script's status: ``{"status": "ok", ...}``, or ``"error"`` with its
                   ``error_type``/``error_message`` for a line that is not ``key=value``
unpack             a batch of stored keys copied out: a tally (``Succeeded: N``, ``Failed: N``) with
                   an ``Error:`` line per key it could not copy; an empty batch answers
                   ``❌ Unpacking failed: nothing to unpack``
list_keys          the stored keys
=================  ===========================================================================

With ``--cache`` the values are read from the file once and kept in memory (written through on
``store``): a server whose memory outlives a restore of its file. ``--reload`` adds ``reload_values``,
which reads the file again; ``--remember`` adds ``remember``, which changes the memory alone (the
file, and so the instance's digest, stay as they were).
"""

from __future__ import annotations

import argparse
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

server = MCPServer("reporting", version="1.0.0")
STATE: Path = Path("state.json")
CACHE: dict[str, str] | None = None
"""The values kept in memory (``--cache``); None: read from the file on every call."""


def _read() -> dict[str, str]:
    try:
        return json.loads(STATE.read_text())
    except (OSError, ValueError):
        return {}


def _load() -> dict[str, str]:
    return _read() if CACHE is None else CACHE


@server.tool(description="Echo the message back.")
def echo(message: str) -> str:
    return f"Echo: {message}"


@server.tool(description="Return the text unchanged.")
def repeat(text: str) -> str:
    return text


@server.tool(description="Look up the value stored under a key.")
def lookup(key: str) -> str:
    values = _load()
    return values[key] if key in values else f"Error: no entry named '{key}'"


@server.tool(description="Look up the value stored under a key; an unknown key is a tool error.")
def lookup_strict(key: str) -> str:
    values = _load()
    if key not in values:
        raise ValueError(f"no entry named '{key}'")
    return values[key]


@server.tool(description="Store a value under a key.")
def store(key: str, value: str) -> str:
    if key.startswith("ro-"):
        return "Failed: read-only entry"
    values = _load()
    values[key] = value
    STATE.write_text(json.dumps(values))
    return f"Stored {key}"


_PERIODS = {"monthly": 12, "quarterly": 4, "annually": 1}


@server.tool(description="Grow a sum with compound interest over whole years.")
def grow(principal: float, rate_pct: float, years: int,
         frequency: Annotated[str, Field(description="How often interest compounds: 'monthly', 'quarterly', "
                                                     "'annually'")] = "monthly") -> str:
    periods = _PERIODS.get(frequency, 12)  # anything else is compounded monthly, and said back as given
    value = principal * (1 + rate_pct / 100 / periods) ** (periods * years)
    return json.dumps({"principal": principal, "compounding": frequency, "final_value": round(value, 2)})


@server.tool(description="List the stored keys.")
def list_keys() -> str:
    return ", ".join(sorted(_load())) or "(no keys)"


def remember(key: str, value: str) -> str:
    """Keep a value in memory without writing it to the state file."""
    _load()[key] = value
    return f"Remembered {key}"


def reload_values() -> str:
    """Read the values from the state file again."""
    global CACHE
    CACHE = _read()
    return f"Reloaded {len(CACHE)} values"


@server.tool(description="Show the last lines of the server's log.")
def log_tail() -> str:
    return "\n".join(
        ["ERROR 2026-01-01 disk almost full on /var", "ERROR 2026-01-02 retrying upload",
         "INFO 2026-01-03 upload finished", "INFO 2026-01-04 nightly backup finished"]
    )  # fmt: skip


@server.tool(description="The current time and a fresh request id.")
def now() -> str:
    return f"{datetime.now(UTC).replace(microsecond=0).isoformat()} request {uuid.uuid4().hex[:12]}"


@server.tool(description="The time of day.")
def clock() -> str:
    return datetime.now(UTC).strftime("%H:%M:%S")


@server.tool(description="Twice the given number.")
def double(number: int) -> str:
    return str(2 * number)


@server.tool(description="Parse a key=value pair.")
def parse_pair(pair: str) -> str:
    key, sep, value = pair.partition("=")
    if not sep or not key:
        error = {"kind": "invalid_pair", "message": f"'{pair}' is not a key=value pair", "hint": "write k=v"}
        return json.dumps({"error": error})
    return json.dumps({"key": key, "value": value})


@server.tool(description="Run a script of key=value lines and report its status.")
def run(script: str) -> str:
    for number, line in enumerate(script.splitlines(), 1):
        if "=" not in line:
            return json.dumps({"status": "error", "run_id": uuid.uuid4().hex[:12], "error_type": "SyntaxError",
                               "error_message": f"line {number} assigns nothing"}, indent=2)
    return json.dumps({"status": "ok", "run_id": uuid.uuid4().hex[:12], "lines": len(script.splitlines())}, indent=2)


@server.tool(description="Copy the values of the given keys out, in one batch.")
def unpack(keys: list[str]) -> str:
    if not keys:
        return "❌ Unpacking failed: nothing to unpack"
    values = _load()
    done = [k for k in keys if k in values]
    lines = ["Unpacking completed", "=" * 20, f"Keys processed: {len(keys)}", f"Succeeded: {len(done)}",
             f"Failed: {len(keys) - len(done)}", ""]
    for key in keys:
        lines += [f"✅ {key}"] if key in values else [f"❌ {key}", f"   Error: no entry named {key}"]
    return "\n".join(lines)


def main() -> None:
    global STATE, CACHE
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", required=True, help="the JSON object file the values live in")
    parser.add_argument("--cache", action="store_true", help="read the file once and keep the values in memory")
    parser.add_argument("--reload", action="store_true", help="add reload_values, which reads the file again")
    parser.add_argument("--remember", action="store_true", help="add remember, which changes the memory alone")
    args = parser.parse_args()
    STATE = Path(args.state)
    if args.cache:
        CACHE = _read()
    if args.reload:
        server.tool(description="Reload the values from the state file.")(reload_values)
    if args.remember:
        server.tool(description="Keep a value in memory only, for later lookups.")(remember)
    server.run("stdio")


if __name__ == "__main__":
    main()
