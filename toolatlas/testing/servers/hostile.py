"""A small MCP server that attacks the machine it runs on: the honest counterpart for confinement tests.

Run: ``python -m toolatlas.testing.servers.hostile [--only TOOL,TOOL...]``. Every tool but ``echo``
takes no arguments (so a build's
own probes carry out the attack each time they call it) and aims at targets named by environment
variables; each answers with what it managed, so a test can tell a refused attack from a done one:

=================  ===========================================================================
tool               what it tries
=================  ===========================================================================
write_outside      write each file of ``$HOSTILE_OUTSIDE`` (``:``-separated paths outside its instance)
connect_out        a TCP connection to ``127.0.0.1:$HOSTILE_PORT``, and send a line
read_secrets       read each file of ``$HOSTILE_SECRETS`` (``:``-separated; e.g. ``/etc/shadow``)
capabilities       report its effective capabilities and what ``/`` shows
fork_bomb          fork ``$HOSTILE_FORKS`` children that sleep (default 2000)
allocate           allocate and touch ``$HOSTILE_ALLOCATE_MB`` MiB (default 2048)
daemonize          double fork + ``setsid``: a grandchild that sleeps for an hour, its command
                   line tagged with ``$HOSTILE_MARKER``, outliving the server if nothing stops it
linger             from now on ignore SIGTERM and stay alive after stdin closes (EOF)
flood_stderr       write ``$HOSTILE_FLOOD_MB`` MiB to stderr (default 16)
babble             answer, then write ``$HOSTILE_BABBLE`` non-JSON lines to stdout (default 20000)
spin               burn CPU in a background thread, answering on
fifo_state         replace its state file (``$HOSTILE_STATE``) by a FIFO
zero_state         replace its state file by a symlink to ``/dev/zero``
echo               a harmless tool: echo the text back
=================  ===========================================================================

``$HOSTILE_START_CPU_S`` makes the server burn that many CPU seconds before it serves (a slow start-up).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys
import threading
import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("hostile", version="1.0.0")
# The SDK diverts fd 1 to stderr once it serves stdio: keep a handle on the real wire.
WIRE_FD = os.dup(1)
_lingering = threading.Event()


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


@server.tool(description="Write files outside the server's instance.")
def write_outside() -> str:
    report = []
    for path in filter(None, _env("HOSTILE_OUTSIDE").split(":")):
        try:
            with open(path, "w") as handle:
                handle.write("written by the hostile server\n")
            report.append(f"wrote {path}")
        except OSError as exc:
            report.append(f"refused {path}: {exc.strerror}")
    return "; ".join(report)


@server.tool(description="Open a TCP connection to a listener on 127.0.0.1 and send a line.")
def connect_out() -> str:
    port = int(_env("HOSTILE_PORT", "9"))
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as connection:
            connection.sendall(b"hello from the hostile server\n")
        return f"connected to 127.0.0.1:{port}"
    except OSError as exc:
        return f"refused 127.0.0.1:{port}: {exc.strerror or exc}"


@server.tool(description="Read files that hold secrets.")
def read_secrets() -> str:
    report = []
    for path in filter(None, _env("HOSTILE_SECRETS", "/etc/shadow").split(":")):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                report.append(f"{path}: {handle.read(4096)}")
        except OSError as exc:
            report.append(f"refused {path}: {exc.strerror}")
    return "\n".join(report)


@server.tool(description="Report the process's effective capabilities and what / holds.")
def capabilities() -> str:
    with open("/proc/self/status") as handle:
        effective = next(line.split()[1] for line in handle if line.startswith("CapEff:"))
    return f"CapEff={effective} root={sorted(os.listdir('/'))}"


@server.tool(description="Fork many children that sleep.")
def fork_bomb() -> str:
    wanted, started = int(_env("HOSTILE_FORKS", "2000")), 0
    try:
        for _ in range(wanted):
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            started += 1
    except OSError as exc:
        return f"forked {started} of {wanted}; refused: {exc.strerror}"
    return f"forked {started} of {wanted}"


@server.tool(description="Allocate and touch a large block of memory.")
def allocate() -> str:
    megabytes = int(_env("HOSTILE_ALLOCATE_MB", "2048"))
    try:
        block = bytearray(megabytes << 20)
        block[:: 1 << 12] = b"x" * len(range(0, len(block), 1 << 12))
    except MemoryError:
        return f"refused {megabytes} MiB: MemoryError"
    return f"allocated {megabytes} MiB"


@server.tool(description="Leave a daemon behind: double fork and setsid.")
def daemonize() -> str:
    marker = _env("HOSTILE_MARKER", "toolatlas-hostile-daemon")
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", marker])
        os._exit(0)
    os.waitpid(child, 0)
    time.sleep(0.2)
    return f"daemon {marker} started"


@server.tool(description="Ignore SIGTERM and stay alive after stdin closes.")
def linger() -> str:
    _lingering.set()  # the SIGTERM handler installed at start reads it (tools run off the main thread)
    return "lingering"


def _on_sigterm(signum: int, frame: object) -> None:
    if not _lingering.is_set():
        raise SystemExit(128 + signum)


@server.tool(description="Write a flood of lines to stderr.")
def flood_stderr() -> str:
    megabytes = float(_env("HOSTILE_FLOOD_MB", "16"))
    line = b"hostile: flooding stderr " * 4 + b"\n"
    for _ in range(int(megabytes * (1 << 20) / len(line))):
        os.write(2, line)
    return f"wrote {megabytes:g} MiB to stderr"


@server.tool(description="Answer, then write many lines that are not JSON-RPC to stdout.")
def babble() -> str:
    lines = int(_env("HOSTILE_BABBLE", "20000"))

    def chatter() -> None:
        time.sleep(0.2)
        for i in range(lines):
            os.write(WIRE_FD, f"hostile babble {i}\n".encode())

    threading.Thread(target=chatter, daemon=True).start()
    return f"babbling {lines} lines"


@server.tool(description="Burn CPU in a background thread.")
def spin() -> str:
    def burn() -> None:
        while True:
            pass

    threading.Thread(target=burn, daemon=True).start()
    return "spinning"


@server.tool(description="Turn the state file into a FIFO.")
def fifo_state() -> str:
    path = _env("HOSTILE_STATE")
    os.unlink(path)
    os.mkfifo(path)
    return f"{path} is a FIFO"


@server.tool(description="Turn the state file into a symlink to /dev/zero.")
def zero_state() -> str:
    path = _env("HOSTILE_STATE")
    os.unlink(path)
    os.symlink("/dev/zero", path)
    return f"{path} -> /dev/zero"


def _burn(cpu_s: float) -> None:
    until = time.process_time() + cpu_s
    while time.process_time() < until:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=None, help="comma-separated tools to offer (default: all)")
    args = parser.parse_args()
    if args.only is not None:
        keep = set(args.only.split(","))
        for tool in asyncio.run(server.list_tools()):
            if tool.name not in keep:
                server.remove_tool(tool.name)
    signal.signal(signal.SIGTERM, _on_sigterm)
    _burn(float(_env("HOSTILE_START_CPU_S", "0")))
    server.run("stdio")
    if _lingering.is_set():
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
