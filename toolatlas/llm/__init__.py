"""The LLM backend: any OpenAI-compatible endpoint, for every role of the paper's method.

::

    from toolatlas.llm import LlmClient

    async with LlmClient(catalogue.llm) as llm:
        reply = await llm.complete("proposer", messages, response_model=SeedTasks, server="git", round=0)
        if reply.ok:
            tasks = reply.parsed
        usage_per_role = llm.ledger.by_role()

Roles are :data:`LLM_ROLES`; each system prompt starts with :func:`role_tag`. The scripted
OpenAI-compatible server for tests is :mod:`toolatlas.testing.openai_server`.
"""

from toolatlas.llm.client import ROLE_HEADER, BoundLlm, LlmClient, repair_prompt
from toolatlas.llm.ledger import UsageKey, UsageLedger, UsageRow, UsageTally
from toolatlas.llm.limits import endpoint_limit
from toolatlas.llm.models import (
    LlmReply,
    Message,
    StructuredOutputFailure,
    TokenUsage,
    ToolCall,
    function_tool,
    tool_result_message,
)
from toolatlas.llm.retry import RETRY_AFTER_CAP_S, RetryPolicy, is_retryable_status, retry_after_s
from toolatlas.llm.roles import LLM_ROLES, RoleTag, check_role, parse_role_tag, role_tag
from toolatlas.llm.schema import (
    describe_validation_error,
    response_format_for,
    strict_schema,
    validate_answer,
)

__all__ = [
    "LLM_ROLES",
    "RETRY_AFTER_CAP_S",
    "ROLE_HEADER",
    "BoundLlm",
    "LlmClient",
    "LlmReply",
    "Message",
    "RetryPolicy",
    "RoleTag",
    "StructuredOutputFailure",
    "TokenUsage",
    "ToolCall",
    "UsageKey",
    "UsageLedger",
    "UsageRow",
    "UsageTally",
    "check_role",
    "describe_validation_error",
    "endpoint_limit",
    "function_tool",
    "is_retryable_status",
    "parse_role_tag",
    "repair_prompt",
    "response_format_for",
    "retry_after_s",
    "role_tag",
    "strict_schema",
    "tool_result_message",
    "validate_answer",
]
