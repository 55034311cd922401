"""The pieces of the task side that need no server: tool-name screening, documentation snippets,
the catalogue's ``docs`` field, and assertions on a hand-made state."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolatlas.config import ServerSpec, parse_catalogue
from toolatlas.environments import FrozenState
from toolatlas.errors import ConfigError
from toolatlas.offline.facts import EnvironmentFacts, git_staged_files
from toolatlas.tasks.assertions import check_assertions
from toolatlas.tasks.chains import _git_evidence
from toolatlas.tasks.context import render_environment
from toolatlas.tasks.docs import UsageDocs
from toolatlas.tasks.models import StateAssertion
from toolatlas.tasks.vetting import named_tools
from toolatlas.testing.git import run_git

TOOLS = ["read_file", "gitAdd", "list-tables", "search"]


class TestNamedTools:
    def test_compound_names_count_anywhere_in_any_case(self) -> None:
        """snake_case, camelCase and kebab-case names are tool names wherever they appear."""
        assert named_tools("Please READ_FILE the notes", TOOLS) == ["read_file"]
        assert named_tools("then gitadd everything and list-tables", TOOLS) == ["gitAdd", "list-tables"]

    def test_a_plain_word_counts_only_in_code_form(self) -> None:
        """'search' as prose is a word; `search` or search( is the tool."""
        assert named_tools("Search the docs for the word 'price'.", TOOLS) == []
        assert named_tools("Call `search` on the docs.", TOOLS) == ["search"]
        assert named_tools("Run search(query='x') please", TOOLS) == ["search"]

    def test_a_name_inside_a_longer_identifier_does_not_count(self) -> None:
        assert named_tools("Open notes/read_files_later.txt", TOOLS) == []


DOC = (
    """# Demo server

Intro paragraph that names no tool.

### `read_file`

Reads one file. Example:

```json
{"path": "a.txt"}

{"path": "b.txt"}
```

An unrelated paragraph.

Another paragraph that mentions read_file again, at length: """
    + "x" * 900
)


class TestUsageDocs:
    def test_snippets_are_the_blocks_that_name_the_tool_bounded(self, tmp_path: Path) -> None:
        """A short heading brings the block after it; a fenced block stays whole; long blocks are cut."""
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "server.md").write_text(DOC)
        docs = UsageDocs.load(
            ServerSpec(name="demo", transport={"command": "x"}, docs=["docs/*.md"]), tmp_path
        )
        snippets = docs.snippets("read_file")
        assert [s.text for s in snippets[:2]] == ["### `read_file`", "Reads one file. Example:"]
        assert len(snippets) == 3 and snippets[2].text.startswith("Another paragraph that mentions read_file")
        assert snippets[2].text.endswith("…") and len(snippets[2].text) == 700
        assert sum(len(s.text) for s in docs.snippets("read_file", max_chars=300)) <= 300
        assert docs.snippets("write_file") == []
        assert all(s.source == "server.md" for s in snippets)

    def test_a_code_fence_with_blank_lines_is_one_block(self, tmp_path: Path) -> None:
        (tmp_path / "a.md").write_text("```\nread_file a\n\nread_file b\n```\n")
        docs = UsageDocs.load(ServerSpec(name="demo", transport={"command": "x"}, docs=["a.md"]), tmp_path)
        (snippet,) = docs.snippets("read_file")
        assert snippet.text == "```\nread_file a\n\nread_file b\n```"

    def test_a_pattern_that_matches_nothing_is_a_config_error(self, tmp_path: Path) -> None:
        spec = ServerSpec(name="demo", transport={"command": "x"}, docs=["missing/*.md", "also-missing.md"])
        with pytest.raises(ConfigError, match=r"servers\[demo\]\.docs\[0\].*matches no file") as caught:
            UsageDocs.load(spec, tmp_path)
        assert [field for field, _ in caught.value.problems] == [
            "servers[demo].docs[0]",
            "servers[demo].docs[1]",
        ]

    def test_the_catalogue_accepts_docs_per_server(self) -> None:
        catalogue = parse_catalogue(
            {
                "servers": [
                    {"name": "demo", "transport": {"command": "x"}, "docs": ["README.md", "docs/**/*.md"]}
                ]
            }
        )
        assert catalogue.server("demo").docs == ["README.md", "docs/**/*.md"]
        assert (
            parse_catalogue({"servers": [{"name": "bare", "transport": {"command": "x"}}]})
            .server("bare")
            .docs
            == []
        )


class TestAssertionsOnAHandMadeState:
    def test_each_kind_passes_and_fails_for_the_right_reason(self, tmp_path: Path) -> None:
        root = tmp_path / "root"
        (root / "notes").mkdir(parents=True)
        (root / "notes" / "a.txt").write_text("first line\n  second   line\n")
        state = FrozenState(kind="directory", instance_id="x", path=str(root))
        checks = [
            StateAssertion(kind="file_exists", target="notes/a.txt"),
            StateAssertion(kind="file_absent", target="notes/b.txt"),
            StateAssertion(kind="file_contains", target="notes/a.txt", expected="second line"),
            StateAssertion(kind="answer_contains", expected="Second  LINE"),
            StateAssertion(kind="file_contains", target="notes/a.txt", expected="third line"),
            StateAssertion(kind="file_exists", target="../outside.txt"),
            StateAssertion(kind="query_rows", target="SELECT 1", expected=[]),
            StateAssertion(kind="git_head_subject", expected="anything"),
        ]
        results = check_assertions(checks, state, answer="the second line")
        assert [r.passed for r in results] == [True, True, True, True, False, False, False, False]
        assert "lacks 'third line'" in results[4].detail
        assert "outside the state" in results[5].detail
        assert "needs a sqlite state" in results[6].detail


class TestGitEvidenceOnHandMadeRepositories:
    def test_new_branches_the_checked_out_branch_and_staged_paths_are_asserted(self, tmp_path: Path) -> None:
        """A chain that only creates a branch, checks one out or stages files (no new commit) still has
        something to assert: each assertion holds on the state after and fails on the state before."""
        before = tmp_path / "before"
        before.mkdir()
        run_git(before, "init", "-q", "-b", "main")
        (before / "README.md").write_text("hello\n")
        run_git(before, "add", "README.md")
        run_git(before, "commit", "-q", "-m", "first")
        run_git(before, "branch", "old")
        after = tmp_path / "after"
        shutil.copytree(before, after, symlinks=True)
        run_git(after, "branch", "feature-x")
        run_git(after, "checkout", "-q", "old")
        (after / "README.md").write_text("hello again\n")
        (after / "new.txt").write_text("new\n")
        run_git(after, "add", "README.md", "new.txt")

        evidence = _git_evidence(before, after)
        assert [(a.kind, a.target, a.expected) for a in evidence.assertions] == [
            ("git_branch_exists", "feature-x", None),
            ("git_current_branch", "", "old"),
            ("git_staged", "README.md", None),
            ("git_staged", "new.txt", None),
        ]
        assert evidence.must_state == ["feature-x", "old", "README.md", "new.txt"]
        state_after = FrozenState(kind="git", instance_id="a", path=str(after))
        state_before = FrozenState(kind="git", instance_id="b", path=str(before))
        assert all(r.passed for r in check_assertions(evidence.assertions, state_after))
        failed = check_assertions(evidence.assertions, state_before)
        assert not any(r.passed for r in failed)
        assert [r.detail for r in failed] == [
            "there is no branch 'feature-x'",
            "the branch checked out is 'main', expected 'old'",
            "README.md is not staged",
            "new.txt is not staged",
        ]
        on_a_folder = check_assertions(evidence.assertions[:1], FrozenState(kind="directory", instance_id="c", path=str(after)))
        assert "needs a git state" in on_a_folder[0].detail

    def test_a_repository_without_commits_stages_everything_in_its_index(self, tmp_path: Path) -> None:
        repo = tmp_path / "repo"
        repo.mkdir()
        run_git(repo, "init", "-q", "-b", "main")
        (repo / "a.txt").write_text("a\n")
        run_git(repo, "add", "a.txt")
        assert git_staged_files(repo) == ["a.txt"]


class TestEnvironmentText:
    def test_a_stateless_server_says_so(self) -> None:
        assert render_environment(EnvironmentFacts(kind="none")).startswith("No persistent state")
