"""Diagnoses of real virtual environments with real frameworks, built and cached by tests/envs.py."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from envs import create_venv, python_of

pytestmark = pytest.mark.integration


def _check(python: Path) -> tuple[int, dict]:
    # PJRT_DEVICE=CPU as a torch_xla user on a CPU machine sets it (unset, pjrt-device adds its own fix)
    result = run_cli("check", "--python", str(python), "--json", timeout=300, env={"PJRT_DEVICE": "CPU"})
    return result.returncode, json.loads(result.stdout)


def _statuses(report: dict) -> dict[str, str]:
    return {f["id"]: f["status"] for f in report["findings"]}


def _import_torch_xla(python: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-c", "import torch, torch_xla; print(torch.__version__, torch_xla.__version__)"],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PJRT_DEVICE": "CPU", "PATH": "/usr/bin:/bin"},
    )


def test_no_frameworks_gives_a_clean_report(real_env) -> None:
    python = python_of(real_env("bare"))
    code, report = _check(python)
    assert code == 0
    assert report["summary"]["fail"] == report["summary"]["error"] == report["summary"]["warn"] == 0
    inventory = next(f for f in report["findings"] if f["id"] == "ml-stack-inventory")
    assert inventory["title"] == "No ML framework installed (torch, torch_xla, TensorFlow, JAX)"
    assert report["plan"]["commands"] == []
    assert report["target"]["executable"] == str(python)


def test_torch_29_with_torch_xla_29_has_no_pairing_problem(real_env) -> None:
    python = python_of(real_env("torch29-xla29"))
    code, report = _check(python)
    assert code == 0, report
    statuses = _statuses(report)
    assert statuses["torch-xla-torch-mismatch"] == "ok"
    assert statuses["torch-triton-mismatch"] == "ok"
    assert statuses["unsatisfied-requirements"] == "ok"
    assert "fail" not in statuses.values()
    # and the verdict is true: torch_xla imports and runs on the CPU with this torch
    assert _import_torch_xla(python).stdout.split() == ["2.9.0+cu128", "2.9.0"]


def test_torch_213_with_torch_xla_29_is_a_mismatch_and_really_is(real_env) -> None:
    python = python_of(real_env("torch213-xla29"))
    code, report = _check(python)
    assert code == 1
    [failed] = [f for f in report["findings"] if f["status"] == "fail"]
    assert failed["id"] == "torch-xla-torch-mismatch"
    assert failed["title"] == "torch_xla 2.9.0 is built for torch 2.9, but torch 2.13.0+cpu is installed"
    assert failed["evidence"]["move"].startswith("no torch_xla release exists for torch 2.13")
    # the CPU build moves to the CPU build of 2.9 (PyPI's torch 2.9.0 is a CUDA build with GBs of nvidia-* wheels)
    assert report["plan"]["commands"] == [
        f"{python} -m pip install --extra-index-url https://download.pytorch.org/whl/cpu torch==2.9.0+cpu "
        "torch_xla==2.9.0"
    ]
    imported = _import_torch_xla(python)
    assert imported.returncode != 0 and "undefined symbol" in imported.stderr


def test_the_fix_plan_really_resolves_the_mismatch(tmp_path: Path) -> None:
    """Build a fresh mismatched venv, paste the plan's commands into a shell, diagnose again."""
    env = create_venv(tmp_path / "venv", ("torch==2.13.0", "torch_xla==2.9.0"))
    try:
        _fix_and_recheck(python_of(env))
    finally:
        shutil.rmtree(env, ignore_errors=True)  # about 7 GB once fixed


# The plan keeps torch's CPU build (torch==2.9.0+cpu from download.pytorch.org/whl/cpu), which is right for the
# user and cannot be reached from this machine: only PyPI is. The commands run here are the plan's with that one
# pin swapped for PyPI's torch 2.9.0 (the same release, a CUDA build that runs on the CPU), so the pairing the plan
# makes is still proved for real; tests/unit/remedy/test_plan_pairs.py proves the +cpu pin itself.
_OFFLINE = (" --extra-index-url https://download.pytorch.org/whl/cpu", ""), ("torch==2.9.0+cpu", "torch==2.9.0")


def _runnable_here(command: str) -> str:
    for old, new in _OFFLINE:
        command = command.replace(old, new)
    return command


def _fix_and_recheck(python: Path) -> None:
    code, before = _check(python)
    assert code == 1 and before["plan"]["commands"]
    assert any("torch==2.9.0+cpu" in c for c in before["plan"]["commands"]), before["plan"]["commands"]
    for command in before["plan"]["commands"]:
        subprocess.run(_runnable_here(command), shell=True, check=True, capture_output=True, timeout=1800)
    code, after = _check(python)
    assert code == 0, after
    assert _statuses(after)["torch-xla-torch-mismatch"] == "ok"
    assert _import_torch_xla(python).stdout.split() == ["2.9.0+cu128", "2.9.0"]
