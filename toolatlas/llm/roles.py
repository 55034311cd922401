"""LLM roles and the role tag that opens every ToolAtlas system prompt.

Every prompt ToolAtlas sends begins its system message with one line naming the role and the
prompt version, e.g. ``[toolatlas:role=proposer v1]``. It costs a few tokens, tells a human
reading endpoint logs which prompt they are looking at, and lets the scripted test server
(:mod:`toolatlas.testing.openai_server`) answer by role.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolatlas.config.catalogue import LLM_ROLES
from toolatlas.errors import ConfigError

__all__ = ["LLM_ROLES", "RoleTag", "check_role", "parse_role_tag", "role_tag"]

_TAG = re.compile(r"^\s*\[toolatlas:role=([a-z_][a-z0-9_]*)(?: v(\d+))?\]")


@dataclass(frozen=True)
class RoleTag:
    """A parsed role tag: which role's prompt, and which version of it."""

    role: str
    version: int | None


def check_role(role: str) -> str:
    """``role`` if it is one of :data:`LLM_ROLES`; a :class:`ConfigError` otherwise."""
    if role not in LLM_ROLES:
        raise ConfigError(None, [("role", f"unknown LLM role {role!r}; roles are {', '.join(LLM_ROLES)}")])
    return role


def role_tag(role: str, version: int = 1) -> str:
    """The tag line a role's system prompt begins with: ``[toolatlas:role=<role> v<version>]``."""
    return f"[toolatlas:role={check_role(role)} v{version}]"


def parse_role_tag(text: str | None) -> RoleTag | None:
    """The role tag at the start of ``text`` (a system prompt), or None when it has none."""
    match = _TAG.match(text or "")
    if match is None:
        return None
    return RoleTag(match.group(1), int(match.group(2)) if match.group(2) else None)
