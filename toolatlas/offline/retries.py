"""Retries the server itself suggested: a failed call, then the same call with a value its error named.

When an error names the way out ("Available sheets: 'Sales', 'Targets'", "did you mean
'celsius'?"), :meth:`ValuePool.harvest_error <toolatlas.offline.harvest.ValuePool.harvest_error>`
keeps each value with the failed call and where it goes. :func:`hinted_retries` turns them into
(failed, corrected) argument pairs — one per argument and failed call, the corrected value being
the first named one that differs from what was sent — for the proposer to run as a two-step probe
whose second step is a ``retry_of`` the first: verified, it becomes a ``retry`` co-usage and an
affordance of the corrected call.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from toolatlas.models import ToolSpec
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import PATH_KINDS, ArgSpec, ToolEffect, infer_arguments, tool_effect, typed_text
from toolatlas.offline.schemas import conforms
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.values import HarvestRef

__all__ = ["HintedRetry", "counterpart", "hinted_retries", "spec_at", "stated_enablers"]

MAX_RETRIES = 3


class HintedRetry(NamedTuple):
    failing: dict[str, Any]
    fixed: dict[str, Any]
    locator: str
    value: Any
    ref: HarvestRef

    @property
    def after(self) -> list[dict[str, Any]]:
        """The calls the failed call was made after (``tool``, ``arguments``): the retry makes them first."""
        return self.ref.failed_after or []


def spec_at(specs: list[ArgSpec], path: str) -> ArgSpec | None:
    """The spec at ``path`` (``sheet``, ``ranges[]``, ``options.unit``) in a tree of specs."""
    stack = list(specs)
    while stack:
        spec = stack.pop()
        if spec.path == path:
            return spec
        stack.extend(spec.properties)
        if spec.items is not None:
            stack.append(spec.items)
    return None


def _replace(arguments: dict[str, Any], locator: str, value: Any) -> dict[str, Any]:
    result = copy.deepcopy(arguments)
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", locator)
    node: Any = result
    for part in parts[:-1]:
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    last = parts[-1]
    node[int(last[1:-1]) if last.startswith("[") else last] = value
    return result


def _suffix(path: Any) -> str:
    name = str(path).rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""


def _current(arguments: dict[str, Any], locator: str) -> Any:
    node: Any = arguments
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", locator):
        try:
            node = node[int(part[1:-1])] if part.startswith("[") else node[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return node


def hinted_retries(
    tool: ToolSpec, pool: ValuePool, synth: ValueSynth | None = None, *, limit: int = MAX_RETRIES
) -> list[HintedRetry]:
    """(failed, corrected) calls of ``tool`` from the values its errors named, in pool order.

    A path argument's hint names formats (``.csv``, ``.xlsx``), not a value: ``synth`` (planning
    over the same pool) then picks a real file of such a format.
    """
    specs = infer_arguments(tool)
    groups: dict[tuple[str, str, str], list[HarvestRef]] = {}
    prefix = f"{tool.name}:"
    for ref in pool.hints():
        if ref.argument is None or not ref.argument.startswith(prefix) or ref.failed_arguments is None:
            continue
        key = (ref.argument, ref.locator or "", json.dumps(ref.failed_arguments, sort_keys=True, default=str))
        groups.setdefault(key, []).append(ref)
    found: list[HintedRetry] = []
    for (argument, locator, _), refs in groups.items():
        spec = spec_at(specs, argument.removeprefix(prefix))
        failing = refs[0].failed_arguments or {}
        if spec is None or not locator:
            continue
        sent = _current(failing, locator)
        if spec.kind in PATH_KINDS:
            value = synth.value_for(tool, spec, variant=0) if synth is not None else None
            if value is not None and value != sent and _suffix(value) in {r.value for r in refs}:
                found.append(HintedRetry(failing, _replace(failing, locator, value), locator, value, refs[0]))
            continue
        for ref in refs:
            value = typed_text(ref.value, spec)
            if value != sent and conforms(value, spec.json_schema):
                found.append(HintedRetry(failing, _replace(failing, locator, value), locator, value, ref))
                break
        if len(found) >= limit:
            break
    return found


_GENERIC_WORDS = frozenset({"get", "set", "list", "the", "a", "an", "to", "of", "for", "and", "by", "all", "new", "item", "items"})
_MISSING = re.compile(
    r"\b(?:no|none|not found|empty|does not exist|doesn't exist|missing|nothing|first|not (?:yet )?(?:defined|created))\b",
    re.IGNORECASE,
)
"""Words of an error that says something the call needs is not there."""
_INVERSE_VERBS = {
    "remove": "add", "delete": "create", "disable": "enable", "close": "open", "stop": "start", "hide": "show",
    "deactivate": "activate", "resume": "pause", "unlock": "lock", "detach": "attach", "disconnect": "connect",
    "redo": "undo",
}


def _words(text: str) -> set[str]:
    """The words of a text with their plain forms (``tasks`` → ``task``; ``approved`` → ``approve``,
    ``marked`` → ``mark``), so an error's participle meets a tool's verb."""
    found: set[str] = set()
    for word in re.findall(r"[a-z]+", text.lower()):
        word = word[:-1] if word.endswith("s") and len(word) > 3 else word
        found.add(word)
        if word.endswith("ed") and len(word) > 4:
            found.update((word[:-1], word[:-2]))
    return found


def _name_words(name: str) -> list[str]:
    return re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", name).lower())


def counterpart(name: str, tools: Mapping[str, ToolSpec]) -> str | None:
    """The tool whose state ``name`` undoes, by its verb: ``unprotect_document`` → ``protect_document``,
    ``disable_rule`` → ``enable_rule`` (undoing needs what it undoes to be there)."""
    words = _name_words(name)
    for i, word in enumerate(words):
        inverse = _INVERSE_VERBS.get(word) or next(
            (word[len(p):] for p in ("un", "dis", "de") if word.startswith(p) and len(word) > len(p) + 3), None
        )
        if inverse is None:
            continue
        wanted = [*words[:i], inverse, *words[i + 1:]]
        found = next((t for t in tools if t != name and _name_words(t) == wanted), None)
        if found is not None:
            return found
    return None


def stated_enablers(name: str, error: str, tools: Mapping[str, ToolSpec]) -> list[str]:
    """Tools an error points to without naming them, in three tiers:

    1. the tool whose state the failing one undoes (``unprotect`` → ``protect``, :func:`counterpart`);
    2. those whose name holds a word of the error that the failing tool's own name lacks (``not done
       yet`` → ``mark_done``; ``add … first`` → ``add_case``), most shared words first, then most
       words of the error shared with the failing tool too (``Not all done tasks are approved`` from
       ``approve_request``: ``approve_task`` before ``add_tasks``);
    3. when the error says something is not there (``No footnotes in document``) and it is what the
       failing tool itself acts on, the tools that create it (``add_footnote``), most shared words first.
    """
    said = _words(error) - _GENERIC_WORDS
    own = _words(name.replace("_", " ").replace("-", " "))
    scored = []
    for other in tools:
        if other == name:
            continue
        words = _words(other.replace("_", " ").replace("-", " ")) - _GENERIC_WORDS
        shared = (words - own) & said
        if shared and tool_effect(tools[other]) is not ToolEffect.READ:  # a read prepares nothing
            scored.append((-(2 * len(shared) + len(words & own & said)), other))  # its own words break ties
    undone = counterpart(name, tools)
    found = [undone] if undone is not None and tool_effect(tools[undone]) is not ToolEffect.READ else []
    found += [other for _score, other in sorted(scored) if other not in found]
    missing = said & own - _GENERIC_WORDS if _MISSING.search(error) else set()
    creators = []
    for other, spec in tools.items():
        words = _words(other.replace("_", " ").replace("-", " "))
        if other != name and other not in found and words & missing and tool_effect(spec) is ToolEffect.CREATE:
            creators.append((-len(words & said), other))
    return found + [other for _score, other in sorted(creators)]
