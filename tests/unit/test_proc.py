"""Child processes: timeouts kill the whole group, signals are decoded, nothing raises."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from xladoctor import proc
from xladoctor.proc import StopEvent, run_command, start_command

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


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


@pytest.mark.parametrize("event", [StopEvent, threading.Event], ids=["stop-event", "plain-event"])
def test_a_cancel_set_from_another_thread_stops_the_child(event: type[threading.Event]) -> None:
    cancel = event()
    threading.Timer(0.3, cancel.set).start()
    result = run_command(SLEEPER, timeout_s=30, cancel=cancel)
    assert result.cancelled and result.describe_failure().startswith("was stopped after")
    assert result.duration_s < 5


def test_an_interrupt_wakes_the_wait_without_killing_first() -> None:
    # the CLI's handler also kills every group; setting the event alone must end the wait too
    threading.Timer(0.3, proc.INTERRUPTED.set).start()
    try:
        result = run_command(SLEEPER, timeout_s=30)
    finally:
        proc.INTERRUPTED.clear()
    assert result.cancelled and result.duration_s < 5


def test_waits_in_many_threads_each_end_with_their_own_child() -> None:
    codes = [0, 3, 5, 7]
    argv = [
        [sys.executable, "-c", f"import sys, time; time.sleep({i / 10}); sys.exit({c})"] for i, c in enumerate(codes)
    ]
    results: dict[int, int | None] = {}
    threads = [
        threading.Thread(target=lambda i=i: results.update({i: run_command(argv[i], 30).returncode})) for i in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [results[i] for i in range(4)] == codes


def test_a_started_child_runs_while_its_starter_works_and_wait_gives_its_result() -> None:
    running = start_command([sys.executable, "-c", "import sys; print(sys.argv[1])", "done"], timeout_s=30)
    # ... the starter's own work, while the child runs (the static check imports its checks here) ...
    result = running.wait()
    assert (result.returncode, result.stdout.strip()) == (0, "done")
    assert running.wait() is result  # asked again: the same outcome
    assert start_command(["/nonexistent/binary"], 5).wait().start_error is not None
