"""The one exception tree of ToolAtlas.

Expected failures of the things we probe (a tool error, a timeout, a crashed server, a failed
verification) are *data* in result models, never exceptions. Exceptions are for failures of
ToolAtlas itself or of its inputs::

    ToolAtlasError
    ├── ConfigError              a catalogue or setting is malformed (names the file and field)
    ├── BackendError             something we depend on failed
    │   ├── RuntimeInstallError  an MCP server runtime could not be provisioned (npm, venv, pip)
    │   ├── ServerStartError     an MCP server could not be started or initialised
    │   ├── StoreError           the graph store failed
    │   ├── WorkerError          a worker process of a distributed build (a Ray actor) gave no
    │   │   │                    answer within its named timeout, or is lost for good
    │   │   └── RoundLost        the worker holding a server's state died: the build reopens the
    │   │                        server from its last checkpoint and runs the round again
    │   └── LlmError             an LLM endpoint failed: unreachable or overloaded after retries,
    │       │                    auth refused, request rejected
    │       └── LlmOutputError   the LLM answered, but never in the required shape (raised only
    │                            on request: ``LlmReply.parsed_or_raise()``; the default is a
    │                            typed ``StructuredOutputFailure`` in the reply)
    ├── SandboxError             an environment instance could not be prepared, reset or frozen
    │   ├── SnapshotError        a snapshot source is missing, unreadable or cannot be built
    │   ├── ConfinementError     a server's OS sandbox cannot be set up here (bubblewrap missing,
    │   │                        namespaces refused)
    │   └── CodeSandboxError     the code box itself failed to run code (not: the code failed)
    ├── VerificationError        a verifier could not be run (not: a verifier said "failed")
    └── TrustError               an atlas is not signed by a trusted key, or was changed after signing

Third-party exceptions are translated at the adapter edge with ``raise X(...) from exc``.
"""

from __future__ import annotations

__all__ = [
    "BackendError",
    "CodeSandboxError",
    "ConfigError",
    "ConfinementError",
    "LlmError",
    "LlmOutputError",
    "RoundLost",
    "RuntimeInstallError",
    "SandboxError",
    "ServerStartError",
    "SnapshotError",
    "StoreError",
    "ToolAtlasError",
    "TrustError",
    "VerificationError",
    "WorkerError",
]


class ToolAtlasError(Exception):
    """Root of every error ToolAtlas raises on purpose."""


class ConfigError(ToolAtlasError):
    """A configuration file or value is malformed.

    ``problems`` holds one ``(field, message)`` pair per problem, so a caller can show all of
    them at once instead of making the user fix one error per run.
    """

    def __init__(self, file: str | None, problems: list[tuple[str, str]]) -> None:
        self.file = file
        self.problems = problems
        where = file or "<config>"
        lines = [f"{where}: {field}: {message}" if field else f"{where}: {message}" for field, message in problems]
        super().__init__("invalid configuration\n  " + "\n  ".join(lines))

    def __reduce__(self):  # picklable across processes (Ray re-raises it in the driver)
        return (type(self), (self.file, self.problems))


class BackendError(ToolAtlasError):
    """A component ToolAtlas depends on failed (runtime installer, server process, store, LLM)."""


class RuntimeInstallError(BackendError):
    """An MCP server runtime could not be provisioned."""


class ServerStartError(BackendError):
    """An MCP server could not be started or did not complete the MCP handshake."""

    def __init__(self, server: str, reason: str, stderr_tail: str = "") -> None:
        self.server = server
        self.reason = reason
        self.stderr_tail = stderr_tail
        message = f"server {server!r} failed to start: {reason}"
        if stderr_tail:
            message += "\n--- server stderr (tail) ---\n" + stderr_tail
        super().__init__(message)

    def __reduce__(self):  # picklable across processes (Ray re-raises it in the driver)
        return (type(self), (self.server, self.reason, self.stderr_tail))


class StoreError(BackendError):
    """The graph store failed."""


class WorkerError(BackendError):
    """A worker process of a distributed build (a Ray actor) gave no answer in time, or is lost for good."""


class RoundLost(WorkerError):
    """The worker holding a server's state died: its round is run again from the last checkpoint."""


class LlmError(BackendError):
    """An LLM endpoint failed: unreachable or overloaded after every retry, auth refused, request rejected.

    ``status`` is the last HTTP status (None for connection errors and timeouts); ``attempts``
    counts the HTTP requests made for this call.
    """

    def __init__(self, message: str, *, status: int | None = None, attempts: int = 1) -> None:
        self.status = status
        self.attempts = attempts
        super().__init__(message)

    def __reduce__(self):  # picklable across processes (Ray re-raises it in the driver)
        return (_rebuild_llm_error, (type(self), self.args[0], self.status, self.attempts))


class LlmOutputError(LlmError):
    """The LLM answered, but its answer never validated against the required schema (after repairs)."""


def _rebuild_llm_error(cls: type[LlmError], message: str, status: int | None, attempts: int) -> LlmError:
    return cls(message, status=status, attempts=attempts)


class SandboxError(ToolAtlasError):
    """An environment instance could not be prepared, reset, frozen or discarded."""


class SnapshotError(SandboxError):
    """A snapshot source is missing, unreadable, or could not be materialised."""


class ConfinementError(SandboxError):
    """A server's OS sandbox cannot be set up on this machine: bubblewrap or ``prlimit`` is missing, or
    the kernel refuses the namespaces it needs. The message says what is missing and how to get it."""


class CodeSandboxError(SandboxError):
    """The code box could not run untrusted code at all (interpreter missing, child died while confining).

    What the code itself does (fail, raise, hang, crash, break a rule) is a result, not this.
    """


class VerificationError(ToolAtlasError):
    """A verifier could not be run at all (distinct from a verifier that ran and said 'failed')."""


class TrustError(ToolAtlasError):
    """An atlas export is refused: unsigned where a signature is required, signed by a key that is
    not trusted, or changed after it was signed (or a key file is unusable)."""
