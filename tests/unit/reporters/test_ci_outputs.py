"""CI outputs: JUnit XML a dashboard can ingest, --output files, GitHub Actions annotations."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from conftest import FACTS_DIR, run_cli

MISMATCH = str(FACTS_DIR / "real-torch213-xla29.json")  # torch 2.13 beside torch_xla 2.9: one failing check


def _cases(xml_text: str) -> tuple[ET.Element, list[ET.Element]]:
    root = ET.fromstring(xml_text)
    [suite] = root.findall("testsuite")
    return suite, suite.findall("testcase")


def test_junit_has_one_case_per_finding_and_counts_that_add_up() -> None:
    result = run_cli("check", "--facts", MISMATCH, "--format", "junit")
    assert result.returncode == 1, result.stderr
    report = json.loads(run_cli("check", "--facts", MISMATCH, "--json").stdout)
    suite, cases = _cases(result.stdout)
    assert len(cases) == len(report["findings"]) == int(suite.get("tests", "-1"))
    failed = [c for c in cases if c.find("failure") is not None]
    assert [(c.get("classname"), c.get("name")) for c in failed] == [
        ("xladoctor.torch-xla", "torch-xla-torch-mismatch")
    ]
    failure = failed[0].find("failure")
    assert failure is not None and failure.get("message", "").startswith("torch_xla 2.9.0 is built for torch 2.9")
    assert "$ " in (failure.text or "") and "torch==2.9.0+cpu torch_xla==2.9.0" in (failure.text or "")
    skipped = sum(1 for c in cases if c.find("skipped") is not None)
    assert (suite.get("failures"), suite.get("skipped")) == ("1", str(skipped))
    assert skipped == report["summary"]["skip"]


def test_strict_turns_warnings_into_junit_failures() -> None:
    facts = str(FACTS_DIR / "real-torch29-xla29-debug-switches.json")
    plain = _cases(run_cli("check", "--facts", facts, "--format", "junit").stdout)[0]
    strict = _cases(run_cli("check", "--facts", facts, "--format", "junit", "--strict").stdout)[0]
    report = json.loads(run_cli("check", "--facts", facts, "--json").stdout)
    assert int(strict.get("failures", "0")) == int(plain.get("failures", "0")) + report["summary"]["warn"] > 0


def test_output_writes_the_file_and_keeps_stdout_empty(tmp_path: Path) -> None:
    for fmt, check in (("json", json.loads), ("junit", ET.fromstring), ("text", str)):
        target = tmp_path / f"report.{fmt}"
        result = run_cli("check", "--facts", MISMATCH, "--format", fmt, "--output", str(target))
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr.strip() == f"wrote {target}"
        check(target.read_text())
    assert "\x1b[" not in (tmp_path / "report.text").read_text()  # no colour codes in a file
    bad = run_cli("check", "--facts", MISMATCH, "--output", str(tmp_path / "missing" / "r.json"))
    assert bad.returncode == 2 and bad.stderr.startswith("xladoctor: error: --output ")


def test_github_actions_annotations_on_stderr_only_under_actions() -> None:
    under = run_cli("check", "--facts", MISMATCH, "--json", env={"GITHUB_ACTIONS": "true"})
    json.loads(under.stdout)  # stdout stays a clean document
    annotations = [line for line in under.stderr.splitlines() if line.startswith("::")]
    assert annotations[0].startswith(
        "::error title=xladoctor torch-xla-torch-mismatch::torch_xla 2.9.0 is built for torch 2.9, but torch 2.13.0"
    )
    assert "%0AFix: " in annotations[0] and "\n" not in annotations[0]
    assert all(a.startswith(("::error ", "::warning ")) for a in annotations)
    elsewhere = run_cli("check", "--facts", MISMATCH, "--json", env={"GITHUB_ACTIONS": None})
    assert "::error" not in elsewhere.stderr


def test_junit_is_refused_where_it_means_nothing() -> None:
    for args in (
        ("explain", "-", "--no-facts", "--format", "junit"),
        ("matrix", "--format", "junit"),
        ("compare", "a.json", "b.json", "--format", "junit"),
    ):
        result = run_cli(*args, input="")
        assert result.returncode == 2 and "--format junit is for `check`" in result.stderr


def test_the_example_dockerfile_uses_the_gate_as_entrypoint() -> None:
    dockerfile = (FACTS_DIR.parent.parent / "examples" / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["xladoctor", "gate", "--"]' in dockerfile
