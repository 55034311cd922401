"""Usage accounting: per role / server / round rows from real calls, costs from prices, and ledgers
merged across process boundaries (pickle and JSON round trips, as Ray actors hand them back)."""

from __future__ import annotations

import pickle

import pytest
from scripted_llm import MODEL, conversation, settings_for

from toolatlas.config import ModelPrice
from toolatlas.llm import LlmClient, UsageLedger, UsageTally
from toolatlas.testing.openai_script import Reply
from toolatlas.testing.openai_server import ScriptedOpenAIServer


def tally(**counts: float) -> UsageTally:
    return UsageTally(calls=1, requests=1, **counts)


class TestLedgerFromCalls:
    async def test_rows_per_role_server_and_round(self, server: ScriptedOpenAIServer) -> None:
        """Each call is booked under (role, model, server, round); the views are sums of those rows."""
        server.script.add(Reply(content="ok", prompt_tokens=100, completion_tokens=10))
        async with LlmClient(settings_for(server, role_models={"navigator": "small"})) as llm:
            await llm.complete("proposer", conversation("proposer", "a"), server="git", round=0)
            await llm.complete("proposer", conversation("proposer", "b"), server="git", round=1)
            await llm.complete("proposer", conversation("proposer", "c"), server="sqlite", round=1)
            await llm.complete("navigator", conversation("navigator", "d"))
        ledger = llm.ledger
        assert len(ledger.rows) == 4
        assert ledger.by_role()["proposer"].calls == 3 and ledger.by_role()["navigator"].calls == 1
        assert ledger.by_role()["proposer"].prompt_tokens == 300
        assert ledger.group("server") == {
            ("git",): ledger.select(server="git"),
            ("sqlite",): ledger.select(server="sqlite"),
            (None,): ledger.select(role="navigator"),
        }
        assert ledger.select(round=1).calls == 2
        assert ledger.group("role", "model")[("navigator", "small")].completion_tokens == 10
        total = ledger.total()
        assert (total.calls, total.prompt_tokens, total.completion_tokens, total.total_tokens) == (
            4,
            400,
            40,
            440,
        )
        assert total.latency_ms > 0

    async def test_cost_from_prices(self, server: ScriptedOpenAIServer) -> None:
        """Cost = tokens x price per million, in and out; unpriced models are counted apart."""
        server.script.add(Reply(content="ok", prompt_tokens=2_000, completion_tokens=500))
        prices = {MODEL: ModelPrice(input_per_1m=3.0, output_per_1m=15.0)}
        async with LlmClient(
            settings_for(server, prices=prices, role_models={"inducer": "free-local"})
        ) as llm:
            reply = await llm.complete("agent", conversation("agent", "x"))
            await llm.complete("inducer", conversation("inducer", "x"))
        expected = (2_000 * 3.0 + 500 * 15.0) / 1_000_000
        assert reply.cost == pytest.approx(expected)
        assert llm.ledger.by_role()["agent"].cost == pytest.approx(expected)
        inducer = llm.ledger.by_role()["inducer"]
        assert (inducer.cost, inducer.unpriced_calls) == (0.0, 1)
        assert llm.ledger.total().cost == pytest.approx(expected) and llm.ledger.total().unpriced_calls == 1

    async def test_repair_tokens_are_counted(self, server: ScriptedOpenAIServer) -> None:
        """Tokens of every request of a call, repairs included, reach the reply and the ledger."""
        from pydantic import BaseModel

        class Verdict(BaseModel):
            resolved: bool

        server.script.add(Reply(content="nope", prompt_tokens=10, completion_tokens=1), times=1)
        server.script.add(Reply(content='{"resolved": true}', prompt_tokens=20, completion_tokens=5))
        async with LlmClient(settings_for(server)) as llm:
            reply = await llm.complete("verifier", conversation("verifier", "x"), response_model=Verdict)
        assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (30, 6)
        assert llm.ledger.total().prompt_tokens == 30


class TestLedgerMerge:
    def test_merge_adds_matching_rows_and_keeps_others(self) -> None:
        """Rows with the same key add up; rows only one side has are copied."""
        left, right = UsageLedger(), UsageLedger()
        left.record(role="agent", model="m", server="git", round=0, tally=tally(prompt_tokens=5, cost=0.5))
        right.record(role="agent", model="m", server="git", round=0, tally=tally(prompt_tokens=7, retries=2))
        right.record(role="navigator", model="m", tally=tally(completion_tokens=3))
        left.merge(right)
        row = left.select(role="agent", server="git", round=0)
        assert (row.calls, row.prompt_tokens, row.retries, row.cost) == (2, 12, 2, 0.5)
        assert left.select(role="navigator").completion_tokens == 3
        assert len(left.rows) == 2
        assert right.select(role="agent").calls == 1  # the merged ledger is not modified

    def test_survives_pickle_and_json_then_merges(self) -> None:
        """A ledger from another process (pickled, or sent as JSON) merges like a local one."""
        worker = UsageLedger()
        worker.record(role="agent", model="m", server="fs", round=2, tally=tally(prompt_tokens=4))
        from_pickle = pickle.loads(pickle.dumps(worker))
        from_json = UsageLedger.model_validate_json(worker.model_dump_json())
        driver = UsageLedger.combined([from_pickle, from_json])
        assert driver.select(server="fs", round=2).calls == 2
        from_json.record(role="agent", model="m", server="fs", round=2, tally=tally())
        assert len(from_json.rows) == 1  # the rebuilt index finds the existing row

    def test_merge_is_order_independent(self) -> None:
        """Folding ledgers in any order gives the same totals per key."""
        parts = []
        for index in range(3):
            part = UsageLedger()
            part.record(
                role="inducer", model="m", server=f"s{index % 2}", tally=tally(prompt_tokens=index + 1)
            )
            parts.append(part)
        forward, backward = UsageLedger.combined(parts), UsageLedger.combined(reversed(parts))
        assert forward.group("server") == backward.group("server")
        assert forward.total().prompt_tokens == 6
