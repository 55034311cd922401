"""Read-backs: the marker a write leaves for a read to show, and the rows an answer holds, whatever its shape."""

from __future__ import annotations

from toolatlas.offline.kinds import ArgSpec
from toolatlas.offline.readback import marker_for, sql_read_back, written_markers
from toolatlas.offline.rows import parse_rows
from toolatlas.offline.values import PlannedCall
from toolatlas.probing.values import ArgKind


def spec(name: str, kind: ArgKind) -> ArgSpec:
    return ArgSpec(name=name, path=name, json_type="string", kind=kind)


class TestMarkers:
    def test_new_path_and_text(self) -> None:
        """A new file's tagged name part, and the first line of what was written."""
        call = PlannedCall(tool="write_file", variant=0,
                           arguments={"path": "${root}/docs/probe_ab12/nested", "content": "# Probe note ab12\n\nbody"},
                           fresh_values={"path": ["${root}/docs/probe_ab12/nested"]})
        found = written_markers(call, [spec("path", ArgKind.NEW_PATH), spec("content", ArgKind.TEXT)])
        assert found == {"names": ["probe_ab12"], "texts": ["Probe note ab12"], "rows": []}
        assert marker_for(found, {"path": "${root}/docs/probe_ab12/nested"}) == "Probe note ab12"  # reads it
        assert marker_for(found, {"path": "${root}/docs"}) == "probe_ab12"  # lists its folder

    def test_inserted_row(self) -> None:
        """An INSERT is read back by a SELECT on its most distinctive string, which is the marker."""
        statement = "INSERT INTO customers (email, name, country) VALUES ('probe.ab12@example.com', 'Ada', 'GB')"
        assert sql_read_back(statement) == (
            "SELECT * FROM customers WHERE email = 'probe.ab12@example.com'", "probe.ab12@example.com")
        assert sql_read_back("UPDATE t SET a = 1") is None


class TestRows:
    def test_python_repr_and_json(self) -> None:
        """A repr of dicts (Python servers) and JSON (with a rows key) give the same rows."""
        assert parse_rows("[{'name': 'a', 'n': 1}]") == [{"name": "a", "n": 1}]
        assert parse_rows('{"rows": [{"name": "a", "n": 1}]}') == [{"name": "a", "n": 1}]
        assert parse_rows("", {"columns": ["name", "n"], "rows": [["a", 1]]}) == [{"name": "a", "n": 1}]

    def test_markdown_and_csv(self) -> None:
        """A Markdown table and CSV text with a header line are tables too."""
        markdown = "| name | n |\n|---|---|\n| a | 1 |\n| b | NULL |"
        assert parse_rows(markdown) == [{"name": "a", "n": 1}, {"name": "b", "n": None}]
        assert parse_rows("name,n\na,1\n") == [{"name": "a", "n": 1}]

    def test_no_table(self) -> None:
        """Prose and errors hold no rows."""
        assert parse_rows("Error: no such table: x") == []
        assert parse_rows("Table created successfully") == []
