"""Routing a task to the servers it is about, over a catalogue of many.

Each server is scored against the task two ways, each normalised so that the best server is 1,
and the two are averaged:

* **its text** — BM25 over one document per server: its tools' names and descriptions, their
  verified vocabulary, its traces' tasks and what the catalogue and the server itself (its MCP
  ``instructions``) say it is for. A server that speaks a task's words often scores high.
* **its vocabulary** — the distinct words the server was seen to speak: what the catalogue and the
  server say it is for, tool names, descriptions, argument names and the schema's words for them,
  verified uses, the words of the successful answers (the column names, records and units its state
  holds) that the probe did not send itself (an echo of its own sentence is no word of the server's),
  its lexicon (every word its answers said during the build, read in full:
  :mod:`toolatlas.graph.lexicon`) and the words of the argument values that worked which the server
  also said (not a probe's invented text) — not its traces' tasks, whose filler words ("what",
  "need") belong to no server — plus the *shapes* of those values (an arithmetic expression, a
  relative or absolute file path, a file extension, a date, a time). Each word counts once, weighted
  by how few servers share it: a word every server has routes nowhere, a shape only one server was
  verified to take routes there. A task about data ("how many nights per city") meets the server
  whose answers held those columns; "what is 1500 * 1.04^10?" meets the server verified on
  expressions.

A request is matched by its words — those that ask for an operation ("open", "record") at half weight: how a
request asks is shared by servers of every kind, what it acts on is not — and by the catalogue's words it blends ("regular expression" →
``regex``, :mod:`toolatlas.guidance.blends`); the names of files and paths in it count by their shapes
and formats only — which file a request names ("notes/todo.txt") says nothing of the server that reads
it, its extension does (a quoted table or column name is the server's own word and counts as one).

The route is every server scoring at least :data:`ROUTE_SHARE` of the best (the margin rule: a
server clearly ahead is routed to alone), widened to every server scoring :data:`UNSURE_SHARE`
when the best server's lead rests on little evidence (few of the task's words, none of them rare).
Each routed server keeps its score as a weight, so that between two routed servers the one the
task is more about wins an operation both could do.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

from toolatlas.graph.models import Entry, EntryKind
from toolatlas.guidance.index import FILLER_TERMS, LexicalIndex, content_terms, terms
from toolatlas.guidance.operations import OPERATIONS, expanded, named_apart
from toolatlas.guidance.profiles import tolerance
from toolatlas.guidance.shapes import value_shapes

__all__ = ["ROUTE_SHARE", "UNSURE_SHARE", "ServerRouter", "answer_words"]

ROUTE_SHARE = 0.5
"""A server is routed to when it scores at least this share of the best server."""
UNSURE_SHARE = 0.3
"""…or this share, when the best server's evidence is thin (see :data:`SURE_EVIDENCE`)."""
SURE_EVIDENCE = 2.5
"""Summed rarity (IDF) of the task's words a server's vocabulary holds, below which a route is unsure."""
SHAPE_WEIGHT = 2.0
"""A value shape a server was verified to take counts this many times a word: it is typed evidence
(the server took an expression), where a shared word may be a coincidence."""
EXCERPT_CHARS = 600
"""Characters of a successful answer whose words join the server's vocabulary."""
VALUE_CHARS = 200
"""Longer argument values (oversized probes, bulk payloads) add no words."""

ASKING_SHARE = 0.5
"""What a word that asks for an operation ("open", "record", "show") counts for routing, against a word of what
it acts on: how a request asks is shared by servers of every kind, what it acts on is not."""
_ASKING = {stem: ASKING_SHARE for op in OPERATIONS.values() for stem in op.task_words}
_RANDOM = re.compile(r"^(?:.*_)?[0-9a-f]{4,}$")
def _words(text: str) -> set[str]:
    """Distinct stemmed words of ``text`` worth routing by (no numbers, no random or harvested names)."""
    return {t for t in terms(text) if t.isalpha() and len(t) > 2 and t not in FILLER_TERMS and not _RANDOM.match(t)}


def _schema_text(schema: Mapping) -> str:
    """The argument names of an input schema and the schema's descriptions of them, nested ones included."""
    said: list[str] = []

    def walk(properties: object) -> None:
        if not isinstance(properties, Mapping):
            return
        for name, spec in properties.items():
            said.append(str(name))
            if isinstance(spec, Mapping):
                said.append(str(spec.get("description") or ""))
                walk(spec.get("properties"))
                if isinstance(spec.get("items"), Mapping):
                    walk(spec["items"].get("properties"))

    walk(schema.get("properties"))
    return " ".join(said)


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        if len(value) <= VALUE_CHARS and "${oversized" not in value:
            yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)


def answer_words(entry: Entry) -> set[str]:
    """The words an entry's successful answers said that its calls did not send (the column names, records and
    units the state holds; an echo of the probe's own sentence is no word of the server's)."""
    words: set[str] = set()
    for evidence in entry.evidence:
        sent = " ".join([*_strings(evidence.arguments), *(v for call in evidence.prefix
                                                          for v in _strings(call.get("arguments")))])
        words |= _words(evidence.excerpt[:EXCERPT_CHARS]) - _words(sent)
    return words


class ServerRouter:
    """Scores the servers of an atlas against a task, and routes it (see the module docstring)."""

    def __init__(self, view) -> None:
        self.servers: list[str] = list(view.servers)
        self.text_index: LexicalIndex = view.server_index
        self.blends = view.blends
        self.vocabulary: list[set[str]] = [self._vocabulary(view, server) for server in self.servers]
        counts: dict[str, int] = {}
        for words in self.vocabulary:
            for word in words:
                counts[word] = counts.get(word, 0) + 1
        n = len(self.servers)
        self.idf = {word: math.log(1 + (n - c + 0.5) / (c + 0.5)) for word, c in counts.items()}

    @staticmethod
    def _vocabulary(view, server: str) -> set[str]:
        """The server's words: its documentation's, its verified uses' and its answers' — an argument value
        that worked adds its shape, and its words only as far as the server said them too (a probe's invented
        text, "the quarterly report is ready for review", is no word of the server's)."""
        words: set[str] = set()
        node = view.server_nodes.get(server)
        if node is not None:
            words |= _words(f"{node.description} {node.instructions} {' '.join(node.lexicon)}")
        for key in (k for k in view.tool_keys if k[0] == server):
            node = view.tool_nodes[key]
            words |= _words(f"{node.tool.replace('_', ' ')} {node.description} {_schema_text(node.input_schema)}")
            for entry in view.by_tool.get(key, {}).get(EntryKind.AFFORDANCE, []):
                if tolerance(entry):
                    continue  # a misuse it survived says nothing of what it is for
                words |= _words(entry.when or "") | answer_words(entry)
                for evidence in entry.evidence:
                    for value in _strings(evidence.arguments):
                        words |= value_shapes(value)
        return words

    def scores(self, task: str) -> tuple[dict[str, float], float]:
        """Server → score (best = 1), and the best server's vocabulary evidence (summed IDF). Numbers
        in the task are values, not words: they count only through their shapes; the words that ask for an
        operation count :data:`ASKING_SHARE` as much as the others."""
        query = [t for t in content_terms(expanded(named_apart(task))) if not t.replace(".", "").isdigit()]
        query += self.blends.of(task)
        bm25 = self.text_index.scores_of(query, _ASKING)
        asked = set(query) | value_shapes(task)
        held = [sum(self.idf[w] * (SHAPE_WEIGHT if w.startswith("shape:") else _ASKING.get(w, 1.0))
                    for w in asked & words)
                for words in self.vocabulary]
        top_held = max(held, default=0.0)
        if bm25 and top_held and not self.text_index.scores_of([t for t in query if t not in _ASKING]):
            bm25 = {}  # only how the task asks ("add") meets a server's text: what it acts on (its vocabulary) decides
        top_text = max(bm25.values(), default=0.0)
        combined = {}
        for i, server in enumerate(self.servers):
            score = 0.5 * (bm25.get(i, 0.0) / top_text if top_text else 0.0)
            score += 0.5 * (held[i] / top_held if top_held else 0.0)
            if score > 0:
                combined[server] = score
        best = max(combined.values(), default=0.0)
        if not best:
            return {}, 0.0
        leader = max(combined, key=lambda s: (combined[s], s))
        return {s: v / best for s, v in combined.items()}, held[self.servers.index(leader)]

    def route(self, task: str) -> dict[str, float]:
        """The servers ``task`` is about, each with its score (every server at 1 when nothing matches)."""
        scores, evidence = self.scores(task)
        if not scores:
            return dict.fromkeys(self.servers, 1.0)
        share = ROUTE_SHARE if evidence >= SURE_EVIDENCE else UNSURE_SHARE
        return {s: round(v, 4) for s, v in scores.items() if v >= share}
