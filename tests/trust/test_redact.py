"""``toolatlas export --redact``: an atlas built on private data, published without it. The filesystem
server reads files that hold an e-mail address, a host, an address, credentials, an absolute path and
a term the catalogue lists; the redacted export holds none of them, says the same things with
placeholders, and loads whole (its texts still quote their evidence)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.guidance import Atlas
from toolatlas.trust.redact import Redactor

pytestmark = pytest.mark.servers

PRIVATE = {
    "email": "alice.liddell@example.com",
    "host": "db01.acme.internal",
    "address": "10.20.30.40",
    "secret": "AKIAIOSFODNN7EXAMPLE",
    "keyed": "hunter2hunter2",
    "path": "/home/alice/payroll/2026.xlsx",
    "listed": "Project Falcon",
}

CATALOGUE = """version = 1
name = "private"

[build]
rounds = 1

[store]
backend = "edge"
path = "atlas"

[trust]
redact = ["Project Falcon"]

[[servers]]
name = "files"
runtime = {{ kind = "npm", package = "@modelcontextprotocol/server-filesystem", version = "2026.8.31" }}
transport = {{ args = ["${{root}}"] }}
environment = {{ kind = "directory", snapshot = "{snapshot}" }}
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("private")
    notes = folder / "state"
    notes.mkdir()
    (notes / "contacts.md").write_text(
        f"# {PRIVATE['listed']}\nOwner: {PRIVATE['email']}\nDatabase: {PRIVATE['host']} ({PRIVATE['address']})\n"
        f"aws_key = {PRIVATE['secret']}\npassword={PRIVATE['keyed']}\nSheet: {PRIVATE['path']}\n")
    (notes / "todo.txt").write_text(f"ask {PRIVATE['email']} about {PRIVATE['listed']}\n")
    config = folder / "private.toml"
    config.write_text(CATALOGUE.format(snapshot=notes))
    assert main(["build", str(config), "--engine", "asyncio"]) == 0
    assert main(["export", str(config), "-o", str(folder / "plain.json")]) == 0
    assert main(["export", str(config), "--redact", "-o", str(folder / "redacted.json")]) == 0
    return {"plain": folder / "plain.json", "redacted": folder / "redacted.json"}


class TestRedaction:
    def test_the_plain_export_holds_the_private_values(self, exported: dict[str, Path]) -> None:
        """What redaction has to remove is really there: the atlas read those files."""
        text = exported["plain"].read_text()
        assert sum(value in text for value in PRIVATE.values()) >= 5

    def test_the_redacted_export_holds_none_of_them(self, exported: dict[str, Path]) -> None:
        text = exported["redacted"].read_text()
        assert [value for value in PRIVATE.values() if value in text] == []
        assert "<redacted:email:1>" in text and "<redacted:private:1>" in text

    def test_a_server_s_lexicon_goes_whole(self, exported: dict[str, Path]) -> None:
        """The words the server's answers said are in the plain export and none of them in the redacted one."""
        def lexicon(name: str) -> list[str]:
            return json.loads(exported[name].read_text())["servers"][0]["lexicon"]

        assert "falcon" in lexicon("plain") and lexicon("redacted") == []

    def test_it_still_loads_whole_and_serves_the_same_entries(self, exported: dict[str, Path]) -> None:
        plain, redacted = Atlas.from_export(exported["plain"]), Atlas.from_export(exported["redacted"])
        assert redacted.load_report is not None and redacted.load_report.dropped == []
        assert redacted.view.entries.keys() == plain.view.entries.keys()
        tools = json.loads(exported["redacted"].read_text())["servers"][0]["tools"]
        assert {t["name"] for t in tools} == {t["name"] for t in json.loads(exported["plain"].read_text())["servers"][0]["tools"]}


class TestTheRedactor:
    def test_one_value_one_placeholder_and_sandbox_placeholders_kept(self) -> None:
        redactor = Redactor()
        first = redactor.text("open '/srv/data/a.csv' failed; ${root}/notes.md is fine")
        again = redactor.text("retry /srv/data/a.csv")
        assert first == "open '<redacted:path:1>' failed; ${root}/notes.md is fine"
        assert again == "retry <redacted:path:1>"

    def test_ordinary_text_is_left_alone(self) -> None:
        text = "50 km/s and/or 3/4 of version 1.2.3 in notes.txt"
        assert Redactor().text(text) == text
