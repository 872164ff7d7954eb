"""Every profile detector on records whose fields hold the wrong types: records are written inside the user's
program, so a field may hold anything. The report is still built and rendered, and no detector fails on them."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from xladoctor.profile.analysis import build_report
from xladoctor.profile.launch import RunOutcome
from xladoctor.profile.model import ProcessRecord
from xladoctor.profile.records import read_records
from xladoctor.reporters.pages.profile import render_profile_html
from xladoctor.reporters.profile_report import profile_document, render_profile_text

RECORDS = Path(__file__).parent.parent / "profile" / "records"
CASES = sorted(path.name for path in RECORDS.iterdir() if path.is_dir())
# What a field may wrongly hold: nothing, the other JSON types, a huge or negative number, a deep structure.
WRONG: tuple[Any, ...] = (None, True, -1, 1e308, "", "x" * 5000, [], {}, [None, 1, "a"], {"a": {"b": [{}]}})


def _with_field(record: ProcessRecord, kind: str, field: str, value: Any) -> ProcessRecord:
    events = tuple({**e, field: value} if e.get("kind") == kind else e for e in record.events)
    return replace(record, events=events)


def _mutants(record: ProcessRecord) -> list[ProcessRecord]:
    """Each field of each kind of event set, in every event of that kind, to each wrong value in turn."""
    fields: dict[str, set[str]] = {}
    for event in record.events:
        fields.setdefault(str(event.get("kind")), set()).update(f for f in event if f != "kind")
    return [
        _with_field(record, kind, field, value)
        for kind, names in sorted(fields.items())
        for field in sorted(names)
        for value in WRONG
    ]


@pytest.mark.parametrize("case", CASES)
def test_no_detector_fails_on_fields_of_the_wrong_type(case: str) -> None:
    records = read_records(RECORDS / case)  # a torchrun run keeps one record per process: each is mutated in turn
    failed: list[str] = []
    mutated = [
        [*records[:index], mutant, *records[index + 1 :]]
        for index, record in enumerate(records)
        for mutant in _mutants(record)
    ]
    for processes in mutated:
        report = build_report(RunOutcome(("python", "train.py"), 0, 1.0), processes)
        json.dumps(profile_document(report))
        render_profile_text(report, Console(file=io.StringIO(), width=100), verbose=True)
        render_profile_html(report)
        failed.extend(
            f"{f.finding.evidence.get('detector')}: {f.finding.detail[:120]}"
            for f in report.findings
            if f.finding.id == "profile-analysis-error"
        )
    assert not failed, sorted(set(failed))[:20]


def test_a_detector_that_fails_costs_its_findings_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from xladoctor.profile import analysis

    def broken(record: ProcessRecord) -> list[Any]:
        raise KeyError("location")

    monkeypatch.setattr(analysis, "DETECTORS", (broken, *analysis.DETECTORS))
    [record] = read_records(RECORDS / "jax-pitfalls-jax-0.10.2")
    report = build_report(RunOutcome(("python", "train.py"), 0, 1.0), [record])
    ids = [f.finding.id for f in report.findings]
    assert "jax-recompilation" in ids  # the other detectors still speak
    [error] = [f.finding for f in report.findings if f.finding.id == "profile-analysis-error"]
    assert error.evidence == {"detector": "broken", "error": "KeyError"} and "KeyError: 'location'" in error.detail
    assert analysis.exit_status(report) == 3  # xladoctor could not decide everything: said, as `check` says it
