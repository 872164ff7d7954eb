"""The GitHub Action (action.yml) and the example workflow that uses it: the YAML parses as GitHub reads it, the
inputs reach the scripts only through `env:`, and the check step's scripts run for real (the install step, which
needs the package index, runs in tests/integration/test_action_real.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml
from action_runner import ACTION, ROOT, check_reports, run_action


def test_the_check_step_writes_junit_html_and_json_of_one_run_and_annotates(tmp_path: Path) -> None:
    # the install step is the one left out here (the integration test below runs it): the project's own xladoctor
    xladoctor = str(Path(sys.executable).parent / "xladoctor")
    inputs = {"python": sys.executable, "args": "--no-smoke --only packages,python", "html": "out/report.html"}
    (tmp_path / "out").mkdir()
    steps, outputs, summary = run_action(tmp_path, inputs, skip=("install",), preset={"install": {"bin": xladoctor}})
    check = check_reports(tmp_path, inputs, steps)
    assert check.returncode == 0, check.stderr
    assert outputs["check"] == {"exit-code": "0"}
    assert [name for name, _ in steps][-1].startswith("actions/upload-artifact")  # no failing step after it
    assert summary.startswith("### xladoctor check: ") and "ok" in summary and "out/report.html" in summary


def test_a_failing_check_fails_the_job_after_keeping_the_reports(tmp_path: Path) -> None:
    # a target whose interpreter cannot run: the check fails (exit 1) and its annotations are on stderr
    broken = tmp_path / "not-a-python"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    xladoctor = str(Path(sys.executable).parent / "xladoctor")
    inputs = {"python": str(broken), "args": "--no-smoke", "strict": "true"}
    steps, outputs, _ = run_action(tmp_path, inputs, skip=("install",), preset={"install": {"bin": xladoctor}})
    check = check_reports(tmp_path, inputs, steps)
    assert outputs["check"]["exit-code"] == "1"
    assert "::error title=xladoctor target-interpreter::" in check.stderr
    name, last = steps[-1]
    assert name == "Fail the job when the check failed" and last.returncode == 1
    assert "exited with status 1" in last.stdout


def test_the_example_workflow_uses_the_action_with_its_inputs() -> None:
    workflow = yaml.safe_load((ROOT / "examples" / "github-actions.yml").read_text())
    steps = workflow["jobs"]["environment"]["steps"]
    [step] = [s for s in steps if str(s.get("uses", "")).startswith("xladoctor/xladoctor@")]
    assert set(step["with"]) <= set(ACTION["inputs"])
    assert ACTION["runs"]["using"] == "composite"
    # the example's inputs are real options of `xladoctor check`
    ran = subprocess.run(
        [sys.executable, "-m", "xladoctor", "check", "--help"], capture_output=True, text=True, timeout=60
    )
    for option in step["with"].get("args", "").split():
        if option.startswith("--"):
            assert option in ran.stdout
