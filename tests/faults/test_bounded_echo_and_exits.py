"""Long unbroken text costs its length, no more (issue 23, 5); a stock system Python is judged as its packager made
it (6); closed standard streams and an empty command are bad usage, exit 2 (7). Real processes throughout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.sanitize import SHOWN_CHARS

GOOD = FACTS_DIR / "real-torch29-xla29.json"


def _printing_python(folder: Path, line_bytes: int) -> str:
    """An 'interpreter' that prints one unbroken line of `line_bytes` and exits 1."""
    path = folder / "python"
    path.write_text(f"#!/bin/sh\n{sys.executable} -c \"import sys; sys.stdout.write('x' * {line_bytes})\"\nexit 1\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("fmt", ["text", "html"])
def test_a_target_that_prints_one_128_kib_line_is_reported_within_its_timeout(tmp_path: Path, fmt: str) -> None:
    """It took over 120 s with --timeout 5 (rich's highlighter on the echoed line)."""
    python = _printing_python(tmp_path, 128 << 10)
    out = tmp_path / f"report.{fmt}"
    started = time.monotonic()
    result = run_cli("check", "--python", python, "--timeout", "5", "--format", fmt, "-o", str(out), timeout=60)
    assert time.monotonic() - started < 20, "bounded by --timeout plus a small constant"
    assert result.returncode == 1, result.stderr
    text = out.read_text()
    assert "x" * 200 in text and "x" * (SHOWN_CHARS + 1) not in text  # echoed, and cut to the documented length


def test_explain_on_a_200_mb_single_line_costs_what_its_head_and_end_cost(tmp_path: Path) -> None:
    log = tmp_path / "one.log"
    with log.open("wb") as out:
        out.write(b"ab cd " * ((200 << 20) // 6))
        out.write(b" RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    started = time.monotonic()
    result = run_cli("explain", str(log), "--no-facts", "--json", timeout=120)
    assert time.monotonic() - started < 15  # it took about 20 s: every byte through every signature's gate
    document = json.loads(result.stdout)
    assert document["input"]["skipped_bytes"] > 150 << 20 and document["primary"] == "cuda-no-kernel-image"


# ---- a stock system Python -------------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/usr/lib/python3/dist-packages").is_dir(), reason="a Debian or Ubuntu system Python")
def test_debians_own_python_passes_check_and_gate(tmp_path: Path) -> None:
    """Debian 12's python3-distro names `scripts-3.10/distro` in its RECORD, a path the package never ships."""
    system = shutil.which("python3", path="/usr/bin")
    assert system is not None
    result = run_cli("check", "--python", system, "--json")
    document = json.loads(result.stdout)
    assert [f["id"] for f in document["findings"] if f["status"] in ("fail", "error")] == [], result.stdout
    assert all("pip install" not in c for c in document["plan"]["commands"])
    ran = run_cli("gate", "--python", system, "--", sys.executable, "-c", "print('started')")
    assert ran.returncode == 0 and ran.stdout == "started\n", ran.stderr


def _system_python(doc: dict) -> dict:
    """The real torch 2.9 snapshot as if it were Debian's /usr/bin/python3 (PEP 668 marker, dist-packages)."""
    python = doc["python"]
    python.update(
        executable="/usr/bin/python3", prefix="/usr", base_prefix="/usr", env_kind="system", pyvenv_cfg=None,
        externally_managed="/usr/lib/python3.11/EXTERNALLY-MANAGED",
    )  # fmt: skip
    return doc


def test_a_system_packaged_distribution_is_judged_on_its_modules_and_fixed_by_its_packager() -> None:
    doc = _system_python(load_json(GOOD))
    doc["distributions"].append(
        {
            **doc["distributions"][0],
            "name": "distro",
            "version": "1.8.0",
            "installer": None,
            "location": "/usr/lib/python3/dist-packages",
            "metadata_dir": "/usr/lib/python3/dist-packages/distro-1.8.0.dist-info",
            "top_level": ["distro", "scripts-3.10"],
            "packages": ["distro"],
            "missing_top_level": ["scripts-3.10"],
            "missing_shared_libs": [],
            "shared_libs": [],
        }  # fmt: skip
    )
    report = run_diagnosis(facts_from_json(doc), select_checks(only=("broken-distribution",)))
    [finding] = report.findings
    assert finding.status.value == "ok", finding.title
    doc["distributions"][-1]["missing_top_level"] = ["scripts-3.10", "distro"]  # now its module is gone too
    report = run_diagnosis(facts_from_json(doc), select_checks(only=("broken-distribution",)))
    [finding] = report.findings
    assert (finding.status.value, finding.title) == ("fail", "distro 1.8.0 is installed but its files are gone: distro")
    assert finding.remediation == (
        "dpkg -S /usr/lib/python3/dist-packages/distro-1.8.0.dist-info  # the Debian package that owns distro; "
        "then: sudo apt-get install --reinstall PACKAGE",
    )


def test_no_fix_is_a_pip_command_on_an_externally_managed_python() -> None:
    doc = _system_python(load_json(FACTS_DIR / "real-torch213-xla29.json"))
    report = run_diagnosis(facts_from_json(doc), select_checks())
    commands = report.plan.commands
    assert commands and not any(c.startswith("/usr/bin/python3 -m pip") for c in commands), commands
    assert commands[0].startswith('/usr/bin/python3 -m venv "$HOME/venvs/ml"  # /usr/bin/python3 is managed by')
    assert commands[1].startswith('"$HOME/venvs/ml/bin/python" -m pip install')
    for finding in report.findings:
        assert not any(c.startswith("/usr/bin/python3 -m pip") for c in finding.remediation), finding.id


def test_nvcc_beside_a_torch_of_another_cuda_warns_without_a_gpu() -> None:
    """torch's cpp_extension refuses the build whether or not a GPU is there: CPU image builds and CI fail."""
    doc = load_json(FACTS_DIR / "gpu-nvcc-13-beside-cu128-torch.json")
    doc["system"]["nvidia"] = {"source": "none", "driver_version": None, "cuda_version": None, "gpus": []}
    report = run_diagnosis(facts_from_json(doc), select_checks(only=("nvcc-torch-cuda-mismatch",)))
    [finding] = report.findings
    assert finding.status.value == "warn" and "this host has no GPU" in finding.title


# ---- exit codes as documented ------------------------------------------------------------------------------


def _closed(args: list[str], which: str) -> subprocess.CompletedProcess[str]:
    """Run xladoctor with stdout (`>&-`) or stdin (`<&-`) closed, as a shell does."""
    fd = 1 if which == "stdout" else 0
    return subprocess.run(
        [sys.executable, "-m", "xladoctor", *args],
        stderr=subprocess.PIPE,
        stdout=None if fd == 0 else subprocess.DEVNULL,
        text=True,
        preexec_fn=lambda: os.close(fd),
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "which", "says"),
    [
        (["snapshot"], "stdout", "stdout is closed"),
        (["check", "--no-smoke", "--json"], "stdout", "stdout is closed"),
        (["check", "--facts", str(GOOD), "--json"], "stdout", "stdout is closed"),
        (["schema"], "stdout", "stdout is closed"),
        (["explain", str(FACTS_DIR / "resolved.json"), "--no-facts"], "stdout", "stdout is closed"),
        (["explain", "--no-facts"], "stdin", "stdin is closed"),
        (["check", "--facts", "-"], "stdin", "stdin is closed"),
    ],
)
def test_a_closed_standard_stream_is_bad_usage_exit_2(args: list[str], which: str, says: str) -> None:
    result = _closed(args, which)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xladoctor: error: ") and says in lines[0], result.stderr


@pytest.mark.parametrize("command", [["gate", "--", ""], ["profile", "--", ""]])
def test_an_empty_command_is_bad_usage(command: list[str]) -> None:
    result = run_cli(*command)
    assert result.returncode == 2 and "needs the command" in result.stderr, result.stderr
