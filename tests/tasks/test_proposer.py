"""The LLM task proposer: seed and probe tasks for real demo tools, grounded in a real offline graph,
each verifier vetted in the real code box against the real snapshot; the LLM is a scripted
OpenAI-compatible server over HTTP."""

from __future__ import annotations

import pytest

from toolatlas.config import LlmSettings
from toolatlas.llm import LlmClient
from toolatlas.tasks.models import TaskOrigin, TaskSpec
from toolatlas.tasks.proposer import TaskProposer
from toolatlas.tasks.vetting import RejectionReason
from toolatlas.testing.openai_script import Fault, Script
from toolatlas.testing.openai_server import ScriptedOpenAIServer
from toolatlas.testing.openai_wire import ChatRequest

from .conftest import FILESYSTEM_README, OfflineRun, asked_counts, section, target_tool, task, tasks_answer

pytestmark = pytest.mark.servers

GROCERIES = "Put a shopping list in notes/groceries.txt whose only line is 'buy oat milk'."
GROCERIES_CHECK = (
    "def verify(state, answer):\n"
    "    if not state.exists('notes/groceries.txt'):\n"
    "        return False\n"
    "    return state.read_text('notes/groceries.txt').strip() == 'buy oat milk'\n"
)
ALWAYS = "def verify(state, answer):\n    return True\n"
CRASHES = "def verify(state, answer):\n    return state.read_text('notes/todo-2.txt').startswith('call')\n"
PROJECT_NAME = "What is the name of this project, according to its README? Answer with the name."
NAME_CHECK = "def verify(state, answer):\n    return 'inventory' in (answer or '').lower()\n"


def proposer_requests(endpoint: ScriptedOpenAIServer) -> list[ChatRequest]:
    return [r for r in endpoint.chat_requests if r.role == "proposer"]


class TestSeedTasks:
    async def test_good_verifiers_are_kept_and_the_rest_recorded_with_their_reason(
        self, filesystem_run: OfflineRun, script: Script, llm_settings: LlmSettings
    ) -> None:
        """A real check and a question are kept; `return True`, a crashing check and a tool-naming text are not."""
        script.add(
            tasks_answer(
                task("seed", GROCERIES, GROCERIES_CHECK),
                task("seed", "Make sure the project keeps a shopping list.", ALWAYS),
                task("seed", "Start a second to-do list in notes/todo-2.txt with 'call the bank'.", CRASHES),
                task("seed", "Use write_file to save 'hi' into notes/hi.txt.", GROCERIES_CHECK),
                task("seed", PROJECT_NAME, NAME_CHECK, requires_change=False),
            ),
            role="proposer",
        )
        async with LlmClient(llm_settings) as llm:
            batch = await TaskProposer(llm, filesystem_run.brief()).seed_tasks("write_file", k=5)

        assert [t.text for t in batch.accepted] == [GROCERIES, PROJECT_NAME]
        kept = batch.accepted[0]
        assert kept.id == TaskSpec.make_id("filesystem", TaskOrigin.BOOTSTRAP, GROCERIES)
        assert (kept.origin, kept.round, kept.targets) == (TaskOrigin.BOOTSTRAP, 0, ["write_file"])
        assert (kept.verifier.kind, kept.verifier.source, kept.verifier.requires_change) == (
            "code",
            GROCERIES_CHECK,
            True,
        )
        assert batch.accepted[1].verifier.requires_change is False
        rejected = {r.text: r for r in batch.rejected}
        assert (
            rejected["Make sure the project keeps a shopping list."].reason
            is RejectionReason.VERIFIER_VACUOUS
        )
        crash = rejected["Start a second to-do list in notes/todo-2.txt with 'call the bank'."]
        assert crash.reason is RejectionReason.VERIFIER_CRASHES
        assert "FileNotFoundError" in crash.detail
        named = rejected["Use write_file to save 'hi' into notes/hi.txt."]
        assert (named.reason, named.detail) == (RejectionReason.NAMES_TOOL, "names write_file")
        assert batch.rejection_counts == {"verifier_vacuous": 1, "verifier_crashes": 1, "names_tool": 1}
        assert all(r.verifier is not None and r.targets == ["write_file"] for r in batch.rejected)

    async def test_the_prompt_is_grounded_in_the_tool_its_docs_the_graph_and_the_snapshot(
        self,
        filesystem_run: OfflineRun,
        script: Script,
        endpoint: ScriptedOpenAIServer,
        llm_settings: LlmSettings,
    ) -> None:
        """The request carries the tool's schema, a README snippet, verified arguments and real file names."""
        script.add(tasks_answer(task("seed", GROCERIES, GROCERIES_CHECK)), role="proposer")
        brief = filesystem_run.brief(docs=[FILESYSTEM_README])
        async with LlmClient(llm_settings) as llm:
            batch = await TaskProposer(llm, brief).seed_tasks("write_file", k=1)
            usage = llm.ledger.select(role="proposer", server="filesystem", round=0)

        assert len(batch.accepted) == 1
        (request,) = proposer_requests(endpoint)
        assert request.system_text.startswith("[toolatlas:role=proposer v1 prompt=proposer]")
        assert request.schema_name == "ProposedTasks"
        assert '"required": ["path", "content"]' in section(request, "The target tool")
        assert "Create new file or overwrite existing" in section(request, "Usage snippets")
        verified = section(request, "What real calls verified")
        (affordance,) = filesystem_run.graph.entries_of("write_file")[:1]
        assert affordance.example_arguments is not None
        assert affordance.example_arguments["path"] in verified
        environment = section(request, "The environment")
        assert "- README.md (" in environment and "'# inventory'" in environment
        assert asked_counts(request) == {"seed": 1, "boundary": 0, "affordance": 0}
        assert usage.calls == 1 and usage.failures == 0 and usage.prompt_tokens > 0

    async def test_a_malformed_answer_is_a_recorded_failure(
        self,
        filesystem_run: OfflineRun,
        script: Script,
        endpoint: ScriptedOpenAIServer,
        llm_settings: LlmSettings,
    ) -> None:
        """JSON that never parses, even after the repair, yields no task and one llm_failure record."""
        script.add(Fault.malformed_json(), role="proposer")
        async with LlmClient(llm_settings) as llm:
            batch = await TaskProposer(llm, filesystem_run.brief()).seed_tasks("write_file", k=3)
            usage = llm.ledger.select(role="proposer")

        assert batch.accepted == []
        (failure,) = batch.rejected
        assert (failure.reason, failure.origin, failure.targets) == (
            RejectionReason.LLM_FAILURE,
            TaskOrigin.BOOTSTRAP,
            ["write_file"],
        )
        assert "after 2 attempts" in failure.detail
        assert len(proposer_requests(endpoint)) == 2
        assert usage.failures == 1

    async def test_extra_and_repeated_tasks_are_recorded_not_kept(
        self, filesystem_run: OfflineRun, script: Script, llm_settings: LlmSettings
    ) -> None:
        """Beyond k, or of a kind not asked for, or the same text twice: recorded with that reason."""
        script.add(
            tasks_answer(
                task("seed", GROCERIES, GROCERIES_CHECK),
                task("seed", f"  {GROCERIES}  ", GROCERIES_CHECK),
                task("boundary", PROJECT_NAME, NAME_CHECK, requires_change=False),
                task("seed", PROJECT_NAME, NAME_CHECK, requires_change=False),
                task("seed", "Write 'x' to notes/x.txt.", GROCERIES_CHECK),
            ),
            role="proposer",
        )
        async with LlmClient(llm_settings) as llm:
            batch = await TaskProposer(llm, filesystem_run.brief()).seed_tasks("write_file", k=3)

        assert [t.text for t in batch.accepted] == [GROCERIES, PROJECT_NAME]
        assert [r.reason for r in batch.rejected] == [
            RejectionReason.DUPLICATE,
            RejectionReason.NOT_ASKED,
            RejectionReason.NOT_ASKED,
        ]


def probe_tasks_for(request: ChatRequest) -> dict:
    """A rule-driven proposer: as many tasks of each kind as asked, about the target tool."""
    tool = target_tool(request)
    tasks = []
    for kind, count in asked_counts(request).items():
        for i in range(count):
            token = f"{kind}-{i}"
            tasks.append(
                task(
                    kind,
                    f"({token}) Tell me what happens when the file docs/{token}.md is opened, quoting any error.",
                    f"def verify(state, answer):\n    return {token!r} in (answer or '') and 'docs' in answer\n",
                    requires_change=False,
                    rationale=f"{kind} probe of {tool}",
                )
            )
    return tasks_answer(*tasks)


class TestProbeTasks:
    async def test_three_boundary_and_three_affordance_tasks_from_the_tool_node_context(
        self,
        filesystem_run: OfflineRun,
        script: Script,
        endpoint: ScriptedOpenAIServer,
        llm_settings: LlmSettings,
    ) -> None:
        """Round 1 on read_text_file: its boundaries, neighbours and traces are in the prompt; 3 + 3 tasks come back."""
        script.add(probe_tasks_for, role="proposer")
        settings = filesystem_run.workspace.catalogue.build
        async with LlmClient(llm_settings) as llm:
            batch = await TaskProposer(llm, filesystem_run.brief()).probe_tasks(
                "read_text_file",
                1,
                boundary=settings.boundary_probes_per_tool,
                affordance=settings.affordance_probes_per_tool,
            )
            usage = llm.ledger.select(role="proposer", server="filesystem", round=1)

        assert batch.rejected == []
        assert [(t.origin, t.round, t.targets) for t in batch.accepted] == [
            (TaskOrigin.BOUNDARY, 1, ["read_text_file"])
        ] * 3 + [(TaskOrigin.AFFORDANCE, 1, ["read_text_file"])] * 3
        (request,) = proposer_requests(endpoint)
        assert asked_counts(request) == {"seed": 0, "boundary": 3, "affordance": 3}
        verified = section(request, "What real calls verified")
        boundary = next(
            e for e in filesystem_run.graph.entries_of("read_text_file") if e.kind.value == "boundary"
        )
        assert boundary.evidence[0].excerpt[:60] in verified
        neighbours = section(request, "Neighbouring tools")
        assert "list_directory (list_directory → read_text_file" in neighbours
        assert "list_directory → read_text_file |" in section(request, "Traces that use the target tool")
        assert usage.calls == 1

    async def test_no_directions_asked_means_no_call(
        self, filesystem_run: OfflineRun, endpoint: ScriptedOpenAIServer, llm_settings: LlmSettings
    ) -> None:
        """With both probe directions switched off, the proposer asks the LLM nothing."""
        async with LlmClient(llm_settings) as llm:
            batch = await TaskProposer(llm, filesystem_run.brief()).probe_tasks(
                "read_text_file", 2, boundary=0, affordance=0
            )
        assert (batch.accepted, batch.rejected, endpoint.chat_requests) == ([], [], [])
