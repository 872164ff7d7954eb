"""`profile --stall-after SECONDS`: watch a running program for progress from xladoctor's own process; when no
rank made any for SECONDS, diagnose the hang at once while the program keeps running.

Progress is what the hooks write (a step, a collective, a compile: their record files grow) and what the program
writes itself (its output, its checkpoints: the `wchar` of /proc/PID/io, less what went into our record files).
Nothing of this runs inside the program: the watch reads file sizes and /proc once per poll, so the program pays
nothing until a stall. A stall whose ranks are all compiling or importing is a compile in progress: it is noted,
and the watch goes on. With `--stall-action stop`, the program's own processes are stopped after the report.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from xladoctor.profile.hang.diagnose import diagnose
from xladoctor.profile.hang.discover import Target, from_records
from xladoctor.profile.hang.model import HangReport
from xladoctor.profile.launch import DIR_VARIABLE, marked_processes
from xladoctor.profile.records import read_records

# A stopped job gets this long after SIGTERM before what is left of it is killed.
STOP_GRACE_S = 5.0
_FILE = re.compile(r"^(proc|coll|dump|fault|ctl)-(\d+)")
_PROGRESS_KINDS = ("proc", "coll")


@dataclass
class _Seen:
    sizes: dict[str, int] = field(default_factory=dict)
    written: dict[int, int] = field(default_factory=dict)  # pid -> wchar at the last poll
    ours: dict[int, int] = field(default_factory=dict)  # pid -> bytes in our files at the last poll


def _wchar(pid: int) -> int | None:
    """Bytes the process passed to write(2) and its kin so far (proc(5): /proc/PID/io, `wchar`)."""
    try:
        with open(f"/proc/{pid}/io", "rb") as handle:
            for line in handle.read(4096).splitlines():
                if line.startswith(b"wchar:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _alive(pid: int, marker: bytes) -> bool:
    """The process runs and is still the program's (a pid reused by another program is not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            if handle.read(4096).rsplit(b")", 1)[-1].split()[0] == b"Z":
                return False
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return marker in handle.read(1 << 20).split(b"\0")
    except PermissionError:
        return True  # unreadable but present: not ours to doubt
    except (OSError, IndexError):
        return False


def _in(pid: int, group: int) -> bool:
    """In the job's process group: processes the program detached into sessions of their own are left alone."""
    try:
        return os.getpgid(pid) == group
    except OSError:
        return False


class StallWatch:
    """A thread of xladoctor's that watches the records folder and /proc for progress."""

    def __init__(
        self,
        records: Path,
        env: Mapping[str, str],
        stall_after_s: float,
        on_report: Callable[[HangReport], None],
        subject: tuple[str, ...],
        stop_job: bool = False,
        on_note: Callable[[str], None] | None = None,
    ) -> None:
        self.records = records
        self.stall_after_s = stall_after_s
        self.on_report = on_report
        self.on_note = on_note
        self.subject = subject
        self.stop_job = stop_job
        self.reports: list[HangReport] = []
        self.in_progress: list[HangReport] = []  # stalls that were a compile or an import in progress
        self.notes: list[str] = []
        self.stopped = 0  # processes stopped by --stall-action stop
        self.errors: list[str] = []
        self._marker = f"{DIR_VARIABLE}={env[DIR_VARIABLE]}".encode("utf-8", "surrogateescape")
        self._env = env
        self._gone: dict[int, float] = {}
        self._known: set[int] = set()
        self._seen = _Seen()
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._guarded, name="xladoctor-stall-watch", daemon=True)
        self._child: subprocess.Popen[bytes] | None = None
        self.poll_s = min(1.0, max(0.1, stall_after_s / 10))
        self.cwd: str | None = None
        self._said: set[str] = set()

    def start(self, child: subprocess.Popen[bytes]) -> None:
        self._child = child
        self._thread.start()

    def stop(self) -> None:
        self._halt.set()
        if self._thread.is_alive():
            self._thread.join(timeout=120)

    def alive(self, pid: int) -> bool:
        return _alive(pid, self._marker)

    def _progressed(self) -> bool:
        """Whether anything moved since the last poll: a record file grew or appeared, or a process wrote."""
        moved = False
        sizes: dict[str, int] = {}
        ours: dict[int, int] = {}
        try:
            entries = list(os.scandir(self.records))
        except OSError:
            return False
        for entry in entries:
            match = _FILE.match(entry.name)
            if match is None:
                continue
            with contextlib.suppress(OSError):
                size = entry.stat(follow_symlinks=False).st_size
                pid = int(match.group(2))
                sizes[entry.name] = size
                ours[pid] = ours.get(pid, 0) + size
                if match.group(1) in _PROGRESS_KINDS and size != self._seen.sizes.get(entry.name, -1):
                    moved = True
        for pid in ours:
            written = _wchar(pid)
            if written is None:
                if pid in self._known and pid not in self._gone and not self.alive(pid):
                    self._gone[pid] = time.time()
                continue
            self._known.add(pid)
            before, mine = self._seen.written.get(pid), self._seen.ours.get(pid, 0)
            if before is not None and written - before > ours[pid] - mine:
                moved = True  # the program wrote something that is not our records: its output, a file
            self._seen.written[pid] = written
        self._seen.sizes, self._seen.ours = sizes, ours
        return moved

    def targets(self) -> list[Target]:
        processes = read_records(self.records)
        self.cwd = next((p.cwd for p in processes if p.cwd), None)
        return from_records(self.records, processes, self.alive, self._gone)

    def _guarded(self) -> None:
        try:
            self._run()
        except Exception as exc:  # noqa: BLE001 - the watch must never take the profiled program's report with it
            self.errors.append(f"{type(exc).__name__}: {exc}")

    def _run(self) -> None:
        last = time.monotonic()
        stalled = False
        self._progressed()
        while not self._halt.wait(self.poll_s):
            now = time.monotonic()
            if self._progressed():
                if stalled:
                    self.notes.append(f"progress resumed {now - last:.0f} s after the stall began")
                last, stalled = now, False
                continue
            if stalled or now - last < self.stall_after_s:
                continue
            targets = self.targets()
            report = diagnose(targets, "stall", self.subject, stalled_s=now - last, stall_after_s=self.stall_after_s,
                              cwd=self.cwd)  # fmt: skip
            if self._halt.is_set():
                return
            if report.only_compiling:
                self.in_progress.append(report)
                said = report.findings[0].finding.title
                if self.on_note is not None and said not in self._said:
                    self._said.add(said)
                    self.on_note(said)
                last = time.monotonic()
                continue
            stalled = True
            self.reports.append(report)
            self.on_report(report)
            if self.stop_job:
                self.stopped = self._stop()
                return

    def _stop(self) -> int:
        """SIGTERM the program (a launcher passes it on to its workers), then SIGKILL what is left of it after the
        grace period: only the program's own processes, those that carry this run's records folder."""
        child = self._child
        if child is None:
            return 0
        group = os.getpgid(0)
        pids = [p for p in dict.fromkeys([child.pid, *marked_processes(self._env)]) if p == child.pid or _in(p, group)]
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        while time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.1)
        for pid in marked_processes(self._env):
            if _in(pid, group):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        if child.poll() is None:
            with contextlib.suppress(OSError):
                child.kill()
        return len(pids)
