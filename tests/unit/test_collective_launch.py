"""The launch of a node's ranks: every process it started is gone once it is over (real child processes)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import psutil

from xladoctor.collective.launch import run_ranks

# Like torch's SubprocessHandler (start_new_session=True: subprocess_handler.py, torch v2.9.0): a launcher whose worker
# leaves the launcher's process group, so killing that group at the deadline misses the worker.
LAUNCHER = """
import os, subprocess, sys, time
worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
with open(os.path.join(os.environ["XLADOCTOR_COLLECTIVE_OUT"], "worker.pid"), "w") as handle:
    handle.write(str(worker.pid))
time.sleep(120)
"""


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_worker_in_a_session_of_its_own_does_not_outlive_the_deadline(tmp_path: Path) -> None:
    env = {**os.environ, "XLADOCTOR_COLLECTIVE_OUT": str(tmp_path)}
    started = time.monotonic()
    launch = run_ranks([sys.executable, "-c", LAUNCHER], env, tmp_path, time.monotonic() + 3, 0)
    assert launch.result is not None and launch.result.timed_out
    assert time.monotonic() - started < 8
    pid = int((tmp_path / "worker.pid").read_text())
    deadline = time.monotonic() + 3
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(pid)
