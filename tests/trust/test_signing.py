"""Signed exports: a round trip is served; one changed character, another key, or no signature at all
is refused with an error that says which — through the library, the CLI and the serving snapshot."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.errors import TrustError
from toolatlas.guidance import Atlas
from toolatlas.serve.runner import shared_snapshot
from toolatlas.trust import generate_keys, sign_document, verify_document

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory, built_release) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("signed")
    config = built_release(folder, rounds=0, rollouts=1)
    assert main(["keygen", "-o", str(folder / "provider")]) == 0
    assert main(["keygen", "-o", str(folder / "stranger")]) == 0
    assert main(["export", str(config), "-o", str(folder / "signed.json"), "--sign", str(folder / "provider")]) == 0
    assert main(["export", str(config), "-o", str(folder / "unsigned.json")]) == 0
    return {"signed": folder / "signed.json", "unsigned": folder / "unsigned.json",
            "key": folder / "provider.pub", "stranger": folder / "stranger.pub", "private": folder / "provider"}


def flipped(path: Path, tmp_path: Path) -> Path:
    """The file with one character of one entry's text changed."""
    text = path.read_text()
    at = text.index("works given")
    changed = tmp_path / "changed.json"
    changed.write_text(text[:at] + "W" + text[at + 1:])
    return changed


class TestSignatures:
    def test_the_private_key_is_its_owners_only(self, signed: dict[str, Path]) -> None:
        assert os.stat(signed["private"]).st_mode & 0o077 == 0
        with pytest.raises(TrustError, match="does not overwrite"):
            generate_keys(signed["private"])

    def test_a_signed_export_round_trips(self, signed: dict[str, Path]) -> None:
        atlas = Atlas.from_export(signed["signed"], trusted=[signed["key"]])
        assert atlas.servers == ["versioned"] and atlas.view.entries
        document = json.loads(signed["signed"].read_text())
        assert document["signature"]["algorithm"] == "ed25519"
        assert verify_document(document, [signed["stranger"], signed["key"]]) == document["signature"]["key"]

    def test_one_changed_character_is_refused(self, signed: dict[str, Path], tmp_path: Path) -> None:
        with pytest.raises(TrustError, match="changed after it was signed"):
            Atlas.from_export(flipped(signed["signed"], tmp_path), trusted=[signed["key"]])

    def test_another_key_is_refused(self, signed: dict[str, Path]) -> None:
        with pytest.raises(TrustError, match="which is not trusted"):
            Atlas.from_export(signed["signed"], trusted=[signed["stranger"]])

    def test_an_unsigned_export_is_refused_when_a_key_is_required(self, signed: dict[str, Path]) -> None:
        with pytest.raises(TrustError, match="is not signed"):
            Atlas.from_export(signed["unsigned"], trusted=[signed["key"]])
        assert Atlas.from_export(signed["unsigned"]).view.entries  # without --trust, any export loads

    def test_resigning_replaces_the_signature(self, signed: dict[str, Path]) -> None:
        document = json.loads(signed["signed"].read_text())
        again = sign_document(document, signed["private"])
        assert set(again) == set(document) and verify_document(again, [signed["key"]])


class TestCommands:
    def test_guide_refuses_a_changed_file_naming_the_signature(
        self, signed: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        changed = flipped(signed["signed"], tmp_path)
        assert main(["guide", "shout", "--atlas", str(changed), "--trust", str(signed["key"])]) == 2
        assert "the signature of key sha256:" in capsys.readouterr().err
        assert main(["guide", "shout", "--atlas", str(signed["signed"]), "--trust", str(signed["key"])]) == 0

    def test_trust_without_an_export_is_a_usage_error(
        self, signed: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        for command in (["guide", "shout"], ["serve", "configs/demo.toml"], ["proxy", "configs/demo.toml", "--server", "memory"]):
            assert main([*command, "--trust", str(signed["key"])]) == 2
            assert "give the export" in capsys.readouterr().err

    def test_the_serving_snapshot_is_the_file_as_verified(self, signed: dict[str, Path], tmp_path: Path) -> None:
        """Every replica loads a copy taken when the signature was checked, not the file itself."""
        with shared_snapshot(atlas=signed["signed"], trusted=[signed["key"]]) as snapshot:
            assert snapshot != signed["signed"].resolve()
            assert Atlas.from_export(snapshot).view.entries.keys() == Atlas.from_export(signed["signed"]).view.entries.keys()
        with pytest.raises(TrustError), shared_snapshot(atlas=flipped(signed["signed"], tmp_path), trusted=[signed["key"]]):
            pass


class TestTheCatalogueTrustSection:
    def test_its_keys_require_a_signature_of_every_export_loaded_for_it(
        self, signed: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`[trust] keys` does for a deployment what --trust does for one command."""
        config = tmp_path / "deployment.toml"
        config.write_text(f'version = 1\nname = "deployment"\n\n[trust]\nkeys = ["{signed["key"]}"]\n')
        assert main(["guide", "shout", "--config", str(config), "--atlas", str(signed["unsigned"])]) == 2
        assert "is not signed" in capsys.readouterr().err
        assert main(["guide", "shout", "--config", str(config), "--atlas", str(signed["signed"])]) == 0

    def test_a_key_that_is_not_there_is_named_by_validate(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        config = tmp_path / "deployment.toml"
        config.write_text('version = 1\nname = "deployment"\n\n[trust]\nkeys = ["keys/missing.pub"]\n\n'
                          '[[servers]]\nname = "s"\ntransport = { command = "true" }\n')
        assert main(["validate", str(config)]) == 2
        assert "trust.keys[0]" in capsys.readouterr().err
