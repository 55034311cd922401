"""The report's inline stylesheet, its one small script, and the colours shared with the SVG drawings.

The page is complete without the script: it only adds the tool-name filter box. The script's hash
goes into the page's Content-Security-Policy, so no other script (an injected one included) runs.
"""

from __future__ import annotations

import base64
import hashlib

__all__ = ["CSS", "OUTCOME_COLOURS", "RELATION_COLOURS", "SCRIPT", "SCRIPT_HASH", "SERIES_COLOURS"]

RELATION_COLOURS = {"data": "#2563eb", "state": "#059669", "retry": "#d97706"}
"""Co-usage relation → stroke colour (graph edges, legend, badges)."""

SERIES_COLOURS = {
    "affordance": "#2563eb",
    "boundary": "#dc2626",
    "arguments": "#7c3aed",
    "entries": "#0f766e",
}

OUTCOME_COLOURS = {
    "ok": "#16a34a",
    "tool_error": "#f59e0b",
    "protocol_error": "#a855f7",
    "timeout": "#64748b",
    "crash": "#dc2626",
}

CSS = """
:root { --ink:#1e293b; --muted:#64748b; --line:#e2e8f0; --soft:#f8fafc; --accent:#2563eb; --bad:#dc2626;
  --good:#15803d; --mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; }
* { box-sizing:border-box; }
body { margin:0; font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--ink); }
main { max-width:1320px; margin:0 auto; padding:24px 28px 64px; }
h1 { font-size:26px; margin:0 0 4px; }
h2 { font-size:21px; margin:36px 0 10px; padding-bottom:6px; border-bottom:2px solid var(--line); }
h3 { font-size:16px; margin:22px 0 8px; }
h4 { font-size:14px; margin:14px 0 6px; }
h5 { font-size:13px; margin:14px 0 4px; text-transform:uppercase; letter-spacing:.05em; color:#475569; }
a { color:var(--accent); text-decoration:none; }
a:hover { text-decoration:underline; }
code, pre, .mono { font-family:var(--mono); font-size:12.5px; }
code { background:#f1f5f9; padding:0 3px; border-radius:3px; }
pre { background:var(--soft); border:1px solid var(--line); border-radius:4px; padding:6px 8px;
  margin:2px 0 8px; white-space:pre-wrap; overflow-wrap:anywhere; max-height:260px; overflow:auto; }
.subtitle { color:var(--muted); margin:0 0 18px; }
.meta { color:var(--muted); font-size:12.5px; }
.empty { color:var(--muted); font-style:italic; }
.totals { display:grid; grid-template-columns:repeat(auto-fill,minmax(128px,1fr)); gap:10px;
  margin:14px 0 18px; }
.total { border:1px solid var(--line); border-radius:6px; padding:8px 12px; background:var(--soft); }
.total b { display:block; font-size:22px; }
.total span { color:var(--muted); font-size:12px; }
table { border-collapse:collapse; width:100%; margin:6px 0 12px; font-size:13px; }
th, td { text-align:left; padding:4px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
th { background:var(--soft); font-weight:600; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
td.detail { color:var(--bad); font-family:var(--mono); font-size:12px; max-width:420px; }
.badge { display:inline-block; padding:0 7px; border-radius:9px; font-size:11.5px; font-weight:600;
  line-height:18px; background:#e2e8f0; color:#334155; vertical-align:1px; white-space:nowrap; }
.badge.ok { background:#dcfce7; color:var(--good); }
.badge.failed { background:#fee2e2; color:var(--bad); }
.badge.stale { background:#e5e7eb; color:#6b7280; border:1px dashed #9ca3af; }
.badge.rel-data { background:#dbeafe; color:#1d4ed8; }
.badge.rel-state { background:#d1fae5; color:#047857; }
.badge.rel-retry { background:#fef3c7; color:#b45309; }
.failure { border-left:4px solid var(--bad); background:#fef2f2; padding:8px 12px; margin:8px 0;
  border-radius:0 4px 4px 0; }
.failure pre { background:#fff; }
nav.toc { font-size:13px; color:var(--muted); }
nav.toc a { margin-right:10px; }
.coverage-cell { border:1px solid var(--line); border-radius:8px; padding:10px 12px; margin:0 0 14px; }
.coverage-cell h3 { margin:0 0 6px; }
.coverage-cell > details { overflow-x:auto; }
.coverage-row { display:flex; flex-wrap:wrap; gap:8px 18px; align-items:flex-start; }
.charts { display:flex; flex-wrap:wrap; gap:6px; flex:0 0 auto; }
.charts svg, .graph svg { max-width:100%; height:auto; }
.latest { flex:1 1 260px; font-size:13px; }
.latest h4 { margin:4px 0 6px; }
.latest dl { display:grid; grid-template-columns:max-content 1fr; gap:2px 12px; margin:0; }
.latest dt { color:var(--muted); }
.latest dd { margin:0; font-variant-numeric:tabular-nums; }
table.rounds { font-size:12px; }
table.rounds th, table.rounds td { padding:3px 6px; white-space:nowrap; }
table.rounds th { white-space:normal; vertical-align:bottom; }
.mix { display:inline-flex; width:90px; height:9px; border-radius:2px; overflow:hidden;
  background:var(--line); vertical-align:middle; margin-right:6px; }
.mix span { display:block; height:100%; }
.mix-text { color:var(--muted); font-size:12px; }
td .mix-text { white-space:nowrap; }
.graph { border:1px solid var(--line); border-radius:8px; padding:8px; text-align:center; }
.server { margin-top:10px; }
#tool-filter { font:inherit; padding:5px 9px; width:320px; border:1px solid #cbd5e1; border-radius:5px;
  margin:6px 0; }
.tool-card { border:1px solid var(--line); border-radius:8px; padding:12px 16px; margin:14px 0; }
.tool-card > header h4 { font-size:17px; margin:0 6px 0 0; display:inline; font-family:var(--mono); }
.tool-card .description { white-space:pre-wrap; margin:6px 0; }
.facts { margin:6px 0; }
.facts > b { margin-right:6px; }
.args { display:flex; flex-wrap:wrap; gap:4px; margin:4px 0; padding:0; list-style:none; }
.args li { font-family:var(--mono); font-size:12px; padding:0 6px; border-radius:3px;
  border:1px solid var(--line); color:#94a3b8; }
.args li.hit { color:#166534; background:#f0fdf4; border-color:#bbf7d0; }
.bar { display:inline-block; width:110px; height:8px; background:var(--line); border-radius:4px;
  vertical-align:middle; }
.bar > span { display:block; height:100%; background:#7c3aed; border-radius:4px; }
.entries { list-style:none; padding:0; margin:0; }
.entry { border-left:3px solid #93c5fd; padding:4px 10px 6px; margin:8px 0; background:#fcfdff; }
.entries.boundary .entry { border-left-color:#fca5a5; background:#fffcfc; }
.entries.co_usage .entry { border-left-color:#a7f3d0; background:#fbfefd; }
.entry .text { margin:0 0 4px; }
.entry.stale { opacity:.55; background:#f9fafb; border-left-style:dashed; }
.entry.stale .text { text-decoration:line-through #9ca3af; }
.fields { display:flex; flex-wrap:wrap; gap:2px 14px; margin:0; font-size:12.5px; }
.fields div { display:flex; gap:4px; }
.fields dt { color:var(--muted); }
.fields dd { margin:0; }
details > summary { cursor:pointer; color:var(--accent); font-size:12.5px; }
details.listing > summary { font-size:16px; font-weight:600; color:var(--ink); margin:22px 0 8px; }
.evidence ol { margin:4px 0; padding-left:22px; }
.evidence li { margin:6px 0; }
.evidence .label { font-size:11.5px; color:var(--muted); text-transform:uppercase;
  letter-spacing:.04em; }
.outcome { font-family:var(--mono); font-size:12px; font-weight:600; }
.strategy, .trace { border:1px solid var(--line); border-radius:6px; padding:8px 14px; margin:10px 0; }
.strategy h4, .trace h4 { margin:0 0 4px; }
.strategy ol, .trace ol { margin:4px 0; }
@media print {
  main { max-width:none; padding:0; }
  .coverage-cell, .entry, .strategy, .trace { break-inside:avoid; }
  #tool-filter, .filter-count { display:none; }
  pre { max-height:none; }
  a { color:inherit; }
}
""".strip()

SCRIPT = """
(function () {
  var box = document.getElementById("tool-filter");
  if (!box) { return; }
  var count = document.getElementById("filter-count");
  var cards = Array.prototype.slice.call(document.querySelectorAll(".tool-card"));
  box.hidden = false;
  box.addEventListener("input", function () {
    var q = box.value.trim().toLowerCase(), shown = 0;
    cards.forEach(function (card) {
      var hit = !q || card.getAttribute("data-name").indexOf(q) >= 0;
      card.hidden = !hit;
      if (hit) { shown += 1; }
    });
    count.textContent = q ? shown + " of " + cards.length + " tools shown" : "";
  });
})();
""".strip()

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
"""CSP source expression allowing exactly :data:`SCRIPT`."""
