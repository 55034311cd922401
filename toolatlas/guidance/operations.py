"""What a task does, in operations, and which tools perform each — for any server.

A request is read as a sequence of *operations* (read, write, create, edit, delete, move, copy,
list, search, compare, merge, split, convert, count, inspect) found from its words; a tool
performs an operation when its name or the first sentence of its description says so (its name
counts more). The vocabulary below is plain English about acting on any resource — files,
rows, entities, branches, keys — and names no server's tools: a key-value server's ``set`` is a
write, a database's ``insert_rows`` a write and ``create_table`` a create, a knowledge graph's
``delete_entities`` a delete.

An operation no tool performs is a *gap*; some gaps have a *composition* of operations that does
the work (copy = read + write, merge = read + write, compare = read), which guidance serves in
its place. Each operation also carries the words of what tends to go wrong with it (``risks``):
they rank a tool's boundaries against the task (a move risks an existing destination, a write
into a new folder a missing parent, an edit an old text that does not match).

Searching is told apart by *what* it matches: a task that looks for text inside things
(``containing``, ``substring``, ``mentions``) needs a content search, which a tool documented to
match names or paths (``glob``, ``pattern``, ``filename``) does not do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from toolatlas.guidance.index import FILLER_TERMS, terms
from toolatlas.guidance.shapes import shape_words, value_shapes

__all__ = [
    "CHANGES",
    "OPERATIONS",
    "Mention",
    "Operation",
    "absolute_path",
    "asks_about_named",
    "asks_for_members",
    "content_search",
    "expanded",
    "given_values",
    "many",
    "mentions",
    "name_search",
    "names_destination",
    "name_verb",
    "names_by_name",
    "names_by_value",
    "names_by_code",
    "names_something",
    "namespaces",
    "objects",
    "relative_path",
    "operations_in",
    "synonyms",
    "tool_operations",
]


@dataclass(frozen=True)
class Operation:
    """One kind of action on a resource, as requests and tools word it."""

    name: str
    task_words: frozenset[str]
    """Stems by which a request asks for it."""
    tool_words: frozenset[str]
    """Stems by which a tool's name or purpose says it does it."""
    composition: tuple[str, ...] = ()
    """Operations that do it when no tool does (in order)."""
    risks: str = ""
    """Words of what tends to go wrong with it (matched against boundary conditions and errors)."""
    says: str = ""
    """The verb as a sentence says it ("No tool *copies*")."""
    before: tuple[str, ...] = ()
    """Operations a plan does first (an edit of exact text reads it first)."""
    task_forms: frozenset[str] = frozenset()
    """The words of ``task_words`` as written."""
    name_words: frozenset[str] = frozenset()
    """Stems that say it only as the verb of a tool's name (``get_document_text``): in a description
    ("Get the schema of a table") they say little of what a tool does."""


def _stems(words: str) -> frozenset[str]:
    return frozenset(terms(words))


def _op(name: str, task: str, tool: str, composition: tuple[str, ...] = (), risks: str = "", says: str = "",
        before: tuple[str, ...] = (), name_only: str = "") -> Operation:
    return Operation(name, _stems(task), _stems(tool), composition, risks, says or f"{name}s", before,
                     frozenset(task.split()), _stems(name_only))


OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    _op("read", "read open load examine inspect gist contents extract scan parse show display view print say give",
        "read show open fetch cat load dump extract retrieve", name_only="get",
        risks="does not exist missing directory where a file is expected both head tail together lines"),
    _op("write", "write save record store generate produce output put answer report summary document compile append",
        "write save put store set output append record",
        risks="overwrite overwritten existing already exists parent folder directory containing it does not "
              "exist missing constraint violates unique duplicate", says="writes"),
    _op("create", "create make new add put setup build initialise initialize register start",
        "create add insert init mkdir",
        risks="already exists parent folder containing it does not exist missing nested constraint violates "
              "unique duplicate"),
    _op("edit", "edit modify change update replace fix restore append insert patch turn rewrite mark add",
        "edit modify update replace patch change set",
        risks="match exact not found old text differs does not occur", before=("read",)),
    _op("delete", "delete remove drop erase purge discard forget",
        "delete remove drop unlink clear",
        risks="does not exist missing not found"),
    _op("move", "move relocate classify reorganise reorganize",
        "move relocate",
        risks="destination already exists parent folder directory containing it does not exist missing"),
    _op("rename", "rename retitle", "rename", composition=("edit",),
        risks="destination already exists exists not found does not exist"),
    _op("copy", "copy clone backup replicate mirror sync synchronise synchronize",
        "copy clone duplicate mirror sync synchronise synchronize", composition=("read", "write"),
        risks="already exists overwrite parent does not exist", says="copies"),
    _op("list", "list listing enumerate browse organised organized overview explore",
        "list listing tree enumerate browse", composition=("read",),
        risks="does not exist missing"),
    _op("search", "find search locate identify filter discover", "search find query match glob grep lookup",
        risks="pattern glob match name path", says="searches"),
    _op("compare", "compare diff differ difference identical duplicate duplicates", "diff compare",
        composition=("read",), says="compares"),
    _op("merge", "merge combine concatenate consolidate join aggregate",
        "merge concat concatenate combine join",
        composition=("read", "write"), risks="overwrite append", says="merges"),
    _op("split", "split divide chunk partition", "split divide chunk", composition=("read", "write"),
        risks="parent folder directory containing it does not exist", says="splits"),
    _op("convert", "convert transform uppercase lowercase translate reformat", "convert transform translate",
        composition=("read", "write"), risks="invalid format unknown not valid", says="converts"),
    _op("export", "export import", "export import convert", composition=("read", "write"), says="exports"),
    _op("count", "count total calculate compute tally statistics sum average mean median", "count aggregate statistics",
        composition=("read",), says="counts"),
    _op("inspect", "size sizes biggest largest smallest bytes space modified creation ctime mtime timestamp "
                   "metadata permissions newest oldest touched",
        "info metadata stat size sizes properties attributes",
        risks="does not exist missing"),
)}
"""Every operation, in the order a plan lists them when a request names several at once."""

CHANGES = frozenset({"write", "create", "edit", "delete"})
"""Operations that change a thing's data (what an executor's statements do: insert, update, delete)."""

_MANY = _stems("all every each multiple several both many batch")
"""Words of a request about many things at once."""
_SYNONYMS = {stem: _stems(words) for stem, words in (
    (terms("folder")[0], "directory"), (terms("folders")[0], "directories"), (terms("picture")[0], "image"),
    (terms("photo")[0], "image"), (terms("remove")[0], "delete"), (terms("erase")[0], "delete"),
    (terms("big")[0], "size"), (terms("bigger")[0], "size"), (terms("biggest")[0], "size"),
    (terms("largest")[0], "size"), (terms("smallest")[0], "size"), (terms("bytes")[0], "size"),
    (terms("space")[0], "size"), (terms("nested")[0], "recursive tree"), (terms("per")[0], "group"),
    (terms("far")[0], "distance"), (terms("farther")[0], "distance"), (terms("direction")[0], "heading bearing"),
    (terms("bearing")[0], "heading"), (terms("moment")[0], "timestamp time"), (terms("plot")[0], "series"),
    (terms("chart")[0], "series"), (terms("trend")[0], "series"), (terms("highest")[0], "max maximum"),
    (terms("lowest")[0], "min minimum"), (terms("peak")[0], "max maximum"), (terms("todo")[0], "task"),
    (terms("urgent")[0], "priority"), (terms("deck")[0], "presentation"))}
"""Everyday words for what tool descriptions name otherwise (a request's "folder" is a "directory")."""
_CONTENT_WORDS = _stems("contain containing contains content contents substring text inside mention mentions "
                        "phrase word words occurrence occurrences grep")
"""A search for something inside things, not for their names."""
_NAME_WORDS = _stems("name names path paths glob pattern patterns filename filenames wildcard")
"""How a tool says it matches names or paths."""
_INNER_WORDS = _stems("content contents text inside grep substring value values cell cells sql select")
"""How a tool says it matches what is inside things."""


_IDENTIFIER = re.compile(r"(?=[\w./\\-]*[A-Za-z_/\\])\S*(?:[_/\\]|\.(?=\w))\S*|`[^`]*`")
"""File names, paths and identifiers: what a request acts on, never how (``large_file.txt`` is no "large");
a full stop ends a sentence unless a name goes on after it ("it." is no identifier, "notes.txt" is), and a
number is a value, not a name ("0.5", "1.04^10")."""
_ABSOLUTE = re.compile(r"(?<![\w.])(?:~|/[A-Za-z])[\w./-]*")
"""An absolute path in a request (``/etc/hostname``, ``~/notes``)."""


def named_apart(text: str) -> str:
    """``text`` with the names of files and paths in it replaced by their shapes' words: which file a
    request names says nothing of what kind of server reads it, its extension does. Other identifiers
    (a table name, quoted code) stay: they are the server's own words."""
    return _IDENTIFIER.sub(lambda m: f" {shape_words(m.group())} " if _FILE_SHAPES & value_shapes(m.group())
                           else m.group(), text)


_FILE_SHAPES = frozenset({"shape:file", "shape:relative_path", "shape:absolute_path"})


@lru_cache(maxsize=4096)
def _task_terms(text: str) -> tuple[str, ...]:
    return tuple(terms(_IDENTIFIER.sub(" ", text)))


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
WINDOW = 5
"""Words of a mention: the operation's word and what follows (its object: "create a new *directory*")."""
_NEGATIONS = frozenset({"not", "don't", "dont", "never", "no", "without", "avoid", "nor"})
"""Words after which an operation is one *not* to do ("do not add anything else")."""
_RECIPIENTS = frozenset({"me", "us"})
"""Whom an operation is for, between its verb and its object ("show *me* the headings")."""
_DESCRIPTIVE = frozenset({"organised", "organized", "modified", "touched"})
"""Words ending in -ed that still ask for an operation (a folder "organised" how, a file "created" when)."""
_PAST = frozenset({"did", "didn't", "didnt"})
"""Words that make the verb after them, in their clause, tell what happened ("how *did* my weight *change*", "when
did it last change"): a question about the past, no instruction — as a past form is."""


def _told_as_past(tokens: list[str], position: int) -> bool:
    """Whether the word at ``position`` follows a past auxiliary of its own clause, at most :data:`WINDOW` words
    before it ("how did my body weight *change*"; not "what did it say, and *add* it": a comma ends the clause)."""
    for token in reversed(tokens[max(0, position - WINDOW):position]):
        if token.endswith((",", ".", ";", ":", "?", "!")):
            return False
        if token.lower() in _PAST:
            return True
    return False


@dataclass(frozen=True)
class Mention:
    """Where a request asks for an operation: its name and the words that follow (its object)."""

    operation: str
    words: str
    named: bool = False
    """The object is named exactly (a path, a file name): a tool taking no argument can't be pointed at it."""
    position: int = -1
    """The word of the request that asks for it (one word may ask for several: "add" creates or edits)."""


_PLURALS = frozenset(word for op in OPERATIONS.values() for word in op.task_forms if word.endswith("s"))
"""Words ending in -s that ask for an operation as they are ("sizes", "duplicates", "contents")."""
_GERUNDS = frozenset(word for op in OPERATIONS.values() for word in op.task_forms if word.endswith("ing"))
"""Words ending in -ing that ask for an operation as they are ("listing")."""
_GERUND_LEADS = frozenset("by try trying start starting keep finish begin about after before without for when while "
                          "avoid stop".split())
"""Words after which an -ing form is an instruction ("start by *creating* the folder"); elsewhere it describes a
thing ("the second *reading* frame", "(*starting* at base 2)")."""
_PHRASES = {("look", "up"): "search", ("look", "for"): "search", ("sign", "up"): "create",
            ("set", "up"): "create", ("work", "out"): "count", ("fill", "in"): "edit", ("take", "off"): "delete"}
"""Phrasal verbs that ask for an operation their first word alone does not ("look up who leads…", "take it off the
backlog")."""
_PRONOUNS = frozenset({"it", "them", "this", "that", "these", "those"})
"""Objects that go between a phrasal verb and its particle ("take it off")."""
_INTO = frozenset({"turn", "make", "change"})
"""Verbs that ask for a conversion when what they act on is turned *into* something ("turn letter.docx into a PDF")."""
_AUXILIARIES = frozenset({"do", "does", "did", "would", "could", "might"})
"""Words that make "mean" a verb a question asks ("what does R02 *mean*"), not an average."""
_IMPERATIVE_LEADS = frozenset({"to", "please", "and", "then"})
"""Words after which a verb is an instruction ("please *commit*", "and then *approve*")."""


_RUN_ON = re.compile(r"(?<=[a-z)])\.(?=[A-Z][a-z])")
"""A full stop with no space after it, before the capital of the next sentence (``the task.Write``)."""
_POSSESSIVES = frozenset({"my", "our", "your", "their", "his", "her", "its"})
_LIGHT_VERBS = frozenset({"make", "take", "do", "run", "perform", "give", "get", "need", "want"})
_DETERMINERS = frozenset({"the", "a", "an", "this", "that"})
_CLAUSE_SUBJECTS = frozenset({"we", "i", "you", "they", "he", "she", "that", "which"})
"""Words that open a clause about what came before them: a word between a determiner's noun and one of them heads a
noun phrase ("the directory *export* we took on Friday"), it asks for nothing."""


def as_noun(tokens: list[str], position: int) -> bool:
    """Whether the word at ``position`` names a thing, not an instruction: it follows a possessive, at most one
    plain word between ("our annual *report*", "your *answer*") — unless a light verb leads them ("make your
    *copy*") —, or a determiner and a noun with a clause about it following ("the directory *export* we took").
    (After "the" or "a" alone a word may still be a verb — "what does the wiki *say*" — or an adjective that asks
    for an operation — "a *new* table".)"""
    bare = [t.lower().strip(".,;:!?()*\"'") for t in tokens[max(0, position - 3):position]]
    following = tokens[position + 1].lower().strip(".,;:!?()*\"'") if position + 1 < len(tokens) else ""
    if (len(bare) >= 2 and bare[-2] in _DETERMINERS and bare[-1].isalpha() and not set(terms(bare[-1])) & _VERBS
            and following in _CLAUSE_SUBJECTS):  # "the directory *export* we took": the head of a noun phrase
        return True
    if bare and bare[-1] in _POSSESSIVES:
        lead = bare[:-1]
    elif len(bare) >= 2 and bare[-2] in _POSSESSIVES and bare[-1].isalpha() and not set(terms(bare[-1])) & _VERBS:
        lead = bare[:-2]
    else:
        return False
    return not (lead and lead[-1] in _LIGHT_VERBS)


_OPENS, _CLOSES = ("'", '"', "“", "‘"), ("'", '"', "”", "’")


def given_values(tokens: list[str]) -> frozenset[int]:
    """Positions of the words that are values a request gives, not instructions: a quoted text ("rename it to
    'Write articles'") and a name written with a capital inside a sentence ("a sheet called *Summary*") — one
    word alone: a run of capitalised words is a heading or a title ("Expected Output Directory Structure
    Create directories …"), whose verbs still ask for operations."""
    found: set[int] = set()
    inside = False
    bare = [token.strip(".,;:!?()*") for token in tokens]
    for position, word in enumerate(bare):
        opens = word.startswith(_OPENS)
        if inside or opens:
            found.add(position)
            closing = word[1:] if opens and not inside else word
            inside = not closing.endswith(_CLOSES)
        elif (position and _capitalised(word) and not tokens[position - 1].endswith((".", "!", "?", ":", ";"))
              and not _capitalised(bare[position - 1])
              and not (position + 1 < len(bare) and _capitalised(bare[position + 1]))):
            found.add(position)
    return frozenset(found)


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word[1:2].islower()


@lru_cache(maxsize=4096)
def mentions(text: str, verbs: frozenset[str] = frozenset()) -> tuple[Mention, ...]:
    """Every operation a request asks for, in order, with the words that follow it. A past form
    ("someone deleted it", "she has moved") tells what happened, not what to do, and is skipped;
    so are identifiers and paths (``large_file.txt`` asks for nothing), a form in -s, a noun or a
    description where an instruction has the bare verb ("my pending *changes*", "it *records*"), and a word after a
    possessive (``our annual *report*``, :func:`as_noun`). ``verbs``: the catalogue's own
    verbs, the first words of its tools' names (``commit``, ``approve``), each an operation of its own
    when the request gives it as an instruction — first in the clause or after "to", "please", "and", or
    first after a comma, as the next of a list of instructions ("load it, *sort* it by price") — ("commit my
    changes", not "the details of commit e4b603a")."""
    tokens = _RUN_ON.sub(". ", text).split()  # "…required by the task.Write your answer": two sentences
    values = given_values(tokens)
    absolute = bool(_ABSOLUTE.search(text))
    found = []
    previous = ""
    negated = -9
    for position, token in enumerate(tokens):
        if token.lower().strip(".,;:*") in _NEGATIONS:
            negated = position
            continue
        word = "" if _IDENTIFIER.fullmatch(token) or position in values else next(iter(_WORD.findall(token)), "")
        lowered = word.lower()
        start = position + 1
        while start < len(tokens) and tokens[start].lower().strip(".,;:") in _RECIPIENTS:
            start += 1  # "show *me* the details of …": the object comes after whom it is for
        after = " ".join([t for i, t in enumerate(tokens[start:], start)  # a value given is no object: "put
                          if i not in values or _IDENTIFIER.search(t)][:WINDOW - 1])  # 'order moulds' on my list"
        if not after.strip(" ?.!,;:"):  # last in its clause ("what does the report *say*?"): what precedes it
            after = " ".join(tokens[max(0, position - WINDOW + 1):position])
        named = absolute or bool(_IDENTIFIER.search(after))
        following = [t.lower().strip(".,;:") for t in tokens[position + 1:position + 3]]
        particle = following[0] if following else ""
        if particle in _PRONOUNS and len(following) > 1:  # "take *it* off", "look *them* up": the particle after it
            particle = following[1]
        if lowered == "mean" and _AUXILIARIES & {t.lower() for t in tokens[max(0, position - WINDOW):position]}:
            pass  # "what does the code mean": its meaning, no average
        elif lowered == "many" and previous == "how":
            found.append(Mention("count", after, named, position))
        elif lowered in _INTO and "into" in (t.lower() for t in tokens[position + 1:position + WINDOW + 1]):
            found.append(Mention("convert", after, named, position))
        elif (lowered, particle) in _PHRASES and position - negated > 2:
            found.append(Mention(_PHRASES[lowered, particle], " ".join(tokens[position + 2:position + WINDOW + 1]),
                                 named, position))
        elif (word and position - negated > 2 and not (lowered.endswith("ed") and lowered not in _DESCRIPTIVE)
              and not (lowered.endswith("ing") and lowered not in _GERUNDS and position > 0
                       and previous not in _GERUND_LEADS)
              and not (lowered.endswith("s") and not lowered.endswith("ss") and lowered not in _PLURALS)
              and not as_noun(tokens, position) and not _told_as_past(tokens, position)):
            for stem in terms(word):
                found += [Mention(op.name, after, named, position)
                          for op in OPERATIONS.values() if stem in op.task_words]
                if stem in verbs and (position == 0 or previous in _IMPERATIVE_LEADS
                                      or tokens[position - 1].endswith(",")):
                    found.append(Mention(stem, after, named, position))
        previous = lowered
    return tuple(found)


_VERBS = frozenset(stem for op in OPERATIONS.values() for stem in op.task_words)


@lru_cache(maxsize=4096)
def objects(text: str) -> str:
    """``text`` without its operation words: what is acted on ("create a new directory" → "a directory"),
    so that matching it against tools measures the object, not the verb a tool's name repeats."""
    return " ".join(w for w in text.split() if not set(terms(w)) & _VERBS or _IDENTIFIER.fullmatch(w))


def operations_in(text: str) -> list[str]:
    """The operations a request asks for, in the order their first mention appears."""
    return list(dict.fromkeys(m.operation for m in mentions(text)))


def many(text: str) -> bool:
    """Whether a request is about many things at once (all, every, each, several, a count of two or more)."""
    return any(stem in _MANY or (stem.isdigit() and int(stem) >= 2) for stem in _task_terms(text))


_QUESTION = frozenset({"what", "which", "where", "how", "when", "who", "whose"})
_HEX = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,40}\b")


@lru_cache(maxsize=4096)
def names_something(text: str) -> bool:
    """Whether a request names an exact thing — a path, a file or identifier, a hash — which may not exist."""
    return bool(_IDENTIFIER.search(text) or _HEX.search(text) or _ABSOLUTE.search(text))


_CODE = re.compile(r"(?<![\w.-])[A-Z]{1,6}-?\d{1,5}(?![\w.-])")
"""A thing named by its code — capitals then digits (``GPIO9``, ``R02``, ``PA13``, ``L099``) — which a server's
table may not hold."""


@lru_cache(maxsize=4096)
def names_by_code(text: str) -> bool:
    """Whether a request names a thing by its code ("what is *GPIO9* good for"), which may not be in the server's table."""
    return bool(_CODE.search(text))


_SENTENCE_END = (".", "!", "?", ":", ";")


@lru_cache(maxsize=4096)
def names_by_name(text: str) -> bool:
    """Whether a request names a thing by a capitalised name inside a sentence ("the median salary of a *Data
    Scientist*"), which a tool taking the thing's code does not take; a request naming a code as well is about
    the code."""
    tokens = text.split()
    return not names_by_code(text) and any(
        position and _capitalised(token.strip("()*'\"“”‘’,")) and not tokens[position - 1].endswith(_SENTENCE_END)
        for position, token in enumerate(tokens))


_QUOTED = re.compile(r"(?<![\w'])'[^']+'(?!\w)|\"[^\"]+\"|“[^”]+”|‘[^’]+’")


@lru_cache(maxsize=4096)
def names_by_value(text: str) -> bool:
    """Whether a request names a thing by a quoted text ("rename the *'Draft articles'* task"), which may not
    exist (a capitalised name may be a place or a person the server knows nothing of: "a customer in Paris")."""
    return bool(_QUOTED.search(text))


def asks_about_named(text: str) -> bool:
    """Whether a request asks a question about an exactly named thing (what a named file says: read it): a
    clause that ends in a question mark or opens with a question word ("when" inside a statement is no
    question: "it fails when `x` is empty")."""
    words = text.split()
    question = text.rstrip().endswith("?") or bool(words and words[0].lower().strip("?,.") in _QUESTION)
    return question and bool(_IDENTIFIER.search(text))


_MEMBERS = frozenset({"files", "folders", "directories", "entries", "items", "documents", "tables", "sheets",
                      "tabs", "members"})
"""What a container holds, as a question asks for them ("*which files* are inside backup.tar.gz?")."""


def asks_for_members(text: str) -> bool:
    """Whether a request asks which things an exactly named container holds ("Which files are inside
    site-backup.tar.gz?", "what tables does shop.db have?"): a listing of it, not a read of what it says."""
    words = [w.strip("?,.!:;").lower() for w in text.split()]
    asked = any(word in ("which", "what") and following in _MEMBERS
                for word, following in zip(words, words[1:], strict=False))
    return asked and asks_about_named(text)


_DESTINATION = re.compile(r"\b(?:into|as)\s+[`'\"“‘]?[\w./-]*\w\.[A-Za-z][A-Za-z0-9]{0,4}\b")
"""A file a request puts something *into* or saves something *as* ("compress notes.txt into backup.zip")."""


@lru_cache(maxsize=4096)
def names_destination(text: str) -> bool:
    """Whether a request names the file a result goes into ("… into invoices-2024.zip", "save it as q3.csv"):
    a name that may already be taken."""
    return bool(_DESTINATION.search(text))


@lru_cache(maxsize=4096)
def absolute_path(text: str) -> bool:
    """Whether a request names an absolute path (a place that may lie outside what a server allows)."""
    return bool(_ABSOLUTE.search(text))


_RELATIVE = re.compile(r"(?<![\w./~:])[\w.-]+/(?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b")


@lru_cache(maxsize=4096)
def relative_path(text: str) -> bool:
    """Whether a request names a file by a relative path (``notes/todo.txt``; not a branch such as
    ``feature/search``, a date or "and/or")."""
    return bool(_RELATIVE.search(text))


_HYPHENATED = re.compile(r"\b([A-Za-z]+)-([A-Za-z]+)\b")
"""A word written with a hyphen (``to-do``, ``e-mail``), whose parts alone may say nothing."""


def synonyms(text: str) -> str:
    """The description-side words of ``text``'s everyday ones ("folder" → directory, a "to-do" → task), "" when it
    has none; a word written with a hyphen counts as written without it too."""
    joined = " ".join(a + b for a, b in _HYPHENATED.findall(text))
    stems = (*_task_terms(text), *(_task_terms(joined) if joined else ()))
    return " ".join(word for stem in stems for word in _SYNONYMS.get(stem, ()))


def expanded(text: str) -> str:
    """``text`` with the description-side words of its everyday ones appended, and the words for the
    kinds of its literal values ("1500 * 1.04^10" → expression; :mod:`~toolatlas.guidance.shapes`),
    for lexical matching."""
    extra = synonyms(text).split()
    shapes = shape_words(text)
    if shapes:
        extra.append(shapes)
    return f"{text} {' '.join(extra)}" if extra else text


def content_search(text: str) -> bool:
    """Whether a request looks for something inside things (text in files, values in records)."""
    return any(stem in _CONTENT_WORDS for stem in _task_terms(text))


_ALL_WORDS = frozenset(stem for op in OPERATIONS.values() for stem in op.task_words | op.tool_words | op.name_words)


def _verb(word: str | None) -> str | None:
    """``word`` when it can be a verb of the catalogue's own: not an operation's word, no filler, no number."""
    if word is None or word in _ALL_WORDS or word in FILLER_TERMS or len(word) < 3 or not word.isalpha():
        return None
    return word


def _words(name: str, server: str) -> list[str]:
    skip = set(terms(server))
    return [t for t in terms(name) if t not in skip and "_" not in t and "-" not in t]


def name_verb(name: str, server: str = "") -> str | None:
    """The first word of a tool's name when the operation vocabulary does not know it (``git_commit`` →
    ``commit``, ``approve_task_completion`` → ``approv``): the catalogue's own verb for what the tool does.
    Words of the server's name are skipped; filler words ("all", "now") are no verb."""
    return _verb(next(iter(_words(name, server)), None))


def namespaces(names: Iterable[str], server: str = "") -> frozenset[str]:
    """The words that open the names of two or more of a server's tools and go on after them (``erp`` of
    ``erp_stage_invoice`` and ``erp_match_po``, ``spec`` of ``mqtt_spec_get``): a prefix the server names its
    tools under, after which the name's own verb may come. A word the operation vocabulary knows opens names as
    their verb (``get_sdlxliff_segment``, ``list_tasks``), not as a prefix."""
    counts: dict[str, int] = {}
    for name in names:
        words = _words(name, server)
        if len(words) > 1 and _verb(words[0]):
            counts[words[0]] = counts.get(words[0], 0) + 1
    return frozenset(word for word, n in counts.items() if n > 1)


def tool_operations(name: str, purpose: str, server: str = "",
                    prefixes: frozenset[str] = frozenset()) -> dict[str, float]:
    """Operation → strength for a tool: 1.0 when its name says it (or its name's own verb, see
    :func:`name_verb`, or the word after a prefix in ``prefixes``: ``erp_stage_invoice`` stages, see
    :func:`namespaces`), 0.5 when only its purpose does."""
    named, described = set(terms(name)), set(terms(purpose))
    found = {}
    for op in OPERATIONS.values():
        if named & (op.tool_words | op.name_words):
            found[op.name] = 1.0
        elif described & op.tool_words:
            found[op.name] = 0.5
    words = _words(name, server)
    verbs = [_verb(words[0]) if words else None, _verb(words[1]) if len(words) > 1 and words[0] in prefixes else None]
    for verb in verbs:
        if verb:
            found[verb] = 1.0
    return found


def name_search(description: str) -> bool:
    """Whether a search tool's own description says it matches names or paths and not contents."""
    words = set(terms(description))
    return bool(words & _NAME_WORDS) and not words & _INNER_WORDS
