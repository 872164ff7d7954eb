"""Run the GitHub Action (action.yml) as a runner does, for tests/unit/test_action.py and
tests/integration/test_action_real.py: the scripts of its steps in bash, with the variables a runner sets
(RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ACTIONS) and the inputs passed through `env:` as GitHub
does. A `uses:` step is GitHub's to run: it is returned with its evaluated `with:`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


def _value(expression: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    """The few expressions action.yml uses; any other fails the test (so a new one is looked at here)."""
    if expression == "github.action_path":
        return str(ROOT)
    if expression.startswith("inputs."):
        return inputs[expression.removeprefix("inputs.")]
    match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
    if match:
        return outputs.get(match[1], {}).get(match[2], "")
    raise AssertionError(f"an expression this test does not know: {expression}")


def _condition(condition: str | None, outputs: dict[str, dict[str, str]], failed: bool) -> bool:
    if condition is None:
        return not failed
    if condition == "always()":
        return True
    match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+) != '(\w*)'", condition)
    assert match, f"a condition this test does not know: {condition}"
    return not failed and outputs.get(match[1], {}).get(match[2], "") != match[3]


def run_action(
    workdir: Path, given: dict[str, str], skip: tuple[str, ...] = (), preset: dict[str, dict[str, str]] | None = None
) -> tuple[list[tuple[str, Any]], dict[str, dict[str, str]], str]:
    """Run the composite action's steps in order in `workdir`: (each step and what it gave, the step outputs, the job
    summary). A `uses:` step is not run (GitHub runs it): it is returned with its evaluated `with:`."""
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, f"not inputs of action.yml: {unknown}"
    inputs.update(given)
    outputs: dict[str, dict[str, str]] = dict(preset or {})
    summary = workdir / "summary.md"
    temp = workdir / "runner-temp"
    temp.mkdir(exist_ok=True)
    done: list[tuple[str, Any]] = []
    failed = False
    for step in ACTION["runs"]["steps"]:
        if step.get("id") in skip or not _condition(step.get("if"), outputs, failed):
            continue
        if "uses" in step:
            with_ = {
                k: EXPRESSION.sub(lambda m: _value(m[1], inputs, outputs), str(v)) for k, v in step["with"].items()
            }
            done.append((step["uses"], with_))
            continue
        assert step["shell"] == "bash" and "${{" not in step["run"]  # inputs only through env (script injection)
        env = {k: EXPRESSION.sub(lambda m: _value(m[1], inputs, outputs), str(v)) for k, v in step["env"].items()}
        output_file = workdir / f"output-{len(done)}"
        output_file.write_text("")
        ran = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=workdir,
            env={
                **os.environ,
                **env,
                "RUNNER_TEMP": str(temp),
                "GITHUB_OUTPUT": str(output_file),
                "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_ACTIONS": "true",
            },
            capture_output=True,
            text=True,
            timeout=900,
        )
        found = dict(line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line)
        if step.get("id"):
            outputs[step["id"]] = found
        done.append((step["name"], ran))
        failed = failed or ran.returncode != 0
    return done, outputs, summary.read_text() if summary.exists() else ""


def check_reports(
    workdir: Path, inputs: dict[str, str], steps: list[tuple[str, Any]]
) -> subprocess.CompletedProcess[str]:
    """The check step's three reports exist and are what they say, and the artifact keeps exactly those."""
    [check] = [ran for name, ran in steps if name == "Diagnose the environment"]
    junit = ET.fromstring((workdir / inputs.get("junit", "xladoctor-junit.xml")).read_text())
    report = json.loads((workdir / inputs.get("json", "xladoctor.json")).read_text())
    page = (workdir / inputs.get("html", "xladoctor-report.html")).read_text()
    assert len(junit.findall("testsuite/testcase")) == len(report["findings"])
    assert page.startswith("<!DOCTYPE html>") and 'data-report="check"' in page
    [(uses, with_)] = [(name, ran) for name, ran in steps if name.startswith("actions/upload-artifact@")]
    assert uses == "actions/upload-artifact@v4" and with_["if-no-files-found"] == "warn"
    kept = with_["path"].split()
    assert kept == [inputs.get(k, ACTION["inputs"][k]["default"]) for k in ("junit", "html", "json")]
    return check  # type: ignore[no-any-return]
