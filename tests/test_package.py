"""The package's public surface: importable without Ray, one exception tree, every library it imports declared
and imported by its public modules."""

from __future__ import annotations

import functools
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from imports import absolute_imports

import toolatlas
from toolatlas import errors


class TestImport:
    def test_imports_without_ray(self) -> None:
        """Importing toolatlas and its main modules never imports Ray (actors/ is where Ray lives)."""
        code = (
            "import sys, toolatlas, toolatlas.client, toolatlas.environments, toolatlas.sandbox, "
            "toolatlas.workspace, toolatlas.smoke, toolatlas.cli, toolatlas.runtimes; "
            "sys.exit(1 if 'ray' in sys.modules else 0)"
        )
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr or "ray was imported"

    def test_cli_entry_point_runs(self) -> None:
        """``python -m toolatlas --help`` works (what `ray job submit` entry points call)."""
        result = subprocess.run([sys.executable, "-m", "toolatlas", "--help"], capture_output=True, text=True)
        assert result.returncode == 0
        assert "servers" in result.stdout


REPO = Path(__file__).resolve().parents[1]


def third_party_imports(package: Path) -> dict[str, set[str]]:
    """Every module of another distribution the package's Python imports (anywhere in a file) → the files
    that import it; the standard library, the package itself and a script's sibling modules (the codebox's
    child process runs with its own folder on its path) are left out."""
    found: dict[str, set[str]] = {}
    for path in sorted([*package.rglob("*.py"), *(package / "actors").rglob("*.py")]):
        for module, _line in absolute_imports(path):
            top = module.split(".")[0]
            if top not in sys.stdlib_module_names and top != package.name and not (path.parent / f"{top}.py").exists():
                found.setdefault(module, set()).add(str(path.relative_to(package.parent)))
    return found


def declared_distributions(pyproject: Path) -> set[str]:
    """The normalised names of every distribution pyproject.toml declares, required or in an extra."""
    project = tomllib.loads(pyproject.read_text())["project"]
    requirements = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]
    return {re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", r).group()).lower() for r in requirements}


@functools.cache
def installed_distributions() -> dict[str, list[str]]:
    """Top-level module → the installed distributions providing it (read once: it walks every installed
    distribution's files)."""
    return dict(importlib.metadata.packages_distributions())


def distribution_of(top_level: str) -> str:
    """The normalised name of the distribution that provides the top-level module (its own name, with dashes,
    when it is not installed here: an extra's)."""
    installed = installed_distributions().get(top_level)
    return re.sub(r"[-_.]+", "-", installed[0] if installed else top_level).lower()


class TestDistribution:
    def test_every_imported_library_is_declared(self) -> None:
        """Each library toolatlas imports is declared in pyproject.toml, as a dependency or in an extra (none
        arrives only as another library's dependency)."""
        declared = declared_distributions(REPO / "pyproject.toml")
        undeclared = sorted({f"{distribution_of(m.split('.')[0])} ({sorted(files)[0]})"
                             for m, files in third_party_imports(REPO / "toolatlas").items()
                             if distribution_of(m.split(".")[0]) not in declared})
        assert not undeclared, f"imported but not declared: {undeclared}"

    def test_no_library_is_imported_by_a_private_module(self) -> None:
        """toolatlas imports other libraries through their public modules only (no ``_name`` in the path)."""
        private = sorted(f"{m} ({sorted(files)[0]})" for m, files in third_party_imports(REPO / "toolatlas").items()
                         if any(part.startswith("_") for part in m.split(".")))
        assert not private, f"private modules imported: {private}"

    def test_the_walk_reports_an_undeclared_and_a_private_import(self, tmp_path: Path) -> None:
        """A module importing a private module of a library the project does not declare is found (the checks
        can fail)."""
        (tmp_path / "toolatlas" / "actors").mkdir(parents=True)
        (tmp_path / "toolatlas" / "x.py").write_text("def f():\n    from some_lib._inner import g\n")
        (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["mcp>=2"]\n[project.optional-dependencies]\n')
        found = third_party_imports(tmp_path / "toolatlas")
        assert found == {"some_lib._inner": {"toolatlas/x.py"}}
        assert declared_distributions(tmp_path / "pyproject.toml") == {"mcp"}
        assert distribution_of("some_lib") == "some-lib"


class TestErrors:
    def test_every_error_derives_from_the_root(self) -> None:
        """Every exception class ToolAtlas exports is a ToolAtlasError."""
        for name in errors.__all__:
            assert issubclass(getattr(errors, name), errors.ToolAtlasError), name

    def test_public_names_resolve(self) -> None:
        """Everything in toolatlas.__all__ exists."""
        for name in toolatlas.__all__:
            assert hasattr(toolatlas, name), name


class TestErrorsCrossProcesses:
    def test_errors_with_fields_pickle(self) -> None:
        """Errors carrying fields survive pickling (Ray ships them from actors to the driver)."""
        import pickle

        start = errors.ServerStartError("git", "no handshake", "stderr tail")
        again = pickle.loads(pickle.dumps(start))
        assert (again.server, again.reason, again.stderr_tail, str(again)) == ("git", "no handshake", "stderr tail", str(start))
        config = errors.ConfigError("c.toml", [("servers[x].runtime", "bad")])
        assert pickle.loads(pickle.dumps(config)).problems == [("servers[x].runtime", "bad")]
