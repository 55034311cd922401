"""Server runtimes: pinned npm packages and PyPI packages provisioned under ``<home>/runtimes``.

:func:`install` provisions one server's runtime (idempotent, crash-safe, safe across processes),
:func:`resolve` says where an installed runtime's executable is, and :func:`install_all`
provisions a whole catalogue concurrently. One module per runtime kind: :mod:`.npm`,
:mod:`.python` (PyPI venvs), :mod:`.command` (already on the machine); :mod:`.base` holds the
marker, lock and subprocess handling they share.
"""

from toolatlas.runtimes.base import MARKER_NAME, ResolvedRuntime, read_marker
from toolatlas.runtimes.installer import InstallResult, install, install_all, resolve
from toolatlas.runtimes.npm import choose_bin, find_node, npm_prefix
from toolatlas.runtimes.python import PythonInterpreter, find_python, venv_dir

__all__ = [
    "MARKER_NAME",
    "InstallResult",
    "PythonInterpreter",
    "ResolvedRuntime",
    "choose_bin",
    "find_node",
    "find_python",
    "install",
    "install_all",
    "npm_prefix",
    "read_marker",
    "resolve",
    "venv_dir",
]
