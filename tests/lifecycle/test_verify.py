"""``toolatlas verify`` on a real server: an atlas built at one release, its evidence replayed against
the same release (everything agrees) and against the next one (what the release changed is caught
entry by entry: contradicted, retired, stale), and what that does to what is served."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from toolatlas.cli import main
from toolatlas.config import load_catalogue
from toolatlas.graph.models import EntryKind, EntryStatus
from toolatlas.lifecycle.commands import parse_age
from toolatlas.lifecycle.verify import choose
from toolatlas.store.paths import open_store
from toolatlas.testing.releases import release_catalogue

pytestmark = pytest.mark.servers


def statuses(config: Path) -> dict[str, dict[str, str]]:
    """``tool → entry id → status`` of the affordances and boundaries in the catalogue's store."""
    store = open_store(load_catalogue(config))
    try:
        found: dict[str, dict[str, str]] = {}
        for entry in store.all("entries"):
            if entry.kind is not EntryKind.CO_USAGE:
                found.setdefault(entry.tool, {})[entry.id] = entry.status.value
        return found
    finally:
        store.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, built_release) -> Path:  # type: ignore[no-untyped-def]
    """A catalogue whose atlas was built at release 1."""
    return built_release(tmp_path_factory.mktemp("verify"))


class TestTheSameRelease:
    def test_every_replay_agrees_and_the_entries_are_marked_verified(
        self, built: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Against the release it was built on, every served entry replays; last_verified moves."""
        store = open_store(load_catalogue(built))
        before = {e.id: e.last_verified for e in store.all("entries")}
        store.close()
        assert main(["verify", str(built)]) == 0
        out = capsys.readouterr().out
        assert "replays agreed = 1.000" in out
        store = open_store(load_catalogue(built))
        try:
            replayed = [e for e in store.all("entries") if e.kind is not EntryKind.CO_USAGE and e.status is EntryStatus.ACTIVE]
            assert replayed and all(e.last_verified > before[e.id] for e in replayed)
            (node,) = store.all("servers")
            assert node.verified_at is not None and node.fingerprint.tools.keys() >= {"add_note", "export_all", "shout"}
        finally:
            store.close()

    def test_older_than_leaves_what_was_just_verified_alone(
        self, built: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        assert main(["verify", str(built), "--older-than", "1h"]) == 0
        assert "0/0 replays agreed" in capsys.readouterr().out


@pytest.fixture(scope="module")
def verified(tmp_path_factory: pytest.TempPathFactory, built_release) -> tuple[Path, int, dict, dict]:  # type: ignore[no-untyped-def]
    """Built at release 1, then verified with the catalogue pointing at release 2: the catalogue, the
    exit status, and the statuses before and after."""
    folder = tmp_path_factory.mktemp("next")
    config = built_release(folder)
    before = statuses(config)
    release_catalogue(folder, 2)  # the same catalogue and atlas, the server's next release
    status = main(["verify", str(config)])
    return config, status, before, statuses(config)


class TestTheNextRelease:
    def test_the_command_fails(self, verified: tuple[Path, int, dict, dict]) -> None:
        assert verified[1] == 1

    def test_a_removed_tools_entries_are_retired(self, verified: tuple[Path, int, dict, dict]) -> None:
        _config, _status, before, after = verified
        assert before["export_all"] and set(after["export_all"].values()) == {"retired"}

    def test_a_changed_tools_entries_are_stale(self, verified: tuple[Path, int, dict, dict]) -> None:
        """Every entry of add_note (whose schema gained an argument), summarised ones too, and its node."""
        config, _status, before, after = verified
        assert before["add_note"] and set(after["add_note"].values()) == {"stale"}
        store = open_store(load_catalogue(config))
        try:
            nodes = {(n.tool, n.status.value) for n in store.all("tools")}
        finally:
            store.close()
        assert {("add_note", "stale"), ("export_all", "retired"), ("count_notes", "active")} <= nodes

    def test_a_use_that_now_fails_is_contradicted_and_the_rest_agree(self, verified: tuple[Path, int, dict, dict]) -> None:
        """shout refuses long texts from release 2: the uses verified with a long text are contradicted
        (the new answer kept as evidence), the short ones still hold; count_notes did not change."""
        config, _status, _before, after = verified
        assert "contradicted" in after["shout"].values() and "active" in after["shout"].values()
        assert set(after["count_notes"].values()) == {"active"}
        store = open_store(load_catalogue(config))
        try:
            contradicted = [e for e in store.all("entries") if e.status is EntryStatus.CONTRADICTED and e.tool == "shout"]
        finally:
            store.close()
        for entry in contradicted:
            assert entry.kind is EntryKind.AFFORDANCE and entry.contradictions >= 1 and entry.status_changed
            assert "failed where the evidence succeeded" in entry.status_reason
            assert entry.evidence[-1].probe_id.startswith("verify:") and "longer than" in entry.evidence[-1].excerpt

    def test_the_export_serves_only_active_entries_unless_asked(self, verified: tuple[Path, int, dict, dict]) -> None:
        config = verified[0]
        exported = json.loads((config.parent / "atlas" / "atlas.json").read_text())
        served = {e["status"] for s in exported["servers"] for t in s["tools"]
                  for k in ("affordances", "boundaries", "co_usage") for e in t[k]}
        assert served <= {"active", "summarised"}
        every = config.parent / "every.json"
        assert main(["export", str(config), "--all", "-o", str(every)]) == 0
        kept = {e["status"] for s in json.loads(every.read_text())["servers"] for t in s["tools"]
                for k in ("affordances", "boundaries", "co_usage") for e in t[k]}
        assert {"retired", "stale", "contradicted"} <= kept


class TestChoosing:
    def test_a_sample_is_seeded_and_older_than_filters_by_last_verification(self, built: Path) -> None:
        store = open_store(load_catalogue(built))
        try:
            entries = store.all("entries")
        finally:
            store.close()
        every = choose(entries)
        assert every and all(e.kind is not EntryKind.CO_USAGE and e.status is EntryStatus.ACTIVE for e in every)
        assert choose(entries, sample=3, seed=1) == choose(entries, sample=3, seed=1)
        assert len(choose(entries, sample=3)) == 3
        assert choose(entries, older_than=timedelta(days=1)) == []

    @pytest.mark.parametrize(("text", "expected"), [("90s", timedelta(seconds=90)), ("12h", timedelta(hours=12)),
                                                    ("7d", timedelta(days=7)), ("2w", timedelta(weeks=2))])
    def test_ages_read_as_durations(self, text: str, expected: timedelta) -> None:
        assert parse_age(text) == expected

    def test_a_malformed_age_is_a_usage_error(self, built: Path, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit) as exit_:
            main(["verify", str(built), "--older-than", "7 days"])
        assert exit_.value.code == 2 and "not an age like" in capsys.readouterr().err
