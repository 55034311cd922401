"""Values that honour the schema's own keywords, judged by ``jsonschema`` against the tool's input schema."""

from __future__ import annotations

import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.schemas import conforms, schema_example
from toolatlas.offline.values import ValueSynth


def tool_with(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": required or list(properties), **extra}
    return ToolSpec(server="unseen", name="operate", description="", input_schema=schema)


def planned(tool: ToolSpec, variant: int, seed: int = 0) -> dict[str, Any]:
    synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(seed))
    call = synth.valid_arguments(tool, infer_arguments(tool), variant)
    assert call is not None
    return call.arguments


def assert_valid(tool: ToolSpec, arguments: dict[str, Any]) -> None:
    validator = Draft202012Validator(tool.input_schema, format_checker=FormatChecker())
    errors = [e.message for e in validator.iter_errors(arguments)]
    assert not errors, (arguments, errors)


# (properties, a near-miss value of the first property)
SCHEMAS: list[tuple[dict[str, Any], Any]] = [
    ({"code": {"type": "string", "pattern": "^[A-Z]{2}-\\d{4}$"}}, "AB-123"),
    (
        {"token": {"type": "string", "pattern": "^tok_[a-f0-9]{8}$", "description": "An access token"}},
        "tok_123",
    ),
    ({"level": {"type": "integer", "minimum": 3, "maximum": 9, "multipleOf": 3}}, 4),
    ({"ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}}, 1),
    ({"name": {"type": "string", "minLength": 12, "maxLength": 16}}, "short"),
    (
        {
            "tags": {
                "type": "array",
                "items": {"type": "string", "enum": ["a", "b", "c"]},
                "minItems": 2,
                "uniqueItems": True,
            }
        },
        ["a", "a"],
    ),
    ({"mode": {"const": "fast"}}, "slow"),
    ({"when": {"type": "string", "format": "date"}}, "2024-13-45"),
    ({"ip": {"type": "string", "format": "ipv4"}}, "300.1.1.1"),
    ({"contact": {"type": "string", "format": "email"}}, "not-an-email"),
    (
        {
            "point": {
                "type": "object",
                "properties": {"x": {"type": "integer", "minimum": 10}, "y": {"type": "integer"}},
                "required": ["x", "y"],
                "additionalProperties": False,
            }
        },
        {"x": 1, "y": 2},
    ),
    (
        {"size": {"anyOf": [{"type": "integer", "minimum": 100}, {"type": "string", "pattern": "^\\d+px$"}]}},
        5,
    ),
    (
        {
            "matrix": {
                "type": "array",
                "items": {"type": "array", "items": {"type": "number"}, "minItems": 2},
                "minItems": 2,
            }
        },
        [[1]],
    ),
    (
        {
            "shape": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"radius": {"type": "number", "minimum": 1}},
                        "required": ["radius"],
                    }
                ]
            }
        },
        {"radius": 0},
    ),
]


class TestSchemaKeywords:
    @pytest.mark.parametrize(("properties", "near_miss"), SCHEMAS)
    def test_every_variant_validates(self, properties: dict[str, Any], near_miss: Any) -> None:
        """Each variant's call validates against the tool's input schema; the near-miss does not."""
        tool = tool_with(properties)
        for variant in range(3):
            assert_valid(tool, planned(tool, variant))
        name = next(iter(properties))
        assert not conforms({name: near_miss}, tool.input_schema)

    def test_examples_and_defaults_are_used(self) -> None:
        """A schema's ``examples`` come first, then its ``default``."""
        tool = tool_with(
            {
                "region": {"type": "string", "examples": ["eu-west-1", "us-east-2"]},
                "tier": {"type": "string", "default": "gold"},
            }
        )
        assert planned(tool, 0)["region"] == "eu-west-1"
        assert planned(tool, 1)["region"] == "us-east-2"
        assert planned(tool, 0)["tier"] == "gold"

    def test_examples_that_break_the_schema_are_dropped(self) -> None:
        """A listed example the schema itself rejects is not sent."""
        tool = tool_with({"code": {"type": "string", "pattern": "^[a-z]+$", "examples": ["BAD-1", "good"]}})
        assert infer_arguments(tool)[0].examples == ["good"]

    def test_description_examples_and_choices(self) -> None:
        """Choices and examples mined from a description become the values sent."""
        tool = tool_with(
            {
                "region": {"type": "string", "description": "Deployment region, e.g. `eu-west-1`"},
                "flavour": {
                    "type": "string",
                    "description": "Flavour of build. Valid values are: lite, full, debug",
                },
            }
        )
        assert planned(tool, 0)["region"] == "eu-west-1"
        assert {planned(tool, v)["flavour"] for v in range(3)} == {"lite", "full", "debug"}

    def test_pattern_draws_are_deterministic_and_distinct(self) -> None:
        """Draws from a pattern depend only on (schema, index, seed), and successive indices differ."""
        schema = {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{3}$"}
        first = [schema_example(schema, i, seed=5) for i in range(4)]
        assert first == [schema_example(schema, i, seed=5) for i in range(4)]
        assert len(set(first)) == 4
        assert all(conforms(v, schema) for v in first)
        assert all(v.isascii() for v in first)

    def test_same_seed_same_calls(self) -> None:
        """Two planners with the same rng seed plan identical calls for a pattern-constrained tool."""
        tool = tool_with(
            {"code": {"type": "string", "pattern": "^[a-z]{4}[0-9]{2}$"}, "n": {"type": "integer"}}
        )
        assert [planned(tool, v, seed=3) for v in range(3)] == [planned(tool, v, seed=3) for v in range(3)]


class TestDanglingReferences:
    def test_a_property_referring_into_its_tools_definitions_judges_nothing(self) -> None:
        """A property schema cut from its tool (``{"$ref": "#/$defs/Input"}`` without the definitions) accepts
        a value instead of raising: planning goes on for a server whose schemas refer to shared definitions."""
        assert conforms({"package": "x"}, {"$ref": "#/$defs/InstallPackageInput"})
        assert not conforms(3, {"type": "string"})
