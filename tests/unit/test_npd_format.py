"""`check --format npd`: the one line and the exit status of a Node Problem Detector custom plugin, and the same
line as a Slurm drain reason (reporters/problem_line.py)."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.report import Report
from xladoctor.diagnosis.selection import select_checks
from xladoctor.exitcodes import ExitCode, npd_exit_code
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding, Status
from xladoctor.reporters.problem_line import (
    NPD_MAX_OUTPUT_BYTES,
    SLURM_REASON_BYTES,
    cut_bytes,
    drain_reason,
    render_npd,
)

MISMATCH = FACTS_DIR / "real-torch213-xla29.json"
HEALTHY = FACTS_DIR / "gpu-h100-healthy.json"


def _report(path=HEALTHY, findings: tuple[Finding, ...] | None = None) -> Report:
    report = run_diagnosis(facts_from_json(load_json(path)), select_checks())
    return report if findings is None else dataclasses.replace(report, findings=findings)


def test_a_failing_node_names_its_check_first_within_80_bytes() -> None:
    ran = run_cli("check", "--facts", str(MISMATCH), "--format", "npd")
    assert ran.returncode == 1 and ran.stderr == ""
    assert ran.stdout == "torch-xla-torch-mismatch: torch_xla 2.9.0 is built for torch 2.9, but torch…\n"
    assert len(ran.stdout.strip().encode()) <= NPD_MAX_OUTPUT_BYTES


def test_a_healthy_node_says_ok_and_exits_0() -> None:
    ran = run_cli("check", "--facts", str(HEALTHY), "--format", "npd")
    passed = _report().count(Status.OK)
    assert (ran.returncode, ran.stdout) == (0, f"ok: {passed} checks passed\n")


def test_warnings_pass_unless_strict() -> None:
    findings = (
        Finding("ok-one", "a", Status.OK, "fine"),
        Finding("b-warn", "a", Status.WARN, "second warning"),
        Finding("a-warn", "a", Status.WARN, "first warning"),
    )
    report = _report(findings=findings)
    assert render_npd(report) == "ok: 1 checks passed, 2 warned: a-warn (+1 more)\n"
    assert render_npd(report, strict=True) == "a-warn (+1 more): first warning\n"


def test_the_worst_failure_comes_first_then_how_many_more() -> None:
    findings = (
        Finding("z-fail", "a", Status.FAIL, "the last by id"),
        Finding("w", "a", Status.WARN, "a warning is no problem"),
        Finding("a-fail", "a", Status.FAIL, "the first by id"),
        Finding("m-fail", "a", Status.FAIL, "another"),
    )
    assert render_npd(_report(findings=findings)) == "a-fail (+2 more): the first by id\n"
    assert drain_reason(_report(findings=findings)) == "xladoctor: a-fail (+2 more): the first by id"


def test_xladoctor_that_could_not_decide_is_npd_unknown() -> None:
    findings = (Finding("gpu-xid", "gpu", Status.ERROR, "the check raised KeyError"),)
    report = _report(findings=findings)
    assert render_npd(report) == "could not decide: gpu-xid: the check raised KeyError\n"
    assert npd_exit_code(ExitCode.INTERNAL) == 2


@pytest.mark.parametrize(
    ("code", "npd"),
    [(ExitCode.OK, 0), (ExitCode.FAILED, 1), (ExitCode.USAGE, 2), (ExitCode.INTERNAL, 2), (ExitCode.INTERRUPTED, 2)],
)
def test_npd_exit_statuses(code: ExitCode, npd: int) -> None:
    """pkg/custompluginmonitor/types/types.go: OK 0, NonOK 1, Unknown 2."""
    assert npd_exit_code(code) == npd


def test_a_line_is_cut_on_a_character_and_a_word_within_the_byte_budget() -> None:
    title = "GPU 0 " + "température élevée " * 10  # two-byte characters across the 80th byte
    line = render_npd(_report(findings=(Finding("gpu-thermal", "gpu", Status.FAIL, title),)))
    data = line.rstrip("\n").encode()
    assert len(data) <= NPD_MAX_OUTPUT_BYTES and line.endswith("…\n")
    assert data.decode() == "gpu-thermal: GPU 0 température élevée température élevée température…"
    assert (cut_bytes("ab ééé", 9), cut_bytes("ab ééé", 8), cut_bytes("ab ééé", 5), cut_bytes("ab ééé", 4)) == (
        "ab ééé",
        "ab…",
        "ab…",
        "…",
    )
    assert cut_bytes("ab ééé", 2) == ""


def test_newlines_controls_and_credentials_do_not_reach_the_line() -> None:
    token = "hf_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7"
    title = f"bad\nline\x1b[31m red HF_TOKEN={token}"
    line = render_npd(_report(findings=(Finding("x", "a", Status.FAIL, title),)))
    assert line.count("\n") == 1 and "\x1b" not in line and token not in line
    assert line.startswith("x: bad\\nline red HF_TOKEN=")


def test_a_drain_reason_fits_its_budget_and_starts_with_xladoctor() -> None:
    report = _report(findings=(Finding("gpu-xid", "gpu", Status.FAIL, "word " * 100),))
    reason = drain_reason(report)
    assert reason.startswith("xladoctor: gpu-xid: word word") and reason.endswith("…")
    assert len(reason.encode()) <= SLURM_REASON_BYTES and "\n" not in reason
