"""The seccomp filter a confined server runs under: the kernel interfaces no MCP server needs.

bubblewrap installs it (``--seccomp FD``) as the last step before the server's program starts; the
filter is inherited by everything the server runs and cannot be removed. It answers ``EPERM`` to

- loading kernel code or keys and kernel tracing (``init_module``, ``kexec_*``, ``bpf``,
  ``perf_event_open``, ``keyctl``…), ``userfaultfd``, swap, reboot, accounting, raw I/O ports;
- anything that rearranges mounts (``mount``, ``umount2``, ``pivot_root``, the new mount API,
  ``open_by_handle_at``) or joins another namespace (``setns``);
- ``io_uring`` (its operations bypass seccomp, sockets included);

and, for a server without network (``network = "none"``), ``EACCES`` to creating a socket of an
internet or packet family: unix sockets and socket pairs (which runtimes use internally) remain.
Syscalls of a foreign ABI (x32, i386) kill the process: a filter keyed on x86-64 numbers cannot
judge them.
"""

from __future__ import annotations

import errno
import hashlib
import platform
import struct

__all__ = ["SUPPORTED_MACHINES", "filter_program"]

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
SUPPORTED_MACHINES = frozenset(_AUDIT_ARCH)
_DENIED = {
    "x86_64": {
        "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321, "userfaultfd": 323,
        "perf_event_open": 298, "kexec_load": 246, "kexec_file_load": 320, "init_module": 175,
        "finit_module": 313, "delete_module": 176, "mount": 165, "umount2": 166, "pivot_root": 155,
        "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163, "iopl": 172, "ioperm": 173,
        "open_by_handle_at": 304, "name_to_handle_at": 303, "setns": 308,
    },
    "aarch64": {
        "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280, "userfaultfd": 282,
        "perf_event_open": 241, "kexec_load": 104, "kexec_file_load": 294, "init_module": 105,
        "finit_module": 273, "delete_module": 106, "mount": 40, "umount2": 39, "pivot_root": 41,
        "swapon": 224, "swapoff": 225, "reboot": 142, "acct": 89, "open_by_handle_at": 265,
        "name_to_handle_at": 264, "setns": 268,
    },
}  # fmt: skip
_DENIED_GENERIC = {  # the same numbers on both architectures
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
}  # fmt: skip
_SYS_SOCKET = {"x86_64": 41, "aarch64": 198}
_INTERNET_FAMILIES = (2, 10, 17)  # AF_INET, AF_INET6, AF_PACKET
_X32_SYSCALL_BIT = 0x40000000
_RET_ALLOW, _RET_KILL_PROCESS, _RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_OFFSET_NR, _OFFSET_ARCH, _OFFSET_ARG0 = 0, 4, 16


def filter_program(*, network: bool, machine: str | None = None) -> bytes:
    """The compiled classic-BPF program (``struct sock_filter[]``) for a server with or without network."""
    machine = machine or platform.machine()
    if machine not in _AUDIT_ARCH:
        raise ValueError(f"no seccomp filter for architecture {machine}")
    deny = _RET_ERRNO | errno.EPERM
    program: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, _OFFSET_ARCH),
        (_JEQ_K, 1, 0, _AUDIT_ARCH[machine]),
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, _OFFSET_NR),
    ]
    if machine == "x86_64":
        program += [(_JGE_K, 0, 1, _X32_SYSCALL_BIT), (_RET_K, 0, 0, _RET_KILL_PROCESS)]
    for number in sorted({*_DENIED[machine].values(), *_DENIED_GENERIC.values()}):
        program += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, deny)]
    if not network:
        refuse = _RET_ERRNO | errno.EACCES
        families = [(_JEQ_K, 0, 1, family) for family in _INTERNET_FAMILIES]
        checks: list[tuple[int, int, int, int]] = [(_LD_W_ABS, 0, 0, _OFFSET_ARG0)]
        for check in families:
            checks += [check, (_RET_K, 0, 0, refuse)]
        checks.append((_RET_K, 0, 0, _RET_ALLOW))
        program += [(_JEQ_K, 0, len(checks), _SYS_SOCKET[machine]), *checks]
    program.append((_RET_K, 0, 0, _RET_ALLOW))
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


def program_name(program: bytes) -> str:
    """A file name for a compiled program, derived from its content."""
    return f"seccomp-{hashlib.sha256(program).hexdigest()[:16]}.bpf"
