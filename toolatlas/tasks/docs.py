"""Usage snippets from a server's documentation: the offline stand-in for the paper's web search.

A catalogue names documentation per server (``docs = ["docs/git-server.md", "examples/*.md"]``,
relative to the catalogue file). :class:`UsageDocs` reads those files once, splits them into
blocks (paragraphs, list items, whole fenced code blocks) and hands the proposer the few blocks
that mention a tool, bounded in number and size so a long README never floods a prompt.
"""

from __future__ import annotations

import glob
import re
from dataclasses import dataclass
from pathlib import Path

import structlog

from toolatlas.config import ServerSpec
from toolatlas.errors import ConfigError

__all__ = ["MAX_DOC_BYTES", "DocBlock", "UsageDocs"]

log = structlog.get_logger(__name__)

MAX_DOC_BYTES = 512_000
"""Bytes read per documentation file (the head of a larger one)."""
MAX_BLOCK_CHARS = 700
"""A block longer than this is cut (with an ellipsis)."""
_MIN_SNIPPET_CHARS = 80
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class DocBlock:
    """One paragraph, list item group or code block of a documentation file."""

    source: str
    text: str

    def mentions(self, name: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", self.text) is not None


def _blocks(text: str) -> list[str]:
    """Blank-line separated blocks; a fenced code block stays whole, blank lines included."""
    blocks: list[str] = []
    current: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class UsageDocs:
    """The documentation blocks of one server, searchable by tool name."""

    def __init__(self, blocks: list[DocBlock]) -> None:
        self.blocks = blocks

    @classmethod
    def empty(cls) -> UsageDocs:
        return cls([])

    @classmethod
    def load(cls, spec: ServerSpec, base_dir: Path) -> UsageDocs:
        """Read every file ``spec.docs`` names; a pattern that matches no file is a :class:`ConfigError`."""
        blocks: list[DocBlock] = []
        problems: list[tuple[str, str]] = []
        for index, pattern in enumerate(spec.docs):
            files = _expand(pattern, base_dir)
            if not files:
                problems.append((f"servers[{spec.name}].docs[{index}]", f"{pattern!r} matches no file"))
            for path in files:
                try:
                    raw = path.read_bytes()[:MAX_DOC_BYTES]
                except OSError as exc:
                    problems.append(
                        (f"servers[{spec.name}].docs[{index}]", f"cannot read {path}: {exc.strerror}")
                    )
                    continue
                text = raw.decode("utf-8", errors="replace")
                blocks.extend(DocBlock(path.name, block) for block in _blocks(text))
        if problems:
            raise ConfigError(None, problems)
        log.debug("usage_docs_loaded", server=spec.name, files=len(spec.docs), blocks=len(blocks))
        return cls(blocks)

    def snippets(self, tool: str, *, limit: int = 4, max_chars: int = 2_000) -> list[DocBlock]:
        """Blocks that mention ``tool`` by name, in document order, at most ``limit`` and ``max_chars`` in all.

        A block that names the tool as a heading or list item is followed by the block after it
        (the description under a heading usually sits in the next paragraph).
        """
        chosen: list[DocBlock] = []
        taken: set[int] = set()
        used = 0
        for index, block in enumerate(self.blocks):
            if not block.mentions(tool):
                continue
            picks = [index]
            if len(block.text) < 80 and index + 1 < len(self.blocks):
                picks.append(index + 1)
            for pick in picks:
                if pick in taken:
                    continue
                remaining = max_chars - used
                if len(chosen) >= limit or remaining < _MIN_SNIPPET_CHARS:
                    return chosen
                text = _cut(self.blocks[pick].text, min(MAX_BLOCK_CHARS, remaining))
                chosen.append(DocBlock(self.blocks[pick].source, text))
                taken.add(pick)
                used += len(text)
        return chosen


def _expand(pattern: str, base_dir: Path) -> list[Path]:
    """Files a path or glob names, relative to ``base_dir`` unless absolute, sorted."""
    expanded = Path(pattern).expanduser()
    full = expanded if expanded.is_absolute() else base_dir / expanded
    return sorted(Path(p) for p in glob.glob(str(full), recursive=True) if Path(p).is_file())
