"""Real things a probe can point at: candidates per kind from the snapshot's facts and the harvested pool.

Each candidate carries the :class:`HarvestRef` it came from (``None`` for a fact), so a call
built from it records its data flow. Pool values come first (they witness composition), then
facts, each list in a stable order chosen so the first candidates are the most natural targets
(ordinary small text files before logs and binaries, the root folder before its children, another
branch before the current one for a switch).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cached_property
from typing import Any, NamedTuple

from toolatlas.offline.answers import RECORD_NAMES
from toolatlas.offline.facts import EnvironmentFacts, FileFact
from toolatlas.offline.harvest import ISO_DAY, ValuePool, is_zone
from toolatlas.offline.kinds import parent_singular
from toolatlas.offline.words import tokens
from toolatlas.probing.values import ArgKind, HarvestRef

__all__ = ["TIMEZONES", "Candidate", "Targets", "names_format"]

TIMEZONES = (
    "Europe/Paris",
    "Asia/Tokyo",
    "America/New_York",
    "Australia/Sydney",
    "America/Sao_Paulo",
    "Africa/Nairobi",
    "Asia/Kolkata",
    "Europe/London",
    "Pacific/Auckland",
    "Etc/UTC",
)
LARGE_FILE = 50_000
RECORDS_READ = 100
"""Records of a JSON document whose words join the vocabulary a search is planned from (a document of thousands
of records has its words in its first hundred as well)."""


_PATH_WORDS = frozenset({"file", "files", "path", "paths", "dir", "directory", "folder", "name", "filename", "input",
                         "output", "source", "src", "target", "dest", "destination", "new", "old", "root", "base",
                         "full", "local", "abs", "absolute", "relative", "in", "out", "to", "from"})
"""Words of a path argument's name that say it is a path, not what kind of file it names."""
_KEY_COLUMN = re.compile(r"(?:^|_)id$", re.IGNORECASE)


def _first_item(text: str) -> str:
    """``text``, or the first item of the JSON list of strings it holds (``vip`` of ``["vip", "returning"]``)."""
    if text.startswith("[") and text.endswith("]"):
        try:
            items = json.loads(text)
        except ValueError:
            return text
        return next((i for i in items if isinstance(i, str)), "") if isinstance(items, list) else text
    return text


class Candidate(NamedTuple):
    value: str
    ref: HarvestRef | None = None


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    seen: set[str] = set()
    out = []
    for candidate in candidates:
        if candidate.value not in seen:
            seen.add(candidate.value)
            out.append(candidate)
    return out


class Targets:
    """Candidate values per kind for one snapshot, merged with what the pool has harvested."""

    def __init__(self, facts: EnvironmentFacts, pool: ValuePool, *, use_created: bool = False) -> None:
        self.facts = facts
        self.pool = pool
        self.use_created = use_created
        tree = facts.tree
        self._files = {f.path: f for f in tree.files} if tree else {}
        self._folders = set(tree.folders) | {tree.root} if tree else set()
        self._named: dict[str, list[str]] = {}
        """Argument name → :meth:`named_extensions` (the files do not change)."""
        self._records: list[dict[tuple[str, ...], Any]] | None = None
        self._stored: frozenset[str] | None = None
        self._shared: dict[tuple[str, frozenset[str], tuple[tuple[str, ...], ...]], tuple[str, list[str]] | None] = {}
        """(value, words said, fields) → :meth:`shared_word` (the records do not change; saturation asks every round)."""

    def _pooled(self, kind: ArgKind, context: str | None = None) -> list[Candidate]:
        return [
            Candidate(r.value, r)
            for r in self.pool.values(kind, context=context, include_created=self.use_created)
        ]

    @property
    def root(self) -> str:
        """The placeholder of the state entry (``${root}``, ``${repo}``...)."""
        if self.facts.tree is not None:
            return self.facts.tree.root
        return self.facts.root or "${root}"

    # -- files and folders ------------------------------------------------------------------------

    def files(
        self, *, writable: bool = False, with_lines: bool = False, binary: bool = False
    ) -> list[Candidate]:
        """Existing files: harvested ones the facts do not contradict, then the tree's, most natural first."""

        def fits(fact: FileFact) -> bool:
            return not (writable and fact.read_only) and not (with_lines and not self.lines_of(fact.path))

        pooled = []
        for c in self._pooled(ArgKind.FILE_PATH) + self._pooled(ArgKind.PATH):
            fact = self._files.get(c.value)
            known = fact is not None and fits(fact) and fact.text != binary
            unknown = fact is None and c.value not in self._folders and not with_lines
            # without a tree to check against, a harvested path is taken at its word
            if known or (unknown and (self.facts.tree is None or (c.ref is not None and c.ref.created))):
                pooled.append(c)
        changed = set(self.facts.repository.changed_files) if self.facts.repository else set()
        facts = sorted(
            (f for f in self._files.values() if fits(f)),
            key=lambda f: (
                f.path not in changed,  # in a repository, work in progress is what tools act on
                f.text == binary,
                f.path.rsplit("/", 1)[-1].startswith("."),
                f.size > LARGE_FILE,
                not f.extension,
                f.path.count("/"),
            ),
        )
        return _dedupe(pooled + [Candidate(f.path) for f in facts])

    def folders(self, *, include_root: bool = True) -> list[Candidate]:
        pooled = [
            c
            for c in self._pooled(ArgKind.DIR_PATH)
            if self.facts.tree is None or c.value in self._folders or (c.ref is not None and c.ref.created)
        ]
        tree = self.facts.tree
        known = [self.root] if include_root else []
        if tree is not None:
            known += [f for f in tree.folders if f not in tree.empty_folders] + list(tree.empty_folders)
        if not include_root:
            pooled = [c for c in pooled if c.value != self.root]
        return _dedupe(pooled + [Candidate(f) for f in known])

    def file_fact(self, path: str) -> FileFact | None:
        return self._files.get(path)

    def records(self) -> list[dict[tuple[str, ...], Any]]:
        """The records the state holds — a JSON document's records, a database's sample rows — each keyed by the
        words of its fields' names (``("po", "number")``); made on first use (the facts do not change)."""
        if self._records is None:
            database = self.facts.database
            rows = [row for table in database.tables for row in table.sample_rows] if database else []
            self._records = [{tuple(tokens(k)): v for k, v in r.items()} for r in [*self.facts.records, *rows]]
        return self._records

    def stored_values(self) -> frozenset[str]:
        """Every text the state's records hold (:meth:`records`): names the server knows before any answer gave them."""
        if self._stored is None:
            self._stored = frozenset(v for r in self.records() for v in r.values() if isinstance(v, str))
        return self._stored

    def shared_word(self, value: str, said: frozenset[str] | set[str], fields: list[tuple[str, ...]]) -> tuple[str, list[str]] | None:
        """A word two or more names of the state's records hold (``Dawson`` of ``Claire Dawson`` and ``Claire Dawson
        (admin)``), with those names: a word of the name of the record holding ``value`` first, else one of the names
        of the records most like what ``said`` (the words of a tool and its argument) describes. Names are the values
        of the ``fields`` an argument's description names (:func:`described_fields`) when records hold any, else of a
        record's name, title or label fields; None when no name shares a word with another, and a word that is itself
        a whole name is never one."""
        key = (value, frozenset(said), tuple(fields))
        if key not in self._shared:
            self._shared[key] = self._shared_word(value, said, fields)
        found = self._shared[key]
        return (found[0], list(found[1])) if found is not None else None

    def _shared_word(self, value: str, said: frozenset[str] | set[str],
                     fields: list[tuple[str, ...]]) -> tuple[str, list[str]] | None:
        named = [f for f in fields if any(f in r for r in self.records())]
        alike: dict[str, tuple[bool, int]] = {}  # name → (its record holds value, how like what `said` it is)
        for record in self.records():
            rank = (value in record.values(), likeness(record, said))
            for key, name in record.items():
                if isinstance(name, str) and (key in named if named else _NAME_KEYS.intersection(key)) \
                        and _NAME.fullmatch(name):
                    alike[name] = max(alike.get(name, rank), rank)
        holders: dict[str, list[str]] = {}
        for name in sorted(alike):
            for word in dict.fromkeys(_NAME_WORD.findall(name)):
                holders.setdefault(word, []).append(name)
        shared = {w: h for w, h in holders.items() if len(h) >= 2 and w not in alike}
        if not shared:
            return None
        best = max(shared, key=lambda w: (max(alike[n] for n in shared[w]), len(shared[w]), w))
        return best, shared[best]

    def lines_of(self, path: str) -> list[str]:
        return [c.value for c in self.line_candidates(path)]

    def line_candidates(self, path: str) -> list[Candidate]:
        """The lines of a file: its own (a text file), else those a read-only tool of the server answered for it
        (the paragraphs of a document kept in a binary format), with the read they come from."""
        fact = self._files.get(path)
        if fact is not None and fact.lines:
            return [Candidate(line) for line in fact.lines]
        return self._pooled(ArgKind.EXISTING_TEXT, context=path)

    def extensions(self, under: str | None = None) -> list[str]:
        """File extensions (of the files under folder ``under``), most common first."""
        files = [
            f for f in self._files.values() if under is None or f.path.startswith(under.rstrip("/") + "/")
        ]
        counts = Counter(f.extension for f in files if f.extension and not f.extension[1:].isdigit())
        return [ext for ext, _n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]

    def named_extensions(self, argument: str) -> list[str]:
        """The extensions of the files an argument's own name gives: those it names (``dbc_path`` → ``.dbc``) and
        those of the files in a folder it names (``log_path`` → what ``logs/`` holds: ``.log``, ``.asc``), so a
        tool taking a definition and a capture gets each its own kind of file. Empty when the name gives none."""
        known = self._named.get(argument)
        if known is not None:
            return known
        words = set(tokens(argument)) - _PATH_WORDS
        found = [e for e in self.extensions() if e[1:] in words or _format_of(e, words)]
        for fact in self._files.values() if words else ():
            folders = fact.path.split("/")[1:-1]  # below the root's placeholder, above the file
            if fact.extension and any(parent_singular(f.lower()) in words or f.lower() in words for f in folders):
                found.append(fact.extension)
        self._named[argument] = list(dict.fromkeys(found))
        return self._named[argument]

    def named_texts(self, argument: str) -> list[Candidate]:
        """The whole texts of the small files of the kinds an argument's name gives (:meth:`named_extensions`): what
        an argument that takes such a file's text rather than its path holds (``adif_string`` → a logbook)."""
        named = set(self.named_extensions(argument))
        if not named:  # most arguments: no walk over the files
            return []
        return [Candidate(f.content) for f in self._files.values() if f.content and f.extension in named]

    def file_of_text(self, text: str) -> str | None:
        """The path of the file whose whole text ``text`` is (:meth:`named_texts` gave it), None for any other text."""
        return self._by_text.get(text)

    @cached_property
    def _by_text(self) -> dict[str, str]:
        """A small text file's whole text → its path (the first file of the tree holding it); made when first asked."""
        return {f.content: f.path for f in reversed(self._files.values()) if f.content}

    # -- git --------------------------------------------------------------------------------------

    def branches(self, *, switch: bool = False) -> list[Candidate]:
        repo = self.facts.repository
        known = list(repo.branches) if repo else []
        if switch and repo and repo.current_branch in known and len(known) > 1:
            known.remove(repo.current_branch)
            known.append(repo.current_branch)
        return _dedupe(self._pooled(ArgKind.BRANCH) + [Candidate(b) for b in known])

    def revisions(self, *, sha_only: bool = False, with_path: bool = False) -> list[Candidate]:
        """Commits to name: an older commit, a tag, another branch, HEAD, the rest (``rev:path`` if asked)."""
        repo = self.facts.repository
        pooled = [
            c
            for c in self._pooled(ArgKind.REVISION)
            if (not sha_only or re.fullmatch(r"[0-9a-f]{7,40}", c.value))
            and not (repo and re.fullmatch(r"[0-9a-f]{7,12}", c.value))  # a log's short names: when nothing else is known
        ]
        known: list[str] = []
        if repo:
            shas = [c.sha for c in repo.commits]
            others = [b for b in repo.branches if b != repo.current_branch]
            known = shas[1:2] + ([] if sha_only else repo.tags[:1] + others[:1]) + shas[:1]
            if with_path and not sha_only and repo.tracked_files and repo.current_branch:
                relative = repo.tracked_files[-1].removeprefix(repo.root + "/")
                known.append(f"{repo.current_branch}:{relative}")
            known += shas[2:] + ([] if sha_only else repo.tags[1:] + others[1:])
        return _dedupe(pooled + [Candidate(k) for k in known])

    def commit_dates(self) -> list[str]:
        repo = self.facts.repository
        return sorted(c.date for c in repo.commits if c.date) if repo else []

    def data_dates(self) -> list[str]:
        """The days the state is about, sorted: its commits', else the dates its database's sample rows and the
        answers hold (a period asked of a ledger covers its transactions, not a fixed month)."""
        commits = self.commit_dates()
        if commits:
            return [d[:10] for d in commits]
        days = {c.value[:10] for kind in (ArgKind.DATE, ArgKind.DATETIME) for c in self._pooled(kind)
                if ISO_DAY.match(c.value)}
        database = self.facts.database
        for table in database.tables if database else []:
            days.update(v[:10] for row in table.sample_rows for v in row.values()
                        if isinstance(v, str) and ISO_DAY.match(v))
        return sorted(days)

    # -- knowledge graph --------------------------------------------------------------------------

    def entities(self, *, with_observations: bool = False) -> list[Candidate]:
        graph = self.facts.graph
        known = [e.name for e in graph.entities if e.observations or not with_observations] if graph else []
        pooled = self._pooled(ArgKind.ENTITY_NAME)
        if with_observations:
            pooled = [c for c in pooled if self.observations(c.value)]
        return _dedupe(pooled + [Candidate(n) for n in known])

    def observations(self, entity: str) -> list[Candidate]:
        graph = self.facts.graph
        known = next((e.observations for e in graph.entities if e.name == entity), []) if graph else []
        return _dedupe(self._pooled(ArgKind.OBSERVATION, context=entity) + [Candidate(o) for o in known])

    def entity_types(self) -> list[Candidate]:
        known = self.facts.graph.entity_types if self.facts.graph else []
        return _dedupe(self._pooled(ArgKind.ENTITY_TYPE) + [Candidate(t) for t in known])

    def relation_types(self) -> list[Candidate]:
        known = self.facts.graph.relation_types if self.facts.graph else []
        return _dedupe(self._pooled(ArgKind.RELATION_TYPE) + [Candidate(t) for t in known])

    def relations(self) -> list[tuple[str, str, str]]:
        graph = self.facts.graph
        return [(r.source, r.target, r.relation_type) for r in graph.relations] if graph else []

    # -- database ---------------------------------------------------------------------------------

    def tables(self, *, views: bool = False) -> list[Candidate]:
        db = self.facts.database
        known = (db.views if views else [t.name for t in db.tables]) if db else []
        pooled = [] if views else self._pooled(ArgKind.TABLE_NAME)
        return _dedupe(pooled + [Candidate(t) for t in known])

    def named_rows(self, noun: str) -> list[Candidate]:
        """What the rows of the table named after ``noun`` are called (``exercise`` → the ``name`` of the rows of
        ``exercises``): the names its unique key holds, else its sample rows'. Empty without such a table, or
        when it has no ``name``, ``label`` or ``title`` column."""
        db = self.facts.database
        table = next((t for t in db.tables if parent_singular(t.name.lower()) == noun.lower()), None) if db else None
        column = next((c for f in RECORD_NAMES if table is not None for c in table.columns if c.name.lower() == f), None)
        if table is None or column is None:
            return []
        unique = next((u for u in table.unique if u.columns == [column.name]), None)
        names = [row[0] for row in unique.existing] if unique else [row.get(column.name) for row in table.sample_rows]
        return _dedupe([Candidate(n) for n in names if isinstance(n, str) and 0 < len(n) <= 80])

    def other_fields(self, value: str, near: str) -> list[tuple[str, str]]:
        """The short text fields of the first sample row holding ``value`` as a word, other than those holding it, a
        JSON list by its first item (``("tags", "vip")`` of the contact whose name holds ``Khalid``): the rows of a
        table ``near`` (a tool's name and description) names first, and of a row's fields those more rows share (an
        owner, a tag, a city: what a person narrows by) first. Keys and dates are left out; empty without such a
        row."""
        db = self.facts.database
        if db is None or not value.strip():
            return []
        word = re.compile(rf"(?<!\w){re.escape(value.strip())}(?!\w)", re.IGNORECASE)
        for table in sorted(db.tables, key=lambda t: parent_singular(t.name.lower()) not in near):
            keys = set(table.primary_key) | {c.name for c in table.columns if _KEY_COLUMN.search(c.name)}
            for row in table.sample_rows:
                if not any(isinstance(v, str) and word.search(v) for v in row.values()):
                    continue
                fields = [(k, item) for k, v in row.items() if k not in keys and isinstance(v, str) and not word.search(v)
                          and (item := _first_item(v)) and 2 <= len(item) <= 40 and not ISO_DAY.match(item)]
                shared = Counter(_first_item(v) for r in table.sample_rows for v in r.values() if isinstance(v, str))
                return sorted(fields, key=lambda f: -shared[f[1]])
        return []

    def columns(self, table: str | None) -> list[Candidate]:
        db = self.facts.database
        fact = None
        if db is not None:
            fact = (db.table(table) if table else None) or (db.tables[0] if db.tables else None)
        known = [c.name for c in fact.columns] if fact else []
        return _dedupe(self._pooled(ArgKind.COLUMN_NAME, context=table) + [Candidate(c) for c in known])

    def schemas(self) -> list[Candidate]:
        db = self.facts.database
        known = sorted(db.schemas, key=lambda s: s not in ("public", "main")) if db else []
        return [Candidate(s) for s in known] or [Candidate("public")]

    # -- words ------------------------------------------------------------------------------------

    def vocabulary(self) -> list[Candidate]:
        """Words occurring in the data (entity names, observations, file names, sample values, the first
        :data:`RECORDS_READ` records of a JSON document)."""
        words: list[Candidate] = []
        texts: list[tuple[str, HarvestRef | None]] = [
            (c.value, c.ref) for c in self._pooled(ArgKind.ENTITY_NAME)
        ]
        if self.facts.graph:
            texts += [(e.name, None) for e in self.facts.graph.entities]
            texts += [(o, None) for e in self.facts.graph.entities for o in e.observations]
        texts += [(f.path.rsplit("/", 1)[-1].rsplit(".", 1)[0], None) for f in self._files.values()]
        if self.facts.database:
            texts += [
                (str(v), None)
                for t in self.facts.database.tables
                for row in t.sample_rows
                for v in row.values()
                if isinstance(v, str)
            ]
        texts += [(v, None) for record in self.facts.records[:RECORDS_READ] for v in record.values()
                  if isinstance(v, str)]  # a JSON document's records: the names and words it holds
        for text, ref in texts:
            words += [Candidate(w, ref) for w in re.findall(r"[A-Za-z][a-z]{3,}", text)]
        return _dedupe(words) or [Candidate("probe")]

    def timezones(self, examples: list[str]) -> list[Candidate]:
        """Harvested zones, then the description's examples that really are IANA names, then common ones."""
        known = [z for z in [*examples, *TIMEZONES] if is_zone(z)]
        return _dedupe(self._pooled(ArgKind.TIMEZONE) + [Candidate(z) for z in known])

    def pooled(self, kind: ArgKind) -> list[Candidate]:
        return self._pooled(kind)


_NAME_KEYS = frozenset({"name", "title", "label", "cn"})
"""Words of a record's field names that say the field names the record (``displayName``, ``cn``: its common name)."""
_NAME = re.compile(r"[A-Z][\w'-]+(?: \(?[A-Z][\w'-]*\)?| \([a-z]+\)){1,3}")
"""A name as people write one: two to four words in capitals (``Claire Dawson``, ``Claire Dawson (admin)``)."""
_NAME_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")

_PLAIN_WORDS = frozenset({"text", "data", "date", "test"})
"""Words of arguments' names that are no format, though an extension starts them (``.tex``, ``.dat``)."""


def names_format(text: str, extension: str) -> bool:
    """Whether ``text`` names the format of ``extension`` as a word or written out (``MusicXML`` or ``.musicxml``
    for ``.musicxml``), not as the end of a file's name (``notes.txt`` names no format)."""
    return re.search(rf"(?<![\w.])\.?{re.escape(extension[1:])}\b", text, re.IGNORECASE) is not None


def _format_of(extension: str, words: set[str]) -> bool:
    """Whether a word names the format an extension of three letters or more abbreviates by one letter (``adif`` for
    ``.adi``, ``html`` for ``.htm``, ``tiff`` for ``.tif``) or is the base format it ends with (``xml`` for
    ``.musicxml``, ``json`` for ``.geojson``)."""
    short = extension[1:]
    return len(short) >= 3 and any((len(w) == len(short) + 1 and w.startswith(short))
                                   or (len(w) >= 3 and len(short) > len(w) and short.endswith(w))
                                   for w in words - _PLAIN_WORDS)


_FIELD_WORD = re.compile(r"[(`]\s*([A-Za-z][A-Za-z0-9_]*)\s*[)`]|\b([a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z][a-z0-9]*_[A-Za-z0-9_]+)\b")
"""A word of a description that names a field: alone in brackets or backticks (``(CN)``, ```mail```), or written as
code is (``sAMAccountName``, ``device_sn``)."""


def described_fields(description: str) -> list[tuple[str, ...]]:
    """The fields an argument's description names (:data:`_FIELD_WORD`), as the words of their names, in the order
    it names them: "User identifier: username (sAMAccountName), email, or common name (CN)" names ``sAMAccountName``
    and ``cn``."""
    named = (m.group(1) or m.group(2) for m in _FIELD_WORD.finditer(description or ""))
    return list(dict.fromkeys(tuple(tokens(word)) for word in named if len(word) >= 2))


def described_words(text: str) -> frozenset[str]:
    """The words of what a tool and its argument say (``get_user_details`` and its ``identifier``'s description),
    longer than two letters: what :func:`likeness` compares a record's field names with."""
    return frozenset(w for w in tokens(text) if len(w) > 2)


def likeness(record: dict[tuple[str, ...], Any], said: frozenset[str] | set[str]) -> int:
    """How like what ``said`` describes a record is (:meth:`Targets.records`): how many of its field names share a
    word with it (a directory's accounts, with their names and principal names, over its groups)."""
    return sum(bool(said.intersection(key)) for key in record)
