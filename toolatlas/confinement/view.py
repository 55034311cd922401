"""What a confined server may read: the system's programs and libraries, and its own runtime.

A server sees a filesystem made for it, not the machine's. :func:`system_view` is the part every
server shares — ``/usr`` (programs, libraries, time zones, certificates' store), the top-level
links into it, and the handful of ``/etc`` files a C library, a TLS stack or git reads. Not in it:
``/etc/shadow`` and every other credential, ``/root`` and ``/home``, ``/tmp``, the ToolAtlas repo
and its ``.toolatlas`` folder beyond what :func:`runtime_view` names for this server.

:func:`runtime_view` finds what one server's runtime needs without being told: the npm prefix or
the venv of its catalogue runtime; the interpreter its executable names (a ``#!`` line, followed
through ``env`` and symlinks to the installation it belongs to, e.g. a pyenv version); a venv's
base interpreter; and the source folders of editable installs in that venv.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

__all__ = ["HOST_NETWORK_FILES", "FileLink", "interpreter_prefix", "runtime_view", "system_view"]

SYSTEM_TREES = ("/usr", "/etc/alternatives", "/etc/ssl", "/etc/ca-certificates", "/etc/ld.so.conf.d")
"""Folders every server may read."""
SYSTEM_FILES = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/timezone", "/etc/nsswitch.conf",
    "/etc/host.conf", "/etc/gai.conf", "/etc/protocols", "/etc/services", "/etc/mime.types", "/etc/gitconfig",
    "/etc/os-release", "/etc/debian_version", "/etc/hostname",
)  # fmt: skip
"""Files every server may read (those that exist here). ``/etc/hostname`` is what a path-escape probe
reads outside a server's allowed folder: present, a server that lets the escape through shows it."""
HOST_NETWORK_FILES = ("/etc/resolv.conf", "/etc/hosts")
"""Files a server granted the host's network also needs (name resolution)."""
TOP_LEVEL = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Top-level folders that are links into ``/usr`` on merged-/usr systems, real folders elsewhere."""
_SHEBANG_MAX = 256


class FileLink(tuple[str, str]):
    """A symbolic link to recreate in the view: ``(target, path)``."""


def system_view(*, host_network: bool) -> tuple[list[str], list[FileLink]]:
    """``(paths to bind read-only, links to recreate)`` of the system part of every server's view."""
    paths: list[str] = []
    links: list[FileLink] = []
    for path in TOP_LEVEL:
        if os.path.islink(path):
            links.append(FileLink((os.readlink(path), path)))
        elif os.path.isdir(path):
            paths.append(path)
    files = (*SYSTEM_FILES, *(HOST_NETWORK_FILES if host_network else ()))
    for path in (*SYSTEM_TREES, *files):
        if os.path.islink(path) and _resolves_within(path, SYSTEM_TREES):
            links.append(FileLink((os.readlink(path), path)))  # e.g. /etc/localtime names its zone
        elif os.path.exists(path):
            paths.append(path)
    return paths, links


def runtime_view(location: str | None, command: str, path_env: str | None) -> list[str]:
    """The folders a server's runtime needs to read: its install location, its executable's
    installation, and the interpreter that executable names (outside ``/usr``, which every view has)."""
    found: list[str] = []
    if location:
        found.append(location)
        found += _venv_extras(Path(location))
    executable = shutil.which(command, path=path_env) if not os.path.isabs(command) else command
    if executable is None:
        return _outside_system(found)
    for program in _program_chain(executable, path_env):
        prefix = interpreter_prefix(program)
        found.append(prefix)
        found += _venv_extras(Path(prefix))
    return _outside_system(found)


def interpreter_prefix(program: str) -> str:
    """The installation an executable belongs to: ``<prefix>`` of ``<prefix>/bin/<name>``, else the
    executable's own folder — never a home folder or ``/`` as a whole (then only the file itself)."""
    path = Path(os.path.abspath(program))
    prefix = path.parent.parent if path.parent.name in ("bin", "sbin") else path.parent
    return str(path) if _too_wide(prefix) else str(prefix)


def _too_wide(folder: Path) -> bool:
    """A folder that holds a user's (or the machine's) files beyond one installation."""
    homes = {Path("/"), Path("/root"), Path("/home"), Path.home()}
    return folder in homes or folder.parent == Path("/home")


def _program_chain(executable: str, path_env: str | None) -> list[str]:
    """The executable, the interpreter its ``#!`` line names (through ``env``), and so on."""
    chain: list[str] = []
    current: str | None = executable
    while current is not None and current not in chain and len(chain) < 8:
        chain += [current, os.path.realpath(current)]  # a venv's python, and the interpreter it links to
        current = _interpreter_of(current, path_env)
    return list(dict.fromkeys(chain))


def _interpreter_of(executable: str, path_env: str | None) -> str | None:
    try:
        with open(executable, "rb") as handle:
            head = handle.read(_SHEBANG_MAX)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return shutil.which(names[0], path=path_env) if names else None
    return words[0]


def _venv_extras(folder: Path) -> list[str]:
    """For a venv: its base interpreter's installation and the source folders of its editable installs."""
    config = folder / "pyvenv.cfg"
    if not config.is_file():
        return []
    extras: list[str] = []
    settings = _read_pyvenv(config)
    if "home" in settings:
        extras.append(str(Path(os.path.realpath(settings["home"])).parent))
    for site in folder.glob("lib/python*/site-packages"):
        extras += _editable_sources(site)
    return extras


def _read_pyvenv(config: Path) -> dict[str, str]:
    settings = {}
    for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            settings[key.strip()] = value.strip()
    return settings


@functools.cache
def _editable_sources_cached(site: str, stamp: float) -> tuple[str, ...]:
    found: list[str] = []
    for pth in Path(site).glob("*.pth"):
        for line in pth.read_text(encoding="utf-8", errors="replace").splitlines():
            line = line.strip()
            if line.startswith("/") and os.path.isdir(line):
                found.append(line)
    for finder in Path(site).glob("__editable__*finder.py"):
        found += _finder_mapping(finder.read_text(encoding="utf-8", errors="replace"))
    return tuple(found)


def _editable_sources(site: Path) -> list[str]:
    """Folders a venv's ``.pth`` files put on ``sys.path`` (paths, or setuptools' editable finders)."""
    try:
        stamp = site.stat().st_mtime
    except OSError:
        return []
    return list(_editable_sources_cached(str(site), stamp))


_MAPPING = re.compile(r"^MAPPING\s*(?::[^=]*)?=\s*(\{.*?\})\s*$", re.MULTILINE | re.DOTALL)


def _finder_mapping(source: str) -> list[str]:
    """The package folders of a setuptools editable finder (``MAPPING = {'pkg': '/src/pkg'}``)."""
    match = _MAPPING.search(source)
    if match is None:
        return []
    try:
        mapping = ast.literal_eval(match.group(1))
    except (SyntaxError, ValueError):
        return []
    return [p for p in mapping.values() if isinstance(p, str) and os.path.isabs(p) and os.path.isdir(p)]


def _resolves_within(path: str, trees: Iterable[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == tree or real.startswith(tree + "/") for tree in trees)


def _outside_system(paths: Iterable[str]) -> list[str]:
    """``paths`` without duplicates, without those inside another one, and without what
    :data:`SYSTEM_TREES` already shows."""
    unique = [p for p in dict.fromkeys(os.path.abspath(p) for p in paths) if not _resolves_within(p, SYSTEM_TREES)]
    return [p for p in unique if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in unique)]
