"""`profile` leaves the program's processes as the program left them, and its records cannot hurt it (issue 23, 3).

Real processes: a profiled program that starts a background job, a `setsid` daemon and a hundred children; one
that plants a FIFO, a link to a device and a 300 MiB line among the records; one that ignores SIGTERM and
SIGINT while it is interrupted twice.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli, run_cli_peak_kib

_MARK = "xladoctor-test-left-running"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except OSError:
        return False


def _ours() -> list[int]:
    """The sleepers a test started, found by the word in their argv."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if _MARK.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return [p for p in found if _alive(p)]


@pytest.fixture
def sleepers():
    yield
    for pid in _ours():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _program(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "program.py"
    script.write_text(body)
    return script


SPAWNS = f"""
import subprocess, sys
sleep = [sys.executable, "-c", "import time; time.sleep(60)", "{_MARK}"]
quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # the test reads xladoctor's pipes to their end
subprocess.Popen(sleep, **quiet)                              # a background job in the program's group
subprocess.Popen(sleep, start_new_session=True, **quiet)      # a daemon, detached with setsid
for _ in range(100):
    subprocess.Popen(sleep, **quiet)
print("started")
"""


def test_processes_the_program_leaves_running_are_left_running_and_named(tmp_path: Path, sleepers: None) -> None:
    report = tmp_path / "report.json"
    result = run_cli(
        "profile", "--format", "json", "-o", str(report), "--", sys.executable, str(_program(tmp_path, SPAWNS))
    )
    assert result.returncode == 0, result.stderr
    time.sleep(0.5)
    assert len(_ours()) == 102, "xladoctor killed processes the program left running"
    document = json.loads(report.read_text())
    left = document["left_running"]
    assert len(left) == 102 and sum(1 for p in left if p["detached"]) == 1
    assert any(
        n.startswith("102 processes the program started were still running when it ended") for n in document["notes"]
    )
    assert document["interrupted"] is False and document["exit_status"] == 0


PLANTS = """
import json, os, sys
folder = os.environ["XLADOCTOR_PROFILE_DIR"]
os.mkfifo(os.path.join(folder, "proc-999999.jsonl"))                       # a FIFO nobody writes
os.symlink(sys.argv[1], os.path.join(folder, "proc-999998.jsonl"))         # a link to a zero device
with open(os.path.join(folder, "proc-999997.jsonl"), "w") as out:           # one line of 300 MiB
    out.write(json.dumps({"kind": "process", "pid": 999997}) + "\\n")
    out.write('{"kind": "x", "s": "' + "a" * (300 << 20) + '"}\\n')
print("planted")
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_planted_records_cost_bounded_time_and_memory(tmp_path: Path) -> None:
    zero = tmp_path / "zero"
    os.mknod(zero, 0o666 | stat.S_IFCHR, os.makedev(1, 5))  # the zero device, in the test's own folder
    script = _program(tmp_path, PLANTS)
    started = time.monotonic()
    code, _, peak_kib = run_cli_peak_kib("profile", "--", sys.executable, str(script), str(zero))
    assert code == 0
    assert time.monotonic() - started < 60  # the FIFO once hung it for ever
    assert peak_kib < 150 * 1024  # a 300 MiB line once cost 648 MB; a link to /dev/zero, all memory


def test_a_bad_output_is_refused_before_the_program_runs(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    script = _program(tmp_path, f"open({str(ran)!r}, 'w').close()\n")
    for args in (["-o", str(tmp_path / "missing" / "r.json")], ["--keep-records", str(tmp_path)]):
        result = run_cli("profile", *args, "--", sys.executable, str(script))
        assert result.returncode == 2, result.stderr
        assert not ran.exists(), f"{args}: the program ran before its output was checked"


STUBBORN = """
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(30)
"""


def test_a_second_interrupt_stops_a_program_that_ignores_signals_at_once(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    script = _program(tmp_path, STUBBORN)
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "xladoctor",
            "profile",
            "--format",
            "json",
            "-o",
            str(report),
            "--",
            sys.executable,
            str(script),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group: the signals below go to xladoctor alone
    )
    assert child.stdout is not None and child.stdout.readline() == b"ready\n"
    child.send_signal(signal.SIGINT)
    time.sleep(0.3)
    stopped_at = time.monotonic()
    child.send_signal(signal.SIGINT)
    code = child.wait(timeout=20)
    assert time.monotonic() - stopped_at < 5  # it once took 23.6 s, the program's whole sleep
    assert code == 130
    document = json.loads(report.read_text())
    assert document["interrupted"] is True and document["exit_status"] == 130
    [program_exit] = [f for f in document["findings"] if f["id"] == "program-exit"]
    assert program_exit["status"] == "fail" and "after a second SIGINT" in program_exit["title"]


@pytest.mark.parametrize("rank", ["²", "٣", "-1", "1e3", ""])
def test_a_rank_variable_that_is_no_number_is_no_crash(tmp_path: Path, rank: str) -> None:
    result = run_cli("profile", "--", sys.executable, "-c", "pass", env={"RANK": rank, "SLURM_PROCID": rank})
    assert result.returncode == 0, result.stderr
