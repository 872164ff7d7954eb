"""Every facts fixture gives exactly its expected problems (its warn, fail and error findings) and fix plan, through
the API and through the CLI. What each check says when it passes or skips is in its own cases (tests/checks/), so a new
check changes no fixture's expected file unless it finds a problem there."""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import Facts, facts_from_json

CASES = sorted(
    p.name[: -len(".json")]
    for p in FACTS_DIR.glob("*.json")
    if not p.name.endswith(".expected.json") and p.name != "resolved.json"
)
PROBLEMS = ("warn", "fail", "error")


def _expected(case: str) -> dict:
    return load_json(FACTS_DIR / f"{case}.expected.json")


def _regenerate(case: str) -> str:
    """The one command that rewrites a case's expected file (after a reviewed behaviour change)."""
    from make_fixtures import regenerate_command

    return f"{case}: if the change is intended, run `{regenerate_command(case)}` and review the diff"


def test_every_fixture_is_made_by_make_fixtures_and_has_its_expected_file() -> None:
    from make_fixtures import REAL, RECORDED_ELSEWHERE, SCENARIOS

    made = {s.name for s in SCENARIOS} | set(REAL) | set(RECORDED_ELSEWHERE)
    assert set(CASES) == made
    assert all((FACTS_DIR / f"{case}.expected.json").exists() for case in CASES)


def _keys_missing(cls: Any, data: Any, where: str) -> list[str]:
    """Fields of the Facts model (what `xladoctor snapshot` writes) that a fixture lacks, at every level."""
    if not isinstance(data, dict) or not dataclasses.is_dataclass(cls):
        return []
    missing = [f"{where}.{f.name}" for f in dataclasses.fields(cls) if f.name not in data]
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        hint, value = hints[f.name], data.get(f.name)
        inner = [a for a in typing.get_args(hint) if dataclasses.is_dataclass(a)]
        if dataclasses.is_dataclass(hint):
            missing += _keys_missing(hint, value, f"{where}.{f.name}")
        elif inner and isinstance(value, list):
            for i, item in enumerate(value):
                missing += _keys_missing(inner[0], item, f"{where}.{f.name}[{i}]")
        elif inner and isinstance(value, dict):
            missing += _keys_missing(inner[0], value, f"{where}.{f.name}")
    return missing


@pytest.mark.parametrize("case", CASES)
def test_every_fixture_holds_every_key_a_snapshot_writes(case: str) -> None:
    from make_fixtures import RECORDED_ELSEWHERE

    doc = load_json(FACTS_DIR / f"{case}.json")
    assert doc["system"] is not None, f"{case}: every probe run describes its host"
    if case in RECORDED_ELSEWHERE:  # kept as that machine's older xladoctor wrote it: the replay of an old snapshot
        return
    missing = _keys_missing(Facts, doc, "facts")
    assert missing == [], f"{case}: regenerate it with tests/facts/make_fixtures.py {case}"


def test_a_fixture_without_a_key_is_caught() -> None:
    doc = load_json(FACTS_DIR / "gpu-h100-healthy.json")
    del doc["distributions"][0]["executables"], doc["system"]["resources"]["shm_bytes"]
    assert _keys_missing(Facts, doc, "facts") == [
        "facts.distributions[0].executables",
        "facts.system.resources.shm_bytes",
    ]


@pytest.mark.parametrize("case", [c for c in CASES if "healthy" in c])
def test_healthy_fixtures_have_nothing_to_fix(case: str) -> None:
    expected = _expected(case)
    assert [f["id"] for f in expected["findings"] if f["status"] not in ("ok", "skip")] == []
    assert expected["plan"] == [] and expected["plan_notes"] == [] and expected["plan_cells"] == []


@pytest.mark.parametrize("case", CASES)
def test_api_gives_expected_findings(case: str) -> None:
    report = run_diagnosis(facts_from_json(load_json(FACTS_DIR / f"{case}.json")), select_checks())
    got = [
        {"id": f.id, "status": f.status.value, "title": f.title, "detail": f.detail, "remediation": list(f.remediation)}
        for f in report.findings
        if f.status.value in PROBLEMS
    ]
    expected = _expected(case)
    assert got == expected["findings"], _regenerate(case)
    assert list(report.plan.commands) == expected["plan"], _regenerate(case)
    platform = report.plan.platform
    assert {"name": platform.name, "accelerator": platform.accelerator} == expected["platform"]
    assert [*report.plan.conflicts, *report.plan.notes] == expected["plan_notes"]
    assert list(report.plan.cells) == expected["plan_cells"]


@pytest.mark.parametrize("case", CASES)
def test_cli_replay_gives_expected_findings(case: str) -> None:
    result = run_cli("check", "--facts", str(FACTS_DIR / f"{case}.json"), "--json")
    report = json.loads(result.stdout)
    expected = _expected(case)
    got = [
        {k: f[k] for k in ("id", "status", "title", "detail", "remediation")}
        for f in report["findings"]
        if f["status"] in PROBLEMS
    ]
    assert got == expected["findings"], _regenerate(case)
    assert report["plan"]["commands"] == expected["plan"]
    assert {k: report["plan"]["platform"][k] for k in ("name", "accelerator")} == expected["platform"]
    assert report["plan"]["conflicts"] + report["plan"]["notes"] == expected["plan_notes"]
    assert report["plan"]["cells"] == expected["plan_cells"]
    failed = any(f["status"] == "fail" for f in expected["findings"])
    assert result.returncode == (1 if failed else 0), result.stderr
