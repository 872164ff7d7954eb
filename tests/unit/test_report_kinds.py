"""The one output dispatch (reporters/kinds.py): every kind renders in each format it offers, refuses the others,
and the CLI refuses an unoffered format before any work."""

from __future__ import annotations

import json

import pytest
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.matrix import load_matrix
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import FormatNotOffered, check_kind, matrix_kind, rendered


def _report():
    return run_diagnosis(facts_from_json(load_json(FACTS_DIR / "real-torch29-xla29.json")), select_checks())


@pytest.mark.parametrize("output_format", list(OutputFormat))
def test_the_check_report_renders_in_every_format(output_format: OutputFormat) -> None:
    kind = check_kind()
    assert output_format in kind.formats
    text = rendered(kind, _report(), output_format)
    first = {
        OutputFormat.TEXT: "torch 2.9.0",
        OutputFormat.JSON: '"schema_version"',
        OutputFormat.HTML: "<!DOCTYPE html>",
        OutputFormat.JUNIT: "<testsuites",
        OutputFormat.PROMETHEUS: "# TYPE xladoctor_check_status gauge",
        OutputFormat.NPD: "ok: ",
    }[output_format]
    assert first in text and "\x1b[" not in text  # the text of a file: no colour codes


def test_a_kind_refuses_the_formats_it_does_not_offer() -> None:
    kind = matrix_kind()
    assert kind.formats == (OutputFormat.TEXT, OutputFormat.JSON)
    relations = [load_matrix().get("torch-torch_xla")]
    assert json.loads(rendered(kind, relations, OutputFormat.JSON))["torch-torch_xla"]["rows"]
    for refused in (OutputFormat.HTML, OutputFormat.JUNIT, OutputFormat.PROMETHEUS, OutputFormat.NPD):
        with pytest.raises(FormatNotOffered, match=f"--format {refused.value} is not available for `matrix`"):
            rendered(kind, relations, refused)


def test_the_cli_refuses_an_unoffered_format_before_any_work() -> None:
    ran = run_cli("explain", "/nonexistent/log", "--format", "junit")
    assert ran.returncode == 2
    assert ran.stderr == "xladoctor: error: --format junit is for `check`; explain prints text, json or html\n"
