"""Each check's own cases (tests/checks/<id>.json): a case per status the check can give, each giving exactly its
recorded findings. A new check brings its one case file; no other check's data changes."""

from __future__ import annotations

import pytest
from check_cases import CASES_DIR, Case, all_cases, finding_record, load_cases, run_check

from xladoctor.diagnosis.describe import describe
from xladoctor.diagnosis.registry import all_checks
from xladoctor.findings import Status

CASES = all_cases()
# Real environments and recorded hosts with nothing wrong: no check may warn or fail on them.
HEALTHY = ("real-bare", "real-gpu-h200")


def _regenerate(case: Case) -> str:
    command = f".venv/bin/python tests/facts/make_fixtures.py --cases {case.check}"
    return f"{case.id}: if the change is intended, run `{command}` and review the diff"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_each_case_gives_its_recorded_findings(case: Case) -> None:
    assert case.findings is not None, _regenerate(case)
    assert [finding_record(f) for f in case.run()] == case.findings, _regenerate(case)


def test_every_check_has_its_case_file_and_every_file_a_check() -> None:
    registered = {c.id for c in all_checks()}
    files = {p.stem for p in CASES_DIR.glob("*.json")}
    assert files == registered, (sorted(registered - files), sorted(files - registered))


@pytest.mark.parametrize("check", all_checks(), ids=lambda c: c.id)
def test_every_status_a_check_can_give_has_a_case(check) -> None:
    """The statuses are read from the check's code (describe.py): a new branch needs a new case."""
    shown = {f["status"] for case in load_cases(check.id) for f in case.findings or ()}
    assert set(describe(check).statuses) <= shown, f"{check.id}: no case gives {set(describe(check).statuses) - shown}"


@pytest.mark.parametrize("fixture", [*HEALTHY, *(p.stem for p in (CASES_DIR.parent / "facts").glob("*healthy.json"))])
def test_healthy_fixtures_give_no_warning_or_failure(fixture: str) -> None:
    for check in all_checks():
        bad = [f.title for f in run_check(fixture, check.id) if f.status in (Status.WARN, Status.FAIL, Status.ERROR)]
        assert bad == [], f"{fixture}: {check.id}: {bad}"
