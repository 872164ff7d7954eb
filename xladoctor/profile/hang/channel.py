"""The profile hook's files of one process (profile/scripts/_xladoctor_profile_watch.py and _dist.py): its collective
ring, a dump asked through its FIFO, and faulthandler's text when its threads cannot answer.

Everything is read as the records are (regular files only, bounded), since the program writes them.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xladoctor.profile.records import _open_regular, bounded_lines

MAX_DUMP_BYTES = 8 << 20
MAX_RING_BYTES = 1 << 20
_POLL_S = 0.05


def _read_regular(path: Path, limit: int) -> bytes | None:
    fd = _open_regular(path)
    if fd is None:
        return None
    try:
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def ring(records: Path, pid: int) -> list[Mapping[str, Any]]:
    """The collective lines of `pid`, older half of the ring first."""
    lines: list[Mapping[str, Any]] = []
    for name in (f"coll-{pid}.1.jsonl", f"coll-{pid}.jsonl"):
        fd = _open_regular(records / name)
        if fd is None:
            continue
        try:
            for raw in bounded_lines(fd, MAX_RING_BYTES):
                if raw is None:
                    continue
                with contextlib.suppress(ValueError, RecursionError):
                    value = json.loads(raw)
                    if isinstance(value, dict):
                        lines.append(value)
        except OSError:
            pass
        finally:
            os.close(fd)
    return lines


def request_dump(records: Path, pid: int, number: int, timeout_s: float) -> Mapping[str, Any] | None:
    """Ask the process's listening thread for a dump and wait for it; None when nobody listens or it is late."""
    fifo = records / f"ctl-{pid}"
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno not in (errno.ENXIO, errno.ENOENT, errno.EACCES):
            raise
        return None  # ENXIO: no thread of that process holds the FIFO open for reading
    try:
        os.write(fd, f"{number}\n".encode())
    except OSError:
        return None
    finally:
        os.close(fd)
    answer = records / f"dump-{pid}-{number}.json"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        data = _read_regular(answer, MAX_DUMP_BYTES)
        if data is not None:
            with contextlib.suppress(OSError):
                os.unlink(answer)  # read once: the folder keeps no stale answer
            try:
                value = json.loads(data)
            except (ValueError, RecursionError):
                return None
            return value if isinstance(value, dict) else None
        time.sleep(_POLL_S)
    return None


def request_number() -> int:
    """A number no other request to that folder uses: `xladoctor hang` may ask a job that another xladoctor (its
    profile) and other `hang` runs ask too."""
    return secrets.randbits(48)


def catches(pid: int, signum: int) -> bool:
    """Whether `pid` has a handler for `signum` now (proc(5): the SigCgt mask of /proc/PID/status). A signal whose
    default is to terminate is sent only to a process that catches it: never to a pid reused by another program,
    nor to one that exec'd since it registered."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle.read(1 << 16).splitlines():
                if line.startswith(b"SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except (OSError, ValueError, IndexError):
        return False
    return False


def fault_dump(records: Path, pid: int, signum: int, timeout_s: float) -> str | None:
    """Have faulthandler write every thread's stack (the signal the hook registered), and read what it wrote."""
    if not catches(pid, signum):
        return None
    path = records / f"fault-{pid}.txt"
    before = len(_read_regular(path, MAX_DUMP_BYTES) or b"")
    try:
        os.kill(pid, signum)
    except (OSError, ValueError):
        return None
    deadline = time.monotonic() + timeout_s
    seen = before
    while time.monotonic() < deadline:
        time.sleep(0.2)
        data = _read_regular(path, MAX_DUMP_BYTES) or b""
        if len(data) > before and len(data) == seen:  # written and no longer growing
            return data[before:].decode("utf-8", "replace")
        seen = len(data)
    data = _read_regular(path, MAX_DUMP_BYTES) or b""
    return data[before:].decode("utf-8", "replace") if len(data) > before else None
