"""The LLM method's prompts: one versioned, human-readable file per role.

Each prompt lives in ``<name>.md`` beside this module; its front matter names the LLM role
it runs as (one of :data:`toolatlas.llm.LLM_ROLES`, which decides the model, temperature and
accounting) and its version::

    ---
    role: proposer
    version: 1
    ---
    ## system
    You propose tasks ...
    ## user
    Tool: $tool_name ...

The ``## system`` and ``## user`` sections are :class:`string.Template` texts (``$name``
placeholders, ``$$`` for a dollar sign), so JSON braces in a prompt need no escaping. The
rendered system message starts with a role tag line,
``[toolatlas:role=<role> v<version> prompt=<name>]``, which ties every request to the prompt
that produced it (the scripted test server routes on it; endpoint logs show which version ran).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

from toolatlas.errors import ConfigError
from toolatlas.llm.roles import LLM_ROLES, role_tag

__all__ = ["PROMPTS_DIR", "Prompt", "load_prompt", "prompt_names"]

PROMPTS_DIR = Path(__file__).resolve().parent
_FRONT = re.compile(r"\A---\n(?P<head>.*?)\n---\n(?P<body>.*)\Z", re.S)
_SECTION = re.compile(r"^## (system|user)[ \t]*$", re.M)


@dataclass(frozen=True)
class Prompt:
    """One prompt: a system and a user template, the LLM role it runs as, and its version."""

    name: str
    role: str
    version: int
    system: str
    user: str
    path: Path

    @property
    def tag(self) -> str:
        return role_tag(self.role, self.version, self.name)

    def messages(self, **values: Any) -> list[dict[str, str]]:
        """The chat messages with every ``$placeholder`` filled; a missing value is an error."""
        try:
            system = Template(self.system).substitute(values)
            user = Template(self.user).substitute(values)
        except (KeyError, ValueError) as exc:
            raise ConfigError(str(self.path), [("", f"prompt placeholder {exc} has no value")]) from exc
        return [{"role": "system", "content": f"{self.tag}\n{system}"}, {"role": "user", "content": user}]


def prompt_names() -> list[str]:
    """Every prompt shipped (file stems)."""
    return sorted(p.stem for p in PROMPTS_DIR.glob("*.md"))


@cache
def load_prompt(name: str) -> Prompt:
    """The prompt ``toolatlas/prompts/<name>.md``, parsed and checked once."""
    path = PROMPTS_DIR / f"{name}.md"
    if not path.is_file():
        raise ConfigError(str(path), [("name", f"no prompt named {name!r}; known: {', '.join(prompt_names())}")])
    match = _FRONT.match(path.read_text())
    if match is None:
        raise ConfigError(str(path), [("", "a prompt file starts with '---' front matter (role, version)")])
    head = dict(line.split(":", 1) for line in match["head"].splitlines() if ":" in line)
    head = {k.strip(): v.strip() for k, v in head.items()}
    if head.get("role") not in LLM_ROLES:
        raise ConfigError(str(path), [("role", f"{head.get('role')!r} is not an LLM role ({', '.join(LLM_ROLES)})")])
    if not head.get("version", "").isdigit():
        raise ConfigError(str(path), [("version", "must be a whole number")])
    parts = _SECTION.split(match["body"])
    sections = {name: text.strip() for name, text in zip(parts[1::2], parts[2::2], strict=True)}
    if set(sections) != {"system", "user"}:
        raise ConfigError(str(path), [("", "needs exactly one '## system' and one '## user' section")])
    return Prompt(name=name, role=head["role"], version=int(head["version"]), system=sections["system"], user=sections["user"], path=path)
