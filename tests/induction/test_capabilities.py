"""Capability aggregation over real filesystem-server calls: entries are kept only when every cited call
exists and shows them, carry the cited calls as evidence, and merge with the offline inducer's entries."""

from __future__ import annotations

import pytest
from rollout_kit import Scenario, call_step, cite, make_rollout, verdict

from toolatlas.graph.inducer import Inducer
from toolatlas.graph.models import CoUsageRelation, EntryKind
from toolatlas.induction import LlmInducer
from toolatlas.llm import LlmClient
from toolatlas.tasks.models import AgentKind
from toolatlas.testing.openai_script import Fault

pytestmark = pytest.mark.servers  # real calls to the demo filesystem server


def entry(kind: str, text: str, cites: list[dict], **fields) -> dict:
    base = {"kind": kind, "text": text, "when": None, "when_not": None, "condition": None, "error_signature": None,
            "peer": None, "relation": None, "cites": cites}
    return base | fields


def for_tool(tool: str):
    """A scripted-server predicate: the capability aggregator asked about ``tool``."""
    def asks(request) -> bool:
        first = next(m["content"] for m in request.messages if m["role"] == "user")
        return request.role_tag.prompt == "capability_aggregator" and f"Tool: {tool}\n" in first

    return asks


def answer(endpoint, tool: str, *entries: dict) -> None:
    endpoint.script.add({"entries": list(entries)}, where=for_tool(tool))


def silent(endpoint, scene: Scenario) -> None:
    """Every other question gets a plain answer: the resolved ReAct rollout as the trace, no further entries."""
    steps = [{"tool": "list_directory", "rationale": "find the page"}, {"tool": "read_text_file", "rationale": "read it"}]
    endpoint.script.add({"rollouts": [scene.ids[0]], "steps": steps, "tips": []}, system="prompt=reflector")
    endpoint.script.add({"entries": []}, system="prompt=capability_aggregator")


async def induce(llm: LlmClient, scene: Scenario, graph, **switches):
    return await LlmInducer(llm, **switches).induce_task(scene.task, scene.rollouts, scene.verdicts, graph)


class TestCitationChecks:
    async def test_good_entries_are_kept_with_the_cited_calls_as_evidence(self, scene: Scenario, endpoint, llm) -> None:
        """An affordance on successful calls, a boundary whose error words are in every cited failure, and a
        data co-usage whose listing names the file read next are kept, with verbatim (placeholder) evidence."""
        r = scene.rollouts
        answer(endpoint, "read_text_file",
               entry("affordance", "Reads a documentation page as text.", [cite(r[0], 1), cite(r[1], 0, 1)],
                     when="you need the contents of a text file whose exact path you know"),
               entry("boundary", "Fails with ENOENT when the file does not exist.", [cite(r[2], 0), cite(r[3], 1)],
                     condition="the path names a file that does not exist",
                     error_signature="ENOENT: no such file or directory"))
        answer(endpoint, "list_directory",
               entry("co_usage", "A listing gives the exact file names to read.", [cite(r[0], 0), cite(r[0], 1)],
                     peer="read_text_file", relation="data"))
        silent(endpoint, scene)
        graph = scene.graph()
        report = await induce(llm, scene, graph)

        assert report.dropped == [] and report.failures == []
        (use,) = graph.entries_of("read_text_file", EntryKind.AFFORDANCE)
        assert use.when.startswith("you need the contents") and use.support == 2
        assert use.example_arguments == {"path": "${root}/docs/api.md"}
        assert [e.probe_id for e in use.evidence] == [r[0].id, r[1].id]
        assert use.evidence[0].excerpt.startswith("# API reference")
        (wall,) = graph.entries_of("read_text_file", EntryKind.BOUNDARY)
        assert wall.condition == "the path names a file that does not exist" and wall.support == 2
        assert wall.evidence[0].excerpt == "ENOENT: no such file or directory, open '${root}/docs/reference.md'"
        (edge,) = graph.entries_of("list_directory", EntryKind.CO_USAGE)
        assert (edge.peer, edge.relation, edge.transitions) == ("read_text_file", CoUsageRelation.DATA, 1)
        assert edge.evidence[0].arguments == {"path": "${root}/docs/api.md"}
        assert graph.tools["list_directory"].neighbours == {"read_text_file": edge.weight}
        assert sorted(report.new_entries) == sorted([use.id, wall.id, edge.id])

    async def test_bad_citations_are_dropped_with_their_reason(self, scene: Scenario, endpoint, llm) -> None:
        """A boundary citing an ok call, one whose error signature is not in the cited error, citations of a
        rollout or call that does not exist, an affordance on a failed call, co-usage cited in the wrong order
        or without the declared relation: all dropped, each counted with its reason."""
        r = scene.rollouts
        enoent = {"condition": "the file does not exist", "error_signature": "no such file or directory"}
        answer(endpoint, "read_text_file",
               entry("boundary", "Cites a call that worked.", [cite(r[0], 1)], **enoent),
               entry("boundary", "Wrong words.", [cite(r[2], 0)], condition="the file is locked",
                     error_signature="permission denied"),
               entry("boundary", "Generic words.", [cite(r[2], 0)], condition="anything", error_signature="Error"),
               entry("boundary", "Invented rollout.", [{"rollout": "rollout-that-never-ran", "step": 0, "call": 0}],
                     **enoent),
               entry("boundary", "Invented call.", [cite(r[2], 5)], **enoent),
               entry("affordance", "Reads missing pages.", [cite(r[2], 0)], when="always"),
               entry("affordance", "Cites another tool's call.", [cite(r[0], 0)], when="listing"),
               entry("affordance", "No citation.", [], when="whenever"),
               entry("co_usage", "Read, then list.", [cite(r[0], 1), cite(r[0], 0)], peer="list_directory",
                     relation="data"))
        answer(endpoint, "list_directory",
               entry("co_usage", "Root listing feeds the guess.", [cite(r[3], 0), cite(r[3], 1)],
                     peer="read_text_file", relation="data"),
               entry("co_usage", "Composes with a tool the server lacks.", [cite(r[0], 0)], peer="teleport",
                     relation="data"))
        silent(endpoint, scene)
        graph = scene.graph()
        report = await induce(llm, scene, graph)

        assert not graph.entries and report.new_entries == []
        assert report.drop_counts == {
            "entry:not_failed": 1, "entry:signature_mismatch": 1, "entry:vague_signature": 1,
            "entry:unknown_rollout": 1, "entry:missing_call": 1, "entry:not_ok": 1, "entry:wrong_tool": 1,
            "entry:no_citation": 1, "entry:order": 1, "entry:relation_unsupported": 1, "entry:unknown_peer": 1,
        }

    async def test_state_and_retry_relations_need_their_witness(self, scene: Scenario, endpoint, llm) -> None:
        """A write read back by path is a state co-usage; a failed read corrected by a later read is a retry; a
        'state' claim between two reads of unrelated files is dropped."""
        out = scene.real.outcomes
        extra = make_rollout(scene.task, scene.real, 4, AgentKind.REACT, [
            call_step(0, out["read_missing"]), call_step(1, out["write_note"]), call_step(2, out["read_note"]),
            call_step(3, out["read_api"]),
        ])
        scene.rollouts.append(extra)
        scene.verdicts.append(verdict(extra, True))
        answer(endpoint, "write_file",
               entry("co_usage", "Read the note back after writing it.", [cite(extra, 1), cite(extra, 2)],
                     peer="read_text_file", relation="state"))
        answer(endpoint, "read_text_file",
               entry("co_usage", "After a failed read, read the right page.", [cite(extra, 0), cite(extra, 3)],
                     peer="read_text_file", relation="retry"),
               entry("co_usage", "Reading one page changes another.", [cite(extra, 2), cite(extra, 3)],
                     peer="read_text_file", relation="state"))
        silent(endpoint, scene)
        graph = scene.graph()
        report = await induce(llm, scene, graph)
        relations = {(e.tool, e.relation) for e in graph.entries.values()}
        assert relations == {("write_file", CoUsageRelation.STATE), ("read_text_file", CoUsageRelation.RETRY)}
        assert report.drop_counts == {"entry:relation_unsupported": 1}


class TestMerging:
    async def test_offline_boundary_and_llm_boundary_are_one_entry(self, scene: Scenario, endpoint, llm) -> None:
        """The offline engine verified ENOENT on another missing page; the LLM boundary on the agents' ENOENT
        calls reinforces that entry (same signature, same id) and fills no field twice."""
        graph = scene.graph()
        for rollout, offline_verdict in scene.real.offline:
            Inducer(graph).induce(rollout, offline_verdict)
        (offline,) = graph.entries_of("read_text_file", EntryKind.BOUNDARY)
        r = scene.rollouts
        answer(endpoint, "read_text_file",
               entry("boundary", "Fails when the page does not exist.", [cite(r[2], 0), cite(r[3], 1)],
                     condition="the page was guessed", error_signature="no such file or directory"))
        silent(endpoint, scene)
        report = await induce(llm, scene, graph)
        (merged,) = graph.entries_of("read_text_file", EntryKind.BOUNDARY)
        assert merged.id == offline.id and report.reinforced == [offline.id] and report.new_entries == []
        assert merged.support == 3 and [e.probe_id for e in merged.evidence] == ["offline-missing-page", r[2].id, r[3].id]
        assert merged.condition == offline.condition  # the offline condition stands

    async def test_reinduction_adds_no_entry_and_no_support(self, scene: Scenario, endpoint, llm) -> None:
        """Inducing the same rollouts twice leaves the same entries with the same support and transitions."""
        r = scene.rollouts
        answer(endpoint, "read_text_file",
               entry("affordance", "Reads a page.", [cite(r[0], 1)], when="you know the path"))
        answer(endpoint, "list_directory",
               entry("co_usage", "List, then read.", [cite(r[0], 0), cite(r[0], 1)], peer="read_text_file",
                     relation="data"))
        silent(endpoint, scene)
        graph = scene.graph()
        inducer = LlmInducer(llm)
        await inducer.induce_task(scene.task, scene.rollouts, scene.verdicts, graph)
        before = {i: (e.support, e.transitions, len(e.evidence)) for i, e in graph.entries.items()}
        opportunities = dict(graph.transition_opportunities)
        second = await inducer.induce_task(scene.task, scene.rollouts, scene.verdicts, graph)
        assert {i: (e.support, e.transitions, len(e.evidence)) for i, e in graph.entries.items()} == before
        assert dict(graph.transition_opportunities) == opportunities and len(graph.traces) == 1
        assert second.new_entries == [] and second.reinforced == []


class TestLayersAndFailures:
    async def test_capability_layer_off_writes_no_entries(self, scene: Scenario, endpoint, llm) -> None:
        """Ablation: without the capability layer the aggregator is never asked and no entry is written."""
        silent(endpoint, scene)
        graph = scene.graph()
        await induce(llm, scene, graph, capability_layer=False)
        asked = {request.role_tag.prompt for request in endpoint.chat_requests}
        assert asked == {"reflector"} and not graph.entries

    async def test_malformed_answers_are_recorded_not_raised(self, scene: Scenario, endpoint, llm) -> None:
        """Malformed JSON, schema-violating JSON (after the repair) and an endpoint that keeps failing are
        recorded per prompt; induction returns with what the valid answers gave."""
        endpoint.script.add(Fault.malformed_json(), where=for_tool("read_text_file"))
        endpoint.script.add(Fault.server_error(), where=for_tool("list_directory"))
        endpoint.script.add(Fault.invalid_schema(), system="prompt=reflector")
        graph = scene.graph()
        report = await induce(llm, scene, graph)
        assert sorted(f.prompt for f in report.failures) == ["capability_aggregator", "capability_aggregator", "reflector"]
        assert any("HTTP 500" in f.error for f in report.failures)
        assert not graph.entries and not graph.traces and report.llm_calls == 2

    async def test_tokens_are_booked_under_the_inducer_role(self, scene: Scenario, endpoint, llm) -> None:
        """Every question runs as the `inducer` role, booked under the task's server and round."""
        silent(endpoint, scene)
        report = await induce(llm, scene, scene.graph())
        rows = [row for row in llm.ledger.rows if row.role == "inducer"]
        assert {(row.server, row.round) for row in rows} == {("filesystem", 0)} == {(r.server, r.round) for r in llm.ledger.rows}
        assert report.llm_calls == 3 == sum(row.tally.calls for row in rows)
        assert report.prompt_tokens == sum(row.tally.prompt_tokens for row in rows) > 0

