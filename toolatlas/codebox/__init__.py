"""The code box: run untrusted Python written by an LLM — verifiers and CodeAct snippets — confined.

Two entry points, both async, both returning data (never raising for what the code does):

- :func:`run_verifier` ``(source, state, answer, *, timeout, policy) -> VerifierResult`` runs
  ``def verify(state, answer)`` against a frozen post-state (see :mod:`.stateview` for what
  ``state`` offers per environment kind); :func:`check_not_vacuous` vets a proposed verifier.
- :func:`run_code` ``(source, bridge, tool_names, *, timeout, policy) -> CodeResult`` runs an
  agent's snippet whose ``call_tool(...)`` / ``tools.name(...)`` go through ``bridge`` to a
  live MCP server; every call is recorded (see :mod:`.toolproxy` for the snippet's side).

Each run is a fresh child process of this venv's interpreter (``-I`` isolated mode, scrubbed
environment, a temporary working directory that is deleted afterwards) under these guards:

=================  =====================================================================
guarantee          how (kernel layers are applied when available: see ``Isolation``)
=================  =====================================================================
time               wall-clock deadline kills the process group; ``RLIMIT_CPU``
memory, files      ``RLIMIT_AS``, ``RLIMIT_FSIZE``, ``RLIMIT_NOFILE``, no core dumps
no network         network namespace (loopback down); Landlock TCP rules; seccomp: no
                   ``socket()``; audit hook on every ``socket.*`` event
no writes outside  Landlock: writes only in the work dir (and ``/dev/null``); audit hook
the work dir       on ``open``-for-write and every path-changing ``os``/``shutil`` event;
                   SQLite only ``mode=ro`` outside the work dir
no processes       seccomp: no ``execve``, ``fork``, non-thread ``clone``; Landlock: nothing
                   executable; ``RLIMIT_NPROC = 0`` (ignored for root); audit hook
reads              Landlock: only the Python installation, system libraries and the state
output             stdout/stderr captured with a byte budget (head and tail kept)
=================  =====================================================================

A refused action is a :class:`Violation` in the result (status ``violation``) even when the
code catches the exception: the audit hook reports it to the parent before raising. The audit
hook alone is a recorder, not a security boundary; ``RunResult.isolation`` says which kernel
layers were in force for that run.
"""

from toolatlas.codebox.codeact import ToolBridge, run_code
from toolatlas.codebox.models import (
    CodeResult,
    Isolation,
    RunPolicy,
    RunResult,
    RunStatus,
    VacuityReport,
    VerifierResult,
    Violation,
    ViolationRule,
)
from toolatlas.codebox.verifier import check_not_vacuous, run_verifier

__all__ = [
    "CodeResult",
    "Isolation",
    "RunPolicy",
    "RunResult",
    "RunStatus",
    "ToolBridge",
    "VacuityReport",
    "VerifierResult",
    "Violation",
    "ViolationRule",
    "check_not_vacuous",
    "run_code",
    "run_verifier",
]
