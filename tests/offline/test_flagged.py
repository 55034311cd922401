"""A checker is called with the values the server's own answers flag: a listed pin marked ``[INPUT ONLY]``, the pin
whose description warns to keep it free, beside the board those answers were about — read from whole answers, as
an atlas keeps only their beginning and end."""

from __future__ import annotations

import random

from toolatlas.config import ServerSpec
from toolatlas.graph.state import ServerGraph
from toolatlas.models import ToolSpec
from toolatlas.offline.flagged import FlaggedValues
from toolatlas.offline.proposer import OfflineProposer

LISTING = ("📊 ADC-Capable Pins for ESP32\n\n  • Pin 32 (GPIO32  ) - ADC1_CH4 [WiFi Compatible]\n"
           "  • Pin  2 (GPIO2   ) - ADC2_CH2 [Not usable with WiFi]\n  • Pin 34 (GPIO34  ) - ADC1_CH6 [INPUT ONLY]\n"
           "  • Pin 35 (GPIO35  ) - ADC1_CH7 [INPUT ONLY]\n")
PIN_INFO = "📌 STM32 Pin 13\n\n**Name:** PA13\n\n⚠️ **Notes:** SWD programming data. Keep free for debugging.\n"


def observed() -> FlaggedValues:
    flagged = FlaggedValues()
    flagged.observe("find_adc_pins", {"board_type": "ESP32"}, LISTING)
    flagged.observe("get_pin_info", {"board_type": "STM32", "pin_number": 13}, PIN_INFO)
    return flagged


def test_markers_of_restriction_and_warnings_flag_values_labels_do_not() -> None:
    flagged = observed()
    found = {(f.value, f.marker, f.source, tuple(f.context.items())) for f in flagged.values(exclude="x")}
    assert found == {
        (2, "Not usable with WiFi", "find_adc_pins", (("board_type", "ESP32"),)),
        (34, "INPUT ONLY", "find_adc_pins", (("board_type", "ESP32"),)),  # one per marker: 35 adds nothing
        (13, "SWD programming data. Keep free for debugging.", "get_pin_info", (("board_type", "STM32"),)),
    }
    assert [f.value for f in flagged.values(exclude="find_adc_pins")] == [13]
    restored = FlaggedValues()
    restored.load(flagged.dump())
    assert restored.values(exclude="x") == flagged.values(exclude="x")


def test_the_checker_is_called_with_each_flagged_value_on_its_board() -> None:
    checker = ToolSpec(server="gpio", name="check_pin_conflict", description="Check if pins conflict.", input_schema={
        "type": "object", "required": ["board_type", "pin_list"],
        "properties": {"board_type": {"type": "string", "enum": ["ESP32", "Arduino UNO", "STM32"]},
                       "pin_list": {"type": "array", "items": {"type": "integer"}}}})
    reader = ToolSpec(server="gpio", name="find_adc_pins", description="List ADC pins.", input_schema={
        "type": "object", "properties": {"board_type": {"type": "string"}}})
    info = ToolSpec(server="gpio", name="get_pin_info", description="Get a pin.", input_schema={
        "type": "object", "properties": {"board_type": {"type": "string"}, "pin_number": {"type": "integer"}}})
    graph = ServerGraph("gpio", [checker, reader, info])
    proposer = OfflineProposer(graph, None, ServerSpec(name="gpio", transport={"command": "x"}), random.Random(0))
    proposer.flagged = observed()
    calls = [p.steps[0].arguments for p in proposer.candidates(1, ["check_pin_conflict"])["check_pin_conflict"]
             if any(":flagged:" in k for k in p.coverage_keys)]
    assert {(c["board_type"], tuple(c["pin_list"])) for c in calls} == {("ESP32", (2,)), ("ESP32", (34,)), ("STM32", (13,))}
