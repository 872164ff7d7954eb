"""Who holds the TPU: libtpu's lock file, the POSIX lock on it, and the processes with a TPU device open.

libtpu takes the TPU by opening /tmp/libtpu_lockfile for writing (O_CREAT | O_RDWR) and holding lockf(F_TLOCK) on
it until the process exits; it unlinks the file at a normal exit, so a crash leaves the file behind
(openxla/xla xla/stream_executor/tpu/tpu_initialize_util.cc `TryAcquireTpuLock`). The lock itself dies with its
process; a file left behind blocks only a user who cannot open it for writing. This probe records the file (owner,
writable by this user), the processes that hold a POSIX lock on its inode (/proc/locks, readable by every user),
and the processes with a TPU device or the file open (/proc/<pid>/fd: one's own processes, all of them as root),
the same scan as libtpu's own `FindLibtpuProcess`.

Bounded: at most MAX_PROCESSES processes, MAX_FDS descriptors each, MAX_HOLDERS recorded, DEADLINE_S seconds in
all; unreadable or garbage entries are counted or skipped, never raised. Nothing is scanned on a host without TPU
devices or lock file.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

LOCKFILE = Path("/tmp/libtpu_lockfile")
MAX_PROCESSES = 32768
MAX_FDS = 4096
MAX_HOLDERS = 64
MAX_LOCKS_BYTES = 1 << 20
DEADLINE_S = 1.0
_DEVICE_ID = re.compile(r"^([0-9a-fA-F]+):([0-9a-fA-F]+):(\d+)$")


def tpu_devices(dev: Path = Path("/dev")) -> list[str]:
    """TPU chips as the kernel names them: /dev/accel<n> (v2-v4) and /dev/vfio/<n> (v5e and later)."""
    found: list[str] = []
    for pattern in ("accel*", "vfio/*"):
        try:
            paths = sorted(dev.glob(pattern))[:256]
        except OSError:
            continue
        for path in paths:
            relative = path.relative_to(dev).as_posix()
            if relative.startswith("accel") or relative[len("vfio/") :].isdigit():
                found.append(f"/dev/{relative}")
    return found


def _read(path: Path, limit: int) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def lock_pids(text: str, device: int, inode: int) -> list[int]:
    """Processes holding a POSIX/flock lock on (device, inode), from /proc/locks text; garbage lines are skipped.

    A line reads '1: POSIX  ADVISORY  WRITE 3568 fd:00:2531452 0 EOF' ('->' marks a waiter, which holds nothing)."""
    found: list[int] = []
    for line in text.splitlines()[:100000]:
        words = line.split()
        if "->" in words:
            continue
        for index, word in enumerate(words):
            match = _DEVICE_ID.match(word)
            if not match or index == 0 or not words[index - 1].isdigit():
                continue
            major, minor, number = int(match[1], 16), int(match[2], 16), int(match[3])
            if (major, minor, number) == (os.major(device), os.minor(device), inode):
                pid = int(words[index - 1])
                if pid not in found:
                    found.append(pid)
            break
    return found


def _process(entry: Path) -> tuple[str | None, int | None]:
    name = _read(entry / "comm", 64)
    try:
        uid: int | None = entry.stat().st_uid
    except OSError:
        uid = None
    return (name.strip() or None) if name else None, uid


def scan_holders(proc: Path, targets: set[str], deadline: float) -> dict[str, Any]:
    """Processes whose open descriptors point at one of `targets`, within the bounds."""
    holders: list[dict[str, Any]] = []
    processes = unreadable = 0
    complete = True
    try:
        entries = os.scandir(proc)
    except OSError:
        return {"holders": [], "processes": 0, "unreadable": 0, "complete": False}
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            if processes >= MAX_PROCESSES or time.monotonic() > deadline or len(holders) >= MAX_HOLDERS:
                complete = False
                break
            processes += 1
            held = _held(Path(entry.path) / "fd", targets, deadline)
            if held is None:
                unreadable += 1
                continue
            if held and held[-1] == "":
                complete, held = False, held[:-1]
            if held:
                name, uid = _process(Path(entry.path))
                holders += [{"pid": int(entry.name), "path": p, "name": name, "uid": uid} for p in sorted(held)]
    holders.sort(key=lambda h: (h["pid"], h["path"]))
    return {"holders": holders[:MAX_HOLDERS], "processes": processes, "unreadable": unreadable, "complete": complete}


def _held(fd_dir: Path, targets: set[str], deadline: float) -> list[str] | None:
    """The targets one process has open (a trailing '' when its descriptors were not all read); None: unreadable."""
    found: list[str] = []
    try:
        with os.scandir(fd_dir) as fds:
            for count, fd in enumerate(fds):
                if count >= MAX_FDS or time.monotonic() > deadline:
                    return [*found, ""]
                try:
                    target = os.readlink(fd.path)
                except OSError:
                    continue
                if target in targets and target not in found:
                    found.append(target)
    except PermissionError:
        return None
    except OSError:  # the process ended, or a /proc that is not one
        return []
    return found


def probe_tpu(
    proc: Path = Path("/proc"), dev: Path = Path("/dev"), lockfile: Path = LOCKFILE, deadline_s: float = DEADLINE_S
) -> dict[str, Any]:
    """The `tpu` part of the host facts."""
    deadline = time.monotonic() + deadline_s
    facts: dict[str, Any] = {"uid": os.getuid(), "pid": os.getpid()}
    devices = tpu_devices(dev)
    try:
        stat = os.lstat(lockfile)
    except OSError:
        stat = None
    if stat is not None:
        facts.update(lockfile=str(lockfile), lock_uid=stat.st_uid, lock_writable=os.access(lockfile, os.W_OK))
        try:
            inode = os.stat(lockfile)  # lockf() locks what a link points to
        except OSError:
            inode = stat
        locks = _read(proc / "locks", MAX_LOCKS_BYTES)
        facts["locks_read"] = locks is not None
        facts["lock_pids"] = lock_pids(locks, inode.st_dev, inode.st_ino) if locks else []
    if not devices and stat is None:
        return facts
    targets = set(devices) | ({str(lockfile)} if stat is not None else set())
    facts.update(scan_holders(proc, targets, deadline))
    return facts
