"""`toolatlas validate` catches what the schema alone lets through: each problem named with the file
and the field, all of them at once, exit 2; a sound catalogue passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.config import load_catalogue
from toolatlas.config.servers import EnvironmentSpec
from toolatlas.environments import environment_for, placeholders_for
from toolatlas.home import Home

HEAD = 'version = 1\nname = "t"\n'


def server(environment: str = "", *, args: str = '["-V"]') -> str:
    block = f'\n[[servers]]\nname = "a"\ntransport = {{ command = "python3", args = {args} }}\n'
    return block + (f"environment = {environment}\n" if environment else "")


def problems_of(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    config = tmp_path / "catalogue.toml"
    config.write_text(text)
    assert main(["validate", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolatlas: error: invalid configuration") and str(config) in err
    return err


class TestValidate:
    @pytest.mark.parametrize(
        ("text", "said"),
        [
            ("", "the file is empty"),
            (HEAD, "servers: the catalogue has no [[servers]]"),
            (HEAD + server('{ kind = "directory", snapshot = "nope" }'),
             "servers[a].environment.snapshot: no such file or folder"),
            (HEAD + server('{ kind = "directory", seed = "nope" }'), "servers[a].environment.seed: unknown seed 'nope'"),
            (HEAD + server('{ kind = "sqlite", seed = "demo.filesystem" }'), "makes a directory state, not sqlite"),
            (HEAD + server(args='["${nosuch}"]'), "servers[a].transport.args[0]: unknown placeholder ${nosuch}"),
            (HEAD + server('{ kind = "directory", seed = "demo.filesystem" }', args='["${db_path}"]'),
             "unknown placeholder ${db_path}; a directory environment fills ${home}, ${oversized_text}, ${root}"),
            (HEAD + server(args='["${root"]'), "servers[a].transport.args[0]: a placeholder is not closed"),
            (HEAD + "[build]\nrounds = 1000000000\n" + server(), "build.rounds: Input should be less than or equal to 1000"),
            ('version = 1\nname = "t"\nx = ' + "[" * 3000 + "]" * 3000 + "\n", "nested too deeply"),
        ],
    )
    def test_a_problem_is_named(self, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str) -> None:
        """Each problem the schema lets through is one line naming its field and what is wrong (exit 2)."""
        assert said in problems_of(tmp_path, text, capsys)

    def test_a_store_path_that_is_a_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A `[store] path` naming a file, not a folder, is reported on its field."""
        (tmp_path / "afile").write_text("")
        err = problems_of(tmp_path, HEAD + '[store]\npath = "afile"\n' + server(), capsys)
        assert "store.path:" in err and "is a file" in err

    def test_every_problem_at_once(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Three problems of one catalogue are listed together, one line each, not the first alone."""
        err = problems_of(tmp_path, HEAD + server('{ kind = "directory", snapshot = "nope" }', args='["${x}", "${y"]'), capsys)
        assert err.count("\n  ") == 3

    def test_the_bundled_catalogues_pass(self, repo_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """The demo, wild and postgres catalogues validate (exit 0)."""
        for name in ("demo", "wild", "postgres"):
            assert main(["validate", str(repo_root / "configs" / f"{name}.toml")]) == 0, capsys.readouterr().err


class TestDefaultAtlasFolder:
    def test_two_catalogues_in_one_folder_do_not_share_an_atlas(self, tmp_path: Path) -> None:
        """Without a `[store] path`, each catalogue's atlas is under .toolatlas/atlas/<its name> beside it."""
        for name in ("one", "two"):
            (tmp_path / f"{name}.toml").write_text(f'version = 1\nname = "{name}"\n' + server())
        one, two = (load_catalogue(tmp_path / f"{name}.toml") for name in ("one", "two"))
        assert one.atlas_dir == tmp_path / ".toolatlas" / "atlas" / "one"
        assert two.atlas_dir == tmp_path / ".toolatlas" / "atlas" / "two"

    def test_a_path_the_catalogue_gives_is_used_as_is(self, tmp_path: Path) -> None:
        """A `[store] path` is the atlas folder, relative to the catalogue file."""
        (tmp_path / "c.toml").write_text(HEAD + '[store]\npath = "here"\n' + server())
        assert load_catalogue(tmp_path / "c.toml").atlas_dir == tmp_path / "here"


@pytest.mark.parametrize(
    "environment",
    [
        '{ kind = "directory", seed = "demo.filesystem" }',
        '{ kind = "sqlite", seed = "demo.sqlite" }',
        '{ kind = "git", seed = "demo.git" }',
        '{ kind = "json_file", seed = "demo.memory", filename = "m.jsonl" }',
        '{ kind = "none" }',
        '{ kind = "command", prepare = "true", digest = "true" }',
    ],
)
def test_the_placeholders_validate_accepts_are_those_an_instance_fills(tmp_path: Path, environment: str) -> None:
    """Prepared for real, an instance of each kind fills exactly names validate knows of."""
    (tmp_path / "c.toml").write_text(HEAD + server(environment))
    catalogue = load_catalogue(tmp_path / "c.toml")
    spec: EnvironmentSpec = catalogue.servers[0].environment
    env = environment_for(spec, base_dir=tmp_path, home=Home(tmp_path / "home"))
    snapshot = env.materialise(None, getattr(spec, "seed", None), tmp_path / "snapshot")
    instance = env.prepare(snapshot, tmp_path / "slot")
    try:
        assert set(instance.variables) <= placeholders_for(spec)
        assert set(instance.variables) | {"oversized_text"} == placeholders_for(spec)
    finally:
        env.discard(instance)
