"""``demo.git``: a small Python repository with history, branches and a tag, identical hashes every run.

``main`` has 7 commits (tag ``v0.1.0``, annotated, on the 4th); ``feature/search`` forks after
the 5th and is 2 commits ahead (1 behind), touching only new files so it merges cleanly;
``bugfix/typo`` is 1 commit on top of ``main`` fixing the README's "recieve". The work tree ends
on ``main`` with work in progress, as a developer's would: ``src/greeter/core.py`` modified (French
added, not staged) and ``NOTES.md`` untracked — so there is something to diff, stage and commit. Hashes are reproducible because authors, committers and dates are fixed, user
and system git configuration is ignored, and no hook templates are installed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from toolatlas.environments.seeds._registry import FIXED_EPOCH, pin_times, seed, write_text
from toolatlas.errors import SnapshotError

__all__ = ["GIT_TIMEOUT_S", "build_repository"]

GIT_TIMEOUT_S = 30.0
"""Longest wait for one git command while building the seed."""

SAFE_CONFIG = ("-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false", "-c", "core.autocrlf=false")
"""Belt and braces beside the ignored user and system config: no signing, no line-ending rewrites."""

ADA = ("Ada Lovelace", "ada@example.com")
GRACE = ("Grace Hopper", "grace@example.com")

README = """# greeter

Say hello in several languages.

## Usage

    greeter --lang en World

You will recieve a greeting in the language you ask for.
"""
CORE_V1 = '''"""Greetings by language."""

GREETINGS = {"en": "Hello", "es": "Hola", "de": "Hallo"}


def greet(name: str, lang: str = "en") -> str:
    if lang not in GREETINGS:
        raise ValueError(f"unsupported language: {lang}")
    return f"{GREETINGS[lang]}, {name}!"
'''
PYPROJECT = """[project]
name = "greeter"
version = "{version}"
requires-python = ">=3.10"

[project.scripts]
greeter = "greeter.cli:main"
"""

WORK_NOTES = """# Notes

- French greeting added in core.py; needs a test before committing.
- Ask Grace about the --lang default.
"""

# (message, author, {path: new content}); the tag and the branches are made in build_repository.
MAIN_HISTORY: list[tuple[str, tuple[str, str], dict[str, str]]] = [
    (
        "Initial commit",
        ADA,
        {
            "README.md": README,
            ".gitignore": "__pycache__/\n*.pyc\n.venv/\ndist/\n.env\n",
            "LICENSE": "MIT License\n\nCopyright (c) 2024 Greeter Authors\n",
        },
    ),
    (
        "Add greeting module",
        ADA,
        {
            "src/greeter/__init__.py": '"""Say hello in several languages."""\n\n__version__ = "0.1.0"\n',
            "src/greeter/core.py": CORE_V1,
        },
    ),
    (
        "Add command-line interface",
        GRACE,
        {
            "src/greeter/cli.py": """import argparse

from greeter.core import greet


def main() -> None:
    parser = argparse.ArgumentParser(prog="greeter")
    parser.add_argument("name")
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    print(greet(args.name, args.lang))
""",
            "pyproject.toml": PYPROJECT.format(version="0.1.0"),
        },
    ),
    (
        "Add tests for greet",
        ADA,
        {
            "tests/test_core.py": """import pytest

from greeter.core import greet


def test_english_is_default():
    assert greet("World") == "Hello, World!"


def test_unknown_language_is_rejected():
    with pytest.raises(ValueError):
        greet("World", "xx")
""",
        },
    ),
    (
        "Document usage and languages",
        GRACE,
        {
            "docs/usage.md": "# Usage\n\n`greeter NAME [--lang LANG]`; languages: en, es, de.\n",
        },
    ),
    (
        "Add French greeting",
        ADA,
        {
            "src/greeter/core.py": CORE_V1.replace('"de": "Hallo"}', '"de": "Hallo", "fr": "Bonjour"}'),
            "docs/usage.md": "# Usage\n\n`greeter NAME [--lang LANG]`; languages: en, es, de, fr.\n",
        },
    ),
    (
        "Start 0.2.0 development",
        ADA,
        {
            "pyproject.toml": PYPROJECT.format(version="0.2.0.dev0"),
            "CHANGELOG.md": (
                "# Changelog\n\n## 0.2.0 (unreleased)\n- French greeting.\n\n## 0.1.0\n- First release.\n"
            ),
        },
    ),
]
TAG_AFTER = 4  # v0.1.0 tags the 4th commit of main
FORK_AFTER = 5  # feature/search forks after the 5th
FEATURE_HISTORY = [
    (
        "Add search over greetings",
        GRACE,
        {
            "src/greeter/search.py": '''from greeter.core import GREETINGS


def find_language(greeting: str) -> list[str]:
    """Languages whose greeting starts with ``greeting`` (case-insensitive)."""
    wanted = greeting.casefold()
    return sorted(lang for lang, word in GREETINGS.items() if word.casefold().startswith(wanted))
''',
        },
    ),
    (
        "Test language search",
        GRACE,
        {
            "tests/test_search.py": """from greeter.search import find_language


def test_prefix_matches():
    assert find_language("ha") == ["de"]
""",
        },
    ),
]
BUGFIX = ("Fix typo in README", GRACE, {"README.md": README.replace("recieve", "receive")})


@seed("demo.git", kind="git")
def build_repository(dest: Path) -> None:
    """Create the repository with its work tree at ``dest``."""
    dest.mkdir()
    repo = _Builder(dest)
    repo.git("init", "--quiet", "--template=", "-b", "main")
    for number, change in enumerate(MAIN_HISTORY, start=1):
        repo.commit(*change)
        if number == TAG_AFTER:
            repo.git("tag", "-a", "v0.1.0", "-m", "Release 0.1.0")
        if number == FORK_AFTER:
            repo.git("switch", "--quiet", "-c", "feature/search")
            for feature_change in FEATURE_HISTORY:
                repo.commit(*feature_change)
            repo.git("switch", "--quiet", "main")
    repo.git("switch", "--quiet", "-c", "bugfix/typo")
    repo.commit(*BUGFIX)
    repo.git("switch", "--quiet", "main")
    if repo.git("status", "--porcelain").strip():  # pragma: no cover - a bug in the history above
        raise SnapshotError("demo.git work tree is not clean after building its history")
    core = dest / "src" / "greeter" / "core.py"
    write_text(core, core.read_text().replace('"de": "Hallo"', '"de": "Hallo", "fr": "Bonjour"'))
    write_text(dest / "NOTES.md", WORK_NOTES)
    pin_times(dest, exclude=frozenset({".git"}))
    repo.git("update-index", "-q", "--refresh")


class _Builder:
    """Runs git in the new repository with a fixed identity, a fixed clock and no user configuration."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tick = 0
        self.author = ADA

    def commit(self, message: str, author: tuple[str, str], files: dict[str, str]) -> None:
        for rel, text in files.items():
            write_text(self.root / rel, text)
        self.author = author
        self.tick += 1
        self.git("add", "--all")
        self.git("commit", "--quiet", "-m", message)

    def git(self, *args: str) -> str:
        name, email = self.author
        date = f"{FIXED_EPOCH + 9 * 86_400 + self.tick * 26_000} +0000"
        env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
        env |= {
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_CONFIG_SYSTEM": "/dev/null",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_AUTHOR_DATE": date,
            "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email,
            "GIT_COMMITTER_DATE": date,
            "GIT_TERMINAL_PROMPT": "0",
            "LC_ALL": "C",
            "TZ": "UTC",
        }
        result = subprocess.run(
            ["git", *SAFE_CONFIG, *args],
            check=False,
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
        )
        if result.returncode != 0:
            raise SnapshotError(f"git {' '.join(args)} failed building demo.git: {result.stderr.strip()}")
        return result.stdout
