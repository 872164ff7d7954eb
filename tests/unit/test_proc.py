"""Child processes: timeouts kill the whole group, signals are decoded, nothing raises."""

from __future__ import annotations

import sys
import time

from xladoctor.proc import run_command


def test_success_returns_output() -> None:
    result = run_command([sys.executable, "-c", "print('hi')"], timeout_s=30)
    assert (result.returncode, result.stdout.strip(), result.ok) == (0, "hi", True)


def test_missing_binary_is_data_not_exception() -> None:
    result = run_command(["/nonexistent/binary"], timeout_s=5)
    assert result.returncode is None and not result.ok
    assert result.describe_failure().startswith("could not start /nonexistent/binary")


def test_signal_is_decoded() -> None:
    result = run_command([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], 30)
    assert result.signal_name == "SIGSEGV"
    assert result.describe_failure() == "killed by SIGSEGV"


def test_timeout_kills_grandchildren_too(tmp_path) -> None:
    # The child starts a grandchild that would write a file after 3 s; killing only the child would let it.
    marker = tmp_path / "grandchild-survived"
    grandchild = f"import time; time.sleep(3); open({str(marker)!r}, 'w')"
    code = f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {grandchild!r}])\ntime.sleep(60)\n"
    started = time.monotonic()
    result = run_command([sys.executable, "-c", code], timeout_s=1)
    assert result.timed_out and result.describe_failure().startswith("timed out after")
    assert time.monotonic() - started < 10
    time.sleep(3.5)
    assert not marker.exists()
