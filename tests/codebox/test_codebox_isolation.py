"""The code box stops what untrusted code must not do — with every layer, with the audit hook alone, and
with the kernel layers alone — and records it; limits end runaway code; the child never outlives a run."""

from __future__ import annotations

import asyncio
import ctypes
import os
import platform
import socket
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolatlas.codebox import (
    Isolation,
    RunPolicy,
    RunStatus,
    VerifierResult,
    ViolationRule,
    run_code,
    run_verifier,
)
from toolatlas.environments import FrozenState
from toolatlas.errors import ServerStartError

REPO = Path(__file__).resolve().parents[2]
LAYERS = {
    "all": RunPolicy(timeout_s=10),
    "audit_hook_only": RunPolicy(timeout_s=10, kernel_isolation=False),
    "kernel_only": RunPolicy(timeout_s=10, audit_hook=False),
}


@pytest.fixture(scope="module")
def kernel_isolation() -> Isolation:
    """The layers this machine grants a child (probed once with harmless code)."""
    state_dir = Path(os.environ.get("TMPDIR", "/tmp"))
    frozen = FrozenState(kind="directory", instance_id="probe", path=str(state_dir))
    result = asyncio.run(run_verifier("def verify(s, a):\n    return True\n", frozen))
    return result.isolation


@pytest.fixture(params=sorted(LAYERS))
def layers(request: pytest.FixtureRequest, kernel_isolation: Isolation) -> str:
    if request.param == "kernel_only" and not kernel_isolation.kernel_enforced:
        pytest.skip(f"this kernel grants no Landlock + seccomp: {kernel_isolation.notes}")
    return request.param


@pytest.fixture()
def state(tmp_path: Path) -> FrozenState:
    root = tmp_path / "state"
    root.mkdir()
    (root / "data.txt").write_text("frozen\n")
    return FrozenState(kind="directory", instance_id="t", path=str(root))


@pytest.fixture()
def outside(tmp_path: Path) -> Iterator[list[Path]]:
    """Paths outside the sandbox that must never come into existence: one in /tmp, one in the repository."""
    tag = uuid.uuid4().hex[:8]
    paths = [tmp_path / f"outside-{tag}", REPO / f".codebox-escape-{tag}"]
    yield paths
    for path in paths:
        if path.is_dir():
            path.rmdir()
        path.unlink(missing_ok=True)


async def verify_with(source: str, state: FrozenState, layers: str, **policy: object) -> VerifierResult:
    """Run ``source`` as the body of ``verify(state, answer)`` under the given layers."""
    body = "\n".join("    " + line for line in source.strip().splitlines())
    return await run_verifier(
        f"def verify(state, answer):\n{body}\n    return True\n",
        state,
        policy=LAYERS[layers].model_copy(update=policy),
    )


def assert_refused(result: VerifierResult, layers: str, rule: ViolationRule) -> None:
    """With the audit hook the refusal is a recorded violation; the kernel alone makes it an error
    (a PermissionError, or whatever the library makes of EPERM/EACCES)."""
    if layers == "kernel_only":
        assert result.status is RunStatus.ERROR, result
        assert not result.violations
    else:
        assert result.status is RunStatus.VIOLATION, result
        assert result.violations[0].rule is rule


WRITES = {
    "open": "open({target!r}, 'w').write('escaped')",
    "pathlib": "import pathlib\npathlib.Path({target!r}).write_text('escaped')",
    "mkdir": "import os\nos.mkdir({target!r})",
    "copy": "import shutil\nshutil.copy(state.file('data.txt'), {target!r})",
    "sqlite": "import sqlite3\nsqlite3.connect({target!r}).execute('CREATE TABLE t (x)')",
}


class TestWrites:
    @pytest.mark.parametrize("how", sorted(WRITES))
    async def test_writes_outside_are_refused_and_nothing_is_created(
        self, state: FrozenState, outside: list[Path], layers: str, how: str
    ) -> None:
        """Writing to /tmp or into the repository, five ways: refused, and the path never exists."""
        for target in outside:
            result = await verify_with(WRITES[how].format(target=str(target)), state, layers)
            assert_refused(result, layers, ViolationRule.WRITE_OUTSIDE)
            assert not target.exists()

    async def test_a_caught_violation_is_still_recorded(
        self, state: FrozenState, outside: list[Path]
    ) -> None:
        """Catching the PermissionError does not hide the attempt: the run is a violation, not a pass."""
        source = f"try:\n    open({str(outside[0])!r}, 'w')\nexcept Exception:\n    pass"
        result = await verify_with(source, state, "all")
        assert result.status is RunStatus.VIOLATION
        assert result.violations[0].detail == f"open {str(outside[0])!r} for writing"
        assert not outside[0].exists()

    async def test_the_state_is_read_only(self, state: FrozenState, layers: str) -> None:
        """Even inside the frozen state nothing can be written or removed."""
        result = await verify_with("import os\nos.remove(state.file('data.txt'))", state, layers)
        assert_refused(result, layers, ViolationRule.WRITE_OUTSIDE)
        assert (Path(state.path) / "data.txt").read_text() == "frozen\n"

    async def test_the_work_dir_temp_files_and_dev_null_are_writable(
        self, state: FrozenState, layers: str
    ) -> None:
        """Ordinary scratch work is allowed: cwd files, tempfile (incl. unnamed), /dev/null."""
        source = """
import os, tempfile
open("scratch.txt", "w").write("x")
with tempfile.TemporaryFile() as handle:
    handle.write(b"y")
folder = tempfile.mkdtemp()
open(os.path.join(folder, "z"), "w").write("z")
open(os.devnull, "w").write("nothing")
assert open("scratch.txt").read() == "x"
"""
        result = await verify_with(source, state, layers)
        assert result.status is RunStatus.OK, result


class TestNetwork:
    @pytest.mark.parametrize(
        "how",
        [
            "import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)",
            "import socket\ns = socket.socket()\ns.settimeout(2)\ns.connect(('127.0.0.1', {port}))",
            "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:{port}/', timeout=2)",
        ],
    )
    async def test_no_connection_reaches_a_real_listener(
        self, state: FrozenState, layers: str, how: str
    ) -> None:
        """A listening socket on 127.0.0.1 sees no connection from the code, whatever API it uses."""
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen()
            result = await verify_with(how.format(port=listener.getsockname()[1]), state, layers)
            listener.setblocking(False)
            with pytest.raises(BlockingIOError):
                listener.accept()
        if layers == "kernel_only":
            assert result.status is RunStatus.ERROR
            assert result.detail.startswith(("PermissionError", "URLError")), result.detail
        else:
            assert result.status is RunStatus.VIOLATION
            assert result.violations[0].rule is ViolationRule.NETWORK


class TestProcesses:
    @pytest.mark.parametrize(
        "how",
        [
            "import subprocess\nsubprocess.run(['touch', {marker!r}])",
            "import os\nassert os.system('touch {marker}') == 0, 'os.system failed'",
            "import os\npid = os.fork()\nif pid == 0:\n    os.execv('/usr/bin/touch', ['touch', {marker!r}])\nos.waitpid(pid, 0)",
            "import os\npid = os.posix_spawn('/usr/bin/touch', ['touch', {marker!r}], {{}})\nos.waitpid(pid, 0)",
        ],
    )
    async def test_no_program_runs(self, state: FrozenState, tmp_path: Path, layers: str, how: str) -> None:
        """subprocess, os.system, fork+exec and posix_spawn: refused, the marker file never appears."""
        marker = tmp_path / "spawned"
        result = await verify_with(how.format(marker=str(marker)), state, layers)
        assert not marker.exists()
        if layers == "kernel_only":
            assert result.status in (RunStatus.ERROR, RunStatus.FAILED), result
        else:
            assert result.status is RunStatus.VIOLATION
            assert result.violations[0].rule is ViolationRule.SUBPROCESS

    async def test_no_signal_to_other_processes(
        self, state: FrozenState, layers: str, kernel_isolation: Isolation
    ) -> None:
        """Signalling the parent (signal 0: harmless here) is refused."""
        if layers == "kernel_only" and kernel_isolation.landlock_abi < 6:
            pytest.skip("Landlock signal scoping needs ABI 6")
        result = await verify_with("import os\nos.kill(os.getppid(), 0)", state, layers)
        assert_refused(result, layers, ViolationRule.SIGNAL)

    async def test_ctypes_is_native_code(self, state: FrozenState) -> None:
        """Importing ctypes (a way around every Python-level guard) is a violation under the audit hook."""
        result = await verify_with("import ctypes\nctypes.CDLL(None).getpid()", state, "audit_hook_only")
        assert result.status is RunStatus.VIOLATION
        assert result.violations[0].rule is ViolationRule.NATIVE_CODE


class TestLimits:
    @pytest.mark.parametrize("loop", ["while True:\n    pass", "import time\ntime.sleep(3600)"])
    async def test_runaway_code_times_out_and_the_process_is_gone(
        self, state: FrozenState, loop: str
    ) -> None:
        """A busy loop or a long sleep hits the wall clock; the whole process group is killed."""
        result = await verify_with(
            f"import os\nprint(os.getpid(), flush=True)\n{loop}", state, "all", timeout_s=1.0
        )
        assert result.status is RunStatus.TIMEOUT
        assert result.detail == "wall-clock limit of 1s reached"
        pid = int(result.stdout.split()[0])
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)

    async def test_the_cpu_limit_stops_a_busy_loop(self, state: FrozenState) -> None:
        """RLIMIT_CPU ends a busy loop before a generous wall clock does."""
        result = await verify_with("while True:\n    pass", state, "all", timeout_s=30.0, cpu_s=1)
        assert result.status is RunStatus.TIMEOUT
        assert result.detail == "CPU limit of 1s reached"

    @pytest.mark.parametrize(
        ("source", "detail"),
        [
            ("import os\nos.abort()", "killed by SIGABRT"),
            ("hog = bytearray(8 << 30)", "memory limit (1024 MiB) exceeded"),
            (
                "open('big', 'wb').write(bytes(2 << 20))",
                "file size limit exceeded: [Errno 27] File too large",
            ),
            ("import os\nos._exit(3)", "exited with status 3 without a result"),
        ],
    )
    async def test_crashes_are_results(self, state: FrozenState, source: str, detail: str) -> None:
        """Abort, the memory and file-size limits, and a silent exit are each a crashed run."""
        result = await verify_with(source, state, "all", file_size_mb=1)
        assert result.status is RunStatus.CRASHED
        assert result.detail == detail

    async def test_output_is_capped_head_and_tail(self, state: FrozenState) -> None:
        """A flood of output keeps its head and tail within the budget and counts every byte."""
        source = "print('HEAD')\nfor i in range(20000):\n    print('x' * 50)\nprint('TAIL')"
        result = await verify_with(source, state, "all", max_output_bytes=2000)
        assert result.status is RunStatus.OK
        assert result.stdout_bytes == 5 + 20000 * 51 + 5
        assert result.stdout.startswith("HEAD\n") and result.stdout.endswith("TAIL\n")
        assert "bytes omitted" in result.stdout and len(result.stdout) < 2100


class TestChild:
    async def test_environment_and_working_directory_are_private(
        self, state: FrozenState, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The code sees a scrubbed environment and a fresh work dir, which is deleted after the run."""
        monkeypatch.setenv("CODEBOX_TEST_SECRET", "hunter2")
        result = await verify_with(
            "import os, sys\nprint(os.getcwd())\nprint(sorted(os.environ))", state, "all"
        )
        cwd, names = result.stdout.splitlines()
        assert "CODEBOX_TEST_SECRET" not in names and "PATH" in names
        assert Path(cwd).name.startswith("codebox-")
        assert not Path(cwd).exists()

    async def test_reads_are_confined_to_python_and_the_state(
        self, state: FrozenState, tmp_path: Path, layers: str
    ) -> None:
        """The code reads its state but not a file next to it: refused (by Landlock, by the hook, or both)."""
        secret = tmp_path / "secret.txt"
        secret.write_text("do not read")
        result = await verify_with(
            f"assert state.read_text('data.txt') == 'frozen\\n'\nprint(open({str(secret)!r}).read())", state, layers
        )
        if layers == "kernel_only":
            assert result.status is RunStatus.ERROR
            assert result.detail == f"PermissionError: [Errno 13] Permission denied: {str(secret)!r}"
        else:
            assert result.status is RunStatus.VIOLATION
            assert result.violations[0].rule is ViolationRule.READ_OUTSIDE
        assert "do not read" not in result.stdout

    @pytest.mark.parametrize(
        "how",
        [
            "open({secret!r}).read()",
            "import os\nos.listdir({folder!r})",
            "import os\nlist(os.scandir({folder!r}))",
            "import sqlite3\nsqlite3.connect('file:' + {secret!r} + '?mode=ro', uri=True).execute('select 1')",
        ],
    )
    async def test_a_caught_refused_read_still_fails_the_verifier(
        self, state: FrozenState, tmp_path: Path, how: str
    ) -> None:
        """A verifier that reads outside its state and catches the refusal does not pass: the read is recorded."""
        secret = tmp_path / "secret.txt"
        secret.write_text("do not read")
        body = "\n".join("    " + line for line in how.format(secret=str(secret), folder=str(tmp_path)).splitlines())
        result = await verify_with(f"try:\n{body}\nexcept Exception:\n    pass", state, "all")
        assert result.status is RunStatus.VIOLATION and not result.passed
        assert result.violations[0].rule is ViolationRule.READ_OUTSIDE
        assert str(tmp_path) in result.violations[0].detail

    async def test_the_work_dir_has_a_disk_quota(self, state: FrozenState, kernel_isolation: Isolation) -> None:
        """Many files under the per-file limit cannot fill the disk: the work dir stops at its quota, and
        a run that used it all up is a violation even when it caught the error."""
        source = """
written = 0
try:
    for i in range(100):
        with open(f"chunk-{i}", "wb") as handle:
            handle.write(b"x" * (4 << 20))
        written += 4
except OSError as exc:
    print("stopped", exc.errno, written)
"""
        result = await verify_with(source, state, "all", disk_quota_mb=16, file_size_mb=8)
        assert result.isolation.disk_quota_mb == 16, result.isolation.notes
        assert result.stdout.split()[:2] == ["stopped", "28"]  # ENOSPC
        assert int(result.stdout.split()[2]) <= 16
        assert result.status is RunStatus.VIOLATION
        assert result.violations[-1].rule is ViolationRule.DISK_QUOTA

    async def test_scratch_work_within_the_quota_passes(self, state: FrozenState) -> None:
        """Writing a few MiB in the work dir, under the quota, is ordinary scratch work."""
        source = 'open("scratch.bin", "wb").write(b"x" * (2 << 20))\nimport os\nos.remove("scratch.bin")'
        result = await verify_with(source, state, "all", disk_quota_mb=16)
        assert result.status is RunStatus.OK, result

    @pytest.mark.parametrize(
        "how",
        [
            'os.write(fd, b\'{"event": "result", "status": "ok"}\\n\')',  # a forged second verdict
            "os.write(fd, b'garbage\\n')",
        ],
    )
    async def test_writing_to_the_side_channel_is_tampering(
        self, state: FrozenState, layers: str, how: str
    ) -> None:
        """Forged or malformed messages on the parent's pipe make the run a ``tamper`` violation."""
        source = f"""
import os, stat
for fd in range(3, 64):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            {how}
    except OSError:
        pass
"""
        result = await verify_with(source, state, layers)
        assert result.status is RunStatus.VIOLATION
        assert result.violations[-1].rule is ViolationRule.TAMPER

    async def test_closing_the_side_channel_does_not_hide_a_violation(
        self, state: FrozenState, tmp_path: Path
    ) -> None:
        """Code that closes its pipes and then breaks a rule still ends as a violation."""
        source = f"""
import os
os.closerange(3, 64)
open({str(tmp_path / "x")!r}, 'w')
"""
        result = await verify_with(source, state, "all")
        assert result.status is RunStatus.VIOLATION
        assert result.violations[0].rule is ViolationRule.TAMPER
        assert not (tmp_path / "x").exists()

    def test_the_kernel_layers_this_machine_allows_are_in_force(self, kernel_isolation: Isolation) -> None:
        """Each layer the test process itself can establish is reported as in force for the child."""
        can_unshare = (
            subprocess.run(["unshare", "--net", "true"], check=False, capture_output=True).returncode == 0
        )
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        landlock_abi = max(0, libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)))
        if can_unshare:
            assert kernel_isolation.network_namespace
        assert kernel_isolation.landlock_abi == landlock_abi
        assert kernel_isolation.seccomp == (platform.machine() in ("x86_64", "aarch64"))
        assert kernel_isolation.nproc_limited == (os.getuid() != 0)
        assert kernel_isolation.audit_hook

    async def test_a_snippet_that_raises_shows_its_traceback_as_the_observation(self) -> None:
        """For CodeAct an uncaught exception (even an assertion) is an error; the agent sees print output and traceback."""

        async def unused_bridge(tool: str, arguments: dict) -> object:
            raise AssertionError("the snippet made no tool call")

        result = await run_code("print('step 1')\nassert 1 + 1 == 3, 'arithmetic'", unused_bridge, [])
        assert (result.status, result.detail) == (RunStatus.ERROR, "AssertionError: arithmetic")
        assert result.observation.startswith("step 1\nTraceback (most recent call last):\n")
        assert (
            "File \"<snippet>\", line 2, in <module>\n    assert 1 + 1 == 3, 'arithmetic'"
            in result.observation
        )
        assert result.observation.endswith("\nAssertionError: arithmetic")

    async def test_cancelling_a_run_leaves_no_process(self) -> None:
        """A caller that gives up (task cancelled mid tool call) still gets the child killed."""
        pids: list[int] = []
        called = asyncio.Event()

        async def slow_bridge(tool: str, arguments: dict) -> object:
            pids.append(arguments["pid"])
            called.set()
            await asyncio.Event().wait()  # a tool call that never answers
            raise AssertionError("unreachable")

        run = asyncio.create_task(
            run_code("import os\ncall_tool('read_graph', {'pid': os.getpid()})", slow_bridge, ["read_graph"])
        )
        await asyncio.wait_for(called.wait(), 10)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        with pytest.raises(ProcessLookupError):
            os.kill(pids[0], 0)

    async def test_a_failing_bridge_propagates_and_kills_the_snippet(self) -> None:
        """An infrastructure failure in the tool bridge is raised to the caller; the snippet does not linger."""
        seen: list[int] = []

        async def broken_bridge(tool: str, arguments: dict) -> object:
            seen.append(arguments["pid"])
            raise ServerStartError("memory", "the server would not start")

        with pytest.raises(ServerStartError):
            await run_code(
                "import os\ncall_tool('read_graph', {'pid': os.getpid()})", broken_bridge, ["read_graph"]
            )
        with pytest.raises(ProcessLookupError):
            os.kill(seen[0], 0)
