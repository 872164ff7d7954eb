"""gate as people start it: under nohup, as a script's background job, and with a CMD whose Python is not the one
named by --python. Real processes, real shells, real virtual environments."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from envs import python_of

pytestmark = pytest.mark.integration
XLADOCTOR = [sys.executable, "-m", "xladoctor"]
# a shell that sends itself the signal: it survives only if the signal reached it ignored
SURVIVES = "kill -{sig} $$; echo survived"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "XLADOCTOR_GATE"}
    return {**env, **extra}


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, env=_env(), timeout=180, **kwargs)  # type: ignore[call-overload]


def test_nohup_gate_leaves_sighup_ignored_for_the_command(real_env) -> None:
    bare = str(python_of(real_env("bare")))
    result = _run(["nohup", *XLADOCTOR, "gate", "--python", bare, "--", "sh", "-c", SURVIVES.format(sig="HUP")])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "survived"  # before the fix: killed by SIGHUP, status 129


def test_nohup_profile_leaves_sighup_ignored_for_the_command(tmp_path: Path) -> None:
    result = _run(
        [
            "nohup",
            *XLADOCTOR,
            "profile",
            "--json",
            "-o",
            str(tmp_path / "r.json"),
            "--",
            "sh",
            "-c",
            SURVIVES.format(sig="HUP"),
        ]
    )
    assert "survived" in result.stdout, result.stderr
    assert '"exit_status": 0' in (tmp_path / "r.json").read_text()


def test_a_background_job_keeps_sigint_ignored(real_env) -> None:
    """A non-interactive shell starts `CMD &` with SIGINT and SIGQUIT ignored (POSIX, Shell Command Language 2.11)."""
    bare = str(python_of(real_env("bare")))
    script = '"$@" & wait $!'
    gate = [*XLADOCTOR, "gate", "--python", bare, "--", "sh", "-c", SURVIVES.format(sig="INT")]
    result = _run(["bash", "-c", script, "bash", *gate])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "survived"


def test_signals_the_caller_left_alone_still_reach_the_command_with_their_default(real_env) -> None:
    """The other side: without nohup, SIGHUP kills the command (128 + 1), as it would without gate."""
    bare = str(python_of(real_env("bare")))
    result = _run([*XLADOCTOR, "gate", "--python", bare, "--", "sh", "-c", SURVIVES.format(sig="HUP")])
    assert result.returncode in (-signal.SIGHUP, 128 + signal.SIGHUP)
    assert "survived" not in result.stdout


def test_gate_checks_the_python_cmd_runs_by_default(real_env) -> None:
    bare = str(python_of(real_env("bare")))
    result = _run([*XLADOCTOR, "gate", "--", bare, "-c", "print('ran')"])
    assert result.returncode == 0 and result.stdout.strip() == "ran"
    assert "passed (" in result.stderr and f" for {bare} in " in result.stderr


def test_gate_reads_a_console_scripts_shebang(real_env) -> None:
    """torchrun is a console script: its #! line names the venv's python, which is what gets checked."""
    torch_env = real_env("torch-jax-cpu")
    result = subprocess.run(
        [*XLADOCTOR, "gate", "--require", "python", "--", "torchrun", "--help"],
        capture_output=True,
        text=True,
        timeout=180,
        env=_env(PATH=f"{torch_env / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"),
    )
    assert result.returncode == 0, result.stderr
    checked = result.stderr.split(" for ", 1)[1].split(" in ", 1)[0]
    assert Path(checked).parent == torch_env / "bin"
    assert "usage: torchrun" in result.stdout


def test_a_mismatched_python_is_said_and_refused_under_strict(real_env, tmp_path: Path) -> None:
    """The reported failure: --python names an environment with torch, CMD runs another without it."""
    with_torch = str(python_of(real_env("torch-jax-cpu")))
    bare = str(python_of(real_env("bare")))
    program = "import torch"
    loose = _run([*XLADOCTOR, "gate", "--require", "python", "--python", with_torch, "--", bare, "-c", program])
    assert f"warning: --python {with_torch} is not the interpreter CMD runs" in loose.stderr
    assert "No module named 'torch'" in loose.stderr  # what the user met: the program ran in the other one
    marker = tmp_path / "started"
    strict = _run(
        [
            *XLADOCTOR,
            "gate",
            "--strict",
            "--require",
            "python",
            "--python",
            with_torch,
            "--",
            bare,
            "-c",
            f"open({str(marker)!r}, 'w')",
        ]
    )
    assert strict.returncode == 1 and not marker.exists()
    assert "refusing to start" in strict.stderr and "is not the interpreter CMD runs" in strict.stderr
    # the same interpreter by another name of the same venv is not a mismatch
    same = _run(
        [
            *XLADOCTOR,
            "gate",
            "--strict",
            "--require",
            "python",
            "--python",
            with_torch,
            "--",
            str(Path(with_torch).parent / "python3"),
            "-c",
            "print('ok')",
        ]
    )
    assert same.returncode == 0 and same.stdout.strip() == "ok", same.stderr
