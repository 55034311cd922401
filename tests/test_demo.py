"""The bundled demo catalogue: shipped inside the package, written by ``toolatlas init`` / ``toolatlas demo``
to a folder where it keeps its atlas, and the whole demo run from an empty folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.config import load_catalogue

REPO = Path(__file__).resolve().parents[1]


class TestExampleCatalogue:
    def test_init_without_a_server_writes_the_demo_catalogue_with_its_atlas_beside_it(self, tmp_path: Path) -> None:
        """`init -o F` with no server writes the demo catalogue, which validates and keeps its atlas in F's folder."""
        target = tmp_path / "mine" / "demo.toml"
        assert main(["init", "-o", str(target)]) == 0
        catalogue = load_catalogue(target)
        assert [s.name for s in catalogue.servers] == [s.name for s in load_catalogue(REPO / "configs" / "demo.toml").servers]
        assert catalogue.atlas_dir == (tmp_path / "mine" / ".toolatlas" / "atlas" / "demo").resolve()

    def test_writing_it_again_keeps_it_and_another_file_is_never_overwritten(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A second `init` keeps the same file; a different file at the path is a usage error and stays as it was."""
        target = tmp_path / "demo.toml"
        assert main(["init", "-o", str(target)]) == 0
        assert main(["init", "-o", str(target)]) == 0
        assert "kept the demo catalogue" in capsys.readouterr().err
        mine = tmp_path / "mine.toml"
        mine.write_text('version = 1\nname = "mine"\n')
        assert main(["init", "-o", str(mine)]) == 2
        assert "is not the demo catalogue" in capsys.readouterr().err
        assert mine.read_text() == 'version = 1\nname = "mine"\n'


class TestWheel:
    def test_the_wheel_ships_the_demo_catalogue_and_the_actors_inside_the_package(self, tmp_path: Path) -> None:
        """The built wheel holds toolatlas/catalogues/demo.toml with configs/demo.toml's text and actors/ as
        toolatlas/actors, and installs nothing at top level but ``toolatlas`` and its metadata."""
        source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info into the source tree
        source.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy2(REPO / name, source / name)
        skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
        for name in ("toolatlas", "actors", "configs"):
            shutil.copytree(REPO / name, source / name, symlinks=True, ignore=skip)
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), str(source)],
            check=True, capture_output=True, text=True,
        )
        (wheel,) = tmp_path.glob("toolatlas-*.whl")
        with zipfile.ZipFile(wheel) as archive:
            shipped = archive.read("toolatlas/catalogues/demo.toml").decode()
            names = archive.namelist()
        assert shipped == (REPO / "configs" / "demo.toml").read_text()
        assert not any(name.startswith("toolatlas/catalogues/wild") for name in names)  # its seeds live in the repo
        top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
        assert top_level == {"toolatlas"}
        shipped_actors = {name.removeprefix("toolatlas/actors/") for name in names if name.startswith("toolatlas/actors/")}
        assert shipped_actors == {path.name for path in (REPO / "actors").glob("*.py")}


@pytest.mark.slow
@pytest.mark.servers
class TestDemoCommand:
    def test_demo_runs_from_an_empty_folder(self, tmp_path: Path) -> None:
        """`toolatlas demo` in an empty folder writes the catalogue, builds the atlas there and prints guidance."""
        home = REPO / ".toolatlas"  # the installed runtimes, so the run does not download them again
        result = subprocess.run(
            [sys.executable, "-m", "toolatlas", "demo"], cwd=tmp_path, capture_output=True, text=True, timeout=900,
            env={**os.environ, "TOOLATLAS_HOME": str(home)},
        )
        assert result.returncode == 0, result.stderr[-2000:]
        assert (tmp_path / "demo.toml").exists()
        assert any((tmp_path / ".toolatlas" / "atlas" / "demo").iterdir())
        assert "git_commit" in result.stdout


class TestOptionalDependencies:
    @pytest.mark.parametrize(("module", "argv", "extra"), [
        ("ray", ["build", "configs/demo.toml", "--engine", "ray"], "ray"),
        ("psycopg", ["servers", "check", "configs/postgres.toml"], "postgres"),
    ])
    def test_a_command_that_needs_a_missing_extra_names_it(self, module: str, argv: list[str], extra: str) -> None:
        """Without an optional dependency installed, a command that needs it exits 2 naming the extra to install."""
        code = (f"import sys; sys.modules[{module!r}] = None\n"  # what an install without the extra looks like
                f"from toolatlas.cli import main; sys.exit(main({argv!r}))")
        result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert result.returncode == 2, result.stderr[-2000:]
        assert f"pip install 'toolatlas[{extra}]'" in result.stderr and "Traceback" not in result.stderr
