"""The in-process hooks' parsers, on the real texts the frameworks wrote (recorded from torch 2.9.0 and 2.13.0)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

PAYLOADS = Path(__file__).parents[2] / "profile" / "payloads"
sys.path.insert(0, str(Path(__file__).parents[3] / "xladoctor" / "profile" / "scripts"))

import _xladoctor_profile_dynamo as dynamo  # noqa: E402

SEPARATOR = "\n=====XLADOCTOR-PAYLOAD=====\n"


@pytest.mark.parametrize("version", ["2.9.0", "2.13.0"])
def test_graph_break_payloads_parse_the_same_on_both_torch_releases(version: str) -> None:
    item, printed = (PAYLOADS / f"graph-break-torch-{version}.txt").read_text().split(SEPARATOR)
    parsed = dynamo.parse_graph_break(item)
    assert parsed["at"] == ("/tmp/dyn/dump.py", 13)
    assert parsed["reason"] == "Unsupported Tensor.item() call with capture_scalar_outputs=False"
    assert parsed["gb"] == "gb0124" and parsed["skipped"] is False
    assert parsed["frames"] == [("/tmp/dyn/dump.py", 13, "f"), ("/tmp/dyn/dump.py", 16, "<module>")]
    assert parsed["hints"] == [
        "Set `torch._dynamo.config.capture_scalar_outputs = True` or `export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` "
        "to include these operations in the captured graph."
    ]
    parsed = dynamo.parse_graph_break(printed)
    assert parsed["reason"] == "Failed to trace builtin operator" and parsed["gb"] == "gb0059"
    assert parsed["explanation"].startswith("Dynamo does not know how to trace builtin operator `print`")
    assert len(parsed["hints"]) == 3 and "reorderable_logging_functions" in parsed["hints"][1]
    assert parsed["frames"][0] == ("/tmp/dyn/dump.py", 19, "g")


def test_a_payload_that_is_not_a_graph_break_parses_to_nothing() -> None:
    parsed = dynamo.parse_graph_break("something else entirely\n" * 3)
    assert parsed == {
        "at": None, "frames": [], "reason": None, "explanation": None, "hints": [], "gb": None, "skipped": False
    }  # fmt: skip
