"""The package's layers: a module imports only from its own layer or the layers below it.

The order is data (:data:`LAYERS`, lowest first). A unit is a top-level module or subpackage of
``toolatlas`` (``toolatlas.graph``, ``toolatlas.leases``), the Ray package ``toolatlas.actors`` (the
repository's ``actors/`` folder, linked into the package), or a command
module (those of :data:`COMMAND_MODULES` and every ``toolatlas.<package>.commands``), which wires the
library to a placement and so sits above the actors. Every import counts, at module level, inside a
function or under ``TYPE_CHECKING``: each is a dependency of the importer. The package's own ``__init__`` is the public facade over every layer (names imported on first use) and
is not a layer; what the modules take from it (its version) is foundation.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from imports import absolute_imports

REPO = Path(__file__).resolve().parents[1]

LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("foundation", frozenset({"toolatlas", "errors", "models", "logs", "console"})),
    ("configuration", frozenset({"config"})),
    # home, leases and environments form one layer: the working area's instance folders are
    # leased per process and removed with the environments' remove_tree.
    ("host", frozenset({"home", "leases", "environments", "runtimes", "client", "llm", "prompts"})),
    ("confinement", frozenset({"confinement", "sandbox", "codebox", "workspace"})),
    ("probing", frozenset({"probing"})),
    ("graph", frozenset({"graph"})),
    ("exploration", frozenset({"offline", "tasks", "agents", "induction"})),
    ("atlas", frozenset({"store", "export"})),
    ("guidance", frozenset({"trust", "guidance", "report"})),
    ("pipeline", frozenset({"pipeline"})),
    ("services", frozenset({"lifecycle", "evaluation", "serve", "proxy", "loadtest", "scaffold", "testing",
                            "ray_session", "preflight", "smoke", "progress", "outputs"})),
    ("actors", frozenset({"actors"})),
    ("commands", frozenset({"commands"})),
)
"""Every unit's layer, lowest first."""

COMMAND_MODULES = frozenset({"toolatlas.__main__", "toolatlas.cli", "toolatlas.demo"})
"""The command modules outside a package's ``commands`` module."""

RANK = {unit: rank for rank, (_name, units) in enumerate(LAYERS) for unit in units}
LAYER_NAME = {unit: name for name, units in LAYERS for unit in units}
PACKAGE = "toolatlas"
LINKED = ("actors",)
"""The package's folders that are links to top-level folders of the repository (walked as its own)."""


@dataclass(frozen=True)
class Import:
    """One import of a first-party module: who imports what, where, and whether inside a function."""

    importer: str
    imported: str
    line: int
    in_function: bool


def module_names(root: Path) -> dict[str, Path]:
    """Every first-party module under ``root`` by dotted name (a package by its own name)."""
    names: dict[str, Path] = {}
    # rglob does not descend into a linked folder (toolatlas/catalogues is data), so the linked packages
    # are walked from their link
    for top in (root / PACKAGE, *(root / PACKAGE / name for name in LINKED)):
        for path in sorted(top.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def unit_of(module: str) -> str:
    """The layering unit a dotted module name belongs to."""
    parts = module.split(".")
    if module in COMMAND_MODULES or (len(parts) == 3 and parts[2] == "commands"):
        return "commands"
    return parts[1] if len(parts) > 1 else parts[0]


@functools.cache
def first_party_imports(root: Path) -> tuple[Import, ...]:
    """Every import of a first-party module in the package, resolved to the module it loads."""
    modules = module_names(root)
    found: list[Import] = []
    for importer, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        functions = {id(node) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
                     for node in ast.walk(fn)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                # ``from toolatlas.pipeline import commands`` loads the module toolatlas.pipeline.commands
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                           for a in node.names]
            else:
                continue
            found.extend(Import(importer, target, node.lineno, id(node) in functions)
                         for target in targets if target.split(".")[0] == PACKAGE)
    return tuple(found)


def upward_imports(root: Path) -> list[str]:
    """The imports that reach a higher layer, as ``importer:line -> imported (layer < layer)``."""
    upward = []
    for imp in first_party_imports(root):
        if imp.importer == "toolatlas":
            continue  # the facade
        low, high = unit_of(imp.importer), unit_of(imp.imported)
        if low in RANK and high in RANK and RANK[low] < RANK[high]:  # an unplaced unit: test_every_module_has_a_layer
            upward.append(f"{imp.importer}:{imp.line} -> {imp.imported} "
                          f"({LAYER_NAME[low]} below {LAYER_NAME[high]})")
    return upward


class TestLayerOrder:
    def test_every_module_has_a_layer(self):
        """Every module of toolatlas/ and toolatlas.actors belongs to a unit of :data:`LAYERS` (a new package is placed
        on purpose)."""
        unplaced = sorted({unit_of(m) for m in module_names(REPO)} - RANK.keys())
        assert not unplaced, f"units without a layer in LAYERS: {unplaced}"

    def test_no_module_imports_a_higher_layer(self):
        """No import in toolatlas/ or toolatlas.actors reaches a layer above its module's (probing below graph and
        offline, store and guidance below the build, the library below actors)."""
        upward = upward_imports(REPO)
        assert not upward, "imports of a higher layer:\n" + "\n".join(upward)

    def test_actors_are_imported_only_inside_command_functions(self):
        """Only command modules import toolatlas.actors, and only inside a function, so toolatlas imports without Ray."""
        wrong = [f"{i.importer}:{i.line} -> {i.imported}" for i in first_party_imports(REPO)
                 if unit_of(i.imported) == "actors" and unit_of(i.importer) != "actors"
                 and (unit_of(i.importer) != "commands" or not i.in_function)]
        assert not wrong, "actors imported outside a command's function:\n" + "\n".join(wrong)

    def test_the_walk_reports_an_upward_import(self, tmp_path):
        """A probing module that imports the graph, even inside a function, is reported (the check can fail)."""
        probing = tmp_path / "toolatlas" / "probing"
        probing.mkdir(parents=True)
        (tmp_path / "toolatlas" / "__init__.py").write_text("")
        (tmp_path / "toolatlas" / "graph.py").write_text("")
        (tmp_path / "actors").mkdir()
        (tmp_path / "toolatlas" / "actors").symlink_to("../actors")
        (probing / "__init__.py").write_text("")
        (probing / "models.py").write_text("def f():\n    from toolatlas.graph import models\n")
        assert upward_imports(tmp_path) == ["toolatlas.probing.models:2 -> toolatlas.graph (probing below graph)"]


def top_level_imports_of(root: Path, name: str) -> list[str]:
    """Every import, in the repository's Python under ``root``, of the top-level module ``name``."""
    return [f"{path.relative_to(root)}:{line} -> {module}"
            for folder in ("toolatlas", *LINKED, "tests", "benchmarks", "cluster")
            for path in sorted((root / folder).rglob("*.py"))
            for module, line in absolute_imports(path) if module.split(".")[0] == name]


class TestLinkedPackages:
    def test_each_linked_folder_is_a_link_to_its_top_level_folder(self):
        """toolatlas/actors is a link to the repository's actors/ folder, so the package installs it as its own."""
        for name in LINKED:
            link = REPO / PACKAGE / name
            assert link.is_symlink() and link.resolve() == (REPO / name).resolve(), link

    def test_no_module_imports_a_linked_folder_by_its_top_level_name(self):
        """Nothing imports ``actors`` as a top-level module: an installed ToolAtlas has only ``toolatlas.actors``."""
        for name in LINKED:
            wrong = top_level_imports_of(REPO, name)
            assert not wrong, f"imports of {name} by its top-level name:\n" + "\n".join(wrong)

    def test_the_walk_reports_a_top_level_import(self, tmp_path):
        """A test that imports ``actors.calls`` is reported (the check can fail)."""
        for folder in ("toolatlas", "actors", "tests", "benchmarks", "cluster"):
            (tmp_path / folder).mkdir()
        (tmp_path / "tests" / "test_x.py").write_text("def f():\n    from actors.calls import answer\n")
        assert top_level_imports_of(tmp_path, "actors") == ["tests/test_x.py:2 -> actors.calls"]


class TestImportCost:
    def test_the_probe_models_load_nothing_above_probing(self):
        """Importing the Probe models loads no module of a layer above probing (graph, offline, build...)."""
        code = ("import sys, toolatlas.probing.models; "
                "print('\\n'.join(m for m in sys.modules if m.startswith('toolatlas')))")
        loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                cwd=REPO).stdout.split()
        above = sorted(m for m in loaded if m != "toolatlas" and RANK[unit_of(m)] > RANK["probing"])
        assert "toolatlas.probing.models" in loaded
        assert not above, f"importing toolatlas.probing.models loaded {above}"
