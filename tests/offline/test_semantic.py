"""Semantic kinds: inferred from a schema's words, each producing values a person would type there.

Every generated value is checked twice: against a schema that encodes the kind's syntax (and the
same schema rejects a near-miss, so the check can fail), and by the kind's own meaning (an
expression evaluates, a unit pair shares a dimension, a CIDR parses as a network...).
"""

from __future__ import annotations

import ast
import ipaddress
import json
import math
import operator
import random
import re
from typing import Any

import pytest

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import EnvironmentFacts
from toolatlas.offline.harvest import ValuePool
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.mutations import MutationKind, boundary_mutations
from toolatlas.offline.schemas import conforms
from toolatlas.offline.semantic import dimension_of, incompatible_unit
from toolatlas.offline.values import ValueSynth
from toolatlas.probing.values import ArgKind


def make(
    name: str, properties: dict[str, Any], required: list[str] | None = None, description: str = ""
) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": required or list(properties)}
    return ToolSpec(server="unseen", name=name, description=description, input_schema=schema)


def calls(tool: ToolSpec, variants: int = 4, seed: int = 0) -> list[dict[str, Any]]:
    synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(seed))
    planned = [synth.valid_arguments(tool, infer_arguments(tool), v) for v in range(variants)]
    assert all(p is not None for p in planned)
    return [p.arguments for p in planned if p is not None]


def string(description: str = "") -> dict[str, Any]:
    return {"type": "string", "description": description}


_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.BitXor: operator.pow,  # ``^`` is a power in calculator notation
    ast.Pow: operator.pow,
}
_FUNCTIONS = {"sqrt": math.sqrt}


def evaluate(expression: str) -> float:
    """Arithmetic, powers and ``sqrt``: a value that is anything else raises."""

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
            return _FUNCTIONS[node.func.id](*(walk(a) for a in node.args))
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        raise ValueError(ast.dump(node))

    return walk(ast.parse(expression, mode="eval"))


# (property name, description, kind, syntax schema, near-miss, meaning check)
CASES: list[tuple[str, str, ArgKind, dict[str, Any], Any]] = [
    ("color", "Colour of the label in hex", ArgKind.COLOUR, {"pattern": "^#[0-9a-f]{6}$"}, "# Probe note"),
    ("cron", "When to run", ArgKind.CRON, {"pattern": r"^(\S+ ){4}\S+$"}, "probe-1a2b"),
    ("ip", "Address to look up", ArgKind.IP_ADDRESS, {"format": "ipv4"}, "999.1.1.1"),
    ("subnet", "A network in CIDR notation", ArgKind.CIDR, {"pattern": r"^[\d.]+/\d{1,2}$"}, "10.0.0.0"),
    ("locale", "Locale of the output", ArgKind.LOCALE, {"pattern": "^[a-z]{2}-[A-Z]{2}$"}, "english"),
    ("currency", "Currency to convert to", ArgKind.CURRENCY, {"pattern": "^[A-Z]{3}$"}, "dollars"),
    ("cell", "Cell in A1 notation", ArgKind.CELL, {"pattern": "^[A-Z]+[0-9]+$"}, "A1:B2"),
    ("version", "Package version", ArgKind.VERSION, {"pattern": r"^\d+\.\d+\.\d+$"}, "latest"),
    ("mime_type", "Media type of the body", ArgKind.MIME_TYPE, {"pattern": "^[a-z]+/[a-z.+-]+$"}, "json"),
    ("duration", "How long the timer lasts", ArgKind.DURATION, {"pattern": "^P"}, "ninety"),
]


class TestSemanticKinds:
    @pytest.mark.parametrize(("name", "description", "kind", "syntax", "near_miss"), CASES)
    def test_values_follow_the_kind_syntax(
        self, name: str, description: str, kind: ArgKind, syntax: dict[str, Any], near_miss: Any
    ) -> None:
        """The argument gets its kind; every variant's value fits the kind's syntax (a near-miss does not)."""
        tool = make("do_it", {name: string(description)})
        assert infer_arguments(tool)[0].kind is kind
        schema = {"type": "string", **syntax}
        for arguments in calls(tool):
            assert conforms(arguments[name], schema), arguments
            assert not arguments[name].startswith(("probe", "# Probe"))
        assert not conforms(near_miss, schema)

    def test_an_expression_evaluates(self) -> None:
        """Expressions are arithmetic that evaluates, not prose."""
        tool = make("calculate", {"expression": string("A mathematical expression to evaluate")})
        assert infer_arguments(tool)[0].kind is ArgKind.EXPRESSION
        for arguments in calls(tool):
            evaluate(arguments["expression"])
        with pytest.raises((ValueError, SyntaxError)):
            evaluate("# Probe note 1a2b")

    def test_a_unit_pair_shares_a_dimension(self) -> None:
        """From and to units are of one dimension (km → m, kg → lb), never a pair that cannot convert."""
        tool = make(
            "convert_units",
            {
                "value": {"type": "number"},
                "from_unit": string("Unit to convert from"),
                "to_unit": string("Target unit"),
            },
        )
        pairs = [(a["from_unit"], a["to_unit"]) for a in calls(tool)]
        assert len(set(pairs)) == 4
        for source, target in pairs:
            assert source != target and dimension_of(source) == dimension_of(target) is not None
        assert dimension_of("km") != dimension_of("kg")

    @pytest.mark.parametrize(
        ("name", "description", "valid"),
        [
            ("expression", "Math expression", "2 + 3 * 4"),
            ("cron", "Cron schedule", "*/5 * * * *"),
            ("cell", "Cell in A1 notation", "B2"),
            ("color", "Hex colour", "#1e90ff"),
        ],
    )
    def test_near_misses_are_boundaries(self, name: str, description: str, valid: str) -> None:
        """Each kind's boundary probes include near-misses of its syntax, expected to be refused."""
        tool = make("use", {name: string(description)})
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        found = [
            m
            for m in boundary_mutations(tool, infer_arguments(tool), {name: valid}, synth, cap=40)
            if m.name is MutationKind.MALFORMED_VALUE
        ]
        assert found and all(m.expected_failure and m.arguments[name] != valid for m in found)

    def test_python_code_meets_the_limits_of_its_runner(self) -> None:
        """`code` "Python code to execute" is source code, and its boundary probes include what a sandboxed
        runner forbids or stops: starting a process, `eval`, a run past a time limit; JavaScript gets none of them."""
        tool = make("run_code", {"code": string("Python code to execute. Assigned variables persist.")})
        assert infer_arguments(tool)[0].kind is ArgKind.CODE
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        valid = "x = 2\nprint(x)\n"
        found = {str(m.arguments.get("code")) for m in boundary_mutations(tool, infer_arguments(tool), {"code": valid}, synth,
                                                                 cap=40) if m.name is MutationKind.MALFORMED_VALUE}
        assert any("import subprocess" in c for c in found) and any("eval(" in c for c in found)
        assert any("time.sleep(" in c for c in found)
        script = make("run_js", {"code": string("JavaScript code to run")})
        js = {str(m.arguments.get("code")) for m in boundary_mutations(script, infer_arguments(script),
                                                              {"code": "console.log(1);"}, synth, cap=40)}
        assert not any("import subprocess" in c for c in js)

    def test_an_incompatible_unit_is_of_another_dimension(self) -> None:
        """The near-miss a unit boundary needs: same spelling style, another dimension."""
        assert incompatible_unit("km") == "kg" and incompatible_unit("kilogram") == "kilometer"
        assert dimension_of(incompatible_unit("celsius") or "") != "temperature"
        assert incompatible_unit("furlongs per fortnight") is None

    def test_a_unit_pair_gets_an_incompatible_boundary(self) -> None:
        """A conversion's boundary probes include a unit of another dimension; a lone unit gets none."""
        pair = make("convert", {"from_unit": string("Source unit"), "to_unit": string("Target unit")})
        lone = make("describe_unit", {"unit": string("A unit")})
        synth = ValueSynth(EnvironmentFacts(kind="none"), ValuePool(), random.Random(0))
        for tool, expected in ((pair, True), (lone, False)):
            call = synth.valid_arguments(tool, infer_arguments(tool), 0)
            assert call is not None
            found = [
                m
                for m in boundary_mutations(tool, infer_arguments(tool), call.arguments, synth, cap=40)
                if m.name is MutationKind.INCOMPATIBLE_VALUE
            ]
            assert bool(found) is expected
            for mutation in found:
                units = [v for v in mutation.arguments.values() if isinstance(v, str)]
                assert dimension_of(units[0]) != dimension_of(units[1])

    def test_units_follow_a_category_sibling(self) -> None:
        """A category chosen first (``temperature``) fixes the dimension of the units."""
        tool = make(
            "convert",
            {
                "category": {"type": "string", "enum": ["temperature"]},
                "from_unit": string("Source unit"),
                "to_unit": string("Target unit"),
            },
        )
        for arguments in calls(tool):
            assert dimension_of(arguments["from_unit"]) == dimension_of(arguments["to_unit"]) == "temperature"

    def test_a_base_n_number_has_digits_of_its_base(self) -> None:
        """The digits of a number to convert are valid in the base the sibling argument names."""
        tool = make(
            "convert_base",
            {"number": string("The number to convert, in the source base"), "from_base": {"type": "integer"}},
        )
        assert infer_arguments(tool)[0].kind is ArgKind.BASE_N_NUMBER
        for arguments in calls(tool):
            assert 2 <= arguments["from_base"] <= 36
            int(arguments["number"], arguments["from_base"])  # raises when a digit is out of the base
        with pytest.raises(ValueError):
            int("ff", 2)

    def test_networks_parse(self) -> None:
        """IP addresses and CIDR blocks parse with the standard library."""
        tool = make("scan", {"ip_address": string(), "cidr": string("Network in CIDR notation")})
        for arguments in calls(tool):
            ipaddress.ip_address(arguments["ip_address"])
            ipaddress.ip_network(arguments["cidr"])

    def test_a_hash_matches_its_algorithm(self) -> None:
        """A digest has the length of the algorithm the sibling argument chose."""
        tool = make(
            "verify_hash",
            {
                "text": string(),
                "expected_hash": string(),
                "algorithm": {"type": "string", "enum": ["md5", "sha256"]},
            },
        )
        lengths = {"md5": 32, "sha256": 64}
        for arguments in calls(tool):
            assert re.fullmatch(rf"[0-9a-f]{{{lengths[arguments['algorithm']]}}}", arguments["expected_hash"])

    def test_spreadsheet_arguments(self) -> None:
        """A sheet gets a sheet name, a range spans cells, a formula starts with ``=``."""
        tool = make(
            "write_cells",
            {"sheet_name": string(), "range": string("Cell range"), "formula": string("Excel formula")},
            description="Write to a spreadsheet workbook",
        )
        kinds = [s.kind for s in infer_arguments(tool)]
        assert kinds == [ArgKind.SHEET_NAME, ArgKind.CELL_RANGE, ArgKind.FORMULA]
        for arguments in calls(tool):
            assert re.fullmatch(r"[A-Z]+\d+:[A-Z]+\d+", arguments["range"])
            assert arguments["formula"].startswith("=")

    def test_a_cell_of_a_published_table_makes_no_spreadsheet(self) -> None:
        """``area_code`` of a wage lookup whose text says BLS "did not publish the cell" is a code, not a cell range;
        an ``area`` of a workbook's tool still is one."""
        wages = make("get_wage_data", {"area_code": {"type": "string", "title": "Area Code"}},
                     description="Wage data for an area. Special values mean BLS did not publish the cell.")
        assert infer_arguments(wages)[0].kind is not ArgKind.CELL_RANGE
        sheet = make("print_area", {"area": string()}, description="Set the print area of a worksheet.")
        assert infer_arguments(sheet)[0].kind is ArgKind.CELL_RANGE

    def test_text_to_analyse_reads_as_prose(self) -> None:
        """Text given to a read-only tool is ordinary prose, without probe tags or markdown headings."""
        tool = make("count_words", {"text": string("The text to analyse")})
        for arguments in calls(tool):
            assert re.fullmatch(r"[A-Z][^#]*[.!]", arguments["text"]), arguments
            assert "probe" not in arguments["text"].lower()

    def test_json_text_parses(self) -> None:
        """A JSON argument is a JSON document."""
        tool = make("format_json", {"data": string("JSON text to pretty-print")})
        for arguments in calls(tool):
            json.loads(arguments["data"])

    def test_unknown_strings_carry_no_probe_habits(self) -> None:
        """A string of unknown meaning gets a plain word, not ``probe-xxxx``."""
        tool = make("lookup", {"word": string("A word")})
        assert {a["word"] for a in calls(tool)} <= {"example", "sample", "demo", "test"}


class TestPositions:
    def test_an_index_counts_from_zero(self) -> None:
        """An index argument is tried first at 0, the first item of a list (``Document has 1 tables (0-0)``)."""
        tool = make("format_table", {"table_index": {"type": "integer"}, "row_index": {"type": "integer"}})
        first = calls(tool)[0]
        assert first == {"table_index": 0, "row_index": 0}

    def test_a_described_base_wins(self) -> None:
        """``1-based`` in the description makes an index start at 1; ``0-based`` makes a row start at 0."""
        tool = make(
            "rows",
            {
                "row": {"type": "integer", "description": "1-based index of the first row"},
                "line": {"type": "integer", "description": "Line number (0-based)"},
            },
        )
        first = calls(tool)[0]
        assert first == {"row": 1, "line": 0}

    def test_lines_and_pages_count_from_one(self) -> None:
        """A line or page number with nothing said counts from 1, as people number them."""
        tool = make("read_page", {"page": {"type": "integer"}, "line": {"type": "integer"}})
        assert calls(tool)[0] == {"page": 1, "line": 1}

    def test_the_end_of_a_span_comes_after_its_start(self) -> None:
        """``end_col`` is past ``start_col`` in every variant: an empty span is no valid use."""
        tool = make(
            "merge_cells",
            {"start_col": {"type": "integer"}, "end_col": {"type": "integer"}, "fromLine": {"type": "integer"},
             "toLine": {"type": "integer"}},
        )
        for arguments in calls(tool):
            assert arguments["end_col"] > arguments["start_col"]
            assert arguments["toLine"] > arguments["fromLine"]
