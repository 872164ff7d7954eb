"""The whole GitHub Action for real: it installs xladoctor from the action's own path into a venv of its own, and
diagnoses a real venv with the smoke tests, writing the three reports of one run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from action_runner import check_reports, run_action
from envs import python_of


@pytest.mark.integration
def test_the_whole_action_installs_xladoctor_from_its_path_and_diagnoses_a_real_env(real_env, tmp_path: Path) -> None:
    target = python_of(real_env("bare"))
    steps, outputs, summary = run_action(tmp_path, {"python": str(target)})
    [install] = [ran for name, ran in steps if name.startswith("Install xladoctor")]
    assert install.returncode == 0, install.stderr
    assert outputs["install"]["bin"] == str(tmp_path / "runner-temp" / "xladoctor-venv" / "bin" / "xladoctor")
    check = check_reports(tmp_path, {}, steps)
    assert check.returncode == 0 and outputs["check"] == {"exit-code": "0"}, check.stderr
    report = json.loads((tmp_path / "xladoctor.json").read_text())
    assert report["target"]["executable"] == str(target) and report["smoke"]  # the smoke tests ran (and skipped)
