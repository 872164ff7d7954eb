"""Every renderer, in process: a report whose every string holds every planted secret (findings, smoke
results with their evidence, the fix plan, the facts) leaks none of them, whichever format renders it."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import FACTS_DIR, load_json
from planted import SECRETS, in_context, leaks, plant_snapshot, planted_environment
from rich.console import Console

from xladoctor.api import DiagnosisReport
from xladoctor.cli.outputs import write_file
from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.report import Report
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding, Status
from xladoctor.remedy.plan import Plan
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.annotations import github_annotations
from xladoctor.reporters.output import emit_report
from xladoctor.reporters.terminal import render_text
from xladoctor.smoke.model import SmokeResult

ALL = " ".join(in_context())


def _report() -> Report:
    facts = facts_from_json(plant_snapshot(load_json(FACTS_DIR / "real-torch29-xla29.json"), planted_environment()))
    base = run_diagnosis(facts, select_checks())
    findings = tuple(
        Finding(f"planted-{status.value}", "planted", status, f"title {ALL}", detail=f"detail\n{ALL}",
                evidence={"text": ALL, "list": [ALL], ALL: {"nested": ALL}}, remediation=(f"export X='{ALL}'",),
                refs=(ALL,))
        for status in Status
    )  # fmt: skip
    smoke = tuple(
        SmokeResult(f"smoke-{status.value}", status, ALL, 1.0, verified=ALL, cause=ALL, evidence=tuple(in_context()),
                    metrics={"m": ALL}, refs=(ALL,), remediation=(ALL,))
        for status in Status
    )  # fmt: skip
    plan = Plan((ALL,), (ALL,), (ALL,), base.plan.installer, base.plan.platform, notes=(ALL,), cells=(ALL,))
    return Report(facts, (*base.findings, *findings), plan, smoke)


@pytest.mark.parametrize("output_format", list(OutputFormat))
@pytest.mark.parametrize("verbose", [False, True])
def test_every_output_format_to_a_file_and_to_stdout(
    output_format: OutputFormat, verbose: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    report = _report()
    target = tmp_path / f"report.{output_format.value}"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        emit_report(
            report, output_format, lambda text: write_file(target, text, "--output"), verbose=verbose, strict=True
        )
        emit_report(report, output_format, None, verbose=verbose, strict=True)
    written = target.read_text()
    assert written and out.getvalue() and "::error title=xladoctor planted-fail::" in err.getvalue()
    assert not leaks(written + out.getvalue() + err.getvalue())


def test_html_annotations_api_and_snapshot() -> None:
    report = _report()
    api = DiagnosisReport(report)
    page, text, doc = api._repr_html_(), api.text(verbose=True), json.dumps(api.to_json())
    assert not leaks(page) and not leaks(text) and not leaks(doc)
    assert not leaks("\n".join(github_annotations(report)))
    assert not leaks(report.facts.dumps())
    assert set(leaks(json.dumps(report.facts.to_json()))) >= {"wandb", "huggingface"}  # planted in the facts


def test_the_planted_report_holds_every_secret_before_rendering() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, soft_wrap=True)
    report = _report()
    raw = json.dumps([f.to_json() for f in report.findings] + [r.to_json() for r in report.smoke])
    assert set(leaks(raw)) == set(SECRETS)  # so the tests above search outputs that had every secret to leak
    render_text(report, console, verbose=True)
    assert not leaks(buffer.getvalue())
