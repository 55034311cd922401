"""``toolatlas merge``: two builders' atlases of the same demo servers (different seeds), one of them
holding a boundary its own replay contradicted. Support adds up, the disagreement is logged and
withheld from guidance, and nothing is lost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolatlas.cli import main
from toolatlas.export import AtlasExport
from toolatlas.guidance import Atlas
from toolatlas.trust.merge import merge_atlases

pytestmark = pytest.mark.servers

REPO = Path(__file__).resolve().parents[2]


def demo_subset(folder: Path, seed: int) -> Path:
    """The demo catalogue's memory and time servers, built with ``seed``, its atlas in ``folder``."""
    text = (REPO / "configs" / "demo.toml").read_text()
    text = text.replace('path = "../.toolatlas/atlas/demo"', f'path = "{folder / "atlas"}"')
    text = text.replace("seed = 0", f"seed = {seed}")
    assert f"seed = {seed}" in text
    config = folder / "demo.toml"
    config.write_text(text)
    return config


def entries(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for s in document["servers"] for t in s["tools"]
            for k in ("affordances", "boundaries", "co_usage") for e in t[k]}


@pytest.fixture(scope="module")
def builders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two exports of memory + time built with seeds 0 and 1; in the second, one served boundary is
    marked contradicted with a replay's observation, as `toolatlas verify` leaves it."""
    exports = {}
    for seed in (0, 1):
        folder = tmp_path_factory.mktemp(f"builder{seed}")
        config = demo_subset(folder, seed)
        assert main(["build", str(config), "--engine", "asyncio", "--rounds", "1",
                     "--server", "memory", "--server", "time"]) == 0
        exports[f"seed{seed}"] = folder / f"seed{seed}.json"
        assert main(["export", str(config), "-o", str(exports[f"seed{seed}"])]) == 0
    document = json.loads(exports["seed1"].read_text())
    shared = set(entries(json.loads(exports["seed0"].read_text()))) & set(entries(document))
    boundary = next(e for e in entries(document).values()
                    if e["kind"] == "boundary" and e["status"] == "active" and e["id"] in shared)
    boundary.update(status="contradicted", contradictions=1, status_reason="succeeded where the evidence failed")
    exports["seed1"].write_text(json.dumps(document))
    exports["contradicted"] = boundary["id"]  # type: ignore[assignment]
    return exports


@pytest.fixture(scope="module")
def merged(builders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("merged") / "merged.json"
    assert main(["merge", str(builders["seed0"]), str(builders["seed1"]), "-o", str(output)]) == 0
    return output


class TestMerge:
    def test_nothing_is_lost_and_shared_entries_add_their_support(self, builders: dict, merged: Path) -> None:
        a, b = (entries(json.loads(builders[name].read_text())) for name in ("seed0", "seed1"))
        out = entries(json.loads(merged.read_text()))
        assert set(out) == set(a) | set(b) and len(a) + len(b) > len(out)  # some are shared, none lost
        for entry_id in set(a) & set(b):
            assert out[entry_id]["support"] == a[entry_id]["support"] + b[entry_id]["support"]
        log = json.loads(merged.read_text())["merge"]
        assert log["builders"] == ["seed0", "seed1"] and log["entries_in"] == len(a) + len(b)
        shared = next(iter(set(a) & set(b)))
        assert log["provenance"][shared] == {"seed0": a[shared]["support"], "seed1": b[shared]["support"]}

    def test_the_contradiction_is_logged_and_not_served_unless_asked(self, builders: dict, merged: Path) -> None:
        boundary = str(builders["contradicted"])
        log = json.loads(merged.read_text())["merge"]
        (conflict,) = [c for c in log["conflicts"] if boundary in c["entries"]]
        assert conflict["kind"] == "status" and conflict["values"] == {"seed0": "active", "seed1": "contradicted"}
        assert boundary not in Atlas.from_export(merged).view.entries
        assert boundary in Atlas.from_export(merged, include_conflicted=True).view.entries

    def test_the_servers_lexicons_are_united(self, builders: dict, merged: Path) -> None:
        """A merged server's lexicon holds every word either builder's answers said, and its description."""
        def servers(path: Path) -> dict[str, dict]:
            return {s["name"]: s for s in json.loads(path.read_text())["servers"]}

        a, b, out = servers(builders["seed0"]), servers(builders["seed1"]), servers(merged)
        for name, server in out.items():
            assert set(server["lexicon"]) == set(a[name]["lexicon"]) | set(b[name]["lexicon"])
            assert server["description"] == a[name]["description"]
        assert any(server["lexicon"] for server in out.values())

    def test_an_unchanged_merge_of_one_build_with_itself_has_no_conflict(self, builders: dict) -> None:
        export = AtlasExport.model_validate_json(builders["seed0"].read_text())
        merged = merge_atlases([("one", export), ("two", export)])
        assert merged.merge is not None and merged.merge.conflicts == []

    def test_names_a_build_made_up_are_no_disagreement(self, builders: dict) -> None:
        """A condition quoting a name one builder's probes made up (``first_bf4a``) agrees with another
        builder's quoting its own (``first_76b2``); a condition that says something else does not."""
        document = json.loads(builders["seed0"].read_text())
        entry = next(e for e in entries(document).values() if e["kind"] == "boundary" and e["status"] == "active")
        other = json.loads(json.dumps(document))
        entries(other)[entry["id"]]["condition"] = "called with `name` = first_76b2"
        entries(document)[entry["id"]]["condition"] = "called with `name` = first_bf4a"
        agree = merge_atlases([("a", AtlasExport.model_validate(document)), ("b", AtlasExport.model_validate(other))])
        assert agree.merge is not None and agree.merge.conflicts == []
        entries(other)[entry["id"]]["condition"] = "called with `name` = second_76b2"
        differ = merge_atlases([("a", AtlasExport.model_validate(document)), ("b", AtlasExport.model_validate(other))])
        assert differ.merge is not None and [c.field for c in differ.merge.conflicts] == ["condition"]

    def test_same_call_working_for_one_builder_and_failing_for_another(self, builders: dict) -> None:
        """An affordance whose very call another builder records as a boundary: both are withheld."""
        document = json.loads(builders["seed0"].read_text())
        tool = next(t for s in document["servers"] for t in s["tools"] if t["affordances"] and t["boundaries"])
        works = next(e for e in tool["affordances"] if e["status"] == "active" and e["evidence"])
        fails = json.loads(json.dumps(next(e for e in tool["boundaries"] if e["status"] == "active")))
        fails["evidence"] = [works["evidence"][0] | {"outcome": "tool_error", "excerpt": fails["evidence"][0]["excerpt"]}]
        other = json.loads(json.dumps(document))
        other_tool = next(t for s in other["servers"] for t in s["tools"] if t["name"] == tool["name"])
        other_tool["affordances"] = [e for e in other_tool["affordances"] if e["id"] != works["id"]]
        other_tool["boundaries"] = [e if e["id"] != fails["id"] else fails for e in other_tool["boundaries"]]
        tool["boundaries"] = [e for e in tool["boundaries"] if e["id"] != fails["id"]]
        merged = merge_atlases([("a", AtlasExport.model_validate(document)), ("b", AtlasExport.model_validate(other))])
        assert merged.merge is not None
        outcome = [c for c in merged.merge.conflicts if c.kind == "outcome"]
        assert outcome and {works["id"], fails["id"]} <= set(outcome[0].entries)

    def test_builders_need_names_of_their_own(self, builders: dict, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
        same = [str(builders["seed0"]), str(builders["seed0"])]
        assert main(["merge", *same, "-o", str(tmp_path / "m.json")]) == 2
        assert "names of their own" in capsys.readouterr().err
        assert main(["merge", *same, "-o", str(tmp_path / "m.json"), "--builder", "x", "--builder", "y"]) == 0
