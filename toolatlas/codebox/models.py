"""What goes into a code-box run (:class:`RunPolicy`) and what comes out (:class:`RunResult` and kin).

Everything the code does is data in the result: a failed check, an exception, a timeout, a
crash and every refused action are statuses and fields, never exceptions in the caller.
"""

from __future__ import annotations

import math
from enum import StrEnum

from pydantic import Field

from toolatlas.models import CallOutcome, Frozen

__all__ = [
    "CodeResult",
    "Isolation",
    "RunPolicy",
    "RunResult",
    "RunStatus",
    "VacuityReport",
    "VerifierResult",
    "Violation",
    "ViolationRule",
]


class RunStatus(StrEnum):
    """How one run of untrusted code ended."""

    OK = "ok"
    """It ran to the end (a verifier: and said the task is resolved)."""
    FAILED = "failed"
    """A verifier ran and said the task is not resolved (returned False or raised AssertionError)."""
    ERROR = "error"
    """The code raised an exception, does not compile, or a verifier returned something other than a verdict."""
    TIMEOUT = "timeout"
    """The wall-clock or CPU limit ran out; the whole process group was killed."""
    VIOLATION = "violation"
    """The code tried something the sandbox forbids (see :attr:`RunResult.violations`); it was refused."""
    CRASHED = "crashed"
    """The process died on a signal, hit the memory or file-size limit, or exited without a result."""


class ViolationRule(StrEnum):
    """Which sandbox rule an action broke."""

    NETWORK = "network"
    WRITE_OUTSIDE = "write_outside"
    SUBPROCESS = "subprocess"
    SIGNAL = "signal"
    NATIVE_CODE = "native_code"
    READ_OUTSIDE = "read_outside"
    """A file or folder outside the Python installation, the state and the work dir was opened or listed."""
    DISK_QUOTA = "disk_quota"
    """The work dir was full (its quota reached) when the code finished."""
    TAMPER = "tamper"
    """The side channel to the parent was written to, closed or replaced by the code."""


class Violation(Frozen):
    rule: ViolationRule
    detail: str


class Isolation(Frozen):
    """Which confinement layers were in force for a run (they depend on the kernel and privileges)."""

    network_namespace: bool = False
    """A private network namespace (no interface up): no TCP/UDP at all."""
    landlock_abi: int = 0
    """Landlock ABI in force (0: none): reads only below the read roots, writes only in the work dir, no exec."""
    seccomp: bool = False
    """The seccomp filter: no sockets, no exec, no fork (threads allowed)."""
    nproc_limited: bool = False
    """``RLIMIT_NPROC = 0`` applies: not for real root; in a fresh user namespace it lets one task through."""
    audit_hook: bool = False
    """The in-process audit hook that records and refuses forbidden actions."""
    disk_quota_mb: int = 0
    """The work dir's size bound in force (0: none — it is then only bounded per file)."""
    notes: list[str] = Field(default_factory=list)
    """Why a layer is missing."""

    @property
    def kernel_enforced(self) -> bool:
        """Writes, processes and network are stopped by the kernel, not only by the audit hook."""
        return self.landlock_abi > 0 and self.seccomp


class RunPolicy(Frozen):
    """Limits and confinement of one run. The defaults suit a verifier or a short agent snippet."""

    timeout_s: float = Field(default=10.0, gt=0)
    """Wall clock from start to exit, tool calls included; then the process group is killed."""
    cpu_s: int | None = Field(default=None, gt=0)
    """CPU-second limit (``RLIMIT_CPU``); by default the wall-clock limit rounded up, plus one."""
    memory_mb: int = Field(default=1024, gt=64)
    """Address-space limit (``RLIMIT_AS``)."""
    file_size_mb: int = Field(default=64, gt=0)
    """Largest file the code may write (``RLIMIT_FSIZE``)."""
    disk_quota_mb: int = Field(default=64, gt=0)
    """What the work dir holds at most, all files together (a size-bounded tmpfs of its own)."""
    open_files: int = Field(default=256, gt=16)
    max_output_bytes: int = Field(default=64_000, gt=0)
    """Captured stdout kept (head and tail); stderr keeps a quarter of it."""
    max_tool_calls: int = Field(default=50, ge=0)
    """Tool calls one CodeAct snippet may make; later calls are refused inside the snippet."""
    kernel_isolation: bool = True
    """Use the network namespace, Landlock and seccomp where the kernel allows them."""
    audit_hook: bool = True
    """Install the audit hook (it records violations; without it the kernel layers only refuse)."""
    extra_read_roots: tuple[str, ...] = ()
    """More paths the code may read, beyond the Python installation and its state."""

    @property
    def cpu_limit_s(self) -> int:
        return self.cpu_s if self.cpu_s is not None else math.ceil(self.timeout_s) + 1


class RunResult(Frozen):
    """How one run ended, what it printed and which actions were refused."""

    status: RunStatus
    detail: str = ""
    """The verifier's reason, the exception, the violation or the signal, in one line."""
    traceback: str = ""
    """The tail of the code's traceback (its own frames), when it raised."""
    violations: list[Violation] = Field(default_factory=list)
    stdout: str = ""
    """What the code printed (head and tail when over the limit)."""
    stderr: str = ""
    stdout_bytes: int = 0
    """Bytes printed in total, kept or not."""
    stderr_bytes: int = 0
    exit_code: int | None = None
    """The process's exit status (negative: killed by that signal)."""
    duration_ms: float = 0.0
    isolation: Isolation = Isolation()


class VerifierResult(RunResult):
    """The result of running ``verify(state, answer)`` against one frozen state."""

    @property
    def passed(self) -> bool:
        return self.status is RunStatus.OK

    @property
    def verdict(self) -> bool:
        """Whether the verifier reached a verdict at all (passed or failed, not error/timeout/...)."""
        return self.status in (RunStatus.OK, RunStatus.FAILED)


class CodeResult(RunResult):
    """The result of one CodeAct snippet: the run plus every tool call it made, in order."""

    calls: list[CallOutcome] = Field(default_factory=list)
    refused_calls: int = 0
    """Calls refused inside the snippet (unknown tool, over the call limit); they never reached the server."""

    @property
    def observation(self) -> str:
        """What the agent sees next: the printed output, then the error or refusal if there was one."""
        parts = [self.stdout.rstrip("\n")] if self.stdout.strip() else []
        if self.status is not RunStatus.OK:
            parts.append(
                self.traceback.rstrip("\n") if self.traceback else f"[{self.status.value}] {self.detail}"
            )
            if self.traceback and self.status is not RunStatus.ERROR:
                parts.append(f"[{self.status.value}] {self.detail}")
        return "\n".join(parts) if parts else "(no output)"


class VacuityReport(Frozen):
    """Whether a proposed verifier is usable: it reaches a verdict, and cannot pass without the work."""

    accepted: bool
    reason: str
    on_post_state: VerifierResult
    on_initial_state: VerifierResult | None = None
    """The run on the untouched state (only when the task requires a change)."""
