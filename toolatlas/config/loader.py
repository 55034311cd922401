"""Loading catalogues from TOML, with errors that name the file and the field."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from toolatlas.config.catalogue import Catalogue
from toolatlas.errors import ConfigError

__all__ = ["load_catalogue", "parse_catalogue"]


_UNION_TAGS = frozenset(
    {"npm", "pypi", "command", "stdio", "http", "directory", "sqlite", "git", "json_file", "postgres", "none"}
)


def _field_path(data: dict[str, Any], loc: tuple[Any, ...]) -> str:
    """Render a pydantic error location as the user wrote it: ``servers[git].runtime.version``.

    List items are named by their ``name`` key when they have one; the branch names pydantic
    inserts for tagged unions (``npm``, ``directory``...) are dropped, they are not the user's keys.
    """
    path = ""
    node: Any = data
    for item in loc:
        if isinstance(item, int):
            element = node[item] if isinstance(node, list) and 0 <= item < len(node) else None
            label = element.get("name") if isinstance(element, dict) else None
            path += f"[{label or item}]"
            node = element
        elif item in _UNION_TAGS and not (isinstance(node, dict) and item in node):
            continue
        else:
            path += f".{item}" if path else str(item)
            node = node.get(item) if isinstance(node, dict) else None
    return path


def parse_catalogue(data: dict[str, Any], source: Path | None = None) -> Catalogue:
    """Validate an already-parsed mapping; errors name ``source`` and each bad field."""
    try:
        catalogue = Catalogue.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            field = _field_path(data, tuple(error["loc"]))
            message = error["msg"].removeprefix("Value error, ")
            if error["type"] == "missing":
                message = "required field is missing"
            elif error["type"] == "extra_forbidden":
                message = "unknown field (check the spelling)"
            elif error["type"] == "union_tag_invalid":
                message = f"unknown kind {error['input'].get('kind')!r}; expected one of {error['ctx']['expected_tags']}"
            problems.append((field, message))
        raise ConfigError(str(source) if source else None, problems) from None
    if source is not None:
        catalogue._source = source.resolve()
    return catalogue


def load_catalogue(path: str | Path) -> Catalogue:
    """Read and validate a catalogue TOML file."""
    source = Path(path)
    try:
        raw = source.read_bytes()
    except FileNotFoundError:
        raise ConfigError(str(source), [("", "file not found")]) from None
    except OSError as exc:
        raise ConfigError(str(source), [("", f"cannot read the file: {exc.strerror}")]) from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(str(source), [("", f"not valid TOML: {exc}")]) from exc
    except RecursionError:
        raise ConfigError(str(source), [("", "not a catalogue: arrays or tables nested too deeply")]) from None
    if not data:
        raise ConfigError(str(source), [("", "the file is empty: a catalogue needs version, name and [[servers]]")])
    return parse_catalogue(data, source)
