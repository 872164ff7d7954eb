"""Every facts fixture gives exactly its expected findings, through the API and through the CLI."""

from __future__ import annotations

import json

import pytest
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.registry import all_checks
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json

CASES = sorted(p.name[: -len(".json")] for p in FACTS_DIR.glob("*.json") if not p.name.endswith(".expected.json"))
# Checks that only describe the environment and have no failing verdict of their own.
INFORMATIONAL = {"ml-stack-inventory"}


def _expected(case: str) -> dict:
    return load_json(FACTS_DIR / f"{case}.expected.json")


def test_there_are_enough_fixtures() -> None:
    assert len(CASES) >= 12
    assert {
        "colab-gpu-healthy",
        "colab-tpu-torch-upgraded",
        "kaggle-tensorflow-and-tensorflow-cpu",
        "tpu-vm-healthy",
    } <= set(CASES)


@pytest.mark.parametrize("case", CASES)
def test_api_gives_expected_findings(case: str) -> None:
    report = run_diagnosis(facts_from_json(load_json(FACTS_DIR / f"{case}.json")), select_checks())
    got = [
        {"id": f.id, "status": f.status.value, "title": f.title, "detail": f.detail, "remediation": list(f.remediation)}
        for f in report.findings
    ]
    expected = _expected(case)
    assert got == expected["findings"]
    assert list(report.plan.commands) == expected["plan"]
    platform = report.plan.platform
    assert {"name": platform.name, "accelerator": platform.accelerator} == expected["platform"]
    assert [*report.plan.conflicts, *report.plan.notes] == expected["plan_notes"]
    assert list(report.plan.cells) == expected["plan_cells"]


@pytest.mark.parametrize("case", CASES)
def test_cli_replay_gives_expected_findings(case: str) -> None:
    result = run_cli("check", "--facts", str(FACTS_DIR / f"{case}.json"), "--json")
    report = json.loads(result.stdout)
    expected = _expected(case)
    got = [{k: f[k] for k in ("id", "status", "title", "detail", "remediation")} for f in report["findings"]]
    assert got == expected["findings"]
    assert report["plan"]["commands"] == expected["plan"]
    assert {k: report["plan"]["platform"][k] for k in ("name", "accelerator")} == expected["platform"]
    assert report["plan"]["conflicts"] + report["plan"]["notes"] == expected["plan_notes"]
    assert report["plan"]["cells"] == expected["plan_cells"]
    failed = any(f["status"] == "fail" for f in expected["findings"])
    assert result.returncode == (1 if failed else 0), result.stderr


def test_every_check_is_made_to_fail_by_some_fixture() -> None:
    bad = {f["id"] for case in CASES for f in _expected(case)["findings"] if f["status"] in ("fail", "warn")}
    missing = {c.id for c in all_checks()} - bad - INFORMATIONAL
    assert not missing, f"checks with no failing fixture: {missing}"


def test_every_check_passes_in_some_fixture() -> None:
    good = {f["id"] for case in CASES for f in _expected(case)["findings"] if f["status"] == "ok"}
    assert {c.id for c in all_checks()} <= good
