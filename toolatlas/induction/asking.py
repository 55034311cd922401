"""One structured question to the LLM from a prompt file, with its usage and failure booked in a report.

A malformed answer (after the client's repairs) or an endpoint that fails beyond its retries is
recorded in the :class:`~toolatlas.induction.models.ReportBuilder` and answered with ``None``:
induction goes on with what it has, and loses nothing it already wrote.
"""

from __future__ import annotations

from typing import Any, TypeVar

import structlog
from pydantic import BaseModel

from toolatlas.errors import LlmError
from toolatlas.induction.models import LlmFailureNote, ReportBuilder
from toolatlas.llm import LlmClient
from toolatlas.prompts import load_prompt

__all__ = ["ask"]

log = structlog.get_logger(__name__)

T = TypeVar("T", bound=BaseModel)


async def ask(llm: LlmClient, prompt_name: str, answer: type[T], report: ReportBuilder, **values: Any) -> T | None:
    """Ask ``prompt_name`` (filled with ``values``) for an ``answer``; None when none validated."""
    prompt = load_prompt(prompt_name)
    try:
        reply = await llm.complete(
            prompt.role, prompt.messages(**values), response_model=answer, server=report.server, round=report.round
        )
    except LlmError as exc:
        report.failures.append(LlmFailureNote(prompt=prompt_name, error=str(exc)))
        log.warning("induction_llm_failed", prompt=prompt_name, server=report.server, task=report.task_id, error=str(exc))
        return None
    report.count_reply(prompt_name, reply)
    if reply.failure is not None:
        log.warning("induction_answer_invalid", prompt=prompt_name, server=report.server, task=report.task_id,
                    error=reply.failure.error)
    return reply.parsed
