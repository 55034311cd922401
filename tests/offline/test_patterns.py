"""The shortest text a pattern an error quotes matches: a value the server's own check accepts."""

from __future__ import annotations

import re

import pytest

from toolatlas.offline.hints import error_values
from toolatlas.offline.patterns import shortest_match


class TestShortestMatch:
    @pytest.mark.parametrize("pattern", [r"---\n(.*)\n---", r"^[a-z]{2,3}\d+(foo|bar)?$", r"[^abc]+",
                                         r"\w+@\w+\.com", r"#[0-9a-f]{6}", r"(?:ab|cd)*x"])
    def test_the_text_built_matches_the_pattern_whole(self, pattern: str) -> None:
        """Every text built is a whole match of its pattern."""
        text = shortest_match(pattern)
        assert text is not None and re.fullmatch(pattern, text)

    def test_repeats_take_their_least_count_and_groups_stay_empty(self) -> None:
        """A fenced block with anything inside is the two fences and nothing between them."""
        assert shortest_match(r"---\n(.*)\n---") == "---\n\n---"

    def test_what_cannot_be_honoured_gives_nothing(self) -> None:
        """A look-ahead, a back-reference or a pattern that does not compile builds no value."""
        assert shortest_match(r"(?=x)y") is None and shortest_match(r"(a)\1") is None and shortest_match("(") is None


class TestQuotedPatterns:
    def test_an_error_that_quotes_a_pattern_names_its_shortest_match(self) -> None:
        """`X doesn't match '<pattern>'` names a value for X: the pattern's shortest match."""
        [named] = error_values("Error calling tool 'write': YAML frontmatter doesn't match '---\\n(.*)\\n---'")
        assert named.values == ["---\n\n---"] and named.noun == "yaml frontmatter"
