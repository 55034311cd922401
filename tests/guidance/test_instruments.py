"""The instrument a request names: a language given as the means of the work goes to the tool that runs it."""

from __future__ import annotations

from toolatlas.guidance import Atlas, AtlasView
from toolatlas.guidance.instruments import languages, named_instruments

from .conftest import node


def workshop() -> AtlasView:
    """A folder server that lists and reads files, and an interpreter that runs Python code or a Python file."""
    return AtlasView([
        node("files", "list_files", "List the files of a directory.", ("path",), read_only=True),
        node("files", "read_file", "Read the text of a file.", ("path",), read_only=True),
        node("python", "run_code", "Execute Python code in a persistent session.", ("code",), read_only=False),
        node("python", "run_file", "Execute a Python file inside the session.", ("file_path",), read_only=False),
    ], [], [], [])


class TestLanguages:
    def test_the_language_a_tool_runs_is_read_from_its_purpose(self) -> None:
        """The capitalised words between "execute"/"run" and what is run are its languages; a purpose that runs
        nothing named has none."""
        assert languages("Execute Python code with a PERSISTENT namespace.") == {"python"}
        assert languages("Execute a read-only SQL SELECT query against the data.") == {"sql", "select"}
        assert languages("Run a single SQL statement against the database.") == {"sql"}
        assert languages("Calculates/evaluates the given expression.") == frozenset()
        assert languages("List the files of a directory.") == frozenset()

    def test_a_request_names_a_language_as_its_instrument(self) -> None:
        """"Use Python to …", "In Python, …" name the instrument; a language merely mentioned as a topic does not."""
        runners = {("python", "run_code"): frozenset({"python"})}
        assert named_instruments("Use Python to list the files here.", runners) == [("python", "run_code")]
        assert named_instruments("In Python, add up the squares below 100.", runners) == [("python", "run_code")]
        assert named_instruments("List the Python files here.", runners) == []


class TestInstrumentPlans:
    def test_the_runner_of_the_named_language_does_the_work(self) -> None:
        """"Use Python to list the files": the code runner is planned first and the folder's lister is not, while
        the same request without the instrument plans the lister."""
        atlas = Atlas(workshop())
        plan = [s.tool for s in atlas.guide("Use Python to list the files of the working directory.").plan]
        assert plan[0] == "python.run_code" and "files.list_files" not in plan
        plain = [s.tool for s in atlas.guide("List the files of the working directory.").plan]
        assert plain[0] == "files.list_files" and "python.run_code" not in plain

    def test_a_runner_of_files_needs_a_file_named(self) -> None:
        """The runner of Python files is the instrument only of a request that names a file."""
        atlas = Atlas(workshop())
        assert atlas.guide("In Python, add up the squares of every integer below 1000.").plan[0].tool == "python.run_code"
        assert atlas.guide("Use Python to run report.py.").plan[0].tool == "python.run_file"
