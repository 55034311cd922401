"""The word-level rules behind :mod:`toolatlas.offline.kinds`: names split into words, and what they mean.

Everything here works on plain strings (a property name split into words, its description, the
tool's words and text) so that the rules can be read top to bottom: the first rule that fits
decides. Nothing names a particular server's tools.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from toolatlas.models import ToolSpec
from toolatlas.offline.formats import names_a_notation, stated_moment
from toolatlas.offline.hints import description_values
from toolatlas.offline.jsonpaths import says_jsonpath
from toolatlas.offline.lexicon import semantic_kind

__all__ = [
    "EFFECT_VERBS",
    "OBJECT_WORDS",
    "Meaning",
    "antonyms",
    "implicit_choices",
    "kind_for_string",
    "sql_statements_in",
    "tokens",
    "tool_tokens",
]


def tokens(name: str | None) -> list[str]:
    """``repo_path`` → ``[repo, path]``; ``entityName`` → ``[entity, name]``"""
    return list(_tokens(name)) if name else []


@functools.lru_cache(maxsize=8192)
def _tokens(name: str) -> tuple[str, ...]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return tuple(w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w)


def tool_tokens(tool: ToolSpec) -> list[str]:
    """A tool name's words without a leading server prefix (``git_status`` on ``git`` → ``[status]``)."""
    words = tokens(tool.name)
    prefix = set(tokens(tool.server)) | {"mcp", "tool"}
    start = 0
    while start < len(words) - 1 and words[start] in prefix:
        start += 1
    return words[start:]


def _vocabulary(groups: dict[str, str]) -> dict[str, str]:
    """``{meaning: "word word ..."}`` → ``{word: meaning}``."""
    return {word: meaning for meaning, words in groups.items() for word in words.split()}


EFFECT_VERBS = _vocabulary(
    {
        "read": "get list read search find show describe status diff log explain analyze open view fetch "
        "convert count check inspect lookup browse tree info print query calculate compare validate "
        "summarize resolve stat head tail cat ls grep",
        "create": "create add new insert append make mkdir init commit save upload post put generate "
        "register clone copy fork tag record",
        "update": "update edit set modify move rename replace patch checkout switch merge reset rebase "
        "stage unstage apply configure write change upsert mark",
        "delete": "delete remove drop rm rmdir clear purge destroy unlink erase truncate prune",
    }
)
"""The verb in a tool's name → what the tool does (``read``, ``create``, ``update``, ``delete``)."""

OBJECT_WORDS = _vocabulary(
    {
        "file": "file files media document documents",
        "directory": "directory directories dir dirs folder folders tree mkdir rmdir",
        "table": "table tables object objects",
        "row": "row rows record records",
        "schema": "schema schemas",
        "database": "database db health",
        "index": "index indexes indices",
        "branch": "branch branches",
        "commit": "commit commits log history",
        "tag": "tag tags",
        "diff": "diff",
        "repository": "status repo repository",
        "entity": "entity entities node nodes",
        "relation": "relation relations edge edges",
        "observation": "observation observations",
        "graph": "graph",
        "time": "time timezone timezones clock date",
        "note": "insight insights memo note notes",
        "query": "query queries sql",
    }
)
"""A noun in a tool's name → the kind of thing the tool acts on."""


class Meaning(NamedTuple):
    kind: str
    target: str | None = None
    fresh: bool = False


_SELECTORS = {
    "type",
    "kind",
    "mode",
    "format",
    "order",
    "sort",
    "by",
    "level",
    "method",
    "strategy",
    "direction",
}
_PATH_WORDS = {
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "filepath",
    "dir",
    "directory",
    "folder",
    "source",
    "destination",
    "dest",
    "src",
    "dst",
    "location",
    "pathname",
}
_DIR_WORDS = {"dir", "dirs", "directory", "directories", "folder", "folders"}
_FILE_WORDS = {"file", "files", "filename", "filepath"}
_NEW_WORDS = {"destination", "dest", "dst", "new", "output", "target"}
_OUTPUT_LEADS = frozenset({"output", "destination", "new"})
"""First words of a path argument's description that say the call writes there ("Output CSV file path."), whatever
its name says."""
_LISTING_VERBS = {"list", "search", "find", "tree", "glob", "walk", "scan", "ls"}
_TEXT_WORDS = {
    "message",
    "content",
    "contents",
    "text",
    "body",
    "insight",
    "note",
    "notes",
    "comment",
    "description",
    "summary",
    "title",
    "value",
    "data",
    "payload",
    "markdown",
    "html",
    "reason",
    "prompt",
}
_NAME_WORDS = {"name", "names", "id", "ids", "key", "keys", "identifier", "slug", "handle", "uid"}
_REF_WORDS = {"from", "to", "source", "target", "base", "parent", "start", "upstream"}
_ID_WORDS = frozenset({"id", "ids", "uid", "uuid", "identifier", "handle", "handles"})
"""Last words of a name that make it an identifier whatever it identifies (``file_id`` is no path)."""
_ENTITY_WORDS = frozenset({"entity", "entities", "node", "nodes"})
_FORMATS = {
    "date-time": "datetime",
    "date": "date",
    "time": "time_of_day",
    "uri": "url",
    "url": "url",
    "iri": "url",
    "uri-reference": "url",
    "email": "email",
    "idn-email": "email",
    "uuid": "uuid",
    "regex": "regex",
    "ipv4": "ip_address",
    "ipv6": "ip_address",
    "hostname": "hostname",
    "idn-hostname": "hostname",
    "duration": "duration",
    "byte": "base64",
    "color": "colour",
    "uri-template": "url",
}


_DAY_NOUNS = frozenset({"deadline", "birthday", "anniversary", "dob", "holiday"})
"""Names of an argument that is a day though they do not say "date" (``deadline``)."""


_SOUGHT = frozenset({"find", "search", "original", "target", "match"})
"""Words naming the text a replacing tool looks for (``find_text``, ``search_string``)."""


def kind_for_string(
    words: list[str],
    description: str,
    fmt: str | None,
    tool_words: list[str],
    tool_text: str,
    effect: str,
    obj: str,
    *,
    sql: bool,
    git: bool,
    parent: list[str],
    named_object: str | None = None,
) -> Meaning:
    """The meaning of a string argument named ``words``; the first rule that fits wins."""
    w, desc, last = set(words), description.lower(), (words[-1] if words else "")
    creates = effect == "create"
    if fmt in _FORMATS:
        return Meaning(_FORMATS[fmt])
    if last == "type" and "entity" in w:
        return Meaning("entity_type")
    if last == "type" and "relation" in w:
        return Meaning("relation_type")
    semantic = semantic_kind(words, description, tool_text, parent=parent)
    if semantic == "sheet_name":  # a sheet the call creates: ``new_name``, or the name given to ``add_sheet``
        names_sheets = bool({"sheet", "worksheet", "tab"} & set(tool_words))  # add_sheet, not append_rows
        fresh = bool(w & {"new"}) or (creates and names_sheets and not w & (_REF_WORDS | {"old", "existing"}))
        return Meaning(semantic, target=None, fresh=fresh and "existing" not in desc)
    if semantic is not None:
        return Meaning(semantic)
    if (last in _SELECTORS and len(words) > 1) or words == ["type"]:
        return Meaning("string")
    if w & {"timezone", "tz", "timezones"} or {"time", "zone"} <= w or "iana" in desc:
        return Meaning("timezone")
    stated = stated_moment(description) if not w & _PATH_WORDS else None
    if stated is not None:  # a stated format outranks the name (a `time` written YYYY-MM-DD HH:mm:ss)
        return Meaning("datetime" if stated.separator else "date")
    if "hh:mm" in desc or "24-hour" in desc or (last == "time" and not re.search(r"\bdate|iso", desc)):
        return Meaning("time_of_day")
    if w & {"timestamp", "datetime", "since", "until"} or "iso 8601" in desc or "timestamp" in desc:
        return Meaning("datetime")
    if "date" in w or last == "day" or last in _DAY_NOUNS:
        return Meaning("datetime" if "time" in desc else "date")
    if w & {"repo", "repository"} and (
        last in {"path", "dir", "directory", "root", "location"} or (len(words) == 1 and "path" in desc)
    ):
        return Meaning("repo_path", target="repository")
    if "sql" in w or (w & {"query", "queries", "statement", "statements", "stmt"} and sql):
        return Meaning("sql")
    if w & {"pattern", "patterns", "glob", "globs", "regex", "regexp", "wildcard", "mask"}:
        if w & {"regex", "regexp"} or re.search(r"\bregular[- ]expression|\bregexp?\b", desc):
            return Meaning("regex")
        if "glob" in desc or "glob" in tool_text or "*" in desc or obj in ("file", "directory"):
            return Meaning("glob")
        return Meaning("search_query")
    if w & {"url", "uri", "link", "href", "endpoint", "website"}:
        return Meaning("url")
    if w & {"email", "mail"}:
        return Meaning("email")
    replaced = effect == "update" and "replace" in tool_text  # ``find_text`` of a search-and-replace
    if "must match exactly" in desc or (
        w & {"text", "str", "string", "content"} and ("old" in w or (replaced and w & _SOUGHT))
    ):
        return Meaning("existing_text")
    if w & {"query", "q", "search", "keyword", "keywords", "term", "terms", "needle"}:
        return Meaning("search_query")
    if last in _ID_WORDS and (w & (_PATH_WORDS | _ENTITY_WORDS) or "entity" in desc) and "path" not in tokens(desc):
        return Meaning("identifier", target=named_object)  # ``file_id`` an open returned, an entity's ``handle``
    if (w & _PATH_WORDS or says_jsonpath(description)) and names_a_notation(description):
        return Meaning("string")  # a path into a document, not a file's, nor the document itself
    if w & _PATH_WORDS:
        if not w & _PLACES:  # a bare ``path``: what its description says it is (``a directory of raw tables``)
            w = w | (_described_place(description) or set())
        opening = next(iter(tokens(description)), "")
        if opening in _OUTPUT_LEADS:  # ``file_path``: "Output CSV file path." — where the call writes
            w = w | {opening}
        return _path_meaning(w, tool_words, tool_text, creates, obj, named_object, reads=effect == "read")
    if "branch" in w or "branches" in w:
        fresh = creates and named_object == "branch" and not w & _REF_WORDS
        return Meaning("branch", target="branch", fresh=fresh)
    if (
        w & {"revision", "rev", "commit", "sha", "refspec", "treeish"}
        or "commit sha" in desc
        or (git and w & {"ref", "tag", "tags", "target", "contains", "base"})  # a tag is a label elsewhere
    ):
        return Meaning("revision", target="commit")
    entity_word = bool(w & _ENTITY_WORDS)
    if entity_word or ("entity" in desc and (last in _NAME_WORDS or w & _REF_WORDS)):
        fresh = creates and named_object == "entity" and not w & _REF_WORDS
        return Meaning("entity_name", target="entity", fresh=fresh)
    if w & {"observation", "observations"} or ("observation" in desc and w & {"content", "contents", "text"}):
        return Meaning("observation", target="observation", fresh=effect != "delete")
    if "table" in w or "tables" in w:
        return Meaning("table_name", target="table", fresh=creates and named_object == "table")
    if sql and w & {"column", "columns", "field", "fields"}:
        return Meaning("column_name", target="table")
    if "schema" in w or "schemas" in w:
        return Meaning("schema_name")
    if sql and "object" in w and last in _NAME_WORDS:
        return Meaning("table_name", target="table")
    if last in _NAME_WORDS:
        fresh = creates and named_object is not None and w <= _NAME_WORDS
        return Meaning("identifier", target=named_object, fresh=fresh)
    if w & _TEXT_WORDS or (parent and set(parent) & _TEXT_WORDS):
        return Meaning("json" if "json" in desc else "text")
    described = _described_place(description)
    if described is not None and not w & _SECRET_WORDS and not names_a_notation(description):
        return _path_meaning(w | described, tool_words, tool_text, creates, obj, named_object, reads=effect == "read")
    if "json" in desc:
        return Meaning("json")
    return Meaning("string")


_HEAD_WORDS = 6
"""A place word heads a description only among its first words (``Archive file path``)."""
_SECRET_WORDS = frozenset({"password", "passphrase", "passwd", "secret", "pin", "token"})
_PLACES = _DIR_WORDS | _FILE_WORDS


def _described_place(description: str) -> set[str] | None:
    """What an argument whose name says nothing of a path (``input``, ``output``) is, when its description
    says it is one: the place word that heads it (``Output directory path`` → {directory}; ``Archive
    file(s) to extract`` → {file}), none for either of two (``file or folder path``) or for a bare
    ``path``; None when the description names no path, file or folder."""
    words = [w for w in tokens(description) if w not in ("or", "and")]
    at = next((i for i, w in enumerate(words) if w in _PLACES or w in ("path", "paths")), None)
    if at is None or at >= _HEAD_WORDS or any(w in _NAME_WORDS for w in words[:at]):
        return None  # "Optional friendly name for the document (defaults to filename stem)" is a name
    if words[at] in ("path", "paths"):
        return set()
    head = words[at]
    after = words[at + 1] if at + 1 < len(words) else ""
    either = after in _PLACES and (after in _DIR_WORDS) != (head in _DIR_WORDS)
    return set() if either else {head}


_PLACE_WORDS = frozenset({"to", "into", "in", "on", "inside"})
"""Words of a tool's name after which an object is where the tool acts, not what it makes."""


def _names_what_it_creates(tool_words: list[str], named_object: str) -> bool:
    """Whether the tool's name names the object before any place word: ``create_document`` makes a
    document, ``add_footnote_to_document`` makes a footnote in a document that exists."""
    cut = next((i for i, word in enumerate(tool_words) if word in _PLACE_WORDS), len(tool_words))
    return any(OBJECT_WORDS.get(word) == named_object for word in tool_words[:cut])


def _path_meaning(
    w: set[str], tool_words: list[str], tool_text: str, creates: bool, obj: str, named_object: str | None,
    *, reads: bool = False,
) -> Meaning:
    """A path argument's meaning. The ``target`` of a tool that only reads (the file compared against the
    reference) is one that exists; of any other, where the call writes."""
    if w & _DIR_WORDS:
        target: str | None = "directory"
    elif w & _FILE_WORDS:
        target = "file"
    elif set(tool_words) & _LISTING_VERBS:
        target = "directory"
    elif re.search(r"\bfiles? (?:or|and) director", tool_text):
        target = None  # "a file or directory": either will do
    elif obj in ("file", "directory"):
        target = obj
    else:
        target = None
    if w & (_NEW_WORDS - {"target"} if reads else _NEW_WORDS):
        return Meaning("new_path", target=target if w & (_DIR_WORDS | _FILE_WORDS) else None, fresh=True)
    if (not w & {"source", "src", "old", "from"} and creates and named_object in ("file", "directory")
            and _names_what_it_creates(tool_words, named_object)):
        return Meaning("new_path", target=named_object, fresh=True)
    kind = {"directory": "dir_path", "file": "file_path"}.get(target or "", "path")
    return Meaning(kind, target=target)


def sql_statements_in(description: str, tool_text: str, tool_words: list[str]) -> list[str]:
    """Statement kinds an SQL argument accepts: from its description, else the tool's text, else its verbs."""
    for text in (description.lower(), tool_text.lower()):
        if re.search(r"\bany\b", text):
            return ["select", "insert", "update", "delete", "ddl"]
        found = [k for k in ("select", "insert", "update", "delete") if re.search(rf"\b{k}\b", text)]
        if re.search(r"\bcreate table\b|\bddl\b|\balter table\b|\bdrop table\b", text) or (
            text is description.lower() and re.search(r"\bcreate\b", text)
        ):
            found.append("ddl")
        if found:
            return found
    words = set(tool_words)
    if words & {"read", "select", "explain", "analyze", "get", "list", "search", "fetch"}:
        return ["select"]
    if words & {"write", "insert", "update", "delete", "modify"}:
        return ["insert", "update", "delete"]
    if words & {"create", "ddl", "migrate"}:
        return ["ddl"]
    return ["select", "insert", "update", "delete", "ddl"]


def implicit_choices(description: str) -> tuple[list[str], list[str]]:
    """Choices a description lists ("'a', 'b' or 'c'"; "Valid values are: a, b") and its examples."""
    return description_values(description)


_OPPOSITES = [
    {"head", "tail"},
    {"first", "last"},
    {"top", "bottom"},
    {"before", "after"},
    {"above", "below"},
    {"oldest", "newest"},
    {"ascending", "descending"},
]


def antonyms(
    first: str, second: str, first_description: str, second_description: str, tool_description: str
) -> bool:
    """Whether two optional arguments are alternatives: opposite names, or descriptions one opposite apart."""
    pair = {first.lower(), second.lower()}
    if pair in _OPPOSITES:
        return True
    a, b = first_description.lower().split(), second_description.lower().split()
    if a and len(a) == len(b):
        differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
        return len(differ) == 1 and set(differ[0]) in _OPPOSITES
    return False
