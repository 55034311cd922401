"""Catalogue loading: valid files load, malformed ones fail with the file and the field named."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.config import NpmRuntime, PypiRuntime, StdioTransport, load_catalogue
from toolatlas.errors import ConfigError


def write(tmp_path: Path, text: str, name: str = "catalogue.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


VALID = """
name = "t"
[[servers]]
name = "fs"
runtime = { kind = "npm", package = "@modelcontextprotocol/server-filesystem", version = "2026.8.31" }
transport = { args = ["${root}"] }
environment = { kind = "directory", snapshot = "tree" }
"""


class TestValidCatalogues:
    def test_bundled_catalogues_load(self, repo_root: Path) -> None:
        """configs/demo.toml and configs/postgres.toml are valid and name the demo servers."""
        demo = load_catalogue(repo_root / "configs/demo.toml")
        assert {s.name for s in demo.servers} >= {"filesystem", "memory", "git", "sqlite", "time"}
        postgres = load_catalogue(repo_root / "configs/postgres.toml")
        assert isinstance(postgres.servers[0].runtime, PypiRuntime)
        assert postgres.servers[0].runtime.no_deps

    @pytest.mark.parametrize("name", sorted(p.name for p in (Path(__file__).resolve().parents[2] / "configs").glob("*.toml")))
    def test_every_catalogue_in_configs_validates(self, repo_root: Path, name: str) -> None:
        """Every catalogue shipped in configs/ loads and names at least one server."""
        assert load_catalogue(repo_root / "configs" / name).servers

    @pytest.mark.parametrize("name", ["unseen", "heldout", "heldout2", "heldout3", "heldout4", "heldout5",
                                      "heldout6", "heldout7", "heldout8", "heldout9", "heldout10",
                                      "heldout11", "heldout12", "heldout13", "heldout14", "heldout15"])
    def test_held_out_snapshots_ship_with_the_catalogue(self, repo_root: Path, name: str) -> None:
        """Every snapshot a held-out catalogue names is a file or folder beside it in configs/."""
        catalogue = load_catalogue(repo_root / "configs" / f"{name}.toml")
        snapshots = [s.environment.snapshot for s in catalogue.servers if getattr(s.environment, "snapshot", None)]
        assert snapshots and all(catalogue.resolve(path).exists() for path in snapshots)

    def test_transport_defaults_to_stdio(self, tmp_path: Path) -> None:
        """A transport table without `kind` is stdio."""
        catalogue = load_catalogue(write(tmp_path, VALID))
        assert isinstance(catalogue.servers[0].transport, StdioTransport)
        assert isinstance(catalogue.servers[0].runtime, NpmRuntime)

    def test_relative_paths_resolve_against_the_file(self, tmp_path: Path) -> None:
        """A snapshot path is relative to the catalogue file, not to the working directory."""
        catalogue = load_catalogue(write(tmp_path, VALID))
        assert catalogue.resolve("tree") == (tmp_path / "tree").resolve()

    def test_defaults_follow_the_paper(self, tmp_path: Path) -> None:
        """Build settings default to the paper's Appendix B values (k=3, N=4, R=3)."""
        build = load_catalogue(write(tmp_path, VALID)).build
        assert (build.seed_tasks_per_tool, build.rollouts_per_task, build.rounds) == (3, 4, 3)


class TestMalformedCatalogues:
    def problems(self, tmp_path: Path, text: str) -> ConfigError:
        with pytest.raises(ConfigError) as info:
            load_catalogue(write(tmp_path, text))
        assert str(tmp_path / "catalogue.toml") in str(info.value)
        return info.value

    def test_missing_field_is_named(self, tmp_path: Path) -> None:
        """A server without a runtime version names servers[fs].runtime.version."""
        error = self.problems(tmp_path, VALID.replace(', version = "2026.8.31"', ""))
        assert ("servers[fs].runtime.version", "required field is missing") in error.problems

    def test_unknown_runtime_is_named(self, tmp_path: Path) -> None:
        """An unknown runtime kind names the field and lists the known kinds."""
        error = self.problems(tmp_path, VALID.replace('kind = "npm"', 'kind = "cargo"'))
        field, message = error.problems[0]
        assert field == "servers[fs].runtime"
        assert "'cargo'" in message and "npm" in message and "pypi" in message

    def test_unknown_key_is_rejected(self, tmp_path: Path) -> None:
        """A misspelt key is an error, not silently ignored."""
        error = self.problems(tmp_path, VALID + "\n[build]\nround = 3\n")
        assert ("build.round", "unknown field (check the spelling)") in error.problems

    def test_version_must_be_pinned(self, tmp_path: Path) -> None:
        """A version range is refused: builds must be reproducible."""
        error = self.problems(tmp_path, VALID.replace('"2026.8.31"', '"^2026.8.0"'))
        assert error.problems[0][0] == "servers[fs].runtime.version"

    def test_snapshot_or_seed_exactly_one(self, tmp_path: Path) -> None:
        """An environment needs exactly one of snapshot and seed."""
        error = self.problems(tmp_path, VALID.replace('snapshot = "tree"', 'snapshot = "tree", seed = "demo.filesystem"'))
        assert error.problems[0][0] == "servers[fs].environment"

    def test_duplicate_server_names(self, tmp_path: Path) -> None:
        """Two servers with one name are refused."""
        error = self.problems(tmp_path, VALID + VALID.replace('name = "t"', ""))
        assert "more than once" in error.problems[0][1]

    def test_all_problems_reported_at_once(self, tmp_path: Path) -> None:
        """Several mistakes are reported together."""
        text = VALID.replace('kind = "npm"', 'kind = "cargo"') + "\n[build]\nrounds = -1\n"
        assert len(self.problems(tmp_path, text).problems) == 2

    def test_invalid_toml(self, tmp_path: Path) -> None:
        """A TOML syntax error names the file."""
        error = self.problems(tmp_path, "name = \n")
        assert "not valid TOML" in error.problems[0][1]

    def test_missing_file(self, tmp_path: Path) -> None:
        """A missing file is a ConfigError naming it."""
        with pytest.raises(ConfigError, match="file not found"):
            load_catalogue(tmp_path / "absent.toml")


class TestSnapshotSources:
    def test_missing_snapshot_names_file_and_field(self, tmp_path: Path) -> None:
        """A snapshot path that does not exist fails with the catalogue file and the field named."""
        from toolatlas.errors import SnapshotError
        from toolatlas.home import Home
        from toolatlas.workspace import Workspace

        path = write(tmp_path, VALID)
        workspace = Workspace(load_catalogue(path), Home(tmp_path / "home"))
        with pytest.raises(SnapshotError) as info:
            workspace.snapshot(workspace.catalogue.server("fs"))
        assert str(path.resolve()) in str(info.value)
        assert "servers[fs].environment.snapshot" in str(info.value)
        assert "does not exist" in str(info.value)

    def test_unreadable_database_snapshot(self, tmp_path: Path) -> None:
        """A SQLite snapshot that is not a database fails naming the file and the field."""
        from toolatlas.errors import SnapshotError
        from toolatlas.home import Home
        from toolatlas.workspace import Workspace

        (tmp_path / "broken.db").write_bytes(b"\x00garbage" * 100)
        text = VALID.replace('kind = "directory", snapshot = "tree"', 'kind = "sqlite", snapshot = "broken.db"')
        workspace = Workspace(load_catalogue(write(tmp_path, text)), Home(tmp_path / "home"))
        with pytest.raises(SnapshotError, match=r"servers\[fs\]\.environment\.snapshot: .*not a readable SQLite database"):
            workspace.snapshot(workspace.catalogue.server("fs"))

    def test_unknown_seed(self, tmp_path: Path) -> None:
        """An unknown seed name fails listing the known seeds."""
        from toolatlas.errors import SnapshotError
        from toolatlas.home import Home
        from toolatlas.workspace import Workspace

        text = VALID.replace('snapshot = "tree"', 'seed = "demo.nothing"')
        workspace = Workspace(load_catalogue(write(tmp_path, text)), Home(tmp_path / "home"))
        with pytest.raises(SnapshotError, match=r"environment\.seed: .*demo\.filesystem"):
            workspace.snapshot(workspace.catalogue.server("fs"))
