"""The task file: the demo task set is well formed and true to the demo servers; bad files are clear errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolatlas.errors import ConfigError, ToolAtlasError
from toolatlas.evaluation import DEMO_TASKS, SPLITS, EvalTask, check_tools, load_tasks

TOOLSPECS = Path(__file__).resolve().parents[1] / "offline" / "toolspecs"
"""Dumps of the demo servers' real ``tools/list``."""
DEMO_SERVERS = ("filesystem", "git", "memory", "sqlite", "time")


def demo_tool_names() -> dict[str, list[str]]:
    return {server: [t["name"] for t in json.loads((TOOLSPECS / f"{server}.json").read_text())] for server in DEMO_SERVERS}


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "tasks.toml"
    path.write_text("version = 1\n" + body)
    return path


TASK = '''
[[tasks]]
id = "{id}"
split = "{split}"
text = "Show me the recent commits."
needed = [{needed}]
'''


def task(id: str = "t1", split: str = "dev", needed: str = '"git.git_log"') -> str:
    return TASK.format(id=id, split=split, needed=needed)


class TestDemoTaskSet:
    def test_loads_both_splits(self) -> None:
        """The demo file has 70 tasks with unique ids, split evenly into dev and held."""
        tasks = load_tasks()
        assert len(tasks) == 70 and len({t.id for t in tasks}) == 70
        assert [len(load_tasks(split=s)) for s in SPLITS] == [35, 35]

    def test_needed_tools_exist_on_the_demo_servers(self) -> None:
        """Every needed tool is one the demo servers really list (their dumped tools/list)."""
        names = demo_tool_names()
        check_tools(load_tasks(), [f"{server}.{tool}" for server, tools in names.items() for tool in tools],
                    file=str(DEMO_TASKS))

    def test_requests_never_name_a_tool(self) -> None:
        """No request contains a tool's name, neither as an identifier nor spelled out in words."""
        forms = {form for tools in demo_tool_names().values() for tool in tools
                 for form in (tool.lower(), tool.lower().replace("_", " "))}
        for t in load_tasks():
            named = [form for form in forms if re.search(rf"\b{re.escape(form)}\b", t.text.lower())]
            assert not named, f"{t.id} names {named}"

    def test_boundary_tasks_exist_in_both_splits(self) -> None:
        """Both halves have tasks that run into a known boundary, and tasks that need several tools."""
        for split in SPLITS:
            tasks = load_tasks(split=split)
            assert sum(1 for t in tasks if t.boundary_hint) >= 5
            assert sum(1 for t in tasks if len(t.needed) > 1) >= 5


class TestLoading:
    def test_alternatives_and_whitespace(self, tmp_path: Path) -> None:
        """'a|b' is one need met by either tool; the text's whitespace is normalised."""
        path = write(tmp_path, task(needed='"filesystem.read_text_file | filesystem.read_file", "git.git_log"')
                     .replace("Show me the recent commits.", "Show me\\n   the   file."))
        [loaded] = load_tasks(path)
        assert loaded == EvalTask(id="t1", split="dev", text="Show me the file.",
                                  needed=(("filesystem.read_text_file", "filesystem.read_file"), ("git.git_log",)))
        assert loaded.servers == {"filesystem", "git"}

    def test_bad_split_is_a_config_error(self, tmp_path: Path) -> None:
        """A split other than dev/held is named with the task it belongs to."""
        with pytest.raises(ConfigError) as error:
            load_tasks(write(tmp_path, task(split="test")))
        assert "tasks[0] (t1).split" in str(error.value) and "'test'" in str(error.value)

    def test_duplicate_ids_are_a_config_error(self, tmp_path: Path) -> None:
        """Two tasks with one id are refused."""
        with pytest.raises(ConfigError, match="duplicate id"):
            load_tasks(write(tmp_path, task() + task(split="held")))

    @pytest.mark.parametrize("needed", ['"git_log"', '"git."', '"git.git_log|"', '"git.git log"', "", "3"])
    def test_malformed_need_is_a_config_error(self, tmp_path: Path, needed: str) -> None:
        """A need that is not 'server.tool' (each alternative too), or no need at all, is refused."""
        with pytest.raises(ConfigError, match=r"tasks\[0\] \(t1\)\.needed"):
            load_tasks(write(tmp_path, task(needed=needed)))

    def test_every_problem_is_reported_at_once(self, tmp_path: Path) -> None:
        """Problems of several tasks and fields come in one error, each with its place."""
        body = task(split="test") + '\n[[tasks]]\nsplit = "dev"\ntext = ""\nneeded = ["x.y"]\ncolour = "red"\n'
        with pytest.raises(ConfigError) as error:
            load_tasks(write(tmp_path, body))
        fields = [f for f, _ in error.value.problems]
        assert fields == ["tasks[0] (t1).split", "tasks[1].colour", "tasks[1].id", "tasks[1].text"]

    def test_unreadable_files_are_config_errors(self, tmp_path: Path) -> None:
        """A missing file, a TOML syntax error and a file without tasks are ConfigErrors (ToolAtlasErrors)."""
        for path in (tmp_path / "absent.toml", write(tmp_path, "[[tasks]\n")):
            with pytest.raises(ToolAtlasError):
                load_tasks(path)
        with pytest.raises(ConfigError, match="no \\[\\[tasks\\]\\]"):
            load_tasks(write(tmp_path, ""))

    def test_unknown_split_filter_is_refused(self, tmp_path: Path) -> None:
        """Asking for a split that does not exist is an error, not an empty list."""
        with pytest.raises(ConfigError, match="split"):
            load_tasks(write(tmp_path, task()), split="train")  # type: ignore[arg-type]

    def test_check_tools_names_the_unknown_tools(self) -> None:
        """Tasks needing tools the atlas lacks are refused, naming task and tool."""
        tasks = [EvalTask(id="a", split="dev", text="x", needed=(("git.git_log", "git.git_show"),))]
        check_tools(tasks, ["git.git_log", "git.git_show"])
        with pytest.raises(ConfigError) as error:
            check_tools(tasks, ["git.git_log"])
        assert error.value.problems == [("task a", "needs 'git.git_show', which the atlas does not have")]


class TestFailureAnnotations:
    def test_several_phrases_and_the_tools_they_are_about(self, tmp_path: Path) -> None:
        """A hint may be a list of phrases, limited to the tools it is about, with the failure in words."""
        body = TASK.format(id="t1", split="dev", needed='"fs.write"') + (
            'failure = "writing into a folder that is not there yet"\n'
            'boundary_hint = ["parent", "does not exist"]\nboundary_tools = ["fs.write"]\n')
        [loaded] = load_tasks(write(tmp_path, body))
        assert loaded.boundary_phrases == ("parent", "does not exist") and loaded.boundary_tools == ("fs.write",)
        assert loaded.failure == "writing into a folder that is not there yet"

    def test_tools_without_a_hint_or_not_tool_names_are_errors(self, tmp_path: Path) -> None:
        """boundary_tools needs a hint, and names tools as server.tool; an empty phrase list is refused."""
        base = TASK.format(id="t1", split="dev", needed='"fs.write"')
        with pytest.raises(ConfigError, match="without a boundary_hint"):
            load_tasks(write(tmp_path, base + 'boundary_tools = ["fs.write"]\n'))
        with pytest.raises(ConfigError, match="server.tool"):
            load_tasks(write(tmp_path, base + 'boundary_hint = "x"\nboundary_tools = ["write"]\n'))
        with pytest.raises(ConfigError, match="boundary_hint"):
            load_tasks(write(tmp_path, base + "boundary_hint = []\n"))
