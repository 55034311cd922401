"""LLM roles and the role tag that opens every ToolAtlas system prompt.

Every prompt ToolAtlas sends begins its system message with one line naming the role and the
prompt version, e.g. ``[toolatlas:role=proposer v1]``, and, for prompts loaded from
:mod:`toolatlas.prompts`, the prompt's name: ``[toolatlas:role=agent v1 prompt=agent_react]``. It costs a few tokens, tells a human
reading endpoint logs which prompt they are looking at, and lets the scripted test server
(:mod:`toolatlas.testing.openai_server`) answer by role.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolatlas.config.catalogue import LLM_ROLES
from toolatlas.errors import ConfigError

__all__ = ["LLM_ROLES", "RoleTag", "check_role", "parse_role_tag", "role_tag"]

_TAG = re.compile(r"^\s*\[toolatlas:role=([a-z_][a-z0-9_]*)(?: v(\d+))?(?: prompt=([a-z_][a-z0-9_]*))?\]")


@dataclass(frozen=True)
class RoleTag:
    """A parsed role tag: which role's prompt, and which version of it."""

    role: str
    version: int | None
    prompt: str | None = None
    """The prompt file's name (``toolatlas/prompts/<prompt>.md``), when the tag names one."""


def check_role(role: str) -> str:
    """``role`` if it is one of :data:`LLM_ROLES`; a :class:`ConfigError` otherwise."""
    if role not in LLM_ROLES:
        raise ConfigError(None, [("role", f"unknown LLM role {role!r}; roles are {', '.join(LLM_ROLES)}")])
    return role


def role_tag(role: str, version: int = 1, prompt: str | None = None) -> str:
    """The tag line a role's system prompt begins with: ``[toolatlas:role=<role> v<version>]``
    (``... prompt=<name>]`` when the prompt has a name of its own)."""
    suffix = f" prompt={prompt}" if prompt else ""
    return f"[toolatlas:role={check_role(role)} v{version}{suffix}]"


def parse_role_tag(text: str | None) -> RoleTag | None:
    """The role tag at the start of ``text`` (a system prompt), or None when it has none."""
    match = _TAG.match(text or "")
    if match is None:
        return None
    return RoleTag(match.group(1), int(match.group(2)) if match.group(2) else None, match.group(3))
