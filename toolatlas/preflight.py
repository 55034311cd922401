"""What ``toolatlas validate`` checks beyond the catalogue's schema: the things a build would only
find out server by server — a snapshot that is not there, a seed nobody knows, a placeholder the
environment does not fill (or one left unclosed), a store path that is a file."""

from __future__ import annotations

import re

from toolatlas.config import Catalogue
from toolatlas.config.servers import HttpTransport, NoEnv, ServerSpec, StdioTransport
from toolatlas.environments import placeholders_for, seeds

__all__ = ["catalogue_problems"]

_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_OPENING = re.compile(r"\$\{")


def catalogue_problems(catalogue: Catalogue) -> list[tuple[str, str]]:
    """``(field, message)`` for every problem found, in the catalogue's order; empty when none."""
    problems: list[tuple[str, str]] = []
    if not catalogue.servers:
        problems.append(("servers", "the catalogue has no [[servers]]: nothing to build"))
    store = catalogue.atlas_dir
    if catalogue.store.backend in ("edge", "local") and store.exists() and not store.is_dir():
        problems.append(("store.path", f"{store} is a file; the atlas needs a folder there"))
    for server in catalogue.servers:
        problems += _environment_problems(catalogue, server)
        problems += _placeholder_problems(server)
    for index, key in enumerate(catalogue.trust.keys):
        if not catalogue.resolve(key).is_file():
            problems.append((f"trust.keys[{index}]", f"no such public key file: {catalogue.resolve(key)}"))
    return problems


def _environment_problems(catalogue: Catalogue, server: ServerSpec) -> list[tuple[str, str]]:
    spec, where = server.environment, f"servers[{server.name}].environment"
    if isinstance(spec, NoEnv):
        return []
    problems = []
    snapshot = getattr(spec, "snapshot", None)
    if snapshot is not None and not catalogue.resolve(snapshot).exists():
        problems.append((f"{where}.snapshot", f"no such file or folder: {catalogue.resolve(snapshot)}"))
    seed = getattr(spec, "seed", None)
    if seed is not None:
        known = seeds.available()
        if seed not in known:
            problems.append((f"{where}.seed", f"unknown seed {seed!r}; known: {', '.join(known)}"))
        elif known[seed] != spec.kind:
            problems.append((f"{where}.seed", f"seed {seed!r} makes a {known[seed]} state, not {spec.kind}"))
    return problems


def _placeholder_problems(server: ServerSpec) -> list[tuple[str, str]]:
    transport = server.transport
    if isinstance(transport, HttpTransport):
        fields = {"transport.url": transport.url, **{f"transport.headers.{k}": v for k, v in transport.headers.items()}}
    else:
        assert isinstance(transport, StdioTransport)
        fields = {
            "transport.command": transport.command or "",
            **{f"transport.args[{i}]": a for i, a in enumerate(transport.args)},
            **{f"transport.env.{k}": v for k, v in transport.env.items()},
            "transport.cwd": transport.cwd or "",
        }
    known = placeholders_for(server.environment)
    problems = []
    for field, text in fields.items():
        where = f"servers[{server.name}].{field}"
        if len(_OPENING.findall(text)) > len(_PLACEHOLDER.findall(text)):
            problems.append((where, f"a placeholder is not closed: {text!r} (write ${{name}})"))
        for name in _PLACEHOLDER.findall(text):
            if name not in known:
                names = ", ".join(f"${{{k}}}" for k in sorted(known))
                problems.append((where, f"unknown placeholder ${{{name}}}; a {server.environment.kind} "
                                        f"environment fills {names}"))
    return problems
