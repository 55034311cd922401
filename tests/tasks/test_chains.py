"""Chain-decompiled tasks from real offline chains: assertions read off the real post-state, a
scripted LLM writing the request over HTTP, and a replay in a fresh real sandbox deciding."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
from pathlib import Path

import pytest

from toolatlas.config import LlmSettings
from toolatlas.llm import LlmClient
from toolatlas.models import OutcomeClass
from toolatlas.tasks.assertions import check_assertion
from toolatlas.tasks.decompiler import ChainDecompiler, accept_chain_task, settle_by_replay
from toolatlas.tasks.models import TaskOrigin
from toolatlas.tasks.vetting import RejectionReason, named_tools
from toolatlas.testing.openai_script import Script
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.testing.openai_wire import ChatRequest

from .conftest import OfflineRun, listed_values, section

pytestmark = pytest.mark.servers


def write_up(request: ChatRequest) -> dict:
    """A rule-driven decompiler: states every value it must, asks for the answer without revealing it."""
    values = listed_values(request, "Values the request must state")
    if values:
        text = (
            "Please set the project up so that it has: " + "; ".join(f"'{value}'" for value in values) + "."
        )
    else:
        text = "Look through the project's documentation and tell me what the first document says."
    return {"text": text, "rationale": "the chain as a user request"}


def head_subject_by_git(repo: str) -> str:
    """What git itself says HEAD's subject is."""
    log = subprocess.run(
        ["git", "-C", repo, "log", "-1", "--format=%s"], capture_output=True, text=True, check=True
    )
    return log.stdout.strip()


def git(repo: str, *args: str) -> str:
    """What git itself says, read-only."""
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def decompiler_requests(endpoint: ScriptedOpenAIServer) -> list[ChatRequest]:
    return [r for r in endpoint.chat_requests if r.role == "decompiler"]


class TestFilesystemChains:
    async def test_a_write_chain_becomes_a_task_whose_assertions_are_the_recorded_file(
        self,
        filesystem_run: OfflineRun,
        script: Script,
        endpoint: ScriptedOpenAIServer,
        llm_settings: LlmSettings,
    ) -> None:
        """write_file → read_file: one file_contains per line the chain really wrote; the replay passes."""
        probe, rollout, verdict = filesystem_run.chain("write_file", "read_file")
        script.add(write_up, role="decompiler")
        async with (
            LlmClient(llm_settings) as llm,
            filesystem_run.workspace.sandbox(filesystem_run.spec) as sandbox,
        ):
            batch = await ChainDecompiler(llm, filesystem_run.brief()).decompile(
                probe, rollout, verdict, sandbox
            )

        assert batch.rejected == []
        (task,) = batch.accepted
        assert rollout.frozen is not None
        (written,) = verdict.change.added
        on_disk = (Path(rollout.frozen.path) / written).read_text()
        lines = [line.strip() for line in on_disk.splitlines() if line.strip()]
        assert [(a.kind, a.target, a.expected) for a in task.verifier.assertions] == [
            ("file_contains", written, line) for line in lines
        ]
        assert (task.origin, task.source_probe, task.targets) == (
            TaskOrigin.CHAIN,
            probe.id,
            ["write_file", "read_file"],
        )
        assert task.verifier.kind == "assertions" and task.verifier.requires_change
        assert named_tools(task.text, filesystem_run.graph.specs) == []
        (request,) = decompiler_requests(endpoint)
        assert request.system_text.startswith("[toolatlas:role=decompiler v1 prompt=decompiler]")
        assert f'arguments: {{"path": "{written}"' in section(request, "The calls")
        assert listed_values(request, "Values the request must state") == [written, *lines]

    async def test_a_tampered_assertion_fails_the_replay_and_the_task_is_dropped(
        self, filesystem_run: OfflineRun, script: Script, llm_settings: LlmSettings
    ) -> None:
        """The true assertions pass on a replay from the snapshot; one changed expectation makes it fail."""
        probe, rollout, verdict = filesystem_run.chain("write_file", "read_file")
        script.add(write_up, role="decompiler")
        async with (
            LlmClient(llm_settings) as llm,
            filesystem_run.workspace.sandbox(filesystem_run.spec) as sandbox,
        ):
            batch = await ChainDecompiler(llm, filesystem_run.brief()).write(probe, rollout, verdict)
            (task,) = batch.accepted
            honest = await accept_chain_task(task, probe, sandbox)
            first, *rest = task.verifier.assertions
            wrong = first.model_copy(update={"expected": "a line nobody wrote"})
            tampered = task.model_copy(
                update={"verifier": task.verifier.model_copy(update={"assertions": [wrong, *rest]})}
            )
            settled = await settle_by_replay(
                batch.model_copy(update={"accepted": [tampered]}), probe, sandbox
            )
            assert await sandbox.digest() == await sandbox.digest(sandbox.snapshot)

        assert honest.passed and all(r.passed for r in honest.results)
        assert honest.outcomes == [OutcomeClass.OK, OutcomeClass.OK]
        assert settled.accepted == []
        (dropped,) = settled.rejected
        assert dropped.reason is RejectionReason.REPLAY_FAILED
        assert "lacks 'a line nobody wrote'" in dropped.detail

    async def test_a_read_only_chain_asks_for_values_of_its_final_output(
        self,
        filesystem_run: OfflineRun,
        script: Script,
        endpoint: ScriptedOpenAIServer,
        llm_settings: LlmSettings,
    ) -> None:
        """list_directory → read_text_file changed nothing: the answer must contain lines the read returned."""
        probe, rollout, verdict = filesystem_run.chain("list_directory", "read_text_file")
        script.add(write_up, role="decompiler")
        async with (
            LlmClient(llm_settings) as llm,
            filesystem_run.workspace.sandbox(filesystem_run.spec) as sandbox,
        ):
            batch = await ChainDecompiler(llm, filesystem_run.brief()).decompile(
                probe, rollout, verdict, sandbox
            )

        (task,) = batch.accepted
        assert rollout.frozen is None and not task.verifier.requires_change
        output = rollout.steps[-1].outcome.excerpt
        expected = [a.expected for a in task.verifier.assertions]
        assert [a.kind for a in task.verifier.assertions] == ["answer_contains"] * 2
        assert all(value in output for value in expected)
        (request,) = decompiler_requests(endpoint)
        assert listed_values(request, "The answer must contain (do not reveal these)") == expected

    async def test_a_text_that_omits_a_value_or_gives_the_answer_away_is_rejected(
        self, filesystem_run: OfflineRun, script: Script, llm_settings: LlmSettings
    ) -> None:
        """A vague request cannot be met; a question that quotes its answer tests nothing: both are recorded."""
        write = filesystem_run.chain("write_file", "read_file")
        read = filesystem_run.chain("list_directory", "read_text_file")
        script.add(
            {"text": "Please write a short note somewhere.", "rationale": "vague"}, role="decompiler", times=1
        )

        def quoting_the_answer(request: ChatRequest) -> dict:
            answer = listed_values(request, "The answer must contain (do not reveal these)")
            return {"text": f"Is it true that the first document says '{answer[0]}'?", "rationale": "leaks"}

        script.add(quoting_the_answer, role="decompiler")
        async with LlmClient(llm_settings) as llm:
            decompiler = ChainDecompiler(llm, filesystem_run.brief())
            vague = await decompiler.write(*write)
            leaky = await decompiler.write(*read)

        (omits,) = vague.rejected
        assert omits.reason is RejectionReason.OMITS_VALUE
        assert write[1].frozen is not None and write[2].change.added[0] in omits.detail
        (gives,) = leaky.rejected
        assert gives.reason is RejectionReason.GIVES_AWAY_ANSWER
        assert gives.verifier is not None and gives.verifier.assertions[0].expected in gives.detail

    async def test_a_single_call_is_not_a_chain_and_costs_no_llm_call(
        self, filesystem_run: OfflineRun, endpoint: ScriptedOpenAIServer, llm_settings: LlmSettings
    ) -> None:
        """A one-step seed probe is rejected as not_a_chain before anything is asked."""
        single = next(record for record in filesystem_run.records if len(record[0].steps) == 1)
        async with LlmClient(llm_settings) as llm:
            batch = await ChainDecompiler(llm, filesystem_run.brief()).write(*single)
        (rejection,) = batch.rejected
        assert rejection.reason is RejectionReason.NOT_A_CHAIN
        assert endpoint.chat_requests == []


class TestOtherStateKinds:
    async def test_a_create_table_chain_asserts_the_new_tables_columns(
        self, sqlite_run: OfflineRun, script: Script, llm_settings: LlmSettings
    ) -> None:
        """create_table → list_tables: the columns the real post-state holds, checked again after a replay."""
        probe, rollout, verdict = sqlite_run.chain("create_table", "list_tables")
        script.add(write_up, role="decompiler")
        async with LlmClient(llm_settings) as llm, sqlite_run.workspace.sandbox(sqlite_run.spec) as sandbox:
            batch = await ChainDecompiler(llm, sqlite_run.brief()).decompile(probe, rollout, verdict, sandbox)

        (task,) = batch.accepted
        (table_key,) = verdict.change.added
        table = table_key.removeprefix("schema:table:")
        assert rollout.frozen is not None
        conn = sqlite3.connect(rollout.frozen.path)
        columns = [
            row[0] for row in conn.execute(f"SELECT name FROM pragma_table_info('{table}') ORDER BY cid")
        ]
        conn.close()
        (assertion,) = task.verifier.assertions  # the new table is empty: its columns are the whole change
        assert assertion.kind == "query_rows"
        assert assertion.expected == [{"name": column} for column in columns]
        assert len(columns) >= 2 and table in task.text and all(column in task.text for column in columns)

    async def test_a_stage_and_commit_chain_asserts_the_new_head_subject(
        self, git_run: OfflineRun, script: Script, llm_settings: LlmSettings
    ) -> None:
        """git_add → git_commit: HEAD's new subject as git reports it in the recorded state; a replay commits it again."""
        probe, rollout, verdict = git_run.chain("git_add", "git_commit")
        script.add(write_up, role="decompiler")
        async with LlmClient(llm_settings) as llm, git_run.workspace.sandbox(git_run.spec) as sandbox:
            batch = await ChainDecompiler(llm, git_run.brief()).decompile(probe, rollout, verdict, sandbox)

        (task,) = batch.accepted
        assert rollout.frozen is not None
        subject = await asyncio.to_thread(head_subject_by_git, rollout.frozen.path)
        assert [(a.kind, a.expected) for a in task.verifier.assertions] == [("git_head_subject", subject)]
        assert subject == probe.steps[1].arguments["message"]
        assert task.targets == ["git_add", "git_commit"] and task.verifier.requires_change

    async def test_a_checkout_chain_asserts_the_branch_git_reports_checked_out(
        self, git_run: OfflineRun, script: Script, llm_settings: LlmSettings
    ) -> None:
        """git_branch → git_checkout makes no commit: the task asserts the branch checked out in the
        recorded state (beside its tip's subject and the work tree it brought), which fails on the
        snapshot and is stated in the request."""
        probe, rollout, verdict = git_run.chain("git_branch", "git_checkout")
        script.add(write_up, role="decompiler")
        async with LlmClient(llm_settings) as llm, git_run.workspace.sandbox(git_run.spec) as sandbox:
            batch = await ChainDecompiler(llm, git_run.brief()).decompile(probe, rollout, verdict, sandbox)

        (task,) = batch.accepted
        assert rollout.frozen is not None
        by_kind = {a.kind: a for a in task.verifier.assertions if a.kind.startswith("git_")}
        assert set(by_kind) == {"git_current_branch", "git_head_subject"}  # that branch's tip differs too
        assertion = by_kind["git_current_branch"]
        assert assertion.expected == git(rollout.frozen.path, "symbolic-ref", "--short", "HEAD").strip()
        assert by_kind["git_head_subject"].expected == head_subject_by_git(rollout.frozen.path)
        assert assertion.expected == probe.steps[1].arguments["branch_name"] and assertion.expected in task.text
        on_snapshot = check_assertion(assertion, git_run.brief().initial_state)
        assert not on_snapshot.passed and "checked out" in on_snapshot.detail
        assert task.verifier.requires_change

    async def test_a_create_entity_chain_asserts_the_record_the_server_wrote(
        self, memory_run: OfflineRun, script: Script, llm_settings: LlmSettings
    ) -> None:
        """create_entities → open_nodes: the JSON line the memory server stored, byte for byte; a replay writes it again."""
        probe, rollout, verdict = memory_run.chain("create_entities", "open_nodes")
        script.add(write_up, role="decompiler")
        async with LlmClient(llm_settings) as llm, memory_run.workspace.sandbox(memory_run.spec) as sandbox:
            batch = await ChainDecompiler(llm, memory_run.brief()).decompile(probe, rollout, verdict, sandbox)

        (task,) = batch.accepted
        assert rollout.frozen is not None
        (entity,) = probe.steps[0].arguments["entities"]
        stored = [
            line for line in Path(rollout.frozen.path).read_text().splitlines() if entity["name"] in line
        ]
        assert [(a.kind, a.target, a.expected) for a in task.verifier.assertions] == [
            ("file_contains", "", stored[0])
        ]
        assert entity["name"] in task.text and all(o in task.text for o in entity["observations"])
