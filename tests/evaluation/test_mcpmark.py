"""The MCPMark importer on a small checkout in MCPMark's format, written here: discovery by instance,
unavailable tasks with their reasons, annotations joined, and initial directories laid out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolatlas.errors import ConfigError
from toolatlas.evaluation.mcpmark import (
    ANNOTATIONS,
    CHECKOUT_ENV,
    TEST_ROOT_ENV,
    discover,
    evaluation_tasks,
    locate_checkout,
    materialise_states,
    parse_tree,
)

TREE = "notes/\n    ├── a.txt\n    ├── drafts/\n    │       ├── b.txt\n    │       └── old/\n    └── c.md"


def task_folder(root: Path, level: str, instance: str, name: str, *, files=("description.md", "meta.json", "verify.py"),
                tree: str = TREE) -> Path:
    folder = root / "tasks" / "filesystem" / level / instance / name
    folder.mkdir(parents=True)
    if "description.md" in files:
        (folder / "description.md").write_text(f"# {name}\nMove a.txt into a new folder named done.\n")
    if "meta.json" in files:
        (folder / "meta.json").write_text(json.dumps({"task_id": name, "category_id": instance,
                                                      "meta_data": {"stateType": "text", "stateContent": tree}}))
    if "verify.py" in files:
        (folder / "verify.py").write_text("import sys\nsys.exit(0)\n")
    return folder


@pytest.fixture()
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "mcpmark"
    task_folder(root, "standard", "file_context", "tidy")
    task_folder(root, "easy", "file_context", "tidy")
    task_folder(root, "standard", "file_property", "broken", files=("description.md", "meta.json"))
    task_folder(root, "standard", "desktop", "secret")  # a held-out instance: never to be read
    return root


def annotations(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "notes.toml"
    path.write_text('version = 1\nserver = "fs"\n' + body)
    return path


ANNOTATED = '''
[[tasks]]
key = "standard/file_context/tidy"
needed = ["create_directory", "move_file|write_file"]
failure = "moving into done/ before it exists"
boundary_hint = ["parent", "does not exist"]
boundary_tools = ["move_file"]
'''


class TestDiscovery:
    def test_only_the_named_instances_are_read(self, checkout: Path) -> None:
        """Development instances are found at both levels; a held-out instance is never opened."""
        tasks = discover(checkout)
        assert [t.key for t in tasks] == ["easy/file_context/tidy", "standard/file_context/tidy",
                                          "standard/file_property/broken"]
        assert tasks[1].instruction.startswith("# tidy") and tasks[1].tree == TREE

    def test_missing_files_are_reported(self, checkout: Path) -> None:
        """A task folder without its verifier is found, with what it lacks."""
        broken = next(t for t in discover(checkout) if t.key.endswith("broken"))
        assert broken.missing == ("verify.py",)

    def test_checkout_from_the_environment_and_clear_errors(self, checkout: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
        """The checkout comes from $TOOLATLAS_MCPMARK when not given; no checkout or a folder that is not
        one is a ConfigError naming the way to give it."""
        monkeypatch.setenv(CHECKOUT_ENV, str(checkout))
        assert locate_checkout() == checkout.resolve()
        monkeypatch.delenv(CHECKOUT_ENV)
        with pytest.raises(ConfigError, match="--mcpmark PATH"):
            locate_checkout()
        with pytest.raises(ConfigError, match="no tasks/ folder"):
            locate_checkout(tmp_path)


class TestEvaluationTasks:
    def test_annotated_tasks_become_eval_tasks(self, checkout: Path, tmp_path: Path) -> None:
        """The instruction is the request; needs and the failure come from the annotation, qualified by its server."""
        ready, unavailable = evaluation_tasks(discover(checkout), annotations(tmp_path, ANNOTATED))
        [task] = ready
        assert task.id == "standard/file_context/tidy" and "Move a.txt into a new folder" in task.text
        assert task.needed == (("fs.create_directory",), ("fs.move_file", "fs.write_file"))
        assert task.boundary_phrases == ("parent", "does not exist") and task.boundary_tools == ("fs.move_file",)
        reasons = {u.key: u.reasons for u in unavailable}
        assert reasons["standard/file_property/broken"] == ("missing verify.py",
                                                           "no annotation (needed tools and likely failure)")
        assert reasons["easy/file_context/tidy"] == ("no annotation (needed tools and likely failure)",)

    def test_a_task_without_any_initial_state_is_unavailable(self, checkout: Path, tmp_path: Path) -> None:
        """No test environment and no tree in meta.json: the task cannot be evaluated, and says why."""
        bare = task_folder(checkout, "standard", "threestudio", "bare", tree="")
        body = ANNOTATED.replace("standard/file_context/tidy", "standard/threestudio/bare")
        ready, unavailable = evaluation_tasks(discover(checkout), annotations(tmp_path, body))
        assert not ready and bare.name in {u.key.rsplit("/", 1)[1] for u in unavailable}
        assert any("no initial state" in r for u in unavailable for r in u.reasons)

    def test_a_malformed_annotation_is_a_clear_error(self, checkout: Path, tmp_path: Path) -> None:
        """A need that is not a tool name is reported with the task's key."""
        body = ANNOTATED.replace('"create_directory"', '"create directory"')
        with pytest.raises(ConfigError, match="standard/file_context/tidy"):
            evaluation_tasks(discover(checkout), annotations(tmp_path, body))

    def test_the_shipped_annotations_cover_the_development_tasks(self) -> None:
        """Our annotation file parses, names only development instances, and every task needs the root first."""
        from toolatlas.evaluation.mcpmark import DEVELOPMENT_INSTANCES, _load_annotations

        notes = _load_annotations(ANNOTATIONS)
        assert len(notes.tasks) == 20 and notes.server == "filesystem"
        assert {key.split("/")[1] for key in notes.tasks} == set(DEVELOPMENT_INSTANCES)
        assert all(row["needed"][0] == "list_allowed_directories" for row in notes.tasks.values())


class TestStates:
    def test_tree_listing(self) -> None:
        """A tree listing gives paths relative to its root, directories marked."""
        assert parse_tree(TREE) == [("a.txt", False), ("drafts", True), ("drafts/b.txt", False),
                                    ("drafts/old", True), ("c.md", False)]

    def test_a_present_test_environment_is_copied(self, checkout: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
        """With $FILESYSTEM_TEST_ROOT pointing at the real environments, an instance is copied as it is;
        without one, its tree is rebuilt with placeholder contents."""
        real = tmp_path / "envs" / "file_context"
        real.mkdir(parents=True)
        (real / "a.txt").write_text("the real content")
        monkeypatch.setenv(TEST_ROOT_ENV, str(tmp_path / "envs"))
        tasks = discover(checkout)
        sources = materialise_states(tasks, tmp_path / "states")
        assert sources == {"file_context": "test environment", "file_property": "tree listing"}
        assert (tmp_path / "states" / "file_context" / "a.txt").read_text() == "the real content"
        assert (tmp_path / "states" / "file_property" / "drafts" / "old").is_dir()
        assert (tmp_path / "states" / "file_property" / "drafts" / "b.txt").read_text().startswith("placeholder")
