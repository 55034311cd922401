"""Tool cards: what one tool is, how much of it was exercised, and every entry with its evidence.

Everything a server supplied (names, descriptions, annotations, arguments, output excerpts) is
HTML-escaped here; only backtick spans in entry texts (which the inducer writes) become ``<code>``,
after escaping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from toolatlas.export import ToolExport
from toolatlas.graph.models import Entry, EntryStatus, Evidence
from toolatlas.report.style import OUTCOME_COLOURS
from toolatlas.report.svg import esc

__all__ = ["inline", "outcome_mix", "pretty_json", "tool_card"]

_BACKTICKS = re.compile(r"`([^`]+)`")

SECTIONS = (
    ("affordances", "Affordances", "affordance"),
    ("boundaries", "Boundaries", "boundary"),
    ("co_usage", "Co-usage", "co_usage"),
)
STALE_LABEL = (
    ' <span class="badge stale" title="interface changed or a re-check contradicted it">stale</span>'
)
NOT_IN_TEXT = "yes — the error is only in the result text"


def inline(text: str) -> str:
    """Escaped text with `backtick` spans as ``<code>``."""
    return _BACKTICKS.sub(r"<code>\1</code>", esc(text))


def pretty_json(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def _code(value: object) -> str:
    return f"<code>{esc(value)}</code>"


def _utc(moment: datetime) -> str:
    return (moment.astimezone(UTC) if moment.tzinfo else moment).strftime("%Y-%m-%d %H:%M UTC")


def outcome_mix(counts: Mapping[str, int]) -> str:
    """A small stacked bar plus ``class n`` text for a mix of call outcomes."""
    total = sum(counts.values())
    if not total:
        return '<span class="mix-text">—</span>'
    parts = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    bar = "".join(
        f'<span style="width:{100 * n / total:.1f}%;background:{OUTCOME_COLOURS.get(k, "#94a3b8")}"'
        f' title="{esc(k)}: {n}"></span>'
        for k, n in parts
    )
    words = " · ".join(f"{esc(k)} {n}" for k, n in parts)
    return f'<span class="mix">{bar}</span><span class="mix-text">{words}</span>'


def _fields(entry: Entry) -> str:
    """The typed fields that are set, as ``name value`` pairs (values already escaped); a condition the
    entry's sentence already states is not repeated."""
    relation = entry.relation.value if entry.relation else None
    weight = None if entry.weight is None else f"{entry.weight:.2f} ({entry.transitions} transition(s))"
    def unsaid(condition: str | None) -> str | None:  # each condition is stated once
        return inline(condition) if condition and condition not in entry.text else None

    fields: list[tuple[str, str | None]] = [
        ("when", unsaid(entry.when)),
        ("when not", unsaid(entry.when_not) if entry.when_not != entry.condition else None),
        ("condition", unsaid(entry.condition)),
        ("error signature", entry.error_signature and _code(entry.error_signature)),
        ("outcome", entry.outcome and f'<span class="outcome">{esc(entry.outcome.value)}</span>'),
        ("effect", entry.effect and esc(entry.effect.value)),
        ("deterministic", None if entry.deterministic is None else ("yes" if entry.deterministic else "no")),
        ("idempotent", None if entry.idempotent is None else ("yes" if entry.idempotent else "no")),
        ("reported as success", NOT_IN_TEXT if entry.reported_as_success else None),
        ("peer", entry.peer and _code(entry.peer)),
        ("relation", relation and f'<span class="badge rel-{relation}">{relation}</span>'),
        ("weight", weight),
        ("arguments", ", ".join(_code(a) for a in entry.arguments_exercised) or None),
        ("support", str(entry.support)),
        ("contradictions", str(entry.contradictions) if entry.contradictions else None),
        ("confidence", f"{entry.confidence:.2f}"),
        ("round found", str(entry.round_found)),
        ("last verified", _utc(entry.last_verified)),
        ("status", esc(entry.status.value)),
    ]
    rows = "".join(f"<div><dt>{name}</dt><dd>{value}</dd></div>" for name, value in fields if value)
    return f'<dl class="fields">{rows}</dl>'


def _evidence_item(item: Evidence) -> str:
    colour = OUTCOME_COLOURS.get(item.outcome.value, "#334155")
    parts = [
        f'<span class="outcome" style="color:{colour}">{esc(item.outcome.value)}</span> <span class="meta">'
        f'· {_code(item.tool)} · probe <span class="mono">{esc(item.probe_id)}</span>'
        f" · round {item.round}</span>",
        f'<div class="label">arguments</div><pre>{esc(pretty_json(item.arguments))}</pre>',
        '<div class="label">output excerpt</div>',
        f"<pre>{esc(item.excerpt)}</pre>" if item.excerpt else '<p class="empty">(no output)</p>',
    ]
    if item.state_change:
        parts.append(f'<div class="label">state change</div><pre>{esc(item.state_change)}</pre>')
    return f"<li>{''.join(parts)}</li>"


def entry_item(entry: Entry) -> str:
    """One entry: its sentence, its typed fields and its collapsible evidence; stale ones are marked."""
    stale = entry.status is EntryStatus.STALE
    if entry.evidence:
        items = "".join(_evidence_item(e) for e in entry.evidence)
        evidence = (
            f'<details class="evidence"><summary>evidence ({len(entry.evidence)})</summary>'
            f"<ol>{items}</ol></details>"
        )
    else:
        evidence = '<p class="empty">no evidence kept</p>'
        if entry.example_arguments is not None:
            evidence += f"<pre>{esc(pretty_json(entry.example_arguments))}</pre>"
    label = STALE_LABEL if stale else ""
    return (
        f'<li class="entry{" stale" if stale else ""}" data-status="{esc(entry.status.value)}"'
        f' title="entry {esc(entry.id)}"><p class="text">{inline(entry.text)}{label}</p>'
        f"{_fields(entry)}{evidence}</li>"
    )


def _entries(entries: Sequence[Entry], heading: str, kind: str) -> str:
    ordered = sorted(entries, key=lambda e: e.status is EntryStatus.STALE)
    stale = sum(1 for e in entries if e.status is EntryStatus.STALE)
    count = f"{len(entries)}" + (f", {stale} stale" if stale else "")
    items = "".join(entry_item(e) for e in ordered)
    return f'<h5>{heading} ({count})</h5><ul class="entries {kind}">{items}</ul>'


def _sections(tool: ToolExport) -> str:
    found = [(getattr(tool, attr), heading, kind) for attr, heading, kind in SECTIONS]
    html = "".join(_entries(entries, heading, kind) for entries, heading, kind in found if entries)
    missing = [heading.lower() for entries, heading, _ in found if not entries]
    if missing:
        listed = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " or " + missing[-1]
        html += f'<p class="empty">No {listed} found yet.</p>'
    return html


def _annotations(annotations: Mapping[str, object]) -> str:
    if not annotations:
        return '<span class="meta">no annotations declared</span>'
    return " ".join(
        f'<span class="badge">{esc(k)}: {esc(json.dumps(v) if isinstance(v, bool) else v)}</span>'
        for k, v in sorted(annotations.items())
    )


def _arguments(tool: ToolExport) -> str:
    if not tool.arguments_total:
        return '<span class="meta">the tool takes no arguments</span>'
    exercised = set(tool.arguments_exercised)
    items = "".join(
        f'<li class="hit" title="exercised">✓ {esc(a)}</li>'
        if a in exercised
        else f'<li class="miss" title="not exercised">{esc(a)}</li>'
        for a in tool.arguments_total
    )
    covered = sum(1 for a in tool.arguments_total if a in exercised)
    share = f"{tool.argument_coverage * 100:.0f}%"
    return (
        f'<span class="bar"><span style="width:{share}"></span></span> {share} — '
        f'{covered} of {len(tool.arguments_total)} exercised<ul class="args">{items}</ul>'
    )


def tool_card(tool: ToolExport, anchor: str) -> str:
    """The card of one tool; ``anchor`` is its element id (the graph's nodes link to it)."""
    description = (
        f'<p class="description">{esc(tool.description)}</p>'
        if tool.description
        else '<p class="description empty">no description</p>'
    )
    schema = (
        f"<details><summary>input schema</summary><pre>{esc(pretty_json(tool.input_schema))}</pre></details>"
        if tool.input_schema
        else ""
    )
    counts = (
        f"{len(tool.affordances)} affordance(s) · {len(tool.boundaries)} boundary(ies) · "
        f"{len(tool.co_usage)} co-usage"
    )
    return (
        f'<article class="tool-card" id="{anchor}" data-name="{esc(tool.name.lower())}">'
        f'<header><h4>{esc(tool.name)}</h4> {_annotations(tool.annotations)} <span class="meta">· schema '
        f'<span class="mono">{esc(tool.schema_hash)}</span> · {counts}</span></header>{description}{schema}'
        f'<div class="facts"><b>Arguments</b> {_arguments(tool)}</div>'
        f'<div class="facts"><b>Probes</b> {tool.probes} call(s) {outcome_mix(tool.outcomes)}</div>'
        f"{_folded_sections(tool)}</article>"
    )


def _folded_sections(tool: ToolExport) -> str:
    """The card's entries, folded under one summary line (a page of many tools stays a list of their headers,
    which count them); a tool with no entry says so in the open."""
    total = len(tool.affordances) + len(tool.boundaries) + len(tool.co_usage)
    if not total:
        return _sections(tool)
    return f'<details class="card-entries"><summary>entries ({total})</summary>{_sections(tool)}</details>'

