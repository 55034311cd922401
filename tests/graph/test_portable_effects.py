"""An effect is stated so that it holds for every call of its use: what one run named a file it wrote
(a history file named after the run, a name a probe made up) is never part of it. The real
``journal`` server over stdio (notes in a folder, a history file per run), run by the executor and
verifier the build uses."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from toolatlas.config import parse_catalogue
from toolatlas.environments import StateDiff, StateDigest
from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import EntryKind
from toolatlas.graph.state import ServerGraph
from toolatlas.home import Home
from toolatlas.probing.conditions import portable_change, precondition
from toolatlas.probing.executor import Executor
from toolatlas.probing.models import Direction, Probe, ProbeStep
from toolatlas.workspace import Workspace

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-")


class TestPortableChange:
    def test_an_item_named_by_an_argument_and_a_run_specific_name(self) -> None:
        """An item added under the name an argument gave is that argument's; a UUID, a name a probe
        made up and a Unix time in an item's name are masked, and items alike once masked are one."""
        change = StateDiff(added=[".log/run-1733433671.txt", "probe_1a91.txt"],
                           changed=[".h/history_2b69499a-34df-4ddb-872e-08c82741503c.json",
                                    ".h/history_d8bbab21-9939-45ca-a2ad-9b2126c6c626.json", "prices.csv"])
        assert portable_change(change, {"output": "${root}/probe_1a91.txt"}, limit=3) == \
            "added: .log/run-<id>.txt, `output`; changed: .h/history_<id>.json, prices.csv"

    def test_a_condition_names_no_run_specific_item(self) -> None:
        """An argument matching a file named after a run is said to name the file's kind, the run masked."""
        digest = StateDigest(kind="directory", items={".history/history_2b69499a-34df-4ddb-872e-08c82741503c.json": "h"})
        assert precondition({"session": "2b69499a-34df-4ddb-872e-08c82741503c"}, digest, None, "t") == \
            "`session` names existing .history/history_….json"
        assert precondition({"file": "${root}/.history"}, digest, None, "t") == \
            "`file` names existing …/history_<id>.json"


@pytest.mark.servers
class TestEffectsOfARunNamedFile:
    async def test_the_same_call_in_two_runs_states_one_effect(self, tmp_path: Path) -> None:
        """`write_note` in two runs of the server writes the note and a history file named after each
        run: the affordance states one effect, naming the history file without either run's UUID."""
        snapshot = tmp_path / "notes"
        snapshot.mkdir()
        (snapshot / "todo.md").write_text("call the plumber")
        server = {"name": "journal", "environment": {"kind": "directory", "snapshot": str(snapshot)},
                  "transport": {"command": sys.executable, "args": ["-m", "toolatlas.testing.servers.journal", "${root}"]}}
        catalogue = parse_catalogue({"servers": [server]}, tmp_path / "catalogue.toml")
        executor = Executor(Workspace(catalogue, Home(tmp_path / "home")).sandbox(catalogue.server("journal")), "t")
        await executor.start()
        step = ProbeStep(tool="write_note", arguments={"name": "groceries", "text": "milk, eggs"}, expect="ok")
        try:
            graph = ServerGraph("journal", executor.sandbox.tools)
            changes = []
            for n in range(2):
                probe = Probe(id=f"p{n}", server="journal", round=1, direction=Direction.SEED, target="write_note",
                              task="t", steps=[step])
                rollout, verdict = await executor.run_verified(probe)
                changes.append(verdict.steps[0].change)
                Inducer(graph).induce(rollout, verdict)
                assert executor.sandbox.connection is not None
                await executor.sandbox.connection.restart()  # the next run names its history anew
        finally:
            await executor.close()
        assert changes[0] != changes[1]  # each run wrote its own history file
        (entry,) = [e for e in graph.entries_of("write_note", EntryKind.AFFORDANCE) if e.signature.startswith("uses:")]
        assert len(entry.effects) == 1 and entry.effects[0].support == 2
        assert entry.effects[0].change == "added: .history/, .history/history_<id>.json, +1 more"
        assert not UUID.search(entry.text)
