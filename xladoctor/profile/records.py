"""Read the records every process of the profiled program wrote (proc-<pid>.jsonl), whatever state they are in.

A process killed mid-write leaves a cut last line, a full disk an empty file, a program that forks a copy of
its parent's records: each line is parsed on its own, a malformed one is counted and skipped, and the size
read is bounded, so a broken or hostile file costs at most that bound.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from xladoctor.errors import UsageError
from xladoctor.profile.model import ProcessRecord
from xladoctor.redact import redact_argv
from xladoctor.sanitize import one_line, scrub, scrub_json

# The hooks stop writing at 64 MiB a process; read no more than that, plus a margin for the last line.
MAX_READ_BYTES = (64 << 20) + (1 << 20)
MAX_LINE_BYTES = 1 << 20
MAX_PROCESSES = 4096


def _open_regular(path: Path) -> int | None:
    """A descriptor for `path` when it is a regular file and not a link (a FIFO planted in the folder must not
    hang the read, a link to /dev/zero must not feed it for ever); None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def bounded_lines(fd: int, max_bytes: int = MAX_READ_BYTES, max_line: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """The lines of a file, each with its newline; None for a line longer than `max_line` (never held in memory
    whole) or cut at the end. At most `max_bytes` are read."""
    pending = bytearray()
    overlong = False
    read = 0
    while read < max_bytes:
        chunk = os.read(fd, min(1 << 16, max_bytes - read))
        if not chunk:
            break
        read += len(chunk)
        start = 0
        while (newline := chunk.find(b"\n", start)) >= 0:
            if overlong or len(pending) + newline + 1 - start > max_line:
                yield None
            else:
                yield bytes(pending) + chunk[start : newline + 1]
            pending.clear()
            overlong = False
            start = newline + 1
        if not overlong:
            pending += chunk[start:]
            if len(pending) > max_line:
                pending.clear()
                overlong = True
    if pending or overlong:
        yield None


def _events(path: Path) -> tuple[list[dict[str, Any]], int]:
    events: list[dict[str, Any]] = []
    malformed = 0
    fd = _open_regular(path)
    if fd is None:
        return events, 1
    try:
        for raw in bounded_lines(fd):
            if raw is None:
                malformed += 1  # a line cut by a crash, one no hook writes, or what a full read left
                continue
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                malformed += 1
                continue
            if isinstance(value, dict) and isinstance(value.get("kind"), str):
                events.append(value)
            else:
                malformed += 1
    except OSError:
        malformed += 1
    finally:
        os.close(fd)
    return events, malformed


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _process(path: Path) -> ProcessRecord | None:
    events, malformed = _events(path)
    heads = [e for e in events if e.get("kind") == "process"]
    if not heads:
        return None
    head = heads[-1]  # a forked child's file starts where its parent's records were copied: its own head wins
    pid = _int(head.get("pid"))
    if pid is None:
        return None
    argv = head.get("argv")
    ranks = head.get("ranks")
    cwd, python = head.get("cwd"), head.get("python")
    start = events.index(head)
    own = tuple(events[start + 1 :])
    return ProcessRecord(
        pid=pid,
        ppid=_int(head.get("ppid")),
        argv=redact_argv([str(a) for a in argv]) if isinstance(argv, list) else (),
        cwd=cwd if isinstance(cwd, str) else None,
        python=python if isinstance(python, str) else None,
        ranks={str(k): str(v) for k, v in ranks.items()} if isinstance(ranks, Mapping) else {},
        events=own,
        exited=any(e.get("kind") == "exit" for e in own),
        truncated=any(e.get("kind") == "truncated" for e in own),
        malformed_lines=malformed,
    )


def read_process(path: Path) -> ProcessRecord | None:
    """One process's records (proc-<pid>.jsonl), or None when the file holds no process head."""
    return _process(path)


def _scrubbed(raw: bytes) -> bytes:
    """One record line with every credential redacted: argv element by element, every other string as text."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return (scrub(raw.decode("utf-8", "replace").rstrip("\n")) + "\n").encode()
    if isinstance(value, dict) and isinstance(value.get("argv"), list):
        value["argv"] = list(redact_argv([str(a) for a in value["argv"]]))
    return (json.dumps(scrub_json(value)) + "\n").encode()


def keep_records_redacted(folder: Path, destination: Path) -> None:
    """--keep-records: a copy of every record file, regular files only, each line redacted (argv holds tokens:
    `--hf-token hf_...`). A UsageError line when the folder cannot be made."""
    try:
        os.mkdir(destination)
    except OSError as exc:
        raise UsageError(f"--keep-records {one_line(str(destination))}: cannot create it ({exc.strerror})") from None
    for path in sorted(folder.glob("proc-*.jsonl"))[:MAX_PROCESSES]:
        fd = _open_regular(path)
        if fd is None:
            continue
        try:
            lines = [_scrubbed(raw) for raw in bounded_lines(fd) if raw is not None]
        finally:
            os.close(fd)
        try:
            out = os.open(destination / path.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
            with os.fdopen(out, "wb") as stream:
                stream.writelines(lines)
        except OSError as exc:
            raise UsageError(f"--keep-records {one_line(str(destination))}: cannot write ({exc.strerror})") from None


def read_records(folder: Path) -> list[ProcessRecord]:
    """Every process that wrote records, in the order they started (pid order breaks ties)."""
    found = []
    for path in sorted(folder.glob("proc-*.jsonl"))[:MAX_PROCESSES]:
        record = _process(path)
        if record is not None:
            found.append(record)
    return sorted(found, key=lambda r: r.pid)
