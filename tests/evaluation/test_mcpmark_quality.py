"""MCPMark-format tasks over a real filesystem server built on a laid-out instance: the plan starts at the
allowed root, creates the folder it writes into, says what no tool does, and costs about what the
descriptions do."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from toolatlas.config import load_catalogue
from toolatlas.evaluation import AtlasGuidance, DocsOnly, EvalTask, evaluate, summarise
from toolatlas.evaluation.mcpmark import discover, materialise_states
from toolatlas.guidance import Atlas, AtlasView
from toolatlas.home import Home
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.store.paths import open_store
from toolatlas.workspace import Workspace

from .test_mcpmark import task_folder

REPO = Path(__file__).resolve().parents[2]
DEMO = load_catalogue(REPO / "configs" / "demo.toml")
FILESYSTEM = next(s for s in DEMO.servers if s.name == "filesystem")
TREE = ("reports/\n    ├── jan.txt\n    ├── feb.txt\n    ├── notes/\n    │       └── todo.md\n    └── large_file.txt")

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def atlas(tmp_path_factory: pytest.TempPathFactory) -> Atlas:
    """The demo's filesystem server built offline (one round) on an instance laid out from a tree listing."""
    root = tmp_path_factory.mktemp("mcpmark")
    task_folder(root / "checkout", "standard", "file_context", "any", tree=TREE)
    materialise_states(discover(root / "checkout"), root / "states")
    config = root / "catalogue.toml"
    config.write_text(f'''version = 1
name = "mcpmark-fixture"
[store]
backend = "edge"
path = "{root / 'store'}"
[[servers]]
name = "filesystem"
runtime = {{ kind = "npm", package = "{FILESYSTEM.runtime.package}", version = "{FILESYSTEM.runtime.version}" }}
transport = {{ args = ["${{root}}"] }}
environment = {{ kind = "directory", snapshot = "{root / 'states'}" }}
''')
    catalogue = load_catalogue(config)
    store = open_store(catalogue)
    try:
        asyncio.run(build_catalogue(Workspace(catalogue, Home(REPO / ".toolatlas")), store, rounds=1))
        records = store.records()
    finally:
        store.close()
    return Atlas(AtlasView(records["tools"], records["entries"], records["traces"], records["strategies"]))


TASKS = [
    EvalTask(id="split", split="dev", text="Create a new directory named split in the test directory. Split the file "
             "large_file.txt into 3 files named split_01.txt, split_02.txt and split_03.txt in it.",
             needed=(("filesystem.list_allowed_directories",), ("filesystem.create_directory",),
                     ("filesystem.read_text_file", "filesystem.read_file", "filesystem.read_multiple_files"),
                     ("filesystem.write_file",))),
    EvalTask(id="copy", split="dev", text="Copy jan.txt and feb.txt from the test directory into a new folder "
             "named backup.", needed=(("filesystem.list_allowed_directories",), ("filesystem.create_directory",),
                                      ("filesystem.read_multiple_files", "filesystem.read_text_file"),
                                      ("filesystem.write_file",))),
    EvalTask(id="grep", split="dev", text="Find every file in the test directory that contains the word invoice "
             "and write their names to answer.txt.",
             needed=(("filesystem.list_allowed_directories",),
                     ("filesystem.read_multiple_files", "filesystem.read_text_file"), ("filesystem.write_file",)),
             boundary_hint="match paths", boundary_tools=("filesystem.search_files",)),
]


class TestMcpmarkFormatTasks:
    def test_plan_starts_at_the_root_and_creates_before_writing(self, atlas: Atlas) -> None:
        """The allowed root is discovered first; the folder is created before the files are written into it."""
        plan = [(s.operation, s.tool.split(".")[1]) for s in atlas.guide(TASKS[0].text).plan]
        assert plan[0] == ("discover", "list_allowed_directories")
        tools = [tool for _, tool in plan]
        assert tools.index("create_directory") < tools.index("write_file")

    def test_what_no_tool_does_is_said(self, atlas: Atlas) -> None:
        """Copying is a read and a write; a content search is not a name-pattern search."""
        copy = atlas.guide(TASKS[1].text)
        assert any(g.operation == "copy" and g.text.startswith("No tool copies") for g in copy.gaps)
        grep = atlas.guide(TASKS[2].text)
        assert any("`search_files` matches names or paths, not contents" in g.text for g in grep.gaps)

    def test_beats_the_descriptions_for_about_their_tokens(self, atlas: Atlas) -> None:
        """Every need in the top 5, the failure warned, at most 1.5 times the docs-only tokens; docs-only misses the root."""
        ours, docs = evaluate(AtlasGuidance(atlas), TASKS), evaluate(DocsOnly(atlas.view), TASKS)
        a, d = summarise("atlas", ours), summarise("docs-only", docs)
        assert a.complete_at_5 == 1.0 and a.recall_at_5 > d.recall_at_5
        assert a.boundary_inclusion == 1.0
        assert a.mean_tokens <= 1.5 * d.mean_tokens
