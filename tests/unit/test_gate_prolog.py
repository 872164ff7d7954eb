"""`xladoctor gate --prolog`: the node's verdict as an exit code, the drain reason alone on stdout, the report on
stderr (deploy/slurm/ reads them; tests/integration/test_slurm_real.py on a real Slurm)."""

from __future__ import annotations

import dataclasses
import re
import sys
from typing import Any

import pytest
import typer
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.cli import gate_prolog
from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.report import Report
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding, Status


def _report(name: str) -> Report:
    return run_diagnosis(facts_from_json(load_json(FACTS_DIR / f"{name}.json")), select_checks())


def _gate(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], report: Report) -> tuple[int, str, str]:
    monkeypatch.setattr(gate_prolog, "diagnose", lambda request: report)
    values: dict[str, Any] = {"python": sys.executable, "smoke": False, "strict": False}
    with pytest.raises(typer.Exit) as stopped:
        gate_prolog.node_gate(values, "XLADOCTOR_GATE", disabled=False)
    out, err = capsys.readouterr()
    return stopped.value.exit_code, out, err


def test_a_failing_node_prints_the_reason_alone_on_stdout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _gate(monkeypatch, capsys, _report("real-torch213-xla29"))
    assert code == 1
    assert out == (
        "xladoctor: torch-xla-torch-mismatch: torch_xla 2.9.0 is built for torch 2.9, but torch 2.13.0+cpu is "
        "installed\n"
    )
    assert re.search(r"Summary: \d+ ok, 1 fail, \d+ skip", err), err
    assert err.endswith(f"xladoctor gate --prolog: the node fails (exit 1) for {sys.executable}\n")


def test_a_healthy_node_prints_nothing_on_stdout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report("gpu-h100-healthy")
    code, out, err = _gate(monkeypatch, capsys, report)
    summary = ", ".join(f"{n} {k}" for k, n in report.summary.items() if n)
    assert (code, out, err) == (0, "", f"xladoctor gate --prolog: passed ({summary}) for {sys.executable}\n")


def test_xladoctor_that_cannot_decide_exits_3_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _report("gpu-h100-healthy")
    report = dataclasses.replace(base, findings=(Finding("gpu-xid", "gpu", Status.ERROR, "the check raised"),))
    code, out, _ = _gate(monkeypatch, capsys, report)
    assert (code, out) == (3, "xladoctor: could not decide: gpu-xid: the check raised\n")


def test_the_emergency_switch_passes_without_checking(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as stopped:
        gate_prolog.node_gate({}, "XLADOCTOR_GATE", disabled=True)
    assert stopped.value.exit_code == 0 and capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--", "true"), "gate --prolog checks this node and starts nothing: give no CMD"),
        (("--collective",), "gate --prolog checks this node alone: --collective needs the job's command"),
    ],
)
def test_prolog_mode_refuses_a_command(args: tuple[str, ...], message: str) -> None:
    ran = run_cli("gate", "--prolog", *args)
    assert (ran.returncode, ran.stdout, ran.stderr) == (2, "", f"xladoctor: error: {message}\n")


def test_the_switch_works_from_the_command_line() -> None:
    ran = run_cli("gate", "--prolog", env={"XLADOCTOR_GATE": "off"})
    assert (ran.returncode, ran.stdout, ran.stderr) == (
        0,
        "",
        "xladoctor gate --prolog: skipped (XLADOCTOR_GATE=off)\n",
    )
