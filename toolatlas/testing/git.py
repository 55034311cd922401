"""``run_git``: git in a test repository, with a fixed identity and no user or system configuration."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["run_git"]

_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@e",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@e",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}


def run_git(repo: Path | str, *args: str) -> str:
    """Run ``git -C repo args…`` (raises on failure); its standard output."""
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env={**os.environ, **_IDENTITY}
    ).stdout
