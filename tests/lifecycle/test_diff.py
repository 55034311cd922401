"""``toolatlas diff`` on real atlases: a real server at two releases, each built by the offline
engine over stdio and exported; what the release changed is reported and regressions fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.lifecycle import ChangeKind, diff_atlases, load_export
from toolatlas.testing.releases import RELEASE_2_CHANGES, release_catalogue

pytestmark = pytest.mark.servers


def exported(config: Path) -> Path:
    """The atlas of the catalogue ``config`` exported beside it."""
    export = config.parent / "atlas-export.json"
    assert main(["export", str(config), "-o", str(export)]) == 0
    return export


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory, built_release) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    """Release 1's atlas (the bootstrap-only build that the CLI, trust and admission tests share), a second
    build of release 1 of its own, and release 2's, each a bootstrap of one rollout per seed task, exported:
    what a release changed is what its tools and their verified uses and failures say, not how often a use
    was seen."""
    root = tmp_path_factory.mktemp("releases")
    again = release_catalogue(root / "v1-again", 1, rounds=0, rollouts=1, executors=2)  # as built_release builds
    assert main(["build", str(again), "--engine", "asyncio"]) == 0
    return {
        "v1": exported(built_release(root / "v1", rounds=0, rollouts=1)),
        "v1-again": exported(again),
        "v2": exported(built_release(root / "v2", 2, rounds=0, rollouts=1)),
    }


def changes_of(exports: dict[str, Path], old: str, new: str) -> list[tuple[ChangeKind, str | None]]:
    diff = diff_atlases(load_export(exports[old]), load_export(exports[new]))
    return [(change.kind, change.tool) for change in diff.changes]


class TestARelease:
    def test_what_the_release_changed_is_reported(self, exports: dict[str, Path]) -> None:
        """Removed and added tools, the changed schema and the use that now fails, each on its tool."""
        diff = diff_atlases(load_export(exports["v1"]), load_export(exports["v2"]))
        assert RELEASE_2_CHANGES <= {(change.kind.value, change.tool) for change in diff.changes}
        (schema,) = [c for c in diff.changes if c.kind is ChangeKind.SCHEMA_CHANGED]
        assert schema.text == "argument(s) added: tags" and schema.before != schema.after
        failing = next(c for c in diff.changes if c.kind is ChangeKind.VALID_USE_FAILS)
        assert failing.after is not None and "longer than" in failing.after
        assert {c.tool for c in diff.regressions} == {"export_all", "shout"}

    def test_a_tool_the_release_left_alone_has_no_change(self, exports: dict[str, Path]) -> None:
        """count_notes is the same in both releases: nothing is said about it; get_note's fixed bug
        (id 0) is no regression, whether or not a probe met it."""
        changes = diff_atlases(load_export(exports["v1"]), load_export(exports["v2"])).changes
        assert [c for c in changes if c.tool == "count_notes"] == []
        assert [c for c in changes if c.tool == "get_note" and c.regression] == []

    def test_two_builds_of_one_release_have_no_difference(self, exports: dict[str, Path]) -> None:
        assert changes_of(exports, "v1", "v1-again") == []


class TestTheCommand:
    def test_exit_status_says_whether_anything_regressed(
        self, exports: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        assert main(["diff", str(exports["v1"]), str(exports["v1-again"])]) == 0
        assert capsys.readouterr().out.strip().endswith("no changes")
        assert main(["diff", str(exports["v1"]), str(exports["v2"])]) == 1
        text = capsys.readouterr().out
        assert "- tool_removed          export_all: removed" in text and "[regression]" in text
        assert main(["diff", str(exports["v2"]), str(exports["v1"])]) == 1  # back: search_notes is gone
        assert "search_notes: removed" in capsys.readouterr().out

    def test_markdown_and_json(self, exports: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
        """Markdown for a pull-request comment; JSON with the same changes and the regression count."""
        assert main(["diff", str(exports["v1"]), str(exports["v2"]), "--format", "markdown"]) == 1
        markdown = capsys.readouterr().out
        assert "#### `versioned`" in markdown
        assert "| ⚠️ regression | tool_removed | `export_all` |" in markdown
        assert main(["diff", str(exports["v1"]), str(exports["v2"]), "--format", "json"]) == 1
        document = json.loads(capsys.readouterr().out)
        regressions = [c for c in document["changes"] if c["regression"]]
        assert document["regressions"] == len(regressions) > 0
        assert {"kind": "tool_added", "tool": "search_notes"}.items() <= next(
            c for c in document["changes"] if c["kind"] == "tool_added").items()

    def test_a_file_that_is_no_export_is_a_usage_error(
        self, exports: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        wrong = tmp_path / "wrong.json"
        wrong.write_text('{"schema": "toolatlas.atlas/v1"}')
        assert main(["diff", str(wrong), str(exports["v1"])]) == 2
        assert f"{wrong}: not an atlas export: catalogue: Field required" in capsys.readouterr().err
        assert main(["diff", str(tmp_path / "absent.json"), str(exports["v1"])]) == 2
        assert "absent.json: no such file" in capsys.readouterr().err
