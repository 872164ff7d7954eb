"""The container gate as a real process: exec on success (same PID, signals, exit code), refusal on failure."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from envs import python_of

pytestmark = pytest.mark.integration
GATE = [sys.executable, "-m", "xladoctor", "gate"]


def _env(**extra: str | None) -> dict[str, str]:
    """This process's environment without a gate switch of its own, plus `extra` (None unsets)."""
    merged: dict[str, str | None] = {**os.environ, "XLADOCTOR_GATE": None, **extra}
    return {k: v for k, v in merged.items() if v is not None}


def test_the_command_becomes_the_process_and_keeps_its_exit_code(real_env) -> None:
    healthy = python_of(real_env("bare"))
    proc = subprocess.Popen(
        [*GATE, "--python", str(healthy), "--", "sh", "-c", "echo pid=$$; exit 7"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 7
    assert out.strip() == f"pid={proc.pid}"  # exec: the shell has the gate's PID
    assert err.startswith("xladoctor gate: passed (") and err.rstrip().endswith("; starting sh")


def test_sigterm_reaches_the_command_directly(real_env) -> None:
    healthy = python_of(real_env("bare"))
    program = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *_: (print('got SIGTERM', flush=True), sys.exit(42)))\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [*GATE, "--python", str(healthy), "--", sys.executable, "-c", program],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_env(),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGTERM)
    assert proc.stdout.readline().strip() == "got SIGTERM"
    assert proc.wait(timeout=30) == 42


def _gate(*args: str, **env: str | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GATE, *args], capture_output=True, text=True, env=_env(**env), timeout=120)


def test_a_failing_environment_is_refused_with_the_report_on_stderr(real_env, tmp_path: Path) -> None:
    broken = str(python_of(real_env("torch213-xla29")))
    marker = tmp_path / "started"
    result = _gate("--python", broken, "--", "touch", str(marker), PJRT_DEVICE="CPU")
    assert result.returncode == 1
    assert not marker.exists() and result.stdout == ""
    assert "torch-xla-torch-mismatch" in result.stderr
    assert result.stderr.rstrip().endswith(
        "xladoctor gate: refusing to start touch (exit 1); XLADOCTOR_GATE=off skips the gate"
    )
    # --require narrows what must pass; the emergency switch skips the gate
    narrowed = _gate("--python", broken, "--require", "python,libraries", "--", "touch", str(marker), PJRT_DEVICE="CPU")
    assert narrowed.returncode == 0 and marker.exists()
    marker.unlink()
    skipped = _gate("--python", broken, "--", "touch", str(marker), XLADOCTOR_GATE="off")
    assert skipped.returncode == 0 and marker.exists()
    assert skipped.stderr == "xladoctor gate: skipped (XLADOCTOR_GATE=off); starting touch\n"


def test_bad_gate_usage_is_one_line_and_exit_2() -> None:
    for args, needle in [
        ([], "gate needs the command to start"),
        (["--", "/nonexistent/program"], "cannot start /nonexistent/program: No such file or directory"),
        (["--require", "nonsense", "--", "true"], "unknown check or area 'nonsense'"),
    ]:
        result = _gate(*args)
        lines = result.stderr.strip().splitlines()
        if lines[-1].startswith("hint: "):  # a did-you-mean line may follow the error, as uv and pip print it
            lines.pop()
        assert result.returncode == 2 and lines[-1].startswith("xladoctor: error: ") and needle in lines[-1], lines
