"""The LLM method's prompts: one versioned, human-readable file per role.

Each role's prompt lives in ``<role>.md`` beside this module::

    ---
    role: seed_proposer
    version: 1
    ---
    ## system
    You propose tasks ...
    ## user
    Tool: $tool_name ...

The ``## system`` and ``## user`` sections are :class:`string.Template` texts (``$name``
placeholders, ``$$`` for a dollar sign), so JSON braces in a prompt need no escaping. The
rendered system message starts with a role tag line, ``[toolatlas:role=<role> v<version>]``,
which ties every request to the prompt that produced it (the scripted test server routes on
it, and a log line shows which version ran).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

from toolatlas.errors import ConfigError

__all__ = ["PROMPTS_DIR", "Prompt", "load_prompt", "role_tag", "roles"]

PROMPTS_DIR = Path(__file__).resolve().parent
_FRONT = re.compile(r"\A---\n(?P<head>.*?)\n---\n(?P<body>.*)\Z", re.S)
_SECTION = re.compile(r"^## (system|user)[ \t]*$", re.M)


def role_tag(role: str, version: int) -> str:
    """The first line of every system message a role sends."""
    return f"[toolatlas:role={role} v{version}]"


@dataclass(frozen=True)
class Prompt:
    """One role's prompt: a system and a user template, with the version they carry."""

    role: str
    version: int
    system: str
    user: str
    path: Path

    @property
    def tag(self) -> str:
        return role_tag(self.role, self.version)

    def messages(self, **values: Any) -> list[dict[str, str]]:
        """The chat messages with every ``$placeholder`` filled; a missing value is an error."""
        try:
            system = Template(self.system).substitute(values)
            user = Template(self.user).substitute(values)
        except (KeyError, ValueError) as exc:
            raise ConfigError(str(self.path), [("", f"prompt placeholder {exc} has no value")]) from exc
        return [{"role": "system", "content": f"{self.tag}\n{system}"}, {"role": "user", "content": user}]


def roles() -> list[str]:
    """Every role that has a prompt file."""
    return sorted(p.stem for p in PROMPTS_DIR.glob("*.md"))


@cache
def load_prompt(role: str) -> Prompt:
    """The prompt of ``role`` (``toolatlas/prompts/<role>.md``), parsed and checked once."""
    path = PROMPTS_DIR / f"{role}.md"
    if not path.is_file():
        raise ConfigError(str(path), [("role", f"no prompt for role {role!r}; known: {', '.join(roles())}")])
    match = _FRONT.match(path.read_text())
    if match is None:
        raise ConfigError(str(path), [("", "a prompt file starts with '---' front matter (role, version)")])
    head = dict(line.split(":", 1) for line in match["head"].splitlines() if ":" in line)
    head = {k.strip(): v.strip() for k, v in head.items()}
    if head.get("role") != role:
        raise ConfigError(str(path), [("role", f"front matter names {head.get('role')!r}, file is {role!r}")])
    if not head.get("version", "").isdigit():
        raise ConfigError(str(path), [("version", "must be a whole number")])
    parts = _SECTION.split(match["body"])
    sections = {name: text.strip() for name, text in zip(parts[1::2], parts[2::2], strict=True)}
    if set(sections) != {"system", "user"}:
        raise ConfigError(str(path), [("", "needs exactly one '## system' and one '## user' section")])
    return Prompt(role=role, version=int(head["version"]), system=sections["system"], user=sections["user"], path=path)
