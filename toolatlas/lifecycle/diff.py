"""What a release changed in the knowledge: the difference of two atlas exports (``toolatlas diff``).

Two ``atlas.json`` documents (:mod:`toolatlas.export`) are compared per server and tool. Only
served entries count (status ``active``). Entries are the same across versions when their kind and
signature are (an entry's id also hashes the tool's schema, which a release may change); an
affordance is the use it verifies, whatever effect the call had on the state it met; two
boundaries with the same condition and a different error are one boundary whose error changed.

A change is a **regression** when an agent that relied on the old atlas would now be misled:

- a server or a tool was removed;
- an affordance was lost (a verified valid use the new atlas no longer holds);
- a valid use now fails: arguments that were evidence of an old affordance are evidence of a
  boundary of the same tool in the new atlas (whether or not other uses keep the affordance).

Everything else — tools added, schemas changed, boundaries appeared, disappeared or changed, and
compositions gained or lost — is reported, not failed on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path

from pydantic import ValidationError

from toolatlas.errors import ToolAtlasError
from toolatlas.export import AtlasExport, ServerExport, ToolExport
from toolatlas.graph.models import Entry, EntryStatus
from toolatlas.models import Frozen, canonical_json

__all__ = ["AtlasDiff", "Change", "ChangeKind", "diff_atlases", "load_export"]


class ChangeKind(StrEnum):
    SERVER_ADDED = "server_added"
    SERVER_REMOVED = "server_removed"
    TOOL_ADDED = "tool_added"
    TOOL_REMOVED = "tool_removed"
    SCHEMA_CHANGED = "schema_changed"
    AFFORDANCE_GAINED = "affordance_gained"
    AFFORDANCE_LOST = "affordance_lost"
    VALID_USE_FAILS = "valid_use_fails"
    BOUNDARY_APPEARED = "boundary_appeared"
    BOUNDARY_DISAPPEARED = "boundary_disappeared"
    BOUNDARY_CHANGED = "boundary_changed"
    COMPOSITION_GAINED = "composition_gained"
    COMPOSITION_LOST = "composition_lost"


REGRESSIONS = frozenset(
    {ChangeKind.SERVER_REMOVED, ChangeKind.TOOL_REMOVED, ChangeKind.AFFORDANCE_LOST, ChangeKind.VALID_USE_FAILS}
)

_SYMBOL = {
    ChangeKind.SERVER_ADDED: "+", ChangeKind.TOOL_ADDED: "+", ChangeKind.AFFORDANCE_GAINED: "+",
    ChangeKind.BOUNDARY_APPEARED: "+", ChangeKind.COMPOSITION_GAINED: "+",
    ChangeKind.SERVER_REMOVED: "-", ChangeKind.TOOL_REMOVED: "-", ChangeKind.AFFORDANCE_LOST: "-",
    ChangeKind.BOUNDARY_DISAPPEARED: "-", ChangeKind.COMPOSITION_LOST: "-",
    ChangeKind.SCHEMA_CHANGED: "~", ChangeKind.BOUNDARY_CHANGED: "~", ChangeKind.VALID_USE_FAILS: "!",
}  # fmt: skip


class Change(Frozen):
    """One difference between the two atlases."""

    kind: ChangeKind
    server: str
    tool: str | None = None
    text: str
    """What changed, in one sentence (the entry's own text where there is one)."""
    before: str | None = None
    after: str | None = None

    @property
    def regression(self) -> bool:
        return self.kind in REGRESSIONS


class AtlasDiff(Frozen):
    """Every change from ``old`` to ``new``, servers and tools in name order."""

    old: str
    new: str
    changes: list[Change]

    @property
    def regressions(self) -> list[Change]:
        return [change for change in self.changes if change.regression]

    def as_json(self) -> str:
        document = {
            "old": self.old,
            "new": self.new,
            "regressions": len(self.regressions),
            "changes": [change.model_dump(mode="json") | {"regression": change.regression} for change in self.changes],
        }
        return json.dumps(document, indent=1)

    def as_text(self) -> str:
        lines = [f"atlas diff {self.old} -> {self.new}"]
        server = None
        for change in self.changes:
            if change.server != server:
                server = change.server
                lines.append(f"server {server}")
            where = f"{change.tool}: " if change.tool else ""
            flag = "  [regression]" if change.regression else ""
            lines.append(f"  {_SYMBOL[change.kind]} {change.kind.value:<21} {where}{change.text}{flag}")
            if change.before is not None or change.after is not None:
                lines.append(f"      before: {change.before or '-'}")
                lines.append(f"      after:  {change.after or '-'}")
        lines.append(self._summary())
        return "\n".join(lines)

    def as_markdown(self) -> str:
        """A table per server, fit for a pull-request comment."""
        lines = [f"### Atlas changes: `{self.old}` → `{self.new}`", "", self._summary(), ""]
        server = None
        for change in self.changes:
            if change.server != server:
                server = change.server
                lines += ["", f"#### `{server}`", "", "| | change | tool | what |", "|---|---|---|---|"]
            flag = "⚠️ regression" if change.regression else _SYMBOL[change.kind]
            what = change.text
            if change.before is not None or change.after is not None:
                what += f"<br>before: {change.before or '–'}<br>after: {change.after or '–'}"
            lines.append(f"| {flag} | {change.kind.value} | {f'`{change.tool}`' if change.tool else ''} | "
                         f"{_cell(what)} |")
        return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"

    def _summary(self) -> str:
        if not self.changes:
            return "no changes"
        regressions = len(self.regressions)
        return f"{len(self.changes)} change(s), {regressions} regression(s)"


def load_export(path: Path) -> AtlasExport:
    """An ``atlas.json`` export; a missing or malformed file is an error naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ToolAtlasError(f"{path}: no such file (write one with `toolatlas export`)") from None
    except OSError as exc:
        raise ToolAtlasError(f"{path}: cannot be read ({exc.strerror})") from exc
    try:
        return AtlasExport.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(document)"
        raise ToolAtlasError(f"{path}: not an atlas export: {where}: {first['msg']}") from None


def diff_atlases(old: AtlasExport, new: AtlasExport, *, old_name: str = "old", new_name: str = "new") -> AtlasDiff:
    """Every change from ``old`` to ``new`` (see the module's docstring for what is a regression)."""
    changes: list[Change] = []
    before = {server.name: server for server in old.servers}
    after = {server.name: server for server in new.servers}
    for name in sorted(before.keys() | after.keys()):
        if name not in after:
            changes.append(Change(kind=ChangeKind.SERVER_REMOVED, server=name,
                                  text=f"removed ({len(before[name].tools)} tool(s))"))
        elif name not in before:
            changes.append(Change(kind=ChangeKind.SERVER_ADDED, server=name,
                                  text=f"added ({len(after[name].tools)} tool(s))"))
        else:
            changes += _server_changes(before[name], after[name])
    return AtlasDiff(old=old_name, new=new_name, changes=changes)


def _server_changes(old: ServerExport, new: ServerExport) -> list[Change]:
    changes: list[Change] = []
    before = {tool.name: tool for tool in old.tools}
    after = {tool.name: tool for tool in new.tools}
    for name in sorted(before.keys() | after.keys()):
        if name not in after:
            changes.append(Change(kind=ChangeKind.TOOL_REMOVED, server=old.name, tool=name,
                                  text=f"removed ({_counts(before[name])})"))
        elif name not in before:
            changes.append(Change(kind=ChangeKind.TOOL_ADDED, server=old.name, tool=name,
                                  text=f"added ({_counts(after[name])})"))
        else:
            changes += _tool_changes(old.name, before[name], after[name])
    return changes


def _tool_changes(server: str, old: ToolExport, new: ToolExport) -> list[Change]:
    changes: list[Change] = []

    def add(kind: ChangeKind, text: str, before: str | None = None, after: str | None = None) -> None:
        changes.append(Change(kind=kind, server=server, tool=old.name, text=text, before=before, after=after))

    if old.schema_hash != new.schema_hash:
        gone = sorted(_properties(old) - _properties(new))
        came = sorted(_properties(new) - _properties(old))
        parts = [f"argument(s) added: {', '.join(came)}" if came else "",
                 f"argument(s) removed: {', '.join(gone)}" if gone else ""]
        add(ChangeKind.SCHEMA_CHANGED, "; ".join(p for p in parts if p) or "the input schema changed",
            before=old.schema_hash, after=new.schema_hash)

    old_uses, new_uses = _by_use(old.affordances), _by_use(new.affordances)
    failing = _failing_arguments(new.boundaries)
    for use in sorted(old_uses):
        entry = old_uses[use]
        broken = next((failing[key] for key in _evidence_keys(entry) if key in failing), None)
        if broken is not None:
            add(ChangeKind.VALID_USE_FAILS, f"a verified use now fails: {broken.text}",
                before=entry.text, after=broken.error_signature or broken.text)
        elif use not in new_uses:
            add(ChangeKind.AFFORDANCE_LOST, entry.text)
    for use in sorted(new_uses.keys() - old_uses.keys()):
        add(ChangeKind.AFFORDANCE_GAINED, new_uses[use].text)

    old_limits, new_limits = _by_signature(old.boundaries), _by_signature(new.boundaries)
    gone_limits = {s: old_limits[s] for s in old_limits.keys() - new_limits.keys()}
    came_limits = {s: new_limits[s] for s in new_limits.keys() - old_limits.keys()}
    reported_failures = {c.after for c in changes if c.kind is ChangeKind.VALID_USE_FAILS}
    for _signature, entry in sorted(gone_limits.items()):
        same = next((s for s, e in sorted(came_limits.items()) if e.condition and e.condition == entry.condition), None)
        if same is not None:
            moved = came_limits.pop(same)
            add(ChangeKind.BOUNDARY_CHANGED, f"when {entry.condition}, the answer changed",
                before=entry.error_signature or entry.text, after=moved.error_signature or moved.text)
        else:
            add(ChangeKind.BOUNDARY_DISAPPEARED, entry.text)
    for _signature, entry in sorted(came_limits.items()):
        if (entry.error_signature or entry.text) in reported_failures:
            continue
        add(ChangeKind.BOUNDARY_APPEARED, entry.text)

    old_links, new_links = _by_signature(old.co_usage), _by_signature(new.co_usage)
    for signature in sorted(old_links.keys() - new_links.keys()):
        add(ChangeKind.COMPOSITION_LOST, old_links[signature].text)
    for signature in sorted(new_links.keys() - old_links.keys()):
        add(ChangeKind.COMPOSITION_GAINED, new_links[signature].text)
    return changes


def _served(entries: Iterable[Entry]) -> list[Entry]:
    return [entry for entry in entries if entry.status is EntryStatus.ACTIVE]


def _by_signature(entries: Iterable[Entry]) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for entry in _served(entries):
        found.setdefault(f"{entry.kind.value}|{entry.signature}", entry)
    return found


def _by_use(affordances: Iterable[Entry]) -> dict[str, Entry]:
    """Affordances by the use they verify: a ``uses:<arguments>`` signature (an older atlas's
    ``|<effect>`` suffix dropped: what a call changed depends on the state it met, which a build
    samples), the others (``tolerates:…``) as they are. Of one use, the best-supported entry speaks."""
    found: dict[str, Entry] = {}
    for entry in sorted(_served(affordances), key=lambda e: (-e.support, e.signature)):
        use = entry.signature.rsplit("|", 1)[0] if entry.signature.startswith("uses:") else entry.signature
        found.setdefault(use, entry)
    return found


def _evidence_keys(entry: Entry) -> list[str]:
    """The arguments of the entry's calls made on the snapshot as it is (step 0): the same
    arguments later in a chain meet another state, where success and failure both are true."""
    return [canonical_json(evidence.arguments) for evidence in entry.evidence if evidence.step == 0]


def _failing_arguments(boundaries: Iterable[Entry]) -> dict[str, Entry]:
    """Arguments a served boundary was observed failing with → that boundary."""
    found: dict[str, Entry] = {}
    for entry in _served(boundaries):
        for key in _evidence_keys(entry):
            found.setdefault(key, entry)
    return found


def _properties(tool: ToolExport) -> set[str]:
    properties = tool.input_schema.get("properties")
    return set(properties) if isinstance(properties, dict) else set()


def _counts(tool: ToolExport) -> str:
    return (f"{len(_served(tool.affordances))} affordance(s), {len(_served(tool.boundaries))} boundary(ies), "
            f"{len(_served(tool.co_usage))} composition(s)")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
