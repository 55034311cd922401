"""Saturation: every semantic boundary of every tool, from calls the server is known to accept.

The frontier spends a round's budget on a few target tools; on a server of thirty tools most of
them then never meet the misuse a maintainer would document (an empty list where items are
needed, a negative amount, an index past the end, a stale hash). Offline probes are cheap —
one call each — so each exploration round also runs, for every tool, the boundary mutations of
the semantic families (:data:`SATURATING_FAMILIES`) it has not tried yet, until the tool is
saturated or the round's :data:`SATURATION_BUDGET` is spent.

A mutation is only as true as the call it breaks: the bases are the tool's *verified* calls
(the example arguments of its active affordances that succeeded on their own), so "fails when
`x` is negative" is never the failure of an already invalid call. A tool that only ever succeeded
once other tools had prepared the state (a regex test after its cases were added) is broken inside
that chain: the enabling calls first, then the mutated one — its verified call, and its call with
every optional argument too (on the verified call's values), so its optional arguments meet their
misuses on a prepared state. A tool with no verified call yet is
mutated from its planned call, as the frontier would. Bases of different value classes
(:func:`value_classes`) are all mutated: ``2^10`` and ``sqrt(16)`` may break differently.

Four boundaries need more than one changed value:

- a **stale token**: a call that carries a hash, version or etag of content is repeated after
  it ran once (the content it describes has changed), and sent with a well-formed digest of
  other content;
- a **repeat** of a state-changing call on what it already changed (done twice, deleted twice);
- a call **after another tool changed** what it acts on (:func:`_after_change`): a task marked done,
  then edited; a row deleted, then read; a graph filled from a file, then analysed;
- a **second write** of the same record with one value changed, read after each write: does it add a
  record or replace the first (:mod:`toolatlas.offline.rewrites`)?

Each reading tool is also pointed at every text file of the snapshot (:func:`_target_sweep`), each
tool at one value of every family of names another tool listed for its kind of argument
(:func:`_listed_sweep`: ``shake_128`` where ``sha256`` was used), and
a tool with no verified use yet gets one more variant of its valid call a round (:func:`_next_variant`),
or — one that deletes or changes things — its call on a thing a creator of its kind of object has just
made (:func:`_on_something_made`).
Each writing tool's call is also read back by every read tool that can show what it wrote
(:meth:`OfflineProposer.read_back_probes`): write → read, create → list, create → search.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from toolatlas.graph.models import EntryKind, EntryStatus
from toolatlas.offline.kinds import PATH_KINDS, ArgSpec, ToolEffect, tool_effect, tool_object
from toolatlas.offline.mutations import SEMANTIC_FAMILIES, boundary_mutations
from toolatlas.offline.rewrites import SECOND_WRITE, second_writes
from toolatlas.offline.scalars import reads_media
from toolatlas.offline.schemas import conforms
from toolatlas.offline.targets import names_format
from toolatlas.offline.workflows import exercised_keys, shared_arguments
from toolatlas.probing.bindings import bound_references
from toolatlas.probing.conditions import condition_argument
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.probing.values import ArgKind

if TYPE_CHECKING:
    from toolatlas.offline.proposer import OfflineProposer
    from toolatlas.offline.targets import Candidate

__all__ = ["SATURATING_FAMILIES", "SATURATION_BUDGET", "saturation_probes", "token_arguments", "verified_bases",
           "with_context"]

SATURATION_BUDGET = 120
"""Probes per server and round beyond the frontier's choice (single calls or short chains), at least;
a server of many tools gets :data:`PER_TOOL_SHARE` a tool (a fifty-tool server is not starved)."""
PER_TOOL_SHARE = 6
TARGETS_PER_ROUND = 3
"""Existing files a reading tool is newly pointed at per round (:func:`_target_sweep`)."""
PER_TOOL = 12
"""At most this many new saturation probes per tool and round: a tool of many arguments does not
take the whole budget from the others."""
BASES_PER_TOOL = 3
VARIANTS_TRIED = 6
"""Variants of a tool with no verified use tried by saturation, one a round (:func:`_next_variant`)."""
AFTER_CHANGE_PEERS = 4
"""Tools that create in, update or delete what a tool acts on, tried before its verified call (:func:`_after_change`)."""
SATURATING_FAMILIES = SEMANTIC_FAMILIES | {
    "empty_value", "negative_number", "stale_token", "repeat_change", "after_change", SECOND_WRITE}
"""The semantic families plus the two emptiness/sign boundaries a description implies (``cases``
needs items, an ``amount`` is positive) and the multi-step ones of this module and of second writes."""
VOCABULARY_KINDS = frozenset({
    ArgKind.UNIT, ArgKind.HASH_ALGORITHM, ArgKind.TIMEZONE, ArgKind.LOCALE, ArgKind.LANGUAGE_CODE,
    ArgKind.COUNTRY_CODE, ArgKind.CURRENCY, ArgKind.MIME_TYPE, ArgKind.ENCODING, ArgKind.PROGRAMMING_LANGUAGE,
})
"""Kinds of value a server names from a vocabulary of its own (units, algorithms, zones, currencies…), which
its listings state whole — unlike a sheet or a cell, which name parts of one document."""
_TOKEN_NAME = re.compile(r"hash|etag|checksum|digest|(^|_)version(_|$)|revision_token|(^|_)token$", re.IGNORECASE)


def token_arguments(specs: list[ArgSpec]) -> list[ArgSpec]:
    """Arguments that carry a fingerprint of content a previous read returned (hash, etag, version)."""
    return [
        s
        for s in specs
        if s.kind is ArgKind.HASH or (s.json_type in ("string", None) and _TOKEN_NAME.search(s.name))
    ]


def value_classes(specs: list[ArgSpec], arguments: dict[str, Any]) -> list[str]:
    """What kind of value each expression-like argument holds (``expr~^``, ``expr~sqrt()``, ``ops~many``):
    calls that use different operators, functions or sizes of batch are different capabilities."""
    classes: list[str] = []
    for spec in specs:
        value = arguments.get(spec.name)
        if isinstance(value, str) and spec.kind in (ArgKind.EXPRESSION, ArgKind.FORMULA, ArgKind.UNIT):
            operators = sorted(set(re.findall(r"[-+*/^%]", value)))
            functions = sorted(set(re.findall(r"([A-Za-z_]\w*)\s*\(", value)))
            parts = [*operators, *(f"{f}()" for f in functions)]
            if parts:
                classes.append(f"{spec.name}~{''.join(parts)}")
        elif isinstance(value, list) and spec.kind is ArgKind.ARRAY and spec.items is not None:
            if spec.items.kind is ArgKind.OBJECT and len(value) > 1:
                classes.append(f"{spec.name}~many")
    return classes


class Base(NamedTuple):
    """A verified call to break, and the calls that enabled it (none: it works on the untouched snapshot)."""

    arguments: dict[str, Any]
    prefix: tuple[ProbeStep, ...] = ()


def verified_bases(proposer: OfflineProposer, name: str) -> list[Base]:
    """The tool's verified calls, one per argument shape, most supported first: those that succeeded on
    their own; for a tool that only ever succeeded once other tools had prepared the state (a test run
    after its cases were added), those calls with the steps of the other tools before them (none whose arguments are
    bound to an answer of the same tool's earlier call: that call is not one of them)."""
    entries = [
        e
        for e in proposer.graph.entries_of(name, EntryKind.AFFORDANCE)
        if e.status is EntryStatus.ACTIVE
        and e.signature.startswith("uses:")
        and e.example_arguments is not None
        and e.evidence
    ]
    entries.sort(key=lambda e: (-e.support, e.id))
    alone = [e for e in entries if e.evidence[0].step == 0]
    bases: list[Base] = []
    seen: set[str] = set()
    for entry in alone or entries:
        evidence = entry.evidence[0]
        if not alone and bound_references(evidence.arguments) and any(p["tool"] == name for p in evidence.prefix):
            continue  # bound to an answer of its own tool's earlier call (a preview's token), which is left out below
        prefix = tuple(
            ProbeStep(tool=p["tool"], arguments=p["arguments"], intent=f"prepare what `{name}` needs", expect="ok")
            for p in evidence.prefix if p["tool"] != name  # the same tool before: the control that failed
        ) if not alone else ()
        key = json.dumps([evidence.arguments, [(s.tool, s.arguments) for s in prefix]], sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            bases.append(Base(dict(evidence.arguments), prefix))
        if len(bases) == BASES_PER_TOOL:
            break
    return bases


def with_context(
    step: ProbeStep, arguments: dict[str, Any], reference: dict[str, Any] | None, specs: Sequence[ArgSpec] = ()
) -> ProbeStep:
    """A mutated step whose condition also says how its call differs from ``reference`` (the tool's seed
    call, :meth:`OfflineProposer.reference_call`): broken on another call, the same misuse may be answered
    otherwise (row 0 accepted in a CSV file, refused in a workbook; a footnote placed by text or by
    index), and the condition is what tells them apart. Only what stays the same from build to build
    is said: arguments given or left out, an enum member or a flag, the kind of file a path names —
    never a made-up name or a count."""
    if reference is None or step.condition is None:
        return step
    target = condition_argument(step.condition)
    by_name = {s.name: s for s in specs}
    said = []
    for name in sorted(set(arguments) | set(reference)):
        spec = by_name.get(name)
        if name == target or (spec is not None and (spec.fresh or spec.kind is ArgKind.NEW_PATH)):
            continue
        if name not in reference:
            said.append(f"`{name}` given")
        elif name not in arguments:
            said.append(f"no `{name}`")
        elif arguments[name] != reference[name]:
            value, before = arguments[name], reference[name]
            if isinstance(value, bool) or (spec is not None and spec.enum and value in spec.enum):
                said.append(f"`{name}` = {json.dumps(value)}")
            elif (isinstance(value, str) and isinstance(before, str) and (spec is None or spec.kind in PATH_KINDS)
                  and _file_class(value) and _file_class(value) != _file_class(before)):  # a network has a slash too
                said.append(f"`{name}` {_file_class(value)}")
    if not said:
        return step
    return step.model_copy(update={"condition": f"{step.condition} (with {', '.join(said[:3])})"})


def _file_class(value: str) -> str:
    """What kind of file a path names (``a .xlsx file``), or ``""`` for a value that is no path."""
    name = value.rstrip("/").rsplit("/", 1)[-1]
    if "/" not in value or not name:
        return ""
    return f"a {name[name.rindex('.'):].lower()} file" if "." in name[1:] else "a file without an extension"


_NAMES_A_THING = re.compile(r"(?:^|\b(?:the|its|a)\s+)name\s+of\b|\b(?:name|id|identifier)\.?\s*$", re.IGNORECASE)
"""A description saying an argument names a thing (``Graph name``, ``The name of the table``)."""


def _after_change(proposer: OfflineProposer, name: str, base: Base) -> list[tuple[str, str, list[ProbeStep]]]:
    """``(family, condition, steps)``: the verified call right after a tool that creates in, updates or
    deletes acts on the same thing — the arguments it takes under the same name (two of them, or one that
    names a thing: an id, a ``Graph name``; a call that leaves such an optional argument out is pointed at
    what the other tool acts on) — first: a task marked done can no longer be edited, a deleted row no
    longer read, a graph filled with a cycle no longer reduced."""
    tool = proposer.graph.specs[name]
    naming = {s.name for s in proposer.args[name] if s.kind is ArgKind.IDENTIFIER or _NAMES_A_THING.search(s.description)}
    ranked = []
    changing = (ToolEffect.CREATE, ToolEffect.UPDATE, ToolEffect.DELETE)
    for peer, spec in proposer.graph.specs.items():
        if peer == name or peer in proposer.slow or tool_effect(spec) not in changing:
            continue
        planned = proposer.synth.valid_arguments(spec, proposer.args[peer], 0)
        if planned is None:
            continue
        taken = {k: v for k, v in shared_arguments(planned.arguments, tool).items()
                 if k in naming and k not in base.arguments}  # the container the base call leaves to its default
        arguments = {**base.arguments, **taken}
        shared = {
            k: v for k, v in shared_arguments(arguments, spec).items()
            if isinstance(v, str | int) and not isinstance(v, bool) and str(v).strip()
        }
        if len(shared) >= 2 or any(k in naming for k in shared):
            ranked.append((-len(shared), peer, shared, planned.arguments, arguments))
    out: list[tuple[str, str, list[ProbeStep]]] = []
    for _count, peer, shared, planned_arguments, arguments in sorted(ranked, key=lambda r: r[:2])[:AFTER_CHANGE_PEERS]:
        spec = proposer.graph.specs[peer]
        named = ", ".join(f"`{k}`" for k in sorted(shared))
        condition = f"`{peer}` acted just before on the same {named}"
        change = ProbeStep(tool=peer, arguments={**planned_arguments, **shared}, expect="ok",
                           intent=f"{spec.purpose} (what `{name}` acts on next)")
        call = ProbeStep(tool=name, arguments=arguments, intent=f"check how `{name}` handles {condition}",
                         expect="any", mutation="after_change", condition=condition)
        out.append(("after_change", condition, [*base.prefix, change, call]))
    return out


def _stale_digest(value: Any) -> str:
    """A digest of the same length and alphabet as ``value`` but of other content."""
    text = value if isinstance(value, str) else ""
    full = hashlib.sha256(f"other content than {text}".encode()).hexdigest() * 2
    if text and re.fullmatch(r"[0-9a-fA-F]+", text):
        return full[: len(text)]
    return full[:64]


def _multi_step(proposer: OfflineProposer, name: str, verified: Base) -> list[tuple[str, str, list[ProbeStep]]]:
    """``(family, condition, steps)`` of the boundaries that need a call before the broken one."""
    base = verified.arguments
    tool = proposer.graph.specs[name]
    specs = proposer.args[name]
    effect = tool_effect(tool)
    out: list[tuple[str, str, list[ProbeStep]]] = []
    first = ProbeStep(tool=name, arguments=base, intent=tool.purpose, expect="ok")
    for spec in token_arguments(specs):
        if spec.name not in base:
            continue
        arg = f"`{spec.name}`"
        if effect is not ToolEffect.READ:
            condition = f"{arg} carries the fingerprint of content that changed since it was read (the same call ran just before)"
            again = first.model_copy(update={"expect": "any", "mutation": "stale_token", "condition": condition,
                                             "intent": f"repeat the call with the now stale {arg}"})
            out.append(("stale_token", condition, [*verified.prefix, first, again]))
        condition = f"{arg} is a well-formed fingerprint of other content (stale or mistyped)"
        wrong = {**base, spec.name: _stale_digest(base[spec.name])}
        out.append(("stale_token", condition, [*verified.prefix, first.model_copy(update={
            "arguments": wrong, "expect": "any", "mutation": "stale_token", "condition": condition,
            "intent": f"check how `{name}` handles {condition}"})]))
    if effect in (ToolEffect.UPDATE, ToolEffect.DELETE) and not token_arguments(specs):
        condition = "the change it makes was already made (the same call ran just before)"
        again = first.model_copy(update={"expect": "any", "mutation": "repeat_change", "condition": condition,
                                         "intent": "make the same change again"})
        out.append(("repeat_change", condition, [*verified.prefix, first, again]))
    out.extend(second_writes(proposer, name, base))  # a record written twice with one value changed: added, or replaced?
    return out


def _next_variant(proposer: OfflineProposer, round_: int, name: str) -> list[tuple[tuple[str, ...], Probe]]:
    """A tool with no verified use yet: the valid call of one more variant a round (its optional
    arguments, other enum members, the description's other examples), so a use its first calls miss
    (an operation that needs a pattern, where the next one needs none) is still tried — on what the
    run binds it to (a session a loader minted)."""
    tool = proposer.graph.specs[name]
    made = _on_something_made(proposer, round_, name)
    for variant in range(1, VARIANTS_TRIED + 1):
        key = (name, "variant", str(variant))
        planned = proposer.synth.valid_arguments(tool, proposer.args[name], variant) if key not in proposer.saturated else None
        if planned is not None:
            step = proposer.planned_step(tool, planned, expect="ok")
            return [*made, (key, proposer.new_probe(round_, Direction.AFFORDANCE, name, [step], keys=[f"{name}:variant:{variant}"]))]
    return made


def _on_something_made(proposer: OfflineProposer, round_: int, name: str) -> list[tuple[tuple[str, ...], Probe]]:
    """A tool with no verified use yet that deletes or changes things: its call on a thing a creator of its
    kind of object has just made (``mkdir`` a new folder, then ``rmdir`` it), one creator a round — what it
    acts on need not come from the snapshot, whose things may not suit it (a folder that is not empty)."""
    tool = proposer.graph.specs[name]
    if tool_effect(tool) not in (ToolEffect.DELETE, ToolEffect.UPDATE):
        return []
    creators = sorted(t.name for t in proposer.graph.specs.values()
                      if t.name != name and tool_effect(t) is ToolEffect.CREATE and tool_object(t) is tool_object(tool))
    for creator in creators:
        key = (name, "made_by", creator)
        steps = proposer.made_by(proposer.graph.specs[creator], tool) if key not in proposer.saturated else None
        if steps is not None:
            return [(key, proposer.new_probe(round_, Direction.AFFORDANCE, name, steps, keys=[f"{name}:made_by:{creator}"]))]
    return []


def _family(value: str) -> str:
    """The family of a listed name: its leading letters (``sha`` of sha3_256, ``shake`` of shake_128)."""
    match = re.match(r"[A-Za-z]+", value)
    return match.group(0).lower() if match else value


def _listed_sweep(proposer: OfflineProposer, round_: int, name: str) -> list[tuple[tuple[str, ...], Probe]]:
    """A tool's valid call with a value another tool of the server listed for that kind of argument, one
    value of each family of names the tool has not been called with yet, :data:`TARGETS_PER_ROUND` a round
    (``shake_128`` where ``sha256`` was used): what a server lists as available is not accepted by every
    tool that takes one."""
    tool = proposer.graph.specs[name]
    found: list[tuple[tuple[str, ...], Probe]] = []
    called = [ev.arguments for e in proposer.graph.entries_of(name, active_only=False) for ev in e.evidence
              if ev.tool == name]
    for spec in proposer.args[name]:
        if spec.kind not in VOCABULARY_KINDS:
            continue
        planned = next((p for v in range(VARIANTS_TRIED)
                        if (p := proposer.synth.valid_arguments(tool, proposer.args[name], v)) is not None
                        and spec.name in p.arguments), None)
        if planned is None:
            continue
        listed = [ref for ref in proposer.pool.values(spec.kind)
                  if ref.tool != name and ref.tool in proposer.graph.specs and not ref.created]
        tried = {_family(str(args[spec.name])) for args in called if isinstance(args.get(spec.name), str)}
        tried |= {_family(key[3]) for key in proposer.saturated if key[:3] == (name, "listed", spec.name)}
        for ref in listed:
            family = _family(ref.value)
            if family in tried or not conforms(ref.value, spec.json_schema):
                continue
            tried.add(family)
            arguments = {**planned.arguments, spec.name: ref.value}
            step = proposer.planned_step(tool, planned, expect="ok").model_copy(update={
                "arguments": arguments, "harvested": [ref], "exercised": exercised_keys(arguments, tool),
                "intent": f"{tool.purpose}, with `{spec.name}` = {ref.value!r} as `{ref.tool}` listed it"})
            key = (name, "listed", spec.name, ref.value)
            found.append((key, proposer.new_probe(round_, Direction.AFFORDANCE, name, [step],
                                                  keys=[f"{name}:listed:{spec.name}={ref.value}"])))
            if len(found) >= TARGETS_PER_ROUND:
                return found
    return found


CHOICE_BASES = 2
"""Verified calls of a tool whose enum arguments are each set to their other choices (:func:`_choice_sweep`)."""


def _choice_sweep(proposer: OfflineProposer, round_: int, name: str,
                  done: list[Base]) -> list[tuple[tuple[str, ...], Probe]]:
    """A call the tool was verified to take alone, with one enum argument set to another of its choices and the
    rest kept (``scope`` ``metro`` where ``state`` worked with ``area_code`` ``51``), :data:`TARGETS_PER_ROUND` a
    round: what one choice takes, another may refuse (``'51' looks like a 2-digit state FIPS, not an MSA code``)
    or pass over (``area_code was ignored because scope='national'``) — what the values a call carries mean
    depends on the choices beside them, which no schema says."""
    tool = proposer.graph.specs[name]
    choices = [spec for spec in proposer.args[name] if len(spec.enum) > 1 and not spec.handed_back]
    if not choices:
        return []
    found: list[tuple[tuple[str, ...], Probe]] = []
    bases = [b for b in done if not b.prefix][:CHOICE_BASES]
    for base in bases:
        shape = json.dumps(base.arguments, sort_keys=True, default=str)
        for spec in choices:
            chosen = base.arguments.get(spec.name, spec.default if spec.has_default else None)
            for member in spec.enum:
                key = (name, "choice", spec.name, str(member), shape)
                if member == chosen or key in proposer.saturated or not conforms(member, spec.json_schema):
                    continue
                arguments = {**base.arguments, spec.name: member}
                step = ProbeStep(tool=name, arguments=arguments, expect="ok", exercised=exercised_keys(arguments, tool),
                                 intent=f"{tool.purpose}, with `{spec.name}` = {member!r} and the rest of a call that "
                                        f"worked")
                found.append((key, proposer.new_probe(round_, Direction.AFFORDANCE, name, [step],
                                                      keys=[f"{name}:choice:{spec.name}={member}"])))
                if len(found) >= TARGETS_PER_ROUND:
                    return found
    return found


def _target_sweep(proposer: OfflineProposer, round_: int, name: str,
                  done: list[Base]) -> list[tuple[tuple[str, ...], Probe]]:
    """A reading tool's call on each existing file of its kind (text; media for a media reader; any file of a
    format it was verified on or its description names: every ``.zip``, ``.7z`` and ``.tar.gz`` of an unpacker
    of "ZIP, 7Z, TAR.GZ") it has not been pointed at yet
    (:data:`TARGETS_PER_ROUND` a round): what a linter, a parser, a viewer or an unpacker answers depends on
    what the file holds (a clean file, one that breaks rules, one that does not parse, one that is encrypted),
    which no argument's name tells. A file of another nature (a ``.gz`` beside the logs, a ``.cap`` beside the
    ``.pcap`` captures) is pointed at too, one per extension, after the rest — one the server's own listing gave
    first: it is what a caller hands the tool next, and its refusal names what the tool takes instead. A media
    reader meets a text file only when the server's listing gave it."""
    tool = proposer.graph.specs[name]
    effect = tool_effect(tool)
    if effect is not ToolEffect.READ and (effect is not ToolEffect.UNKNOWN or tool.annotations.destructive):
        return []  # a tool of no known verb (``lint``, ``parse``) reads too, unless it says it destroys
    specs = proposer.args[name]
    tree = proposer.facts.tree
    held = {f.extension for f in tree.files if f.extension} if tree is not None else set()
    spec = next((s for s in specs if _file_kind(s, held) or (s.items is not None and _file_kind(s.items))
                 or _file_field(s) is not None), None)
    planned = proposer.synth.valid_arguments(tool, specs, 0) if spec is not None else None
    if spec is None or planned is None:
        return []
    # the file swapped into a call the tool was verified to take alone, so what differs is the file (a planned call
    # may pair it with a file the tool refuses)
    alone = next((b for b in done if not b.prefix and spec.name in b.arguments), None)
    called = alone.arguments if alone is not None else planned.arguments
    field = _file_field(spec)  # ``files[0].file_path``: the file sits in a field of the items
    item = called.get(spec.name)
    if field is not None and not (isinstance(item, list) and item and isinstance(item[0], dict)):
        return []
    first: dict[str, Any] = item[0] if field is not None and isinstance(item, list) else {}
    found: list[tuple[tuple[str, ...], Probe]] = []
    targets = proposer.synth.targets
    binary = reads_media(tool)  # an image or audio reader is pointed at such files, never at text
    verified = _verified_formats(proposer, done, spec.name)
    files = targets.files(binary=binary)
    named = targets.named_extensions(field or spec.name)  # ``dbc_path``: the .dbc files, not the captures
    facts = {c.value: targets.file_fact(c.value) for c in files}
    if named:
        files = [c for c in files if (fact := facts[c.value]) is None or fact.extension in named]
    described = {f.extension for f in facts.values()
                 if f is not None and f.extension and names_format(tool.description, f.extension)}
    formats = verified | described

    def order(candidate: Candidate) -> tuple[int, bool, bool]:  # the formats it took first, then those it says
        fact = facts[candidate.value]
        extension = fact.extension if fact is not None else ""
        return (0 if extension in verified else 1 if extension in described else 2,
                fact is not None and fact.text == binary,  # files of another nature last
                not proposer.synth.pool.holds(candidate.value))  # of those, what the server's listing gave first

    other_natures: set[str] = set()  # extensions of the listed files of another nature already pointed at
    for candidate in sorted(files, key=order):  # what files of one format hold is what differs
        fact = facts[candidate.value]
        key: tuple[str, ...] = (name, "target", candidate.value)
        coverage = f"{name}:target:{candidate.value}"
        swept = key in proposer.saturated or coverage in proposer.graph.covered
        if fact is not None and fact.text == binary and fact.extension not in formats:
            # a file of another nature, unless of a format the tool was verified on (each .zip its own): the first
            # of its extension, one the server's listing gave before the rest — for a media reader, only text the
            # listing gave (a media reader shown a project's notes and tables tells nothing of media)
            if fact.extension in other_natures or (binary and not proposer.synth.pool.holds(candidate.value)):
                continue
            other_natures.add(fact.extension)
        if swept:
            continue
        value: Any = [candidate.value] if spec.items is not None and not _file_kind(spec) else candidate.value
        if field is not None:
            value = [{**first, field: candidate.value}]
        arguments = {**called, spec.name: value}
        step = ProbeStep(tool=name, arguments=arguments, intent=f"{tool.purpose} ({candidate.value})", expect="any")
        found.append((key, proposer.new_probe(round_, Direction.AFFORDANCE, name, [step], keys=[coverage])))
        if len(found) == TARGETS_PER_ROUND:
            break
    return found


def _verified_formats(proposer: OfflineProposer, done: list[Base], argument: str) -> set[str]:
    """The extensions of the files ``argument`` named in the tool's verified calls ``done`` (``.zip``)."""
    found = set()
    for base in done:
        value = base.arguments.get(argument)
        for path in value if isinstance(value, list) else [value]:
            fact = proposer.synth.targets.file_fact(path) if isinstance(path, str) else None
            if fact is not None and fact.extension:
                found.add(fact.extension)
    return found


def _file_field(spec: ArgSpec) -> str | None:
    """The field of an array argument's items that names an existing file (``file_path`` of ``files``)."""
    if spec.kind is not ArgKind.ARRAY or spec.items is None:
        return None
    return next((p.name for p in spec.items.properties if _file_kind(p)), None)


def _file_kind(spec: ArgSpec, held: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether an argument names an existing file: typed so, or a bare path whose description names a format of
    the files ``held`` (``Local PCAP/PCAPNG path`` beside ``.pcap`` files)."""
    if spec.fresh:
        return False
    return spec.kind is ArgKind.FILE_PATH or (
        spec.kind is ArgKind.PATH and any(names_format(spec.description, extension) for extension in held))


def saturation_probes(proposer: OfflineProposer, round_: int, taken: set[str]) -> list[Probe]:
    """This round's saturation probes: per tool, semantic boundaries of its verified calls not yet
    tried (:attr:`OfflineProposer.saturated`), at most :data:`PER_TOOL` a tool, the round's saturation budget in all."""
    per_tool: dict[str, list[tuple[tuple[str, ...], Probe]]] = {}
    for name in sorted(proposer.graph.specs):
        if name in proposer.slow:
            continue
        tool = proposer.graph.specs[name]
        specs = proposer.args[name]
        done = verified_bases(proposer, name)  # read once: the sweeps below swap their values into these calls
        bases = list(done)
        verified = bool(bases)
        if not bases:
            planned = proposer.synth.valid_arguments(tool, specs, 0)
            bases = [Base(planned.arguments)] if planned is not None else []
        elif bases[0].prefix and (wide := proposer.synth.valid_arguments(tool, specs, 2)) is not None:
            # it works only prepared: its optional arguments are broken prepared too, on the verified values
            arguments = {**wide.arguments, **{k: v for k, v in bases[0].arguments.items() if k in wide.arguments}}
            if all(arguments != base.arguments for base in bases):
                bases.append(Base(arguments, bases[0].prefix))
        probes: list[tuple[tuple[str, ...], Probe]] = []
        planned_keys: set[tuple[str, ...]] = set()
        for position, base in enumerate(bases):
            found: list[tuple[str, str | None, str, list[ProbeStep]]] = []
            base_key = json.dumps([base.arguments, [(s.tool, s.arguments) for s in base.prefix]], sort_keys=True,
                                  default=str)
            reference = proposer.reference_call(name)
            for mutation in boundary_mutations(tool, specs, base.arguments, proposer.synth, cap=10_000):
                if mutation.name.value not in SATURATING_FAMILIES:
                    continue
                step = with_context(mutation.step(name), base.arguments, reference, specs)
                steps = proposer.mirrored(base.prefix, tool, base.arguments, mutation, step)
                found.append((mutation.name.value, mutation.target_arg, step.condition or "", steps))
            found.extend((family, "*", condition, steps) for family, condition, steps in _multi_step(proposer, name, base))
            if position == 0:  # the state other tools leave it in: from its most supported call
                found.extend((f, "*", c, steps) for f, c, steps in _after_change(proposer, name, base))
            for family, target, condition, steps in found:
                key: tuple[str, ...] = (name, family, target or "*", condition, base_key)
                if key in proposer.saturated or key in planned_keys:
                    continue
                probe = proposer.boundary_probe(round_, name, steps, key=f"{name}:mut:{family}:{target or '*'}")
                if probe.id in taken:
                    continue
                planned_keys.add(key)
                probes.append((key, probe))
                if len(probes) >= PER_TOOL:
                    break
            if len(probes) >= PER_TOOL:
                break
        sweeps = [*_target_sweep(proposer, round_, name, done), *_listed_sweep(proposer, round_, name),
                  *_choice_sweep(proposer, round_, name, done)]
        for key, probe in reversed(sweeps):
            probes.insert(0, (key, probe))
        if not verified:
            probes[:0] = _next_variant(proposer, round_, name)
        compositions = [*proposer.composition_probes(round_, name), *proposer.read_back_probes(round_, name).values()]
        for probe in reversed(compositions):  # compositions first: each kind of edge once
            edges = tuple(k for k in probe.coverage_keys if ":arg:" not in k and ":shape:" not in k)
            key = (name, "composition", *edges)
            if key not in proposer.saturated and not all(k in proposer.graph.covered for k in edges):
                probes.insert(0, (key, probe))
        if probes:
            per_tool[name] = probes
    chosen: list[Probe] = []
    depth = 0
    budget = max(SATURATION_BUDGET, PER_TOOL_SHARE * len(proposer.graph.specs))
    while len(chosen) < budget and any(depth < len(p) for p in per_tool.values()):
        for probes in per_tool.values():  # round robin: every tool gets its first ones first
            if depth < len(probes) and len(chosen) < budget:
                key, probe = probes[depth]
                proposer.saturated.add(key)  # what the budget cut is planned again next round
                chosen.append(probe)
        depth += 1
    return chosen
