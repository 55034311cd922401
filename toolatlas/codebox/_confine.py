"""Kernel-enforced confinement of the code-box child process (Linux; stdlib only, runs in the child).

Applied by :mod:`_child` before any untrusted code runs, in this order:

1. **Network and mount namespaces** — ``unshare(CLONE_NEWNET | CLONE_NEWNS)`` (as root), else
   with ``CLONE_NEWUSER`` and the caller's uid/gid mapped to itself. The new network namespace
   has only a loopback interface, and it is down: no TCP/UDP anywhere, not even to 127.0.0.1.
   Pathname unix sockets are *not* isolated by it (the seccomp filter covers them). In the new
   mount namespace (private, so nothing propagates back) the work dir becomes a tmpfs of the
   quota's size: everything the code writes there together is bounded, not only each file.
2. **Resource limits** — CPU seconds, address space, file size, open files, no core dumps, and
   ``RLIMIT_NPROC = 0`` (no new processes *or threads*; the kernel ignores it for real root).
3. **Landlock** — reads only below the given read roots, writes only below the write roots,
   nothing executable anywhere; with ABI ≥ 4 no TCP bind/connect; with ABI ≥ 6 no signals to
   and no abstract unix sockets of processes outside the sandbox.
4. **seccomp** — ``socket``/``socketpair``, ``execve``/``execveat``, ``fork``/``vfork``,
   ``clone`` without ``CLONE_THREAD``, ``ptrace`` and everything that changes mounts or namespaces
   (``mount``, ``umount2``, ``pivot_root``, ``unshare``, ``setns``: the quota cannot be unmounted)
   fail with ``EPERM`` (x86-64 and aarch64).

Each layer is applied when the kernel allows it and skipped otherwise; :func:`confine` returns
what was established so the parent can report it. Nothing here can be undone by the process.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import struct

__all__ = ["confine"]

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
_CLONE_THREAD = 0x00010000
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

# -- Landlock (include/uapi/linux/landlock.h) ------------------------------------------------------

_SYS_LANDLOCK_CREATE_RULESET, _SYS_LANDLOCK_ADD_RULE, _SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_TRUNCATE = 1 << 14
_FS_IOCTL_DEV = 1 << 15
_FILE_RIGHTS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


def _fs_rights(abi: int) -> int:
    """Every filesystem right the kernel's Landlock ABI knows (all of them are then denied by default)."""
    rights = (1 << 13) - 1  # ABI 1: EXECUTE .. MAKE_SYM
    if abi >= 2:
        rights |= 1 << 13  # REFER
    if abi >= 3:
        rights |= _FS_TRUNCATE
    if abi >= 5:
        rights |= _FS_IOCTL_DEV
    return rights


# -- seccomp: syscall numbers per architecture ------------------------------------------------------

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_DENIED_SYSCALLS = {
    # socket, socketpair, execve, execveat, ptrace, fork, vfork; mount, umount2, pivot_root, unshare, setns
    "x86_64": (41, 53, 59, 322, 101, 57, 58, 165, 166, 155, 272, 308),
    "aarch64": (198, 199, 221, 281, 117, 40, 39, 41, 97, 268),
}
_SYS_CLONE = {"x86_64": 56, "aarch64": 220}
_SYS_CLONE3 = 435
_X32_SYSCALL_BIT = 0x40000000
_RET_ALLOW, _RET_KILL_PROCESS, _RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def confine(
    *,
    read_roots: list[str],
    write_roots: list[str],
    device_files: list[str],
    cpu_s: int,
    memory_bytes: int,
    file_size_bytes: int,
    open_files: int,
    kernel: bool,
    quota_dir: str | None = None,
    quota_bytes: int = 0,
) -> dict[str, object]:
    """Apply every available layer; returns ``{"network_namespace", "landlock_abi", "seccomp", ...}``.

    ``device_files`` (such as ``/dev/null``) may be read and written. ``quota_dir`` (the work dir,
    empty at this point) becomes a tmpfs of ``quota_bytes``. With ``kernel=False`` only the
    resource limits are applied (the audit hook is then the only guard).
    """
    report: dict[str, object] = {
        "network_namespace": False, "landlock_abi": 0, "seccomp": False, "disk_quota_mb": 0, "notes": [],
    }  # fmt: skip
    notes: list[str] = report["notes"]  # type: ignore[assignment]
    libc = ctypes.CDLL(None, use_errno=True)
    if kernel:
        report["network_namespace"], mounts = _namespaces(libc, notes)
        if mounts and quota_dir and quota_bytes:
            report["disk_quota_mb"] = _quota(libc, quota_dir, quota_bytes, notes)
    report["nproc_limited"] = _limit_resources(cpu_s, memory_bytes, file_size_bytes, open_files)
    if kernel:
        _no_new_privileges(libc, notes)
        report["landlock_abi"] = _landlock(libc, read_roots, write_roots, device_files, notes)
        report["seccomp"] = _seccomp(libc, notes)
    return report


def _namespaces(libc: ctypes.CDLL, notes: list[str]) -> tuple[bool, bool]:
    """``(network namespace, mount namespace)`` made: both at once where allowed, else the network one."""
    for flags in (_CLONE_NEWNET | _CLONE_NEWNS, _CLONE_NEWNET):
        if _unshare(libc, flags, notes):
            return True, bool(flags & _CLONE_NEWNS)
    return False, False


def _unshare(libc: ctypes.CDLL, flags: int, notes: list[str]) -> bool:
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(flags) == 0:
        return True
    first = ctypes.get_errno()
    if libc.unshare(_CLONE_NEWUSER | flags) != 0:
        notes.append(
            f"unshare({flags:#x}) {errno.errorcode.get(first, first)}, "
            f"with NEWUSER {errno.errorcode.get(ctypes.get_errno(), '?')}"
        )
        return False
    try:  # keep our own ids inside the user namespace (otherwise they read as 'nobody')
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except OSError as exc:
        notes.append(f"user namespace id mapping failed: {exc}")
    return True


def _quota(libc: ctypes.CDLL, folder: str, size: int, notes: list[str]) -> int:
    """Mount a tmpfs of ``size`` bytes on ``folder`` (in this private mount namespace); its MiB, or 0."""
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        notes.append(f"no disk quota: making mounts private failed: errno {ctypes.get_errno()}")
        return 0
    options = f"size={size},mode=0700,uid={os.getuid()},gid={os.getgid()}".encode()
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if libc.mount(b"codebox", folder.encode(), b"tmpfs", flags, options) != 0:
        notes.append(f"no disk quota: tmpfs mount refused: errno {ctypes.get_errno()}")
        return 0
    os.mkdir(os.path.join(folder, "tmp"))  # TMPDIR, hidden under the new mount
    os.chdir(folder)  # the working directory still named the folder under the mount
    return size >> 20


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _limit_resources(cpu_s: int, memory_bytes: int, file_size_bytes: int, open_files: int) -> bool:
    """Set the rlimits; returns whether ``RLIMIT_NPROC`` is effective (it is not for real root)."""
    limits = {
        resource.RLIMIT_CPU: cpu_s,
        resource.RLIMIT_AS: memory_bytes,
        resource.RLIMIT_FSIZE: file_size_bytes,
        resource.RLIMIT_NOFILE: open_files,
        resource.RLIMIT_CORE: 0,
        resource.RLIMIT_NPROC: 0,
    }
    for which, value in limits.items():
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        # CPU: SIGXCPU at the soft limit (reported as a timeout), SIGKILL a second later
        ceiling = value + 1 if which == resource.RLIMIT_CPU and value != hard else value
        resource.setrlimit(which, (value, ceiling))
    return os.getuid() != 0


def _no_new_privileges(libc: ctypes.CDLL, notes: list[str]) -> None:
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        notes.append(f"prctl(NO_NEW_PRIVS) failed: errno {ctypes.get_errno()}")


def _landlock(
    libc: ctypes.CDLL,
    read_roots: list[str],
    write_roots: list[str],
    device_files: list[str],
    notes: list[str],
) -> int:
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    version = ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION)
    abi = syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), version)
    if abi < 1:
        notes.append(f"no Landlock: errno {errno.errorcode.get(ctypes.get_errno(), '?')}")
        return 0
    fs_rights = _fs_rights(abi)
    attr = struct.pack("=Q", fs_rights)
    if abi >= 4:
        attr += struct.pack("=Q", _NET_BIND_TCP | _NET_CONNECT_TCP)
    if abi >= 6:
        attr += struct.pack("=Q", _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = syscall(_SYS_LANDLOCK_CREATE_RULESET, buffer, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        notes.append(f"Landlock ruleset creation failed: errno {ctypes.get_errno()}")
        return 0
    try:
        read = _FS_READ_FILE | _FS_READ_DIR
        rules = [(p, read) for p in read_roots]
        rules += [(p, fs_rights & ~_FS_EXECUTE) for p in write_roots]
        rules += [
            (p, _FS_READ_FILE | _FS_WRITE_FILE | (_FS_TRUNCATE if abi >= 3 else 0)) for p in device_files
        ]
        for path, rights in rules:
            _add_path_rule(syscall, ruleset, path, rights, notes)
        if syscall(_SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            notes.append(f"Landlock restrict_self failed: errno {ctypes.get_errno()}")
            return 0
    finally:
        os.close(ruleset)
    return abi


def _add_path_rule(syscall: object, ruleset: int, path: str, rights: int, notes: list[str]) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a root that does not exist on this machine grants nothing
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        added = syscall(  # type: ignore[operator]
            _SYS_LANDLOCK_ADD_RULE,
            ctypes.c_int(ruleset),
            ctypes.c_int(_RULE_PATH_BENEATH),
            rule,
            ctypes.c_uint32(0),
        )
        if added != 0:
            notes.append(f"Landlock rule for {path} refused: errno {ctypes.get_errno()}")
    finally:
        os.close(fd)


def _seccomp(libc: ctypes.CDLL, notes: list[str]) -> bool:
    machine = platform.machine()
    if machine not in _AUDIT_ARCH:
        notes.append(f"no seccomp filter for architecture {machine}")
        return False
    program = _seccomp_program(machine)
    filters = (_SockFilter * len(program))(*[_SockFilter(*insn) for insn in program])
    fprog = _SockFprog(len(program), ctypes.cast(filters, ctypes.POINTER(_SockFilter)))
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        notes.append(f"seccomp filter refused: errno {ctypes.get_errno()}")
        return False
    return True


def _seccomp_program(machine: str) -> list[tuple[int, int, int, int]]:
    """A classic-BPF filter: right architecture, denied syscalls → EPERM, clone only for threads."""
    deny = _RET_ERRNO | errno.EPERM
    program = [
        (_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, _AUDIT_ARCH[machine]),
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if machine == "x86_64":  # x32 syscalls carry the same arch: refuse them outright
        program += [(_JGE_K, 0, 1, _X32_SYSCALL_BIT), (_RET_K, 0, 0, _RET_KILL_PROCESS)]
    for number in _DENIED_SYSCALLS[machine]:
        program += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, deny)]
    # clone3 hides its flags in memory: answer ENOSYS so the C library falls back to clone(2)
    program += [(_JEQ_K, 0, 1, _SYS_CLONE3), (_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS)]
    program += [
        (_JEQ_K, 0, 4, _SYS_CLONE[machine]),
        (_LD_W_ABS, 0, 0, 16),  # seccomp_data.args[0], low 32 bits (little-endian): the flags
        (_JSET_K, 0, 1, _CLONE_THREAD),
        (_RET_K, 0, 0, _RET_ALLOW),
        (_RET_K, 0, 0, deny),
        (_RET_K, 0, 0, _RET_ALLOW),
    ]
    return program
