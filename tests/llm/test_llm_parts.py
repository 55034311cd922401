"""The pure parts of the LLM backend: role tags, strict schemas, answer validation, retry decisions,
and the [llm] catalogue block."""

from __future__ import annotations

import email.utils
import pickle
import random
import time
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from toolatlas.config import LLM_ROLES, load_catalogue
from toolatlas.errors import BackendError, ConfigError, LlmError, LlmOutputError
from toolatlas.llm import (
    RETRY_AFTER_CAP_S,
    RetryPolicy,
    is_retryable_status,
    parse_role_tag,
    response_format_for,
    retry_after_s,
    role_tag,
    strict_schema,
    validate_answer,
)


class Inner(BaseModel):
    label: str = Field(description="a described nested field")


class Outer(BaseModel):
    inner: Inner = Field(description="described reference")
    items: list[Inner] = []
    count: int = 3


class TestRoleTags:
    def test_round_trip(self) -> None:
        """role_tag writes the tag a system prompt opens with; parse_role_tag reads role and version back."""
        assert role_tag("proposer", 2) == "[toolatlas:role=proposer v2]"
        tag = parse_role_tag(role_tag("navigator") + "\nYou navigate.")
        assert tag is not None and (tag.role, tag.version) == ("navigator", 1)

    def test_only_at_the_start(self) -> None:
        """A tag elsewhere in the text, or no tag, parses to None."""
        assert parse_role_tag("hello [toolatlas:role=agent v1]") is None
        assert parse_role_tag(None) is None

    def test_unknown_role_rejected(self) -> None:
        """Tags are only written for known roles."""
        with pytest.raises(ConfigError, match="unknown LLM role"):
            role_tag("wizard")


class TestSchemas:
    def test_strict_closes_objects_and_requires_everything(self) -> None:
        """Every object gets additionalProperties=false and all its properties required; defaults go."""
        fmt = response_format_for(Outer)["json_schema"]
        schema = fmt["schema"]
        assert fmt["strict"] is True
        assert schema["required"] == ["inner", "items", "count"] and schema["additionalProperties"] is False
        assert schema["$defs"]["Inner"]["additionalProperties"] is False
        assert "default" not in schema["properties"]["count"]

    def test_reference_with_siblings_is_inlined(self) -> None:
        """A $ref with a description beside it (strict mode forbids that) is replaced by its definition."""
        inner = response_format_for(Outer)["json_schema"]["schema"]["properties"]["inner"]
        assert "$ref" not in inner and inner["description"] == "described reference"
        assert inner["properties"]["label"]["type"] == "string"

    def test_not_strict_when_impossible(self) -> None:
        """Free-form maps and tuples have no strict form."""

        class WithMap(BaseModel):
            m: dict[str, int]

        class WithTuple(BaseModel):
            pair: tuple[int, str]

        assert strict_schema(WithMap.model_json_schema()) is None
        assert strict_schema(WithTuple.model_json_schema()) is None

    def test_validate_answer(self) -> None:
        """Valid JSON parses; bad JSON, wrong types and empty answers return a reason naming the problem."""
        parsed, error = validate_answer(Inner, '{"label": "x"}')
        assert parsed == Inner(label="x") and error is None
        assert "Invalid JSON" in (validate_answer(Inner, "{")[1] or "")
        assert (validate_answer(Inner, '{"label": 5}')[1] or "").startswith("label:")
        assert "empty" in (validate_answer(Inner, "  ")[1] or "")


class TestErrors:
    def test_llm_errors_cross_process_boundaries(self) -> None:
        """LlmError and LlmOutputError pickle (Ray re-raises them in the driver) with status and attempts."""
        for error in (LlmError("down", status=503, attempts=5), LlmOutputError("bad json", attempts=3)):
            copy = pickle.loads(pickle.dumps(error))
            assert type(copy) is type(error) and isinstance(copy, BackendError)
            assert (str(copy), copy.status, copy.attempts) == (str(error), error.status, error.attempts)


class TestRetryDecisions:
    def test_retryable_statuses(self) -> None:
        """429, 408, 409 and 5xx are retried; other 4xx are not."""
        assert all(is_retryable_status(status) for status in (408, 409, 429, 500, 502, 503, 504))
        assert not any(is_retryable_status(status) for status in (400, 401, 403, 404, 422))

    def test_retry_after_forms(self) -> None:
        """Seconds, milliseconds and HTTP dates are all understood; garbage is ignored."""
        assert retry_after_s({"Retry-After": "2"}) == 2.0
        assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
        future = email.utils.formatdate(time.time() + 30, usegmt=True)
        assert 25 < (retry_after_s({"retry-after": future}) or 0) <= 30
        assert retry_after_s({"retry-after": "soon"}) is None and retry_after_s(None) is None

    def test_backoff_grows_with_jitter_and_cap(self) -> None:
        """Delays lie in [c/2, c], c doubling per retry up to the cap; Retry-After wins."""
        policy, rng = RetryPolicy(max_retries=5, base_s=1.0, cap_s=4.0), random.Random(0)
        for retry, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (5, 4.0)]:
            delays = [policy.delay_s(retry, rng=rng) for _ in range(50)]
            assert all(ceiling / 2 <= delay <= ceiling for delay in delays)
            assert len(set(delays)) > 1
        assert policy.delay_s(0, retry_after=7.5) == 7.5
        assert policy.delay_s(0, retry_after=10_000) == RETRY_AFTER_CAP_S


LLM_BLOCK = """
name = "t"
[llm]
base_url = "http://127.0.0.1:8000/v1"
model = "qwen2.5-7b-instruct"
max_retries = 6
role_models = { navigator = "qwen2.5-1.5b-instruct" }
role_temperatures = { agent = 0.8 }
[llm.prices."qwen2.5-7b-instruct"]
input_per_1m = 0.1
output_per_1m = 0.2
"""


class TestLlmSettings:
    def test_block_loads(self, tmp_path: Path) -> None:
        """The [llm] block with roles and prices loads; role_models picks per-role models."""
        path = tmp_path / "c.toml"
        path.write_text(LLM_BLOCK)
        llm = load_catalogue(path).llm
        assert llm is not None
        assert (llm.max_retries, llm.structured_output_retries, llm.max_concurrency) == (6, 2, 8)
        assert (llm.model_for("navigator"), llm.model_for("agent")) == (
            "qwen2.5-1.5b-instruct",
            "qwen2.5-7b-instruct",
        )
        assert llm.prices["qwen2.5-7b-instruct"].cost(1_000_000, 1_000_000) == pytest.approx(0.3)
        assert set(LLM_ROLES) >= {"proposer", "agent", "inducer", "navigator"}

    @pytest.mark.parametrize(
        ("old", "new", "field", "message"),
        [
            ("navigator =", "navigatr =", "llm.role_models", "unknown role(s) 'navigatr'"),
            ("agent = 0.8", "agent = 3.5", "llm.role_temperatures", "temperature must be between 0 and 2"),
            ("max_retries = 6", "max_retries = -1", "llm.max_retries", "greater than or equal to 0"),
            (
                "output_per_1m = 0.2",
                "",
                "llm.prices.qwen2.5-7b-instruct.output_per_1m",
                "required field is missing",
            ),
            (
                "max_retries = 6",
                'max_tokens_param = "max_output"',
                "llm.max_tokens_param",
                "'max_completion_tokens'",
            ),
            ("max_retries = 6", "max_retry = 6", "llm.max_retry", "unknown field"),
        ],
    )
    def test_errors_name_file_and_field(
        self, tmp_path: Path, old: str, new: str, field: str, message: str
    ) -> None:
        """A bad [llm] value fails with the file and the field path in the message."""
        path = tmp_path / "c.toml"
        path.write_text(LLM_BLOCK.replace(old, new))
        with pytest.raises(ConfigError) as caught:
            load_catalogue(path)
        text = str(caught.value)
        assert str(path) in text and f"{field}: " in text and message in text
