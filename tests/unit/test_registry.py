"""The registry: skips with reasons, turns a raising or mutating check into an `error`, goes on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.diagnosis import exit_code, run_diagnosis, select_checks
from xladoctor.exitcodes import ExitCode
from xladoctor.facts import Facts, facts_from_json
from xladoctor.findings import Outcome, Status
from xladoctor.matrix import Matrix
from xladoctor.registry import Check, all_checks, check, installed, run_check


def _facts(case: str = "real-torch29-xla29") -> Facts:
    return facts_from_json(load_json(FACTS_DIR / f"{case}.json"))


def _raises(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    raise KeyError("boom")
    yield  # pragma: no cover


def _mutates(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    facts.env["PJRT_DEVICE"] = "TPU"  # type: ignore[index]
    yield Outcome(Status.OK, "changed the facts")


def test_a_raising_check_becomes_an_error_finding_and_the_run_goes_on() -> None:
    broken = Check("always-raises", "test", "Always raises", (), _raises)
    report = run_diagnosis(_facts(), [broken, *select_checks(only=["torch-xla"])])
    first, second = report.findings
    assert (first.id, first.status, first.title) == (
        "always-raises",
        Status.ERROR,
        "check 'always-raises' could not decide: KeyError: 'boom'",
    )
    assert "Traceback" in first.detail and "KeyError" in first.detail
    assert (second.id, second.status) == ("torch-xla-torch-mismatch", Status.OK)
    assert exit_code(report) is ExitCode.INTERNAL


def test_a_check_that_mutates_facts_is_caught() -> None:
    [finding] = run_check(Check("mutates", "test", "Mutates", (), _mutates), _facts(), None)  # type: ignore[arg-type]
    assert finding.status is Status.ERROR
    assert (
        finding.title
        == "check 'mutates' could not decide: TypeError: 'mappingproxy' object does not support item assignment"
    )


def test_unmet_prerequisite_skips_with_reason() -> None:
    item = Check("needs-jax", "test", "Needs jax", (installed("jax"),), _raises)
    [finding] = run_check(item, _facts(), None)  # type: ignore[arg-type]
    assert (finding.status, finding.detail) == (Status.SKIP, "Skipped because jax is not installed.")


def test_ids_are_kebab_case_and_unique() -> None:
    with pytest.raises(ValueError):
        check("Not_Kebab", area="test", title="x")
    with pytest.raises(ValueError, match="duplicate"):
        check("torch-xla-torch-mismatch", area="torch-xla", title="x")(_raises)
    ids = [c.id for c in all_checks()]
    assert len(ids) == len(set(ids))


def test_only_and_skip_select_by_id_or_area() -> None:
    assert [c.id for c in select_checks(only=["packages"], skip=["broken-distribution"])] == [
        "conflicting-distributions",
        "shadowed-distribution",
        "unsatisfied-requirements",
    ]
    assert [c.id for c in select_checks(only=["jax-jaxlib-mismatch"])] == ["jax-jaxlib-mismatch"]


def test_strict_turns_warnings_into_failure() -> None:
    doc = load_json(FACTS_DIR / "torch-files-missing.json")
    doc["distributions"][[d["name"] for d in doc["distributions"]].index("torch")]["missing_top_level"] = []
    report = run_diagnosis(facts_from_json(doc), select_checks())
    assert report.summary["fail"] == 0 and report.summary["warn"] == 1
    assert exit_code(report) is ExitCode.OK
    assert exit_code(report, strict=True) is ExitCode.FAILED
