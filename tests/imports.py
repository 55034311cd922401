"""The imports a Python file makes, read from its syntax tree (nothing is imported)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path


def absolute_imports(path: Path) -> Iterator[tuple[str, int]]:
    """Each module ``path`` imports by its absolute name, anywhere in the file, with its line: ``import a.b``
    and ``from a.b import c`` both give ``a.b`` (a relative import gives nothing)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, node.lineno
