"""Write-back through replay: agents report calls to the running guidance service with a write token of
their own; nothing is served before ``toolatlas outcomes`` replays each report in a sandbox; a true
report is admitted (the replay's evidence adds support), a false one is rejected with what the replay
showed, and a flood from one token is cut off."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from toolatlas.cli import main
from toolatlas.config import load_catalogue
from toolatlas.serve.process import ServiceProcess
from toolatlas.store.paths import open_store
from toolatlas.trust.outcomes import OutcomeReport, RateLimiter

pytestmark = pytest.mark.servers

REPO = Path(__file__).resolve().parents[2]
READ_TOKEN = "read-only-token"
AGENT_A, AGENT_B = "agent-a-write-token", "agent-b-write-token"
TRUE = {"server": "versioned", "tool": "shout", "arguments": {"text": "hello"}, "outcome": "ok"}
FALSE = {"server": "versioned", "tool": "shout", "arguments": {"text": "hello"}, "outcome": "error",
         "message": "Error: shouting is not allowed"}


def shout_support(config: Path) -> tuple[int, list[str]]:
    """Support of shout's plain use and the probes behind it."""
    store = open_store(load_catalogue(config))
    try:
        (entry,) = [e for e in store.all("entries")
                    if e.tool == "shout" and e.kind.value == "affordance" and e.signature.startswith("uses:")]
        return entry.support, entry.probe_ids
    finally:
        store.close()


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory, built_release) -> dict:  # type: ignore[no-untyped-def]
    """An atlas, served with write-back on; reports sent over HTTP; the service stopped; the queue."""
    folder = tmp_path_factory.mktemp("writeback")
    config = built_release(folder, rounds=0, rollouts=1)
    tokens = folder / "write-tokens"
    tokens.write_text(f"# one per agent\n{AGENT_A}\n{AGENT_B}\n")
    before = shout_support(config)
    answers: dict[str, list[int] | int] = {}
    with ServiceProcess(str(config), "--write-tokens", str(tokens), "--reports-per-minute", "4",
                        token=READ_TOKEN, cwd=REPO) as service, httpx.Client(base_url=service.url, timeout=10) as http:
        post = lambda body, token: http.post("/v1/outcomes", json=body,  # noqa: E731
                                             headers={"Authorization": f"Bearer {token}"} if token else {})
        answers["true"] = post(TRUE, AGENT_A).status_code
        answers["false"] = post(FALSE, AGENT_A).status_code
        answers["read_token"] = post(TRUE, READ_TOKEN).status_code
        answers["no_token"] = post(TRUE, None).status_code
        answers["invalid"] = post({"server": "versioned", "tool": "shout", "outcome": "maybe"}, AGENT_A).status_code
        answers["flood"] = [post(TRUE, AGENT_B).status_code for _ in range(7)]
        answers["other_agent_after_flood"] = post(TRUE, AGENT_A).status_code
        guidance = http.post("/v1/guidance", json={"task": "shout hello"},
                             headers={"Authorization": f"Bearer {READ_TOKEN}"})
        answers["read_with_read_token"] = guidance.status_code
    queue = config.parent / "atlas" / "outcomes.jsonl"
    queued = [json.loads(line) for line in queue.read_text().splitlines()]
    assert main(["outcomes", str(config)]) == 0
    return {"config": config, "answers": answers, "queued": queued, "before": before, "after": shout_support(config),
            "admitted": [json.loads(x) for x in (queue.parent / "outcomes.admitted.jsonl").read_text().splitlines()],
            "rejected": [json.loads(x) for x in (queue.parent / "outcomes.rejected.jsonl").read_text().splitlines()],
            "queue": queue}


class TestTheService:
    def test_reports_need_a_write_token_and_a_valid_body(self, session: dict) -> None:
        answers = session["answers"]
        assert answers["true"] == answers["false"] == 202
        assert answers["read_token"] == answers["no_token"] == 401  # the read token does not write
        assert answers["invalid"] == 422
        assert answers["read_with_read_token"] == 200

    def test_a_flood_from_one_token_is_cut_off_and_the_others_go_on(self, session: dict) -> None:
        flood = session["answers"]["flood"]
        assert flood[:4] == [202] * 4 and 429 in flood[4:]
        assert session["answers"]["other_agent_after_flood"] == 202

    def test_the_queue_records_who_sent_what_but_not_their_tokens(self, session: dict) -> None:
        queued = session["queued"]
        assert len(queued) == 2 + 4 + 1
        text = json.dumps(queued)
        assert AGENT_A not in text and AGENT_B not in text and len({q["token"] for q in queued}) == 2


class TestAdmission:
    def test_a_true_report_is_admitted_with_the_replays_evidence(self, session: dict) -> None:
        support_before, _ = session["before"]
        support_after, probes = session["after"]
        admitted = [a for a in session["admitted"] if a["report"]["report"]["outcome"] == "ok"]
        assert len(admitted) == 6 and support_after == support_before + 6
        assert any(p.startswith("report-") for p in probes)
        assert all(a["admission"]["replayed_outcome"] == "ok" for a in admitted)

    def test_a_false_report_is_rejected_with_what_the_replay_showed(self, session: dict) -> None:
        (rejected,) = session["rejected"]
        assert rejected["report"]["report"]["message"] == FALSE["message"]
        admission = rejected["admission"]
        assert admission["verdict"] == "rejected" and admission["replayed_outcome"] == "ok"
        assert "HELLO" in admission["replayed_excerpt"] and "the replay succeeded" in admission["detail"]

    def test_the_queue_is_drained(self, session: dict) -> None:
        assert not session["queue"].exists() or session["queue"].read_text() == ""


class TestParts:
    def test_the_rate_limit_refills_with_time(self) -> None:
        limiter = RateLimiter(per_minute=2)
        assert [limiter.allow("a", now=0.0) for _ in range(3)] == [True, True, False]
        assert limiter.allow("b", now=0.0)  # another token has its own bucket
        assert limiter.allow("a", now=30.0) and not limiter.allow("a", now=30.0)

    def test_a_report_names_its_fields(self) -> None:
        with pytest.raises(ValueError, match="outcome"):
            OutcomeReport.model_validate({"server": "s", "tool": "t", "outcome": "perhaps"})


class TestOverMcp:
    async def test_report_outcome_queues_over_stdio(self, session: dict, tmp_path: Path) -> None:
        """The MCP tool takes the write token as an argument; a wrong one is a tool error."""
        import sys

        from mcp import Client
        from mcp.client.stdio import StdioServerParameters

        tokens = tmp_path / "tokens"
        tokens.write_text(AGENT_A + "\n")
        queue = tmp_path / "queue.jsonl"
        params = StdioServerParameters(command=sys.executable, args=[
            "-m", "toolatlas", "serve", str(session["config"]), "--write-tokens", str(tokens), "--outcomes", str(queue)],
            cwd=str(REPO))
        async with Client(params) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "report_outcome" in names
            ok = await client.call_tool("report_outcome", {"server_name": "versioned", "tool": "shout",
                                                           "outcome": "ok", "arguments": {"text": "x"},
                                                           "write_token": AGENT_A})
            refused = await client.call_tool("report_outcome", {"server_name": "versioned", "tool": "shout",
                                                                "outcome": "ok", "write_token": "guess"})
        assert not ok.is_error and refused.is_error and "wrong write token" in refused.content[0].text
        assert len(queue.read_text().splitlines()) == 1
