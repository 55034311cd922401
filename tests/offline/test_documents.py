"""Arguments written for the JSON document a run reads: its leaves from the snapshot, paths and fields adapted."""

from __future__ import annotations

import json
from pathlib import Path

from toolatlas.models import ToolSpec
from toolatlas.offline.facts import extract_facts
from toolatlas.offline.jsonpaths import best_leaf, document_leaves, names_node
from toolatlas.offline.kinds import infer_arguments
from toolatlas.offline.listed import AnswerBindings
from toolatlas.offline.taught import TaughtArguments
from toolatlas.probing.models import ProbeStep
from toolatlas.probing.values import ArgKind

INVENTORY = {"warehouse": "North", "products": [{"sku": "A-1", "price": 24.5, "stock": 40, "tags": ["led"]}]}
ORDERS = [{"order": 1001, "customer": "Ines", "qty": 2}]
LOAD = ToolSpec(server="s", name="load_json", description="Load a JSON file.", input_schema={
    "type": "object", "properties": {"file_path": {"type": "string"}, "alias": {"type": "string"}}})
SUM = ToolSpec(server="s", name="sum_values", description="""Sum numeric values matched by a JSONPath expression.

        Args:
            alias: The alias of the loaded document.
            expression: A JSONPath expression resolving to numbers
                        (e.g. "$.orders[*].total").
""", input_schema={"type": "object", "properties": {"alias": {"type": "string"}, "expression": {"type": "string"}}})


GROUP = ToolSpec(server="s", name="group_by", description="""Group an array of objects by a field value.

        Args:
            alias: The alias of the loaded document.
            path: Dot-notation path to the array of objects.
            field: The field to group by (e.g. "category", "status").
""", input_schema={"type": "object", "properties": {p: {"type": "string"} for p in ("alias", "path", "field")}})
PICK = ToolSpec(server="s", name="pick_fields", description="""Extract fields from each object in an array.

        Args:
            alias: The alias of the loaded document.
            path: Dot-notation path to the array of objects.
            fields: List of field names to include.
""", input_schema={"type": "object", "properties": {"alias": {"type": "string"}, "path": {"type": "string"},
                                                   "fields": {"type": "array", "items": {"type": "string"}}}})


def snapshot(tmp_path: Path):
    (tmp_path / "inventory.json").write_text(json.dumps(INVENTORY))
    (tmp_path / "orders.json").write_text(json.dumps(ORDERS))
    (tmp_path / "notes.txt").write_text("not json")
    return extract_facts("directory", tmp_path)


class TestLeaves:
    def test_a_json_file_of_the_snapshot_lists_its_leaves(self, tmp_path: Path) -> None:
        """Objects by key, arrays as `[*]`, each leaf with its JSON type; other files have none."""
        facts = snapshot(tmp_path)
        leaves = {f.path.rsplit("/", 1)[-1]: f.leaves for f in facts.tree.files}
        assert leaves["inventory.json"] == {"$.warehouse": "string", "$.products[*].sku": "string",
                                            "$.products[*].price": "number", "$.products[*].stock": "number",
                                            "$.products[*].tags[*]": "string"}
        assert leaves["orders.json"]["$[*].qty"] == "number" and leaves["notes.txt"] == {}

    def test_the_leaf_most_like_an_example(self, tmp_path: Path) -> None:
        """`$.orders[*].total` asking numbers becomes the first number leaf of the same shape."""
        (tmp_path / "d.json").write_text(json.dumps(INVENTORY))
        leaves = document_leaves(tmp_path / "d.json")
        assert best_leaf("$.orders[*].total", leaves, numbers=True) == "$.products[*].price"
        assert best_leaf("$.orders[*].price", leaves, numbers=True) == "$.products[*].price"
        assert best_leaf("$.x[*].stock", leaves, numbers=True) == "$.products[*].stock"

    def test_a_path_naming_a_node_is_kept(self, tmp_path: Path) -> None:
        """A node of the document stays; asked for numbers, only a number leaf does."""
        (tmp_path / "d.json").write_text(json.dumps(INVENTORY))
        leaves = document_leaves(tmp_path / "d.json")
        assert names_node("$.products", leaves, numbers=False) and names_node("$.products[0].sku", leaves, numbers=False)
        assert not names_node("$.products", leaves, numbers=True) and names_node("$.products[*].price", leaves, numbers=True)


class TestAdaptedPaths:
    def test_the_example_is_written_for_the_document_an_earlier_step_loaded(self, tmp_path: Path) -> None:
        """`load_json(orders.json)` then `sum_values($.orders[*].total)`: the sum takes `$[*].order`, a number
        leaf of the orders; after `load_json(inventory.json)` it takes the products' price."""
        facts = snapshot(tmp_path)
        bindings = AnswerBindings({"load_json": LOAD, "sum_values": SUM})
        for document, expected in (("orders.json", "$[*].order"), ("inventory.json", "$.products[*].price")):
            steps = [ProbeStep(tool="load_json", arguments={"file_path": f"${{root}}/{document}", "alias": "a"}),
                     ProbeStep(tool="sum_values", arguments={"alias": "a", "expression": "$.orders[*].total"})]
            assert bindings.bind(steps, facts)[1].arguments["expression"] == expected

    def test_without_a_known_document_or_on_a_misuse_the_value_stays(self, tmp_path: Path) -> None:
        """No step names a document of the snapshot, or the step breaks the expression: nothing changes."""
        facts = snapshot(tmp_path)
        bindings = AnswerBindings({"load_json": LOAD, "sum_values": SUM})
        alone = [ProbeStep(tool="sum_values", arguments={"alias": "a", "expression": "$.orders[*].total"})]
        assert bindings.bind(alone, facts) == alone
        broken = [ProbeStep(tool="load_json", arguments={"file_path": "${root}/orders.json"}),
                  ProbeStep(tool="sum_values", arguments={"alias": "a", "expression": "$.orders[*"},
                            mutation="malformed_value", condition="`expression` is not valid JSONPath")]
        assert bindings.bind(broken, facts) == broken

    def test_a_path_to_an_array_and_its_records_fields(self, tmp_path: Path) -> None:
        """`group_by(path=warehouse, field=status)` on the inventory: the path of its array of objects, and the
        example field its records have; a list of fields takes distinct keys of the records."""
        facts = snapshot(tmp_path)
        bindings = AnswerBindings({"load_json": LOAD, "group_by": GROUP, "pick_fields": PICK})
        load = ProbeStep(tool="load_json", arguments={"file_path": "${root}/inventory.json", "alias": "a"})
        grouped = bindings.bind([load, ProbeStep(tool="group_by", arguments={"alias": "a", "path": "warehouse",
                                                                             "field": "status"})], facts)
        assert grouped[1].arguments == {"alias": "a", "path": "products", "field": "sku"}
        picked = bindings.bind([load, ProbeStep(tool="pick_fields", arguments={"alias": "a", "path": "products",
                                                                               "fields": ["x", "price", "y"]})], facts)
        assert picked[1].arguments["fields"] == ["sku", "price", "stock"]
        orders = load.model_copy(update={"arguments": {"file_path": "${root}/orders.json", "alias": "a"}})
        assert bindings.bind([orders, grouped[1]], facts)[1].arguments["path"] == ""

    def test_the_field_of_an_arguments_items_is_a_records_key(self, tmp_path: Path) -> None:
        """`conditions: [{"field": "status", ...}]` beside a path to the products: `field` becomes a key of them."""
        facts = snapshot(tmp_path)
        multi = ToolSpec(server="s", name="multi_filter", description="""Filter an array of objects.

        Each condition is a dict with keys: field, operator, value.

        Args:
            alias: The alias of the loaded document.
            path: Dot-notation path to the array of objects.
            conditions: List of condition dicts.
""", input_schema={"type": "object", "properties": {"alias": {"type": "string"}, "path": {"type": "string"},
                                                   "conditions": {"type": "array", "items": {"type": "object"}}}})
        args = {"multi_filter": infer_arguments(multi)}
        TaughtArguments(args, {"multi_filter": multi})
        bindings = AnswerBindings({"load_json": LOAD, "multi_filter": multi})
        steps = [ProbeStep(tool="load_json", arguments={"file_path": "${root}/inventory.json", "alias": "a"}),
                 ProbeStep(tool="multi_filter", arguments={"alias": "a", "path": "products", "conditions": [
                     {"field": "status", "operator": "eq", "value": "x"}]})]
        condition = bindings.bind(steps, facts, args)[1].arguments["conditions"][0]
        assert condition["field"] in {"sku", "price", "stock", "tags"} and condition["operator"] == "eq"

    def test_a_misuse_of_an_item_keeps_its_value(self, tmp_path: Path) -> None:
        """A boundary probe breaking `fields[0]` keeps the broken item."""
        facts = snapshot(tmp_path)
        bindings = AnswerBindings({"load_json": LOAD, "pick_fields": PICK})
        steps = [ProbeStep(tool="load_json", arguments={"file_path": "${root}/inventory.json", "alias": "a"}),
                 ProbeStep(tool="pick_fields", arguments={"alias": "a", "path": "products", "fields": [""]},
                           mutation="empty_value", condition="`fields[0]` is an empty string")]
        assert bindings.bind(steps, facts) == steps

    def test_a_jsonpath_argument_is_a_path_not_a_document(self) -> None:
        """An `expression` described as a JSONPath is a string written from the root, not JSON text."""
        expression = next(a for a in infer_arguments(SUM) if a.name == "expression")
        assert expression.kind is ArgKind.STRING and expression.examples == ["$.orders[*].total"]
